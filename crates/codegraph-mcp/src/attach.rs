//! Attaching to a running server: every `codegraph lsp` (and `codegraph serve`) process serves MCP
//! on a per-user unix socket for each workspace root, with MCP's stdio framing (one JSON-RPC
//! message per line), and `codegraph mcp` relays its stdin/stdout to that socket. An AI client
//! launched next to an editor thus talks to the editor's own `World`, unsaved edits included.
//! The relay's first line is its session's settings (`{"codegraph/attach": {"tools": ...}}`,
//! the tools its `--tools` lists); a connection without it keeps the server's. A first line
//! may instead ask for an editor's LSP session (`"lsp": true`, `codegraph lsp --shared`) or ask
//! a shared server to serve another worktree (`"worktree": ROOT`, `mcp::daemon`).
//!
//! This file is the discovery directory and its entries; `attach/socket.rs` is the server's
//! side of a socket (sessions counted in the entry, each connection served as it asks),
//! `attach/relay.rs` the client's (finding a server, connecting, relaying).
//!
//! Layout: the directory `$XDG_RUNTIME_DIR/codegraph/` (else `~/.cache/codegraph/run`), mode
//! 0700, holds for each served root a socket `<hash>-<pid>.sock` (mode 0600) and a discovery file
//! `<hash>-<pid>.json` (mode 0600, written atomically) naming the root, the socket, the pid,
//! the kind of process, its version, start time, clients and repository, and, for an HTTP
//! server, its URL and tokens. `<hash>` is a hash of the canonical root, so several
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

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::http::Tokens;

mod relay;
mod socket;

pub use relay::{connect_served, connect_shared, relay_lsp_session, relay_session};
pub use socket::{
    Attachment, Handlers, LspSessions, SessionRead, Sessions, WorktreeRequests, serve_world,
};

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

/// The line a relay sends before its client's messages: the session's settings.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Hello {
    #[serde(rename = "codegraph/attach")]
    pub(crate) attach: HelloSettings,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct HelloSettings {
    /// The tools the session lists, as `--tools` takes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tools: Option<String>,
    /// The connection is an editor's LSP session (`codegraph lsp --shared`), not MCP.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) lsp: bool,
    /// The connection asks the server to serve this worktree of its repository too, and is
    /// answered with one line, `{"ok": true}` or `{"error": ...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) worktree: Option<PathBuf>,
}
