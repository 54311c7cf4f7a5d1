//! Where a function, method or class is named as a value rather than called: passed, stored,
//! registered, held in a class attribute.

use rustc_hash::FxHashSet;

use codegraph_graph::{EntityId, FilePath, Graph};
use codegraph_lang::Language;
use codegraph_model::{EntityKind, RelationKind};

use super::super::mentions::Mention;
use super::{Confidence, Node, State, Step, modules};

/// Where a function, method or class is named as a value (passed, stored, registered): in its
/// own file, and for a function or class in the files that import it or its module.
pub(super) fn value_steps(state: &mut State, node: &Node, steps: &mut Vec<Step>) {
    if !matches!(
        node.kind,
        EntityKind::Function | EntityKind::Method | EntityKind::Class
    ) {
        return;
    }
    let files = mention_files(state, node);
    for file in state.mentions.mentioning(&files, &node.name) {
        for holder in state
            .mentions
            .holders(file, &node.name, Mention::Value, Some(&node.id))
        {
            steps.push((holder, Confidence::Possible, "value"));
        }
    }
}

/// A method of a class held as a value (`default_serializer = _CompactJSON` in a class body,
/// `KINDS = (Plain, Fancy)`, `return Plain`): whoever holds the class may call the method
/// through it (`self.default_serializer.dumps(...)`). Not where the class is a type (an
/// annotation, a base), nor a name in a string (`__all__`), nor an access to one of its members
/// (`Plain.create`, followed on its own). In Python.
pub(super) fn held_class_steps(
    state: &mut State,
    method: &Node,
    owner: &EntityId,
    steps: &mut Vec<Step>,
) {
    let graph = state.graph;
    let Some(class) = Node::of(graph, owner) else {
        return;
    };
    if method.kind != EntityKind::Method
        || !class.kind.is_type()
        || !classes_are_values(class.language)
        || !state.held.insert(*owner)
    {
        return;
    }
    let files = mention_files(state, &class);
    for file in state.mentions.mentioning(&files, &class.name) {
        for holder in state
            .mentions
            .holders(file, &class.name, Mention::Held, Some(owner))
        {
            if !names_as_type(graph, &holder, owner) {
                steps.push((holder, Confidence::Possible, "value"));
            }
        }
    }
}

/// The files where `node` can be named: its own; for a function or class, those that import
/// it or its module (`keys.hashkey`, `cachetools.Cache`), directly or through a module that
/// re-exports it (`mi.peekable`).
fn mention_files(state: &mut State, node: &Node) -> Vec<FilePath> {
    let graph = state.graph;
    let mut files: Vec<FilePath> = vec![node.file];
    if node.kind == EntityKind::Method {
        return files;
    }
    let mut seen: FxHashSet<FilePath> = FxHashSet::default();
    seen.insert(node.file);
    let module = importing_files(state, node.file);
    files.extend(module.files.iter().filter(|file| **file != node.file));
    seen.extend(module.files.iter().copied());
    // Who imports the definition itself, and who imports a module that re-exports it.
    let mut own: Vec<FilePath> = Vec::new();
    for edge in graph
        .incoming(&node.id)
        .filter(|edge| edge.kind == RelationKind::Imports)
    {
        if let Some(location) = graph.location(&edge.from) {
            own.push(location.file);
        }
        if let Some(reexporter) = modules::reexporter(graph, edge) {
            own.extend(
                importing_files(state, reexporter.path)
                    .files
                    .iter()
                    .copied(),
            );
        }
    }
    own.sort_unstable();
    own.dedup();
    files.extend(own.into_iter().filter(|file| seen.insert(*file)));
    files
}

/// The files that import `path`'s module (directly, or through modules that re-export it),
/// computed once per answer.
fn importing_files(state: &mut State, path: FilePath) -> std::rc::Rc<modules::Importing> {
    if let Some(known) = state.importing.get(&path) {
        return known.clone();
    }
    let graph = state.graph;
    let module = graph.file(&path).map(|file| file.module_id);
    let mut files: Vec<FilePath> = modules::importers(graph, module.into_iter().collect())
        .iter()
        .filter_map(|importer| Some(graph.location(importer)?.file))
        .collect();
    files.sort_unstable();
    files.dedup();
    let importing = std::rc::Rc::new(modules::Importing { files });
    state.importing.insert(path, importing.clone());
    importing
}

/// `holder` names `class` as a type: an annotation, a base it extends or implements.
fn names_as_type(graph: &Graph, holder: &EntityId, class: &EntityId) -> bool {
    graph.outgoing(holder).any(|edge| {
        edge.to == *class
            && matches!(
                edge.kind,
                RelationKind::Uses | RelationKind::Extends | RelationKind::Implements
            )
    })
}

/// A class is a value that code holds and passes (`cls = Plain`), and its name in a mention is
/// that value: Python. (In TypeScript a class's name is mostly a type, `value: ZodString`, which
/// the text cannot tell from a value; following every one selects whole suites.)
fn classes_are_values(language: Language) -> bool {
    language == Language::Python
}
