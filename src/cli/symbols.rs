//! `codegraph symbols`: symbols matching a query (exact, prefix, camel humps, subsequence).

use clap::Args;

use super::{WorkspaceArgs, load, location, print, print_stamped};
use crate::graph::query;

#[derive(Args, Debug)]
pub struct SymbolsArgs {
    pub query: String,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: &SymbolsArgs) -> anyhow::Result<()> {
    let (text, limit, workspace) = (&arguments.query, arguments.limit, &arguments.workspace);
    let (world, graph) = load(workspace)?;
    let found = query::symbols(&graph, text, limit);
    if workspace.json {
        let files = found.iter().map(|item| &*item.entity.file_path);
        print_stamped(
            world,
            &graph,
            files,
            serde_json::json!({ "symbols": found }),
        )?;
    } else {
        for item in found {
            print(&format!(
                "{:.2}  {}  {} {}",
                item.score,
                item.entity.id,
                item.entity.kind,
                location(&item.entity)
            ))?;
        }
    }
    Ok(())
}
