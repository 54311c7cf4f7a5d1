//! An index of the graph that a warm start builds on another thread while the first requests
//! are answered: the name index, which a call hierarchy or a definition never reads but a
//! symbol search and every resolution do.
//!
//! Whoever reads it first waits for it (or builds it, if the thread has not started);
//! afterwards it is a plain value. A writer that changes it takes its own copy, which a
//! persistent map makes cheap.

use std::ops::Deref;
use std::sync::{Arc, LazyLock};

type Build<T> = Box<dyn FnOnce() -> T + Send>;

pub(crate) enum Deferred<T> {
    Ready(T),
    Pending(Arc<LazyLock<T, Build<T>>>),
}

impl<T: Send + Sync + 'static> Deferred<T> {
    /// `build` runs on a thread of its own from now, and at the latest when the value is read.
    pub fn in_background(build: impl FnOnce() -> T + Send + 'static) -> Deferred<T> {
        let lazy: Arc<LazyLock<T, Build<T>>> = Arc::new(LazyLock::new(Box::new(build)));
        let early = lazy.clone();
        let spawned = std::thread::Builder::new()
            .name("codegraph-index".into())
            .spawn(move || {
                LazyLock::force(&early);
            });
        // No thread to be had: the first reader builds it.
        drop(spawned);
        Deferred::Pending(lazy)
    }
}

impl<T: Clone> Deferred<T> {
    /// The value to change, made this snapshot's own.
    pub fn make_mut(&mut self) -> &mut T {
        if let Deferred::Pending(lazy) = self {
            *self = Deferred::Ready(LazyLock::force(lazy).clone());
        }
        match self {
            Deferred::Ready(value) => value,
            Deferred::Pending(_) => unreachable!("made ready above"),
        }
    }
}

impl<T> Deref for Deferred<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Deferred::Ready(value) => value,
            Deferred::Pending(lazy) => LazyLock::force(lazy),
        }
    }
}

impl<T: Clone> Clone for Deferred<T> {
    fn clone(&self) -> Self {
        match self {
            Deferred::Ready(value) => Deferred::Ready(value.clone()),
            Deferred::Pending(lazy) => Deferred::Pending(lazy.clone()),
        }
    }
}

impl<T: Default> Default for Deferred<T> {
    fn default() -> Self {
        Deferred::Ready(T::default())
    }
}

#[cfg(test)]
mod tests {
    use super::Deferred;

    #[test]
    fn a_deferred_value_is_built_once_and_a_changed_copy_leaves_the_others_alone() {
        let deferred = Deferred::in_background(|| vec![1, 2, 3]);
        let mut copy = deferred.clone();
        assert_eq!(*deferred, [1, 2, 3]);
        copy.make_mut().push(4);
        assert_eq!(*copy, [1, 2, 3, 4]);
        assert_eq!(*deferred, [1, 2, 3]);
    }
}
