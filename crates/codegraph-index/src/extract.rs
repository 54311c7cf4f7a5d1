//! Extraction of one file, whole: the query run over the syntax tree, the summary built from its
//! captures, inside the file's boundary (`contain`). Also the steps that depend on the
//! language beyond the query: Rust's `#[cfg]`-disabled items and `#[path]` modules.

use codegraph_lang::Language;
use tree_sitter::{Node, Tree};

use crate::build::build;
use crate::captures::{RawCaptures, run_query};
use crate::{Captures, FileSummary, PathModule, Problem, rust_path};

/// Syntax errors reported for one file, at most.
const MAX_PROBLEMS: usize = 20;

/// Whether an extraction keeps a copy of its captures for the next edit's re-extraction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// An editor buffer's extraction: the captures are kept (a copy: `build` consumes its own).
    Captures,
    /// Everything else: only the summary.
    SummaryOnly,
}

/// Parses and extracts in one step.
pub fn extract_text(language: Language, text: &str) -> (FileSummary, Option<Tree>) {
    match codegraph_lang::syntax::parse(language, text) {
        Some(tree) => (extract(language, text, &tree), Some(tree)),
        None => {
            let mut summary = FileSummary::empty(language, text);
            summary.problems.push(Problem {
                line: 0,
                message: format!("the {} grammar could not be loaded", language.name()),
            });
            (summary, None)
        }
    }
}

/// Extracts the summary of one parsed file.
pub fn extract(language: Language, text: &str, tree: &Tree) -> FileSummary {
    extract_with(language, text, tree, Keep::SummaryOnly).0
}

/// Extracts a file and keeps the captures for [`reextract`].
pub fn extract_keeping(language: Language, text: &str, tree: &Tree) -> (FileSummary, Captures) {
    extract_with(language, text, tree, Keep::Captures)
}

/// Extracts a file, keeping its captures when `keep` asks.
fn extract_with(
    language: Language,
    text: &str,
    tree: &Tree,
    keep: Keep,
) -> (FileSummary, Captures) {
    contained(language, text, || {
        extract_unguarded(language, text, tree, keep)
    })
}

/// Runs one file's extraction at the file's boundary (`contain`): a panic in it leaves the
/// file a summary that says so, and nothing else.
pub(crate) fn contained(
    language: Language,
    text: &str,
    work: impl FnOnce() -> (FileSummary, Captures),
) -> (FileSummary, Captures) {
    let work = || {
        codegraph_model::contain::inject(text);
        work()
    };
    match codegraph_model::contain::file(work) {
        Ok(extracted) => extracted,
        Err(message) => {
            let mut summary = FileSummary::empty(language, text);
            summary.failure = Some(message.into());
            (summary, Captures::failed())
        }
    }
}

fn extract_unguarded(
    language: Language,
    text: &str,
    tree: &Tree,
    keep: Keep,
) -> (FileSummary, Captures) {
    let spec = language.spec();
    let query = match spec.query() {
        Ok(query) => query,
        Err(error) => {
            let mut summary = FileSummary::empty(language, text);
            summary.problems.push(Problem {
                line: 0,
                message: error.to_string(),
            });
            return (summary, Captures::default());
        }
    };
    let root = tree.root_node();
    let raw = run_query(query, root, text, None, language);
    let kept = match keep {
        Keep::Captures => raw.clone(),
        Keep::SummaryOnly => RawCaptures::default(),
    };
    let summary = summarise(language, text, root, raw, spec.self_receivers);
    (summary, Captures::kept(kept))
}

/// The summary of a file from its captures: its syntax errors, its definitions (those the
/// default build leaves out marked), references, bindings, imports and bases, and Rust's
/// `#[path]` modules.
pub(crate) fn summarise(
    language: Language,
    text: &str,
    root: Node<'_>,
    raw: RawCaptures,
    self_receivers: &[&str],
) -> FileSummary {
    let mut summary = FileSummary::empty(language, text);
    collect_syntax_errors(root, &mut summary.problems);
    let disabled = disabled_ranges(language, root, text);
    build(&mut summary, raw, self_receivers, &disabled);
    summary.path_modules = path_modules(language, root, text, &disabled);
    summary.shrink_to_fit();
    summary
}

/// The byte ranges of items the default build leaves out (Rust `#[cfg]`; see `lang::rust_cfg`).
fn disabled_ranges(language: Language, root: Node<'_>, text: &str) -> Vec<std::ops::Range<u32>> {
    match language {
        // Most files have no `#[cfg]`: a text search is cheaper than walking every item.
        Language::Rust if text.contains("cfg") => {
            codegraph_lang::rust_cfg::disabled_ranges(root, text)
        }
        _ => Vec::new(),
    }
}

/// Rust's `#[path]` modules of the default build (see [`PathModule`]).
fn path_modules(
    language: Language,
    root: Node<'_>,
    text: &str,
    disabled: &[std::ops::Range<u32>],
) -> Vec<PathModule> {
    match language {
        Language::Rust if text.contains("path") => rust_path::path_modules(root, text, disabled),
        _ => Vec::new(),
    }
}

fn collect_syntax_errors(root: Node<'_>, problems: &mut Vec<Problem>) {
    if !root.has_error() {
        return;
    }
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if problems.len() >= MAX_PROBLEMS {
            return;
        }
        if node.is_error() || node.is_missing() {
            let what = if node.is_missing() {
                format!("missing {}", node.kind())
            } else {
                "syntax error".to_string()
            };
            problems.push(Problem {
                line: node.start_position().row as u32,
                message: format!("{what} at line {}", node.start_position().row + 1),
            });
            continue;
        }
        if node.has_error() {
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
}
