//! `codegraph impls`: types implementing or extending NAME; for a method, its overrides.

use clap::Args;

use super::{WorkspaceArgs, find, load, location, print, print_stamped};
use crate::graph::query;

#[derive(Args, Debug)]
pub struct ImplsArgs {
    pub name: String,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: &ImplsArgs) -> anyhow::Result<()> {
    let (name, workspace) = (&arguments.name, &arguments.workspace);
    let (world, graph) = load(workspace)?;
    let entity = find(&graph, name)?;
    let found = query::implementations(&graph, &entity.id);
    if workspace.json {
        let possible = query::possible_implementations(&graph, &entity.id);
        let files = found
            .iter()
            .map(|item| &*item.file_path)
            .chain(possible.iter().map(|call| &*call.file))
            .chain([&*entity.file_path]);
        let value = serde_json::json!({
            "entity": entity,
            "implementations": found,
            "possible": possible,
        });
        print_stamped(world, &graph, files, value)?;
    } else if found.is_empty() {
        print(&format!("{} has no implementations", entity.id))?;
    } else {
        for item in found {
            print(&format!("{}  {} {}", item.id, item.kind, location(&item)))?;
        }
    }
    Ok(())
}
