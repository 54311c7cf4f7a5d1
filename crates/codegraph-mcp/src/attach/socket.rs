//! The server's side of a root's socket: accepting connections, each a session counted in the
//! discovery entry while it lives, served as its hello line asks (an MCP session, an editor's LSP
//! session, another worktree to serve).

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use parking_lot::Mutex;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader, Chain};
use tokio::net::UnixListener;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::{
    Entry, Hello, Kind, VERSION, entries, now_seconds, root_key, runtime_dir, write_entry,
};
use crate::CodegraphMcp;
use crate::http::Tokens;
use crate::toolset::ToolSet;
use codegraph_world::World;

/// A root served on a socket. Dropping it (or [`Attachment::close`]) stops accepting and removes
/// the socket and the discovery file.
pub struct Attachment {
    pub socket: PathBuf,
    pub discovery: PathBuf,
    published: Arc<Published>,
    accept: Mutex<Option<tokio::task::AbortHandle>>,
}

/// The discovery file's content, kept current as sessions come and go.
struct Published {
    discovery: PathBuf,
    entry: Mutex<Entry>,
    sessions: Sessions,
    closed: std::sync::atomic::AtomicBool,
}

impl Published {
    /// Rewrites the discovery file with `change` applied, unless the root is no longer served.
    fn update(&self, change: impl FnOnce(&mut Entry)) -> anyhow::Result<()> {
        let mut entry = self.entry.lock();
        change(&mut entry);
        if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Ok(());
        }
        write_entry(&self.discovery, &entry)
    }
}

/// The sessions connected to a socket, and since when there has been none.
pub struct Sessions {
    state: Mutex<(usize, std::time::Instant)>,
}

impl Sessions {
    fn new() -> Sessions {
        Sessions {
            state: Mutex::new((0, std::time::Instant::now())),
        }
    }

    /// Counts a session in (`1`) or out (`-1`); the new count.
    fn add(&self, step: isize) -> usize {
        let mut state = self.state.lock();
        state.0 = state.0.saturating_add_signed(step);
        if state.0 == 0 {
            state.1 = std::time::Instant::now();
        }
        state.0
    }

    /// How long the socket has had no session (zero while it has one).
    pub fn quiet_for(&self) -> std::time::Duration {
        let (count, since) = *self.state.lock();
        if count == 0 {
            since.elapsed()
        } else {
            std::time::Duration::ZERO
        }
    }
}

/// Counts one connection as a session while it lives, in the discovery file too.
struct SessionGuard(Arc<Published>);

impl SessionGuard {
    fn enter(published: Arc<Published>) -> SessionGuard {
        let count = published.sessions.add(1);
        let _ = published.update(|entry| entry.clients = count);
        SessionGuard(published)
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        let count = self.0.sessions.add(-1);
        let _ = self.0.update(|entry| entry.clients = count);
    }
}

impl Attachment {
    /// Adds the HTTP endpoint and its tokens to the discovery file.
    pub fn publish_http(&self, url: String, tokens: Option<Tokens>) -> anyhow::Result<()> {
        self.published.update(|entry| {
            entry.http = Some(url);
            entry.tokens = tokens;
        })
    }

    /// The sessions connected to the socket.
    pub fn sessions(&self) -> &Sessions {
        &self.published.sessions
    }

    pub fn close(&self) {
        if let Some(accept) = self.accept.lock().take() {
            self.published
                .closed
                .store(true, std::sync::atomic::Ordering::Release);
            accept.abort();
            // Hold the entry's lock so that no session rewrites the file after its removal.
            let _entry = self.published.entry.lock();
            let _ = std::fs::remove_file(&self.discovery);
            let _ = std::fs::remove_file(&self.socket);
        }
    }
}

impl Drop for Attachment {
    fn drop(&mut self) {
        self.close();
    }
}

/// Serves MCP sessions on `world` over a new unix socket and publishes the discovery file,
/// saying it is served by a process of `kind`. Must run inside a tokio runtime. Every
/// connection is its own MCP session on the same world.
pub fn serve_world(
    world: Arc<World>,
    server: CodegraphMcp,
    kind: Kind,
    handlers: Handlers,
) -> anyhow::Result<Attachment> {
    let directory = runtime_dir()?;
    // Reading the directory clears what dead processes left behind.
    entries(&directory);
    let root = world.root().to_path_buf();
    let name = format!("{}-{}", root_key(&root), std::process::id());
    let socket = directory.join(format!("{name}.sock"));
    let discovery = directory.join(format!("{name}.json"));
    let _ = std::fs::remove_file(&socket);
    let listener =
        UnixListener::bind(&socket).with_context(|| format!("binding {}", socket.display()))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    let entry = Entry {
        root: root.clone(),
        socket: socket.clone(),
        pid: std::process::id(),
        http: None,
        tokens: None,
        kind,
        started: now_seconds(),
        clients: 0,
        version: VERSION.to_string(),
        repository: crate::daemon::repository_of(&root),
    };
    write_entry(&discovery, &entry)?;
    let published = Arc::new(Published {
        discovery: discovery.clone(),
        entry: Mutex::new(entry),
        sessions: Sessions::new(),
        closed: Default::default(),
    });
    let accepting = published.clone();
    let served = world.clone();
    let accept = tokio::spawn(async move {
        let world = served;
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::warn!("MCP socket of {}: {error}", root.display());
                    continue;
                }
            };
            let server = server.session();
            let guard = SessionGuard::enter(accepting.clone());
            let (world, handlers) = (world.clone(), handlers.clone());
            tokio::spawn(async move {
                let _guard = guard;
                serve_connection(stream, server, world, handlers).await;
            });
        }
    });
    tracing::info!(
        "serving MCP for {} on {}",
        world.root().display(),
        socket.display()
    );
    Ok(Attachment {
        socket,
        discovery,
        published,
        accept: Mutex::new(Some(accept.abort_handle())),
    })
}

/// What a connection asks for.
enum Asked {
    Mcp(CodegraphMcp),
    Lsp,
    Worktree(PathBuf),
}

/// Adds a worktree of the server's repository to what it serves, as a task: `Ok` once its
/// entry is published (the serve layer provides it: `mcp::serve`).
pub type WorktreeRequests =
    Arc<dyn Fn(PathBuf) -> tokio::task::JoinHandle<Result<(), String>> + Send + Sync>;

/// What a socket serves besides MCP sessions.
#[derive(Clone, Default)]
pub struct Handlers {
    /// Editors' LSP sessions (`codegraph lsp --shared`).
    pub lsp: Option<LspSessions>,
    /// Requests to serve another worktree of the repository (a shared server's).
    pub worktrees: Option<WorktreeRequests>,
}

/// A connection's input after its hello line.
pub type SessionRead = Chain<std::io::Cursor<Vec<u8>>, BufReader<OwnedReadHalf>>;

/// Serves an editor's LSP session over a connection, on the socket's world, as a task (the LSP
/// door provides it: `lsp::shared`).
pub type LspSessions = Arc<
    dyn Fn(Arc<World>, SessionRead, OwnedWriteHalf) -> tokio::task::JoinHandle<()> + Send + Sync,
>;
/// The longest first line read as a possible [`Hello`].
const MAX_HELLO_BYTES: u64 = 64 * 1024;

/// What a connection asks for (an MCP session of `server` with the settings of a relay's
/// [`Hello`], an LSP session, a worktree served), and the rest of the input. A connection that
/// does not start with a hello is an MCP session with the server's settings, its first line
/// kept.
async fn greeted<R: AsyncRead + Unpin>(
    server: CodegraphMcp,
    read: R,
) -> (Asked, Chain<std::io::Cursor<Vec<u8>>, BufReader<R>>) {
    let mut read = BufReader::new(read);
    let mut first = Vec::new();
    let _ = (&mut read)
        .take(MAX_HELLO_BYTES)
        .read_until(b'\n', &mut first)
        .await;
    let Ok(hello) = serde_json::from_slice::<Hello>(&first) else {
        return (Asked::Mcp(server), std::io::Cursor::new(first).chain(read));
    };
    let rest = std::io::Cursor::new(Vec::new()).chain(read);
    if hello.attach.lsp {
        return (Asked::Lsp, rest);
    }
    if let Some(root) = hello.attach.worktree {
        return (Asked::Worktree(root), rest);
    }
    let tools = hello
        .attach
        .tools
        .and_then(|tools| ToolSet::parse(&tools).ok());
    match tools {
        Some(tools) => (Asked::Mcp(server.with_tools(tools)), rest),
        None => (Asked::Mcp(server), rest),
    }
}

/// Serves one connection as it asked.
async fn serve_connection(
    stream: tokio::net::UnixStream,
    server: CodegraphMcp,
    world: Arc<World>,
    handlers: Handlers,
) {
    let (read, mut write) = stream.into_split();
    let (asked, read) = greeted(server, read).await;
    match asked {
        Asked::Mcp(server) => match server
            .serve(crate::lines::answer_parse_errors(read, write))
            .await
        {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::debug!("MCP socket session ended early: {error}"),
        },
        Asked::Lsp => match handlers.lsp {
            Some(lsp) => {
                let _ = lsp(world, read, write).await;
            }
            None => tracing::info!("an LSP session asked of a socket that serves MCP only"),
        },
        Asked::Worktree(root) => {
            let outcome = match handlers.worktrees {
                Some(add) => add(root)
                    .await
                    .unwrap_or_else(|error| Err(error.to_string())),
                None => Err("this server serves no other worktree".to_string()),
            };
            let answer = match outcome {
                Ok(()) => serde_json::json!({"ok": true}),
                Err(error) => serde_json::json!({"error": error}),
            };
            let line = answer.to_string() + "\n";
            let _ = tokio::io::AsyncWriteExt::write_all(&mut write, line.as_bytes()).await;
        }
    }
}
