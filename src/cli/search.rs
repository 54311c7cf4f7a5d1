//! `codegraph search`: entities matching plain words or names, best first.

use clap::{Args, ValueEnum};

use super::{WorkspaceArgs, load, location, print, print_stamped};
use crate::analysis::filter::FileFilter;
use crate::analysis::search::{SearchOptions, SearchScope};
use crate::graph::Entity;

#[derive(Args, Debug)]
pub struct SearchArgs {
    pub query: String,
    #[arg(long, value_enum, ignore_case = true, default_value = "all")]
    pub scope: ScopeArg,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Which code: production_first (default), all, or classes, comma-separated
    /// (production, test, fixture, example, generated, vendored).
    #[arg(long, default_value = "production_first")]
    pub filter: String,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

/// `--scope`: which kinds of entities to rank.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeArg {
    All,
    /// Functions and methods.
    Functions,
    /// Types.
    Classes,
    /// Modules.
    Files,
}

impl From<ScopeArg> for SearchScope {
    fn from(scope: ScopeArg) -> SearchScope {
        match scope {
            ScopeArg::All => SearchScope::All,
            ScopeArg::Functions => SearchScope::Functions,
            ScopeArg::Classes => SearchScope::Classes,
            ScopeArg::Files => SearchScope::Files,
        }
    }
}

pub fn run(arguments: &SearchArgs) -> anyhow::Result<()> {
    let (text, limit, workspace) = (&arguments.query, arguments.limit, &arguments.workspace);
    let scope = SearchScope::from(arguments.scope);
    let filter = FileFilter::parse(&arguments.filter).map_err(anyhow::Error::msg)?;
    let (world, graph) = load(workspace)?;
    let index = world.analysis().search_index(&graph);
    let options = SearchOptions::new(&graph, scope, limit);
    let results = index.search_with(text, &options.with_filter(filter));
    let found: Vec<(f64, Entity)> = results
        .hits
        .iter()
        .filter_map(|hit| Some((hit.relevance, graph.entity(&hit.id)?)))
        .collect();
    if workspace.json {
        let entities: Vec<serde_json::Value> = found
            .iter()
            .map(|(relevance, entity)| serde_json::json!({ "entity": entity, "relevance": relevance }))
            .collect();
        let files = found.iter().map(|(_, entity)| &*entity.file_path);
        return print_stamped(
            world,
            &graph,
            files,
            serde_json::json!({
                "terms": results.terms,
                "entities": entities,
                "total_count": results.total_count,
            }),
        );
    }
    if found.is_empty() {
        return print(&format!("nothing matches {:?}", results.terms));
    }
    for (relevance, entity) in found {
        let class = graph.class_of(&entity.id);
        print(&format!(
            "{relevance:.2}  {}  {} {}{}",
            entity.id,
            entity.kind,
            location(&entity),
            if class == crate::model::FileClass::Production {
                String::new()
            } else {
                format!("  [{class}]")
            }
        ))?;
    }
    Ok(())
}
