//! Re-reading the repository from disk: `reindex_repository`, the one tool that writes.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Provenance, provenance};
use crate::CodegraphMcp;
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReindexParams {
    /// Default true.
    #[serde(default = "super::default_true")]
    pub incremental: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReindexResult {
    pub files: usize,
    pub entities: usize,
    pub relations: usize,
    pub parsed: usize,
    pub from_cache: usize,
    pub removed: usize,
    /// Seconds.
    pub duration: f64,
    /// The new revision; `unsaved_files`: every file open in an editor with unsaved edits (the
    /// graph keeps the editor's text for them, not the disk's).
    pub provenance: Provenance,
}

#[tool_router(router = reindex_repository_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Re-read the repository from disk after files changed outside a connected editor: only changed files (default), or everything with `incremental: false`.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn reindex_repository(
        &self,
        Parameters(params): Parameters<ReindexParams>,
        cancel: CancellationToken,
    ) -> Result<Json<ReindexResult>, CallToolResult> {
        let world = self.world.clone();
        // The writer's index has no checkpoints: once started it completes (and stores its
        // graph), but it waits its turn among the heavy requests.
        self.work(Weight::Heavy, &cancel, move || {
            let unstoppable = codegraph_model::cancel::Flag::new();
            let report = codegraph_model::cancel::run(&unstoppable, || {
                world.index(!params.incremental, &|_, _| {})
            })
            .expect("never cancelled");
            let graph = world.snapshot();
            let unsaved = world.unsaved_files();
            let provenance = provenance(&world, &graph, unsaved.iter().map(|path| &**path));
            Ok(Json(ReindexResult {
                files: report.files,
                entities: report.entities,
                relations: report.relations,
                parsed: report.parsed,
                from_cache: report.from_cache,
                removed: report.removed,
                duration: report.duration_ms / 1000.0,
                provenance,
            }))
        })
        .await
    }
}
