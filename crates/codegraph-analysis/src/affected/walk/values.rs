//! Where a function, method or class is named as a value rather than called: passed, stored,
//! registered, held in a class attribute.

use std::rc::Rc;
use std::sync::Arc;

use codegraph_graph::{Edge, EntityId, FilePath, Graph};
use codegraph_lang::Language;
use codegraph_model::{ByNumber, EntityKind, Name, RelationKind};

use super::super::lexicon::Words;
use super::super::mentions::Mention;
use super::{Confidence, Node, State, Step, dispatch, modules};

/// Where a function, method or class is named as a value (passed, stored, registered): in its
/// own file, and for a function or class in the files that import it or its module.
/// `incoming`: the edges that point at the node.
pub(super) fn value_steps(
    state: &mut State,
    node: &Node,
    incoming: &[&Edge],
    steps: &mut Vec<Step>,
) {
    if !matches!(
        node.kind,
        EntityKind::Function | EntityKind::Method | EntityKind::Class
    ) {
        return;
    }
    let files = mention_files(state, node, incoming.iter().copied());
    let owner = (node.kind == EntityKind::Method)
        .then_some(node.parent)
        .flatten();
    // A class whose instances are asked for: a subclass naming it as its base holds no instance
    // (the subclasses that may run the method are asked for themselves).
    let instance = state.asked_instances(&node.id);
    for file in mentioning(state, &files, &node.name) {
        let holders =
            state
                .mentions
                .qualified_holders(file, node.name, Mention::Value, Some(&node.id));
        let mut last = None;
        for (holder, qualifier) in holders {
            let names_it = match (&owner, qualifier) {
                (Some(owner), Some(qualifier)) => may_name_member_of(state, qualifier, owner),
                _ => true,
            };
            let subclass = instance
                && state
                    .graph
                    .outgoing(&holder)
                    .any(|edge| edge.to == node.id && edge.kind == RelationKind::Extends);
            if names_it && !subclass && last != Some(holder) {
                steps.push((holder, Confidence::Possible, "value"));
                last = Some(holder);
            }
        }
    }
}

/// Whether `Qualifier.method` may name the method of `owner` or of a subclass of it: unless the
/// qualifier names workspace types, none of them `owner` or below it (`Cache.__setitem__` is
/// `Cache`'s, not an override's).
fn may_name_member_of(state: &mut State, qualifier: Name, owner: &EntityId) -> bool {
    let types: Vec<EntityId> = state
        .graph
        .named(qualifier.as_str())
        .iter()
        .filter(|entry| entry.kind.is_type())
        .map(|entry| entry.id)
        .collect();
    types.is_empty()
        || types.contains(owner)
        || dispatch::subtypes(state, owner)
            .iter()
            .any(|subtype| types.contains(subtype))
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
        || !state.held.insert(ByNumber(*owner))
    {
        return;
    }
    let files = mention_files(state, &class, graph.incoming(owner));
    for file in mentioning(state, &files, &class.name) {
        for holder in state
            .mentions
            .holders(file, class.name, Mention::Held, Some(owner))
        {
            if !names_as_type(graph, &holder, owner) {
                steps.push((holder, Confidence::Possible, "value"));
            }
        }
    }
}

/// The files where a node can be named: its own, those that import its module, and the others
/// that import it.
struct MentionFiles {
    own: FilePath,
    module: Option<Rc<modules::Importing>>,
    /// In path order; neither the node's own file nor one of `module`'s.
    others: Vec<FilePath>,
}

/// Those of `files` whose text may mention `name` (has a word of its hash): the node's own
/// file first, then the others in path order.
fn mentioning(state: &mut State, files: &MentionFiles, name: &str) -> Vec<FilePath> {
    // Of `paths`, those whose words may have `name`, `words` index for index with them.
    let having = |paths: &[FilePath], words: &[Option<Arc<Words>>]| -> Vec<FilePath> {
        paths
            .iter()
            .zip(words)
            .filter(|(_, words)| words.as_ref().is_some_and(|words| words.may_have(name)))
            .map(|(path, _)| *path)
            .collect()
    };
    let mut own_and_others = vec![files.own];
    own_and_others.extend(&files.others);
    let mut found = having(&own_and_others, &state.mentions.words(&own_and_others));
    if let Some(module) = &files.module {
        let words = module
            .words
            .get_or_init(|| state.mentions.words(&module.files));
        found.extend(
            having(&module.files, words)
                .into_iter()
                .filter(|file| *file != files.own),
        );
    }
    found.sort_unstable_by_key(|file| (*file != files.own, *file));
    found
}

/// The files where `node` can be named: its own; for a function or class, those that import
/// it or its module (`keys.hashkey`, `cachetools.Cache`), directly or through a module that
/// re-exports it (`mi.peekable`). `incoming`: the edges that point at the node.
fn mention_files<'e>(
    state: &mut State,
    node: &Node,
    incoming: impl Iterator<Item = &'e Edge>,
) -> MentionFiles {
    let graph = state.graph;
    let mut files = MentionFiles {
        own: node.file,
        module: None,
        others: Vec::new(),
    };
    if node.kind == EntityKind::Method {
        return files;
    }
    files.module = Some(importing_files(state, node.file));
    // Who imports the definition itself, and who imports a module that re-exports it.
    let mut others: Vec<FilePath> = Vec::new();
    for edge in incoming.filter(|edge| edge.kind == RelationKind::Imports) {
        if let Some(location) = graph.location(&edge.from) {
            others.push(location.file);
        }
        if let Some(reexporter) = modules::reexporter(graph, edge) {
            others.extend(
                importing_files(state, reexporter.path)
                    .files
                    .iter()
                    .copied(),
            );
        }
    }
    others.sort_unstable();
    others.dedup();
    others.retain(|file| {
        *file != node.file
            && !files
                .module
                .as_ref()
                .is_some_and(|module| module.set.contains(file))
    });
    files.others = others;
    files
}

/// The files that import `path`'s module (directly, or through modules that re-export it),
/// computed once per answer.
pub(super) fn importing_files(state: &mut State, path: FilePath) -> Rc<modules::Importing> {
    if let Some(known) = state.importing.get(&ByNumber(path)) {
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
    let importing = Rc::new(modules::Importing {
        set: files.iter().copied().collect(),
        files,
        words: std::cell::OnceCell::new(),
    });
    state.importing.insert(ByNumber(path), importing.clone());
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
