//! `codegraph refactor`: suggestions for one entity, or every unused entity, or the import
//! cycles.

use anyhow::bail;
use clap::{Args, ValueEnum};

use super::{WorkspaceArgs, find, load, location, print, print_stamped};
use crate::analysis::refactor::{self, RepoFacts, SuggestionKind};
use crate::graph::Graph;
use crate::world::World;

#[derive(Args, Debug)]
pub struct RefactorArgs {
    pub name: Option<String>,
    /// Only suggestions of this kind.
    #[arg(long = "type", value_enum, ignore_case = true)]
    pub kind: Option<KindArg>,
    #[arg(long)]
    pub dead: bool,
    #[arg(long)]
    pub cycles: bool,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

/// `--type`, with the words `SuggestionKind::parse` also accepts.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindArg {
    #[value(
        alias = "extract_method",
        alias = "extract_function",
        alias = "extract_class"
    )]
    Extract,
    Rename,
    Move,
    Simplify,
    Inline,
    #[value(alias = "delete", alias = "dead_code")]
    Remove,
}

impl From<KindArg> for SuggestionKind {
    fn from(kind: KindArg) -> SuggestionKind {
        match kind {
            KindArg::Extract => SuggestionKind::Extract,
            KindArg::Rename => SuggestionKind::Rename,
            KindArg::Move => SuggestionKind::Move,
            KindArg::Simplify => SuggestionKind::Simplify,
            KindArg::Inline => SuggestionKind::Inline,
            KindArg::Remove => SuggestionKind::Remove,
        }
    }
}

pub fn run(arguments: &RefactorArgs) -> anyhow::Result<()> {
    let workspace = &arguments.workspace;
    let (world, graph) = load(workspace)?;
    let facts = world.analysis().repo_facts(&graph);
    if arguments.cycles {
        return cycles(world, &graph, &facts, workspace);
    }
    if arguments.dead {
        return dead(world, &graph, &facts, workspace);
    }
    let Some(name) = arguments.name.as_deref() else {
        bail!("give an entity (or a file path), or --dead, or --cycles");
    };
    let only = arguments.kind.map(SuggestionKind::from);
    suggest(world, &graph, &facts, name, only, workspace)
}

/// `--cycles`: the import cycles, one a line.
fn cycles(
    world: &World,
    graph: &Graph,
    facts: &RepoFacts,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    if workspace.json {
        let files = facts
            .import_cycles
            .iter()
            .flat_map(|cycle| cycle.files.iter().map(|file| &**file));
        let value = serde_json::json!({ "import_cycles": facts.import_cycles });
        return print_stamped(world, graph, files, value);
    }
    if facts.import_cycles.is_empty() {
        print("no import cycles")?;
    }
    for cycle in &facts.import_cycles {
        let path: Vec<&str> = cycle.cycle.iter().map(|file| &**file).collect();
        print(&format!(
            "{} files: {}",
            cycle.files.len(),
            path.join(" -> ")
        ))?;
    }
    Ok(())
}

/// `--dead`: every unused entity, with the confidence and the reason.
fn dead(
    world: &World,
    graph: &Graph,
    facts: &RepoFacts,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    let found = refactor::dead_code(graph, facts);
    if workspace.json {
        let list: Vec<serde_json::Value> = found
            .iter()
            .map(|(entity, confidence, reason)| serde_json::json!({ "entity": entity, "confidence": confidence, "reason": reason }))
            .collect();
        let files = found.iter().map(|(entity, _, _)| &*entity.file_path);
        return print_stamped(
            world,
            graph,
            files,
            serde_json::json!({ "dead_code": list }),
        );
    }
    for (entity, confidence, reason) in found {
        print(&format!(
            "{confidence:.2}  {}  {}: {reason}",
            entity.id,
            location(&entity)
        ))?;
    }
    Ok(())
}

/// The suggestions for the entity `name` (only those of kind `only`, when given), after its
/// metrics.
fn suggest(
    world: &World,
    graph: &Graph,
    facts: &RepoFacts,
    name: &str,
    only: Option<SuggestionKind>,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    let entity = find(graph, name)?;
    let report = refactor::suggest(graph, facts, &entity, only);
    if workspace.json {
        let files = report
            .suggestions
            .iter()
            .map(|suggestion| &*suggestion.location.file)
            .chain([&*entity.file_path]);
        return print_stamped(world, graph, files, serde_json::to_value(&report)?);
    }
    let metrics = &report.metrics;
    let optional = |value: Option<u32>| value.map_or("-".to_string(), |value| value.to_string());
    print(&format!(
        "{} ({}) {}\n  lines {}, complexity {}, nesting {}, parameters {}, fan-in {}, fan-out {}",
        entity.id,
        entity.kind,
        location(&entity),
        metrics.lines,
        optional(metrics.cyclomatic_complexity),
        optional(metrics.max_nesting),
        optional(metrics.parameters),
        metrics.fan_in,
        metrics.fan_out
    ))?;
    if report.suggestions.is_empty() {
        print("  no suggestions")?;
    }
    for suggestion in &report.suggestions {
        let kind = serde_json::to_value(suggestion.kind)?;
        print(&format!(
            "  {} ({:.2}): {}",
            kind.as_str().unwrap_or_default(),
            suggestion.confidence,
            suggestion.reason
        ))?;
    }
    Ok(())
}
