//! The references left aside: those that may reach an entity (a call of it, a base naming it)
//! but are no edge, because several definitions fit their name (ambiguous) or the resolution
//! rules found none for them although a definition of that name exists (unresolved). They are
//! computed here at query time, never stored as edges, so that every door can say "none
//! proven" rather than "none".

use codegraph_model::Name;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{EntityId, Graph, owner_type};
use crate::{AmbiguousRef, ExternalRef, FileNode, FilePath, IdKey};
use codegraph_model::{EntityKind, RelationKind};

/// At most this many candidates are named for an unresolved reference (a common name such as
/// `get` may have hundreds of definitions).
const MAX_UNRESOLVED_CANDIDATES: usize = 20;

/// Why a reference that may reach an entity is no edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeftAside {
    /// Several definitions fit its name and nothing said which.
    Ambiguous,
    /// The resolution rules found no definition for it (a receiver of unknown type where the
    /// language allows no guess, a name not in scope), though definitions of that name exist.
    Unresolved,
    /// Its resolution was stopped at the bound every walk has (`walk`): types or modules that
    /// name each other without end, or nest past any real code's depth.
    Bounded,
}

impl LeftAside {
    pub fn as_str(self) -> &'static str {
        match self {
            LeftAside::Ambiguous => "ambiguous",
            LeftAside::Unresolved => "unresolved",
            LeftAside::Bounded => "bounded",
        }
    }
}

/// A reference that may reach an entity but was left aside. "No callers" and "none proven"
/// differ by these.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PossibleCall {
    /// The entity the reference is in (for a base, the inheriting type).
    pub from: EntityId,
    pub file: FilePath,
    /// The name as written.
    pub name: Name,
    /// What the name was called on, as written (`self.repo`, `client`), when anything.
    pub receiver: Option<Name>,
    /// One-based.
    pub line: u32,
    /// The definitions the name could mean (for an unresolved reference, the first few of that
    /// name).
    pub candidates: Vec<EntityId>,
    pub reason: LeftAside,
}

fn ambiguous_call(file: &FileNode, ambiguous: &AmbiguousRef) -> PossibleCall {
    PossibleCall {
        from: ambiguous.from,
        file: file.path,
        name: ambiguous.name,
        receiver: None,
        line: file.summary.locate(ambiguous.site).start.line + 1,
        candidates: ambiguous.candidates.clone(),
        reason: LeftAside::Ambiguous,
    }
}

/// The callable definitions an unresolved reference of `name` could mean (the first few).
fn unresolved_candidates(graph: &Graph, name: &str) -> Vec<EntityId> {
    graph
        .named(name)
        .iter()
        .filter(|entry| entry.kind.is_callable())
        .take(MAX_UNRESOLVED_CANDIDATES)
        .map(|entry| entry.id)
        .collect()
}

/// An external reference whose name a workspace definition also has, unless an import says
/// where it comes from (then it is another module's, not a doubt). `candidates` are those of
/// its name ([`unresolved_candidates`]).
fn unresolved_call(
    file: &FileNode,
    external: &ExternalRef,
    candidates: &[EntityId],
) -> Option<PossibleCall> {
    if external.module.is_some() || candidates.is_empty() {
        return None;
    }
    let reference = file.external_reference(external)?;
    Some(PossibleCall {
        from: *file.scope_entity(reference.scope()),
        file: file.path,
        name: reference.name,
        receiver: reference.receiver,
        line: file.summary.locate(reference.span).start.line + 1,
        candidates: candidates.to_vec(),
        reason: if file
            .resolved
            .bounded
            .binary_search(&external.reference)
            .is_ok()
        {
            LeftAside::Bounded
        } else {
            LeftAside::Unresolved
        },
    })
}

/// Where the references left aside are: the ambiguous references by each of their candidates,
/// and the unresolved calls by name (only names some workspace definition has). One pass over
/// every file, once per revision, instead of one per question.
#[derive(Debug, Default)]
pub struct LeftAsideIndex {
    /// Candidate → (file, index in its `resolved.ambiguous`).
    ambiguous: FxHashMap<EntityId, Vec<(FilePath, u32)>>,
    /// Name → (file, index in its `resolved.external`).
    unresolved: FxHashMap<Name, Vec<(FilePath, u32)>>,
}

impl LeftAsideIndex {
    fn build(graph: &Graph) -> LeftAsideIndex {
        let mut index = LeftAsideIndex::default();
        for file in graph.files() {
            for (position, ambiguous) in file.resolved.ambiguous.iter().enumerate() {
                for candidate in &ambiguous.candidates {
                    index
                        .ambiguous
                        .entry(*candidate)
                        .or_default()
                        .push((file.path, position as u32));
                }
            }
            for (position, external) in file.resolved.external.iter().enumerate() {
                let Some(reference) = file.external_reference(external) else {
                    continue;
                };
                if external.module.is_none() && !graph.named(&reference.name).is_empty() {
                    index
                        .unresolved
                        .entry(reference.name)
                        .or_default()
                        .push((file.path, position as u32));
                }
            }
        }
        index
    }

    /// The graph's index, built now if this revision has none yet.
    fn of(graph: &Graph) -> &LeftAsideIndex {
        graph
            .left_aside
            .get_or_init(|| std::sync::Arc::new(LeftAsideIndex::build(graph)))
    }
}

/// The ambiguous references naming `id` among their candidates, each with its file.
fn ambiguous_naming<'g>(
    graph: &'g Graph,
    index: &'g LeftAsideIndex,
    id: &str,
) -> impl Iterator<Item = (&'g FileNode, &'g AmbiguousRef)> {
    index
        .ambiguous
        .get(id)
        .into_iter()
        .flatten()
        .filter_map(|(path, position)| {
            let file = graph.file(path)?;
            Some((&**file, file.resolved.ambiguous.get(*position as usize)?))
        })
}

/// The unresolved references of `name`, each with its file.
fn unresolved_named<'g>(
    graph: &'g Graph,
    index: &'g LeftAsideIndex,
    name: &Name,
) -> impl Iterator<Item = (&'g FileNode, &'g ExternalRef)> {
    index
        .unresolved
        .get(name)
        .into_iter()
        .flatten()
        .filter_map(|(path, position)| {
            let file = graph.file(path)?;
            Some((&**file, file.resolved.external.get(*position as usize)?))
        })
}

/// The references anywhere that may be calls of `id`: ambiguous ones naming it among their
/// candidates, then unresolved calls of its name. Ordered by file and line within each reason.
pub fn possible_callers(graph: &Graph, id: &str) -> Vec<PossibleCall> {
    let index = LeftAsideIndex::of(graph);
    let mut found: Vec<PossibleCall> = ambiguous_naming(graph, index, id)
        .map(|(file, ambiguous)| ambiguous_call(file, ambiguous))
        .collect();
    if let Some(name) = graph.entity(id).map(|entity| entity.name) {
        let candidates = unresolved_candidates(graph, &name);
        found.extend(
            unresolved_named(graph, index, &name)
                .filter_map(|(file, external)| unresolved_call(file, external, &candidates)),
        );
    }
    found
}

/// The entities that hold the ambiguous references [`possible_callers`] lists for `id`,
/// without describing each reference: for walks that visit many entities.
pub fn ambiguous_caller_ids(graph: &Graph, id: &str) -> Vec<EntityId> {
    let index = LeftAsideIndex::of(graph);
    ambiguous_naming(graph, index, id)
        .map(|(_, ambiguous)| ambiguous.from)
        .collect()
}

/// The entities that hold the unresolved calls of `name` [`possible_callers`] lists for every
/// entity so named (the same for all of them): for walks that visit many entities.
pub fn unresolved_caller_ids(graph: &Graph, name: &(impl IdKey + ?Sized)) -> Vec<EntityId> {
    let index = LeftAsideIndex::of(graph);
    let Some(name) = name.interned() else {
        return Vec::new();
    };
    unresolved_named(graph, index, &name)
        .filter(|(_, external)| external.module.is_none())
        .filter_map(|(file, external)| {
            let reference = file.external_reference(external)?;
            Some(*file.scope_entity(reference.scope()))
        })
        .collect()
}

/// The references made inside `id` that may be calls it makes, not proven: ambiguous ones,
/// then unresolved calls of names the workspace defines.
pub fn possible_callees(graph: &Graph, id: &str) -> Vec<PossibleCall> {
    let Some(location) = graph.location(id) else {
        return Vec::new();
    };
    let Some(file) = graph.file(&location.file) else {
        return Vec::new();
    };
    let ambiguous = file
        .resolved
        .ambiguous
        .iter()
        .filter(|ambiguous| &*ambiguous.from == id)
        .map(|ambiguous| ambiguous_call(file, ambiguous));
    let unresolved = file.resolved.external.iter().filter_map(|external| {
        let reference = file.external_reference(external)?;
        if &**file.scope_entity(reference.scope()) != id {
            return None;
        }
        unresolved_call(
            file,
            external,
            &unresolved_candidates(graph, &reference.name),
        )
    });
    ambiguous.chain(unresolved).collect()
}

/// For every definition of file `path`, how many ambiguous references anywhere name it among
/// their candidates (for code lenses; from the revision's [`LeftAsideIndex`]).
pub fn possible_caller_counts(graph: &Graph, path: &str) -> FxHashMap<EntityId, usize> {
    let index = LeftAsideIndex::of(graph);
    let Some(file) = graph.file(path) else {
        return FxHashMap::default();
    };
    file.ids
        .iter()
        .filter_map(|id| Some((*id, index.ambiguous.get(id)?.len())))
        .collect()
}

/// The last name of a possibly qualified base (`models.Base`, `crate::a::Trait`, `\App\Base`).
fn last_segment(path: &str) -> &str {
    path.rsplit(['.', ':', '\\', '/']).next().unwrap_or(path)
}

/// The inheriting type an `Inherit` of `file` speaks of: its definition in the file, or the
/// type it names (`impl Trait for Type`), preferably in the same file.
fn inheriting_type(
    graph: &Graph,
    file: &FileNode,
    inherit: &codegraph_index::Inherit,
) -> Option<EntityId> {
    if let Some(index) = inherit.child {
        return file.ids.get(index as usize).cloned();
    }
    let child_name = inherit.child_name.as_ref()?;
    let types: Vec<&crate::NameEntry> = graph
        .named(child_name)
        .iter()
        .filter(|entry| entry.kind.is_type())
        .collect();
    let here: Vec<&&crate::NameEntry> = types
        .iter()
        .filter(|entry| entry.file == file.path)
        .collect();
    match (here.as_slice(), types.as_slice()) {
        ([only], _) => Some(only.id),
        ([], [only]) => Some(only.id),
        _ => None,
    }
}

/// The bases anywhere written with the name of `id` (a type, or for a method its owner type)
/// that became no base edge to a definition of that name: ambiguous when several types have the
/// name, unresolved otherwise (qualified by a module outside the workspace, not in scope). For
/// a method, only the inheriting types that define a member of the method's name count, and
/// `from` is that member.
pub fn possible_implementations(graph: &Graph, id: &str) -> Vec<PossibleCall> {
    let Some(entity) = graph.entity(id) else {
        return Vec::new();
    };
    let (base, member) = if entity.kind == EntityKind::Method {
        match owner_type(graph, &entity) {
            Some(owner) => (owner, Some(entity.name)),
            None => return Vec::new(),
        }
    } else {
        (entity.id, None)
    };
    let Some(base_name) = graph.entity(&base).map(|base| base.name) else {
        return Vec::new();
    };
    let candidates: Vec<EntityId> = graph
        .named(&base_name)
        .iter()
        .filter(|entry| entry.kind.is_type() || entry.kind == EntityKind::Module)
        .map(|entry| entry.id)
        .collect();
    let reason = if candidates.len() > 1 {
        LeftAside::Ambiguous
    } else {
        LeftAside::Unresolved
    };
    let mut found = Vec::new();
    for file in graph.files() {
        for inherit in &file.summary.inherits {
            if last_segment(&inherit.base) != base_name {
                continue;
            }
            let Some(child) = inheriting_type(graph, file, inherit) else {
                continue;
            };
            if child == base {
                continue;
            }
            let resolved = graph.outgoing(&child).any(|edge| {
                matches!(edge.kind, RelationKind::Extends | RelationKind::Implements)
                    && graph
                        .entity(&edge.to)
                        .is_some_and(|target| target.name == base_name)
            });
            if resolved {
                continue;
            }
            let from = match &member {
                None => child,
                Some(member) => match super::members(graph, &child)
                    .into_iter()
                    .find(|found| &found.name == member)
                {
                    Some(found) => found.id,
                    None => continue,
                },
            };
            found.push(PossibleCall {
                from,
                file: file.path,
                name: inherit.base,
                receiver: None,
                line: file.summary.locate(inherit.span).start.line + 1,
                candidates: candidates.clone(),
                reason,
            });
        }
    }
    found
}
