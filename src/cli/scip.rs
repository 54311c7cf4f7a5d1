//! `codegraph scip`: the graph as a SCIP index, for Sourcegraph and other SCIP readers.

use std::path::PathBuf;

use clap::Args;

use super::{WorkspaceArgs, load, print, print_json};
use crate::export::scip;

#[derive(Args, Debug)]
pub struct ScipArgs {
    /// Where to write the index.
    #[arg(long, short = 'o', default_value = "index.scip")]
    pub output: PathBuf,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: &ScipArgs) -> anyhow::Result<()> {
    let workspace = &arguments.workspace;
    let (world, graph) = load(workspace)?;
    let command_line: Vec<String> = std::env::args().skip(1).collect();
    let (index, exported) = scip::export(&graph, world.root(), command_line);
    let bytes = scip::write(&index, &arguments.output)?;
    if workspace.json {
        return print_json(&serde_json::json!({
            "output": arguments.output,
            "bytes": bytes,
            "exported": exported,
        }));
    }
    let languages: Vec<String> = exported
        .languages
        .iter()
        .map(|(language, count)| format!("{language} {count}"))
        .collect();
    print(&format!(
        "wrote {} ({bytes} bytes): {} documents ({}), {} definitions, {} references, {} references into dependencies, {} relationships\nleft out: {} unique-name guesses, {} ambiguous references (not proven: a SCIP reader takes every occurrence as precise)",
        arguments.output.display(),
        exported.documents,
        languages.join(", "),
        exported.definitions,
        exported.references,
        exported.external_references,
        exported.relationships,
        exported.guesses_left_out,
        exported.ambiguous_left_out,
    ))
}
