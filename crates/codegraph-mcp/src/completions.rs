//! Completions (`completion/complete`) for prompt arguments and resource-template variables:
//! entity ids, file paths and community ids from the graph, and the few fixed choices some
//! prompt arguments have. What a client types so far is the prefix; the answer lists at most
//! 100 values, best first, with the total.

use rmcp::model::{ArgumentInfo, CompletionInfo, Reference};

use codegraph_analysis::communities::Communities;
use codegraph_graph::Graph;
use codegraph_graph::query;

/// What an argument completes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completes {
    EntityId,
    /// Comma-separated entity ids or names: the last one is completed.
    EntityList,
    FilePath,
    CommunityId,
    Choices(&'static [&'static str]),
    Nothing,
}

/// The kind of value `argument` of the prompt or resource template `reference` takes.
pub fn completes(reference: &Reference, argument: &str) -> Completes {
    match reference {
        Reference::Prompt(prompt) => match (prompt.name.as_str(), argument) {
            (_, "entity_id" | "entity_name" | "function_name") => Completes::EntityId,
            ("implement_feature", "related_entities") => Completes::EntityList,
            ("explain_codebase", "depth") => Completes::Choices(&["overview", "detailed"]),
            ("test_generation", "test_type") => Completes::Choices(&["unit", "integration"]),
            ("code_review", "focus") => Completes::Choices(&[
                "correctness",
                "security",
                "performance",
                "readability",
                "error handling",
                "tests",
            ]),
            ("refactor_guidance", "goal") => Completes::Choices(&[
                "improve testability",
                "split responsibilities",
                "reduce complexity",
                "remove duplication",
            ]),
            _ => Completes::Nothing,
        },
        Reference::Resource(template) => match (template.uri.as_str(), argument) {
            (uri, "entity_id") if uri.starts_with("codegraph://entities/") => Completes::EntityId,
            (uri, "file_path") if uri.starts_with("codegraph://files/") => Completes::FilePath,
            (uri, "community_id") if uri.starts_with("codegraph://communities/") => {
                Completes::CommunityId
            }
            _ => Completes::Nothing,
        },
        _ => Completes::Nothing,
    }
}

/// The completion of `argument`. `communities` is asked for only when a community id is being
/// completed (computing them takes time on a large repository).
pub fn complete(
    graph: &Graph,
    reference: &Reference,
    argument: &ArgumentInfo,
    communities: impl FnOnce() -> std::sync::Arc<Communities>,
) -> CompletionInfo {
    let typed = argument.value.as_str();
    let found = match completes(reference, &argument.name) {
        Completes::EntityId => entity_ids(graph, typed),
        Completes::EntityList => {
            let (done, last) = match typed.rsplit_once(',') {
                Some((done, last)) => (format!("{done}, "), last.trim_start()),
                None => (String::new(), typed),
            };
            entity_ids(graph, last)
                .into_iter()
                .map(|id| format!("{done}{id}"))
                .collect()
        }
        Completes::FilePath => file_paths(graph, typed),
        Completes::CommunityId => communities()
            .communities
            .iter()
            .filter(|community| community.member_count > 1)
            .map(|community| community.id.to_string())
            .filter(|id| id.starts_with(typed))
            .collect(),
        Completes::Choices(choices) => choices
            .iter()
            .filter(|choice| choice.starts_with(&typed.to_lowercase()))
            .map(|choice| choice.to_string())
            .collect(),
        Completes::Nothing => Vec::new(),
    };
    let total = found.len();
    let values: Vec<String> = found.into_iter().take(CompletionInfo::MAX_VALUES).collect();
    let has_more = total > values.len();
    CompletionInfo::with_pagination(values, Some(total as u32), has_more)
        .expect("at most MAX_VALUES values")
}

/// Entity ids for what was typed: the ids of a file's entities after `path::`, else file paths
/// (module ids) starting with it, then the ids of symbols whose names match it (prefix, camel
/// humps, subsequence: `query::symbols`).
fn entity_ids(graph: &Graph, typed: &str) -> Vec<String> {
    if let Some((path, _)) = typed.split_once("::") {
        return graph
            .file_entities(path)
            .into_iter()
            .map(|entity| entity.id.to_string())
            .filter(|id| id.starts_with(typed))
            .collect();
    }
    let mut found = file_paths(graph, typed);
    if !typed.is_empty() {
        for symbol in query::symbols(graph, typed, CompletionInfo::MAX_VALUES) {
            let id = symbol.entity.id.to_string();
            if !found.contains(&id) {
                found.push(id);
            }
        }
    }
    found
}

/// File paths starting with what was typed, then those containing it.
fn file_paths(graph: &Graph, typed: &str) -> Vec<String> {
    let mut starting = Vec::new();
    let mut containing = Vec::new();
    for file in graph.files() {
        if file.path.starts_with(typed) {
            starting.push(file.path.to_string());
        } else if file.path.contains(typed) {
            containing.push(file.path.to_string());
        }
    }
    starting.extend(containing);
    starting
}
