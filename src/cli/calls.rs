//! `codegraph callers` and `codegraph callees`: who calls NAME, what NAME calls.

use clap::Args;

use super::{WorkspaceArgs, find, load, location, print, print_stamped};
use crate::graph::query::{self, CallDirection as Direction, PossibleCall, Reached};

#[derive(Args, Debug)]
pub struct CallsArgs {
    /// An id, a qualified name or a plain name.
    pub name: String,
    /// Follow callers of callers (or callees of callees) up to this many hops.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

/// `codegraph callers` and `codegraph callees`.
pub fn run(arguments: &CallsArgs, direction: Direction) -> anyhow::Result<()> {
    let (name, depth, workspace) = (&arguments.name, arguments.depth, &arguments.workspace);
    let (world, graph) = load(workspace)?;
    let entity = find(&graph, name)?;
    let reached = query::call_closure(&graph, &entity.id, direction, depth.max(1));
    let label = direction.noun();
    // Ambiguous references left aside: calls that may be there but are no edges.
    let possible = match direction {
        Direction::Callers => query::possible_callers(&graph, &entity.id),
        Direction::Callees => query::possible_callees(&graph, &entity.id),
    };
    if workspace.json {
        let files: Vec<&str> = reached
            .iter()
            .map(|item| &*item.entity.file_path)
            .chain(possible.iter().map(|call| &*call.file))
            .chain([&*entity.file_path])
            .collect();
        let value = serde_json::json!({
            "entity": entity,
            label: reached,
            "possible": possible,
            "revision": graph.revision(),
        });
        return print_stamped(world, &graph, files, value);
    }
    if reached.is_empty() {
        let proven = if possible.is_empty() { "" } else { " proven" };
        print(&format!("{} has no {label}{proven}", entity.id))?;
    }
    for item in reached {
        print_reached(&item)?;
    }
    print_possible(&possible)
}

/// One entity reached, indented by its depth, marked when it is no plain call.
fn print_reached(item: &Reached) -> anyhow::Result<()> {
    let indent = "  ".repeat(item.depth as usize - 1);
    // The two kinds a reader should not take for a plain call: a call of an override or
    // implementation, and a guess by a unique name.
    let kind = match item.resolution {
        crate::model::Resolution::Dispatch | crate::model::Resolution::UniqueName => {
            format!("  [{}]", item.resolution)
        }
        _ => String::new(),
    };
    print(&format!(
        "{indent}{}  {} {}{kind}",
        item.entity.id,
        item.entity.kind,
        location(&item.entity)
    ))
}

/// The references left aside, with what each could be, when there are some.
fn print_possible(possible: &[PossibleCall]) -> anyhow::Result<()> {
    if possible.is_empty() {
        return Ok(());
    }
    print("possible (references left aside, not edges):")?;
    for call in possible {
        let candidates: Vec<&str> = call.candidates.iter().map(|id| &**id).collect();
        print(&format!(
            "  {}  {} at {}:{} ({}) could be {}",
            call.from,
            call.name,
            call.file,
            call.line,
            call.reason.as_str(),
            candidates.join(" | ")
        ))?;
    }
    Ok(())
}
