//! Metrics and refactoring suggestions for one entity: `suggest_refactoring`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Page, Provenance, ToolResult, paginate, provenance};
use crate::convert::{self};
use crate::{CodegraphMcp, resolve_for_tool, tool_error};
use codegraph_analysis as analysis;
use codegraph_analysis::refactor::{Suggestion, SuggestionKind};
use codegraph_world::World;
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RefactoringParams {
    /// An id (`path/file.py::Class.method`), a qualified name or a plain name. A file path for a
    /// module.
    #[serde(alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// Only this type: extract, rename, move, simplify, inline or remove.
    #[serde(default, rename = "type", alias = "refactoring_type")]
    pub kind: Option<String>,
    /// Most confident first. Default 20, at most 100.
    #[serde(default = "super::default_limit", alias = "max_results")]
    pub limit: usize,
    /// The previous page's `next_offset`. Default 0.
    #[serde(default)]
    pub offset: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SuggestionEntry {
    /// extract, rename, move, simplify, inline or remove.
    #[serde(rename = "type")]
    pub kind: String,
    /// Why, with the figures.
    pub reason: String,
    pub file: String,
    /// `"first-last"`, one-based.
    pub lines: String,
    pub confidence: f64,
    /// For `move`: the directory to move to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RefactoringResult {
    /// The entity's id.
    pub entity: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file_path: String,
    /// lines, cyclomatic_complexity, max_nesting, parameters, fan_in, fan_out, members.
    pub metrics: serde_json::Value,
    pub suggestions: Vec<SuggestionEntry>,
    #[serde(flatten)]
    pub page: Page,
    pub provenance: Provenance,
}

#[tool_router(router = suggest_refactoring_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Refactoring suggestions for an entity or a file: extract, rename, move, simplify, inline or remove, each with a reason quoting its figures (length, complexity, nesting, parameters, fan-in/out, duplicates, dead code, god classes, import cycles), a location and a confidence.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn suggest_refactoring(
        &self,
        Parameters(params): Parameters<RefactoringParams>,
        cancel: CancellationToken,
    ) -> Result<Json<RefactoringResult>, CallToolResult> {
        let weight = if self.world.analysis().has_repo_facts(&self.world.snapshot()) {
            Weight::Cheap
        } else {
            Weight::Heavy
        };
        let world = self.world.clone();
        self.work(weight, &cancel, move || suggest(&world, params))
            .await
    }
}

fn suggest(world: &World, params: RefactoringParams) -> ToolResult<RefactoringResult> {
    let graph = world.snapshot();
    let entity = resolve_for_tool(&graph, &params.entity_id)?;
    let only = only_kind(params.kind.as_deref())?;
    let facts = world.analysis().repo_facts(&graph);
    let report = analysis::refactor::suggest(&graph, &facts, &entity, only);
    let (suggestions, page) = paginate(
        report.suggestions,
        params.offset,
        params.limit.clamp(1, 100),
        100,
        "suggestions",
    );
    let files = suggestions
        .iter()
        .map(|suggestion| &*suggestion.location.file)
        .chain([&*report.entity.file_path]);
    let provenance = provenance(world, &graph, files);
    Ok(Json(RefactoringResult {
        entity: report.entity.id.to_string(),
        name: report.entity.name.to_string(),
        kind: report.entity.kind.to_string(),
        file_path: report.entity.file_path.to_string(),
        metrics: serde_json::to_value(&report.metrics).unwrap_or_default(),
        suggestions: suggestions.iter().map(SuggestionEntry::from).collect(),
        page,
        provenance,
    }))
}

/// The kind `type` names, `None` for all of them.
fn only_kind(text: Option<&str>) -> Result<Option<SuggestionKind>, CallToolResult> {
    match text {
        None | Some("") | Some("general") | Some("all") => Ok(None),
        Some(text) => SuggestionKind::parse(text).map(Some).ok_or_else(|| {
            tool_error(serde_json::json!({
                "error": "Unknown refactoring type",
                "type": text,
                "known": ["extract", "rename", "move", "simplify", "inline", "remove", "general"],
            }))
        }),
    }
}

impl From<&Suggestion> for SuggestionEntry {
    fn from(suggestion: &Suggestion) -> SuggestionEntry {
        SuggestionEntry {
            kind: serde_json::to_value(suggestion.kind)
                .ok()
                .and_then(|value| value.as_str().map(str::to_string))
                .unwrap_or_default(),
            reason: suggestion.reason.clone(),
            file: suggestion.location.file.to_string(),
            lines: convert::lines_label(
                suggestion.location.start_line,
                suggestion.location.end_line,
            ),
            confidence: suggestion.confidence,
            target: suggestion.target.clone(),
            related: suggestion.related.clone(),
        }
    }
}
