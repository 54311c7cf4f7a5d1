//! An entity's dependencies and dependents, breadth first: `find_dependencies`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolResult;
use crate::analysis::modules;
use crate::mcp::convert::EntitySummary;
use crate::mcp::{CodegraphMcp, resolve_for_tool};

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Who depends on the entity (incoming edges). Also accepted as `incoming`.
    #[serde(alias = "incoming")]
    Upstream,
    /// What the entity depends on (outgoing edges). Also accepted as `outgoing`.
    #[serde(alias = "outgoing")]
    Downstream,
    #[default]
    Both,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DependenciesParams {
    /// The entity. Also accepted as `entity_name`.
    #[serde(alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// upstream (dependents; also `incoming`), downstream (dependencies; also `outgoing`) or
    /// both. Default both.
    #[serde(default)]
    pub direction: Direction,
    /// How many hops to follow. Default 2, at most 10.
    #[serde(default = "super::default_depth", alias = "max_depth")]
    pub depth: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DependencyEntry {
    #[serde(flatten)]
    pub entity: EntitySummary,
    pub depth: u32,
    /// `downstream` (a dependency) or `upstream` (a dependent).
    pub direction: String,
    /// The edge kind that reached it: calls, imports, uses, extends or implements.
    pub relation: String,
    pub via: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DependenciesResult {
    pub entity: EntitySummary,
    pub entities: Vec<DependencyEntry>,
    pub total_dependencies: usize,
}

#[tool_router(router = find_dependencies_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Entities an entity depends on (downstream: what it calls, imports, uses, extends, implements) and/or that depend on it (upstream), up to `depth` hops (default 2). Use it for impact analysis: what breaks if this changes, what must exist for this to work.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_dependencies(
        &self,
        Parameters(params): Parameters<DependenciesParams>,
    ) -> ToolResult<DependenciesResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let direction = match params.direction {
            Direction::Upstream => modules::Direction::Upstream,
            Direction::Downstream => modules::Direction::Downstream,
            Direction::Both => modules::Direction::Both,
        };
        let entries: Vec<DependencyEntry> =
            modules::find_dependencies(&graph, &entity, direction, params.depth)
                .into_iter()
                .map(|dependency| DependencyEntry {
                    entity: EntitySummary::from(&dependency.entity),
                    depth: dependency.depth,
                    direction: dependency.direction.as_str().to_string(),
                    relation: dependency.relation.to_string(),
                    via: dependency.via.to_string(),
                })
                .collect();
        Ok(Json(DependenciesResult {
            entity: EntitySummary::from(&entity),
            total_dependencies: entries.len(),
            entities: entries,
        }))
    }
}
