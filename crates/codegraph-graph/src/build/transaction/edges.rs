//! Steps 7 and 8 of a transaction: what each re-resolved file read through inferred types
//! enters the mention index, and the edges are re-indexed: the old edges of every re-resolved
//! or removed file leave the incoming and outgoing lists, the new join.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Transaction;
use crate::build::{ListChange, edge_ends, reindex};
use crate::{FilePath, Resolved};

/// The changes of the incoming and outgoing edge lists, per entity.
#[derive(Default)]
struct EdgeListChanges {
    incoming: Vec<ListChange<u32>>,
    outgoing: Vec<ListChange<u32>>,
}

impl Transaction<'_> {
    /// Steps 7 and 8: record what each file's resolution read through inferred types, and
    /// re-index the edges: drop the old edges of every re-resolved or removed file, add the new.
    pub(in crate::build) fn reindex_edges(&mut self, resolved: Vec<(FilePath, Resolved)>) {
        let old_by_path = self.old_resolutions(&resolved);
        self.record_reads(&resolved, &old_by_path);
        let changes = self.edge_list_changes(&resolved, &old_by_path);
        for (path, result) in resolved {
            if let Some(file) = self.next.files.get(&path) {
                let mut node = (**file).clone();
                node.resolved = Arc::new(result);
                self.put_file(path, Arc::new(node));
            }
        }
        let paths = &self.writer.file_paths;
        reindex(&mut self.next.incoming, changes.incoming, paths);
        reindex(&mut self.next.outgoing, changes.outgoing, paths);
        self.next.file_paths = paths.clone();
    }

    /// The old resolution of every file removed, replaced or re-resolved.
    fn old_resolutions(
        &mut self,
        resolved: &[(FilePath, Resolved)],
    ) -> FxHashMap<FilePath, Arc<Resolved>> {
        let mut old_by_path: FxHashMap<FilePath, Arc<Resolved>> =
            std::mem::take(&mut self.removed_edges)
                .into_iter()
                .collect();
        for (path, _) in resolved {
            if !old_by_path.contains_key(path)
                && let Some(old) = self.writer.graph.files.get(path)
            {
                old_by_path.insert(*path, old.resolved.clone());
            }
        }
        old_by_path
    }

    /// What each re-resolved file read through inferred types, beyond its own mentions,
    /// replaces in the mention index what its old resolution read.
    fn record_reads(
        &mut self,
        resolved: &[(FilePath, Resolved)],
        old_by_path: &FxHashMap<FilePath, Arc<Resolved>>,
    ) {
        for (path, result) in resolved {
            let Some(&number) = self.writer.file_numbers.get(path) else {
                continue;
            };
            let (old_names, old_modules) = old_by_path
                .get(path)
                .map(|old| (old.extra_names.clone(), old.extra_modules.clone()))
                .unwrap_or_default();
            if old_names != result.extra_names || old_modules != result.extra_modules {
                self.writer
                    .forget_mentions(number, (old_names, old_modules));
                self.writer.add_mentions(
                    number,
                    (result.extra_names.clone(), result.extra_modules.clone()),
                );
            }
        }
    }

    /// Each entity's list changes only where a file starts or stops reaching it: the entities
    /// of its old edges and of its new, compared as sets. A file whose edges still join the
    /// same entities in the same order (an edit that only moved text), under the same number,
    /// changes nothing.
    fn edge_list_changes(
        &self,
        resolved: &[(FilePath, Resolved)],
        old_by_path: &FxHashMap<FilePath, Arc<Resolved>>,
    ) -> EdgeListChanges {
        let new_by_path: FxHashMap<FilePath, &Resolved> = resolved
            .iter()
            .map(|(path, result)| (*path, result))
            .collect();
        let mut paths: Vec<FilePath> = old_by_path.keys().copied().collect();
        paths.extend(
            new_by_path
                .keys()
                .filter(|path| !old_by_path.contains_key(*path)),
        );
        let empty = Resolved::default();
        let mut changes = EdgeListChanges::default();
        for path in paths {
            let old_number = self
                .removed_numbers
                .get(&path)
                .or_else(|| self.writer.file_numbers.get(&path))
                .copied();
            let new_number = self.writer.file_numbers.get(&path).copied();
            let old = old_by_path.get(&path).map(|old| &**old);
            let new = new_by_path.get(&path).copied();
            if let (Some(old), Some(new)) = (old, new)
                && old_number == new_number
                && same_shape(old, new)
            {
                continue;
            }
            let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
            changes.push(old_number, new_number, old, new);
        }
        changes
    }
}

impl EdgeListChanges {
    /// A file's edges `old` under `old_number` leave, and `new` under `new_number` join: under
    /// one number, only the entities reached before and not now, or now and not before.
    fn push(
        &mut self,
        old_number: Option<u32>,
        new_number: Option<u32>,
        old: &Resolved,
        new: &Resolved,
    ) {
        let (old_to, old_from) = edge_ends(old);
        let (new_to, new_from) = edge_ends(new);
        let same = old_number == new_number;
        for (changes, before, after) in [
            (&mut self.incoming, old_to, new_to),
            (&mut self.outgoing, old_from, new_from),
        ] {
            if let Some(number) = old_number {
                for id in before.iter().filter(|id| !same || !after.contains(*id)) {
                    changes.push((*id, false, number));
                }
            }
            if let Some(number) = new_number {
                for id in after.iter().filter(|id| !same || !before.contains(*id)) {
                    changes.push((*id, true, number));
                }
            }
        }
    }
}

/// Whether two resolutions' edges join the same entities in the same order.
fn same_shape(old: &Resolved, new: &Resolved) -> bool {
    old.edges.len() == new.edges.len()
        && old
            .edges
            .iter()
            .zip(&new.edges)
            .all(|(old, new)| old.from == new.from && old.to == new.to)
}
