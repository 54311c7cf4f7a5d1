//! The MCP tools: typed parameters in, typed JSON out, each a thin adapter over a graph query.

use std::collections::BTreeMap;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::convert::{self, EntitySummary};
use super::paths::{self, PathError};
use super::{CodegraphMcp, resolve_for_tool, tool_error};
use crate::analysis;
use crate::analysis::modules;
use crate::graph::query;
use crate::graph::{Entity, FilePath, Graph};
use crate::world::walk::ReadRefusal;

/// What a tool function returns: typed JSON, or an `isError` result for the AI to read.
pub type ToolResult<T> = Result<Json<T>, CallToolResult>;

/// At most this many bytes of a file come back from `read_file_content`.
pub const MAX_READ_BYTES: usize = 256 * 1024;
/// How much of a file that is not in the graph `read_file_content` reads from disk at most.
pub const MAX_DISK_BYTES: u64 = 16 * 1024 * 1024;

fn default_one() -> u32 {
    1
}
fn default_depth() -> u32 {
    2
}
fn default_limit() -> usize {
    20
}
fn default_context_lines() -> u32 {
    5
}
fn default_true() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallsParams {
    /// The function or method: an id (`path/to/file.py::Class.method`), a qualified name or a
    /// plain name. Also accepted as `function_name` or `entity_name`.
    #[serde(alias = "function_name", alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// How many hops to follow (1 = direct only). Default 1, at most 10.
    #[serde(default = "default_one")]
    pub max_depth: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallNeighbour {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// 1 for a direct caller/callee, 2 for the next hop, ...
    pub depth: u32,
    /// The entity this one was reached from.
    pub via: String,
    /// Lines (one-based) of the calls between the two.
    pub call_lines: Vec<u32>,
    /// How the call was resolved: `scope`, `same_file`, `import`, `receiver_type`, `dispatch`
    /// (through an interface or base member), `same_package`, `qualified`, `unique_name` (a
    /// guess: the only definition of that name the caller can see).
    pub resolution: String,
}

/// What an answer rests on: the graph revision, the files with unsaved editor edits among
/// those it reads, and the references left aside because their target is ambiguous.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Provenance {
    /// The graph revision the answer was read from (it grows with every change).
    pub revision: u64,
    /// Files of this answer open in the editor with unsaved edits: the answer follows the
    /// editor's text, not the disk's.
    pub unsaved_files: Vec<String>,
    /// References that may be calls but are no edges (several definitions fit the name): an
    /// empty list of calls with possible ones here means "none proven", not "none".
    pub possible: Vec<PossibleCallEntry>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PossibleCallEntry {
    /// The entity the reference is in.
    pub from: String,
    pub file_path: String,
    pub line: u32,
    /// The name as written.
    pub name: String,
    /// Every definition the name could mean.
    pub candidates: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallersResult {
    pub entity: EntitySummary,
    pub callers: Vec<CallNeighbour>,
    pub provenance: Provenance,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CalleesResult {
    pub entity: EntitySummary,
    pub callees: Vec<CallNeighbour>,
    pub provenance: Provenance,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ImplementationsParams {
    /// The interface, abstract class, base class or trait (or a method of one, for its
    /// overrides). Also accepted as `interface_name` or `entity_name`.
    #[serde(alias = "interface_name", alias = "entity_name", alias = "name")]
    pub entity_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImplementationsResult {
    pub entity: EntitySummary,
    pub implementations: Vec<Implementation>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Implementation {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// How the relation is known: the resolution of the declared base (`import`, `same_file`,
    /// ...), or `method_set` when inferred (a Go type whose methods cover the interface's).
    pub resolution: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SnippetParams {
    /// The entity whose source to return. Also accepted as `entity_name`.
    #[serde(alias = "entity_name", alias = "function_name", alias = "name")]
    pub entity_id: String,
    /// Also return the lines around the entity (in `context`). Default true.
    #[serde(default = "default_true")]
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

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FileParams {
    /// A path relative to the repository root, as in entity ids. Also accepted as
    /// `module_path`; a module's id or dotted name works too.
    #[serde(alias = "module_path", alias = "path")]
    pub file_path: String,
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
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportEntry {
    /// The module or file specifier as written.
    pub module: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    pub line: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ModuleStructureResult {
    pub file: String,
    pub language: String,
    pub line_count: u32,
    pub entities: Vec<StructureEntry>,
    /// Import statements as written.
    pub imports: Vec<ImportEntry>,
    /// Top-level definitions other files use, most referenced first.
    pub exported_api: Vec<ExportEntry>,
    /// The other public top-level definitions: no other file references them (public: exported
    /// by the language's module rules and not `_private`; visibility keywords are not read).
    pub unused_exports: Vec<EntitySummary>,
    /// Files this file depends on (resolved calls, imports, uses, inheritance).
    pub dependencies: Vec<String>,
    /// Files that depend on this one.
    pub dependents: Vec<String>,
    pub metrics: ModuleMetricsEntry,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ExportEntry {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// Resolved references from other files to it or to anything inside it.
    pub references: usize,
    /// The files those references come from.
    pub used_by: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ModuleMetricsEntry {
    pub lines: u32,
    /// Definitions by kind (function, class, method, ...).
    pub entities_by_kind: BTreeMap<String, usize>,
    /// Functions and methods measured.
    pub functions: usize,
    /// Cyclomatic complexity summed over the functions and methods.
    pub total_complexity: u32,
    pub max_complexity: u32,
    /// The id of the function or method with max_complexity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub most_complex: Option<String>,
    /// Other files that depend on this one.
    pub fan_in: usize,
    /// Other files this one depends on.
    pub fan_out: usize,
    pub in_import_cycle: bool,
    /// A shortest import cycle through the file (the file at both ends); empty when none.
    pub import_cycle: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Who depends on the entity (incoming edges). Also accepted as `incoming`.
    #[serde(alias = "incoming")]
    Upstream,
    /// What the entity depends on (outgoing edges). Also accepted as `outgoing`.
    #[serde(alias = "outgoing")]
    Downstream,
    #[default]
    Both,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DependenciesParams {
    /// The entity. Also accepted as `entity_name`.
    #[serde(alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// upstream (dependents; also `incoming`), downstream (dependencies; also `outgoing`) or
    /// both. Default both.
    #[serde(default)]
    pub direction: Direction,
    /// How many hops to follow. Default 2, at most 10.
    #[serde(default = "default_depth", alias = "max_depth")]
    pub depth: u32,
    /// Which code to list and walk through: `production_first` (default: everything, production
    /// code first at each depth), `all`, or classes, comma-separated (`production` leaves the
    /// tests out): production, test, fixture, example, generated, vendored.
    #[serde(default)]
    pub filter: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DependencyEntry {
    #[serde(flatten)]
    pub entity: EntitySummary,
    pub depth: u32,
    /// `downstream` (a dependency) or `upstream` (a dependent).
    pub direction: String,
    /// The edge kind that reached it: calls, imports, uses, extends or implements.
    pub relation: String,
    pub via: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DependenciesResult {
    pub entity: EntitySummary,
    pub entities: Vec<DependencyEntry>,
    pub total_dependencies: usize,
}

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
    /// Plain words or a symbol name. Matched (BM25, stemmed) against the words of entity names,
    /// qualified names, paths, signatures and docstrings; exact and prefix name matches rank
    /// first.
    pub query: String,
    /// all, functions (functions and methods), classes (types) or files (modules).
    #[serde(default)]
    pub scope: Scope,
    /// Maximum number of results. Default 20, at most 100.
    #[serde(default = "default_limit", alias = "max_results")]
    pub limit: usize,
    /// Which code: `production_first` (default: everything, production code ranked above tests,
    /// examples, fixtures, generated and vendored code of similar relevance), `all` (relevance
    /// alone), or classes, comma-separated: production, test, fixture, example, generated,
    /// vendored.
    #[serde(default)]
    pub filter: Option<String>,
}

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
    pub total_count: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReindexParams {
    /// Only re-parse files whose content changed (default true); false re-parses everything.
    #[serde(default = "default_true")]
    pub incremental: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReindexResult {
    pub files: usize,
    pub entities: usize,
    pub relations: usize,
    pub parsed: usize,
    pub from_cache: usize,
    pub removed: usize,
    /// Seconds.
    pub duration: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellParams {
    /// The command line: a program and its arguments, split like a shell would (quotes
    /// respected) but run without one: no pipes, redirections, `;`, variables or globs.
    pub command: String,
    /// Seconds before the command (and every process it started) is killed. Default 30, at
    /// most 600.
    pub timeout: Option<u32>,
    /// A directory inside the repository to run in (default: the repository root).
    #[serde(alias = "cwd")]
    pub working_directory: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ShellResult {
    /// The exit code; -1 when the command was killed (`timed_out` says whether by the timeout).
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The argv that ran.
    pub argv: Vec<String>,
    pub timed_out: bool,
    /// stdout or stderr was cut at 64 KiB.
    pub truncated: bool,
}

/// The call lines and resolution between a reached entity and the one it was reached from,
/// as `query::callers`/`callees` of the latter report them (dispatch and build twins included).
fn call_between(graph: &Graph, reached: &str, via: &str, incoming: bool) -> (Vec<u32>, String) {
    let calls = if incoming {
        query::callers(graph, via)
    } else {
        query::callees(graph, via)
    };
    calls
        .into_iter()
        .find(|call| &*call.entity.id == reached)
        .map(|call| (call.call_lines, call.resolution.to_string()))
        .unwrap_or_default()
}

/// The provenance of a callers (`incoming`) or callees answer.
fn provenance(
    world: &crate::world::World,
    graph: &Graph,
    entity: &Entity,
    neighbours: &[CallNeighbour],
    incoming: bool,
) -> Provenance {
    let possible = if incoming {
        query::possible_callers(graph, &entity.id)
    } else {
        query::possible_callees(graph, &entity.id)
    };
    let mut files: std::collections::BTreeSet<&str> = neighbours
        .iter()
        .map(|neighbour| neighbour.entity.file_path.as_str())
        .collect();
    files.insert(&entity.file_path);
    let unsaved_files = world
        .unsaved_files()
        .into_iter()
        .filter(|path| files.contains(&**path))
        .map(|path| path.to_string())
        .collect();
    Provenance {
        revision: graph.revision(),
        unsaved_files,
        possible: possible
            .into_iter()
            .map(|call| PossibleCallEntry {
                from: call.from.to_string(),
                file_path: call.file.to_string(),
                line: call.line,
                name: call.name.to_string(),
                candidates: call.candidates.iter().map(ToString::to_string).collect(),
            })
            .collect(),
    }
}

fn call_neighbours(
    graph: &Graph,
    entity: &Entity,
    incoming: bool,
    depth: u32,
) -> Vec<CallNeighbour> {
    query::call_closure(graph, &entity.id, incoming, depth.clamp(1, 10))
        .into_iter()
        .map(|reached| {
            let (call_lines, resolution) =
                call_between(graph, &reached.entity.id, &reached.via, incoming);
            CallNeighbour {
                entity: EntitySummary::from(&reached.entity),
                depth: reached.depth,
                via: reached.via.to_string(),
                call_lines,
                resolution,
            }
        })
        .collect()
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

fn structure_entries(outline: &[modules::OutlineEntry]) -> Vec<StructureEntry> {
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

fn paths(files: &[FilePath]) -> Vec<String> {
    files.iter().map(|file| file.to_string()).collect()
}

impl From<modules::ModuleStructure> for ModuleStructureResult {
    fn from(module: modules::ModuleStructure) -> ModuleStructureResult {
        let metrics = &module.metrics;
        ModuleStructureResult {
            file: module.file.to_string(),
            language: module.language.name().to_string(),
            line_count: metrics.lines,
            entities: structure_entries(&module.entities),
            imports: module
                .imports
                .iter()
                .map(|import| ImportEntry {
                    module: import.module.to_string(),
                    name: import.name.as_ref().map(ToString::to_string),
                    alias: import.alias.as_ref().map(ToString::to_string),
                    line: import.line,
                })
                .collect(),
            exported_api: module
                .exported_api
                .iter()
                .map(|export| ExportEntry {
                    entity: EntitySummary::from(&export.entity),
                    references: export.references,
                    used_by: paths(&export.used_by),
                })
                .collect(),
            unused_exports: module
                .unused_exports
                .iter()
                .map(EntitySummary::from)
                .collect(),
            dependencies: paths(&module.dependencies),
            dependents: paths(&module.dependents),
            metrics: ModuleMetricsEntry {
                lines: metrics.lines,
                entities_by_kind: metrics.entities_by_kind.clone(),
                functions: metrics.functions,
                total_complexity: metrics.total_complexity,
                max_complexity: metrics.max_complexity,
                most_complex: metrics.most_complex.as_ref().map(ToString::to_string),
                fan_in: metrics.fan_in,
                fan_out: metrics.fan_out,
                in_import_cycle: metrics.in_import_cycle,
                import_cycle: paths(&metrics.import_cycle),
            },
        }
    }
}

fn search_scope(scope: Scope) -> analysis::search::SearchScope {
    match scope {
        Scope::All => analysis::search::SearchScope::All,
        Scope::Functions => analysis::search::SearchScope::Functions,
        Scope::Classes => analysis::search::SearchScope::Classes,
        Scope::Files => analysis::search::SearchScope::Files,
    }
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

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobalSearchParams {
    /// The question, in plain words.
    pub query: String,
    /// 0 = fine-grained communities (a narrow area, often one file), 1 = subsystems ("how does
    /// authentication work"), 2 = coarsest. Default: chosen from the question.
    #[serde(default, alias = "level")]
    pub community_level: Option<u8>,
    /// Which code: `production_first` (default: everything, production code ranked above tests,
    /// examples, fixtures, generated and vendored code of similar relevance), `all` (relevance
    /// alone), or classes, comma-separated: production, test, fixture, example, generated,
    /// vendored.
    #[serde(default)]
    pub filter: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CommunityMatch {
    pub id: u32,
    pub name: String,
    pub level: u8,
    /// 0..1.
    pub relevance: f64,
    pub member_count: usize,
    pub summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SupportingEntry {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file: String,
    pub start_line: u32,
    /// The community (at the searched level) it belongs to.
    pub community: Option<u32>,
    pub relevance: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GlobalSearchResult {
    pub query: String,
    /// Extractive: assembled from community summaries, names, locations and docstrings.
    pub answer: String,
    pub community_level: u8,
    pub communities_searched: usize,
    /// 0..1: the relevance of the best community.
    pub confidence: f64,
    pub relevant_communities: Vec<CommunityMatch>,
    pub supporting_entities: Vec<SupportingEntry>,
}

impl From<analysis::rag::GlobalAnswer> for GlobalSearchResult {
    fn from(answer: analysis::rag::GlobalAnswer) -> GlobalSearchResult {
        GlobalSearchResult {
            query: answer.query,
            answer: answer.answer,
            community_level: answer.community_level,
            communities_searched: answer.communities_searched,
            confidence: answer.confidence,
            relevant_communities: answer
                .relevant_communities
                .into_iter()
                .map(|community| CommunityMatch {
                    id: community.id,
                    name: community.name,
                    level: community.level,
                    relevance: community.relevance,
                    member_count: community.member_count,
                    summary: community.summary,
                })
                .collect(),
            supporting_entities: answer
                .supporting_entities
                .into_iter()
                .map(|support| SupportingEntry {
                    id: support.entity.id.to_string(),
                    name: support.entity.name.to_string(),
                    kind: support.entity.kind.to_string(),
                    file: support.entity.file_path.to_string(),
                    start_line: support.entity.start_line,
                    community: support.community,
                    relevance: support.relevance,
                })
                .collect(),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LocalSearchParams {
    /// The question, in plain words.
    pub query: String,
    /// The entity to start from: an id, a qualified name or a plain name. Also accepted as
    /// `entity_name`.
    #[serde(default, alias = "entity_name")]
    pub entity_id: Option<String>,
    /// More start entities (or instead of entity_id).
    #[serde(default)]
    pub context_entities: Vec<String>,
    /// Hops to walk. Default 2, at most 4.
    #[serde(default = "default_depth", alias = "max_depth")]
    pub depth: u32,
    /// Maximum relevant entities. Default 20, at most 100.
    #[serde(default = "default_limit", alias = "max_results")]
    pub limit: usize,
    /// Which code: `production_first` (default: everything, production code ranked above tests,
    /// examples, fixtures, generated and vendored code of similar relevance), `all` (relevance
    /// alone), or classes, comma-separated: production, test, fixture, example, generated,
    /// vendored.
    #[serde(default)]
    pub filter: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LocalEntry {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file: String,
    pub start_line: u32,
    /// 0..1: relevance to the query and closeness together.
    pub relevance: f64,
    /// Hops from the nearest start entity.
    pub distance: u32,
    /// How it was reached: calls, called_by, contains, contained_in, imports, imported_by,
    /// uses, used_by, extends, extended_by, implements, implemented_by.
    pub relation: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RelationshipEntry {
    pub source: String,
    pub target: String,
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LocalSearchResult {
    pub query: String,
    pub answer: String,
    pub start_entity: String,
    pub context_entities: Vec<String>,
    pub entities_searched: usize,
    pub confidence: f64,
    pub relevant_entities: Vec<LocalEntry>,
    pub relationships: Vec<RelationshipEntry>,
}

impl From<analysis::rag::LocalAnswer> for LocalSearchResult {
    fn from(answer: analysis::rag::LocalAnswer) -> LocalSearchResult {
        LocalSearchResult {
            query: answer.query,
            answer: answer.answer,
            start_entity: answer.start_entity.to_string(),
            context_entities: answer
                .context_entities
                .iter()
                .map(|id| id.to_string())
                .collect(),
            entities_searched: answer.entities_searched,
            confidence: answer.confidence,
            relevant_entities: answer
                .relevant_entities
                .into_iter()
                .map(|relevant| LocalEntry {
                    id: relevant.entity.id.to_string(),
                    name: relevant.entity.name.to_string(),
                    kind: relevant.entity.kind.to_string(),
                    file: relevant.entity.file_path.to_string(),
                    start_line: relevant.entity.start_line,
                    relevance: relevant.relevance,
                    distance: relevant.distance,
                    relation: relevant.relation,
                })
                .collect(),
            relationships: answer
                .relationships
                .into_iter()
                .map(|relationship| RelationshipEntry {
                    source: relationship.source.to_string(),
                    target: relationship.target.to_string(),
                    kind: relationship.kind.to_string(),
                })
                .collect(),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RefactoringParams {
    /// The entity: an id, a qualified name, a plain name, or a file path for a module. Also
    /// accepted as `entity_name`.
    #[serde(alias = "entity_name", alias = "name")]
    pub entity_id: String,
    /// Only suggestions of this type: extract, rename, move, simplify, inline, remove (or
    /// general / omitted for all). Also accepted as `refactoring_type`.
    #[serde(default, rename = "type", alias = "refactoring_type")]
    pub kind: Option<String>,
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
}

#[tool_router(vis = "pub(crate)")]
impl CodegraphMcp {
    #[tool(
        description = "Who calls a function or method. Use it to see how something is used, or what a change to it would affect. Accepts an entity id (`path/file.py::Class.method`), a qualified name or a plain name; an ambiguous name fails and lists candidate ids. `max_depth` > 1 follows callers of callers (default 1: direct callers only). Each caller comes with the lines of its calls.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_callers(
        &self,
        Parameters(params): Parameters<CallsParams>,
    ) -> ToolResult<CallersResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let callers = call_neighbours(&graph, &entity, true, params.max_depth);
        let provenance = provenance(&self.world, &graph, &entity, &callers, true);
        Ok(Json(CallersResult {
            entity: EntitySummary::from(&entity),
            callers,
            provenance,
        }))
    }

    #[tool(
        description = "What a function or method calls (resolved calls only). Use it to understand what a function does or depends on before reading its callees' code. Same entity naming as find_callers; `max_depth` > 1 follows callees of callees (default 1).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn find_callees(
        &self,
        Parameters(params): Parameters<CallsParams>,
    ) -> ToolResult<CalleesResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let callees = call_neighbours(&graph, &entity, false, params.max_depth);
        let provenance = provenance(&self.world, &graph, &entity, &callees, false);
        Ok(Json(CalleesResult {
            entity: EntitySummary::from(&entity),
            callees,
            provenance,
        }))
    }

    #[tool(
        description = "Types that implement or extend an interface, trait, abstract or base class, transitively; for a method, the overriding methods in those types. Use it to find the concrete code behind an abstraction.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_implementations(
        &self,
        Parameters(params): Parameters<ImplementationsParams>,
    ) -> ToolResult<ImplementationsResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let implementations = query::implementations_resolved(&graph, &entity.id)
            .iter()
            .map(|(found, resolution)| Implementation {
                entity: EntitySummary::from(found),
                resolution: resolution.to_string(),
            })
            .collect();
        Ok(Json(ImplementationsResult {
            entity: EntitySummary::from(&entity),
            implementations,
        }))
    }

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

    #[tool(
        description = "An outline of one file: every class, function and method with its id, kind, line range, nesting depth and signature. Use it to get ids for the other tools and to see a file's shape without reading it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_file_structure(
        &self,
        Parameters(params): Parameters<FileParams>,
    ) -> ToolResult<FileStructureResult> {
        let graph = self.world.snapshot();
        let path = resolve_file(&graph, &params.file_path)?;
        let node = graph.file(&path).expect("resolved file exists");
        Ok(Json(FileStructureResult {
            file: path.to_string(),
            language: node.language.name().to_string(),
            line_count: node.summary.line_count,
            entities: structure_entries(&modules::outline(&graph, &path)),
        }))
    }

    #[tool(
        description = "How a module (file) fits in the codebase: what it defines (with lines), what it imports, its exported API (top-level definitions other files use, with reference counts and the using files; `unused_exports` lists public ones nobody outside uses), which files it depends on and which depend on it (resolved calls, imports, uses, inheritance), and metrics (lines, definitions by kind, total and maximum cyclomatic complexity, file fan-in and fan-out, whether it is in an import cycle). Use it before changing a module's interface.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn analyze_module_structure(
        &self,
        Parameters(params): Parameters<FileParams>,
    ) -> ToolResult<ModuleStructureResult> {
        let world = self.world.clone();
        blocking(move || {
            let graph = world.snapshot();
            let path = resolve_file(&graph, &params.file_path)?;
            let module =
                modules::analyze_module_structure(&graph, &path).expect("resolved file exists");
            Ok(Json(ModuleStructureResult::from(module)))
        })
        .await
    }

    #[tool(
        description = "Entities an entity depends on (downstream: what it calls, imports, uses, extends, implements) and/or that depend on it (upstream), up to `depth` hops (default 2). Use it for impact analysis: what breaks if this changes, what must exist for this to work.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_dependencies(
        &self,
        Parameters(params): Parameters<DependenciesParams>,
    ) -> ToolResult<DependenciesResult> {
        let graph = self.world.snapshot();
        let entity = resolve_for_tool(&graph, &params.entity_id)?;
        let direction = match params.direction {
            Direction::Upstream => modules::Direction::Upstream,
            Direction::Downstream => modules::Direction::Downstream,
            Direction::Both => modules::Direction::Both,
        };
        let filter = convert::file_filter(params.filter.as_deref())?;
        let entries: Vec<DependencyEntry> =
            modules::find_dependencies_filtered(&graph, &entity, direction, params.depth, filter)
                .into_iter()
                .map(|dependency| DependencyEntry {
                    entity: EntitySummary::from(&dependency.entity),
                    depth: dependency.depth,
                    direction: dependency.direction.as_str().to_string(),
                    relation: dependency.relation.to_string(),
                    via: dependency.via.to_string(),
                })
                .collect();
        Ok(Json(DependenciesResult {
            entity: EntitySummary::from(&entity),
            total_dependencies: entries.len(),
            entities: entries,
        }))
    }

    #[tool(
        description = "Search entities by meaning of their words: plain words (\"authentication handler\", \"parse config file\") or a symbol name. Ranks classes, functions, methods and files by how well their names (split into words: camelCase, snake_case), qualified names, paths, signatures and docstrings match, stemmed (authenticate ~ authentication); exact and prefix name matches first, then names that say what the question says, adjacent words as a phrase, and code much depended on. Production code ranks above tests, examples, fixtures, generated and vendored code (each result has its `class`); `filter` changes that (`all`, or classes such as `test`). `scope` narrows to functions, classes or files. Relevance is 0..1.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    pub async fn query_codebase(
        &self,
        Parameters(params): Parameters<QueryParams>,
    ) -> ToolResult<QueryResult> {
        let world = self.world.clone();
        let limit = params.limit.clamp(1, 100);
        blocking(move || {
            let graph = world.snapshot();
            let filter = convert::file_filter(params.filter.as_deref())?;
            let index = world.analysis().search_index(&graph);
            let options =
                analysis::search::SearchOptions::new(&graph, search_scope(params.scope), limit);
            let results = index.search_with(&params.query, &options.with_filter(filter));
            let entities = results
                .hits
                .iter()
                .filter_map(|hit| {
                    Some(QueryMatch {
                        entity: EntitySummary::from(&graph.entity(&hit.id)?),
                        relevance: round2(hit.relevance),
                        class: hit.class.to_string(),
                    })
                })
                .collect();
            Ok(Json(QueryResult {
                entities,
                total_count: results.total_count,
            }))
        })
        .await
    }

    #[tool(
        description = "Answer a big-picture question about the codebase (\"how does authentication work?\", \"where are payments handled?\") from its communities: groups of closely connected code found by community detection (Leiden) over calls, imports, containment and inheritance. Ranks communities by how well their entities match the question and answers extractively: the best community's summary (main entities, what it depends on, what uses it, docstrings) and the matching entities with locations. Communities are found over production code, with tests and other code attached to what they exercise, and named after their directory and central entities. community_level 0 = fine-grained (a narrow area, often one file), 1 = subsystems, 2 = coarsest; by default the level is chosen from the question (the finest at which one community holds most of the best matches). `filter` as in query_codebase. Read `codegraph://communities/{id}` for a community's members.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn global_search(
        &self,
        Parameters(params): Parameters<GlobalSearchParams>,
    ) -> ToolResult<GlobalSearchResult> {
        let world = self.world.clone();
        blocking(move || {
            let graph = world.snapshot();
            let index = world.analysis().search_index(&graph);
            let communities = world.analysis().communities(&graph);
            let options = analysis::rag::GlobalOptions {
                level: params.community_level.map(|level| level.min(2) as usize),
                filter: convert::file_filter(params.filter.as_deref())?,
            };
            let answer =
                analysis::rag::global_search(&graph, &index, &communities, &params.query, &options);
            Ok(Json(GlobalSearchResult::from(answer)))
        })
        .await
    }

    #[tool(
        description = "Answer a question about one entity's surroundings (\"how is this class used?\", \"what does this touch in the database?\"): follows what `entity_id` (or several `context_entities`) uses first — what its methods call, its fields' and parameters' types, bases and implementations — up to `depth` hops (default 2), then who uses it, and ranks what it reaches by relevance to the query and by how it was reached, production code first (`filter` as in query_codebase). Returns an extractive answer, the relevant entities with how each was reached, and the relationships among them.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn local_search(
        &self,
        Parameters(params): Parameters<LocalSearchParams>,
    ) -> ToolResult<LocalSearchResult> {
        let world = self.world.clone();
        blocking(move || {
            let graph = world.snapshot();
            let mut names: Vec<String> = params.entity_id.clone().into_iter().collect();
            names.extend(params.context_entities.iter().cloned());
            if names.is_empty() {
                return Err(tool_error(serde_json::json!({
                    "error": "No start entity",
                    "message": "give entity_id or context_entities (ids, qualified names or plain names)",
                })));
            }
            let mut starts: Vec<Entity> = Vec::new();
            for name in &names {
                let entity = resolve_for_tool(&graph, name)?;
                if !starts.iter().any(|start| start.id == entity.id) {
                    starts.push(entity);
                }
            }
            let index = world.analysis().search_index(&graph);
            let options = analysis::rag::LocalOptions {
                depth: params.depth.clamp(1, 4),
                limit: params.limit.clamp(1, 100),
                filter: convert::file_filter(params.filter.as_deref())?,
            };
            let answer =
                analysis::rag::local_search(&graph, &index, &params.query, &starts, &options);
            Ok(Json(LocalSearchResult::from(answer)))
        })
        .await
    }

    #[tool(
        description = "Refactoring suggestions for one entity, each with a type (extract, rename, move, simplify, inline, remove), a reason quoting the figures, a location and a confidence. Figures: length, cyclomatic complexity and nesting depth (from the syntax tree), parameter count, fan-in and fan-out (from the graph); also duplicated bodies, dead code (nothing references it; confidence lower when exported, a method, or reachable by an ambiguous reference), god classes, and, for a module (file path), the import cycles it is part of. A `move` names the lowest common directory of the entity's users. `type` keeps only one kind.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn suggest_refactoring(
        &self,
        Parameters(params): Parameters<RefactoringParams>,
    ) -> ToolResult<RefactoringResult> {
        let world = self.world.clone();
        blocking(move || {
            let graph = world.snapshot();
            let entity = resolve_for_tool(&graph, &params.entity_id)?;
            let only = match params.kind.as_deref() {
                None | Some("") | Some("general") | Some("all") => None,
                Some(text) => Some(analysis::refactor::SuggestionKind::parse(text).ok_or_else(|| {
                    tool_error(serde_json::json!({
                        "error": "Unknown refactoring type",
                        "type": text,
                        "known": ["extract", "rename", "move", "simplify", "inline", "remove", "general"],
                    }))
                })?),
            };
            let facts = world.analysis().repo_facts(&graph);
            let report = analysis::refactor::suggest(&graph, &facts, &entity, only);
            Ok(Json(RefactoringResult {
                entity: report.entity.id.to_string(),
                name: report.entity.name.to_string(),
                kind: report.entity.kind.to_string(),
                file_path: report.entity.file_path.to_string(),
                metrics: serde_json::to_value(&report.metrics).unwrap_or_default(),
                suggestions: report
                    .suggestions
                    .iter()
                    .map(|suggestion| SuggestionEntry {
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
                    })
                    .collect(),
            }))
        })
        .await
    }

    #[tool(
        description = "Re-read the repository from disk and update the graph: incremental (default) re-parses only changed files; incremental=false re-parses everything. Use it after files changed outside an editor connected to codegraph.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn reindex_repository(
        &self,
        Parameters(params): Parameters<ReindexParams>,
    ) -> ToolResult<ReindexResult> {
        let world = self.world.clone();
        let report =
            tokio::task::spawn_blocking(move || world.index(!params.incremental, &|_, _| {}))
                .await
                .map_err(|error| {
                    tool_error(
                        serde_json::json!({ "error": "Index error", "message": error.to_string() }),
                    )
                })?;
        Ok(Json(ReindexResult {
            files: report.files,
            entities: report.entities,
            relations: report.relations,
            parsed: report.parsed,
            from_cache: report.from_cache,
            removed: report.removed,
            duration: report.duration_ms / 1000.0,
        }))
    }

    #[tool(
        description = "Run a program in the repository and return its exit code, stdout and stderr (e.g. `git status`, `cargo test -p foo`). DISABLED unless the server was started with --allow-shell and a list of programs; only those programs run, without a shell (no pipes, redirections or `;`), interpreters with inline code (`python -c`, `sh -c`, `node -e`, ...) are refused, the directory must be inside the repository, and the command is killed after `timeout` seconds. Prefer the graph tools and read_file_content for reading code.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn execute_shell_command(
        &self,
        Parameters(params): Parameters<ShellParams>,
        extensions: rmcp::model::Extensions,
    ) -> ToolResult<ShellResult> {
        let refuse = |error: &str, message: String| {
            tool_error(serde_json::json!({
                "error": error,
                "command": params.command,
                "message": message,
            }))
        };
        let Some(policy) = &self.shell else {
            return Err(refuse(
                "Shell commands are disabled",
                "This server does not run shell commands. An operator can enable them by starting it with --allow-shell PROG,PROG (for example `codegraph serve --allow-shell git,cargo`). Use the graph tools and read_file_content instead.".to_string(),
            ));
        };
        if super::http::Scope::of_request(&extensions)
            .is_some_and(|scope| scope != super::http::Scope::Shell)
        {
            return Err(refuse(
                "Forbidden",
                "This HTTP client's token does not carry the shell scope.".to_string(),
            ));
        }
        let directory = paths::resolve_directory_in_workspace(
            self.world.root(),
            params.working_directory.as_deref().unwrap_or("."),
        )
        .map_err(|error| refuse("Access denied", error.to_string()))?;
        let argv = super::shell::check(
            policy,
            &params.command,
            self.world.root(),
            &directory.absolute,
        )
        .map_err(|refusal| {
            tool_error(serde_json::json!({
                "error": "Command refused",
                "rule": refusal.rule,
                "command": params.command,
                "message": refusal.message,
            }))
        })?;
        let timeout = params
            .timeout
            .map(|seconds| std::time::Duration::from_secs(seconds.max(1) as u64))
            .unwrap_or(super::shell::DEFAULT_TIMEOUT)
            .min(super::shell::MAX_TIMEOUT);
        let outcome = super::shell::run(argv, &directory.absolute, timeout)
            .await
            .map_err(|message| refuse("Command failed to start", message))?;
        Ok(Json(ShellResult {
            exit_code: outcome.exit_code.unwrap_or(-1),
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            argv: outcome.argv,
            timed_out: outcome.timed_out,
            truncated: outcome.truncated,
        }))
    }
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
