//! The types implementing an abstraction (and a method's overrides): `find_implementations`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolResult;
use crate::graph::query;
use crate::mcp::convert::EntitySummary;
use crate::mcp::{CodegraphMcp, resolve_for_tool};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ImplementationsParams {
    /// The interface, abstract class, base class or trait (or a method of one, for its
    /// overrides). Also accepted as `interface_name` or `entity_name`.
    #[serde(alias = "interface_name", alias = "entity_name", alias = "name")]
    pub entity_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImplementationsResult {
    pub entity: EntitySummary,
    pub implementations: Vec<Implementation>,
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
        description = "Types that implement or extend an interface, trait, abstract or base class, transitively; for a method, the overriding methods in those types. Use it to find the concrete code behind an abstraction.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_implementations(
        &self,
        Parameters(params): Parameters<ImplementationsParams>,
    ) -> ToolResult<ImplementationsResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let implementations = query::implementations_resolved(&graph, &entity.id)
            .iter()
            .map(|(found, resolution)| Implementation {
                entity: EntitySummary::from(found),
                resolution: resolution.to_string(),
            })
            .collect();
        Ok(Json(ImplementationsResult {
            entity: EntitySummary::from(&entity),
            implementations,
        }))
    }
}
