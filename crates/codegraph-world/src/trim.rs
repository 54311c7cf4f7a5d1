//! Giving freed memory back to the operating system once the process is quiet.
//!
//! glibc's allocator keeps what a program frees for its next allocations: the pages of the
//! initial index's transient data, of a replaced snapshot, of a document's text read from a
//! `didOpen`, stay resident, spread over the arenas of the threads that freed them (tokio's
//! workers, rayon's, the retiring thread), and the process's resident memory reports them as
//! used. One `malloc_trim` walks every arena and returns the free pages; it takes about 3 ms on
//! the 1.79 M-line benchmark corpus's heap, holding each arena's lock in turn, so it runs on a
//! thread of its own and only once the graph has not changed for [`QUIET`]: never between the
//! keystrokes of a burst of typing, whose answers it would delay.
//!
//! Measured with `cargo bench --bench lsp` (part d, 100 documents opened): resident memory grew
//! by 3.8–6.3 times the documents' text with glibc's default, 0.5 times with a trim after the
//! opens. Capping the arenas (`M_ARENA_MAX`) brought the growth down too, but made every answer
//! that allocates much slower (`documentSymbol` p50 3.6–6.0 ms against 2.4–3.9 ms): threads
//! shared arenas. Elsewhere than on glibc this does nothing.

use std::time::Duration;

/// How long the graph must stay unchanged before the freed memory is returned.
pub const QUIET: Duration = Duration::from_secs(1);

/// Gives the free pages back now, on this thread: after an index's parse, whose syntax trees
/// the parsing threads freed in their own arenas, before the writer's work, which runs on
/// another thread and cannot reuse them. On the 1.79 M-line benchmark corpus this lowers the
/// full index's peak by 5 to 8 MB (`cargo bench --bench memory`), for about 3 ms. A relay
/// (`codegraph mcp` or `lsp` attached to a server) calls it once connected: what its start-up
/// built and freed (the command line's parser, the discovery file) is most of its heap, and
/// twenty worktrees' agents run twenty relays.
pub fn now() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::trim();
}

/// Tells the trimming thread that the graph changed (started by the first call): it trims once
/// no change has come for [`QUIET`].
pub(super) fn after_change() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::after_change();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use std::sync::OnceLock;
    use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};

    use super::QUIET;

    pub(super) fn after_change() {
        static CHANGES: OnceLock<Option<Sender<()>>> = OnceLock::new();
        let sender = CHANGES.get_or_init(|| {
            let (sender, receiver) = channel();
            std::thread::Builder::new()
                .name("codegraph-trim".into())
                .spawn(move || trim_when_quiet(&receiver))
                .ok()
                .map(|_| sender)
        });
        if let Some(sender) = sender {
            // Fails only when the thread is gone; then nothing is trimmed.
            let _ = sender.send(());
        }
    }

    fn trim_when_quiet(changes: &Receiver<()>) {
        // Wait for a change, then for QUIET without one, then trim; forever.
        while changes.recv().is_ok() {
            loop {
                match changes.recv_timeout(QUIET) {
                    Ok(()) => continue,
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            let start = std::time::Instant::now();
            let released = trim();
            tracing::debug!(released, elapsed = ?start.elapsed(), "malloc_trim");
        }
    }

    /// Returns the free pages of every arena to the operating system (`malloc_trim(0)`); true
    /// when some were.
    #[allow(unsafe_code)]
    pub(super) fn trim() -> bool {
        // SAFETY: `malloc_trim` takes no pointer and touches only the allocator's own free
        // lists, under their locks; glibc documents it as thread-safe (MT-Safe).
        unsafe { libc::malloc_trim(0) != 0 }
    }
}
