//! The types implementing an abstraction (and a method's overrides): `find_implementations`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{CallProvenance, MAX_LIST_LIMIT, Page, call_provenance, paginate};
use crate::convert::EntitySummary;
use crate::{CodegraphMcp, resolve_for_tool};
use codegraph_graph::query;
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ImplementationsParams {
    /// The interface, trait or base class (or one of its methods). An id
    /// (`path/file.py::Class.method`), a qualified name or a plain name.
    #[serde(alias = "interface_name", alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// Default 50, at most 1000.
    #[serde(default = "super::default_list_limit", alias = "max_results")]
    pub limit: usize,
    /// The previous page's `next_offset`. Default 0.
    #[serde(default)]
    pub offset: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImplementationsResult {
    pub entity: EntitySummary,
    pub implementations: Vec<Implementation>,
    #[serde(flatten)]
    pub page: Page,
    /// `possible`: bases written with the entity's name that became no edge to it.
    pub provenance: CallProvenance,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Implementation {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// How the relation is known: the resolution of the declared base (`import`, `same_file`,
    /// ...), or `method_set` when inferred (a Go type whose methods cover the interface's).
    pub resolution: String,
}

#[tool_router(router = find_implementations_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Types implementing or extending an interface, trait or base class, transitively; for a method, its overrides. `provenance.possible` lists bases of that name not attributed to it. Paged: `limit`, `offset`, `total`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_implementations(
        &self,
        Parameters(params): Parameters<ImplementationsParams>,
        cancel: CancellationToken,
    ) -> Result<Json<ImplementationsResult>, CallToolResult> {
        let world = self.world.clone();
        self.work(Weight::Cheap, &cancel, move || {
            let graph = world.snapshot();
            let entity = resolve_for_tool(&graph, &params.entity_id)?;
            let limit = params.limit.clamp(1, MAX_LIST_LIMIT);
            let found = query::implementations_resolved(&graph, &entity.id);
            let (found, page) = paginate(
                found,
                params.offset,
                limit,
                MAX_LIST_LIMIT,
                "implementations",
            );
            let implementations: Vec<Implementation> = found
                .iter()
                .map(|(found, resolution)| Implementation {
                    entity: EntitySummary::from(found),
                    resolution: resolution.to_string(),
                })
                .collect();
            let files = found
                .iter()
                .map(|(found, _)| &*found.file_path)
                .chain([&*entity.file_path]);
            let provenance = call_provenance(
                &world,
                &graph,
                files,
                query::possible_implementations(&graph, &entity.id),
                params.offset,
                limit,
            );
            Ok(Json(ImplementationsResult {
                entity: EntitySummary::from(&entity),
                implementations,
                page,
                provenance,
            }))
        })
        .await
    }
}
