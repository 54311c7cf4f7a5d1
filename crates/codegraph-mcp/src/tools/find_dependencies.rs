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
    /// An id (`path/file.py::Class.method`), a qualified name or a plain name.
    #[serde(alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// upstream, downstream or both (default).
    #[serde(default)]
    pub direction: Direction,
    /// Default 2, at most 10.
    #[serde(default = "super::default_depth", alias = "max_depth")]
    pub depth: u32,
    /// `production_first` (default: production code ranked first), `all`, or classes,
    /// comma-separated: production, test, fixture, example, generated, vendored. Applies to the
    /// walk too.
    #[serde(default)]
    pub filter: Option<String>,
    /// Downstream first, nearest first. Default 50, at most 1000.
    #[serde(default = "super::default_list_limit", alias = "max_results")]
    pub limit: usize,
    /// The previous page's `next_offset`. Default 0.
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
        description = "What an entity depends on (downstream: calls, imports, uses, extends, implements) and what depends on it (upstream), up to `depth` hops, each with how its edge was resolved: impact analysis. Paged: `limit`, `offset`, `total`.",
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
