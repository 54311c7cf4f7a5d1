//! Re-resolving only the references an edit changed (the writer's reference-level path).
//!
//! When an edit changes a file's references but nothing else resolution reads of the file
//! (definitions, imports, bases, bindings: `build::moved::same_frame`), and nothing the file's
//! last resolution read changed elsewhere (the writer did not widen the file in), then a
//! reference that is the same as one before (kind, name, receiver, scope, path, and the
//! `match`-arm regions that hold it) resolves as it did: its old outcome is reused at its new
//! site, and only the new references are resolved. The edges come out in the order a full
//! resolution gives (the header's edges, then each reference's in turn), so the result equals
//! `resolve_all_knowing`'s, except that `extra_names` and `guessed` may keep a name only a removed
//! reference read (a superset only makes a later change re-resolve the file when it need not).
//!
//! An edit that renamed functions (`build::moved::renamed_definitions`) takes the same path:
//! the renamed definitions (and what is nested in them) have new ids, which the edges of
//! definitions are mapped to; the references inside them are resolved again; every other
//! reference keeps its outcome, because what a file's resolution reads of its own definitions
//! it reads by name, and a file that mentions an old or a new name is widened in by the writer
//! and resolved whole.
//!
//! A file whose walk (the packages its imports reach, read by its unique-name guesses) gained
//! or lost a package defining a name it guessed takes the same path with an unchanged summary
//! (`Resolver::resolve_again`): only the references that guessed such a name
//! (`Resolved::guessed_by`) are resolved again, on the new walk.

use rustc_hash::{FxHashMap, FxHashSet};

use super::Resolver;
use crate::{AmbiguousRef, Edge, EntityId, ExternalRef, FileNode, Resolved, Site};
use codegraph_index::{BindingKind, FileSummary, Ref, RefKind};
use codegraph_model::{RelationKind, Span};

/// What one reference resolved to.
enum Outcome<'r> {
    Edges(&'r [Edge]),
    Ambiguous(&'r [EntityId]),
    External(&'r Option<codegraph_model::Name>),
    Nothing,
}

/// What a reference's resolution depends on, besides the file's frame and the rest of the graph.
#[derive(PartialEq, Eq, Hash)]
struct RefKey<'s> {
    kind: RefKind,
    name: &'s str,
    receiver: Option<&'s str>,
    scope: Option<u32>,
    path: bool,
    /// The `match`-arm regions that hold the reference, by their index among the regions.
    regions: Vec<u32>,
}

/// The definitions a rename gave new ids (`build::moved::renamed_definitions`): old id → new
/// id, and their indices (the scopes whose references are resolved again).
#[derive(Default)]
struct Renamed {
    ids: FxHashMap<EntityId, EntityId>,
    scopes: FxHashSet<u32>,
}

impl Renamed {
    /// The definitions whose id differs between a file's old node and its new ids.
    fn between(old_ids: &[EntityId], new_ids: &[EntityId]) -> Renamed {
        let mut renamed = Renamed::default();
        for (index, (old, new)) in old_ids.iter().zip(new_ids).enumerate() {
            if old != new {
                renamed.ids.insert(*old, *new);
                renamed.scopes.insert(index as u32);
            }
        }
        renamed
    }

    /// Whether a reference of this scope is inside a renamed definition.
    fn holds(&self, scope: Option<u32>) -> bool {
        scope.is_some_and(|index| self.scopes.contains(&index))
    }

    /// An entity's id after the rename.
    fn new_id(&self, id: &EntityId) -> EntityId {
        *self.ids.get(id).unwrap_or(id)
    }

    /// Whether an old outcome of a reference (past the `header` edges) reached a renamed
    /// definition: the writer's widening should have made it impossible.
    fn reached_by(&self, old: &Resolved, header: usize) -> bool {
        !self.ids.is_empty()
            && (old.edges[header..]
                .iter()
                .any(|edge| self.ids.contains_key(&edge.to))
                || old.ambiguous.iter().any(|entry| {
                    entry
                        .candidates
                        .iter()
                        .any(|candidate| self.ids.contains_key(candidate))
                }))
    }
}

/// Whether [`Resolver::keep_reads`] keeps the old resolution's walk keys.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WalkKeys {
    /// The walk is the old one (an edit of references): what it read stays.
    Keep,
    /// The file walked again, and recorded what the new walk read.
    Drop,
}

impl Resolver<'_> {
    /// This file's resolution, given the resolution `old` of its previous summary `old_summary`,
    /// which differs from this one only in references and positions, and the file's mentions.
    /// `None` when the old resolution cannot be split by reference (two references at one
    /// span); then the caller resolves the whole file.
    pub(crate) fn resolve_changed(
        &self,
        old_node: &FileNode,
        mentioned: &super::Mentions,
    ) -> Option<Resolved> {
        let old = &*old_node.resolved;
        // A rename (`build::moved::renamed_definitions`) changed the ids of the renamed
        // definitions: the edges of definitions and bases name them by their new ids, a
        // reference inside one is resolved again, and an old outcome that reached one (which
        // the writer's widening should have made impossible) sends the file down the full path.
        let renamed = Renamed::between(&old_node.ids, &self.file.ids);
        // The edges before the first call or use come from definitions, bases and imports:
        // the same as before (their sites are the same records, at their new places).
        let header = header_len(old);
        let mut resolved = Resolved::default();
        for edge in &old.edges[..header] {
            let mut edge = edge.clone();
            edge.from = renamed.new_id(&edge.from);
            edge.to = renamed.new_id(&edge.to);
            resolved.edges.push(edge);
        }
        if renamed.reached_by(old, header) {
            return None;
        }
        let outcomes = outcomes_by_key(old_node, header, &renamed)?;
        // The new references: the old outcome where there is one, else resolved now.
        let new_regions = regions(self.summary);
        for (position, reference) in self.summary.refs.iter().enumerate() {
            match outcomes.get(&key(reference, &new_regions)) {
                Some((outcome, old_position)) if !renamed.holds(reference.scope()) => {
                    let old_reference = (old, *old_position);
                    self.reuse(position, reference, outcome, old_reference, &mut resolved);
                }
                _ => self.resolve_reference(position, reference, &mut resolved),
            }
        }
        self.keep_reads(old, &mut resolved, WalkKeys::Keep);
        self.record_extras_beyond(&mut resolved, mentioned);
        // The same imports name the same files (else the file would not be on this path).
        resolved.import_targets = old.import_targets.clone();
        // The old walk's packages, unless this resolution walked again, while what walks it
        // read is what the old resolution read.
        if self.reachable().is_none() && walk_keys(&resolved) == walk_keys(old) {
            resolved.reachable = old.reachable;
        }
        Some(resolved)
    }

    /// This file's resolution again, given its last one `old` (of this very summary and of
    /// everything it read but its walk), with only the references at `redo` (sorted positions)
    /// resolved anew: the packages its imports reach changed, and these are the references that
    /// guessed a name a gained or lost package defines (`Transaction::walk_again`); every other
    /// reference keeps its outcome, since the walk's packages are read by the guesses alone.
    /// `mentioned` are the file's mentions (`resolve::mentions`). `None` when the old
    /// resolution cannot be split by reference.
    pub(crate) fn resolve_again(
        &self,
        old: &Resolved,
        redo: &[u32],
        mentioned: &super::Mentions,
    ) -> Option<Resolved> {
        let summary = self.summary;
        let header = header_len(old);
        let outcomes = old_outcomes(summary, old, header, |scope| self.scope_id(scope))?;
        // The walk, on the graph as it is now: what it read is recorded as a full
        // resolution's walk would be, whether or not a redone guess asks for it.
        self.walk_packages();
        let mut resolved = Resolved {
            edges: old.edges[..header].to_vec(),
            ..Resolved::default()
        };
        for (position, (reference, outcome)) in summary.refs.iter().zip(&outcomes).enumerate() {
            let at = position as u32;
            if redo.binary_search(&at).is_ok() {
                self.resolve_reference(position, reference, &mut resolved);
            } else {
                self.reuse(position, reference, outcome, (old, at), &mut resolved);
            }
        }
        // The old walk's keys leave: the walk above recorded the new one's.
        self.keep_reads(old, &mut resolved, WalkKeys::Drop);
        self.record_extras_beyond(&mut resolved, mentioned);
        resolved.import_targets = old.import_targets.clone();
        Some(resolved)
    }

    /// What the old resolution `old` read, kept for one whose outcomes it partly gives: its
    /// names, module keys (its walk's keys too, with [`WalkKeys::Keep`]) and guesses (the kept
    /// outcomes' with the new references'; those outside any reference as they were).
    fn keep_reads(&self, old: &Resolved, resolved: &mut Resolved, walk_keys: WalkKeys) {
        resolved
            .guessed_by
            .extend(guesses_of(old, u32::MAX).map(|name| (u32::MAX, name)));
        for name in &old.extra_names {
            self.recorder.name(name);
        }
        for module in &old.extra_modules {
            if walk_keys == WalkKeys::Keep || !super::is_walk_key(module) {
                self.recorder.module(module);
            }
        }
        for name in &old.guessed {
            self.recorder.guessed_before(name);
        }
    }

    /// An old outcome, at a reference's new site, with the guesses the old reference (of
    /// resolution `old`, at `old_position`) made.
    fn reuse(
        &self,
        position: usize,
        reference: &Ref,
        outcome: &Outcome<'_>,
        (old, old_position): (&Resolved, u32),
        into: &mut Resolved,
    ) {
        into.guessed_by
            .extend(guesses_of(old, old_position).map(|name| (position as u32, name)));
        let from = self.scope_id(reference.scope());
        match outcome {
            Outcome::Edges(edges) => into.edges.extend(edges.iter().map(|edge| Edge {
                from,
                to: edge.to,
                kind: edge.kind,
                resolution: edge.resolution,
                site: Site::reference(position),
            })),
            Outcome::Ambiguous(candidates) => into.ambiguous.push(AmbiguousRef {
                from,
                name: reference.name,
                site: reference.span,
                candidates: candidates.to_vec(),
            }),
            Outcome::External(module) => into.external.push(ExternalRef {
                reference: position as u32,
                module: *(*module),
            }),
            Outcome::Nothing => {}
        }
    }
}

/// How many edges come before the first call or use: those of definitions, bases and imports.
fn header_len(old: &Resolved) -> usize {
    old.edges
        .iter()
        .position(|edge| matches!(edge.kind, RelationKind::Calls | RelationKind::Uses))
        .unwrap_or(old.edges.len())
}

/// Each old reference's outcome (but those inside a renamed definition), by what it depends
/// on, with the reference's position; the first reference of a key gives it. `None` when the
/// old resolution cannot be split by reference ([`old_outcomes`]).
fn outcomes_by_key<'o>(
    old_node: &'o FileNode,
    header: usize,
    renamed: &Renamed,
) -> Option<FxHashMap<RefKey<'o>, (Outcome<'o>, u32)>> {
    let (old_summary, old) = (&*old_node.summary, &*old_node.resolved);
    let old_scope_id = |scope: Option<u32>| match scope {
        Some(index) => old_node.ids[index as usize],
        None => old_node.module_id,
    };
    let old_regions = regions(old_summary);
    let mut outcomes: FxHashMap<RefKey<'_>, (Outcome<'_>, u32)> = FxHashMap::default();
    for (position, (reference, outcome)) in old_summary
        .refs
        .iter()
        .zip(old_outcomes(old_summary, old, header, old_scope_id)?)
        .enumerate()
    {
        if !renamed.holds(reference.scope()) {
            outcomes
                .entry(key(reference, &old_regions))
                .or_insert((outcome, position as u32));
        }
    }
    Some(outcomes)
}

/// The walk keys a resolution read (`Resolved::extra_modules`).
fn walk_keys(resolved: &Resolved) -> Vec<codegraph_model::Name> {
    resolved
        .extra_modules
        .iter()
        .filter(|key| super::is_walk_key(key))
        .cloned()
        .collect()
}

/// What each reference of `summary` resolved to in `old` (its resolution, whose first `header`
/// edges are not references'), in reference order; `from` is the entity a reference's scope
/// is. `None` when two references share a site, or the edges, ambiguities and external calls
/// are not one per reference in order.
fn old_outcomes<'r>(
    summary: &FileSummary,
    old: &'r Resolved,
    header: usize,
    from: impl Fn(Option<u32>) -> EntityId,
) -> Option<Vec<Outcome<'r>>> {
    // A reference left aside as bounded is no outcome to keep: its file resolves whole.
    if !old.bounded.is_empty() {
        return None;
    }
    let mut sites: FxHashSet<Span> = FxHashSet::default();
    if !summary
        .refs
        .iter()
        .all(|reference| sites.insert(reference.span))
    {
        return None;
    }
    let (mut edge, mut ambiguous, mut external) = (header, 0, 0);
    let mut outcomes = Vec::with_capacity(summary.refs.len());
    for (position, reference) in summary.refs.iter().enumerate() {
        let from = from(reference.scope());
        let start = edge;
        while old.edges.get(edge).is_some_and(|candidate| {
            candidate.site == Site::reference(position) && candidate.from == from
        }) {
            edge += 1;
        }
        outcomes.push(if edge > start {
            Outcome::Edges(&old.edges[start..edge])
        } else if let Some(entry) = old.ambiguous.get(ambiguous)
            && entry.site == reference.span
        {
            ambiguous += 1;
            Outcome::Ambiguous(&entry.candidates)
        } else if let Some(entry) = old.external.get(external)
            && entry.reference as usize == position
        {
            external += 1;
            Outcome::External(&entry.module)
        } else {
            Outcome::Nothing
        });
    }
    let whole = edge == old.edges.len()
        && ambiguous == old.ambiguous.len()
        && external == old.external.len();
    whole.then_some(outcomes)
}

/// The names a reference of an old resolution guessed (`u32::MAX`: outside any reference).
pub(super) fn guesses_of(
    old: &Resolved,
    position: u32,
) -> impl Iterator<Item = codegraph_model::Name> + '_ {
    let start = old.guessed_by.partition_point(|(at, _)| *at < position);
    old.guessed_by[start..]
        .iter()
        .take_while(move |(at, _)| *at == position)
        .map(|(_, name)| *name)
}

/// The regions of a file's `match`-arm bindings (those `Resolver::binding_of` reads by
/// position), in binding order: the same bindings in two summaries of one frame.
fn regions(summary: &FileSummary) -> Vec<(u32, u32)> {
    summary
        .bindings
        .iter()
        .filter(|binding| binding.kind != BindingKind::Alias)
        .filter_map(|binding| binding.region())
        .collect()
}

fn key<'s>(reference: &'s Ref, regions: &[(u32, u32)]) -> RefKey<'s> {
    let at = reference.span.start_byte;
    let holding = regions
        .iter()
        .enumerate()
        .filter(|(_, (start, end))| *start <= at && at < *end)
        .map(|(index, _)| index as u32)
        .collect();
    RefKey {
        kind: reference.kind,
        name: &reference.name,
        receiver: reference.receiver.as_deref(),
        scope: reference.scope(),
        path: reference.path,
        regions: holding,
    }
}

/// Where each reference of a file's summary went between two summaries whose references
/// correspond one to one: old span → new span (the ambiguous references' sites, which are
/// spans; edges name their records). `None` when one old span would go to two places.
pub(crate) fn moved_references(
    old: &FileSummary,
    new: &FileSummary,
) -> Option<FxHashMap<Span, Span>> {
    let mut moves: FxHashMap<Span, Span> = FxHashMap::default();
    old.refs
        .iter()
        .zip(&new.refs)
        .all(|(a, b)| *moves.entry(a.span).or_insert(b.span) == b.span)
        .then_some(moves)
}
