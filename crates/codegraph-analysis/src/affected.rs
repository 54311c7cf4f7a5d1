//! Change impact: what a change of the code affects, and which tests to run for it.
//!
//! The change is given file by file, as each file's text at a base revision next to the graph's
//! text of it now (the working tree, with an editor's unsaved buffers where the graph is a live
//! server's). Three steps, one per module:
//!
//! - [`changes`]: the changed entities. Both texts are extracted and their definitions paired by
//!   id; a definition whose own text (its text without its nested definitions') differs changed
//!   its `signature` (the header differs) or its `body`; ids only now are `added`, ids only at
//!   the base `removed`; a file's own text outside every definition is its `module` code, and
//!   an import line that changed names the local names whose meaning changed.
//! - [`walk`]: the reverse walk from those entities to a fixed point: callers (calls through
//!   the bases and interfaces a method overrides included, as `dispatch`), users and subtypes of
//!   a changed type, the users of a class whose constructor or special method changed, and the
//!   references left aside as ambiguous or unresolved (`possible`). Names that reach no edge
//!   are followed by where they are mentioned (a function passed as a value, a class held as
//!   one, whose methods its holder may call, an import whose meaning changed, module code read
//!   by its file's definitions), in its file and in those that import it or its module, directly
//!   or through modules that re-export it (whole, or by name from a Python package's
//!   `__init__.py`), as `possible` too. A call that names the class whose method it runs
//!   (`super().m()`, `Base.m(self)`) reaches an override only where a class inherits from
//!   both. Every
//!   affected entity keeps the path it was reached by (`via`), and a `proven` path is preferred
//!   to a `possible` one.
//! - [`tests`]: which affected entities are tests, by each language's conventions (pytest and
//!   unittest, `#[test]`, Go's `TestXxx`, JUnit's `@Test`, ...), the test files that hold
//!   them, and the runners' selection syntaxes ([`tests::Format`]).
//! - `instances`: a changed Python method's tests narrowed to those that may hold an instance
//!   of its class, by a second walk from the names of the class and its subclasses (the walk
//!   from the method goes up through its base's calls on `self`, to every subclass's users).
//!
//! A live server keeps what the walk learns of each file's words ([`Lexicon`]: which names it
//! may mention, the holders of each name asked) across answers and revisions, each file's for
//! as long as the file is unchanged.
//!
//! Names in Python prose (comments, docstrings but their doctest lines), in a header's type
//! annotations, and a function's own parameters are not mentions (`prose`, `annotations`).
//!
//! Invariants: the walk visits an entity at most twice (once `possible`, once `proven`) and stops
//! at [`MAX_AFFECTED`] entities, saying so (`truncated`); it reads the snapshot only. What it
//! cannot see: calls through reflection or strings, code generated at build time, data files a
//! test reads. Files the graph does not model are listed as `unmodelled`, never dropped.

mod annotations;
pub mod changes;
mod instances;
mod lexicon;
mod mentions;
mod prose;
pub mod tests;
pub mod walk;

use serde::Serialize;

use codegraph_graph::{FilePath, Graph};

pub use changes::{Change, Changed, FileChange};
pub use lexicon::Lexicon;
pub use tests::{Format, Test};
pub use walk::{Affected, Confidence};

/// The walk stops after this many affected entities.
pub const MAX_AFFECTED: usize = 50_000;

/// The whole answer: what changed, what it affects, the tests to run.
#[derive(Debug, Clone, Serialize)]
pub struct Impact {
    pub changed: Vec<Changed>,
    pub affected: Vec<Affected>,
    pub tests: Vec<Test>,
    /// Test files to run whole: those that hold an affected test or whose own code is affected
    /// (JavaScript's `describe`/`it` blocks are the file's code), in path order.
    pub test_files: Vec<FilePath>,
    /// Changed files the graph does not model (configuration, data, templates, build files),
    /// which the selection cannot follow.
    pub unmodelled: Vec<String>,
    /// The walk stopped at [`MAX_AFFECTED`]: the selection is not complete.
    pub truncated: bool,
}

/// The impact of `files` on the graph; `unmodelled` is passed through. `lexicon` keeps the words
/// of the files read from one answer to the next (a live server's: [`crate::Cache::lexicon`]).
pub fn impact(
    graph: &Graph,
    lexicon: &Lexicon,
    files: &[FileChange],
    unmodelled: Vec<String>,
) -> Impact {
    let found = changes::changed(graph, files);
    let walked = walk::walk(graph, lexicon, &found);
    let selected = tests::select(graph, &found.changed, &walked.affected);
    let (tests, test_files) = instances::narrow(graph, lexicon, &found, &walked, selected);
    let mut unmodelled = unmodelled;
    unmodelled.sort();
    unmodelled.dedup();
    Impact {
        changed: found.changed,
        affected: walked.affected,
        tests,
        test_files,
        unmodelled,
        truncated: walked.truncated,
    }
}
