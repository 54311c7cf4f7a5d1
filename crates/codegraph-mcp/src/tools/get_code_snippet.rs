//! One entity's source text with lines around it: `get_code_snippet`. A large body comes back
//! as a resource link unless asked for in full.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Provenance, ToolResult, provenance};
use crate::convert;
use crate::resources;
use crate::{CodegraphMcp, resolve_for_tool};
use codegraph_graph::{Entity, Graph};
use codegraph_world::World;
use codegraph_world::work::Weight;

/// A body longer than this many lines, or bytes, is returned as a link unless `full` is set.
pub const MAX_INLINE_LINES: u32 = 300;
pub const MAX_INLINE_BYTES: usize = 24 * 1024;

fn default_context_lines() -> u32 {
    5
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SnippetParams {
    /// An id (`path/file.py::Class.method`), a qualified name or a plain name.
    #[serde(alias = "entity_name", alias = "function_name", alias = "name")]
    pub entity_id: String,
    /// Also return the lines around it (`context`). Default true.
    #[serde(default = "super::default_true")]
    pub include_context: bool,
    /// Lines of context before and after. Default 5, at most 50.
    #[serde(default = "default_context_lines")]
    pub context_lines: u32,
    /// Return a large body inline. Default false.
    #[serde(default)]
    pub full: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SnippetContext {
    pub start_line: u32,
    pub end_line: u32,
    /// The lines `start_line..=end_line`, the entity included.
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SnippetResult {
    pub entity_id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file_path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub language: String,
    /// Exactly the entity's source text; absent when it was too large to inline (see
    /// `source_uri`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The body's lines as a resource (`codegraph://files/{path}#L{start}-L{end}`), when it
    /// was not inlined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_uri: Option<String>,
    /// Why the source is not inline and how to get it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<SnippetContext>,
    pub provenance: Provenance,
}

#[tool_router(router = get_code_snippet_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "An entity's source, exactly as in the file, with its location and `context_lines` around it. A body over 300 lines or 24 KiB comes back as `source_uri`, a link to its lines, unless `full: true`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_code_snippet(
        &self,
        Parameters(params): Parameters<SnippetParams>,
        cancel: CancellationToken,
    ) -> Result<Json<SnippetResult>, CallToolResult> {
        let world = self.world.clone();
        self.work(Weight::Cheap, &cancel, move || snippet(&world, params))
            .await
    }
}

fn snippet(world: &World, params: SnippetParams) -> ToolResult<SnippetResult> {
    let graph = world.snapshot();
    let entity = resolve_for_tool(&graph, &params.entity_id)?;
    let source = convert::entity_source(&graph, &entity);
    let lines = entity.end_line.saturating_sub(entity.start_line) + 1;
    let large = lines > MAX_INLINE_LINES || source.len() > MAX_INLINE_BYTES;
    let provenance = provenance(world, &graph, [&*entity.file_path]);
    let mut result = SnippetResult {
        entity_id: entity.id.to_string(),
        name: entity.name.to_string(),
        kind: entity.kind.to_string(),
        file_path: entity.file_path.to_string(),
        start_line: entity.start_line,
        end_line: entity.end_line,
        language: entity.language.name().to_string(),
        source: None,
        source_uri: None,
        omitted: None,
        context: None,
        provenance,
    };
    if large && !params.full {
        result.source_uri = Some(resources::file_lines_uri(
            &entity.file_path,
            entity.start_line,
            entity.end_line,
        ));
        result.omitted = Some(format!(
            "the body is {lines} lines ({} bytes): read `source_uri`, call read_file_content with start_line/end_line, or call again with full: true",
            source.len()
        ));
        return Ok(Json(result));
    }
    result.source = Some(source);
    if params.include_context {
        result.context = context(&graph, &entity, params.context_lines.min(50));
    }
    Ok(Json(result))
}

/// The entity's lines with `around` lines before and after, from the file's text.
fn context(graph: &Graph, entity: &Entity, around: u32) -> Option<SnippetContext> {
    let file_text = graph.file(&entity.file_path)?.text()?;
    let (text, start_line, end_line) = convert::line_range(
        &file_text,
        entity.start_line.saturating_sub(around),
        entity.end_line.saturating_add(around),
    );
    Some(SnippetContext {
        start_line,
        end_line,
        text,
    })
}
