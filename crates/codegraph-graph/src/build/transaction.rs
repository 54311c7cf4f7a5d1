//! One transaction of the writer, a named method per step (the steps of `build`'s header):
//! swap each file's summary and definitions into the indices, re-index names and module keys,
//! widen the set of files to re-resolve by what they mention, resolve bases (phase one) and
//! apply their changes, resolve references (phase two), record what resolution read, re-index
//! the edges, commit.

use std::sync::Arc;

use codegraph_model::Name;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::moved::{
    moved_node, relocated, renamed_definitions, same_but_positions, same_frame, same_imports,
    same_mention_sources,
};
use super::{
    ApplyReport, FileContent, GraphWriter, ListChange, RECENT_MENTIONS, by_key, edge_ends, exports,
    imports_change, module_signature, name_entry, new_node, node_with_ids, reindex,
};
use crate::modules::{module_keys, package_key};
use crate::resolve::{
    BaseEdge, Mentions, Reachable, Resolver, import_targets, import_targets_by_address,
    is_walk_key, mentioned_names, mentions, names_in_packages, path_receivers, walk_key,
    walk_reachable_in,
};
use crate::{EntityId, EntityLoc, FilePath, Graph, NameEntry, Resolved};
use codegraph_index::FileSummary;
use codegraph_model::RelationKind;

/// A walker's new walk, the packages it gained or lost, and whether it walked the same files;
/// `None` where it must be resolved.
type WalkedAgain = (Reachable, Vec<&'static str>, bool);

/// A file of the reference-level path: its old node, and its new mentions.
type PartialFile = (Arc<crate::FileNode>, Arc<Mentions>);

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

    /// Step 1: a file's new content (or its removal) replaces the old in the entities, the
    /// pending name and module changes and the mention indices.
    pub(super) fn swap_file(&mut self, path: FilePath, content: Option<FileContent>) {
        let old = self.next.files.get(&path).cloned();
        if self.report.updated_files <= RECENT_MENTIONS {
            self.swapped.insert(path);
        }
        if let (Some(old), Some(new)) = (&old, &content)
            && old.hash == new.hash
            && old.language == new.language
            && *old.summary == *new.summary
        {
            // Same text: nothing to do (an editor re-sending a buffer, a touched file), but keep
            // the newest resident copy (the buffer's own) or none (a buffer closed).
            if !old.text.same_as(&new.text) {
                let mut node = (**old).clone();
                node.text = new.text.clone();
                self.put_file(path, Arc::new(node));
            }
            return;
        }
        // A file changes: the mention indices are needed, unless the graph had no files (then
        // every file of this transaction is new, so resolved anyway, and no earlier file can
        // mention what it defines). A warm start re-sends every file unchanged: it never
        // gets here.
        if !self.writer.graph.files.is_empty() {
            self.writer.prepare_changes();
        }
        // An edit that moved text but changed no name, definition, import, binding or base
        // (most keystrokes inside a body): the file's ids, name entries, module keys, mentions
        // and exports are what they were, so the indices stay; only its node and its own
        // resolution change.
        if let (Some(old), Some(new)) = (&old, &content)
            && old.language == new.language
            && same_but_positions(&old.summary, &new.summary)
        {
            let mut node = moved_node(old, content.expect("matched as Some"), &self.next.aliases);
            // Its references mean what they meant: the old resolution, moved. Its edges join
            // the same entities in the same order, so the edge indices stay.
            if let Some(resolved) = relocated(&old.summary, &node.summary, &old.resolved) {
                node.resolved = Arc::new(resolved);
                self.put_file(path, Arc::new(node));
                return;
            }
            self.removed_edges.push((path, old.resolved.clone()));
            self.put_file(path, Arc::new(node));
            self.affected.insert(path);
            return;
        }
        // An edit that changed references but no name, definition, import, binding or base
        // (typing a call's name): the ids, name entries, module keys and exports stay; the
        // mentions change by the names that came or went, and only the changed references
        // are resolved again (`Resolver::resolve_changed`), unless something else widens the
        // file in.
        if let (Some(old), Some(new)) = (&old, &content)
            && old.language == new.language
            && same_frame(&old.summary, &new.summary)
        {
            let node = moved_node(old, content.expect("matched as Some"), &self.next.aliases);
            let number = self.writer.number_of(&path);
            let old_mentions = self.old_mentions(old);
            let new_mentions =
                self.update_mentions(number, &path, &node, Some(old_mentions), Some(&old.summary));
            self.partial.insert(path, (old.clone(), new_mentions));
            self.put_file(path, Arc::new(node));
            return;
        }
        // An edit that renamed functions and changed nothing else of the frame (typing a
        // definition's name): the renamed definitions' entities, name entries and names change,
        // and with them every file that mentions an old or a new name, the file itself
        // included; unless that widens the file in, only its changed references and those
        // inside the renamed definitions are resolved (`Resolver::resolve_changed`).
        if let (Some(old), Some(new)) = (&old, &content)
            && old.language == new.language
            && let Some((renamed, ids)) = renamed_definitions(old, &new.summary)
        {
            self.swap_renamed(path, old, content.expect("matched as Some"), ids, &renamed);
            return;
        }
        let reach_same = match (&old, &content) {
            (Some(old), Some(new)) => {
                old.language == new.language
                    && old.summary.package == new.summary.package
                    && old.summary.path_modules == new.summary.path_modules
                    && same_imports(&old.summary.imports, &new.summary.imports)
            }
            _ => false,
        };
        if !reach_same {
            self.imports_changed = true;
        }
        let old_exports = old.as_ref().map(|node| exports(node)).unwrap_or_default();
        let old_keys = old
            .as_ref()
            .map(|node| module_keys(&node.path, &node.summary))
            .unwrap_or_default();
        let old_module_signature = old.as_ref().map(|node| module_signature(&node.summary));
        let number = self.writer.number_of(&path);
        let mut old_mentions: Option<(Vec<Name>, Vec<Name>)> = None;
        if let Some(old) = &old {
            self.definitions_leave(old, 0..old.ids.len());
            self.next.entities.remove(&old.module_id);
            for key in &old_keys {
                self.module_changes.entry(*key).or_default().0.push(path);
            }
            old_mentions = Some(self.old_mentions(old));
            self.removed_edges.push((path, old.resolved.clone()));
            self.next.files.remove(&path);
            self.touch(path);
        }
        let new_node = content.map(|content| {
            Arc::new(new_node(
                &path,
                content,
                Resolved::default(),
                &self.next.aliases,
            ))
        });
        let new_exports = new_node
            .as_ref()
            .map(|node| exports(node))
            .unwrap_or_default();
        let new_keys = new_node
            .as_ref()
            .map(|node| module_keys(&node.path, &node.summary))
            .unwrap_or_default();
        if let Some(node) = &new_node {
            self.definitions_enter(node, 0..node.ids.len());
            self.next.entities.insert(
                node.module_id,
                EntityLoc {
                    file: path,
                    index: None,
                },
            );
            for key in &new_keys {
                self.module_changes.entry(*key).or_default().1.push(path);
            }
            self.update_mentions(
                number,
                &path,
                node,
                old_mentions.take(),
                old.as_ref().map(|old| &*old.summary),
            );
            self.put_file(path, node.clone());
            self.affected.insert(path);
        } else {
            if let Some(old_mentions) = old_mentions.take() {
                self.writer.forget_mentions(number, old_mentions);
            }
            if let Some(old) = &old {
                self.writer.forget_mentions(
                    number,
                    (
                        old.resolved.extra_names.clone(),
                        old.resolved.extra_modules.clone(),
                    ),
                );
            }
            self.writer.file_numbers.remove(&path);
            self.writer.file_paths.set(number as usize, None);
            self.removed_numbers.insert(path, number);
            self.writer.free_numbers.push(number);
        }
        // Which names and module keys now mean something else?
        for (name, hash) in &old_exports {
            if new_exports.get(name) != Some(hash) {
                self.changed_names.insert(*name);
            }
        }
        for name in new_exports.keys() {
            if !old_exports.contains_key(name) {
                self.changed_names.insert(*name);
            }
        }
        let new_module_signature = new_node
            .as_ref()
            .map(|node| module_signature(&node.summary));
        // Which files answer a key: every reader of the key. The imports alone: the importers
        // that mention a name whose binding changed (unless a wildcard, the package or a path
        // module changed: every importer); the walks through the file follow its import
        // targets (`Transaction::new_import_targets`).
        let imports_changed = old_module_signature != new_module_signature;
        let every_importer = imports_changed
            && match (&old, &new_node) {
                (Some(old), Some(new)) => match imports_change(old, new) {
                    Some(names) => {
                        self.changed_names.extend(names);
                        false
                    }
                    None => true,
                },
                _ => true,
            };
        for key in old_keys.iter().chain(new_keys.iter()) {
            if every_importer || !old_keys.contains(key) || !new_keys.contains(key) {
                self.changed_modules.insert(*key);
            }
        }
    }

    /// [`Transaction::swap_file`] for an edit that renamed the definitions `renamed` (indices
    /// into both summaries, `moved::renamed_definitions`) and changed nothing else of the
    /// frame: only those definitions leave and enter the entity and name indices (the others'
    /// name entries are what they were: no type was renamed), and the file joins the
    /// reference-level path.
    fn swap_renamed(
        &mut self,
        path: FilePath,
        old: &Arc<crate::FileNode>,
        content: FileContent,
        ids: Vec<EntityId>,
        renamed: &[u32],
    ) {
        let node = node_with_ids(
            &path,
            content,
            Resolved {
                // The same imports name the same files.
                import_targets: old.resolved.import_targets.clone(),
                ..Resolved::default()
            },
            ids.into(),
            &self.next.aliases,
        );
        let number = self.writer.number_of(&path);
        let renamed = || renamed.iter().map(|&index| index as usize);
        // All the old ids leave before any new one enters: two names swapped keep both.
        self.definitions_leave(old, renamed());
        self.definitions_enter(&node, renamed());
        for index in renamed() {
            self.changed_names.insert(old.summary.defs[index].name);
            self.changed_names.insert(node.summary.defs[index].name);
        }
        let old_mentions = self.old_mentions(old);
        let new_mentions =
            self.update_mentions(number, &path, &node, Some(old_mentions), Some(&old.summary));
        self.partial.insert(path, (old.clone(), new_mentions));
        self.put_file(path, Arc::new(node));
    }

    /// The definitions `indices` of a file's old node leave the entity index, and their name
    /// entries the name index (pending: `reindex_names_and_modules`).
    fn definitions_leave(&mut self, old: &crate::FileNode, indices: impl Iterator<Item = usize>) {
        let package = package_key(&old.path, &old.summary);
        for index in indices {
            self.next.entities.remove(&old.ids[index]);
            self.name_changes.push((
                old.summary.defs[index].name,
                false,
                name_entry(old, index, &package),
            ));
        }
    }

    /// The definitions `indices` of a file's new node enter the entity and name indices.
    fn definitions_enter(&mut self, node: &crate::FileNode, indices: impl Iterator<Item = usize>) {
        let package = package_key(&node.path, &node.summary);
        for index in indices {
            self.next.entities.insert(
                node.ids[index],
                EntityLoc {
                    file: node.path,
                    index: Some(index as u32),
                },
            );
            self.name_changes.push((
                node.summary.defs[index].name,
                true,
                name_entry(node, index, &package),
            ));
        }
    }

    /// A file's mentions before this change: remembered from its last edit, else computed.
    fn old_mentions(&self, old: &crate::FileNode) -> Mentions {
        self.writer
            .recent_mentions(&old.path, &old.summary, &self.next.aliases)
            .unwrap_or_else(|| mentions(&self.next.aliases, &old.path, &old.summary))
    }

    /// A file's new mentions enter the writer's index: most edits mention the same names as
    /// before (then the index stays as it is), else only the names that came or went change.
    /// An editor's document is swapped again and again: its mentions are kept for its next
    /// edit (not during a full index).
    fn update_mentions(
        &mut self,
        number: u32,
        path: &FilePath,
        node: &crate::FileNode,
        old_mentions: Option<Mentions>,
        old_summary: Option<&FileSummary>,
    ) -> Arc<Mentions> {
        if !self.writer.mentions_built {
            // A first full index (see `GraphWriter::prepare_changes`): nothing to update, and
            // nothing reads what this returns (no file had an old node to edit).
            return Arc::default();
        }
        // The module keys cost most (each import's keys, in several spellings): an edit that
        // kept the imports and the path receivers keeps them.
        let new_mentions = match (&old_mentions, old_summary) {
            // A rename, or a keystroke that changed no name: the same names, read from the
            // same places, without going through the references again.
            (Some(old_mentions), Some(old_summary))
                if same_mention_sources(old_summary, &node.summary) =>
            {
                debug_assert_eq!(
                    *old_mentions,
                    mentions(&self.next.aliases, &node.path, &node.summary),
                    "same_mention_sources is missing a source of mentions"
                );
                old_mentions.clone()
            }
            (Some((_, old_modules)), Some(old_summary))
                if old_summary.language == node.summary.language
                    && same_imports(&old_summary.imports, &node.summary.imports)
                    && path_receivers(old_summary) == path_receivers(&node.summary) =>
            {
                (mentioned_names(&node.summary), old_modules.clone())
            }
            _ => mentions(&self.next.aliases, &node.path, &node.summary),
        };
        match old_mentions {
            Some(old_mentions) if old_mentions == new_mentions => {}
            Some(old_mentions) => {
                let (gone, came) = mentions_changed(&old_mentions, &new_mentions);
                self.writer.forget_mentions(number, gone);
                self.writer.add_mentions(number, came);
            }
            None => self.writer.add_mentions(number, new_mentions.clone()),
        }
        let new_mentions = Arc::new(new_mentions);
        if self.report.updated_files <= RECENT_MENTIONS {
            self.new_mentions.insert(*path, new_mentions.clone());
            self.writer.remember_mentions(
                path,
                &node.summary,
                &self.next.aliases,
                new_mentions.clone(),
            );
        }
        new_mentions
    }

    /// Marks files for re-resolution although their text did not change (the module aliases
    /// did).
    pub(super) fn re_resolve(&mut self, paths: impl IntoIterator<Item = FilePath>) {
        self.affected.extend(paths);
    }

    /// Step 2: re-index names and module keys, once per key.
    pub(super) fn reindex_names_and_modules(&mut self) {
        let mut name_changes = std::mem::take(&mut self.name_changes);
        let module_changes = std::mem::take(&mut self.module_changes);
        // Re-index names and modules once per key.
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
                self.next.by_name.remove(&name);
            } else {
                self.next.by_name.insert(name, next.into());
            }
        }
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
                self.next.modules.remove(&key);
            } else {
                self.next.modules.insert(key, next.into());
            }
        }
    }

    /// Step 3: every file that mentions a changed name or module key is re-resolved.
    pub(super) fn widen_by_mentions(&mut self) {
        self.writer.add_mentioning(
            &self.next,
            &self.changed_names,
            &self.changed_modules,
            &mut self.affected,
        );
        self.indexed = self.started.elapsed();
    }

    /// The import targets of every affected file, found now, so that the walks of this
    /// transaction's resolutions read them; a file whose targets changed (or that came or went)
    /// makes the files that walked through it walk again (`walk_again`).
    fn new_import_targets(&mut self) {
        let graph = &self.next;
        let found: Vec<(FilePath, Arc<[FilePath]>)> = self
            .affected
            .par_iter()
            .filter_map(|path| {
                let node = graph.files.get(path)?;
                Some((*path, import_targets(graph, node)))
            })
            .collect();
        let mut walked_through: FxHashSet<Name> =
            self.removed_numbers.keys().map(walk_key).collect();
        for (path, targets) in found {
            let before = self
                .writer
                .graph
                .files
                .get(&path)
                .map(|node| node.resolved.import_targets.clone());
            if before.as_deref() != Some(&*targets) {
                walked_through.insert(walk_key(&path));
            }
            let node = &self.next.files[&path];
            if node.resolved.import_targets != targets {
                // Until it is resolved again, with the targets its resolution will find.
                let mut node = (**node).clone();
                node.resolved = Arc::new(Resolved {
                    import_targets: targets,
                    ..Resolved::default()
                });
                self.put_file(path, Arc::new(node));
            }
        }
        self.writer.add_mentioning(
            &self.next,
            &FxHashSet::default(),
            &walked_through,
            &mut self.walkers,
        );
    }

    /// The files whose walk passed through a change and that nothing else widened in walk
    /// again (in parallel), on the graph before and after. A file keeps its resolution, with
    /// what the walk read now (`Resolved::extra_modules`' walk keys and `reachable`), when no
    /// package its walk gained or lost defines a name it guessed (`Resolved::guessed`): the
    /// walk's packages are read only by those guesses, which test only candidates of their
    /// name, so none changed visibility. Otherwise,
    /// or when the file's resolution read another file's walk (`reachable` 0), it joins the
    /// affected files, unless those guesses were made by references alone (not outside one,
    /// `Resolved::guessed_by`): then only those references are resolved again (returned with
    /// their positions; `Resolver::resolve_again`). An edited file of the reference-level path
    /// is resolved whole instead (it would replay its old walk).
    fn walk_again(&mut self) -> (Vec<(FilePath, Resolved)>, Vec<GuessedAgain>) {
        let walkers: Vec<FilePath> = std::mem::take(&mut self.walkers)
            .into_iter()
            .filter(|path| !self.affected.contains(path) && self.next.files.contains_key(path))
            .collect();
        let started = std::time::Instant::now();
        let before = &self.writer.graph;
        let graph = &self.next;
        let partial = &self.partial;
        // The walks on the graph before, where the last transaction made them on it.
        let (made_on, last_walks) = std::mem::take(&mut self.writer.last_walks);
        let last_walks = if made_on == before.revision {
            last_walks
        } else {
            FxHashMap::default()
        };
        let all_known = walkers.iter().all(|path| last_walks.contains_key(path));
        // Each walk reads up to hundreds of files' targets: looked up by address, not by
        // comparing paths in the graph's ordered map. The map of the last transaction, on the
        // graph before, is brought up to date: only the affected files' targets can have
        // changed (`new_import_targets`), and the removed files' are gone.
        let (kept_on, kept_targets) = std::mem::take(&mut self.writer.last_targets);
        let targets_now = if walkers.is_empty() {
            FxHashMap::default()
        } else if kept_on == before.revision {
            let mut targets = kept_targets;
            for path in self.removed_numbers.keys() {
                targets.remove(&path.addr());
            }
            for path in &self.affected {
                match graph.files.get(path) {
                    Some(node) => {
                        targets.insert(path.addr(), node.resolved.import_targets.clone());
                    }
                    None => {
                        targets.remove(&path.addr());
                    }
                }
            }
            debug_assert!(
                targets == import_targets_by_address(graph),
                "the kept import targets differ from the graph's"
            );
            targets
        } else {
            import_targets_by_address(graph)
        };
        let targets_before = if walkers.is_empty() || all_known {
            FxHashMap::default()
        } else {
            import_targets_by_address(before)
        };
        let mapped = started.elapsed();
        let count = walkers.len();
        let checked: Vec<(FilePath, Option<WalkedAgain>)> = walkers
            .into_par_iter()
            .map(|path| {
                let node = &graph.files[&path];
                let Some(old_node) = before.files.get(&path) else {
                    return (path, None);
                };
                if partial.contains_key(&path) || node.resolved.reachable == 0 {
                    return (path, None);
                }
                let old_walk = match last_walks.get(&path) {
                    Some(walk) => walk.clone(),
                    None => walk_reachable_in(old_node, |path| {
                        targets_before.get(&path.addr()).map(|targets| &**targets)
                    }),
                };
                let walk = walk_reachable_in(node, |path| {
                    targets_now.get(&path.addr()).map(|targets| &**targets)
                });
                if old_walk.fingerprint() != node.resolved.reachable {
                    return (path, None);
                }
                let changed: Vec<&'static str> = walk.changed_packages(&old_walk);
                let same_files = old_walk.same_files(&walk);
                (path, Some((walk, changed, same_files)))
            })
            .collect();
        // The names the changed packages define, and the walkers that guessed one.
        let changed_packages: FxHashSet<(codegraph_lang::Language, String)> = checked
            .iter()
            .filter_map(|(path, walked)| {
                let (_, changed, _) = walked.as_ref()?;
                let language = graph.files[path].language;
                Some(
                    changed
                        .iter()
                        .map(move |package| (language, package.to_string())),
                )
            })
            .flatten()
            .collect();
        let walked = started.elapsed();
        // The walks are kept for the next transaction, whose graph before is the one being made.
        let made_on = before.revision + 1;
        let mut walks: FxHashMap<FilePath, Reachable> = FxHashMap::default();
        let names = if changed_packages.is_empty() {
            FxHashSet::default()
        } else {
            names_in_packages(graph, &changed_packages)
        };
        tracing::trace!(
            "walk again: {count} walkers; targets mapped {mapped:?}, walked {:?}, names of {} changed packages {:?}",
            walked - mapped,
            changed_packages.len(),
            started.elapsed() - walked
        );
        // The references that guessed such a name, by position.
        let guessing = |path: &FilePath| -> Vec<u32> {
            let resolved = &graph.files[path].resolved;
            if !resolved.guessed.iter().any(|name| names.contains(name)) {
                return Vec::new();
            }
            let mut positions: Vec<u32> = resolved
                .guessed_by
                .iter()
                .filter(|(_, name)| names.contains(name))
                .map(|(position, _)| *position)
                .collect();
            positions.dedup();
            positions
        };
        let mut kept = Vec::new();
        let mut again = Vec::new();
        for (path, walked) in checked {
            let Some((walk, changed, same_files)) = walked else {
                self.affected.insert(path);
                continue;
            };
            let redo = if changed.is_empty() {
                Vec::new()
            } else {
                guessing(&path)
            };
            if redo.last() == Some(&u32::MAX) {
                self.affected.insert(path);
                walks.insert(path, walk);
                continue;
            }
            if !redo.is_empty() {
                self.report.guessed_again += 1;
                again.push((path, redo, walk.clone()));
                walks.insert(path, walk);
                continue;
            }
            self.report.walked_again += 1;
            let resolved = &self.next.files[&path].resolved;
            // The same files walked, to the same packages: what the walk read is what the
            // resolution recorded.
            if same_files && walk.fingerprint() == resolved.reachable {
                walks.insert(path, walk);
                continue;
            }
            let mut modules: Vec<Name> = resolved
                .extra_modules
                .iter()
                .filter(|key| !is_walk_key(key))
                .cloned()
                .chain(walk.modules().iter().cloned())
                .collect();
            modules.sort();
            modules.dedup();
            let reachable = walk.fingerprint();
            if modules != resolved.extra_modules || reachable != resolved.reachable {
                let mut next = (**resolved).clone();
                next.extra_modules = modules;
                next.reachable = reachable;
                kept.push((path, next));
            }
            walks.insert(path, walk);
        }
        self.writer.last_walks = (made_on, walks);
        if !targets_now.is_empty() {
            self.writer.last_targets = (made_on, targets_now);
        }
        self.walking = started.elapsed();
        (kept, again)
    }

    /// Step 4 (phase one): the bases of the types of every affected file.
    pub(super) fn resolve_bases(&self) -> Vec<(FilePath, Vec<BaseEdge>)> {
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
    pub(super) fn apply_bases(
        &mut self,
        phase_one: Vec<(FilePath, Vec<BaseEdge>)>,
    ) -> FxHashMap<FilePath, Vec<BaseEdge>> {
        // Old base contributions of every file being re-resolved or removed.
        let mut old_bases: FxHashMap<EntityId, FxHashSet<(EntityId, RelationKind)>> =
            FxHashMap::default();
        let mut contributors: FxHashSet<FilePath> = self.affected.clone();
        contributors.extend(self.removed_edges.iter().map(|(path, _)| *path));
        let mut touched_children: FxHashSet<EntityId> = FxHashSet::default();
        for path in &contributors {
            let old_resolved = self
                .removed_edges
                .iter()
                .find(|(removed, _)| removed == path)
                .map(|(_, resolved)| resolved.clone())
                .or_else(|| {
                    self.writer
                        .graph
                        .files
                        .get(path)
                        .map(|file| file.resolved.clone())
                });
            if let Some(resolved) = old_resolved {
                for edge in &resolved.edges {
                    if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                        touched_children.insert(edge.from);
                    }
                }
            }
        }
        for (_, edges) in &phase_one {
            for (child, _, _, _) in edges {
                touched_children.insert(*child);
            }
        }
        for child in &touched_children {
            let set = self
                .next
                .bases
                .get(child)
                .map(|bases| bases.iter().map(|(base, kind, _)| (*base, *kind)).collect())
                .unwrap_or_default();
            old_bases.insert(*child, set);
        }
        let mut new_contributions: FxHashMap<EntityId, Vec<(EntityId, RelationKind, FilePath)>> =
            FxHashMap::default();
        for (path, edges) in &phase_one {
            for (child, base, kind, _) in edges {
                new_contributions
                    .entry(*child)
                    .or_default()
                    .push((*base, *kind, *path));
            }
        }
        for child in &touched_children {
            let mut next: Vec<(EntityId, RelationKind, FilePath)> = self
                .next
                .bases
                .get(child)
                .map(|bases| {
                    bases
                        .iter()
                        .filter(|(_, _, file)| !contributors.contains(file))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            if let Some(added) = new_contributions.remove(child) {
                next.extend(added);
            }
            // Only types that still exist keep bases.
            if !self.next.entities.contains_key(child) {
                next.clear();
            }
            next.sort();
            next.dedup();
            let next_set: FxHashSet<(EntityId, RelationKind)> =
                next.iter().map(|(base, kind, _)| (*base, *kind)).collect();
            if old_bases.get(child) != Some(&next_set) {
                // Everything that inherits from this type may now find other members.
                let mut names = FxHashSet::default();
                self.writer
                    .collect_descendant_names(&self.next, child, &mut names);
                self.writer.add_mentioning(
                    &self.next,
                    &names,
                    &FxHashSet::default(),
                    &mut self.affected,
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
        self.based = self.started.elapsed();
        phase_one.into_iter().collect()
    }

    /// Step 6 (phase two): every reference of every affected file.
    pub(super) fn resolve_references(
        &mut self,
        phase_one: &FxHashMap<FilePath, Vec<BaseEdge>>,
    ) -> Vec<(FilePath, Resolved)> {
        self.new_import_targets();
        let (walked_again, guessed_again) = self.walk_again();
        let affected_set = std::mem::take(&mut self.affected);
        // A file whose references alone changed, and that nothing else widened in: the old
        // outcome of every reference that is still there, and only the new ones resolved.
        let mut partial: Vec<(FilePath, PartialFile)> = std::mem::take(&mut self.partial)
            .into_iter()
            .filter(|(path, _)| !affected_set.contains(path) && self.next.files.contains_key(path))
            .collect();
        partial.sort_by_key(|a| a.0);
        let mut affected: Vec<FilePath> = affected_set
            .into_iter()
            .filter(|path| self.next.files.contains_key(path))
            .collect();
        affected.sort();
        tracing::trace!("resolved whole: {affected:?}");
        // The imports epoch this graph will have: the packages an edited file's imports
        // reach, computed at it, hold for it.
        let epoch = self.writer.imports_epoch + u64::from(self.imports_changed);
        let known: FxHashMap<FilePath, Reachable> = self
            .swapped
            .iter()
            .filter_map(|path| {
                let packages = self.writer.recent_reachable(path, epoch)?;
                Some((*path, packages))
            })
            .collect();
        let swapped = &self.swapped;
        let mentioned = &self.new_mentions;
        let kept = |path: &FilePath, resolver: &Resolver<'_>| {
            swapped
                .contains(path)
                .then(|| resolver.reachable())
                .flatten()
        };
        // The mentions of the files resolved again by reference: remembered, else found now
        // (in parallel, and only then: the next edit finds them all remembered).
        let aliases = self.next.aliases.clone();
        let remembered: Vec<Option<Arc<Mentions>>> = guessed_again
            .iter()
            .map(|(path, _, _)| {
                let summary = &self.next.files[path].summary;
                self.writer.walker_mentions(path, summary, &aliases)
            })
            .collect();
        let missing: Vec<FilePath> = guessed_again
            .iter()
            .zip(&remembered)
            .filter(|(_, known)| known.is_none())
            .map(|((path, _, _), _)| *path)
            .collect();
        let found: FxHashMap<FilePath, Arc<Mentions>> = if missing.is_empty() {
            FxHashMap::default()
        } else {
            missing
                .par_iter()
                .map(|path| {
                    let summary = &self.next.files[path].summary;
                    (*path, Arc::new(mentions(&aliases, path, summary)))
                })
                .collect()
        };
        for (path, computed) in &found {
            let summary = self.next.files[path].summary.clone();
            self.writer
                .remember_walker_mentions(*path, &summary, &aliases, computed.clone());
        }
        let again_mentions: Vec<Arc<Mentions>> = guessed_again
            .iter()
            .zip(remembered)
            .map(|((path, _, _), known)| known.unwrap_or_else(|| found[path].clone()))
            .collect();
        // One parallel pass over every resolution, whole or by reference, so that a large file
        // resolved whole does not leave the other cores idle.
        let jobs: Vec<Job<'_>> = affected
            .iter()
            .map(|path| Job::Whole(*path))
            .chain(
                guessed_again
                    .into_iter()
                    .zip(again_mentions)
                    .map(|((path, redo, walk), found)| Job::Again(path, redo, walk, found)),
            )
            .chain(
                partial
                    .iter()
                    .map(|(path, (old, mentioned))| Job::Changed(*path, old, mentioned)),
            )
            .collect();
        let results: Vec<(FilePath, Resolved, Option<Reachable>)> = {
            let graph_ref = &self.next;
            let resolver = |path: &FilePath| {
                Resolver::new(graph_ref, &graph_ref.files[path])
                    .knowing_reachable(known.get(path).cloned())
            };
            let whole = |path: &FilePath| {
                let file = &graph_ref.files[path];
                let resolving = resolver(path);
                let bases = match phase_one.get(path) {
                    Some(bases) => bases.clone(),
                    // Widened in by a base change: its own bases did not change.
                    None => Resolver::new(graph_ref, file).resolve_bases(),
                };
                let result =
                    resolving.resolve_all_knowing(&bases, mentioned.get(path).map(|m| &**m));
                (result, kept(path, &resolving))
            };
            jobs.into_par_iter()
                .with_max_len(1)
                .map(|job| {
                    let path = match &job {
                        Job::Whole(path) | Job::Again(path, ..) | Job::Changed(path, ..) => *path,
                    };
                    // One file's resolution, contained (`contain`): a panic costs this file
                    // its edges, and the graph says so.
                    let resolve = || match job {
                        Job::Whole(path) => whole(&path),
                        Job::Again(path, redo, walk, found) => {
                            let file = &graph_ref.files[&path];
                            let resolving =
                                Resolver::new(graph_ref, file).knowing_reachable(Some(walk));
                            match resolving.resolve_again(&file.resolved, &redo, &found) {
                                Some(result) => (result, kept(&path, &resolving)),
                                None => whole(&path),
                            }
                        }
                        Job::Changed(path, old, found) => {
                            let resolving = resolver(&path);
                            match resolving.resolve_changed(old, found) {
                                Some(result) => (result, kept(&path, &resolving)),
                                None => whole(&path),
                            }
                        }
                    };
                    let (mut result, reachable) = codegraph_model::contain::file(resolve)
                        .unwrap_or_else(|message| {
                            let targets = graph_ref.files[&path].resolved.import_targets.clone();
                            (Resolved::failed(message, targets), None)
                        });
                    result.shrink_to_fit();
                    (path, result, reachable)
                })
                .collect()
        };
        let mut resolved = Vec::with_capacity(results.len());
        for (path, result, reachable) in results {
            if let Some(packages) = reachable {
                self.writer.remember_reachable(path, epoch, packages);
            }
            resolved.push((path, result));
        }
        self.report.resolved_files = resolved.len();
        resolved.extend(walked_again);
        self.resolved_at = self.started.elapsed();
        resolved
    }

    /// Steps 7 and 8: record what each file's resolution read through inferred types, and
    /// re-index the edges: drop the old edges of every re-resolved or removed file, add the new.
    pub(super) fn reindex_edges(&mut self, resolved: Vec<(FilePath, Resolved)>) {
        // Re-index edges: drop the old edges of every re-resolved or removed file, add the new.
        // A file whose edges still join the same entities in the same order (an edit that only
        // moved text) keeps its index entries.
        let mut old_by_path: FxHashMap<FilePath, Arc<Resolved>> =
            std::mem::take(&mut self.removed_edges)
                .into_iter()
                .collect();
        for (path, _) in &resolved {
            if !old_by_path.contains_key(path)
                && let Some(old) = self.writer.graph.files.get(path)
            {
                old_by_path.insert(*path, old.resolved.clone());
            }
        }
        let same_shape = |old: &Resolved, new: &Resolved| {
            old.edges.len() == new.edges.len()
                && old
                    .edges
                    .iter()
                    .zip(&new.edges)
                    .all(|(old, new)| old.from == new.from && old.to == new.to)
        };
        let unchanged: FxHashSet<FilePath> = resolved
            .iter()
            .filter(|(path, result)| {
                old_by_path
                    .get(path)
                    .is_some_and(|old| same_shape(old, result))
            })
            .map(|(path, _)| *path)
            .collect();
        // What each re-resolved file read through inferred types, beyond its own mentions.
        for (path, result) in &resolved {
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
        // Each entity's list changes only where a file starts or stops reaching it: the
        // entities of its old edges and of its new, compared as sets (a file whose edges join
        // the same entities in the same order changes nothing).
        let mut incoming: Vec<ListChange<u32>> = Vec::new();
        let mut outgoing: Vec<ListChange<u32>> = Vec::new();
        let new_by_path: FxHashMap<FilePath, &Resolved> = resolved
            .iter()
            .map(|(path, result)| (*path, result))
            .collect();
        let empty = Resolved::default();
        let mut paths: Vec<FilePath> = old_by_path.keys().copied().collect();
        paths.extend(
            new_by_path
                .keys()
                .filter(|path| !old_by_path.contains_key(*path)),
        );
        for path in paths {
            let old_number = self
                .removed_numbers
                .get(&path)
                .or_else(|| self.writer.file_numbers.get(&path))
                .copied();
            let new_number = self.writer.file_numbers.get(&path).copied();
            let old = old_by_path.get(&path).map_or(&empty, |old| &**old);
            let new = new_by_path.get(&path).copied().unwrap_or(&empty);
            if old_number == new_number && unchanged.contains(&path) {
                continue;
            }
            let (old_to, old_from) = edge_ends(old);
            let (new_to, new_from) = edge_ends(new);
            for (changes, before, after) in [
                (&mut incoming, old_to, new_to),
                (&mut outgoing, old_from, new_from),
            ] {
                let same = old_number == new_number;
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
        drop(new_by_path);
        for (path, result) in resolved {
            if let Some(file) = self.next.files.get(&path) {
                let mut node = (**file).clone();
                node.resolved = Arc::new(result);
                self.put_file(path, Arc::new(node));
            }
        }
        let paths = &self.writer.file_paths;
        reindex(&mut self.next.incoming, incoming, paths);
        reindex(&mut self.next.outgoing, outgoing, paths);
        self.next.file_paths = paths.clone();
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

/// A walker whose guessing references are resolved again: its path, their positions, and its
/// walk on the graph being made.
type GuessedAgain = (FilePath, Vec<u32>, Reachable);

/// One file's resolution in `Transaction::resolve_references`: whole; again by reference for a
/// walk that changed (the references to redo, the walk, the file's mentions); by reference for
/// an edit of references alone (its old node and mentions).
enum Job<'t> {
    Whole(FilePath),
    Again(FilePath, Vec<u32>, Reachable, Arc<Mentions>),
    Changed(FilePath, &'t Arc<crate::FileNode>, &'t Arc<Mentions>),
}

/// The mentions a file no longer has and those it gained: two sorted lists each.
fn mentions_changed(old: &Mentions, new: &Mentions) -> (Mentions, Mentions) {
    fn difference(a: &[Name], b: &[Name]) -> Vec<Name> {
        a.iter()
            .filter(|item| b.binary_search(item).is_err())
            .cloned()
            .collect()
    }
    (
        (difference(&old.0, &new.0), difference(&old.1, &new.1)),
        (difference(&new.0, &old.0), difference(&new.1, &old.1)),
    )
}
