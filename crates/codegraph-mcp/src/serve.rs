//! The headless server (`codegraph --mcp-only`, `codegraph serve`): one world indexed from disk,
//! kept current by a file watcher, served over MCP on stdio or HTTP, and on the private unix
//! socket that `codegraph mcp` attaches to.

use std::sync::Arc;

use anyhow::Context;

use tokio_util::sync::CancellationToken;

use super::CodegraphMcp;
use super::attach;
use super::http::{self, HttpOptions};
use codegraph_world::World;

/// What to serve besides the unix socket.
pub enum Front {
    /// MCP on stdin/stdout until the client goes away.
    Stdio,
    /// MCP over HTTP until interrupted.
    Http(HttpOptions),
    /// The unix socket alone, as the shared server of `mcp::daemon`: until it has had no
    /// session for this long, or is interrupted.
    Shared { idle: std::time::Duration },
}

/// Indexes `world`, watches its root and serves it until the front ends. The socket also serves
/// editors' LSP sessions with `lsp`; a shared server, the other worktrees of its repository
/// (`mcp::shared`).
pub fn run(
    world: World,
    server_setup: impl Fn(CodegraphMcp) -> CodegraphMcp + Send + Sync + 'static,
    front: Front,
    lsp: Option<attach::LspSessions>,
) -> anyhow::Result<()> {
    let report = world.index(false, &|_, _| {});
    tracing::info!(
        "indexed {} files, {} entities in {:.0} ms",
        report.files,
        report.entities,
        report.duration_ms
    );
    let world = Arc::new(world);
    {
        // Ready for the first change (it waits on the writer lock while this runs).
        let world = world.clone();
        std::thread::spawn(move || world.prepare_changes());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(codegraph_model::walk::STACK_SIZE)
        .build()?;
    if let Front::Shared { idle } = front {
        let result = runtime.block_on(async {
            let worktrees = super::shared::Worktrees::start(world, Arc::new(server_setup), lsp)
                .context("serving the MCP socket")?;
            worktrees.run(idle).await;
            anyhow::Ok(())
        });
        runtime.shutdown_background();
        return result;
    }
    let server = server_setup(CodegraphMcp::new(world.clone()));
    let result = runtime.block_on(async {
        let _watcher = codegraph_world::watch::watch(world.clone(), |_| {})
            .inspect_err(|error| tracing::warn!("not watching the file system: {error}"))
            .ok();
        let handlers = attach::Handlers {
            lsp,
            worktrees: None,
        };
        let attachment =
            attach::serve_world(world.clone(), server.clone(), attach::Kind::Serve, handlers)
                .inspect_err(|error| tracing::warn!("no MCP socket: {error:#}"))
                .ok();
        serve_front(server, front, attachment.as_ref()).await?;
        drop(attachment);
        anyhow::Ok(())
    });
    runtime.shutdown_background();
    result
}

/// Serves MCP on `front` until it ends; an HTTP address is published on the attachment.
async fn serve_front(
    server: CodegraphMcp,
    front: Front,
    attachment: Option<&attach::Attachment>,
) -> anyhow::Result<()> {
    match front {
        Front::Stdio => {
            let running = rmcp::ServiceExt::serve(
                server,
                super::lines::answer_parse_errors(tokio::io::stdin(), tokio::io::stdout()),
            )
            .await?;
            running.waiting().await?;
        }
        // Served by `run` before any front.
        Front::Shared { .. } => {}
        Front::Http(options) => {
            let listener = http::bind(&options).await?;
            let address = listener.local_addr()?;
            let url = format!("http://{address}/mcp");
            if let Some(attachment) = attachment {
                attachment.publish_http(url.clone(), options.tokens.clone())?;
            }
            tracing::warn!("serving MCP at {url} (legacy SSE at http://{address}/sse)");
            let shutdown = CancellationToken::new();
            tokio::spawn(cancel_when_interrupted(shutdown.clone()));
            http::serve(listener, server, &options, shutdown).await?;
        }
    }
    Ok(())
}

/// Cancels `stop` on Ctrl-C or SIGTERM.
pub(crate) async fn cancel_when_interrupted(stop: CancellationToken) {
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match terminate.as_mut() {
            Some(signal) => {
                signal.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminated => {}
    }
    stop.cancel();
}
