//! A file of the repository, or a line range of it: `read_file_content`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolResult;
use crate::mcp::convert::{self};
use crate::mcp::paths::{self, PathError};
use crate::mcp::{CodegraphMcp, tool_error};
use crate::world::walk::ReadRefusal;

/// At most this many bytes of a file come back from `read_file_content`.
pub const MAX_READ_BYTES: usize = 256 * 1024;

/// How much of a file that is not in the graph `read_file_content` reads from disk at most.
pub const MAX_DISK_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileParams {
    /// A path relative to the repository root (or absolute, inside it).
    #[serde(alias = "path")]
    pub file_path: String,
    /// First line to return (one-based). Default 1.
    pub start_line: Option<u32>,
    /// Last line to return (inclusive). Default: the end of the file.
    pub end_line: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadFileResult {
    /// The path relative to the repository root.
    pub file: String,
    pub content: String,
    /// The lines actually returned, `"first-last"`.
    pub lines: String,
    pub total_lines: u32,
    /// True when the content was cut at the size limit; ask for a later `start_line`.
    pub truncated: bool,
}

#[tool_router(router = read_file_content_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Read a file of the repository, optionally only lines start_line..=end_line (one-based). Only files inside the repository can be read. Large files are cut at 256 KiB (`truncated` is then true; continue with a later start_line); only the first 16 MiB of a file can be read.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_file_content(
        &self,
        Parameters(params): Parameters<ReadFileParams>,
    ) -> ToolResult<ReadFileResult> {
        let file =
            paths::resolve_in_workspace(self.world.root(), &params.file_path).map_err(|error| {
                let kind = match error {
                    PathError::Outside(_) => "Access denied",
                    PathError::NotFound(_) => "File not found",
                };
                tool_error(serde_json::json!({
                    "error": kind,
                    "file_path": params.file_path,
                    "message": error.to_string(),
                }))
            })?;
        // The graph holds the live text (an editor's unsaved buffer); the disk otherwise.
        let graph = self.world.snapshot();
        let mut disk_cut = false;
        let text: String = match graph.file(&file.relative) {
            Some(node) => node.text.to_string(),
            None => {
                // Bounded: the binary check reads 8 KiB, and no file costs more than the limit.
                let (bytes, cut) = crate::world::walk::read_prefix(&file.absolute, MAX_DISK_BYTES)
                    .map_err(|refusal| {
                        let error = match refusal {
                            ReadRefusal::Binary => "Binary file",
                            ReadRefusal::NotRegular => "Not a regular file",
                            ReadRefusal::Io(_) => "File not found",
                        };
                        tool_error(serde_json::json!({
                            "error": error,
                            "file_path": params.file_path,
                            "message": refusal.to_string(),
                        }))
                    })?;
                disk_cut = cut;
                crate::syntax::decode_lossy(bytes)
            }
        };
        let total_lines = text.lines().count() as u32;
        let range_error = |message: String| {
            tool_error(serde_json::json!({
                "error": "Line out of range",
                "file_path": params.file_path,
                "total_lines": total_lines,
                "message": message,
            }))
        };
        if let (Some(start), Some(end)) = (params.start_line, params.end_line)
            && start > end
        {
            return Err(range_error(format!(
                "start_line {start} is after end_line {end}"
            )));
        }
        if let Some(start) = params.start_line
            && start > total_lines.max(1)
        {
            return Err(range_error(format!(
                "start_line {start} is past the end of the file ({total_lines} lines)"
            )));
        }
        let first = params.start_line.unwrap_or(1).max(1);
        let last = params.end_line.unwrap_or(total_lines).min(total_lines);
        let (mut content, first, mut last) = convert::line_range(&text, first, last);
        let mut truncated = disk_cut && last == total_lines;
        if content.len() > MAX_READ_BYTES {
            let mut cut = MAX_READ_BYTES;
            while !content.is_char_boundary(cut) {
                cut -= 1;
            }
            // End on a whole line when there is one.
            if let Some(newline) = content[..cut].rfind('\n') {
                cut = newline + 1;
            }
            content.truncate(cut);
            last = first + content.lines().count() as u32 - 1;
            truncated = true;
        }
        Ok(Json(ReadFileResult {
            file: file.relative,
            content,
            lines: convert::lines_label(first, last),
            total_lines,
            truncated,
        }))
    }
}
