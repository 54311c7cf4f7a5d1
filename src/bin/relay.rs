//! `codegraph-relay`: the small process an attached `codegraph mcp` becomes. `codegraph mcp`
//! finds the repository's server, connects to its socket, checks it is this user's and sends
//! the session's hello line; then it replaces itself with this program, which copies the
//! client's stdin to the socket and the server's answers to stdout until the server closes
//! its side.
//!
//! Why a program of its own: every agent session and worktree keeps one relay alive, and the
//! whole `codegraph` binary costs a relay about 1.1 MB of private memory (most of it the
//! binary's read-only data, which the loader relocates in every process of a
//! position-independent executable); this one uses the standard library only.
//!
//! Usage (by `codegraph mcp` only): `codegraph-relay FD`, FD the connected socket, inherited.

// The one use: taking ownership of the socket this process inherits, by its number.
#![allow(unsafe_code)]

use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(fd) = std::env::args()
        .nth(1)
        .and_then(|argument| argument.parse::<i32>().ok())
        .filter(|fd| *fd > 2)
    else {
        eprintln!("codegraph-relay: started by `codegraph mcp` only (codegraph-relay FD)");
        return ExitCode::from(2);
    };
    // SAFETY: `codegraph mcp` passes the number of the connected socket it leaves open for this
    // program, which nothing else in this process uses; it is owned here from now on.
    let socket = unsafe { UnixStream::from_raw_fd(fd) };
    match relay(socket) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("codegraph-relay: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Copies stdin to `socket` (then ends its writing side, so the server sees the client is
/// done) and `socket` to stdout; returns when the server closes its side, also while stdin is
/// still open (the session is over).
fn relay(socket: UnixStream) -> std::io::Result<()> {
    let mut to_server = socket.try_clone()?;
    std::thread::Builder::new()
        .name("stdin".into())
        .stack_size(128 * 1024)
        .spawn(move || {
            let _ = copy(&mut std::io::stdin().lock(), &mut to_server);
            let _ = to_server.shutdown(Shutdown::Write);
        })?;
    copy(&mut &socket, &mut std::io::stdout().lock())
}

/// Copies `from` to `to` until `from` ends, each read written and flushed at once (a message
/// is never held back waiting for more). By reads and writes: `std::io::copy` would splice
/// between a pipe and the socket, and a splice from a unix socket was seen to wait for data
/// already there while the other direction's splice waited on stdin.
fn copy(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buffer = vec![0u8; 32 * 1024];
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        to.write_all(&buffer[..read])?;
        to.flush()?;
    }
}
