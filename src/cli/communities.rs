//! `codegraph communities`: communities of connected code, or a question answered from them.

use clap::Args;

use super::{WorkspaceArgs, load, print, print_stamped};
use crate::analysis::communities::{Communities, Community};
use crate::analysis::rag::GlobalOptions;
use crate::graph::Graph;
use crate::world::World;

#[derive(Args, Debug)]
pub struct CommunitiesArgs {
    /// The level to list (default 0) or to answer from (default: chosen from the question).
    #[arg(long)]
    pub level: Option<u8>,
    /// Also list single-entity communities.
    #[arg(long)]
    pub all: bool,
    /// Answer this question from the communities (global search) instead of listing them.
    #[arg(long)]
    pub ask: Option<String>,
    /// Which code: production_first (default), all, or classes, comma-separated
    /// (production, test, fixture, example, generated, vendored).
    #[arg(long, default_value = "production_first")]
    pub filter: String,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: &CommunitiesArgs) -> anyhow::Result<()> {
    let filter = crate::analysis::filter::FileFilter::parse(&arguments.filter)
        .map_err(anyhow::Error::msg)?;
    let (world, graph) = load(&arguments.workspace)?;
    let found = world.analysis().communities(&graph);
    let chosen = arguments
        .level
        .map(|level| (level as usize).min(crate::analysis::communities::LEVELS - 1));
    let Some(question) = arguments.ask.as_deref() else {
        return list(world, &graph, &found, chosen.unwrap_or(0), arguments);
    };
    let index = world.analysis().search_index(&graph);
    let options = GlobalOptions {
        level: chosen,
        filter,
        limit: None,
    };
    let answer = crate::analysis::rag::global_search(&graph, &index, &found, question, &options);
    if arguments.workspace.json {
        let files = answer
            .supporting_entities
            .iter()
            .map(|support| &*support.entity.file_path);
        return print_stamped(world, &graph, files, serde_json::to_value(&answer)?);
    }
    print(&answer.answer)?;
    print(&format!(
        "(confidence {:.2}, {} communities searched)",
        answer.confidence, answer.communities_searched
    ))
}

/// The communities of `level` (those of one entity too with `--all`), after each level's
/// figures.
fn list(
    world: &World,
    graph: &Graph,
    found: &Communities,
    level: usize,
    arguments: &CommunitiesArgs,
) -> anyhow::Result<()> {
    let listed: Vec<&Community> = found
        .at_level(level)
        .filter(|community| arguments.all || community.member_count > 1)
        .collect();
    if arguments.workspace.json {
        let value = serde_json::json!({
            "levels": found.levels,
            "duration_ms": found.duration_ms,
            "communities": listed,
        });
        return print_stamped(world, graph, [], value);
    }
    for info in &found.levels {
        print(&format!(
            "level {}: {} communities ({} with 2+ members), modularity {:.3}",
            info.level, info.community_count, info.nontrivial_count, info.modularity
        ))?;
    }
    print(&format!("computed in {:.0} ms\n", found.duration_ms))?;
    for community in listed {
        print(&format!(
            "#{} {} ({} members)\n  {}",
            community.id, community.name, community.member_count, community.summary
        ))?;
    }
    Ok(())
}
