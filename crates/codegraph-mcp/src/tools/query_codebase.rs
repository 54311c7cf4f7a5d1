//! Ranked search by words and names: `query_codebase`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Page, Provenance, ToolResult, provenance, round2};
use crate::CodegraphMcp;
use crate::convert::EntitySummary;
use codegraph_analysis as analysis;

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    All,
    Functions,
    Classes,
    Files,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryParams {
    /// Plain words or a symbol name.
    pub query: String,
    /// all, functions, classes or files.
    #[serde(default)]
    pub scope: Scope,
    /// Default 20, at most 100.
    #[serde(default = "super::default_limit", alias = "max_results")]
    pub limit: usize,
    /// The previous page's `next_offset`. Default 0.
    #[serde(default)]
    pub offset: usize,
    /// `production_first` (default: production code ranked first), `all`, or classes,
    /// comma-separated: production, test, fixture, example, generated, vendored.
    #[serde(default)]
    pub filter: Option<String>,
}

/// The most results one call returns.
const MAX_QUERY_LIMIT: usize = 100;

#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryMatch {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// 0..1, higher is better.
    pub relevance: f64,
    /// What its code is for: production, test, fixture, example, generated or vendored.
    pub class: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryResult {
    pub entities: Vec<QueryMatch>,
    /// How many entities match at all (the same as `total`).
    pub total_count: usize,
    #[serde(flatten)]
    pub page: Page,
    pub provenance: Provenance,
}

fn search_scope(scope: Scope) -> analysis::search::SearchScope {
    match scope {
        Scope::All => analysis::search::SearchScope::All,
        Scope::Functions => analysis::search::SearchScope::Functions,
        Scope::Classes => analysis::search::SearchScope::Classes,
        Scope::Files => analysis::search::SearchScope::Files,
    }
}

#[tool_router(router = query_codebase_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Find entities from plain words (\"parse config file\") or a name: BM25 over name words, paths, signatures and docstrings, stemmed; exact and prefix name matches first, production code before tests (`filter`). Relevance 0..1. Paged: `limit`, `offset`, `total`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn query_codebase(
        &self,
        Parameters(params): Parameters<QueryParams>,
        cancel: CancellationToken,
    ) -> Result<Json<QueryResult>, CallToolResult> {
        let weight = self.weight_of_search(crate::SearchNeeds::Index);
        let world = self.world.clone();
        let limit = params.limit.clamp(1, MAX_QUERY_LIMIT);
        let work = move || -> ToolResult<QueryResult> {
            let graph = world.snapshot();
            let filter = crate::convert::file_filter(params.filter.as_deref())?;
            let index = world.analysis().search_index(&graph);
            let options = analysis::search::SearchOptions::new(
                &graph,
                search_scope(params.scope),
                params.offset.saturating_add(limit),
            );
            let results = index.search_with(&params.query, &options.with_filter(filter));
            let entities: Vec<QueryMatch> = results
                .hits
                .iter()
                .skip(params.offset)
                .filter_map(|hit| {
                    Some(QueryMatch {
                        entity: EntitySummary::from(&graph.entity(&hit.id)?),
                        relevance: round2(hit.relevance),
                        class: hit.class.to_string(),
                    })
                })
                .collect();
            let page = Page::of(
                results.total_count,
                params.offset,
                entities.len(),
                limit,
                MAX_QUERY_LIMIT,
                "matches",
            );
            let provenance = provenance(
                &world,
                &graph,
                entities.iter().map(|found| found.entity.file_path.as_str()),
            );
            Ok(Json(QueryResult {
                entities,
                total_count: results.total_count,
                page,
                provenance,
            }))
        };
        self.work(weight, &cancel, work).await
    }
}
