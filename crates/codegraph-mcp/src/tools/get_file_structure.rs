//! A file's outline: `get_file_structure` (its outline entries are shared with
//! `analyze_module_structure`).

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{MAX_LIST_LIMIT, Page, Provenance, paginate, provenance, resolve_file};
use crate::CodegraphMcp;
use crate::convert::{self};
use codegraph_analysis::modules;
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FileParams {
    /// A path relative to the repository root (a module's id or dotted name works too).
    #[serde(alias = "module_path", alias = "path")]
    pub file_path: String,
    /// In file order. Default 200, at most 1000.
    #[serde(default = "default_outline_limit", alias = "max_results")]
    pub limit: usize,
    /// The previous page's `next_offset`. Default 0.
    #[serde(default)]
    pub offset: usize,
}

fn default_outline_limit() -> usize {
    200
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StructureEntry {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    /// `"first-last"`, one-based inclusive.
    pub lines: String,
    /// How deeply nested: 0 for top-level definitions.
    pub depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FileStructureResult {
    pub file: String,
    pub language: String,
    pub line_count: u32,
    pub entities: Vec<StructureEntry>,
    #[serde(flatten)]
    pub page: Page,
    pub provenance: Provenance,
}

pub(super) fn structure_entries(outline: &[modules::OutlineEntry]) -> Vec<StructureEntry> {
    outline
        .iter()
        .map(|entry| StructureEntry {
            id: entry.entity.id.to_string(),
            kind: entry.entity.kind.to_string(),
            name: entry.entity.name.to_string(),
            lines: convert::lines_label(entry.entity.start_line, entry.entity.end_line),
            depth: entry.depth,
            signature: entry
                .entity
                .signature
                .clone()
                .filter(|text| !text.is_empty()),
        })
        .collect()
}

#[tool_router(router = get_file_structure_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "A file's outline: every class, function and method with its id, kind, lines, depth and signature. Use it to get ids. Paged: `limit`, `offset`, `total`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_file_structure(
        &self,
        Parameters(params): Parameters<FileParams>,
        cancel: CancellationToken,
    ) -> Result<Json<FileStructureResult>, CallToolResult> {
        let world = self.world.clone();
        self.work(Weight::Cheap, &cancel, move || {
            let graph = world.snapshot();
            let path = resolve_file(&graph, &params.file_path)?;
            let node = graph.file(&path).expect("resolved file exists");
            let (outline, page) = paginate(
                modules::outline(&graph, &path),
                params.offset,
                params.limit.clamp(1, MAX_LIST_LIMIT),
                MAX_LIST_LIMIT,
                "definitions",
            );
            Ok(Json(FileStructureResult {
                file: path.to_string(),
                language: node.language.name().to_string(),
                line_count: node.summary.line_count,
                entities: structure_entries(&outline),
                page,
                provenance: provenance(&world, &graph, [&*path]),
            }))
        })
        .await
    }
}
