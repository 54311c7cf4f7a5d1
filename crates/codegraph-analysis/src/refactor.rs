//! Refactoring suggestions from metrics: length, cyclomatic complexity and nesting depth counted
//! on the syntax tree, parameter count, fan-in and fan-out from the graph; plus repository-wide
//! facts: import cycles (strongly connected components over file imports) and duplicated
//! bodies (`refactor/facts.rs`), and dead code (`refactor/dead.rs`).
//!
//! Every suggestion quotes the figures it is based on, so a reader can judge it.

use std::collections::BTreeSet;

use serde::Serialize;
use tree_sitter::Node;

use super::communities::is_dependency;
use codegraph_graph::{Entity, EntityId, FileNode, FilePath, Graph, materialize};
use codegraph_model::{EntityKind, RelationKind};

mod dead;
mod facts;
mod suggest;

pub use dead::{dead_code, dead_code_confidence, is_exported};
use dead::{is_entry_point, overrides_something};
pub(crate) use facts::cyclic_components;
pub use facts::{ImportCycle, RepoFacts, import_cycles, repo_facts};
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
