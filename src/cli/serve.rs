//! `codegraph serve` (and `codegraph --mcp-only`): the headless MCP server.

use clap::Args;

use super::{ShellArgs, ToolsArgs, WorkspaceArgs, open_world};
use crate::mcp::http::Scope;

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Serve MCP only, no editor (LSP): index, watch the file system, serve.
    #[arg(long)]
    pub mcp_only: bool,
    /// Serve MCP over HTTP on this port (Streamable HTTP at /mcp, legacy SSE at /sse) instead
    /// of stdio; 0 picks a free port (published in the discovery file).
    #[arg(long, value_name = "PORT")]
    pub http: Option<u16>,
    /// Same as `--http PORT`.
    #[arg(long, value_name = "PORT", conflicts_with = "http")]
    pub port: Option<u16>,
    /// The address to bind for HTTP. Anything but loopback requires a bearer token, generated
    /// for the run and written to the discovery file.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Require a bearer token on loopback too.
    #[arg(long)]
    pub auth: bool,
    /// Also accept this name in the HTTP `Host` header (with the port); repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Serve only the unix socket `codegraph mcp` attaches to, as the repository's shared
    /// server (what `codegraph mcp` starts when no server runs): no stdio, exits after
    /// `--idle-exit` seconds with no client.
    #[arg(long, conflicts_with_all = ["http", "port"])]
    pub shared: bool,
    /// With `--shared`: exit after this many seconds with no client.
    #[arg(long, value_name = "SECONDS", env = "CODEGRAPH_IDLE_EXIT", default_value_t = crate::mcp::daemon::DEFAULT_IDLE_SECONDS)]
    pub idle_exit: u64,
    #[command(flatten)]
    pub shell: ShellArgs,
    #[command(flatten)]
    pub tools: ToolsArgs,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: ServeArgs) -> anyhow::Result<()> {
    let world = open_world(&arguments.workspace)?;
    let front = match arguments.http.or(arguments.port) {
        None if arguments.shared => crate::mcp::serve::Front::Shared {
            idle: std::time::Duration::from_secs(arguments.idle_exit),
        },
        None => crate::mcp::serve::Front::Stdio,
        Some(port) => {
            let beyond_loopback = !arguments.host.is_loopback();
            let with_shell = arguments.shell.policy().is_some();
            let widest = if with_shell {
                Scope::Shell
            } else {
                Scope::ReadOnly
            };
            // Shell over HTTP always takes the shell-scoped token.
            let tokens = if arguments.auth || beyond_loopback || with_shell {
                Some(crate::mcp::http::Tokens::generate(widest)?)
            } else {
                None
            };
            crate::mcp::serve::Front::Http(crate::mcp::http::HttpOptions {
                host: arguments.host,
                port,
                tokens,
                extra_hosts: arguments.allow_host.clone(),
            })
        }
    };
    let shell = arguments.shell.clone();
    let tools = arguments.tools.tools.clone();
    // Editors' sessions of `codegraph lsp --shared` are served on the socket too.
    let lsp: crate::mcp::attach::LspSessions =
        std::sync::Arc::new(crate::lsp::shared::spawn_session);
    crate::mcp::serve::run(
        world,
        move |server| shell.apply(server.with_tools(tools.clone())),
        front,
        Some(lsp),
    )
}
