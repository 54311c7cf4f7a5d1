//! Step 1 of a transaction: a file's new content (or its removal) replaces the old in the
//! entities, the pending name and module changes and the mention indices. An edit takes the
//! cheapest path that is exact for it: the same text, text that only moved, changed references,
//! renamed functions, or (anything else, and every file added or removed) the whole file.

use std::sync::Arc;

use codegraph_model::Name;

use super::{PartialFile, Transaction};
use crate::build::moved::{
    moved_node, relocated, renamed_definitions, same_but_positions, same_frame, same_imports,
    same_mention_sources,
};
use crate::build::{
    FileContent, RECENT_MENTIONS, exports, imports_change, module_signature, name_entry, new_node,
    node_with_ids,
};
use crate::modules::{module_keys, package_key};
use crate::resolve::{Mentions, mentioned_names, mentions, path_receivers};
use crate::{EntityId, EntityLoc, FileNode, FilePath, Resolved};
use codegraph_index::FileSummary;

impl Transaction<'_> {
    /// Step 1: a file's new content (or its removal) replaces the old in the entities, the
    /// pending name and module changes and the mention indices.
    pub(in crate::build) fn swap_file(&mut self, path: FilePath, content: Option<FileContent>) {
        let old = self.next.files.get(&path).cloned();
        if self.report.updated_files <= RECENT_MENTIONS {
            self.swapped.insert(path);
        }
        match (old, content) {
            (Some(old), Some(new)) => self.swap_edited(path, old, new),
            (old, content) => {
                self.prepare_changes();
                self.swap_whole(path, old, content);
            }
        }
    }

    /// A file that was there and still is: the path its edit allows.
    fn swap_edited(&mut self, path: FilePath, old: Arc<FileNode>, new: FileContent) {
        if old.hash == new.hash && old.language == new.language && *old.summary == *new.summary {
            self.keep_text(path, &old, new);
            return;
        }
        self.prepare_changes();
        if old.language == new.language {
            if same_but_positions(&old.summary, &new.summary) {
                self.swap_moved(path, &old, new);
                return;
            }
            if same_frame(&old.summary, &new.summary) {
                self.swap_references(path, &old, new);
                return;
            }
            if let Some((renamed, ids)) = renamed_definitions(&old, &new.summary) {
                self.swap_renamed(path, &old, new, ids, &renamed);
                return;
            }
        }
        self.swap_whole(path, Some(old), Some(new));
    }

    /// A file changes: the mention indices are needed, unless the graph had no files (then
    /// every file of this transaction is new, so resolved anyway, and no earlier file can
    /// mention what it defines). A warm start re-sends every file unchanged: it never gets
    /// here.
    fn prepare_changes(&mut self) {
        if !self.writer.graph.files.is_empty() {
            self.writer.prepare_changes();
        }
    }

    /// Same text: nothing to do (an editor re-sending a buffer, a touched file), but keep the
    /// newest resident copy (the buffer's own) or none (a buffer closed).
    fn keep_text(&mut self, path: FilePath, old: &FileNode, new: FileContent) {
        if !old.text.same_as(&new.text) {
            let mut node = old.clone();
            node.text = new.text;
            self.put_file(path, Arc::new(node));
        }
    }

    /// An edit that moved text but changed no name, definition, import, binding or base (most
    /// keystrokes inside a body): the file's ids, name entries, module keys, mentions and
    /// exports are what they were, so the indices stay; only its node and its own resolution
    /// change.
    fn swap_moved(&mut self, path: FilePath, old: &FileNode, new: FileContent) {
        let mut node = moved_node(old, new, &self.next.aliases);
        // Its references mean what they meant: the old resolution, moved. Its edges join the
        // same entities in the same order, so the edge indices stay.
        if let Some(resolved) = relocated(&old.summary, &node.summary, &old.resolved) {
            node.resolved = Arc::new(resolved);
            self.put_file(path, Arc::new(node));
            return;
        }
        self.removed_edges.push((path, old.resolved.clone()));
        self.put_file(path, Arc::new(node));
        self.affected.insert(path);
    }

    /// An edit that changed references but no name, definition, import, binding or base
    /// (typing a call's name): the ids, name entries, module keys and exports stay; the
    /// mentions change by the names that came or went, and only the changed references are
    /// resolved again (`Resolver::resolve_changed`), unless something else widens the file in.
    fn swap_references(&mut self, path: FilePath, old: &Arc<FileNode>, new: FileContent) {
        let node = moved_node(old, new, &self.next.aliases);
        self.join_partial(path, old, node);
    }

    /// An edit that renamed the definitions `renamed` (indices into both summaries,
    /// `moved::renamed_definitions`) and changed nothing else of the frame (typing a
    /// definition's name): only those definitions leave and enter the entity and name indices
    /// (the others' name entries are what they were: no type was renamed), their old and new
    /// names change, and with them every file that mentions one, the file itself included;
    /// unless that widens the file in, only its changed references and those inside the
    /// renamed definitions are resolved (`Resolver::resolve_changed`).
    fn swap_renamed(
        &mut self,
        path: FilePath,
        old: &Arc<FileNode>,
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
        let renamed = || renamed.iter().map(|&index| index as usize);
        // All the old ids leave before any new one enters: two names swapped keep both.
        self.definitions_leave(old, renamed());
        self.definitions_enter(&node, renamed());
        for index in renamed() {
            self.changed_names.insert(old.summary.defs[index].name);
            self.changed_names.insert(node.summary.defs[index].name);
        }
        self.changed_families.insert(old.language.family());
        self.changed_families.insert(node.language.family());
        self.join_partial(path, old, node);
    }

    /// The new node of a file of the reference-level path enters, with its mentions.
    fn join_partial(&mut self, path: FilePath, old: &Arc<FileNode>, node: FileNode) {
        let number = self.writer.number_of(&path);
        let old_mentions = self.old_mentions(old);
        let mentions =
            self.update_mentions(number, &path, &node, Some(old_mentions), Some(&old.summary));
        let partial = PartialFile {
            old: old.clone(),
            mentions,
        };
        self.partial.insert(path, partial);
        self.put_file(path, Arc::new(node));
    }

    /// Anything else (a file added or removed, an edit of its frame): the old node leaves
    /// every index, the new one enters, and the names and module keys whose meaning changed
    /// are noted.
    fn swap_whole(
        &mut self,
        path: FilePath,
        old: Option<Arc<FileNode>>,
        content: Option<FileContent>,
    ) {
        if !reaches_same(old.as_deref(), content.as_ref()) {
            self.imports_changed = true;
        }
        let old_exports = old.as_deref().map(exports).unwrap_or_default();
        let old_keys = old.as_deref().map(keys_of).unwrap_or_default();
        let number = self.writer.number_of(&path);
        let old_mentions = old.as_ref().map(|old| self.leave_whole(old, &old_keys));
        let new_node = content.map(|content| {
            let node = new_node(&path, content, Resolved::default(), &self.next.aliases);
            Arc::new(node)
        });
        let new_exports = new_node.as_deref().map(exports).unwrap_or_default();
        let new_keys = new_node.as_deref().map(keys_of).unwrap_or_default();
        match &new_node {
            Some(node) => {
                self.enter_whole(number, node, &new_keys, old_mentions, old.as_deref());
            }
            None => self.forget_file(path, number, old_mentions, old.as_deref()),
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
        let (old, new) = (old.as_deref(), new_node.as_deref());
        // What changed in this file can change the resolution of its families' files only.
        for node in old.into_iter().chain(new) {
            self.changed_families.insert(node.language.family());
        }
        self.note_changed_modules(old, new, &old_keys, &new_keys);
    }

    /// A file's old node leaves the entities, the name and module indices and the file map;
    /// its edges leave with it. Gives back its mentions.
    fn leave_whole(&mut self, old: &FileNode, old_keys: &[Name]) -> Mentions {
        let path = old.path;
        self.definitions_leave(old, 0..old.ids.len());
        self.next.entities.remove(&old.module_id);
        for key in old_keys {
            self.module_changes.entry(*key).or_default().0.push(path);
        }
        let old_mentions = self.old_mentions(old);
        self.removed_edges.push((path, old.resolved.clone()));
        self.next.files.remove(&path);
        self.touch(path);
        old_mentions
    }

    /// A file's new node enters the entities, the name and module indices, the mention index
    /// and the file map, to be resolved.
    fn enter_whole(
        &mut self,
        number: u32,
        node: &Arc<FileNode>,
        new_keys: &[Name],
        old_mentions: Option<Mentions>,
        old: Option<&FileNode>,
    ) {
        let path = node.path;
        self.definitions_enter(node, 0..node.ids.len());
        let module = EntityLoc {
            file: path,
            index: None,
        };
        self.next.entities.insert(node.module_id, module);
        for key in new_keys {
            self.module_changes.entry(*key).or_default().1.push(path);
        }
        let old_summary = old.map(|old| &*old.summary);
        self.update_mentions(number, &path, node, old_mentions, old_summary);
        self.put_file(path, node.clone());
        self.affected.insert(path);
    }

    /// A removed file's mentions, and what its resolution read, leave the mention indices,
    /// and its number is freed.
    fn forget_file(
        &mut self,
        path: FilePath,
        number: u32,
        old_mentions: Option<Mentions>,
        old: Option<&FileNode>,
    ) {
        if let Some(old_mentions) = old_mentions {
            self.writer.forget_mentions(number, old_mentions);
        }
        if let Some(old) = old {
            let read = (
                old.resolved.extra_names.clone(),
                old.resolved.extra_modules.clone(),
            );
            self.writer.forget_mentions(number, read);
        }
        self.writer.file_numbers.remove(&path);
        self.writer.file_paths.set(number as usize, None);
        self.removed_numbers.insert(path, number);
        self.writer.free_numbers.push(number);
    }

    /// Which files answer a key: every reader of the key. The imports alone: the importers
    /// that mention a name whose binding changed (unless a wildcard, the package or a path
    /// module changed: every importer); the walks through the file follow its import targets
    /// (`Transaction::new_import_targets`).
    fn note_changed_modules(
        &mut self,
        old: Option<&FileNode>,
        new: Option<&FileNode>,
        old_keys: &[Name],
        new_keys: &[Name],
    ) {
        let signature = |node: Option<&FileNode>| node.map(|node| module_signature(&node.summary));
        let imports_changed = signature(old) != signature(new);
        let every_importer = imports_changed
            && match (old, new) {
                (Some(old), Some(new)) => match imports_change(old, new) {
                    Some(names) => {
                        self.changed_names.extend(names);
                        false
                    }
                    None => true,
                },
                _ => true,
            };
        for key in old_keys.iter().chain(new_keys) {
            if every_importer || !old_keys.contains(key) || !new_keys.contains(key) {
                self.changed_modules.insert(*key);
            }
        }
    }

    /// The definitions `indices` of a file's old node leave the entity index, and their name
    /// entries the name index (pending: `reindex_names_and_modules`).
    fn definitions_leave(&mut self, old: &FileNode, indices: impl Iterator<Item = usize>) {
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
    fn definitions_enter(&mut self, node: &FileNode, indices: impl Iterator<Item = usize>) {
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
    fn old_mentions(&self, old: &FileNode) -> Mentions {
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
        node: &FileNode,
        old_mentions: Option<Mentions>,
        old_summary: Option<&FileSummary>,
    ) -> Arc<Mentions> {
        if !self.writer.mentions_built {
            // A first full index (see `GraphWriter::prepare_changes`): nothing to update, and
            // nothing reads what this returns (no file had an old node to edit).
            return Arc::default();
        }
        let new_mentions = self.new_mentions(node, old_mentions.as_ref(), old_summary);
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
            let aliases = &self.next.aliases;
            let summary = &node.summary;
            self.writer
                .remember_mentions(path, summary, aliases, new_mentions.clone());
        }
        new_mentions
    }

    /// A file's mentions now, from what stayed of its old ones where the edit allows. The
    /// module keys cost most (each import's keys, in several spellings): an edit that kept the
    /// imports and the path receivers keeps them.
    fn new_mentions(
        &self,
        node: &FileNode,
        old_mentions: Option<&Mentions>,
        old_summary: Option<&FileSummary>,
    ) -> Mentions {
        match (old_mentions, old_summary) {
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
        }
    }
}

/// Whether a file reaches what it reached: the same language, package, `#[path]` modules and
/// imports (else what imports can reach changed). A file added or removed does not.
fn reaches_same(old: Option<&FileNode>, new: Option<&FileContent>) -> bool {
    match (old, new) {
        (Some(old), Some(new)) => {
            old.language == new.language
                && old.summary.package == new.summary.package
                && old.summary.path_modules == new.summary.path_modules
                && same_imports(&old.summary.imports, &new.summary.imports)
        }
        _ => false,
    }
}

/// A file node's module keys.
fn keys_of(node: &FileNode) -> Vec<Name> {
    module_keys(&node.path, &node.summary)
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
