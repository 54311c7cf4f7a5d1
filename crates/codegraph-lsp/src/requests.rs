//! How a request's work runs: through the runner the MCP door uses (`world::work`), on a
//! blocking thread, within the deadline, a heavy one in its turn of the pool; a stopped one
//! answers its error.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::Result;

use codegraph_world::work::{self, Weight};

use crate::Backend;
use crate::state::State;

impl Backend {
    /// Runs a request's query through the runner (`world::work`): on a blocking thread, within
    /// the deadline, a heavy one in its turn of the pool. tower-lsp-server drops this future
    /// when the client cancels the request (`$/cancelRequest`, answered `-32800`), which stops
    /// the work at its next checkpoint; a deadline passed or a failure answers an error.
    pub(crate) async fn query<T: Send + 'static>(
        &self,
        weight: Weight,
        work: impl FnOnce(&State) -> T + Send + 'static,
    ) -> Result<T> {
        run_query(&self.state, weight, work).await
    }
}

/// [`Backend::query`].
pub(crate) async fn run_query<T: Send + 'static>(
    state: &Arc<State>,
    weight: Weight,
    work: impl FnOnce(&State) -> T + Send + 'static,
) -> Result<T> {
    let shared = state.clone();
    state
        .pool
        .run_until_dropped(weight, move || work(&shared))
        .await
        .map_err(stopped_error)
}

/// The error a request whose work was stopped answers: `-32800` when cancelled, `-32803`
/// (request failed) when its deadline passed, `-32603` when the work panicked.
pub(crate) fn stopped_error(stopped: work::Stopped) -> tower_lsp_server::jsonrpc::Error {
    use tower_lsp_server::jsonrpc::{Error, ErrorCode};
    let data = stopped.to_json();
    let message = data["message"].as_str().unwrap_or_default().to_string();
    let code = match stopped {
        work::Stopped::Cancelled => ErrorCode::RequestCancelled,
        work::Stopped::DeadlineExceeded(_) => ErrorCode::ServerError(-32803),
        work::Stopped::Failed(_) => ErrorCode::InternalError,
    };
    Error {
        code,
        message: message.into(),
        data: Some(data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_world::WorldConfig;
    use codegraph_world::buffer::ColumnEncoding;
    use std::time::{Duration, Instant};
    use tower_lsp_server::jsonrpc::ErrorCode;

    /// A query that runs past its deadline answers an error (`-32803`, with the runner's
    /// message), not a hang; one that panics answers an internal error; the others answer.
    #[tokio::test]
    pub(crate) async fn a_stopped_query_answers_an_error() {
        let with_deadline = |deadline| {
            let mut state = State::new(WorldConfig::default(), false, None);
            state.pool = Arc::new(work::Pool::new(work::Limits { heavy: 1, deadline }));
            Arc::new(state)
        };
        let state = with_deadline(Duration::from_millis(100));
        let started = Instant::now();
        let error = run_query(&state, Weight::Heavy, move |_| {
            while started.elapsed() < Duration::from_secs(30) {
                codegraph_model::cancel::checkpoint();
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .await
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(error.code, ErrorCode::ServerError(-32803));
        assert!(
            error
                .message
                .starts_with("the request took longer than 0.1 s"),
            "{}",
            error.message
        );
        assert_eq!(error.data.unwrap()["error"], "Deadline exceeded");
        // The stopped work gives its turn back.
        while state.pool.free_heavy_turns() == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the work went on"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }

        let state = with_deadline(work::DEFAULT_DEADLINE);
        let error = run_query(&state, Weight::Cheap, |_| -> u32 { panic!("a bug") })
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::InternalError);
        assert_eq!(error.data.unwrap()["error"], "Analysis failed");
        let answer = run_query(&state, Weight::Heavy, |state| state.encoding()).await;
        assert_eq!(answer, Ok(ColumnEncoding::Utf16));
        assert_eq!(
            stopped_error(work::Stopped::Cancelled).code,
            ErrorCode::RequestCancelled
        );
    }
}
