//! What the change since a git revision affects, and the tests to run: `find_affected_tests`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Provenance, provenance};
use crate::{CodegraphMcp, tool_error};
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AffectedParams {
    /// Default `HEAD` (uncommitted work); a branch's base such as `origin/main`.
    #[serde(default = "head")]
    pub base: String,
    /// Also list the affected entities that are not tests. Default false.
    #[serde(default)]
    pub include_affected: bool,
    /// Default 200, at most 5000.
    #[serde(default = "default_limit")]
    pub limit: usize,
}

fn head() -> String {
    "HEAD".to_string()
}

fn default_limit() -> usize {
    200
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedEntry {
    pub id: String,
    pub file: String,
    pub line: u32,
    pub kind: String,
    /// signature, body, added, removed (its former callers are affected) or module (the file's
    /// code outside its definitions).
    pub change: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReachedEntry {
    pub id: String,
    pub file: String,
    pub line: u32,
    /// The name the test runner selects it by (a pytest node id, a Rust test path, a Go test
    /// name); for an affected entity that is not a test, its name.
    pub name: String,
    /// `proven` (every step an edge) or `possible` (through a reference left aside, a function
    /// named as a value, a changed import or a special method).
    pub confidence: String,
    /// The path from a changed entity to this one.
    pub via: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AffectedResult {
    pub changed: Vec<ChangedEntry>,
    pub tests: Vec<ReachedEntry>,
    pub tests_total: usize,
    /// Test files to run: those holding a selected test, and whole test files whose runner
    /// collects by file (JavaScript, TypeScript).
    pub test_files: Vec<String>,
    /// Only with `include_affected`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub affected: Vec<ReachedEntry>,
    pub affected_total: usize,
    /// Changed files codegraph does not model (configuration, data, templates): the selection
    /// cannot follow them.
    pub unmodelled: Vec<String>,
    /// The walk stopped at its limit: the selection is incomplete.
    pub truncated: bool,
    /// The base as given, and the commit it names.
    pub base: String,
    pub commit: String,
    pub provenance: Provenance,
}

#[tool_router(router = find_affected_tests_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "After editing: the entities changed since a git revision (untracked files and unsaved editor buffers included), the tests reaching them through calls, overrides, subtypes and fixtures (each with its path `via` and whether proven), and the test files to run.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_affected_tests(
        &self,
        Parameters(params): Parameters<AffectedParams>,
        cancel: CancellationToken,
    ) -> Result<Json<AffectedResult>, CallToolResult> {
        let world = self.world.clone();
        self.work(Weight::Heavy, &cancel, move || {
            let (graph, answer) = world.affected(&params.base).map_err(|error| {
                tool_error(serde_json::json!({ "error": format!("{error:#}") }))
            })?;
            let limit = params.limit.clamp(1, 5000);
            let impact = answer.impact;
            let files = impact.changed.iter().map(|changed| &*changed.file);
            let provenance = provenance(&world, &graph, files);
            let changed = impact
                .changed
                .iter()
                .map(|changed| ChangedEntry {
                    id: changed.id.to_string(),
                    file: changed.file.to_string(),
                    line: changed.line,
                    kind: changed.kind.to_string(),
                    change: changed.change.as_str().to_string(),
                })
                .collect();
            let strings =
                |ids: &[codegraph_graph::EntityId]| ids.iter().map(ToString::to_string).collect();
            let tests = impact
                .tests
                .iter()
                .take(limit)
                .map(|test| ReachedEntry {
                    id: test.id.to_string(),
                    file: test.file.to_string(),
                    line: test.line,
                    name: test.name.clone(),
                    confidence: test.confidence.as_str().to_string(),
                    via: strings(&test.via),
                })
                .collect();
            let affected = if params.include_affected {
                impact
                    .affected
                    .iter()
                    .take(limit)
                    .map(|affected| ReachedEntry {
                        id: affected.id.to_string(),
                        file: affected.file.to_string(),
                        line: affected.line,
                        name: affected.name.to_string(),
                        confidence: affected.confidence.as_str().to_string(),
                        via: strings(&affected.via),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            Ok(Json(AffectedResult {
                changed,
                tests,
                tests_total: impact.tests.len(),
                test_files: impact.test_files.iter().map(ToString::to_string).collect(),
                affected,
                affected_total: impact.affected.len(),
                unmodelled: impact.unmodelled,
                truncated: impact.truncated,
                base: answer.provenance.base,
                commit: answer.provenance.commit,
                provenance,
            }))
        })
        .await
    }
}
