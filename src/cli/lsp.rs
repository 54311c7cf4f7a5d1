//! `codegraph lsp`: the editor door on stdin/stdout.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::ShellArgs;
use crate::world::{CacheLocation, WorldConfig};

#[derive(Args, Debug)]
pub struct LspArgs {
    /// Accepted for editors that pass it; stdio is the only transport.
    #[arg(long)]
    pub stdio: bool,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_file_size: u64,
    /// Neither read nor write the on-disk cache (`<folder>/.codegraph`).
    #[arg(long)]
    pub no_cache: bool,
    /// Keep each workspace folder's cache in `DIR/<folder name>-<hash>/` instead of
    /// `<folder>/.codegraph`.
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Do not serve MCP on a unix socket (by default `codegraph mcp` can attach to this
    /// process and see the editor's unsaved edits).
    #[arg(long)]
    pub no_mcp_socket: bool,
    /// On the MCP socket: `codegraph mcp` clients attached to this process may run these
    /// programs (off by default; see `codegraph serve --help`).
    #[command(flatten)]
    pub shell: ShellArgs,
    /// Start the repository's shared server (the one `codegraph mcp` starts and attaches to)
    /// when none runs, and serve the editor from it: one process and one graph for the editor
    /// and every AI session of the folder, which outlives the editor for its idle time. Without
    /// it, an editor of a single workspace folder joins that folder's shared server only when
    /// one already runs, and otherwise this process serves the editor (and the agents that
    /// attach to it). With `--no-mcp-socket`, `--allow-shell` or `--cache-dir`, the editor is
    /// always served in-process (a shared server has its socket, never runs commands, and
    /// keeps its cache in the folder).
    #[arg(long)]
    pub shared: bool,
    /// With `--shared`: a shared server this command starts exits after this many seconds with
    /// no client.
    #[arg(long, value_name = "SECONDS", env = "CODEGRAPH_IDLE_EXIT", default_value_t = crate::mcp::daemon::DEFAULT_IDLE_SECONDS)]
    pub idle_exit: u64,
}

/// The exit code: 1 when the client said `exit` (or went away) without `shutdown` first.
pub fn run(arguments: LspArgs) -> anyhow::Result<i32> {
    let LspArgs {
        stdio: _,
        max_file_size,
        no_cache,
        cache_dir,
        no_mcp_socket,
        shell,
        shared,
        idle_exit,
    } = arguments;
    let cache_dir_given = cache_dir.is_some();
    let cache = match (no_cache, cache_dir) {
        (true, _) => CacheLocation::Disabled,
        // Made absolute here: the editor chose the server's working directory.
        (false, Some(directory)) => CacheLocation::PerFolderUnder(
            std::path::absolute(&directory)
                .with_context(|| format!("--cache-dir {}", directory.display()))?,
        ),
        (false, None) => CacheLocation::InWorkspace,
    };
    let config = WorldConfig {
        max_file_size,
        cache,
    };
    // A shared server has its socket, never runs commands and keeps its cache in the folder:
    // an editor that asks otherwise is served in-process.
    let alone = no_mcp_socket || shell.policy().is_some() || cache_dir_given;
    if alone {
        if shared {
            eprintln!(
                "codegraph lsp: --shared with --no-mcp-socket, --allow-shell or --cache-dir: serving in-process"
            );
        }
        return crate::lsp::run_stdio(config, !no_mcp_socket, shell.policy());
    }
    let settings = crate::mcp::daemon::Settings {
        idle_exit,
        max_file_size,
        no_cache,
        cache_dir: None,
    };
    crate::lsp::shared::run_relay(config, shared.then_some(&settings))
}
