//! The reverse walk from the changed entities to everything they affect, to a fixed point.
//!
//! Two queues, `proven` first: an entity is reached through proven edges wherever it can be,
//! and through a `possible` step (a reference left aside, a mention, a special method) only
//! otherwise; it is expanded at most once per confidence, so the walk ends.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use codegraph_graph::query;
use codegraph_graph::{EntityId, FilePath, Graph, Site};
use codegraph_lang::Language;
use codegraph_model::{EntityKind, Name, RelationKind};

use super::changes::{Change, Found};
use super::mentions::{Mention, Mentions};
use super::{MAX_AFFECTED, tests};

/// How sure the path to an affected entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// Some step is a reference left aside as ambiguous or unresolved, a mention of the name
    /// (a value, a changed import), or a special method of a class its users may run.
    Possible,
    /// Every step is an edge of the graph.
    Proven,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Possible => "possible",
            Confidence::Proven => "proven",
        }
    }
}

/// An entity a change affects.
#[derive(Debug, Clone, Serialize)]
pub struct Affected {
    pub id: EntityId,
    pub file: FilePath,
    pub kind: EntityKind,
    pub name: Name,
    /// One-based.
    pub line: u32,
    pub confidence: Confidence,
    /// How the last step reached it: `calls`, `dispatch`, `uses`, `subtype`, `constructs`,
    /// `member`, `fixture`, `left_aside`, `value`, `import`, `module`, `special_method`,
    /// `removed`.
    pub how: &'static str,
    /// The path from a changed entity to this one, both ends included.
    pub via: Vec<EntityId>,
}

pub(crate) struct Walked {
    pub affected: Vec<Affected>,
    pub truncated: bool,
}

/// A step of the walk: where it leads, how sure, and how.
pub(crate) type Step = (EntityId, Confidence, &'static str);

pub(crate) struct State<'g> {
    pub(crate) graph: &'g Graph,
    /// Per reached entity: its confidence, the entity it was reached from, how.
    reached: FxHashMap<EntityId, (Confidence, Option<EntityId>, &'static str)>,
    proven: VecDeque<EntityId>,
    possible: VecDeque<EntityId>,
    pub(crate) mentions: Mentions<'g>,
    /// Per type, its supertypes (transitively); per type, its members by name.
    bases: FxHashMap<EntityId, Vec<EntityId>>,
    members: FxHashMap<EntityId, FxHashMap<Name, Vec<EntityId>>>,
    truncated: bool,
}

impl<'g> State<'g> {
    fn reach(
        &mut self,
        id: EntityId,
        confidence: Confidence,
        from: Option<EntityId>,
        how: &'static str,
    ) {
        if let Some((known, _, _)) = self.reached.get(&id)
            && *known >= confidence
        {
            return;
        }
        if self.reached.len() >= MAX_AFFECTED && !self.reached.contains_key(&id) {
            self.truncated = true;
            return;
        }
        self.reached.insert(id, (confidence, from, how));
        match confidence {
            Confidence::Proven => self.proven.push_back(id),
            Confidence::Possible => self.possible.push_back(id),
        }
    }

    fn next(&mut self) -> Option<(EntityId, Confidence)> {
        loop {
            let id = self
                .proven
                .pop_front()
                .or_else(|| self.possible.pop_front())?;
            let (confidence, _, _) = self.reached[&id];
            // A possible entry left in its queue after the entity was reached proven.
            if confidence == Confidence::Possible && !self.possible_pending(&id) {
                continue;
            }
            return Some((id, confidence));
        }
    }

    fn possible_pending(&self, id: &EntityId) -> bool {
        self.reached
            .get(id)
            .is_some_and(|(confidence, _, _)| *confidence == Confidence::Possible)
    }

    /// The path from a changed entity to `id`.
    fn via(&self, id: EntityId) -> Vec<EntityId> {
        let mut path = vec![id];
        let mut current = id;
        while let Some((_, Some(from), _)) = self.reached.get(&current) {
            if path.contains(from) || path.len() > 64 {
                break;
            }
            path.push(*from);
            current = *from;
        }
        path.reverse();
        path
    }
}

pub(crate) fn walk(graph: &Graph, found: &Found) -> Walked {
    let mut state = State {
        graph,
        reached: FxHashMap::default(),
        proven: VecDeque::new(),
        possible: VecDeque::new(),
        mentions: Mentions::new(graph),
        bases: FxHashMap::default(),
        members: FxHashMap::default(),
        truncated: false,
    };
    let changed: FxHashSet<EntityId> = found.changed.iter().map(|changed| changed.id).collect();
    seed(&mut state, found);
    let mut expanded: FxHashSet<(EntityId, Confidence)> = FxHashSet::default();
    while let Some((id, confidence)) = state.next() {
        codegraph_model::cancel::checkpoint();
        if !expanded.insert((id, confidence)) {
            continue;
        }
        // An entity reached proven was already expanded with that confidence or better.
        if confidence == Confidence::Possible && expanded.contains(&(id, Confidence::Proven)) {
            continue;
        }
        for (next, step, how) in steps(&mut state, &id) {
            state.reach(next, confidence.min(step), Some(id), how);
        }
    }
    let mut affected: Vec<Affected> = state
        .reached
        .iter()
        .filter(|(id, _)| !changed.contains(*id))
        .filter_map(|(id, (confidence, _, how))| {
            let node = Node::of(graph, id)?;
            Some(Affected {
                id: *id,
                file: node.file,
                kind: node.kind,
                name: node.name,
                line: node.line(graph),
                confidence: *confidence,
                how,
                via: state.via(*id),
            })
        })
        .collect();
    affected.sort_by(|left, right| {
        (left.file, left.line, left.id).cmp(&(right.file, right.line, right.id))
    });
    Walked {
        affected,
        truncated: state.truncated,
    }
}

/// The walk's sources: the changed entities still in the graph, the former callers of removed
/// ones, and the holders of names whose import changed.
fn seed(state: &mut State, found: &Found) {
    let mut removed: FxHashMap<Name, Vec<EntityId>> = FxHashMap::default();
    for changed in &found.changed {
        match changed.change {
            Change::Removed if changed.kind != EntityKind::Module => {
                removed.entry(changed.name).or_default().push(changed.id)
            }
            Change::Removed => {}
            _ if state.graph.location(&changed.id).is_some()
                || changed.kind == EntityKind::Module =>
            {
                state.reach(changed.id, Confidence::Proven, None, "changed");
            }
            _ => {}
        }
    }
    for (path, names) in &found.renamed_in {
        for name in names {
            for holder in state.mentions.holders(*path, name, Mention::Any, None) {
                state.reach(holder, Confidence::Possible, None, "import");
            }
        }
    }
    if !removed.is_empty() {
        for (holder, from) in former_callers(state.graph, &removed) {
            state.reach(holder, Confidence::Possible, Some(from), "removed");
        }
    }
}

/// The entities holding a reference to a removed entity's name that no edge resolves now.
fn former_callers(
    graph: &Graph,
    removed: &FxHashMap<Name, Vec<EntityId>>,
) -> Vec<(EntityId, EntityId)> {
    let mut found = Vec::new();
    for file in graph.files() {
        codegraph_model::cancel::checkpoint();
        let mut resolved: Option<FxHashSet<Site>> = None;
        for (index, reference) in file.summary.refs.iter().enumerate() {
            let Some(ids) = removed.get(&reference.name) else {
                continue;
            };
            let sites = resolved
                .get_or_insert_with(|| file.resolved.edges.iter().map(|edge| edge.site).collect());
            if sites.contains(&Site::reference(index)) {
                continue;
            }
            found.push((*file.scope_entity(reference.scope()), ids[0]));
        }
    }
    found
}

/// What the walk needs of an entity, read from its file's summary without materializing it.
pub(crate) struct Node {
    pub id: EntityId,
    pub kind: EntityKind,
    pub name: Name,
    pub file: FilePath,
    pub language: Language,
    /// Its index in its file's definitions (`None` for the module).
    pub index: Option<u32>,
    /// The definition it is written in.
    pub parent: Option<EntityId>,
}

impl Node {
    pub fn of(graph: &Graph, id: &EntityId) -> Option<Node> {
        let location = graph.location(id)?;
        let file = graph.file(&location.file)?;
        Some(match location.index {
            None => Node {
                id: *id,
                kind: EntityKind::Module,
                name: Name::new(file.path.rsplit('/').next().unwrap_or(&file.path)),
                file: file.path,
                language: file.language,
                index: None,
                parent: None,
            },
            Some(index) => {
                let def = file.summary.defs.get(index as usize)?;
                Node {
                    id: *id,
                    kind: def.kind,
                    name: def.name,
                    file: file.path,
                    language: file.language,
                    index: Some(index),
                    parent: def
                        .parent
                        .and_then(|parent| file.ids.get(parent as usize).copied()),
                }
            }
        })
    }

    /// One-based.
    pub fn line(&self, graph: &Graph) -> u32 {
        let Some((file, index)) = graph.file(&self.file).zip(self.index) else {
            return 1;
        };
        file.summary
            .locate(file.summary.defs[index as usize].span)
            .start
            .line
            + 1
    }

    /// Where its definition starts in its file's text.
    pub fn start_byte(&self, graph: &Graph) -> Option<usize> {
        let file = graph.file(&self.file)?;
        Some(file.summary.defs.get(self.index? as usize)?.span.start_byte as usize)
    }

    /// The type a method belongs to: its lexical parent, or the type that defines it out of
    /// line.
    fn owner(&self, graph: &Graph) -> Option<EntityId> {
        self.parent
            .filter(|parent| graph.kind_of(parent).is_some_and(EntityKind::is_type))
            .or_else(|| {
                graph
                    .incoming(&self.id)
                    .find(|edge| edge.kind == RelationKind::Defines)
                    .map(|edge| edge.from)
            })
    }
}

/// Where one step back from `id` leads.
fn steps(state: &mut State, id: &EntityId) -> Vec<Step> {
    let graph = state.graph;
    let Some(node) = Node::of(graph, id) else {
        return Vec::new();
    };
    let mut steps: Vec<Step> = Vec::new();
    if node.kind == EntityKind::Module {
        module_steps(state, &node, &mut steps);
        return steps;
    }
    for edge in graph
        .incoming(id)
        .filter(|edge| edge.kind == RelationKind::Calls)
    {
        let how = match edge.resolution {
            codegraph_model::Resolution::Dispatch => "dispatch",
            _ => "calls",
        };
        steps.push((edge.from, Confidence::Proven, how));
    }
    let owner = node.owner(graph);
    if node.kind == EntityKind::Method
        && let Some(owner) = owner
    {
        for member in overridden(state, &owner, node.name) {
            for edge in graph
                .incoming(&member)
                .filter(|edge| edge.kind == RelationKind::Calls)
            {
                steps.push((edge.from, Confidence::Proven, "dispatch"));
            }
        }
    }
    for from in query::possible_caller_ids(graph, id, &node.name) {
        steps.push((from, Confidence::Possible, "left_aside"));
    }
    if node.kind.is_type() {
        type_steps(graph, id, &mut steps);
        // A type's own code changed (a class attribute, a field, a base): its members may read it.
        if matches!(state.reached.get(id), Some((_, None, "changed"))) {
            for member in members(graph, id) {
                steps.push((member, Confidence::Possible, "member"));
            }
        }
    }
    if let Some(owner) = owner {
        special_method_steps(state, &node, &owner, &mut steps);
    }
    value_steps(state, &node, &mut steps);
    tests::fixture_steps(state, &node, &mut steps);
    steps
}

/// A changed module's code: its own definitions may read what it changed, and its importers
/// run it; a module whose state holds an affected function as a value: its importers. (A
/// module reached otherwise is not expanded further: following the importers of every module
/// merely affected would select every file.)
fn module_steps(state: &mut State, module: &Node, steps: &mut Vec<Step>) {
    let graph = state.graph;
    let (changed, how) = match state.reached.get(&module.id).copied() {
        Some((_, None, "changed")) => (true, "import"),
        // A function stored in the module's state (`HANDLERS = {"x": f}`): who imports the
        // module may run it.
        Some((_, _, "value")) => (false, "import"),
        // A call made when the module is imported (`__version__ = get_versions()`): it runs in
        // every module that imports this one, directly or not.
        Some((_, _, "calls" | "dispatch" | "import_time")) => (false, "import_time"),
        _ => return,
    };
    let Some(file) = graph.file(&module.file) else {
        return;
    };
    if changed {
        for (index, def) in file.summary.defs.iter().enumerate() {
            if def.parent.is_none() {
                steps.push((file.ids[index], Confidence::Possible, "module"));
            }
        }
    }
    let mut importers: FxHashSet<EntityId> = FxHashSet::default();
    // Importing any module of a Python package runs the package's `__init__.py` first.
    let package = (how == "import_time")
        .then(|| file.path.strip_suffix("__init__.py"))
        .flatten()
        .filter(|directory| !directory.is_empty() || file.language == Language::Python);
    let files: Vec<&std::sync::Arc<codegraph_graph::FileNode>> = match package {
        Some(directory) => graph
            .files()
            .filter(|other| other.language == Language::Python && other.path.starts_with(directory))
            .collect(),
        None => vec![file],
    };
    for file in files {
        for target in std::iter::once(&file.module_id).chain(file.ids.iter()) {
            for edge in graph
                .incoming(target)
                .filter(|edge| edge.kind == RelationKind::Imports)
            {
                importers.insert(edge.from);
            }
        }
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

/// A changed type: the code that names it and its subtypes.
fn type_steps(graph: &Graph, id: &EntityId, steps: &mut Vec<Step>) {
    for edge in graph.incoming(id) {
        match edge.kind {
            RelationKind::Uses => steps.push((edge.from, Confidence::Proven, "uses")),
            RelationKind::Extends | RelationKind::Implements => {
                steps.push((edge.from, Confidence::Proven, "subtype"))
            }
            _ => {}
        }
    }
}

/// A type's members: what it contains and what is defined for it elsewhere.
fn members(graph: &Graph, id: &EntityId) -> Vec<EntityId> {
    graph
        .outgoing(id)
        .filter(|edge| matches!(edge.kind, RelationKind::Contains | RelationKind::Defines))
        .map(|edge| edge.to)
        .collect()
}

/// The members named `name` of the bases and interfaces of `owner`, in every language (the
/// walk follows the calls through them whatever the language's server lists).
fn overridden(state: &mut State, owner: &EntityId, name: Name) -> Vec<EntityId> {
    let graph = state.graph;
    let bases = state
        .bases
        .entry(*owner)
        .or_insert_with(|| supertypes(graph, owner))
        .clone();
    let mut found = Vec::new();
    for base in bases {
        let named = state.members.entry(base).or_insert_with(|| {
            let mut named: FxHashMap<Name, Vec<EntityId>> = FxHashMap::default();
            for member in members(graph, &base) {
                if let Some(node) = Node::of(graph, &member) {
                    named.entry(node.name).or_default().push(member);
                }
            }
            named
        });
        found.extend(named.get(&name).into_iter().flatten().copied());
    }
    found
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

/// A method its class's users run without naming it: a constructor runs for every
/// construction of the class (`proven`); an operator, a protocol method or a property may run
/// wherever the class is used (`possible`).
fn special_method_steps(state: &mut State, method: &Node, owner: &EntityId, steps: &mut Vec<Step>) {
    let graph = state.graph;
    let Some(class) = Node::of(graph, owner) else {
        return;
    };
    let name = method.name.as_str();
    let constructor = matches!(
        name,
        "__init__" | "__new__" | "__post_init__" | "constructor"
    ) || name == class.name.as_str();
    if constructor {
        for edge in graph
            .incoming(owner)
            .filter(|edge| edge.kind == RelationKind::Calls)
        {
            steps.push((edge.from, Confidence::Proven, "constructs"));
        }
        steps.push((*owner, Confidence::Proven, "member"));
        return;
    }
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    if dunder || is_property(state, method) || is_implicit(state.graph, method) {
        steps.push((*owner, Confidence::Possible, "special_method"));
    }
}

/// A method the language calls without its name being written: a JavaScript or TypeScript
/// getter or setter (`get size()`), a Rust method of a trait implementation (an operator,
/// `Display::fmt`, `Deref::deref`, `Iterator::next`).
fn is_implicit(graph: &Graph, method: &Node) -> bool {
    let Some(def) = graph
        .file(&method.file)
        .zip(method.index)
        .and_then(|(file, index)| file.summary.defs.get(index as usize))
    else {
        return false;
    };
    match method.language {
        Language::Rust => def.implements.is_some(),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            let signature = def.signature().trim_start();
            let signature = signature.strip_prefix("static ").unwrap_or(signature);
            signature.starts_with("get ") || signature.starts_with("set ")
        }
        _ => false,
    }
}

/// A Python method read as an attribute (`@property`, `@cached_property`, a setter).
fn is_property(state: &mut State, method: &Node) -> bool {
    if method.language != Language::Python {
        return false;
    }
    let Some(start) = method.start_byte(state.graph) else {
        return false;
    };
    let Some(text) = state.mentions.text(method.file) else {
        return false;
    };
    tests::decorators(&text, start).iter().any(|line| {
        line.contains("property") || line.ends_with(".setter") || line.ends_with(".deleter")
    })
}

/// Where a function, method or class is named as a value (passed, stored, registered): in its
/// own file, and for a function or class in the files that import it.
fn value_steps(state: &mut State, node: &Node, steps: &mut Vec<Step>) {
    if !matches!(
        node.kind,
        EntityKind::Function | EntityKind::Method | EntityKind::Class
    ) {
        return;
    }
    let graph = state.graph;
    let mut files: Vec<FilePath> = vec![node.file];
    // A function or class named as a value where it is imported (`Cache = TTLCache` in a
    // test class, `register(handler)`).
    if node.kind != EntityKind::Method {
        for edge in graph
            .incoming(&node.id)
            .filter(|edge| edge.kind == RelationKind::Imports)
        {
            if let Some(location) = graph.location(&edge.from)
                && !files.contains(&location.file)
            {
                files.push(location.file);
            }
        }
    }
    for file in files {
        for holder in state
            .mentions
            .holders(file, &node.name, Mention::Value, Some(&node.id))
        {
            steps.push((holder, Confidence::Possible, "value"));
        }
    }
}
