//! `codegraph deps`: what NAME depends on and what depends on it.

use clap::{Args, ValueEnum};

use super::{WorkspaceArgs, find, load, location, print, print_stamped};
use crate::analysis::modules::{self, Direction};

#[derive(Args, Debug)]
pub struct DepsArgs {
    pub name: String,
    /// upstream (dependents; also incoming), downstream (dependencies; also outgoing) or both.
    #[arg(long, value_enum, ignore_case = true, default_value = "both")]
    pub direction: DirectionArg,
    /// Hops to follow (at most 10).
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// Which code: production_first (default), all, or classes, comma-separated
    /// (production, test, fixture, example, generated, vendored).
    #[arg(long, default_value = "production_first")]
    pub filter: String,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

/// `--direction`, with the words `Direction::parse` also accepts.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectionArg {
    /// Who depends on NAME.
    #[value(alias = "up", alias = "dependents", alias = "incoming")]
    Upstream,
    /// What NAME depends on.
    #[value(alias = "down", alias = "dependencies", alias = "outgoing")]
    Downstream,
    /// Both ways.
    #[value(alias = "all")]
    Both,
}

impl From<DirectionArg> for Direction {
    fn from(direction: DirectionArg) -> Direction {
        match direction {
            DirectionArg::Upstream => Direction::Upstream,
            DirectionArg::Downstream => Direction::Downstream,
            DirectionArg::Both => Direction::Both,
        }
    }
}

pub fn run(arguments: &DepsArgs) -> anyhow::Result<()> {
    let (name, depth, workspace) = (&arguments.name, arguments.depth, &arguments.workspace);
    let direction = Direction::from(arguments.direction);
    let filter = crate::analysis::filter::FileFilter::parse(&arguments.filter)
        .map_err(anyhow::Error::msg)?;
    let (world, graph) = load(workspace)?;
    let entity = find(&graph, name)?;
    let found = modules::find_dependencies_filtered(&graph, &entity, direction, depth, filter);
    if workspace.json {
        let files = found
            .iter()
            .map(|item| &*item.entity.file_path)
            .chain([&*entity.file_path]);
        let value = serde_json::json!({ "entity": entity, "dependencies": found });
        return print_stamped(world, &graph, files, value);
    }
    if found.is_empty() {
        return print(&format!(
            "{} has no {} dependencies",
            entity.id,
            direction.as_str()
        ));
    }
    for item in found {
        print(&format!(
            "{} {}  {} {}  ({} {} via {})",
            item.direction.as_str(),
            item.depth,
            item.entity.id,
            item.entity.kind,
            location(&item.entity),
            item.relation,
            item.via
        ))?;
    }
    Ok(())
}
