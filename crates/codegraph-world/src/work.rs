//! How a request's work runs, for both doors (MCP tools and resources, the language server's
//! queries): on a blocking thread (never on the async runtime, whose threads also move every
//! client's bytes), stopped when the request is cancelled or its client goes away or its
//! deadline passes, and, when heavy, in a bounded pool.
//!
//! Heavy work is what can cost seconds on a large repository: building the search index, the
//! communities or the repository-wide facts of a new graph revision, walks of more than two
//! hops, reindexing, a workspace symbol search (every name of every folder, on every core). At
//! most [`Limits::heavy`] such requests run at once (by default the cores less one, at least
//! one); the others wait for a turn, their deadline running. Cheap work (a lookup, a direct
//! neighbourhood, a search once the index is built) never waits for a turn, so it is answered
//! while heavy work runs. A process serving both doors (`codegraph lsp` with its folders
//! attached over MCP) has one pool.
//!
//! Stopping: rmcp cancels a request's token on `notifications/cancelled`, and when the
//! connection ends (stdio or socket closed, legacy SSE stream gone; after a drain of at most
//! 5 s for answers in flight). A Streamable HTTP client that drops a response stream has not
//! cancelled (the transport lets it resume), so there only `notifications/cancelled`, the end of
//! the session and the deadline stop work. The language server's requests have no token:
//! tower-lsp-server answers a `$/cancelRequest` (and every request in flight at `exit`) with
//! `-32800 Canceled` and drops the handler's future, and dropping [`Pool::run`]'s future stops
//! the work. The work sees either through a [`codegraph_model::cancel::Flag`]: it stops at its
//! next checkpoint, and its pool turn is given back only then, so the bound holds for work that
//! is still winding down.
//!
//! [`SLOW_WORK`] is a test hook: work that a test makes slow on purpose, to cancel it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use codegraph_model::cancel::{self, Flag};

/// The environment variable of the test hook: a query whose text is its value turns slow
/// ([`slow_for_tests`]). Tests set it to hold a request's work running, to cancel it.
pub const SLOW_WORK: &str = "CODEGRAPH_SLOW_WORK";

/// The test hook: when [`SLOW_WORK`] is set (read once) and `text` is its value, waits at
/// checkpoints, as a long query does, until the request is stopped (at most a minute). Does
/// nothing otherwise.
pub fn slow_for_tests(text: &str) {
    static MARKER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let marker = MARKER.get_or_init(|| {
        std::env::var(SLOW_WORK)
            .ok()
            .filter(|marker| !marker.is_empty())
    });
    if marker.as_deref() != Some(text) {
        return;
    }
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        cancel::checkpoint();
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// How long a request may take, waiting for a turn included, by default.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// How heavy a request's work may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Weight {
    Cheap,
    Heavy,
}

impl Weight {
    /// A walk of `depth` hops: two are a neighbourhood, more can reach the whole graph.
    pub fn of_depth(depth: u32) -> Weight {
        if depth > 2 {
            Weight::Heavy
        } else {
            Weight::Cheap
        }
    }
}

/// The bounds of a server's work.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Heavy requests running at once.
    pub heavy: usize,
    /// How long a request may take.
    pub deadline: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        Limits {
            heavy: cores.saturating_sub(1).max(1),
            deadline: DEFAULT_DEADLINE,
        }
    }
}

/// Why a request's work gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The client cancelled the request, or went away.
    Cancelled,
    /// The deadline passed, waiting for a turn or working.
    DeadlineExceeded(Duration),
    /// The work panicked (a bug).
    Failed(String),
}

impl Stopped {
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Stopped::Cancelled => serde_json::json!({
                "error": "Request cancelled",
                "message": "the request was cancelled, or its client went away, and its work stopped",
            }),
            Stopped::DeadlineExceeded(deadline) => serde_json::json!({
                "error": "Deadline exceeded",
                "message": format!(
                    "the request took longer than {} s and was stopped; on a large repository the first search, global_search or suggest_refactoring after a change builds an index, and a deep walk can reach the whole graph: try again, or ask for less (a smaller depth)",
                    deadline.as_secs_f64()
                ),
            }),
            Stopped::Failed(message) => serde_json::json!({
                "error": "Analysis failed",
                "message": message,
            }),
        }
    }
}

/// Sets the flag when dropped: a request whose future is dropped (its task aborted, its
/// connection gone) stops its work too.
struct StopOnDrop(Flag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Counts one request waiting for a heavy turn while it lives.
struct Waiting(Arc<AtomicUsize>);

impl Waiting {
    fn new(count: &Arc<AtomicUsize>) -> Waiting {
        count.fetch_add(1, Ordering::Relaxed);
        Waiting(count.clone())
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One server's bounds, shared by all its sessions.
#[derive(Debug)]
pub struct Pool {
    heavy: Arc<Semaphore>,
    /// Requests waiting for a heavy turn now.
    waiting: Arc<AtomicUsize>,
    limits: Limits,
}

impl Pool {
    pub fn new(limits: Limits) -> Pool {
        Pool {
            heavy: Arc::new(Semaphore::new(limits.heavy.max(1))),
            waiting: Arc::default(),
            limits,
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Heavy turns free now (for tests and logs).
    pub fn free_heavy_turns(&self) -> usize {
        self.heavy.available_permits()
    }

    /// Requests waiting for a heavy turn now (for tests and logs).
    pub fn waiting_for_a_turn(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Takes a heavy turn as a heavy request's work does, until the permit is dropped (tests
    /// hold the pool busy with it).
    pub async fn take_heavy_turn(&self) -> OwnedSemaphorePermit {
        self.heavy
            .clone()
            .acquire_owned()
            .await
            .expect("the pool's semaphore is never closed")
    }

    /// [`Pool::run`] for a request that has no token: stopped only when this future is
    /// dropped (the language server's, whose transport drops a cancelled request's future) or
    /// when the deadline passes.
    pub async fn run_until_dropped<T: Send + 'static>(
        &self,
        weight: Weight,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Stopped> {
        self.run(weight, &CancellationToken::new(), work).await
    }

    /// Runs `work` on a blocking thread, after waiting for a heavy turn if it is heavy; stops
    /// it when `cancel` fires, this future is dropped, or the deadline passes.
    pub async fn run<T: Send + 'static>(
        &self,
        weight: Weight,
        cancel: &CancellationToken,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Stopped> {
        let flag = Flag::new();
        let _stop_on_drop = StopOnDrop(flag.clone());
        let deadline = tokio::time::sleep(self.limits.deadline);
        tokio::pin!(deadline);
        let turn = match weight {
            Weight::Cheap => None,
            Weight::Heavy => tokio::select! {
                turn = async {
                    let _waiting = Waiting::new(&self.waiting);
                    self.heavy.clone().acquire_owned().await
                } => {
                    Some(turn.map_err(|error| Stopped::Failed(error.to_string()))?)
                }
                () = cancel.cancelled() => return Err(Stopped::Cancelled),
                () = &mut deadline => {
                    return Err(Stopped::DeadlineExceeded(self.limits.deadline));
                }
            },
        };
        let running = flag.clone();
        let mut task = tokio::task::spawn_blocking(move || {
            // Given back when the work has really stopped, not when the request gave up.
            let _turn = turn;
            cancel::run(&running, work)
        });
        tokio::select! {
            joined = &mut task => match joined {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(cancel::Cancelled)) => Err(Stopped::Cancelled),
                Err(error) => Err(Stopped::Failed(error.to_string())),
            },
            () = cancel.cancelled() => {
                flag.cancel();
                Err(Stopped::Cancelled)
            }
            () = &mut deadline => {
                flag.cancel();
                Err(Stopped::DeadlineExceeded(self.limits.deadline))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    /// Work that loops through checkpoints until stopped (or for `limit`), counting its steps.
    fn spin(steps: Arc<AtomicUsize>, limit: Duration) -> impl FnOnce() -> usize + Send {
        move || {
            let started = Instant::now();
            while started.elapsed() < limit {
                cancel::checkpoint();
                steps.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
            steps.load(Ordering::Relaxed)
        }
    }

    async fn until(condition: impl Fn() -> bool) {
        let started = Instant::now();
        while !condition() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "never happened"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn cancelled_work_stops_and_gives_its_turn_back() {
        let pool = Arc::new(Pool::new(Limits {
            heavy: 1,
            deadline: Duration::from_secs(60),
        }));
        let steps = Arc::new(AtomicUsize::new(0));
        let cancel = CancellationToken::new();
        let heavy = tokio::spawn({
            let (pool, cancel, steps) = (pool.clone(), cancel.clone(), steps.clone());
            async move {
                pool.run(Weight::Heavy, &cancel, spin(steps, Duration::from_secs(60)))
                    .await
            }
        });
        until(|| steps.load(Ordering::Relaxed) > 0).await;
        assert_eq!(pool.free_heavy_turns(), 0);
        // A cheap request does not wait for the heavy one.
        let started = Instant::now();
        let cheap = pool
            .run(Weight::Cheap, &CancellationToken::new(), || 42)
            .await;
        assert_eq!(cheap, Ok(42));
        assert!(started.elapsed() < Duration::from_secs(5));

        cancel.cancel();
        assert_eq!(heavy.await.unwrap(), Err(Stopped::Cancelled));
        until(|| pool.free_heavy_turns() == 1).await;
        let stopped_at = steps.load(Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            steps.load(Ordering::Relaxed),
            stopped_at,
            "the work went on"
        );
    }

    #[tokio::test]
    async fn the_deadline_stops_work_and_a_dropped_request_stops_its_work() {
        let pool = Arc::new(Pool::new(Limits {
            heavy: 1,
            deadline: Duration::from_millis(100),
        }));
        let steps = Arc::new(AtomicUsize::new(0));
        let outcome = pool
            .run(
                Weight::Heavy,
                &CancellationToken::new(),
                spin(steps.clone(), Duration::from_secs(60)),
            )
            .await;
        assert_eq!(
            outcome,
            Err(Stopped::DeadlineExceeded(Duration::from_millis(100)))
        );
        until(|| pool.free_heavy_turns() == 1).await;

        let pool = Arc::new(Pool::new(Limits {
            heavy: 1,
            deadline: Duration::from_secs(60),
        }));
        let steps = Arc::new(AtomicUsize::new(0));
        let request = tokio::spawn({
            let (pool, steps) = (pool.clone(), steps.clone());
            async move {
                pool.run(
                    Weight::Heavy,
                    &CancellationToken::new(),
                    spin(steps, Duration::from_secs(60)),
                )
                .await
            }
        });
        until(|| steps.load(Ordering::Relaxed) > 0).await;
        request.abort();
        until(|| pool.free_heavy_turns() == 1).await;
    }

    #[tokio::test]
    async fn heavy_requests_take_turns_and_a_waiting_one_can_be_cancelled() {
        let pool = Arc::new(Pool::new(Limits {
            heavy: 1,
            deadline: Duration::from_secs(60),
        }));
        let first_cancel = CancellationToken::new();
        let steps = Arc::new(AtomicUsize::new(0));
        let first = tokio::spawn({
            let (pool, cancel, steps) = (pool.clone(), first_cancel.clone(), steps.clone());
            async move {
                pool.run(Weight::Heavy, &cancel, spin(steps, Duration::from_secs(60)))
                    .await
            }
        });
        until(|| steps.load(Ordering::Relaxed) > 0).await;
        let waiting_cancel = CancellationToken::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let waiting = tokio::spawn({
            let (pool, cancel, ran) = (pool.clone(), waiting_cancel.clone(), ran.clone());
            async move {
                pool.run(Weight::Heavy, &cancel, move || {
                    ran.fetch_add(1, Ordering::Relaxed)
                })
                .await
            }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        waiting_cancel.cancel();
        assert_eq!(waiting.await.unwrap(), Err(Stopped::Cancelled));
        assert_eq!(ran.load(Ordering::Relaxed), 0, "it ran without a turn");
        first_cancel.cancel();
        assert_eq!(first.await.unwrap(), Err(Stopped::Cancelled));
    }
}
