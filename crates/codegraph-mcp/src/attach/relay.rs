//! The client's side: finding a live server of a root, connecting to its socket, and relaying
//! stdin/stdout to it after the hello line.

use std::path::{Path, PathBuf};

use tokio::io::AsyncRead;

use super::{Entry, Hello, HelloSettings, Kind, entries, find, remove_entry, runtime_dir, user};
use crate::toolset::ToolSet;

/// A live server of `repo` this user can attach to: its entry and a connection to its socket.
/// Entries that do not answer are removed on the way.
pub async fn connect_served(repo: &Path) -> Option<(Entry, tokio::net::UnixStream)> {
    connect_first(|directory| find(directory, repo)).await
}

/// The entry `look` picks in the runtime directory, and a connection to its socket; an entry
/// that does not answer is removed and `look` asked again.
async fn connect_first(
    look: impl Fn(&Path) -> Option<(PathBuf, Entry)>,
) -> Option<(Entry, tokio::net::UnixStream)> {
    let directory = runtime_dir().ok()?;
    for _ in 0..8 {
        let (discovery, entry) = look(&directory)?;
        if let Some(stream) = connect(&discovery, &entry).await {
            return Some((entry, stream));
        }
        // This process's own entry is never removed: looking again would find it again.
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
    let root = root.canonicalize().ok()?;
    connect_first(|directory| {
        entries(directory)
            .into_iter()
            .filter(|(_, entry)| {
                entry.root == root && entry.kind != Kind::Lsp && entry.attachable()
            })
            .max_by_key(|(_, entry)| (entry.started, entry.pid))
    })
    .await
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
    codegraph_world::trim::now();
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
