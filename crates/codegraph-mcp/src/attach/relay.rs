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
/// lists `tools`: by handing it to `codegraph-relay` where that is installed beside this
/// binary (this process becomes the relay and the call does not return), else here; returns
/// once the session is over.
pub async fn relay_session(stream: tokio::net::UnixStream, tools: &ToolSet) -> std::io::Result<()> {
    let hello = Hello {
        attach: HelloSettings {
            tools: Some(tools.to_arg()),
            ..HelloSettings::default()
        },
    };
    let (stream, greeted) = hand_over(stream, &hello).await;
    relay(stream, (!greeted).then_some(&hello), tokio::io::stdin()).await
}

/// The relay program installed beside this binary, if any.
fn relay_program() -> Option<PathBuf> {
    let program = std::env::current_exe()
        .ok()?
        .with_file_name("codegraph-relay");
    program.is_file().then_some(program)
}

/// Sends `hello` over `stream`, then replaces this process with `codegraph-relay`, which
/// inherits the socket and stdin/stdout. Returns only when it cannot: the stream, and whether
/// the hello was sent.
async fn hand_over(
    mut stream: tokio::net::UnixStream,
    hello: &Hello,
) -> (tokio::net::UnixStream, bool) {
    let Some(program) = relay_program() else {
        return (stream, false);
    };
    let Ok(line) = serde_json::to_string(hello) else {
        return (stream, false);
    };
    if tokio::io::AsyncWriteExt::write_all(&mut stream, (line + "\n").as_bytes())
        .await
        .is_err()
    {
        return (stream, true);
    }
    let error = match exec_relay(&program, stream) {
        Ok(never) => match never {},
        Err((error, stream)) => match stream {
            Some(stream) => {
                tracing::warn!("{}: {error}; relaying in this process", program.display());
                return (stream, true);
            }
            None => error,
        },
    };
    // The stream could not be taken back: the session cannot go on.
    tracing::error!("{}: {error}", program.display());
    std::process::exit(1)
}

/// Execs `program` with a copy of the socket left open across the exec (a `dup` has no
/// close-on-exec flag) and its number as the argument. On failure, the error and the stream
/// back, when it can be.
fn exec_relay(
    program: &Path,
    stream: tokio::net::UnixStream,
) -> Result<std::convert::Infallible, (std::io::Error, Option<tokio::net::UnixStream>)> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let stream = stream.into_std().map_err(|error| (error, None))?;
    let back = |error: std::io::Error, stream: std::os::unix::net::UnixStream| {
        let stream = stream
            .set_nonblocking(true)
            .and_then(|()| tokio::net::UnixStream::from_std(stream))
            .ok();
        (error, stream)
    };
    // The relay reads and writes it blocking.
    if let Err(error) = stream.set_nonblocking(false) {
        return Err(back(error, stream));
    }
    let inherited = match nix::unistd::dup(&stream) {
        Ok(fd) => fd,
        Err(error) => return Err(back(error.into(), stream)),
    };
    let error = std::process::Command::new(program)
        .arg(inherited.as_raw_fd().to_string())
        .exec();
    drop(inherited);
    Err(back(error, stream))
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
    relay(stream, Some(&hello), input).await
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

/// Sends `hello` (unless already sent), then copies `input` to the server and its answers to
/// stdout until the server closes its side.
async fn relay(
    stream: tokio::net::UnixStream,
    hello: Option<&Hello>,
    mut input: impl AsyncRead + Unpin,
) -> std::io::Result<()> {
    codegraph_world::trim::now();
    let (mut from_server, mut to_server) = stream.into_split();
    if let Some(hello) = hello {
        let hello = serde_json::to_string(hello)? + "\n";
        tokio::io::AsyncWriteExt::write_all(&mut to_server, hello.as_bytes()).await?;
    }
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
