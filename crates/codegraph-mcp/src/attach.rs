//! Attaching to a running server: every `codegraph lsp` (and `codegraph serve`) process serves MCP
//! on a per-user unix socket for each workspace root, with MCP's stdio framing (one JSON-RPC
//! message per line), and `codegraph mcp` relays its stdin/stdout to that socket. An AI client
//! launched next to an editor thus talks to the editor's own `World`, unsaved edits included.
//! The relay's first line is its session's settings (`{"codegraph/attach": {"tools": ...}}`,
//! the tools its `--tools` lists); a connection without it keeps the server's.
//!
//! Layout: the directory `$XDG_RUNTIME_DIR/codegraph/` (else `~/.cache/codegraph/run`), mode
//! 0700, holds for each served root a socket `<hash>-<pid>.sock` (mode 0600) and a discovery file
//! `<hash>-<pid>.json` (mode 0600, written atomically) naming the root, the socket, the pid and,
//! for an HTTP server, its URL and tokens. `<hash>` is a hash of the canonical root, so several
//! processes may serve the same root side by side. Entries whose process is gone are removed
//! whenever the directory is read.
//!
//! Trust: the directory is used only if it is a real directory (not a symlink) owned by this
//! user, and is made mode 0700; otherwise attaching and publishing are refused with the reason
//! (`codegraph mcp` then serves in-process). A discovery file is read only if it is a regular
//! file owned by this user, and its socket is trusted only if it is a socket owned by this user
//! inside the directory; the server at the other end must run as this user too (checked with
//! the socket's peer credentials). A stale entry's socket is deleted only when it is such a
//! socket, so a forged entry cannot make codegraph delete a file it names. Discovery files are
//! written to `create_new` temporaries and renamed.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use parking_lot::Mutex;
use rmcp::ServiceExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader, Chain};
use tokio::net::UnixListener;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::CodegraphMcp;
use super::http::Tokens;
use super::toolset::ToolSet;
use codegraph_world::World;

/// What a discovery file says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The canonical workspace root.
    pub root: PathBuf,
    /// The unix socket serving MCP for this root.
    pub socket: PathBuf,
    pub pid: u32,
    /// The HTTP endpoint (`http://host:port/mcp`), for a server started with `--http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// The bearer tokens the HTTP endpoint accepts, when it requires one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// What kind of process serves the root.
    #[serde(default)]
    pub kind: Kind,
    /// When the process started serving, in seconds since the Unix epoch.
    #[serde(default)]
    pub started: u64,
    /// The MCP sessions connected to the socket now.
    #[serde(default)]
    pub clients: usize,
    /// The serving codegraph's version.
    #[serde(default)]
    pub version: String,
    /// Git's common directory of the repository whose worktree the root is, when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<PathBuf>,
}

/// This codegraph's version, as entries say it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

impl Entry {
    /// Whether a client of this version may attach to the entry's server: any editor's or
    /// hand-started server, a shared server only of the same version (after an upgrade the next
    /// client starts a new shared server, and the old one exits once idle).
    pub fn attachable(&self) -> bool {
        self.kind != Kind::Shared || self.version == VERSION
    }
}

/// The kinds of process that serve a root on a socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// An editor's `codegraph lsp`: it has the editor's unsaved edits.
    Lsp,
    /// A `codegraph serve` started by hand.
    #[default]
    Serve,
    /// A `codegraph serve --shared` that `codegraph mcp` started: detached, it exits once it
    /// has had no client for its idle time (`mcp::daemon`).
    Shared,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Lsp => "lsp",
            Kind::Serve => "serve",
            Kind::Shared => "shared",
        }
    }
}

/// The per-user directory of sockets and discovery files, created with mode 0700.
pub fn runtime_dir() -> anyhow::Result<PathBuf> {
    let directory = match std::env::var_os("XDG_RUNTIME_DIR").filter(|value| !value.is_empty()) {
        Some(runtime) => PathBuf::from(runtime).join("codegraph"),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|value| !value.is_empty())
                .context("neither XDG_RUNTIME_DIR nor HOME is set")?;
            PathBuf::from(home).join(".cache/codegraph/run")
        }
    };
    std::fs::create_dir_all(&directory)
        .with_context(|| format!("creating {}", directory.display()))?;
    make_private(&directory)?;
    Ok(directory)
}

/// This user's id.
fn user() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Refuses `directory` unless it is a real directory (not a symlink) owned by this user, then
/// makes it mode 0700.
pub fn make_private(directory: &Path) -> anyhow::Result<()> {
    let metadata = directory
        .symlink_metadata()
        .with_context(|| format!("reading {}", directory.display()))?;
    if metadata.file_type().is_symlink() {
        anyhow::bail!(
            "{} is a symlink; refusing it as the runtime directory",
            directory.display()
        );
    }
    if !metadata.is_dir() {
        anyhow::bail!("{} is not a directory", directory.display());
    }
    if metadata.uid() != user() {
        anyhow::bail!(
            "{} is owned by uid {}, not by this user ({}); refusing it as the runtime directory",
            directory.display(),
            metadata.uid(),
            user()
        );
    }
    if metadata.mode() & 0o777 != 0o700 {
        std::fs::set_permissions(directory, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("making {} private", directory.display()))?;
    }
    Ok(())
}

/// Whether `socket` is a unix socket owned by this user directly inside `directory`.
fn socket_is_ours(directory: &Path, socket: &Path) -> bool {
    socket.parent() == Some(directory)
        && socket
            .symlink_metadata()
            .is_ok_and(|metadata| metadata.file_type().is_socket() && metadata.uid() == user())
}

/// Reads a discovery file if it is a regular file owned by this user (not through a symlink).
fn read_entry(path: &Path) -> Option<Result<Entry, ()>> {
    use std::io::Read;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.uid() != user() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(1 << 20).read_to_end(&mut bytes).ok()?;
    Some(serde_json::from_slice(&bytes).map_err(|_| ()))
}

/// A short, stable name for a root: the stem of its discovery, socket, lock and log files.
pub fn root_key(root: &Path) -> String {
    let hash = blake3::hash(root.as_os_str().as_encoded_bytes());
    hash.to_hex()[..16].to_string()
}

/// Whether the process `pid` is still running. Where this cannot be told (no `/proc`), it is
/// assumed alive and a failed connection decides instead.
fn process_alive(pid: u32) -> bool {
    let proc_root = Path::new("/proc");
    if !proc_root.join("self").exists() {
        return true;
    }
    proc_root.join(pid.to_string()).exists()
}

/// Removes an entry's discovery file, and its socket if that is one of ours in the directory.
fn remove_entry(discovery: &Path, entry: Option<&Entry>) {
    let _ = std::fs::remove_file(discovery);
    if let Some(entry) = entry
        && let Some(directory) = discovery.parent()
        && socket_is_ours(directory, &entry.socket)
    {
        let _ = std::fs::remove_file(&entry.socket);
    }
}

/// Every live entry in `directory`; stale ones (dead process, missing socket, unreadable file)
/// are deleted on the way. Files not owned by this user are ignored, and so are entries whose
/// socket is not one of ours in `directory`.
pub fn entries(directory: &Path) -> Vec<(PathBuf, Entry)> {
    let Ok(listing) = std::fs::read_dir(directory) else {
        return Vec::new();
    };
    let mut live = Vec::new();
    for item in listing.flatten() {
        let path = item.path();
        if path.extension().is_none_or(|extension| extension != "json") {
            continue;
        }
        let Some(entry) = read_entry(&path) else {
            tracing::debug!("{}: not a file of this user; ignored", path.display());
            continue;
        };
        let entry = entry.ok();
        match entry {
            Some(entry) if entry.socket.parent() != Some(directory) => {
                tracing::warn!(
                    "{}: its socket {} is not in {}; ignored",
                    path.display(),
                    entry.socket.display(),
                    directory.display()
                );
            }
            Some(entry)
                if process_alive(entry.pid)
                    && (socket_is_ours(directory, &entry.socket)
                        || entry.pid == std::process::id()) =>
            {
                live.push((path, entry))
            }
            Some(entry) => {
                tracing::info!("removing the stale entry of process {}", entry.pid);
                remove_entry(&path, Some(&entry));
            }
            None => {
                // A file being written has a `.tmp` name, so an unreadable `.json` is garbage.
                remove_entry(&path, None);
            }
        }
    }
    live
}

/// The live entry serving `repo`: the root equal to it, else the innermost root containing it
/// (compared by path components, on canonical paths); among those, an editor's language server
/// first (it has the unsaved edits), then the most recent process.
pub fn find(directory: &Path, repo: &Path) -> Option<(PathBuf, Entry)> {
    let repo = repo.canonicalize().ok()?;
    entries(directory)
        .into_iter()
        .filter(|(_, entry)| repo.starts_with(&entry.root) && entry.attachable())
        .max_by_key(|(_, entry)| {
            (
                entry.root.components().count(),
                entry.kind == Kind::Lsp,
                entry.started,
                entry.pid,
            )
        })
}

/// Seconds since the Unix epoch.
pub fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Writes `entry` atomically: a fresh private temporary (`create_new`, so never through a file
/// or symlink planted at its name) renamed into place.
pub fn write_entry(path: &Path, entry: &Entry) -> anyhow::Result<()> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let temporary = path.with_extension(format!("json.{}.{nanos}.tmp", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .with_context(|| format!("writing {}", temporary.display()))?;
    let written = (|| -> anyhow::Result<()> {
        file.write_all(&serde_json::to_vec_pretty(entry)?)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

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
        repository: super::daemon::repository_of(&root),
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

/// The line a relay sends before its client's messages: the session's settings.
#[derive(Debug, Serialize, Deserialize)]
struct Hello {
    #[serde(rename = "codegraph/attach")]
    attach: HelloSettings,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct HelloSettings {
    /// The tools the session lists, as `--tools` takes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tools: Option<String>,
    /// The connection is an editor's LSP session (`codegraph lsp --shared`), not MCP.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    lsp: bool,
    /// The connection asks the server to serve this worktree of its repository too, and is
    /// answered with one line, `{"ok": true}` or `{"error": ...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    worktree: Option<PathBuf>,
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
            .serve(super::lines::answer_parse_errors(read, write))
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

/// A live server of `repo` this user can attach to: its entry and a connection to its socket.
/// Entries that do not answer are removed on the way.
pub async fn connect_served(repo: &Path) -> Option<(Entry, tokio::net::UnixStream)> {
    let directory = runtime_dir().ok()?;
    // Each failed entry is removed, so the next look finds another or none.
    for _ in 0..8 {
        let (discovery, entry) = find(&directory, repo)?;
        if let Some(stream) = connect(&discovery, &entry).await {
            return Some((entry, stream));
        }
        if entry.pid == std::process::id() {
            return None;
        }
    }
    None
}

/// Relays stdin/stdout over `stream`, a connection to a server's socket, for a session that
/// lists `tools`; returns once the session is over.
pub async fn relay_session(stream: tokio::net::UnixStream, tools: &ToolSet) -> std::io::Result<()> {
    let hello = Hello {
        attach: HelloSettings {
            tools: Some(tools.to_arg()),
            ..HelloSettings::default()
        },
    };
    relay(stream, &hello, tokio::io::stdin()).await
}

/// Relays an editor's LSP session over `stream`, its client's messages read from `input` (stdin
/// after what the caller already read of it); returns once the session is over.
pub async fn relay_lsp_session(
    stream: tokio::net::UnixStream,
    input: impl AsyncRead + Unpin,
) -> std::io::Result<()> {
    let hello = Hello {
        attach: HelloSettings {
            lsp: true,
            ..HelloSettings::default()
        },
    };
    relay(stream, &hello, input).await
}

/// A server of exactly `root` that outlives its clients (a shared or hand-started `serve`, not
/// an editor's language server), the most recent first, and a connection to it.
pub async fn connect_shared(root: &Path) -> Option<(Entry, tokio::net::UnixStream)> {
    let directory = runtime_dir().ok()?;
    let root = root.canonicalize().ok()?;
    for _ in 0..8 {
        let (discovery, entry) = entries(&directory)
            .into_iter()
            .filter(|(_, entry)| {
                entry.root == root && entry.kind != Kind::Lsp && entry.attachable()
            })
            .max_by_key(|(_, entry)| (entry.started, entry.pid))?;
        if let Some(stream) = connect(&discovery, &entry).await {
            return Some((entry, stream));
        }
    }
    None
}

/// The socket of `entry`, if it answers and is served by this user; an entry that does not
/// answer (and is not this process's) is removed from the discovery file.
async fn connect(discovery: &Path, entry: &Entry) -> Option<tokio::net::UnixStream> {
    match tokio::net::UnixStream::connect(&entry.socket).await {
        // An impostor's server would run as another user.
        Ok(stream) if stream.peer_cred().is_ok_and(|peer| peer.uid() == user()) => Some(stream),
        Ok(_) => {
            tracing::warn!(
                "{} is served by another user; not attaching",
                entry.socket.display()
            );
            None
        }
        Err(error) => {
            tracing::info!(
                "{} does not answer ({error}); its entry is removed",
                entry.socket.display()
            );
            if entry.pid != std::process::id() {
                remove_entry(discovery, Some(entry));
            }
            None
        }
    }
}

/// Sends `hello`, then copies `input` to the server and its answers to stdout until the server
/// closes its side.
async fn relay(
    stream: tokio::net::UnixStream,
    hello: &Hello,
    mut input: impl AsyncRead + Unpin,
) -> std::io::Result<()> {
    let (mut from_server, mut to_server) = stream.into_split();
    let hello = serde_json::to_string(hello)? + "\n";
    tokio::io::AsyncWriteExt::write_all(&mut to_server, hello.as_bytes()).await?;
    let upstream = async {
        let copied = tokio::io::copy(&mut input, &mut to_server).await;
        // The client is done: tell the server, then let the answers drain.
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut to_server).await;
        copied
    };
    let downstream = async {
        let mut stdout = tokio::io::stdout();
        let copied = tokio::io::copy(&mut from_server, &mut stdout).await;
        let _ = tokio::io::AsyncWriteExt::flush(&mut stdout).await;
        copied
    };
    tokio::pin!(upstream);
    tokio::pin!(downstream);
    // The session ends when the server closes its side; a client closing stdin first still
    // gets the answers in flight.
    tokio::select! {
        result = &mut downstream => { result?; }
        result = &mut upstream => {
            result?;
            downstream.await?;
        }
    }
    Ok(())
}
