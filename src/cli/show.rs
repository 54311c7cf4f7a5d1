//! `codegraph show`: one entity, where it is, its signature, its relations.

use clap::Args;

use super::{WorkspaceArgs, find, load, location, print, print_stamped};
use crate::graph::query;

#[derive(Args, Debug)]
pub struct ShowArgs {
    pub name: String,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: &ShowArgs) -> anyhow::Result<()> {
    let (name, workspace) = (&arguments.name, &arguments.workspace);
    let (world, graph) = load(workspace)?;
    let entity = find(&graph, name)?;
    let callers = query::callers(&graph, &entity.id);
    let callees = query::callees(&graph, &entity.id);
    let bases = query::supertypes(&graph, &entity.id);
    if workspace.json {
        let bases: Vec<serde_json::Value> = bases
            .iter()
            .map(|(base, kind)| serde_json::json!({ "id": base.id, "relation": kind }))
            .collect();
        let files: Vec<&str> = callers
            .iter()
            .chain(callees.iter())
            .map(|call| &*call.entity.file_path)
            .chain([&*entity.file_path])
            .collect();
        let value = serde_json::json!({ "entity": entity, "callers": callers, "callees": callees, "bases": bases });
        print_stamped(world, &graph, files, value)?;
    } else {
        print(&format!(
            "{} ({}) {}-{}",
            entity.id,
            entity.kind,
            location(&entity),
            entity.end_line
        ))?;
        print(&format!("  qualified name: {}", entity.qualified_name))?;
        if let Some(signature) = &entity.signature {
            print(&format!("  signature: {signature}"))?;
        }
        if let Some(doc) = &entity.docstring {
            print(&format!("  doc: {}", doc.lines().next().unwrap_or("")))?;
        }
        for (base, kind) in bases {
            print(&format!("  {kind} {}", base.id))?;
        }
        for call in callers {
            print(&format!(
                "  called by {} ({})",
                call.entity.id, call.resolution
            ))?;
        }
        for call in callees {
            print(&format!("  calls {} ({})", call.entity.id, call.resolution))?;
        }
    }
    Ok(())
}
