//! The reverse walk from the changed entities to everything they affect, to a fixed point.
//!
//! Two queues, `proven` first: an entity is reached through proven edges wherever it can be,
//! and through a `possible` step (a reference left aside, a mention, a special method) only
//! otherwise; it is expanded at most once per confidence, so the walk ends.
//!
//! The steps beyond an entity's callers, one module each: calls through the members a method
//! overrides (`dispatch`), the methods a class's users run without naming them (`special`),
//! names used as values (`values`), a module's importers (`modules`), and the tests running a
//! docstring's examples (`doctests`).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use codegraph_graph::query;
use codegraph_graph::{Edge, EntityId, FilePath, Graph, Site};
use codegraph_lang::Language;
use codegraph_model::{ByNumber, EntityKind, Name, RelationKind};

use super::changes::{Change, Found};
use super::lexicon::Lexicon;
use super::mentions::{Mention, Mentions};
use super::{MAX_AFFECTED, tests};

mod dispatch;
mod doctests;
mod modules;
mod special;
mod values;

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
    /// `doctest`, `removed`.
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
    reached: FxHashMap<ByNumber, (Confidence, Option<EntityId>, &'static str)>,
    proven: VecDeque<EntityId>,
    possible: VecDeque<EntityId>,
    pub(crate) mentions: Mentions<'g>,
    /// Per type, its supertypes and its subtypes (transitively); per type, its members by name.
    bases: FxHashMap<ByNumber, Vec<EntityId>>,
    subtypes: FxHashMap<ByNumber, Vec<EntityId>>,
    members: FxHashMap<ByNumber, FxHashMap<ByNumber, Vec<EntityId>>>,
    /// Per member of a base, its calls and how each names what it runs.
    calls: FxHashMap<ByNumber, std::rc::Rc<[(EntityId, dispatch::Form)]>>,
    /// Per class and type, whether they have a common subtype.
    shared: FxHashMap<(ByNumber, ByNumber), bool>,
    /// The names whose unresolved calls were followed.
    unresolved: FxHashSet<ByNumber>,
    /// The classes whose holders were followed (from the first of their methods reached: every
    /// method leads to the same holders, `possible`).
    held: FxHashSet<ByNumber>,
    /// Per file, the files that import its module (directly, or through modules that
    /// re-export it).
    importing: FxHashMap<ByNumber, std::rc::Rc<modules::Importing>>,
    /// Per file, the importers of its module and definitions.
    file_importers: FxHashMap<ByNumber, std::rc::Rc<[EntityId]>>,
    /// Per file, the code that may run its doctests.
    doctest_runners: FxHashMap<ByNumber, std::rc::Rc<[EntityId]>>,
    /// The walk stops at this many entities, saying so (`truncated`).
    limit: usize,
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
        if let Some((known, _, _)) = self.reached.get(&ByNumber(id))
            && *known >= confidence
        {
            return;
        }
        if self.reached.len() >= self.limit && !self.reached.contains_key(&ByNumber(id)) {
            self.truncated = true;
            return;
        }
        self.reached.insert(ByNumber(id), (confidence, from, how));
        match confidence {
            Confidence::Proven => self.proven.push_back(id),
            Confidence::Possible => self.possible.push_back(id),
        }
    }

    /// Whether `id` is a class the walk started from to find where its instances may be
    /// (`instance`, [`walk_from`]).
    pub(crate) fn asked_instances(&self, id: &EntityId) -> bool {
        matches!(
            self.reached.get(&ByNumber(*id)),
            Some((_, None, "instance"))
        )
    }

    fn next(&mut self) -> Option<(EntityId, Confidence)> {
        loop {
            let id = self
                .proven
                .pop_front()
                .or_else(|| self.possible.pop_front())?;
            let (confidence, _, _) = self.reached[&ByNumber(id)];
            // A possible entry left in its queue after the entity was reached proven.
            if confidence == Confidence::Possible && !self.possible_pending(&id) {
                continue;
            }
            return Some((id, confidence));
        }
    }

    fn possible_pending(&self, id: &EntityId) -> bool {
        self.reached
            .get(&ByNumber(*id))
            .is_some_and(|(confidence, _, _)| *confidence == Confidence::Possible)
    }

    /// The path from a changed entity to `id`.
    fn via(&self, id: EntityId) -> Vec<EntityId> {
        let mut path = vec![id];
        let mut current = id;
        while let Some((_, Some(from), _)) = self.reached.get(&ByNumber(current)) {
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

pub(crate) fn walk(graph: &Graph, lexicon: &Lexicon, found: &Found) -> Walked {
    let changed: FxHashSet<EntityId> = found.changed.iter().map(|changed| changed.id).collect();
    run(graph, lexicon, &changed, MAX_AFFECTED, |state| {
        seed(state, found)
    })
}

/// The walk from `seeds`, each reached `proven` as the step named (not `changed`: a class so
/// reached does not lead to its members): what depends on them, up to `limit` entities.
pub(crate) fn walk_from(
    graph: &Graph,
    lexicon: &Lexicon,
    seeds: &[EntityId],
    how: &'static str,
    limit: usize,
) -> Walked {
    run(graph, lexicon, &FxHashSet::default(), limit, |state| {
        for seed in seeds {
            state.reach(*seed, Confidence::Proven, None, how);
        }
    })
}

/// The walk to a fixed point from what `seed` reaches; `changed` are left out of the answer.
fn run(
    graph: &Graph,
    lexicon: &Lexicon,
    changed: &FxHashSet<EntityId>,
    limit: usize,
    seed: impl FnOnce(&mut State),
) -> Walked {
    let mut state = State {
        graph,
        reached: FxHashMap::default(),
        proven: VecDeque::new(),
        possible: VecDeque::new(),
        mentions: Mentions::new(graph, lexicon),
        bases: FxHashMap::default(),
        subtypes: FxHashMap::default(),
        members: FxHashMap::default(),
        calls: FxHashMap::default(),
        shared: FxHashMap::default(),
        unresolved: FxHashSet::default(),
        held: FxHashSet::default(),
        importing: FxHashMap::default(),
        file_importers: FxHashMap::default(),
        doctest_runners: FxHashMap::default(),
        limit: limit.min(MAX_AFFECTED),
        truncated: false,
    };
    seed(&mut state);
    let mut expanded: FxHashSet<(ByNumber, Confidence)> = FxHashSet::default();
    while let Some((id, confidence)) = state.next() {
        codegraph_model::cancel::checkpoint();
        if !expanded.insert((ByNumber(id), confidence)) {
            continue;
        }
        // An entity reached proven was already expanded with that confidence or better.
        if confidence == Confidence::Possible
            && expanded.contains(&(ByNumber(id), Confidence::Proven))
        {
            continue;
        }
        for (next, step, how) in steps(&mut state, &id) {
            state.reach(next, confidence.min(step), Some(id), how);
        }
    }
    let mut affected: Vec<Affected> = state
        .reached
        .iter()
        .filter(|(id, _)| !changed.contains(&id.0))
        .filter_map(|(ByNumber(id), (confidence, _, how))| {
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
            for holder in state.mentions.holders(*path, *name, Mention::Any, None) {
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
        self.owner_among(graph, graph.incoming(&self.id))
    }

    /// [`Node::owner`], given the edges that point at the node.
    fn owner_among<'e>(
        &self,
        graph: &Graph,
        mut incoming: impl Iterator<Item = &'e Edge>,
    ) -> Option<EntityId> {
        self.parent
            .filter(|parent| graph.kind_of(parent).is_some_and(EntityKind::is_type))
            .or_else(|| {
                incoming
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
        modules::module_steps(state, &node, &mut steps);
        return steps;
    }
    // The edges that point at the node, read once for its callers, its users, its owner and
    // its importers.
    let incoming: Vec<&Edge> = graph.incoming(id).collect();
    for edge in incoming
        .iter()
        .filter(|edge| edge.kind == RelationKind::Calls)
    {
        let how = match edge.resolution {
            codegraph_model::Resolution::Dispatch => "dispatch",
            _ => "calls",
        };
        steps.push((edge.from, Confidence::Proven, how));
    }
    let owner = node.owner_among(graph, incoming.iter().copied());
    if node.kind == EntityKind::Method
        && let Some(owner) = owner
    {
        for member in dispatch::overridden(state, &owner, node.name) {
            for (from, form) in dispatch::calls(state, &member).iter() {
                if dispatch::may_run(state, form, &owner) {
                    steps.push((*from, Confidence::Proven, "dispatch"));
                }
            }
        }
    }
    for from in query::ambiguous_caller_ids(graph, id) {
        steps.push((from, Confidence::Possible, "left_aside"));
    }
    // The unresolved calls of a name are the same for every entity so named, and lead
    // nowhere but `possible`: followed from the first one expanded.
    if state.unresolved.insert(ByNumber(node.name)) {
        for from in query::unresolved_caller_ids(graph, &node.name) {
            steps.push((from, Confidence::Possible, "left_aside"));
        }
    }
    if node.kind.is_type() {
        // A class whose instances are asked for (`instance`): its subclasses that may run the
        // method were seeded with it; the others never do.
        type_steps(&incoming, !state.asked_instances(id), &mut steps);
        // A type's own code changed (a class attribute, a field, a base): its members may read it.
        if matches!(
            state.reached.get(&ByNumber(*id)),
            Some((_, None, "changed"))
        ) {
            for member in members(graph, id) {
                steps.push((member, Confidence::Possible, "member"));
            }
        }
    }
    if let Some(owner) = owner {
        special::special_method_steps(state, &node, &owner, &mut steps);
        values::held_class_steps(state, &node, &owner, &mut steps);
    }
    values::value_steps(state, &node, &incoming, &mut steps);
    doctests::doctest_steps(state, &node, &mut steps);
    tests::fixture_steps(state, &node, &mut steps);
    steps
}

/// A changed type: the code that names it and, with `subtypes`, its subtypes (`incoming`: the
/// edges that point at it).
fn type_steps(incoming: &[&Edge], subtypes: bool, steps: &mut Vec<Step>) {
    for edge in incoming {
        match edge.kind {
            RelationKind::Uses => steps.push((edge.from, Confidence::Proven, "uses")),
            RelationKind::Extends | RelationKind::Implements if subtypes => {
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
