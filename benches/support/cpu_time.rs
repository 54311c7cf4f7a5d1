//! The CPU time of the calling thread, for benchmarks on a shared machine: wall-clock time
//! grows with everyone else's load, the thread's own CPU time much less.
//!
//! Read from `/proc/thread-self/schedstat` (Linux: nanoseconds on the CPU, first field); `None`
//! where that file does not exist.

use std::time::Duration;

pub fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanoseconds))
}

/// Runs `work`, returning its result with the wall time and, where known, the thread's CPU time.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, Duration, Option<Duration>) {
    let cpu_before = thread_cpu_time();
    let started = std::time::Instant::now();
    let result = work();
    let wall = started.elapsed();
    let cpu = match (cpu_before, thread_cpu_time()) {
        (Some(before), Some(after)) => Some(after.saturating_sub(before)),
        _ => None,
    };
    (result, wall, cpu)
}
