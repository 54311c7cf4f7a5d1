//! One bad file never takes the process down.
//!
//! Extraction and resolution are ours, and the code they read is anyone's: a bug of ours that
//! only some file triggers must cost that file, not the server, the editor's language server
//! or the AI clients attached to it. Each file's extraction (`index`) and resolution (`graph`)
//! runs through [`file`], which catches a panic at the file's boundary and turns it into a
//! message; the caller keeps an empty summary or resolution for the file, marked as failed
//! (`FileSummary::failure`, `Resolved::failure`), and every door reports it: the CLI's index
//! summary and `stats`, the LSP's one `window/showMessage`, the MCP trust stamp.
//!
//! A stack overflow is not a panic and cannot be caught: the walks that could recurse without
//! end are bounded by construction instead (`walk`).
//!
//! A request's cancellation (`cancel`) unwinds too; it is not a failure and goes on unwinding.

use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

/// The environment variable of the test hook: a file whose text contains its value panics
/// during extraction ([`inject`]). Tests set it to prove the containment end to end.
pub const INJECT_PANIC: &str = "CODEGRAPH_INJECT_PANIC";

/// Runs one file's work; `Err` with the panic's message if it panicked.
pub fn file<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    match panic::catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Ok(value),
        Err(payload) if payload.is::<crate::cancel::Cancelled>() => panic::resume_unwind(payload),
        Err(payload) => Err(message(payload.as_ref())),
    }
}

/// The message a panic carried.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "an unknown panic".to_string());
    format!("internal error while reading this file: {text}")
}

/// The test hook: panics when [`INJECT_PANIC`] is set (read once) and `text` contains it.
pub fn inject(text: &str) {
    static MARKER: OnceLock<Option<String>> = OnceLock::new();
    let marker = MARKER.get_or_init(|| {
        std::env::var(INJECT_PANIC)
            .ok()
            .filter(|marker| !marker.is_empty())
    });
    if let Some(marker) = marker
        && text.contains(marker.as_str())
    {
        panic!("injected for a test ({INJECT_PANIC})");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_files_failure() {
        let failed = file(|| -> u32 { panic!("boom at line 3") });
        assert_eq!(
            failed,
            Err("internal error while reading this file: boom at line 3".to_string())
        );
        assert_eq!(file(|| 7), Ok(7));
    }

    #[test]
    fn a_cancellation_goes_on_unwinding() {
        let flag = crate::cancel::Flag::new();
        flag.cancel();
        let outcome = crate::cancel::run(&flag, || file(crate::cancel::checkpoint));
        assert_eq!(outcome, Err(crate::cancel::Cancelled));
    }
}
