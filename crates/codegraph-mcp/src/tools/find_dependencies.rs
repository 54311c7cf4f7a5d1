//! An entity's dependencies and dependents, breadth first: `find_dependencies`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{MAX_LIST_LIMIT, Page, Provenance, paginate, provenance};
use crate::convert::EntitySummary;
use crate::{CodegraphMcp, resolve_for_tool};
use codegraph_analysis::modules;
use codegraph_world::work::Weight;

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
    /// Which code to list and walk through: `production_first` (default: everything, production
    /// code first at each depth), `all`, or classes, comma-separated (`production` leaves the
    /// tests out): production, test, fixture, example, generated, vendored.
    #[serde(default)]
    pub filter: Option<String>,
    /// How many to return (downstream first, nearest first). Default 50, at most 1000. Also
    /// accepted as `max_results`.
    #[serde(default = "super::default_list_limit", alias = "max_results")]
    pub limit: usize,
    /// How many to skip: the `next_offset` of the previous page. Default 0.
    #[serde(default)]
    pub offset: usize,
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
    /// How that edge was resolved (`import`, `receiver_type`, `unique_name` (a guess), ...).
    pub resolution: String,
    pub via: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DependenciesResult {
    pub entity: EntitySummary,
    pub entities: Vec<DependencyEntry>,
    /// The same as `total`.
    pub total_dependencies: usize,
    #[serde(flatten)]
    pub page: Page,
    pub provenance: Provenance,
}

#[tool_router(router = find_dependencies_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Entities an entity depends on (downstream: what it calls, imports, uses, extends, implements) and/or that depend on it (upstream), up to `depth` hops (default 2). Use it for impact analysis: what breaks if this changes, what must exist for this to work. At most `limit` (default 50) with `total`; page with `offset`. Each entry says how its edge was resolved.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_dependencies(
        &self,
        Parameters(params): Parameters<DependenciesParams>,
        cancel: CancellationToken,
    ) -> Result<Json<DependenciesResult>, CallToolResult> {
        let weight = Weight::of_depth(params.depth);
        let world = self.world.clone();
        self.work(weight, &cancel, move || {
            let graph = world.snapshot();
            let entity = resolve_for_tool(&graph, &params.entity_id)?;
            let direction = match params.direction {
                Direction::Upstream => modules::Direction::Upstream,
                Direction::Downstream => modules::Direction::Downstream,
                Direction::Both => modules::Direction::Both,
            };
            let filter = crate::convert::file_filter(params.filter.as_deref())?;
            let found = modules::find_dependencies_filtered(
                &graph,
                &entity,
                direction,
                params.depth,
                filter,
            );
            let (found, page) = paginate(
                found,
                params.offset,
                params.limit.clamp(1, MAX_LIST_LIMIT),
                MAX_LIST_LIMIT,
                "dependencies",
            );
            let files = found
                .iter()
                .map(|dependency| &*dependency.entity.file_path)
                .chain([&*entity.file_path]);
            let provenance = provenance(&world, &graph, files);
            let entries: Vec<DependencyEntry> = found
                .into_iter()
                .map(|dependency| DependencyEntry {
                    entity: EntitySummary::from(&dependency.entity),
                    depth: dependency.depth,
                    direction: dependency.direction.as_str().to_string(),
                    relation: dependency.relation.to_string(),
                    resolution: dependency.resolution.to_string(),
                    via: dependency.via.to_string(),
                })
                .collect();
            Ok(Json(DependenciesResult {
                entity: EntitySummary::from(&entity),
                total_dependencies: page.total,
                entities: entries,
                page,
                provenance,
            }))
        })
        .await
    }
}
