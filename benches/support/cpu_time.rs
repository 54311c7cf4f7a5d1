//! The CPU time of the calling thread, for benchmarks on a shared machine: wall-clock time
//! grows with everyone else's load, the thread's own CPU time much less.
//!
//! Read from the thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`), which the kernel brings up to
//! date when it is read. (`/proc/thread-self/schedstat`, read before, only moves at scheduler
//! ticks, so a 2 ms search read as 0.) `None` where the clock is missing.

use std::time::Duration;

use nix::time::{ClockId, clock_gettime};

pub fn thread_cpu_time() -> Option<Duration> {
    let now = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).ok()?;
    Some(Duration::new(
        u64::try_from(now.tv_sec()).ok()?,
        u32::try_from(now.tv_nsec()).ok()?,
    ))
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
