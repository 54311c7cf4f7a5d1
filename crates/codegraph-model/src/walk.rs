//! Bounded recursion: the one gate every recursive walk over code goes through.
//!
//! Code is data the user does not control. Types name types through aliases, constraints and
//! return types; modules re-export each other (`export *` both ways); classes extend each
//! other; a half-typed file parses into trees nobody planned for. Each of these can form a
//! cycle or an absurd depth, and a walk that follows them by recursion would end in a stack
//! overflow, which no `catch_unwind` can stop: the process dies, and every editor and AI client
//! attached to it with it.
//!
//! So every function that may recurse (directly, or through others) over code-derived data
//! starts with a [`Step`]:
//!
//! ```ignore
//! let Some(_step) = walk::enter() else { return Value::Unknown };
//! // or, where a repeat of the same question is a cycle:
//! let Some(_step) = walk::enter_keyed(("type", type_text, scope)) else { return Value::Unknown };
//! ```
//!
//! A step is refused (`None`) when the thread is [`MAX_DEPTH`] steps deep, when the keyed
//! question is already being asked further up (a cycle: `T extends E`, `E extends T`), or when
//! the current budget ([`with_budget`], one per reference resolved) has no steps left. The
//! walk then answers what it answers for "not known" (an unknown value, no target): the
//! reference ends unresolved and is kept aside like any other, never followed deeper.
//!
//! Refusals are counted per thread ([`cuts`]): a memo compares the count before and after
//! computing a value and keeps the value only if no step was refused meanwhile, so a value cut
//! short (by depth, or by a cycle through questions asked further up) never stands in for the
//! whole value asked afresh. [`with_budget`] says whether its work ran out of depth or steps:
//! resolution then leaves the reference aside as bounded rather than trust a partial walk. A
//! cycle is not exhaustion: the repeated question answers "not known" and the walk goes on.
//!
//! Depth is counted in steps, not in stack frames: a step costs the frames between two gates
//! (a few kilobytes at most). The threads that extract and resolve run with a stack chosen for
//! [`MAX_DEPTH`] steps with a wide margin ([`STACK_SIZE`]); see `world` and `lsp`.

use std::cell::{Cell, RefCell};
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// How many steps deep a thread may be. The deepest legitimate walks (a type through a few
/// aliases, each a field chain of a few members, a module through a few re-exports) stay
/// well below it.
pub const MAX_DEPTH: u32 = 96;

/// The steps one budget ([`with_budget`]) may take: enough for any reference of real code
/// (most take under a hundred), small enough that a walk that branches at every step (unions
/// of unions of aliases) ends in milliseconds.
pub const BUDGET: u64 = 200_000;

/// The stack of a thread that extracts, resolves or answers queries: [`MAX_DEPTH`] steps of a
/// few kilobytes each need well under a megabyte; the rest is margin for code outside the gate
/// (tree-sitter's own calls, serialisation). Only the pages a thread touches are committed.
pub const STACK_SIZE: usize = 16 * 1024 * 1024;

struct State {
    depth: Cell<u32>,
    /// Steps left in the current budget; `u64::MAX` outside any.
    left: Cell<u64>,
    /// Steps refused on this thread, ever.
    cuts: Cell<u64>,
    /// Of those, the steps refused for depth or budget (not for a cycle), ever.
    exhausted: Cell<u64>,
    /// The keys of the keyed steps being taken, outermost first.
    keys: RefCell<Vec<u64>>,
}

thread_local! {
    static STATE: State = const {
        State {
            depth: Cell::new(0),
            left: Cell::new(u64::MAX),
            cuts: Cell::new(0),
            exhausted: Cell::new(0),
            keys: RefCell::new(Vec::new()),
        }
    };
}

/// One step of a walk, taken until dropped. Not `Send`: a step belongs to its thread.
#[must_use = "a step is taken only while it is held"]
pub struct Step {
    keyed: bool,
    _thread: PhantomData<*const ()>,
}

impl Drop for Step {
    fn drop(&mut self) {
        STATE.with(|state| {
            state.depth.set(state.depth.get().saturating_sub(1));
            if self.keyed {
                state.keys.borrow_mut().pop();
            }
        });
    }
}

fn refuse(state: &State) -> Option<Step> {
    state.cuts.set(state.cuts.get() + 1);
    None
}

fn exhaust(state: &State) -> Option<Step> {
    state.exhausted.set(state.exhausted.get() + 1);
    refuse(state)
}

fn take(state: &State, keyed: bool) -> Option<Step> {
    let depth = state.depth.get();
    let left = state.left.get();
    if depth >= MAX_DEPTH || left == 0 {
        return exhaust(state);
    }
    if left != u64::MAX {
        state.left.set(left - 1);
    }
    state.depth.set(depth + 1);
    Some(Step {
        keyed,
        _thread: PhantomData,
    })
}

/// A step of a walk, or `None` when the thread is too deep or the budget is spent.
pub fn enter() -> Option<Step> {
    STATE.with(|state| take(state, false))
}

/// A step of a walk that asks `key`, or `None` when the same key is being asked further up
/// this thread's walk (a cycle), the thread is too deep or the budget is spent.
pub fn enter_keyed(key: impl Hash) -> Option<Step> {
    let mut hasher = rustc_hash::FxHasher::default();
    key.hash(&mut hasher);
    let key = hasher.finish();
    STATE.with(|state| {
        if state.keys.borrow().contains(&key) {
            return refuse(state);
        }
        let step = take(state, true)?;
        state.keys.borrow_mut().push(key);
        Some(step)
    })
}

/// The steps refused on this thread so far. A result computed between two equal readings was
/// not cut short.
pub fn cuts() -> u64 {
    STATE.with(|state| state.cuts.get())
}

/// Runs `work` with a budget of `steps` steps (at most what an enclosing budget has left), and
/// says whether a step was refused in it for depth or budget, `(result, exhausted)`: a walk
/// that met a cycle answered for it and is whole; one that ran out of depth or steps is not.
pub fn with_budget<T>(steps: u64, work: impl FnOnce() -> T) -> (T, bool) {
    let (outer, before) = STATE.with(|state| {
        let outer = state.left.get();
        state.left.set(steps.min(outer));
        (outer, state.exhausted.get())
    });
    // Restored on unwinding too: a caught panic leaves the thread's budget as it was.
    struct Restore(u64, u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            let (outer, before_left) = (self.0, self.1);
            STATE.with(|state| {
                let spent = before_left - state.left.get().min(before_left);
                let left = if outer == u64::MAX {
                    u64::MAX
                } else {
                    outer.saturating_sub(spent)
                };
                state.left.set(left);
            });
        }
    }
    let restore = Restore(outer, steps.min(outer));
    let result = work();
    drop(restore);
    let exhausted = STATE.with(|state| state.exhausted.get()) != before;
    (result, exhausted)
}

/// Gives the global rayon pool's threads (extraction and resolution of a whole index) a stack
/// of [`STACK_SIZE`]; the first call wins, and a pool already built keeps its own.
pub fn init_thread_pool() {
    let built = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .build_global();
    if let Err(error) = built {
        tracing::debug!("rayon's pool was already built: {error}");
    }
}

/// The depth of this thread's walk, in steps (for tests and diagnostics).
pub fn depth() -> u32 {
    STATE.with(|state| state.depth.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn down(level: u32) -> u32 {
        let Some(_step) = enter() else {
            return level;
        };
        down(level + 1)
    }

    #[test]
    fn a_walk_without_end_stops_at_the_maximum_depth() {
        assert_eq!(down(0), MAX_DEPTH);
        assert_eq!(depth(), 0);
    }

    fn cycle(name: &str, other: &str, visits: &mut Vec<String>) {
        let Some(_step) = enter_keyed(("cycle", name)) else {
            return;
        };
        visits.push(name.to_string());
        cycle(other, name, visits);
    }

    #[test]
    fn a_cycle_is_refused_at_its_first_repeat() {
        let mut visits = Vec::new();
        let before = cuts();
        cycle("T", "E", &mut visits);
        assert_eq!(visits, ["T", "E"]);
        assert_eq!(cuts(), before + 1);
    }

    fn branch(level: u32) -> u64 {
        let Some(_step) = enter() else {
            return 0;
        };
        if level == 40 {
            return 1;
        }
        branch(level + 1) + branch(level + 1)
    }

    #[test]
    fn a_budget_ends_a_walk_that_branches_at_every_step() {
        let (leaves, cut) = with_budget(1_000, || branch(0));
        assert!(cut);
        assert!(leaves < 1_000, "{leaves}");
        // The budget is gone with its work: outside it the walk is bounded by depth alone.
        let (small, cut) = with_budget(1_000, || down(0));
        assert_eq!((small, cut), (MAX_DEPTH, true));
    }

    #[test]
    fn a_nested_budget_takes_no_more_than_the_outer_has_left() {
        let ((inner, inner_cut), outer_cut) = with_budget(50, || with_budget(1_000, || down(0)));
        assert_eq!(inner, 50);
        assert!(inner_cut && outer_cut);
    }

    fn down_to(steps: u32) -> u32 {
        if steps == 0 {
            return 0;
        }
        let Some(_step) = enter() else {
            return 0;
        };
        1 + down_to(steps - 1)
    }

    #[test]
    fn work_within_its_budget_is_not_cut() {
        let (value, cut) = with_budget(BUDGET, || down_to(10));
        assert_eq!((value, cut), (10, false));
    }
}
