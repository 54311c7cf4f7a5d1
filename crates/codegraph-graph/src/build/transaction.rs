//! One transaction of the writer, a named method per step (the steps of `build`'s header):
//! swap each file's summary and definitions into the indices (`transaction/swap.rs`),
//! re-index names and module keys, widen the set of files to re-resolve by what they mention,
//! resolve bases (phase one) and apply their changes (`transaction/bases.rs`), resolve
//! references (phase two, `transaction/references.rs`, with the walks through changed imports
//! in `transaction/walk.rs`), record what resolution read and re-index the edges
//! (`transaction/edges.rs`), commit.

use std::sync::Arc;

use codegraph_lang::Family;
use codegraph_model::Name;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{ApplyReport, GraphWriter, ListChange, by_key};
use crate::resolve::Mentions;
use crate::{EntityId, FilePath, Graph, NameEntry, Resolved};

mod bases;
mod edges;
mod references;
mod swap;
mod walk;

/// A file of the reference-level path: its old node, and its new mentions.
struct PartialFile {
    old: Arc<crate::FileNode>,
    mentions: Arc<Mentions>,
}

/// The state of one transaction: the next graph and what changed so far.
pub(super) struct Transaction<'w> {
    writer: &'w mut GraphWriter,
    /// The graph being built; the writer keeps the previous one until [`Transaction::commit`].
    next: Graph,
    started: std::time::Instant,
    report: ApplyReport,
    /// Names and module keys that now mean something else.
    changed_names: FxHashSet<Name>,
    changed_modules: FxHashSet<Name>,
    /// The language families of the files whose names or module keys changed: references never
    /// cross families, so only files of these can resolve otherwise.
    changed_families: FxHashSet<Family>,
    /// Name-index entries leaving and joining, grouped by name when applied (`build::by_key`).
    name_changes: Vec<ListChange<NameEntry>>,
    /// Module-map entries removed and added, per key.
    module_changes: FxHashMap<Name, (Vec<FilePath>, Vec<FilePath>)>,
    /// Files to re-resolve.
    affected: FxHashSet<FilePath>,
    /// The mentions of the files this transaction swapped, when it had few (an edit's).
    new_mentions: FxHashMap<FilePath, Arc<Mentions>>,
    /// Files whose reachable-packages walk passed through a file whose import targets changed:
    /// unless something else widens them in, they walk again (`walk_again`).
    walkers: FxHashSet<FilePath>,
    /// Whether this transaction changes what imports can reach (see
    /// `GraphWriter::imports_epoch`).
    imports_changed: bool,
    /// The files swapped in a transaction of a few (an editor's documents): their reachable
    /// packages are kept for the next one.
    swapped: FxHashSet<FilePath>,
    /// Files whose edit changed only references (and positions), with their old node: unless
    /// something widens them into `affected`, only their changed references are resolved.
    partial: FxHashMap<FilePath, PartialFile>,
    /// The resolutions of files replaced or removed in this transaction.
    removed_edges: Vec<(FilePath, Arc<Resolved>)>,
    /// The numbers removed files had (freed, maybe reused by a file added in this
    /// transaction): their edges leave the indices.
    removed_numbers: FxHashMap<FilePath, u32>,
    /// The paths whose node this transaction replaced, added or removed (`Graph::changes`),
    /// while they are at most `Change::LISTED`; `None` past that, or when every file's context
    /// changed (`Transaction::touch_everything`).
    touched: Option<FxHashSet<FilePath>>,
    /// Timings of the steps, for the log.
    indexed: std::time::Duration,
    based: std::time::Duration,
    /// How long `walk_again` took (part of the references' time).
    walking: std::time::Duration,
    resolved_at: std::time::Duration,
}

impl<'w> Transaction<'w> {
    pub(super) fn begin(writer: &'w mut GraphWriter, updated_files: usize) -> Transaction<'w> {
        Transaction {
            next: writer.graph.clone(),
            writer,
            started: std::time::Instant::now(),
            report: ApplyReport {
                updated_files,
                ..ApplyReport::default()
            },
            changed_names: FxHashSet::default(),
            changed_modules: FxHashSet::default(),
            changed_families: FxHashSet::default(),
            name_changes: Vec::new(),
            module_changes: FxHashMap::default(),
            affected: FxHashSet::default(),
            new_mentions: FxHashMap::default(),
            walkers: FxHashSet::default(),
            partial: FxHashMap::default(),
            imports_changed: false,
            swapped: FxHashSet::default(),
            removed_edges: Vec::new(),
            removed_numbers: FxHashMap::default(),
            touched: Some(FxHashSet::default()),
            indexed: Default::default(),
            based: Default::default(),
            walking: Default::default(),
            resolved_at: Default::default(),
        }
    }

    /// A file's node enters the next graph's file map, and the list of what changed.
    fn put_file(&mut self, path: FilePath, node: Arc<crate::FileNode>) {
        self.next.files.insert(path, node);
        self.touch(path);
    }

    fn touch(&mut self, path: FilePath) {
        if let Some(touched) = &mut self.touched {
            touched.insert(path);
            if touched.len() > crate::Change::LISTED {
                self.touched = None;
            }
        }
    }

    /// Says that this transaction may have changed every file (the module aliases changed
    /// what each file is): readers compare every file's node again.
    pub(super) fn touch_everything(&mut self) {
        self.touched = None;
    }

    /// Marks files for re-resolution although their text did not change (the module aliases
    /// did).
    pub(super) fn re_resolve(&mut self, paths: impl IntoIterator<Item = FilePath>) {
        self.affected.extend(paths);
    }

    /// Step 2: re-index names and module keys, once per key.
    pub(super) fn reindex_names_and_modules(&mut self) {
        self.reindex_names();
        self.reindex_modules();
    }

    /// The pending name-index changes enter the next graph, once per name.
    fn reindex_names(&mut self) {
        let mut name_changes = std::mem::take(&mut self.name_changes);
        for (name, removed, added) in by_key(&mut name_changes) {
            // An edit inside a body leaves most names' entries as they were.
            if removed.len() == added.len()
                && removed
                    .iter()
                    .zip(added)
                    .all(|(left, right)| left.2 == right.2)
            {
                continue;
            }
            if removed.is_empty() != added.is_empty() {
                // A name appears or disappears: the flat list of names is stale.
                self.next.names_cache = Default::default();
            }
            let removed: FxHashSet<EntityId> =
                removed.iter().map(|(_, _, entry)| entry.id).collect();
            let mut next: Vec<NameEntry> = self
                .next
                .by_name
                .get(&name)
                .map(|entries| {
                    entries
                        .iter()
                        .filter(|entry| !removed.contains(&entry.id))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            next.extend(added.iter().map(|(_, _, entry)| entry.clone()));
            next.sort();
            next.dedup_by(|later, earlier| later.id == earlier.id);
            if next.is_empty() {
                self.next.by_name.make_mut().remove(&name);
            } else {
                self.next.by_name.make_mut().insert(name, next.into());
            }
        }
    }

    /// The pending module-map changes enter the next graph; a key whose files changed changes
    /// what imports can reach.
    fn reindex_modules(&mut self) {
        let module_changes = std::mem::take(&mut self.module_changes);
        for (key, (removed, added)) in module_changes {
            if removed == added {
                continue;
            }
            self.imports_changed = true;
            let current: Vec<FilePath> = self
                .next
                .modules
                .get(&key)
                .map(|files| files.to_vec())
                .unwrap_or_default();
            let mut next: Vec<FilePath> = current
                .into_iter()
                .filter(|file| !removed.contains(file))
                .collect();
            next.extend(added);
            next.sort();
            next.dedup();
            if next.is_empty() {
                self.next.modules.make_mut().remove(&key);
            } else {
                self.next.modules.make_mut().insert(key, next.into());
            }
        }
    }

    /// Step 3: every file that mentions a changed name or module key is re-resolved.
    pub(super) fn widen_by_mentions(&mut self) {
        self.writer.add_mentioning(
            &self.next,
            (&self.changed_names, &self.changed_modules),
            Some(&self.changed_families),
            &mut self.affected,
        );
        self.indexed = self.started.elapsed();
    }

    /// Step 9: the next graph becomes the writer's.
    pub(super) fn commit(mut self) -> ApplyReport {
        tracing::debug!(
            "apply: {} updates, {} files resolved; indices {:?}, bases {:?}, references {:?} (walking again {:?}), edges {:?}",
            self.report.updated_files,
            self.report.resolved_files,
            self.indexed,
            self.based - self.indexed,
            self.resolved_at - self.based,
            self.walking,
            self.started.elapsed() - self.resolved_at
        );
        if self.imports_changed {
            self.writer.imports_epoch += 1;
        }
        self.next.revision = self.writer.graph.revision + 1;
        let paths = self
            .touched
            .take()
            .map(|touched| touched.into_iter().collect::<Vec<_>>().into_boxed_slice());
        self.next
            .changes
            .push_back(Arc::new(crate::Change { paths }));
        if self.next.changes.len() > crate::Change::KEPT {
            self.next.changes.pop_front();
        }
        // Derived per revision: the next query that needs it rebuilds it.
        self.next.left_aside = Default::default();
        self.writer.graph = self.next;
        self.report
    }
}
