//! The MCP tools: typed parameters in, typed JSON out, each a thin adapter over a graph query.
//!
//! One file per tool under `tools/` (its parameters, its result, its handler), registered in
//! one table, [`router`]; what every tool shares (the result type, running analysis off the
//! runtime, finding a file, argument spellings) is here.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Json;
use rmcp::model::CallToolResult;

use super::{CodegraphMcp, tool_error};
use crate::analysis::modules;
use crate::graph::{FilePath, Graph};

/// What a tool function returns: typed JSON, or an `isError` result for the AI to read.
pub type ToolResult<T> = Result<Json<T>, CallToolResult>;

pub mod analyze_module_structure;
pub mod check_architecture;
pub mod execute_shell_command;
pub mod find_callees;
pub mod find_callers;
pub mod find_dependencies;
pub mod find_implementations;
pub mod get_code_snippet;
pub mod get_file_structure;
pub mod global_search;
pub mod local_search;
pub mod query_codebase;
pub mod read_file_content;
pub mod reindex_repository;
pub mod suggest_refactoring;

/// Every tool, registered in one table.
pub(crate) fn router() -> ToolRouter<CodegraphMcp> {
    CodegraphMcp::find_callers_router()
        + CodegraphMcp::find_callees_router()
        + CodegraphMcp::find_implementations_router()
        + CodegraphMcp::get_code_snippet_router()
        + CodegraphMcp::read_file_content_router()
        + CodegraphMcp::get_file_structure_router()
        + CodegraphMcp::analyze_module_structure_router()
        + CodegraphMcp::find_dependencies_router()
        + CodegraphMcp::query_codebase_router()
        + CodegraphMcp::global_search_router()
        + CodegraphMcp::local_search_router()
        + CodegraphMcp::suggest_refactoring_router()
        + CodegraphMcp::reindex_repository_router()
        + CodegraphMcp::execute_shell_command_router()
        + CodegraphMcp::check_architecture_router()
}

fn default_depth() -> u32 {
    2
}

fn default_limit() -> usize {
    20
}

fn default_true() -> bool {
    true
}

/// Finds the file a client meant (see [`modules::find_file`]); failure is an `isError` result.
fn resolve_file(graph: &Graph, text: &str) -> Result<FilePath, CallToolResult> {
    modules::find_file(graph, text).map_err(|closest| {
        tool_error(serde_json::json!({
            "error": "File not found",
            "file_path": text,
            "message": "not an indexed file; paths are relative to the repository root",
            "closest": closest,
        }))
    })
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Runs analysis work off the async runtime: it can take seconds on a large repository.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> ToolResult<T> + Send + 'static,
) -> ToolResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| {
            Err(tool_error(serde_json::json!({
                "error": "Analysis failed",
                "message": error.to_string(),
            })))
        })
}

/// Names one argument goes by, the first of each group being the usual one. A client may send
/// two spellings of one argument together (`limit` and `max_results`).
const SPELLINGS: &[&[&str]] = &[
    &[
        "entity_id",
        "entity_name",
        "function_name",
        "interface_name",
        "name",
    ],
    &["limit", "max_results"],
    &["depth", "max_depth"],
    &["file_path", "module_path", "path"],
    &["working_directory", "cwd"],
    &["community_level", "level"],
    &["type", "refactoring_type"],
];

/// Keeps one spelling of each argument given under several names when they agree; refuses
/// them, naming both, when they differ (serde alone would say "duplicate field").
pub(crate) fn merge_spellings(
    arguments: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<(), String> {
    for group in SPELLINGS {
        let present: Vec<&str> = group
            .iter()
            .copied()
            .filter(|name| arguments.contains_key(*name))
            .collect();
        let Some((first, others)) = present.split_first() else {
            continue;
        };
        for other in others {
            if arguments[*first] != arguments[*other] {
                return Err(format!(
                    "`{first}` and `{other}` name the same argument and differ ({} vs {}): give one",
                    arguments[*first], arguments[*other]
                ));
            }
            arguments.remove(*other);
        }
    }
    Ok(())
}
