//! A module reached by the walk: its definitions read its changed code, and the modules that
//! import it run it, also where they import it through modules that re-export it.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use codegraph_graph::{Edge, EntityId, FileNode, FilePath, Graph};
use codegraph_lang::Language;
use codegraph_model::{ByNumber, EntityKind, RelationKind};

use super::super::lexicon::Words;
use super::super::tests;
use super::{Confidence, Node, State, Step};

/// A changed module's code: its own definitions may read what it changed, and its importers
/// run it; a module whose state holds an affected function as a value: its importers (and, for
/// a `conftest.py`, its fixtures). (A
/// module reached otherwise is not expanded further: following the importers of every module
/// merely affected would select every file.)
pub(super) fn module_steps(state: &mut State, module: &Node, steps: &mut Vec<Step>) {
    let graph = state.graph;
    let (changed, how) = match state.reached.get(&ByNumber(module.id)).copied() {
        Some((_, None, "changed")) => (true, "import"),
        // A function stored in the module's state (`HANDLERS = {"x": f}`): who imports the
        // module may run it.
        Some((_, _, "value")) => (false, "import"),
        // A call made when the module is imported (`__version__ = get_versions()`, or one left
        // aside, `functoolz._sigs.create_signature_registry()`): it runs in every module that
        // imports this one, directly or not.
        Some((_, _, "calls" | "dispatch" | "import_time" | "left_aside")) => (false, "import_time"),
        _ => return,
    };
    let Some(file) = graph.file(&module.file) else {
        return;
    };
    // A `conftest.py` is imported by pytest, not by its tests: what its state holds reaches
    // them through its fixtures (`SHARED = FIFOCache()`, then `def cache(): return SHARED`).
    if changed || tests::is_conftest(file) {
        for (index, def) in file.summary.defs.iter().enumerate() {
            if def.parent.is_none() {
                steps.push((file.ids[index], Confidence::Possible, "module"));
            }
        }
    }
    // Importing any module of a Python package runs the package's `__init__.py` first.
    let package = (how == "import_time")
        .then(|| file.path.strip_suffix("__init__.py"))
        .flatten()
        .filter(|directory| !directory.is_empty() || file.language == Language::Python);
    let files: Vec<&Arc<FileNode>> = match package {
        Some(directory) => graph
            .files()
            .filter(|other| other.language == Language::Python && other.path.starts_with(directory))
            .collect(),
        None => vec![file],
    };
    let mut importers: FxHashSet<EntityId> = FxHashSet::default();
    for other in files {
        importers.extend(file_importers(state, other).iter().copied());
    }
    importers.remove(&file.module_id);
    let mut importers: Vec<EntityId> = importers.into_iter().collect();
    importers.sort();
    steps.extend(
        importers
            .into_iter()
            .map(|id| (id, Confidence::Possible, how)),
    );
}

/// [`importers`] of a file's module and definitions, computed once per answer (a package's
/// importers are its files' together, and packages nest).
fn file_importers(state: &mut State, file: &FileNode) -> std::rc::Rc<[EntityId]> {
    if let Some(known) = state.file_importers.get(&ByNumber(file.path)) {
        return known.clone();
    }
    let targets = std::iter::once(file.module_id)
        .chain(file.ids.iter().copied())
        .collect();
    let found: std::rc::Rc<[EntityId]> = importers(state.graph, targets).into_iter().collect();
    state
        .file_importers
        .insert(ByNumber(file.path), found.clone());
    found
}

/// The files that import a module, in path order.
pub(crate) struct Importing {
    pub files: Vec<FilePath>,
    pub set: FxHashSet<FilePath>,
    /// Their words, index for index with `files`, once asked.
    pub words: std::cell::OnceCell<Vec<Option<Arc<Words>>>>,
}

/// The modules that import one of `targets` (modules, or definitions), and those that import a
/// module re-exporting one of them, transitively; bounded. A module re-exports what it imports
/// whole (`from .more import *` in a package's `__init__.py`, `export * from "./types"`), and in
/// Python a name its package's `__init__.py` imports (`from .decorators import pass_context`,
/// then used as `click.pass_context`) or any module imports under its own name
/// (`from .x import f as f`, the convention for a re-export).
pub(super) fn importers(graph: &Graph, targets: Vec<EntityId>) -> FxHashSet<EntityId> {
    let mut importers: FxHashSet<EntityId> = FxHashSet::default();
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut frontier = targets;
    for _depth in 0..8 {
        let mut next = Vec::new();
        for target in frontier {
            for edge in graph
                .incoming(&target)
                .filter(|edge| edge.kind == RelationKind::Imports)
            {
                importers.insert(edge.from);
                if let Some(importer) = reexporter(graph, edge)
                    && seen.insert(importer.module_id)
                {
                    next.push(importer.module_id);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    importers
}

/// The module that makes `edge`, when that import re-exports its target.
pub(super) fn reexporter<'g>(graph: &'g Graph, edge: &Edge) -> Option<&'g Arc<FileNode>> {
    let file = graph.file(&graph.location(&edge.from)?.file)?;
    let package = file.language == Language::Python
        && (file.path.ends_with("/__init__.py") || &*file.path == "__init__.py");
    // A name imported (not a module): what `from m import name` binds.
    let name = || {
        graph
            .kind_of(&edge.to)
            .is_some_and(|kind| kind != EntityKind::Module)
    };
    let reexported = edge
        .site
        .import_index()
        .and_then(|index| file.summary.imports.get(index))
        .is_some_and(|import| {
            import.scope.is_none()
                && (import.wildcard
                    || file.language == Language::Python
                        && import.name.is_some()
                        && (package || import.alias.is_some() && import.alias == import.name)
                        && name())
        });
    reexported.then_some(file)
}
