//! Calls made through the bases and interfaces a method overrides or implements, and the calls
//! of a base's member that name their class and so cannot run an override.

use rustc_hash::{FxHashMap, FxHashSet};

use codegraph_graph::query;
use codegraph_graph::{Edge, EntityId, FileNode, Graph};
use codegraph_lang::Language;
use codegraph_model::{ByNumber, Name, RelationKind};

use super::{Node, State, members};

/// The members named `name` of the bases and interfaces of `owner`, in every language (the
/// walk follows the calls through them whatever the language's server lists).
pub(super) fn overridden(state: &mut State, owner: &EntityId, name: Name) -> Vec<EntityId> {
    let graph = state.graph;
    let bases = bases(state, owner).to_vec();
    let mut found = Vec::new();
    for base in bases {
        let named = state.members.entry(ByNumber(base)).or_insert_with(|| {
            let mut named: FxHashMap<ByNumber, Vec<EntityId>> = FxHashMap::default();
            for member in members(graph, &base) {
                if let Some(node) = Node::of(graph, &member) {
                    named.entry(ByNumber(node.name)).or_default().push(member);
                }
            }
            named
        });
        found.extend(named.get(&ByNumber(name)).into_iter().flatten().copied());
    }
    found
}

/// Every supertype of `id`, transitively, nearest first (computed once per answer).
fn bases<'s>(state: &'s mut State, id: &EntityId) -> &'s [EntityId] {
    let graph = state.graph;
    state
        .bases
        .entry(ByNumber(*id))
        .or_insert_with(|| supertypes(graph, id))
}

/// Every subtype of `id`, transitively (computed once per answer).
pub(super) fn subtypes<'s>(state: &'s mut State, id: &EntityId) -> &'s [EntityId] {
    let graph = state.graph;
    state
        .subtypes
        .entry(ByNumber(*id))
        .or_insert_with(|| query::subtypes(graph, id))
}

/// How a call of a base's member says what it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Form {
    /// On a value (`self.m()`, `cls.m()`, `value.m()`, a Rust `Trait::m(&value)`): what runs
    /// depends on the value's class, which may have any override.
    Virtual,
    /// `super().m()` (`super.m()`, `base.m()`, `parent::m()`) written in this class: it runs
    /// the member that follows the class in the inheritance of the object's class.
    Super(EntityId),
    /// In Python, `Base.m(self)` through these classes (those so named that have the member):
    /// it runs what the class has or inherits.
    Named(Vec<EntityId>),
}

/// The calls of `member` (a member of a base), each with its caller and how it names what it
/// runs; computed once per answer.
pub(super) fn calls(state: &mut State, member: &EntityId) -> std::rc::Rc<[(EntityId, Form)]> {
    if let Some(known) = state.calls.get(&ByNumber(*member)) {
        return known.clone();
    }
    let graph = state.graph;
    let base = Node::of(graph, member).and_then(|node| node.owner(graph));
    let mut found = Vec::new();
    for (file, edge) in graph
        .incoming_in_files(member)
        .filter(|(_, edge)| edge.kind == RelationKind::Calls)
    {
        let form = form(state, file, edge, base.as_ref());
        found.push((edge.from, form));
    }
    let found: std::rc::Rc<[(EntityId, Form)]> = found.into();
    state.calls.insert(ByNumber(*member), found.clone());
    found
}

/// How the call `edge` of a member of class `base` names what it runs.
fn form(state: &mut State, file: &FileNode, edge: &Edge, base: Option<&EntityId>) -> Form {
    let Some(reference) = edge
        .site
        .reference_index()
        .and_then(|index| file.summary.refs.get(index))
    else {
        return Form::Virtual;
    };
    let Some(receiver) = reference.receiver else {
        return Form::Virtual;
    };
    let receiver = receiver.as_str();
    let python = file.language == Language::Python;
    let enclosing = || enclosing_type(file, reference.scope());
    if file.language.spec().super_receivers.contains(&receiver) {
        return enclosing().map_or(Form::Virtual, Form::Super);
    }
    if python && let Some(arguments) = python_super_arguments(receiver) {
        // `super(Class, self).m()` naming the class it is written in.
        let named = arguments.split(',').next().unwrap_or_default();
        return enclosing()
            .filter(|class| {
                Node::of(state.graph, class).is_some_and(|node| node.name.as_str() == named)
            })
            .map_or(Form::Virtual, Form::Super);
    }
    let Some(base) = base.filter(|_| python && is_identifier(receiver)) else {
        return Form::Virtual;
    };
    let named: Vec<EntityId> = state
        .graph
        .named(receiver)
        .iter()
        .filter(|entry| entry.kind.is_type())
        .map(|entry| entry.id)
        .collect();
    let mut classes = Vec::new();
    for class in named {
        if class == *base || bases(state, &class).contains(base) {
            classes.push(class);
        }
    }
    // No class of that hierarchy is so named: a value (`self`, `cls`, a variable).
    if classes.is_empty() {
        Form::Virtual
    } else {
        Form::Named(classes)
    }
}

/// Whether a call of that form may run `owner`'s override of the member it calls:
/// - on a value, always;
/// - `super().m()` written in class `C`: only when some class inherits from both `C` and
///   `owner` (`C` itself when it is below `owner`, or a class that mixes both in, where
///   `owner` may follow `C` in its method resolution order);
/// - `Base.m(self)` naming class `K`: only when `K` is `owner` or below it.
pub(super) fn may_run(state: &mut State, form: &Form, owner: &EntityId) -> bool {
    match form {
        Form::Virtual => true,
        Form::Super(class) => share_subtype(state, class, owner),
        Form::Named(classes) => classes
            .iter()
            .any(|class| class == owner || bases(state, class).contains(owner)),
    }
}

/// `C` and `owner` have a common subtype, themselves included (computed once per answer and
/// pair).
fn share_subtype(state: &mut State, class: &EntityId, owner: &EntityId) -> bool {
    let pair = (ByNumber(*class), ByNumber(*owner));
    if let Some(known) = state.shared.get(&pair) {
        return *known;
    }
    // The relation is symmetric; `C` writes the call and is most often the nearer to the
    // leaves, with the fewer subtypes.
    let below: Vec<EntityId> = std::iter::once(*class)
        .chain(subtypes(state, class).iter().copied())
        .collect();
    let shared = below
        .iter()
        .any(|sub| sub == owner || bases(state, sub).contains(owner));
    state.shared.insert(pair, shared);
    shared
}

/// The type a reference made in `scope` is written in: the innermost type enclosing it.
fn enclosing_type(file: &FileNode, scope: Option<u32>) -> Option<EntityId> {
    let mut current = scope;
    // Each step goes to an enclosing definition: at most as many as the file has.
    for _ in 0..=file.summary.defs.len() {
        let index = current?;
        let def = file.summary.defs.get(index as usize)?;
        if def.kind.is_type() {
            return file.ids.get(index as usize).copied();
        }
        current = def.parent;
    }
    None
}

/// The arguments of Python's two-argument `super(Class, self)` as written, whitespace removed;
/// `None` for any other receiver (and for `super()`, which the language's list names).
fn python_super_arguments(receiver: &str) -> Option<&str> {
    let arguments = receiver.strip_prefix("super(")?.strip_suffix(')')?;
    (!arguments.is_empty()).then_some(arguments)
}

fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

/// Every supertype of `id`, transitively, nearest first; bounded.
fn supertypes(graph: &Graph, id: &EntityId) -> Vec<EntityId> {
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut order = Vec::new();
    let mut frontier = vec![*id];
    for _depth in 0..32 {
        let mut next = Vec::new();
        for current in frontier {
            for (base, _) in query::supertypes(graph, &current) {
                if seen.insert(base.id) {
                    order.push(base.id);
                    next.push(base.id);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    order
}
