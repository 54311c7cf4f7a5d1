//! Questions about one entity's surroundings: `local_search`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Provenance, ToolResult, provenance};
use crate::{CodegraphMcp, resolve_for_tool, tool_error};
use codegraph_analysis as analysis;
use codegraph_graph::Entity;
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LocalSearchParams {
    /// The question, in plain words.
    pub query: String,
    /// Where to start. An id (`path/file.py::Class.method`), a qualified name or a plain name.
    #[serde(default, alias = "entity_name")]
    pub entity_id: Option<String>,
    /// More start entities (or instead of `entity_id`).
    #[serde(default)]
    pub context_entities: Vec<String>,
    /// Default 2, at most 4.
    #[serde(default = "super::default_depth", alias = "max_depth")]
    pub depth: u32,
    /// Default 20, at most 100.
    #[serde(default = "super::default_limit", alias = "max_results")]
    pub limit: usize,
    /// `production_first` (default: production code ranked first), `all`, or classes,
    /// comma-separated: production, test, fixture, example, generated, vendored.
    #[serde(default)]
    pub filter: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LocalEntry {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file: String,
    pub start_line: u32,
    /// 0..1: relevance to the query and closeness together.
    pub relevance: f64,
    /// Hops from the nearest start entity.
    pub distance: u32,
    /// How it was reached: calls, called_by, contains, contained_in, imports, imported_by,
    /// uses, used_by, extends, extended_by, implements, implemented_by.
    pub relation: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RelationshipEntry {
    pub source: String,
    pub target: String,
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LocalSearchResult {
    pub query: String,
    pub answer: String,
    pub start_entity: String,
    pub context_entities: Vec<String>,
    pub entities_searched: usize,
    pub confidence: f64,
    pub relevant_entities: Vec<LocalEntry>,
    pub relationships: Vec<RelationshipEntry>,
    /// How many entities the walk reached (start entities aside): the candidates ranked.
    pub total: usize,
    /// True when `limit` left reached entities out.
    pub truncated: bool,
    pub provenance: Provenance,
}

impl From<analysis::rag::LocalAnswer> for LocalSearchResult {
    fn from(answer: analysis::rag::LocalAnswer) -> LocalSearchResult {
        let total = answer
            .entities_searched
            .saturating_sub(answer.context_entities.len());
        let truncated = total > answer.relevant_entities.len();
        LocalSearchResult {
            query: answer.query,
            answer: answer.answer,
            start_entity: answer.start_entity.to_string(),
            context_entities: answer
                .context_entities
                .iter()
                .map(|id| id.to_string())
                .collect(),
            entities_searched: answer.entities_searched,
            confidence: answer.confidence,
            relevant_entities: answer
                .relevant_entities
                .into_iter()
                .map(|relevant| LocalEntry {
                    id: relevant.entity.id.to_string(),
                    name: relevant.entity.name.to_string(),
                    kind: relevant.entity.kind.to_string(),
                    file: relevant.entity.file_path.to_string(),
                    start_line: relevant.entity.start_line,
                    relevance: relevant.relevance,
                    distance: relevant.distance,
                    relation: relevant.relation,
                })
                .collect(),
            relationships: answer
                .relationships
                .into_iter()
                .map(|relationship| RelationshipEntry {
                    source: relationship.source.to_string(),
                    target: relationship.target.to_string(),
                    kind: relationship.kind.to_string(),
                })
                .collect(),
            total,
            truncated,
            provenance: Provenance::default(),
        }
    }
}

#[tool_router(router = local_search_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Answer a question about an entity's surroundings (\"how is this class used?\"): walks what it uses (calls, field and parameter types, bases, implementations), then who uses it, and ranks what it reaches by relevance to the question. Returns an extractive answer, the relevant entities with how each was reached, and their relations.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn local_search(
        &self,
        Parameters(params): Parameters<LocalSearchParams>,
        cancel: CancellationToken,
    ) -> Result<Json<LocalSearchResult>, CallToolResult> {
        let weight = self
            .weight_of_search(crate::SearchNeeds::Index)
            .max(Weight::of_depth(params.depth.clamp(1, 4)));
        let world = self.world.clone();
        let work = move || -> ToolResult<LocalSearchResult> {
            let graph = world.snapshot();
            let mut names: Vec<String> = params.entity_id.clone().into_iter().collect();
            names.extend(params.context_entities.iter().cloned());
            if names.is_empty() {
                return Err(tool_error(serde_json::json!({
                    "error": "No start entity",
                    "message": "give entity_id or context_entities (ids, qualified names or plain names)",
                })));
            }
            let mut starts: Vec<Entity> = Vec::new();
            for name in &names {
                let entity = resolve_for_tool(&graph, name)?;
                if !starts.iter().any(|start| start.id == entity.id) {
                    starts.push(entity);
                }
            }
            let index = world.analysis().search_index(&graph);
            let options = analysis::rag::LocalOptions {
                depth: params.depth.clamp(1, 4),
                limit: params.limit.clamp(1, 100),
                filter: crate::convert::file_filter(params.filter.as_deref())?,
            };
            let answer =
                analysis::rag::local_search(&graph, &index, &params.query, &starts, &options);
            let mut result = LocalSearchResult::from(answer);
            let files = result
                .relevant_entities
                .iter()
                .map(|entry| entry.file.as_str())
                .chain(starts.iter().map(|start| &*start.file_path));
            result.provenance = provenance(&world, &graph, files);
            Ok(Json(result))
        };
        self.work(weight, &cancel, work).await
    }
}
