//! Big-picture questions answered from communities: `global_search`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Provenance, ToolResult, provenance};
use crate::CodegraphMcp;
use codegraph_analysis as analysis;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobalSearchParams {
    /// The question, in plain words.
    pub query: String,
    /// 0 = a narrow area, 1 = subsystems, 2 = coarsest. Default: chosen from the question.
    #[serde(default, alias = "level")]
    pub community_level: Option<u8>,
    /// `production_first` (default: production code ranked first), `all`, or classes,
    /// comma-separated: production, test, fixture, example, generated, vendored.
    #[serde(default)]
    pub filter: Option<String>,
    /// Supporting entities. Default 10, at most 100.
    #[serde(default = "default_supporting", alias = "max_results")]
    pub limit: usize,
}

fn default_supporting() -> usize {
    analysis::rag::DEFAULT_SUPPORTING
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CommunityMatch {
    pub id: u32,
    pub name: String,
    pub level: u8,
    /// 0..1.
    pub relevance: f64,
    pub member_count: usize,
    pub summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SupportingEntry {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file: String,
    pub start_line: u32,
    /// The community (at the searched level) it belongs to.
    pub community: Option<u32>,
    pub relevance: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GlobalSearchResult {
    pub query: String,
    /// Extractive: assembled from community summaries, names, locations and docstrings.
    pub answer: String,
    pub community_level: u8,
    pub communities_searched: usize,
    /// 0..1: the relevance of the best community.
    pub confidence: f64,
    pub relevant_communities: Vec<CommunityMatch>,
    pub supporting_entities: Vec<SupportingEntry>,
    /// How many entities of the chosen communities matched in all.
    pub total: usize,
    /// True when `limit` left supporting entities out.
    pub truncated: bool,
    pub provenance: Provenance,
}

impl From<analysis::rag::GlobalAnswer> for GlobalSearchResult {
    fn from(answer: analysis::rag::GlobalAnswer) -> GlobalSearchResult {
        let truncated = answer.supporting_total > answer.supporting_entities.len();
        GlobalSearchResult {
            query: answer.query,
            answer: answer.answer,
            community_level: answer.community_level,
            communities_searched: answer.communities_searched,
            confidence: answer.confidence,
            relevant_communities: answer
                .relevant_communities
                .into_iter()
                .map(|community| CommunityMatch {
                    id: community.id,
                    name: community.name,
                    level: community.level,
                    relevance: community.relevance,
                    member_count: community.member_count,
                    summary: community.summary,
                })
                .collect(),
            supporting_entities: answer
                .supporting_entities
                .into_iter()
                .map(|support| SupportingEntry {
                    id: support.entity.id.to_string(),
                    name: support.entity.name.to_string(),
                    kind: support.entity.kind.to_string(),
                    file: support.entity.file_path.to_string(),
                    start_line: support.entity.start_line,
                    community: support.community,
                    relevance: support.relevance,
                })
                .collect(),
            total: answer.supporting_total,
            truncated,
            provenance: Provenance::default(),
        }
    }
}

#[tool_router(router = global_search_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Answer a big-picture question (\"how does authentication work?\") from communities of closely connected code (Leiden over calls, imports, containment, inheritance): the best matching community's summary (main entities, dependencies, users, docstrings) and the matching entities. Members: `codegraph://communities/{id}`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn global_search(
        &self,
        Parameters(params): Parameters<GlobalSearchParams>,
        cancel: CancellationToken,
    ) -> Result<Json<GlobalSearchResult>, CallToolResult> {
        let weight = self.weight_of_search(crate::SearchNeeds::IndexAndCommunities);
        let world = self.world.clone();
        let work = move || -> ToolResult<GlobalSearchResult> {
            let graph = world.snapshot();
            let index = world.analysis().search_index(&graph);
            let communities = world.analysis().communities(&graph);
            let options = analysis::rag::GlobalOptions {
                level: params.community_level.map(|level| level.min(2) as usize),
                filter: crate::convert::file_filter(params.filter.as_deref())?,
                limit: Some(params.limit.clamp(1, 100)),
            };
            let answer =
                analysis::rag::global_search(&graph, &index, &communities, &params.query, &options);
            let mut result = GlobalSearchResult::from(answer);
            result.provenance = provenance(
                &world,
                &graph,
                result
                    .supporting_entities
                    .iter()
                    .map(|entry| entry.file.as_str()),
            );
            Ok(Json(result))
        };
        self.work(weight, &cancel, work).await
    }
}
