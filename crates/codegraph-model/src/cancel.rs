//! Stopping a request's work when nobody wants its answer any more, protocol-agnostic.
//!
//! A door runs a request's work with [`run`] and a [`Flag`] that it sets when the client
//! cancels the request (`notifications/cancelled`, `$/cancelRequest`), goes away, or the
//! request's deadline passes. Loops that can be long (a search index or the communities built
//! from scratch, a walk over the whole graph, closest-name matching) call [`checkpoint`], which
//! unwinds out of `run` with [`Cancelled`] once the flag is set. Outside `run` (the CLI, tests,
//! benchmarks) a checkpoint does nothing.
//!
//! Unwinding instead of a `Result` through every signature is how rust-analyzer stops stale
//! analyses (salsa's `Cancelled::throw`, caught by `Cancelled::catch`): the check can sit many
//! calls deep in code that otherwise cannot fail. It leaves nothing half-written: analysis only
//! reads an immutable snapshot, and a cache keeps a value only once it is complete (the lock of
//! a cache slot is a `parking_lot` one, which unwinding releases without poisoning).

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The work was stopped at a checkpoint because its flag was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request was cancelled")]
pub struct Cancelled;

/// Set once by whoever wants the work to stop; read by the checkpoints.
#[derive(Debug, Clone, Default)]
pub struct Flag(Arc<AtomicBool>);

impl Flag {
    pub fn new() -> Flag {
        Flag::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Unwinds with [`Cancelled`] if the flag is set. Callable on any thread doing this work
    /// (rayon carries the unwind of a worker back to the thread that waits for it).
    pub fn checkpoint(&self) {
        if self.is_cancelled() {
            panic::resume_unwind(Box::new(Cancelled));
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Flag>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread under `flag`: `Err(Cancelled)` if a checkpoint found it set. A
/// real panic in `work` goes on unwinding.
pub fn run<T>(flag: &Flag, work: impl FnOnce() -> T) -> Result<T, Cancelled> {
    let previous = CURRENT.with(|current| current.replace(Some(flag.clone())));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    CURRENT.with(|current| *current.borrow_mut() = previous);
    match result {
        Ok(value) => Ok(value),
        Err(payload) if payload.is::<Cancelled>() => Err(Cancelled),
        Err(payload) => panic::resume_unwind(payload),
    }
}

/// The flag of the work running on this thread, to hand to other threads it uses.
pub fn current() -> Option<Flag> {
    CURRENT.with(|current| current.borrow().clone())
}

/// Unwinds out of the enclosing [`run`] if its flag is set; nothing outside one.
pub fn checkpoint() {
    let cancelled =
        CURRENT.with(|current| current.borrow().as_ref().is_some_and(Flag::is_cancelled));
    if cancelled {
        panic::resume_unwind(Box::new(Cancelled));
    }
}

/// A checkpoint for tight loops: checks one step in 1,024.
pub fn checkpoint_every(step: usize) {
    if step.is_multiple_of(1024) {
        checkpoint();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_stops_the_work_at_its_next_checkpoint() {
        let flag = Flag::new();
        let mut steps = 0;
        let outcome = run(&flag, || {
            for step in 0..10 {
                checkpoint();
                steps = step;
                if step == 3 {
                    flag.cancel();
                }
            }
            "finished"
        });
        assert_eq!(outcome, Err(Cancelled));
        assert_eq!(steps, 3);
        // Outside `run`, and with a flag left unset, checkpoints do nothing.
        checkpoint();
        assert_eq!(run(&Flag::new(), || 7), Ok(7));
        assert!(current().is_none());
    }

    #[test]
    fn a_rayon_worker_stops_too_and_a_real_panic_is_not_taken_for_cancellation() {
        use rayon::prelude::*;
        let flag = Flag::new();
        flag.cancel();
        let outcome = run(&flag, || {
            let inner = current().unwrap();
            (0..1000)
                .into_par_iter()
                .map(|n| {
                    inner.checkpoint();
                    n
                })
                .sum::<i32>()
        });
        assert_eq!(outcome, Err(Cancelled));
        let panicked = std::panic::catch_unwind(|| run(&Flag::new(), || panic!("a bug")));
        assert!(panicked.is_err());
    }
}
