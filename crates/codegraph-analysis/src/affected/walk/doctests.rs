//! Doctests: a docstring's examples (`>>> f(1)`), which a test runs through `doctest`
//! (`doctest.testmod(module)`, `DocTestSuite(module)`) without calling the documented
//! definition. The names an example uses are mentions of its definition ([`super::values`]);
//! this step leads from a definition with examples to the tests that may run them.

use std::rc::Rc;

use codegraph_graph::EntityId;
use codegraph_lang::Language;
use codegraph_model::{ByNumber, EntityKind, Name};

use super::super::mentions::Mention;
use super::super::{prose, tests};
use super::{Confidence, Node, State, Step, values};

/// A Python definition whose docstring has examples: the code that names `doctest` in the test
/// files importing its module (directly, or through modules that re-export it), or in its own
/// file when that is a test file.
pub(super) fn doctest_steps(state: &mut State, node: &Node, steps: &mut Vec<Step>) {
    if node.language != Language::Python
        || !matches!(
            node.kind,
            EntityKind::Function | EntityKind::Method | EntityKind::Class
        )
        || !has_examples(state, node)
    {
        return;
    }
    for runner in runners(state, node).iter() {
        steps.push((*runner, Confidence::Possible, "doctest"));
    }
}

/// Whether `node`'s own text (its nested definitions' included) has a doctest's line.
fn has_examples(state: &mut State, node: &Node) -> bool {
    let graph = state.graph;
    let Some(span) = graph
        .file(&node.file)
        .zip(node.index)
        .and_then(|(file, index)| Some(file.summary.defs.get(index as usize)?.span))
    else {
        return false;
    };
    let Some(text) = state.mentions.text(node.file) else {
        return false;
    };
    text.get(span.start_byte as usize..span.end_byte as usize)
        .is_some_and(prose::has_doctest)
}

/// The entities naming `doctest` in the test files that can run the examples of `node`'s
/// module, found once per module an answer.
fn runners(state: &mut State, node: &Node) -> Rc<[EntityId]> {
    if let Some(known) = state.doctest_runners.get(&ByNumber(node.file)) {
        return known.clone();
    }
    let graph = state.graph;
    let mut files = values::importing_files(state, node.file).files.clone();
    files.push(node.file);
    files.retain(|path| {
        graph
            .file(path)
            .is_some_and(|file| tests::is_test_file(file))
    });
    let doctest = Name::new("doctest");
    let mut found: Vec<EntityId> = Vec::new();
    for (file, words) in files.iter().zip(state.mentions.words(&files)) {
        if words.is_some_and(|words| words.may_have(doctest.as_str())) {
            found.extend(state.mentions.holders(*file, doctest, Mention::Any, None));
        }
    }
    let found: Rc<[EntityId]> = found.into();
    state
        .doctest_runners
        .insert(ByNumber(node.file), found.clone());
    found
}
