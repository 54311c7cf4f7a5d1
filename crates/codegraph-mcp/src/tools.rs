//! The MCP tools: typed parameters in, typed JSON out, each a thin adapter over a graph query.
//!
//! One file per tool under `tools/` (its parameters, its result, its handler), registered in
//! one table, [`router`]; what every tool shares is here: the trust stamp every result carries
//! ([`Provenance`], and [`CallProvenance`] with the references left aside), the paging of lists
//! ([`Page`]), finding a file, and argument spellings.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Json;
use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Serialize;

use super::{CodegraphMcp, tool_error};
use crate::toolset::{SHELL_TOOL, ToolSet, lean_definition};
use codegraph_analysis::modules;
use codegraph_graph::query::{LeftAside, PossibleCall};
use codegraph_graph::{FilePath, Graph};
use codegraph_world::{Stamp, World};

/// What a tool function returns: typed JSON, or an `isError` result for the AI to read.
pub type ToolResult<T> = Result<Json<T>, CallToolResult>;

pub mod analyze_module_structure;
pub mod check_architecture;
pub mod execute_shell_command;
pub mod find_affected_tests;
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

/// The tools of `set` (and the shell tool when `shell` is enabled), registered in one table,
/// their definitions lean ([`crate::toolset::lean_definition`]).
pub(crate) fn router(set: &ToolSet, shell: bool) -> ToolRouter<CodegraphMcp> {
    let mut router = every_tool();
    router.map.retain(|name, _| {
        if name == SHELL_TOOL {
            shell
        } else {
            set.contains(name)
        }
    });
    for route in router.map.values_mut() {
        lean_definition(&mut route.attr);
    }
    router
}

/// Every tool.
fn every_tool() -> ToolRouter<CodegraphMcp> {
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
        + CodegraphMcp::find_affected_tests_router()
}

/// What an answer rests on, on every tool result.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct Provenance {
    /// The graph revision the answer was read from (it grows with every change).
    pub revision: u64,
    /// Files of this answer open in the editor with unsaved edits: the answer follows the
    /// editor's text, not the disk's.
    pub unsaved_files: Vec<String>,
    /// Files of this answer that changed on disk since codegraph read them (and are not open
    /// in an editor): the answer follows the older text; `reindex_repository` catches up.
    pub stale_files: Vec<String>,
    /// Files of this answer that codegraph failed to read (an internal error, contained to
    /// the file): what the answer says of them is incomplete. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_files: Vec<String>,
}

impl From<Stamp> for Provenance {
    fn from(stamp: Stamp) -> Provenance {
        let strings = |files: Vec<FilePath>| files.iter().map(ToString::to_string).collect();
        Provenance {
            revision: stamp.revision,
            unsaved_files: strings(stamp.unsaved_files),
            stale_files: strings(stamp.stale_files),
            failed_files: strings(stamp.failed_files),
        }
    }
}

/// The stamp of an answer read from `graph` that rests on `files`.
pub(crate) fn provenance<'a>(
    world: &World,
    graph: &Graph,
    files: impl IntoIterator<Item = &'a str>,
) -> Provenance {
    Provenance::from(world.stamp(graph, files))
}

/// The stamp of callers, callees and implementations: the revision, the unsaved and stale
/// files, and the references left aside, so that "none" and "none proven" read differently.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallProvenance {
    #[serde(flatten)]
    pub stamp: Provenance,
    /// References that may reach the entity but are no edges: `ambiguous` (several definitions
    /// fit the name; `candidates` lists them) or `unresolved` (no definition was found for the
    /// name by the language's rules, though definitions of that name exist). An empty list of
    /// results with entries here means "none proven", not "none". At most 10 of them, from the
    /// answer's `offset`.
    pub possible: Vec<PossibleCallEntry>,
    /// How many references were left aside in all.
    pub possible_total: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PossibleCallEntry {
    /// The entity the reference is in (for a base, the inheriting type or its member).
    pub from: String,
    pub file_path: String,
    pub line: u32,
    /// The name as written.
    pub name: String,
    /// What it was called on, as written, when anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    /// The definitions the name could mean (at most 10; `candidates_total` says how many).
    pub candidates: Vec<String>,
    pub candidates_total: usize,
    /// `ambiguous` or `unresolved`.
    pub reason: String,
}

/// Candidates listed per reference left aside.
const MAX_LISTED_CANDIDATES: usize = 10;
/// References left aside listed per answer (a page of them, with the answer's `offset`).
const MAX_LISTED_POSSIBLE: usize = 10;

impl From<PossibleCall> for PossibleCallEntry {
    fn from(call: PossibleCall) -> PossibleCallEntry {
        PossibleCallEntry {
            from: call.from.to_string(),
            file_path: call.file.to_string(),
            line: call.line,
            name: call.name.to_string(),
            receiver: call.receiver.map(|receiver| receiver.to_string()),
            candidates: call
                .candidates
                .iter()
                .take(MAX_LISTED_CANDIDATES)
                .map(ToString::to_string)
                .collect(),
            candidates_total: call.candidates.len(),
            reason: call.reason.as_str().to_string(),
        }
    }
}

/// [`CallProvenance`] over `files` (the answer's) plus the files of the references left aside
/// that are listed: those from `offset`, at most `limit` and ten.
pub(crate) fn call_provenance<'a>(
    world: &World,
    graph: &Graph,
    files: impl IntoIterator<Item = &'a str>,
    mut possible: Vec<PossibleCall>,
    offset: usize,
    limit: usize,
) -> CallProvenance {
    // Ambiguous ones first: they name the entity; unresolved ones only share its name.
    possible.sort_by_key(|call| call.reason == LeftAside::Unresolved);
    let possible_total = possible.len();
    let possible: Vec<PossibleCall> = possible
        .into_iter()
        .skip(offset)
        .take(limit.min(MAX_LISTED_POSSIBLE))
        .collect();
    let mut read: Vec<&str> = files.into_iter().collect();
    read.extend(possible.iter().map(|call| &*call.file));
    let stamp = provenance(world, graph, read);
    CallProvenance {
        stamp,
        possible: possible.into_iter().map(PossibleCallEntry::from).collect(),
        possible_total,
    }
}

/// How much of a list came back, on every result that lists.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Page {
    /// How many there are in all.
    pub total: usize,
    /// The position of the first one returned (zero-based).
    pub offset: usize,
    /// True when more exist than were returned: call again with `offset: next_offset`.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// How to get the rest, when anything was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Page {
    /// The page of `returned` items from `offset` among `total`; `noun` names the items in the
    /// hint ("callers").
    pub fn of(
        total: usize,
        offset: usize,
        returned: usize,
        limit: usize,
        max_limit: usize,
        noun: &str,
    ) -> Page {
        let start = offset.min(total);
        let end = start + returned;
        let truncated = end < total;
        let hint = truncated.then(|| {
            format!(
                "showing {noun} {}-{end} of {total}; call again with offset {end} for the next {limit}, or a larger limit (at most {max_limit})",
                start + 1
            )
        });
        Page {
            total,
            offset: start,
            truncated,
            next_offset: truncated.then_some(end),
            hint,
        }
    }
}

/// Items `offset..offset + limit` of `items`, and the page that says so.
pub(crate) fn paginate<T>(
    items: Vec<T>,
    offset: usize,
    limit: usize,
    max_limit: usize,
    noun: &str,
) -> (Vec<T>, Page) {
    let total = items.len();
    let kept: Vec<T> = items.into_iter().skip(offset).take(limit).collect();
    let page = Page::of(total, offset, kept.len(), limit, max_limit, noun);
    (kept, page)
}

fn default_depth() -> u32 {
    2
}

fn default_limit() -> usize {
    20
}

/// Items a listing tool returns when no `limit` is given, and the most it returns.
pub const DEFAULT_LIST_LIMIT: usize = 50;
pub const MAX_LIST_LIMIT: usize = 1000;

fn default_list_limit() -> usize {
    DEFAULT_LIST_LIMIT
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    #[test]
    fn the_sets_name_exactly_the_tools_there_are() {
        let routed: BTreeSet<String> = super::every_tool()
            .map
            .keys()
            .map(ToString::to_string)
            .collect();
        let named: BTreeSet<String> = crate::toolset::all_tools().map(String::from).collect();
        assert_eq!(routed, named);
    }
}
