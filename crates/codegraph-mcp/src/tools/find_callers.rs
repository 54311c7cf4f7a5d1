//! Who calls a function or method: `find_callers`, with the parameters, the result shapes
//! and the call-walk helpers `find_callees` shares.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{CallProvenance, Page, call_provenance, paginate};
use crate::convert::EntitySummary;
use crate::{CodegraphMcp, resolve_for_tool};
use codegraph_graph::query::{self, CallDirection};
use codegraph_graph::{Entity, Graph};
use codegraph_world::work::Weight;

/// Callers or callees returned when no `limit` is given: a hub with thousands of callers
/// still answers in a few thousand tokens, and says how to page.
pub const DEFAULT_CALLS_LIMIT: usize = 25;
pub const MAX_CALLS_LIMIT: usize = 500;

fn default_one() -> u32 {
    1
}

fn default_calls_limit() -> usize {
    DEFAULT_CALLS_LIMIT
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallsParams {
    /// An id (`path/file.py::Class.method`), a qualified name or a plain name.
    #[serde(alias = "function_name", alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// Hops to follow. Default 1 (direct only), at most 10.
    #[serde(default = "default_one", alias = "depth")]
    pub max_depth: u32,
    /// Nearest first. Default 25, at most 500.
    #[serde(default = "default_calls_limit", alias = "max_results")]
    pub limit: usize,
    /// The previous page's `next_offset`. Default 0.
    #[serde(default)]
    pub offset: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallNeighbour {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// 1 for a direct caller/callee, 2 for the next hop, ...
    pub depth: u32,
    /// The entity this one was reached from.
    pub via: String,
    /// Lines (one-based) of the calls between the two.
    pub call_lines: Vec<u32>,
    /// How the call was resolved: `scope`, `same_file`, `import`, `receiver_type`, `dispatch`
    /// (through an interface or base member), `same_package`, `qualified`, `unique_name` (a
    /// guess: the only definition of that name the caller can see).
    pub resolution: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallersResult {
    pub entity: EntitySummary,
    pub callers: Vec<CallNeighbour>,
    #[serde(flatten)]
    pub page: Page,
    pub provenance: CallProvenance,
}

/// Which way a call page walks the calls.
/// One page of the callers or callees of `entity`, up to `depth` hops, nearest first, with the
/// stamp over every file it names.
pub(super) fn call_page(
    world: &codegraph_world::World,
    graph: &Graph,
    entity: &Entity,
    direction: CallDirection,
    params: &CallsParams,
) -> (Vec<CallNeighbour>, Page, CallProvenance) {
    let limit = params.limit.clamp(1, MAX_CALLS_LIMIT);
    let reached = query::call_closure(graph, &entity.id, direction, params.max_depth.clamp(1, 10));
    let noun = direction.noun();
    let (reached, page) = paginate(reached, params.offset, limit, MAX_CALLS_LIMIT, noun);
    // Each listed edge's call lines and resolution come with it from the walk.
    let neighbours: Vec<CallNeighbour> = reached
        .into_iter()
        .map(|reached| CallNeighbour {
            entity: EntitySummary::from(&reached.entity),
            depth: reached.depth,
            via: reached.via.to_string(),
            call_lines: reached.call_lines,
            resolution: reached.resolution.to_string(),
        })
        .collect();
    let possible = match direction {
        CallDirection::Callers => query::possible_callers(graph, &entity.id),
        CallDirection::Callees => query::possible_callees(graph, &entity.id),
    };
    let files = neighbours
        .iter()
        .map(|neighbour| neighbour.entity.file_path.as_str())
        .chain([&*entity.file_path]);
    let provenance = call_provenance(world, graph, files, possible, params.offset, limit);
    (neighbours, page, provenance)
}

#[tool_router(router = find_callers_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Who calls a function or method (`max_depth` > 1: callers of callers), each with the lines of its calls and how each call was resolved. An ambiguous name fails and lists candidate ids. `provenance.possible` lists calls left aside as ambiguous or unresolved: no callers but possible ones means \"none proven\", not \"none\". Paged: `limit`, `offset`, `total`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_callers(
        &self,
        Parameters(params): Parameters<CallsParams>,
        cancel: CancellationToken,
    ) -> Result<Json<CallersResult>, CallToolResult> {
        let weight = Weight::of_depth(params.max_depth);
        let world = self.world.clone();
        self.work(weight, &cancel, move || {
            let graph = world.snapshot();
            let entity = resolve_for_tool(&graph, &params.entity_id)?;
            let (callers, page, provenance) =
                call_page(&world, &graph, &entity, CallDirection::Callers, &params);
            Ok(Json(CallersResult {
                entity: EntitySummary::from(&entity),
                callers,
                page,
                provenance,
            }))
        })
        .await
    }
}
