//! `codegraph mcp`: the MCP door on stdin/stdout, attached to a running server when there is
//! one.

use std::sync::Arc;

use clap::Args;

use super::{ShellArgs, ToolsArgs, WorkspaceArgs, open_world};

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Never attach to a running server; always index and serve in-process.
    #[arg(long)]
    pub no_attach: bool,
    /// (In-process only: an attached server keeps its own setting.)
    #[command(flatten)]
    pub shell: ShellArgs,
    #[command(flatten)]
    pub tools: ToolsArgs,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: McpArgs) -> anyhow::Result<()> {
    let McpArgs {
        no_attach,
        shell,
        tools: ToolsArgs { tools },
        workspace,
    } = arguments;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(crate::walk::STACK_SIZE)
        .build()?;
    if !no_attach
        && runtime.block_on(crate::mcp::attach::relay_if_served(&workspace.repo, &tools))?
    {
        return Ok(());
    }
    let world = open_world(&workspace)?;
    // stdout is the protocol: index quietly.
    let report = world.index(false, &|_, _| {});
    tracing::info!(
        "indexed {} files, {} entities; serving MCP on stdio",
        report.files,
        report.entities
    );
    let world = Arc::new(world);
    {
        // Ready for the first change (it waits on the writer lock while this runs).
        let world = world.clone();
        std::thread::spawn(move || world.prepare_changes());
    }
    let server = shell.apply(crate::mcp::CodegraphMcp::new(world).with_tools(tools));
    runtime.block_on(crate::mcp::serve_stdio(server))?;
    Ok(())
}
