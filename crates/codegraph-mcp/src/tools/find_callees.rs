//! What a function or method calls: `find_callees` (its helpers are `find_callers`').

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::find_callers::{CallNeighbour, CallsParams, call_page};
use super::{CallProvenance, Page};
use crate::convert::EntitySummary;
use crate::{CodegraphMcp, resolve_for_tool};
use codegraph_graph::query::CallDirection;
use codegraph_world::work::Weight;

#[derive(Debug, Serialize, JsonSchema)]
pub struct CalleesResult {
    pub entity: EntitySummary,
    pub callees: Vec<CallNeighbour>,
    #[serde(flatten)]
    pub page: Page,
    pub provenance: CallProvenance,
}

#[tool_router(router = find_callees_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "What a function or method calls (`max_depth` > 1: callees of callees). Same answer, paging and `provenance` as find_callers (`possible`: calls in it left aside).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_callees(
        &self,
        Parameters(params): Parameters<CallsParams>,
        cancel: CancellationToken,
    ) -> Result<Json<CalleesResult>, CallToolResult> {
        let weight = Weight::of_depth(params.max_depth);
        let world = self.world.clone();
        self.work(weight, &cancel, move || {
            let graph = world.snapshot();
            let entity = resolve_for_tool(&graph, &params.entity_id)?;
            let (callees, page, provenance) =
                call_page(&world, &graph, &entity, CallDirection::Callees, &params);
            Ok(Json(CalleesResult {
                entity: EntitySummary::from(&entity),
                callees,
                page,
                provenance,
            }))
        })
        .await
    }
}
