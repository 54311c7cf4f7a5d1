//! A file of the repository, or a line range of it: `read_file_content`.

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Provenance, ToolResult, provenance};
use crate::convert;
use crate::paths::{self, PathError};
use crate::resources;
use crate::{CodegraphMcp, tool_error};
use codegraph_graph::Graph;
use codegraph_world::World;
use codegraph_world::walk::ReadRefusal;
use codegraph_world::work::Weight;

/// At most this many bytes of a file come back from `read_file_content`.
pub const MAX_READ_BYTES: usize = 256 * 1024;

/// Without an `end_line`, at most this many lines come back (with a link to the rest).
pub const DEFAULT_READ_LINES: u32 = 1000;

/// How much of a file that is not in the graph `read_file_content` reads from disk at most.
pub const MAX_DISK_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileParams {
    /// Relative to the repository root (or absolute, inside it).
    #[serde(alias = "path")]
    pub file_path: String,
    /// Default 1.
    pub start_line: Option<u32>,
    /// Inclusive. Default: 1,000 lines from `start_line`.
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
    /// True when lines were left out (past the default 1,000 lines, or the 256 KiB limit):
    /// continue with `start_line: next_start_line`.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<u32>,
    /// The lines left out, as a resource (`codegraph://files/{path}#L{first}-L{last}`), for a
    /// file the graph holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest_uri: Option<String>,
    pub provenance: Provenance,
}

#[tool_router(router = read_file_content_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Read a file inside the repository, or lines `start_line`..=`end_line` (one-based). At most 1,000 lines without `end_line` and 256 KiB (`truncated`: continue at `next_start_line` or read `rest_uri`).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_file_content(
        &self,
        Parameters(params): Parameters<ReadFileParams>,
        cancel: CancellationToken,
    ) -> Result<Json<ReadFileResult>, CallToolResult> {
        let world = self.world.clone();
        self.work(Weight::Cheap, &cancel, move || read(&world, params))
            .await
    }
}

fn read(world: &World, params: ReadFileParams) -> ToolResult<ReadFileResult> {
    let file = resolve(world, &params.file_path)?;
    let graph = world.snapshot();
    let FileText { text, cut_on_disk } = file_text(&graph, &file, &params.file_path)?;
    let total_lines = text.lines().count() as u32;
    check_range(&params, total_lines)?;
    let first = params.start_line.unwrap_or(1).max(1);
    let last = params
        .end_line
        .unwrap_or_else(|| first.saturating_add(DEFAULT_READ_LINES - 1))
        .min(total_lines);
    let (mut content, first, mut last) = convert::line_range(&text, first, last);
    let mut truncated =
        (cut_on_disk && last == total_lines) || (params.end_line.is_none() && last < total_lines);
    if cut_to_byte_limit(&mut content) {
        last = first + content.lines().count() as u32 - 1;
        truncated = true;
    }
    let in_graph = graph.file(&file.relative).is_some();
    let more = truncated && last < total_lines;
    let wanted_last = params.end_line.unwrap_or(total_lines).min(total_lines);
    let provenance = provenance(world, &graph, [file.relative.as_str()]);
    Ok(Json(ReadFileResult {
        content,
        lines: convert::lines_label(first, last),
        total_lines,
        truncated,
        next_start_line: more.then_some(last + 1),
        rest_uri: (more && in_graph).then(|| {
            resources::file_lines_uri(&file.relative, last + 1, wanted_last.max(last + 1))
        }),
        file: file.relative,
        provenance,
    }))
}

/// The file `file_path` names, inside the workspace.
fn resolve(world: &World, file_path: &str) -> Result<paths::WorkspaceFile, CallToolResult> {
    paths::resolve_in_workspace(world.root(), file_path).map_err(|error| {
        let kind = match error {
            PathError::Outside(_) => "Access denied",
            PathError::NotFound(_) => "File not found",
        };
        tool_error(serde_json::json!({
            "error": kind,
            "file_path": file_path,
            "message": error.to_string(),
        }))
    })
}

/// A file's text, and whether the disk read stopped at [`MAX_DISK_BYTES`].
struct FileText {
    text: String,
    cut_on_disk: bool,
}

/// The graph's text of `file` (an editor's unsaved buffer), else the disk's.
fn file_text(
    graph: &Graph,
    file: &paths::WorkspaceFile,
    file_path: &str,
) -> Result<FileText, CallToolResult> {
    if let Some(text) = graph.file(&file.relative).and_then(|node| node.text()) {
        return Ok(FileText {
            text: text.to_string(),
            cut_on_disk: false,
        });
    }
    // Bounded: the binary check reads 8 KiB, and no file costs more than the limit.
    let (bytes, cut) =
        codegraph_world::walk::read_prefix(&file.absolute, MAX_DISK_BYTES).map_err(|refusal| {
            let error = match refusal {
                ReadRefusal::Binary => "Binary file",
                ReadRefusal::NotRegular => "Not a regular file",
                ReadRefusal::Io(_) => "File not found",
            };
            tool_error(serde_json::json!({
                "error": error,
                "file_path": file_path,
                "message": refusal.to_string(),
            }))
        })?;
    Ok(FileText {
        text: codegraph_lang::syntax::decode_lossy(bytes),
        cut_on_disk: cut,
    })
}

/// Refuses a start after the end, or past the end of the file.
fn check_range(params: &ReadFileParams, total_lines: u32) -> Result<(), CallToolResult> {
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
    Ok(())
}

/// Cuts `content` to at most [`MAX_READ_BYTES`], on a whole line when there is one; whether it
/// cut.
fn cut_to_byte_limit(content: &mut String) -> bool {
    if content.len() <= MAX_READ_BYTES {
        return false;
    }
    let mut cut = MAX_READ_BYTES;
    while !content.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(newline) = content[..cut].rfind('\n') {
        cut = newline + 1;
    }
    content.truncate(cut);
    true
}
