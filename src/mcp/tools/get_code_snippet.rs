//! One entity's source text with lines around it: `get_code_snippet`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolResult;
use crate::mcp::convert::{self};
use crate::mcp::{CodegraphMcp, resolve_for_tool};

fn default_context_lines() -> u32 {
    5
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SnippetParams {
    /// The entity whose source to return. Also accepted as `entity_name`.
    #[serde(alias = "entity_name", alias = "function_name", alias = "name")]
    pub entity_id: String,
    /// Also return the lines around the entity (in `context`). Default true.
    #[serde(default = "super::default_true")]
    pub include_context: bool,
    /// How many lines of context before and after. Default 5, at most 50.
    #[serde(default = "default_context_lines")]
    pub context_lines: u32,
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
    /// Exactly the entity's source text.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<SnippetContext>,
}

#[tool_router(router = get_code_snippet_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "The source code of one entity (function, method, class, module), exactly as in the file, with its location. With include_context (default true) also the `context_lines` lines around it. Prefer this to read_file_content when you know the entity.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_code_snippet(
        &self,
        Parameters(params): Parameters<SnippetParams>,
    ) -> ToolResult<SnippetResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let source = convert::entity_source(&graph, &entity);
        let context = if params.include_context {
            graph.file(&entity.file_path).map(|file| {
                let around = params.context_lines.min(50);
                let (text, start_line, end_line) = convert::line_range(
                    &file.text,
                    entity.start_line.saturating_sub(around),
                    entity.end_line.saturating_add(around),
                );
                SnippetContext {
                    start_line,
                    end_line,
                    text,
                }
            })
        } else {
            None
        };
        Ok(Json(SnippetResult {
            entity_id: entity.id.to_string(),
            name: entity.name.to_string(),
            kind: entity.kind.to_string(),
            file_path: entity.file_path.to_string(),
            start_line: entity.start_line,
            end_line: entity.end_line,
            language: entity.language.name().to_string(),
            source,
            context,
        }))
    }
}
