//! codegraph's own requests: `codegraph/bufferText` (the server's text of an open document)
//! and `codegraph/status` (index runs in flight, the pool's heavy requests, what each folder
//! holds).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::Uri;

use crate::{Backend, proto};

/// Parameters of `codegraph/bufferText`.
#[derive(Debug, Deserialize)]
pub struct BufferTextParams {
    pub uri: Uri,
}

#[derive(Debug, Serialize)]
pub struct StatusRoot {
    pub root: PathBuf,
    pub files: usize,
    pub entities: usize,
    pub revision: u64,
}

/// The answer of `codegraph/status`.
#[derive(Debug, Serialize)]
pub struct Status {
    pub indexing: usize,
    /// Heavy requests whose work holds a turn of the pool now (work still winding down after a
    /// cancellation included), and those waiting for one.
    pub heavy_running: usize,
    pub heavy_waiting: usize,
    pub roots: Vec<StatusRoot>,
}

impl Backend {
    /// `codegraph/bufferText`: the server's text of an open document (tests, diagnostics).
    pub(crate) async fn buffer_text(&self, params: BufferTextParams) -> Result<Option<String>> {
        let Some(path) = proto::path_of(&params.uri) else {
            return Ok(None);
        };
        let found = self
            .state
            .admitted(&path)
            .map_err(tower_lsp_server::jsonrpc::Error::invalid_params)?;
        Ok(found.and_then(|(root, relative)| root.world.buffer_text(&relative)))
    }

    /// `codegraph/status`: index runs in flight and what each workspace folder holds.
    pub(crate) async fn status(&self) -> Result<Status> {
        let roots = self
            .state
            .roots
            .read()
            .iter()
            .map(|root| {
                let graph = root.world.snapshot();
                StatusRoot {
                    root: root.client_root.clone(),
                    files: graph.file_count(),
                    entities: graph.entity_count(),
                    revision: graph.revision(),
                }
            })
            .collect();
        let pool = &self.state.pool;
        Ok(Status {
            indexing: self.state.indexing.load(Ordering::SeqCst),
            heavy_running: pool.limits().heavy.max(1) - pool.free_heavy_turns(),
            heavy_waiting: pool.waiting_for_a_turn(),
            roots,
        })
    }
}
