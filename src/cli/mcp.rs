//! `codegraph mcp`: the MCP door on stdin/stdout, attached to the repository's running server;
//! when none runs, it starts the shared one (`mcp::daemon`) and attaches to it.

use std::sync::Arc;

use clap::Args;

use super::{ShellArgs, ToolsArgs, WorkspaceArgs, open_world};
use crate::mcp::{attach, daemon};

/// This door, as its messages name it.
const DOOR: &str = "codegraph mcp";

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Never attach to a running server; always index and serve in-process.
    #[arg(long)]
    pub no_attach: bool,
    /// Attach to a running server, but when there is none, index and serve in-process instead
    /// of starting the repository's shared server.
    #[arg(long, env = "CODEGRAPH_NO_DAEMON", value_parser = clap::builder::FalseyValueParser::new())]
    pub no_daemon: bool,
    /// A shared server this command starts exits after this many seconds with no client.
    #[arg(long, value_name = "SECONDS", env = "CODEGRAPH_IDLE_EXIT", default_value_t = crate::mcp::daemon::DEFAULT_IDLE_SECONDS)]
    pub idle_exit: u64,
    /// (In-process only: an attached server keeps its own setting, and a shared server never
    /// runs commands, so with this flag and no server running, `codegraph mcp` serves
    /// in-process.)
    #[command(flatten)]
    pub shell: ShellArgs,
    #[command(flatten)]
    pub tools: ToolsArgs,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: McpArgs) -> anyhow::Result<()> {
    if !arguments.no_attach {
        // A relay only copies bytes: one thread, no worker pool (a client per agent session
        // and worktree adds up).
        let relay = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let repo = &arguments.workspace.repo;
        let mut served = relay.block_on(attach::connect_served(repo));
        if served.is_none() && may_start(&arguments) && start_shared(&arguments) {
            served = relay.block_on(attach::connect_served(repo));
        }
        if let Some((entry, stream)) = served {
            daemon::say_attached(DOOR, &entry);
            relay.block_on(attach::relay_session(stream, &arguments.tools.tools))?;
            relay.shutdown_background();
            return Ok(());
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(crate::walk::STACK_SIZE)
        .build()?;
    serve_in_process(&runtime, &arguments)
}

/// Whether this client may start the shared server when none runs.
fn may_start(arguments: &McpArgs) -> bool {
    if arguments.no_daemon {
        return false;
    }
    if arguments.shell.policy().is_some() {
        eprintln!(
            "codegraph mcp: --allow-shell: serving in-process (a shared server never runs commands)"
        );
        return false;
    }
    true
}

/// Starts the repository's shared server (or waits for the one another client is starting);
/// whether one runs now (else said on stderr).
fn start_shared(arguments: &McpArgs) -> bool {
    let workspace = &arguments.workspace;
    let settings = daemon::Settings {
        idle_exit: arguments.idle_exit,
        max_file_size: workspace.max_file_size,
        no_cache: workspace.no_cache,
        cache_dir: workspace.cache_dir.clone(),
    };
    daemon::ensure_said(DOOR, &workspace.repo, &settings)
}

/// Indexes the repository and serves MCP on stdin/stdout from this process.
fn serve_in_process(runtime: &tokio::runtime::Runtime, arguments: &McpArgs) -> anyhow::Result<()> {
    let world = open_world(&arguments.workspace)?;
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
    let server = arguments
        .shell
        .apply(crate::mcp::CodegraphMcp::new(world).with_tools(arguments.tools.tools.clone()));
    runtime.block_on(crate::mcp::serve_stdio(server))?;
    Ok(())
}
