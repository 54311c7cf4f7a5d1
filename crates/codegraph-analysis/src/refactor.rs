//! Refactoring suggestions from metrics: length, cyclomatic complexity and nesting depth counted
//! on the syntax tree, parameter count, fan-in and fan-out from the graph; plus repository-wide
//! facts: import cycles (strongly connected components over file imports), dead code
//! and duplicated bodies.
//!
//! Every suggestion quotes the figures it is based on, so a reader can judge it.

use std::collections::BTreeSet;

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use tree_sitter::Node;

use super::communities::is_dependency;
use codegraph_graph::{Entity, EntityId, FileNode, FilePath, Graph, materialize};
use codegraph_model::{EntityKind, RelationKind};

mod suggest;

pub use suggest::suggest;

pub const LONG_FUNCTION_LINES: u32 = 50;
pub const COMPLEX_FUNCTION: u32 = 10;
pub const DEEP_NESTING: u32 = 4;
pub const MANY_PARAMETERS: u32 = 5;
pub const HIGH_FAN_OUT: usize = 15;
pub const GOD_CLASS_METHODS: usize = 20;
pub const GOD_CLASS_LINES: u32 = 500;
pub const LONG_MODULE_LINES: u32 = 1000;
/// How many copies of a duplicated body a suggestion names in its reason, and lists.
const DUPLICATES_NAMED: usize = 10;
const DUPLICATES_LISTED: usize = 100;
/// Bodies shorter than this (non-blank lines) are not reported as duplicates.
const DUPLICATE_MIN_LINES: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SuggestionKind {
    Extract,
    Rename,
    Move,
    Simplify,
    Inline,
    Remove,
}

impl SuggestionKind {
    pub fn parse(text: &str) -> Option<SuggestionKind> {
        Some(match text.trim().to_lowercase().as_str() {
            "extract" | "extract_method" | "extract_function" | "extract_class" => {
                SuggestionKind::Extract
            }
            "rename" => SuggestionKind::Rename,
            "move" => SuggestionKind::Move,
            "simplify" => SuggestionKind::Simplify,
            "inline" => SuggestionKind::Inline,
            "remove" | "delete" | "dead_code" => SuggestionKind::Remove,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Location {
    pub file: FilePath,
    pub start_line: u32,
    pub end_line: u32,
}

impl Location {
    fn of(entity: &Entity) -> Location {
        Location {
            file: entity.file_path,
            start_line: entity.start_line,
            end_line: entity.end_line,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    #[serde(rename = "type")]
    pub kind: SuggestionKind,
    pub reason: String,
    pub location: Location,
    /// 0..1: how sure the rule is (dead code behind dynamic dispatch is less sure).
    pub confidence: f64,
    /// For `move`: the directory to move to (the lowest common ancestor of the users).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Other entities or files the suggestion is about (the duplicate, the cycle's files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
}

/// Figures of one entity. Syntax figures are absent when the file could not be parsed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub lines: u32,
    /// 1 + the branch points in its body (for a type: summed over its body).
    pub cyclomatic_complexity: Option<u32>,
    pub max_nesting: Option<u32>,
    pub parameters: Option<u32>,
    /// Distinct entities that call or reference it.
    pub fan_in: usize,
    /// Distinct entities it calls or references.
    pub fan_out: usize,
    /// For types: methods and other members.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefactoringReport {
    pub entity: Entity,
    pub metrics: Metrics,
    pub suggestions: Vec<Suggestion>,
}

/// Facts that need the whole repository, computed once per snapshot.
#[derive(Debug, Clone, Default)]
pub struct RepoFacts {
    pub revision: u64,
    /// Strongly connected components of the file import graph with more than one file, each with
    /// one concrete cycle through them (first file repeated at the end).
    pub import_cycles: Vec<ImportCycle>,
    /// Entity → every entity with the same normalised body (itself included, sorted), one
    /// list shared by the group: a repository of n copies costs n, not n².
    pub duplicates: FxHashMap<EntityId, std::sync::Arc<[EntityId]>>,
    /// Entities that some ambiguous reference might reach.
    pub maybe_referenced: FxHashSet<EntityId>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportCycle {
    pub files: Vec<FilePath>,
    pub cycle: Vec<FilePath>,
}

pub fn repo_facts(graph: &Graph) -> RepoFacts {
    let mut maybe_referenced = FxHashSet::default();
    for file in graph.files() {
        codegraph_model::cancel::checkpoint();
        for ambiguous in &file.resolved.ambiguous {
            maybe_referenced.extend(ambiguous.candidates.iter().cloned());
        }
    }
    RepoFacts {
        revision: graph.revision(),
        import_cycles: import_cycles(graph),
        duplicates: duplicate_bodies(graph),
        maybe_referenced,
    }
}

/// Import cycles between files: the strongly connected components of `file imports file` edges.
pub fn import_cycles(graph: &Graph) -> Vec<ImportCycle> {
    let files: Vec<FilePath> = graph.files().map(|file| file.path).collect();
    let index_of: FxHashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(index, path)| (&**path, index))
        .collect();
    let mut successors: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for file in graph.files() {
        let from = index_of[&*file.path];
        for edge in &file.resolved.edges {
            if edge.kind != RelationKind::Imports {
                continue;
            }
            if let Some(target) = graph.location(&edge.to)
                && let Some(&to) = index_of.get(&*target.file)
                && to != from
            {
                successors[from].insert(to);
            }
        }
    }
    let successors: Vec<Vec<usize>> = successors
        .into_iter()
        .map(|set| set.into_iter().collect())
        .collect();
    let mut cycles: Vec<ImportCycle> = cyclic_components(&successors)
        .into_iter()
        .map(|mut component| {
            component.sort_by(|&left, &right| files[left].cmp(&files[right]));
            let cycle = one_cycle(&successors, &component)
                .into_iter()
                .map(|node| files[node])
                .collect();
            ImportCycle {
                files: component.iter().map(|&node| files[node]).collect(),
                cycle,
            }
        })
        .collect();
    cycles.sort_by(|left, right| left.files.cmp(&right.files));
    cycles
}

/// The strongly connected components of more than one node (the cycles) of the graph whose node
/// `n` has the successors `successors[n]`, each component's nodes in ascending order.
///
/// petgraph's Kosaraju, which is iterative: a deep import chain must not overflow the stack (its
/// recursive `tarjan_scc` does on a chain of a million files).
pub(crate) fn cyclic_components(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut graph: DiGraph<(), (), u32> = DiGraph::with_capacity(successors.len(), 0);
    for _ in successors {
        graph.add_node(());
    }
    for (from, nexts) in successors.iter().enumerate() {
        for &to in nexts {
            graph.add_edge(NodeIndex::new(from), NodeIndex::new(to), ());
        }
    }
    kosaraju_scc(&graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut nodes: Vec<usize> = component.into_iter().map(NodeIndex::index).collect();
            nodes.sort_unstable();
            nodes
        })
        .collect()
}

/// A shortest cycle through the component's first node, staying inside the component.
fn one_cycle(successors: &[Vec<usize>], component: &[usize]) -> Vec<usize> {
    let inside: FxHashSet<usize> = component.iter().copied().collect();
    let start = component[0];
    let mut previous: FxHashMap<usize, usize> = FxHashMap::default();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &next in &successors[node] {
            if !inside.contains(&next) {
                continue;
            }
            if next == start {
                let mut back = Vec::new();
                let mut current = node;
                while current != start {
                    back.push(current);
                    current = previous[&current];
                }
                back.reverse();
                let mut forward = vec![start];
                forward.extend(back);
                forward.push(start);
                return forward;
            }
            if let std::collections::hash_map::Entry::Vacant(entry) = previous.entry(next) {
                entry.insert(node);
                queue.push_back(next);
            }
        }
    }
    vec![start]
}

/// Function bodies that are the same text once whitespace is removed (and the name, so that
/// copies under another name count).
fn duplicate_bodies(graph: &Graph) -> FxHashMap<EntityId, std::sync::Arc<[EntityId]>> {
    let mut by_hash: FxHashMap<blake3::Hash, Vec<EntityId>> = FxHashMap::default();
    for file in graph.files() {
        codegraph_model::cancel::checkpoint();
        // Read (from disk, for a file no editor has open) only if some body is long enough.
        let mut text: Option<Option<std::sync::Arc<str>>> = None;
        for (index, def) in file.summary.defs.iter().enumerate() {
            if !matches!(def.kind, EntityKind::Function | EntityKind::Method) || {
                let span = file.summary.locate(def.span);
                span.end.line.saturating_sub(span.start.line) + 1 < DUPLICATE_MIN_LINES as u32
            } {
                continue;
            }
            let Some(text) = text.get_or_insert_with(|| file.text()) else {
                break;
            };
            let start = def.name_span.end_byte.max(def.span.start_byte) as usize;
            let end = (def.span.end_byte as usize).min(text.len());
            let Some(body) = text.get(start..end) else {
                continue;
            };
            if body.lines().filter(|line| !line.trim().is_empty()).count() < DUPLICATE_MIN_LINES {
                continue;
            }
            let normalised: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            by_hash
                .entry(blake3::hash(normalised.as_bytes()))
                .or_default()
                .push(file.ids[index]);
        }
    }
    let mut duplicates = FxHashMap::default();
    for mut group in by_hash.into_values().filter(|group| group.len() > 1) {
        group.sort();
        let group: std::sync::Arc<[EntityId]> = group.into();
        for id in group.iter() {
            duplicates.insert(*id, group.clone());
        }
    }
    duplicates
}

/// Node kinds that add a path through a function, across the grammars codegraph ships.
const BRANCH_KINDS: &[&str] = &[
    "if_statement",
    "if_expression",
    "if",
    "elif_clause",
    "elsif",
    "else_if_clause",
    "unless",
    "if_modifier",
    "unless_modifier",
    "for_statement",
    "for_in_statement",
    "for_of_statement",
    "enhanced_for_statement",
    "for_expression",
    "for",
    "foreach_statement",
    "for_each_statement",
    "while_statement",
    "while_expression",
    "while",
    "while_modifier",
    "until",
    "until_modifier",
    "do_statement",
    "do_while_statement",
    "loop_expression",
    "repeat_statement",
    "case_clause",
    "switch_case",
    "expression_case",
    "type_case",
    "communication_case",
    "match_arm",
    "when_entry",
    "switch_block_statement_group",
    "switch_rule",
    "switch_section",
    "case_item",
    "when",
    "catch_clause",
    "except_clause",
    "rescue",
    "conditional_expression",
    "ternary_expression",
    "conditional",
    "guard_statement",
    "elif_statement",
    "else_if",
];

/// Node kinds that open a nesting level.
const NESTING_KINDS: &[&str] = &[
    "if_statement",
    "if_expression",
    "if",
    "unless",
    "for_statement",
    "for_in_statement",
    "for_of_statement",
    "enhanced_for_statement",
    "for_expression",
    "for",
    "foreach_statement",
    "while_statement",
    "while_expression",
    "while",
    "until",
    "do_statement",
    "loop_expression",
    "repeat_statement",
    "switch_statement",
    "switch_expression",
    "match_expression",
    "match_statement",
    "case_statement",
    "when_expression",
    "try_statement",
    "try_expression",
    "with_statement",
    "case",
];

fn is_boolean_operator(node: Node<'_>) -> bool {
    if node.is_named() || !matches!(node.kind(), "&&" | "||" | "and" | "or") {
        return false;
    }
    node.parent().is_some_and(|parent| {
        matches!(
            parent.kind(),
            "binary_expression"
                | "boolean_operator"
                | "binary"
                | "conjunction_expression"
                | "disjunction_expression"
                | "binary_operator"
                | "logical_expression"
        )
    })
}

/// Counts branches and nesting under `node`, skipping the byte ranges of nested definitions
/// (they are entities of their own).
fn walk_complexity(
    node: Node<'_>,
    skip: &[(usize, usize)],
    depth: u32,
    branches: &mut u32,
    deepest: &mut u32,
) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if skip
            .iter()
            .any(|&(start, end)| child.start_byte() >= start && child.end_byte() <= end)
        {
            continue;
        }
        let kind = child.kind();
        // Only named nodes: a grammar's keyword tokens (`if`, `for`, `while`) share kind names
        // with Ruby's named nodes, and counting them would count each statement twice.
        if (child.is_named() && BRANCH_KINDS.contains(&kind)) || is_boolean_operator(child) {
            *branches += 1;
        }
        // `else if` is a chain, not a deeper level.
        let chained = matches!(kind, "if_statement" | "if_expression")
            && child
                .parent()
                .is_some_and(|parent| matches!(parent.kind(), "else_clause" | "else"));
        let nests = NESTING_KINDS.contains(&kind) && child.is_named() && !chained;
        let child_depth = if nests { depth + 1 } else { depth };
        *deepest = (*deepest).max(child_depth);
        walk_complexity(child, skip, child_depth, branches, deepest);
    }
}

/// Parameters from the signature: the top-level commas of its first parenthesised list, without
/// the receiver (`self`, `cls`, `this`).
pub fn parameter_count(signature: &str) -> Option<u32> {
    let open = signature.find('(')?;
    let mut depth = 0i32;
    let mut current = String::new();
    let mut parameters: Vec<String> = Vec::new();
    for character in signature[open..].chars() {
        match character {
            '(' | '[' | '<' | '{' => {
                depth += 1;
                if depth > 1 {
                    current.push(character);
                }
            }
            ')' | ']' | '>' | '}' => {
                depth -= 1;
                if depth == 0 {
                    parameters.push(std::mem::take(&mut current));
                    break;
                }
                current.push(character);
            }
            ',' if depth == 1 => parameters.push(std::mem::take(&mut current)),
            _ => current.push(character),
        }
    }
    let count = parameters
        .iter()
        .map(|parameter| parameter.trim())
        .filter(|parameter| {
            !parameter.is_empty()
                && !matches!(
                    *parameter,
                    "self" | "&self" | "&mut self" | "mut self" | "cls" | "this" | "void"
                )
        })
        .count();
    Some(count as u32)
}

/// Length, complexity, nesting, parameters, fan-in and fan-out of one entity.
pub fn metrics(graph: &Graph, entity: &Entity) -> Metrics {
    let lines = entity.end_line + 1 - entity.start_line;
    let fan_in: BTreeSet<&EntityId> = graph
        .incoming(&entity.id)
        .filter(|edge| is_dependency(edge.kind) && edge.from != entity.id)
        .map(|edge| &edge.from)
        .collect();
    let fan_out: BTreeSet<&EntityId> = graph
        .outgoing(&entity.id)
        .filter(|edge| is_dependency(edge.kind) && edge.to != entity.id)
        .map(|edge| &edge.to)
        .collect();
    let mut metrics = Metrics {
        lines,
        fan_in: fan_in.len(),
        fan_out: fan_out.len(),
        ..Metrics::default()
    };
    if entity.kind.is_type() {
        metrics.members = Some(
            graph
                .outgoing(&entity.id)
                .filter(|edge| matches!(edge.kind, RelationKind::Contains | RelationKind::Defines))
                .count(),
        );
    }
    if matches!(entity.kind, EntityKind::Function | EntityKind::Method) {
        metrics.parameters = entity.signature.as_deref().and_then(parameter_count);
    }
    if entity.kind == EntityKind::Module {
        return metrics;
    }
    let Some(file) = graph.file(&entity.file_path) else {
        return metrics;
    };
    let Some(tree) = file
        .text()
        .and_then(|text| codegraph_lang::syntax::parse(file.language, &text))
    else {
        return metrics;
    };
    if let Some((complexity, nesting)) = syntax_figures(graph, file, tree.root_node(), entity) {
        metrics.cyclomatic_complexity = Some(complexity);
        metrics.max_nesting = Some(nesting);
    }
    metrics
}

/// Cyclomatic complexity and deepest nesting of `entity`, found in its file's syntax tree.
fn syntax_figures(
    graph: &Graph,
    file: &FileNode,
    root: Node,
    entity: &Entity,
) -> Option<(u32, u32)> {
    let (start, end) = (
        entity.span.start_byte as usize,
        entity.span.end_byte as usize,
    );
    let node = root.descendant_for_byte_range(start, end)?;
    // Functions skip nested definitions; a type's figure sums its whole body.
    let skip: Vec<(usize, usize)> = if entity.kind.is_type() {
        Vec::new()
    } else {
        let own = graph
            .location(&entity.id)
            .and_then(|location| location.index);
        file.summary
            .defs
            .iter()
            .filter(|def| def.parent.is_some() && def.parent == own)
            .map(|def| (def.span.start_byte as usize, def.span.end_byte as usize))
            .collect()
    };
    let mut branches = 0;
    let mut deepest = 0;
    walk_complexity(node, &skip, 0, &mut branches, &mut deepest);
    Some((1 + branches, deepest))
}

/// The cyclomatic complexity of every function and method of a file, in document order,
/// parsing the file once. Empty when the file is not in the graph or cannot be parsed.
pub fn function_complexities(graph: &Graph, path: &str) -> Vec<(Entity, u32)> {
    let Some(file) = graph.file(path) else {
        return Vec::new();
    };
    let Some(tree) = file
        .text()
        .and_then(|text| codegraph_lang::syntax::parse(file.language, &text))
    else {
        return Vec::new();
    };
    (0..file.summary.defs.len() as u32)
        .filter(|&index| {
            matches!(
                file.summary.defs[index as usize].kind,
                EntityKind::Function | EntityKind::Method
            )
        })
        .filter_map(|index| {
            let entity = materialize(file, Some(index));
            let (complexity, _) = syntax_figures(graph, file, tree.root_node(), &entity)?;
            Some((entity, complexity))
        })
        .collect()
}

/// The deepest directory containing all of `paths` (`""` for the root).
pub fn lowest_common_directory<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let mut common: Option<Vec<&str>> = None;
    for path in paths {
        let parts: Vec<&str> = codegraph_graph::modules::directory(path)
            .split('/')
            .filter(|part| !part.is_empty())
            .collect();
        common = Some(match common {
            None => parts,
            Some(previous) => previous
                .iter()
                .zip(parts.iter())
                .take_while(|(left, right)| left == right)
                .map(|(left, _)| *left)
                .collect(),
        });
    }
    common.unwrap_or_default().join("/")
}

fn is_within(directory: &str, ancestor: &str) -> bool {
    ancestor.is_empty() || directory == ancestor || directory.starts_with(&format!("{ancestor}/"))
}

const ENTRY_NAMES: &[&str] = &[
    "main",
    "__init__",
    "__new__",
    "__main__",
    "__call__",
    "new",
    "default",
    "init",
    "setup",
    "setUp",
    "tearDown",
    "constructor",
    "run",
    "handler",
    "handle",
    "drop",
    "fmt",
    "from",
    "into",
];

fn is_entry_point(entity: &Entity) -> bool {
    let name = entity.name.as_str();
    let path = entity.file_path.to_lowercase();
    ENTRY_NAMES.contains(&name)
        || (name.starts_with("__") && name.ends_with("__"))
        || name.starts_with("test")
        || name.starts_with("Test")
        || name.ends_with("_test")
        || name.ends_with("Test")
        || path.contains("test")
        || path.contains("spec")
        || path.contains("example")
        || path.contains("bench")
}

/// Visible to other files: exported by the graph's rules (a top-level definition), published
/// by its language's visibility rules (`pub`, `export`, `public`, capitalisation, `__all__`:
/// [`super::visibility`]), and not `_private` by convention.
pub fn is_exported(graph: &Graph, entity: &Entity) -> bool {
    // `_name` is private by convention (Python, Dart, JavaScript modules).
    if entity.name.starts_with('_') && !entity.name.ends_with("__") {
        return false;
    }
    graph
        .named(&entity.name)
        .iter()
        .any(|entry| entry.id == entity.id && entry.exported)
        && super::visibility::is_published(graph, entity)
}

/// Whether a framework or the compiler may call it: decorators and attributes.
fn is_decorated(graph: &Graph, entity: &Entity) -> bool {
    let Some(file) = graph.file(&entity.file_path) else {
        return false;
    };
    let Some(text) = file.text() else {
        return false;
    };
    let source = text
        .get(entity.span.start_byte as usize..entity.span.end_byte as usize)
        .unwrap_or_default()
        .trim_start();
    let before = text
        .get(..entity.span.start_byte as usize)
        .unwrap_or_default();
    let previous_line = before
        .trim_end()
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .trim_start();
    source.starts_with('@')
        || source.starts_with("#[")
        || previous_line.starts_with('@')
        || previous_line.starts_with("#[")
}

fn overrides_something(graph: &Graph, entity: &Entity) -> bool {
    let Some(parent) = &entity.parent else {
        return false;
    };
    if !graph.kind_of(parent).is_some_and(EntityKind::is_type) {
        return false;
    }
    let mut seen = FxHashSet::default();
    let mut frontier = vec![*parent];
    while let Some(current) = frontier.pop() {
        for (base, _) in codegraph_graph::query::supertypes(graph, &current) {
            if !seen.insert(base.id) {
                continue;
            }
            if codegraph_graph::query::members(graph, &base.id)
                .iter()
                .any(|member| member.name == entity.name)
            {
                return true;
            }
            frontier.push(base.id);
        }
    }
    false
}

/// Why an entity looks unused, with a confidence; `None` if something uses it or it is an entry
/// point, a test, or a member of an interface.
pub fn dead_code_confidence(
    graph: &Graph,
    facts: &RepoFacts,
    entity: &Entity,
) -> Option<(f64, String)> {
    if entity.kind == EntityKind::Module || is_entry_point(entity) {
        return None;
    }
    let referenced = graph.incoming(&entity.id).any(|edge| {
        !matches!(edge.kind, RelationKind::Contains | RelationKind::Defines)
            && edge.from != entity.id
    });
    if referenced {
        return None;
    }
    if let Some(parent) = &entity.parent
        && matches!(
            graph.kind_of(parent),
            Some(EntityKind::Interface | EntityKind::Trait)
        )
    {
        return None;
    }
    let mut confidence: f64 = 0.9;
    let mut notes = vec!["no resolved calls, uses or imports".to_string()];
    if is_exported(graph, entity) {
        confidence = confidence.min(0.6);
        notes.push("exported, so code outside the repository may use it".to_string());
    } else {
        notes.push("not exported".to_string());
    }
    if entity.kind == EntityKind::Method {
        confidence *= 0.8;
        notes.push("a method, which dynamic dispatch may reach".to_string());
        if overrides_something(graph, entity) {
            confidence = confidence.min(0.2);
            notes.push("it overrides a base type's method".to_string());
        }
    }
    if facts.maybe_referenced.contains(&entity.id) {
        confidence = confidence.min(0.3);
        notes.push(format!(
            "an ambiguous reference to `{}` may reach it",
            entity.name
        ));
    }
    if is_decorated(graph, entity) {
        confidence = confidence.min(0.3);
        notes.push("decorated, so a framework may call it".to_string());
    }
    Some(((confidence * 100.0).round() / 100.0, notes.join("; ")))
}

/// Every entity that looks unused, most certain first.
pub fn dead_code(graph: &Graph, facts: &RepoFacts) -> Vec<(Entity, f64, String)> {
    let mut found = Vec::new();
    for file in graph.files() {
        for index in 0..file.summary.defs.len() as u32 {
            let entity = materialize(file, Some(index));
            if let Some((confidence, reason)) = dead_code_confidence(graph, facts, &entity) {
                found.push((entity, confidence, reason));
            }
        }
    }
    found.sort_by(|left, right| {
        right
            .1
            .total_cmp(&left.1)
            .then_with(|| left.0.id.cmp(&right.0.id))
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_counted_from_signatures() {
        assert_eq!(
            parameter_count("def f(self, a, b: Dict[str, int] = {})"),
            Some(2)
        );
        assert_eq!(
            parameter_count("fn new(&mut self, x: Vec<(u8, u8)>) -> Self"),
            Some(1)
        );
        assert_eq!(parameter_count("int main(void)"), Some(0));
        assert_eq!(parameter_count("class A"), None);
    }

    #[test]
    fn strongly_connected_components_find_cycles() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3
        let successors = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![3]];
        let mut components = cyclic_components(&successors);
        components.sort();
        assert_eq!(components, [vec![0, 1, 2], vec![3, 4]]);
        assert_eq!(one_cycle(&successors, &[0, 1, 2]), [0, 1, 2, 0]);
        assert_eq!(one_cycle(&successors, &[3, 4]), [3, 4, 3]);
    }

    #[test]
    fn lowest_common_directory_of_users() {
        assert_eq!(
            lowest_common_directory(["app/billing/a.py", "app/billing/tax/b.py"]),
            "app/billing"
        );
        assert_eq!(lowest_common_directory(["app/a.py", "lib/b.py"]), "");
        assert!(is_within("app/util", "app"));
        assert!(!is_within("app/util", "app/billing"));
    }
}
