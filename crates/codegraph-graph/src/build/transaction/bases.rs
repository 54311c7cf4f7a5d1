//! Steps 4 and 5 of a transaction: the bases of the types of every affected file (phase one),
//! and their changes in the graph's base index, which widen the affected files by every type
//! below a type whose bases changed.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::Transaction;
use crate::resolve::{BaseEdge, Resolver};
use crate::{BaseOf, EntityId, FilePath};
use codegraph_lang::Family;
use codegraph_model::RelationKind;

impl Transaction<'_> {
    /// Step 4 (phase one): the bases of the types of every affected file.
    pub(in crate::build) fn resolve_bases(&self) -> Vec<(FilePath, Vec<BaseEdge>)> {
        let graph_ref = &self.next;
        let mut files: Vec<&FilePath> = self.affected.iter().collect();
        files.sort();
        files
            .par_iter()
            .filter_map(|path| {
                graph_ref.files.get(*path).map(|file| {
                    // A panic here costs the file its bases; its resolution then fails
                    // too, and says so.
                    let bases = codegraph_model::contain::file(|| {
                        Resolver::new(graph_ref, file).resolve_bases()
                    });
                    (*(*path), bases.unwrap_or_default())
                })
            })
            .collect()
    }

    /// Step 5: the bases' changes enter the graph; every type below a type whose bases changed
    /// may find other members, so the files that mention them are re-resolved too.
    pub(in crate::build) fn apply_bases(
        &mut self,
        phase_one: Vec<(FilePath, Vec<BaseEdge>)>,
    ) -> FxHashMap<FilePath, Vec<BaseEdge>> {
        // The files whose old base contributions leave: every file re-resolved or removed.
        let mut contributors: FxHashSet<FilePath> = self.affected.clone();
        contributors.extend(self.removed_edges.iter().map(|(path, _)| *path));
        let touched_children = self.touched_children(&contributors, &phase_one);
        let mut new_contributions: FxHashMap<EntityId, Vec<BaseOf>> = FxHashMap::default();
        for (path, edges) in &phase_one {
            for (child, base, kind, _) in edges {
                new_contributions
                    .entry(*child)
                    .or_default()
                    .push((*base, *kind, *path));
            }
        }
        for child in &touched_children {
            let added = new_contributions.remove(child);
            self.rebase(child, &contributors, added);
        }
        self.based = self.started.elapsed();
        phase_one.into_iter().collect()
    }

    /// The types whose bases may change: the children of the contributors' old base edges
    /// and of the new ones.
    fn touched_children(
        &self,
        contributors: &FxHashSet<FilePath>,
        phase_one: &[(FilePath, Vec<BaseEdge>)],
    ) -> FxHashSet<EntityId> {
        let mut touched_children: FxHashSet<EntityId> = FxHashSet::default();
        for path in contributors {
            let old_resolved = self
                .removed_edges
                .iter()
                .find(|(removed, _)| removed == path)
                .map(|(_, resolved)| resolved.clone())
                .or_else(|| {
                    let file = self.writer.graph.files.get(path)?;
                    Some(file.resolved.clone())
                });
            let Some(resolved) = old_resolved else {
                continue;
            };
            for edge in &resolved.edges {
                if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                    touched_children.insert(edge.from);
                }
            }
        }
        for (_, edges) in phase_one {
            for (child, _, _, _) in edges {
                touched_children.insert(*child);
            }
        }
        touched_children
    }

    /// A type's bases become the others' contributions and `added`; when the set of its bases
    /// changed, every file that mentions a type below it is re-resolved.
    fn rebase(
        &mut self,
        child: &EntityId,
        contributors: &FxHashSet<FilePath>,
        added: Option<Vec<BaseOf>>,
    ) {
        let current = self.next.bases.get(child);
        let old_set: FxHashSet<(EntityId, RelationKind)> = current
            .map(|bases| bases.iter().map(|(base, kind, _)| (*base, *kind)).collect())
            .unwrap_or_default();
        let mut next: Vec<BaseOf> = current
            .map(|bases| {
                bases
                    .iter()
                    .filter(|(_, _, file)| !contributors.contains(file))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        next.extend(added.into_iter().flatten());
        // Only types that still exist keep bases.
        if !self.next.entities.contains_key(child) {
            next.clear();
        }
        next.sort();
        next.dedup();
        let next_set: FxHashSet<(EntityId, RelationKind)> =
            next.iter().map(|(base, kind, _)| (*base, *kind)).collect();
        if old_set != next_set {
            // Everything that inherits from this type may now find other members.
            let mut names = FxHashSet::default();
            self.writer
                .collect_descendant_names(&self.next, child, &mut names);
            let no_modules = FxHashSet::default();
            // Only files of the type's own family can resolve to its members.
            let family: Option<FxHashSet<Family>> = self
                .next
                .location(child)
                .and_then(|location| self.next.files.get(&location.file))
                .map(|file| std::iter::once(file.language.family()).collect());
            let affected = &mut self.affected;
            self.writer.add_mentioning(
                &self.next,
                (&names, &no_modules),
                family.as_ref(),
                affected,
            );
        }
        if next.is_empty() {
            self.next.bases.remove(child);
        } else if self
            .next
            .bases
            .get(child)
            .is_none_or(|bases| **bases != *next)
        {
            // Written only when changed: a write copies the shard this snapshot shares.
            self.next.bases.insert(*child, next.into());
        }
    }
}
