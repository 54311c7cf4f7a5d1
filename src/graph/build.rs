//! The single writer of the graph: applies a batch of file updates as one transaction.
//!
//! Steps: swap the files' summaries and definitions into the indices; find every file whose
//! resolution may have changed (those that mention a name whose definitions changed, or a module
//! key whose files changed); resolve their bases (phase one), widen the set with the descendants
//! of every type whose bases changed, resolve their references (phase two); re-index their edges.
//! A full index is the same transaction with every file in it, so the incremental result equals
//! a full rebuild of the same texts.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use smol_str::SmolStr;

use super::modules::{import_binding, module_keys, package_key};
use super::resolve::{BaseEdge, Resolver, is_exported, is_top_level, mentions};
use super::{
    EdgeRef, EntityId, EntityLoc, FileNode, FilePath, Graph, NameEntry, Resolved, assign_ids,
};
use crate::index::FileSummary;
use crate::lang::Language;
use crate::model::RelationKind;

/// A file's new content, or its removal.
#[derive(Debug, Clone)]
pub struct FileUpdate {
    pub path: FilePath,
    pub content: Option<FileContent>,
}

#[derive(Debug, Clone)]
pub struct FileContent {
    pub language: Language,
    pub text: Arc<str>,
    pub hash: [u8; 32],
    pub summary: Arc<FileSummary>,
}

/// What a transaction did, for logs and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct ApplyReport {
    pub updated_files: usize,
    pub resolved_files: usize,
}

/// Owns the current graph and the indices only the writer needs.
#[derive(Default)]
pub struct GraphWriter {
    graph: Graph,
    file_numbers: FxHashMap<FilePath, u32>,
    file_paths: Vec<Option<FilePath>>,
    free_numbers: Vec<u32>,
    /// Name → files whose resolution may look it up.
    name_mentions: FxHashMap<SmolStr, Vec<u32>>,
    /// Module key → files whose imports may look it up.
    module_mentions: FxHashMap<SmolStr, Vec<u32>>,
}

impl GraphWriter {
    pub fn new() -> GraphWriter {
        GraphWriter::default()
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    fn number_of(&mut self, path: &FilePath) -> u32 {
        if let Some(number) = self.file_numbers.get(path) {
            return *number;
        }
        let number = match self.free_numbers.pop() {
            Some(number) => {
                self.file_paths[number as usize] = Some(path.clone());
                number
            }
            None => {
                self.file_paths.push(Some(path.clone()));
                (self.file_paths.len() - 1) as u32
            }
        };
        self.file_numbers.insert(path.clone(), number);
        number
    }

    /// Applies a batch of updates as one transaction and returns what it did.
    pub fn apply(&mut self, updates: Vec<FileUpdate>) -> ApplyReport {
        let started = std::time::Instant::now();
        let mut report = ApplyReport {
            updated_files: updates.len(),
            ..ApplyReport::default()
        };
        // Later updates of the same path win.
        let mut latest: FxHashMap<FilePath, Option<FileContent>> = FxHashMap::default();
        let mut order: Vec<FilePath> = Vec::new();
        for update in updates {
            if latest.insert(update.path.clone(), update.content).is_none() {
                order.push(update.path);
            }
        }

        let mut graph = self.graph.clone();
        let mut changed_names: FxHashSet<SmolStr> = FxHashSet::default();
        let mut changed_modules: FxHashSet<SmolStr> = FxHashSet::default();
        let mut name_changes: FxHashMap<SmolStr, (Vec<NameEntry>, Vec<NameEntry>)> =
            FxHashMap::default();
        let mut module_changes: FxHashMap<SmolStr, (Vec<FilePath>, Vec<FilePath>)> =
            FxHashMap::default();
        let mut affected: FxHashSet<FilePath> = FxHashSet::default();
        let mut removed_edges: Vec<(FilePath, Arc<Resolved>)> = Vec::new();

        for path in order {
            let content = latest.remove(&path).flatten();
            let old = graph.files.get(&path).cloned();
            if let (Some(old), Some(new)) = (&old, &content)
                && old.hash == new.hash
                && old.language == new.language
                && *old.summary == *new.summary
            {
                // Same text: nothing to do (an editor re-sending a buffer, a touched file).
                if old.text != new.text {
                    let mut node = (**old).clone();
                    node.text = new.text.clone();
                    graph.files.insert(path.clone(), Arc::new(node));
                }
                continue;
            }
            let old_exports = old.as_ref().map(|node| exports(node)).unwrap_or_default();
            let old_keys = old
                .as_ref()
                .map(|node| module_keys(&node.path, &node.summary))
                .unwrap_or_default();
            let old_module_signature = old.as_ref().map(|node| module_signature(&node.summary));
            let number = self.number_of(&path);
            let mut old_mentions: Option<(Vec<SmolStr>, Vec<SmolStr>)> = None;
            if let Some(old) = &old {
                let old_package = package_key(&old.path, &old.summary);
                for (index, id) in old.ids.iter().enumerate() {
                    graph.entities.remove(id);
                    name_changes
                        .entry(old.summary.defs[index].name.clone())
                        .or_default()
                        .0
                        .push(name_entry(old, index, &old_package));
                }
                graph.entities.remove(&old.module_id);
                for key in &old_keys {
                    module_changes
                        .entry(key.clone())
                        .or_default()
                        .0
                        .push(path.clone());
                }
                old_mentions = Some(mentions(&old.path, &old.summary));
                removed_edges.push((path.clone(), old.resolved.clone()));
                graph.files.remove(&path);
            }
            let new_node =
                content.map(|content| Arc::new(new_node(&path, content, Resolved::default())));
            let new_exports = new_node
                .as_ref()
                .map(|node| exports(node))
                .unwrap_or_default();
            let new_keys = new_node
                .as_ref()
                .map(|node| module_keys(&node.path, &node.summary))
                .unwrap_or_default();
            if let Some(node) = &new_node {
                let package = package_key(&node.path, &node.summary);
                for (index, id) in node.ids.iter().enumerate() {
                    let def = &node.summary.defs[index];
                    let entry = name_entry(node, index, &package);
                    graph.entities.insert(
                        id.clone(),
                        EntityLoc {
                            file: path.clone(),
                            index: Some(index as u32),
                        },
                    );
                    name_changes
                        .entry(def.name.clone())
                        .or_default()
                        .1
                        .push(entry);
                }
                graph.entities.insert(
                    node.module_id.clone(),
                    EntityLoc {
                        file: path.clone(),
                        index: None,
                    },
                );
                for key in &new_keys {
                    module_changes
                        .entry(key.clone())
                        .or_default()
                        .1
                        .push(path.clone());
                }
                // Most edits mention the same names as before: then the index stays as it is.
                let new_mentions = mentions(&node.path, &node.summary);
                if old_mentions.as_ref() != Some(&new_mentions) {
                    if let Some(old_mentions) = old_mentions.take() {
                        self.forget_mentions(number, old_mentions);
                    }
                    let (names, modules) = new_mentions;
                    for name in names {
                        self.name_mentions.entry(name).or_default().push(number);
                    }
                    for key in modules {
                        self.module_mentions.entry(key).or_default().push(number);
                    }
                }
                graph.files.insert(path.clone(), node.clone());
                affected.insert(path.clone());
            } else {
                if let Some(old_mentions) = old_mentions.take() {
                    self.forget_mentions(number, old_mentions);
                }
                self.file_numbers.remove(&path);
                self.file_paths[number as usize] = None;
                self.free_numbers.push(number);
            }
            // Which names and module keys now mean something else?
            for (name, hash) in &old_exports {
                if new_exports.get(name) != Some(hash) {
                    changed_names.insert(name.clone());
                }
            }
            for name in new_exports.keys() {
                if !old_exports.contains_key(name) {
                    changed_names.insert(name.clone());
                }
            }
            let new_module_signature = new_node
                .as_ref()
                .map(|node| module_signature(&node.summary));
            for key in old_keys.iter().chain(new_keys.iter()) {
                if !old_keys.contains(key)
                    || !new_keys.contains(key)
                    || old_module_signature != new_module_signature
                {
                    changed_modules.insert(key.clone());
                }
            }
        }

        // Re-index names and modules once per key.
        for (name, (mut removed, mut added)) in name_changes {
            // An edit inside a body leaves most names' entries as they were.
            removed.sort();
            added.sort();
            if removed == added {
                continue;
            }
            if removed.is_empty() != added.is_empty() {
                // A name appears or disappears: the flat list of names is stale.
                graph.names_cache = Default::default();
            }
            let removed: FxHashSet<EntityId> = removed.into_iter().map(|entry| entry.id).collect();
            let mut next: Vec<NameEntry> = graph
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
            next.extend(added);
            next.sort();
            next.dedup_by(|later, earlier| later.id == earlier.id);
            if next.is_empty() {
                graph.by_name.remove(&name);
            } else {
                graph.by_name.insert(name, next.into());
            }
        }
        for (key, (removed, added)) in module_changes {
            if removed == added {
                continue;
            }
            let current: Vec<FilePath> = graph
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
                graph.modules.remove(&key);
            } else {
                graph.modules.insert(key, next.into());
            }
        }

        self.add_mentioning(&graph, &changed_names, &changed_modules, &mut affected);
        let indexed = started.elapsed();

        // Phase one: bases.
        let phase_one: Vec<(FilePath, Vec<BaseEdge>)> = {
            let graph_ref = &graph;
            let mut files: Vec<&FilePath> = affected.iter().collect();
            files.sort();
            files
                .par_iter()
                .filter_map(|path| {
                    graph_ref.files.get(*path).map(|file| {
                        (
                            (*path).clone(),
                            Resolver::new(graph_ref, file).resolve_bases(),
                        )
                    })
                })
                .collect()
        };
        // Old base contributions of every file being re-resolved or removed.
        let mut old_bases: FxHashMap<EntityId, FxHashSet<(EntityId, RelationKind)>> =
            FxHashMap::default();
        let mut contributors: FxHashSet<FilePath> = affected.clone();
        contributors.extend(removed_edges.iter().map(|(path, _)| path.clone()));
        let mut touched_children: FxHashSet<EntityId> = FxHashSet::default();
        for path in &contributors {
            let old_resolved = removed_edges
                .iter()
                .find(|(removed, _)| removed == path)
                .map(|(_, resolved)| resolved.clone())
                .or_else(|| self.graph.files.get(path).map(|file| file.resolved.clone()));
            if let Some(resolved) = old_resolved {
                for edge in &resolved.edges {
                    if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                        touched_children.insert(edge.from.clone());
                    }
                }
            }
        }
        for (_, edges) in &phase_one {
            for (child, _, _, _) in edges {
                touched_children.insert(child.clone());
            }
        }
        for child in &touched_children {
            let set = graph
                .bases
                .get(child)
                .map(|bases| {
                    bases
                        .iter()
                        .map(|(base, kind, _)| (base.clone(), *kind))
                        .collect()
                })
                .unwrap_or_default();
            old_bases.insert(child.clone(), set);
        }
        let mut new_contributions: FxHashMap<EntityId, Vec<(EntityId, RelationKind, FilePath)>> =
            FxHashMap::default();
        for (path, edges) in &phase_one {
            for (child, base, kind, _) in edges {
                new_contributions.entry(child.clone()).or_default().push((
                    base.clone(),
                    *kind,
                    path.clone(),
                ));
            }
        }
        for child in &touched_children {
            let mut next: Vec<(EntityId, RelationKind, FilePath)> = graph
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
            if !graph.entities.contains_key(child) {
                next.clear();
            }
            next.sort();
            next.dedup();
            let next_set: FxHashSet<(EntityId, RelationKind)> = next
                .iter()
                .map(|(base, kind, _)| (base.clone(), *kind))
                .collect();
            if old_bases.get(child) != Some(&next_set) {
                // Everything that inherits from this type may now find other members.
                let mut names = FxHashSet::default();
                self.collect_descendant_names(&graph, child, &mut names);
                self.add_mentioning(&graph, &names, &FxHashSet::default(), &mut affected);
            }
            if next.is_empty() {
                graph.bases.remove(child);
            } else {
                graph.bases.insert(child.clone(), next.into());
            }
        }
        let phase_one: FxHashMap<FilePath, Vec<BaseEdge>> = phase_one.into_iter().collect();
        let based = started.elapsed();

        // Phase two: every reference of every affected file.
        let mut affected: Vec<FilePath> = affected
            .into_iter()
            .filter(|path| graph.files.contains_key(path))
            .collect();
        affected.sort();
        let resolved: Vec<(FilePath, Resolved)> = {
            let graph_ref = &graph;
            affected
                .par_iter()
                .map(|path| {
                    let file = &graph_ref.files[path];
                    let resolver = Resolver::new(graph_ref, file);
                    let bases = match phase_one.get(path) {
                        Some(bases) => bases.clone(),
                        // Widened in by a base change: its own bases did not change.
                        None => Resolver::new(graph_ref, file).resolve_bases(),
                    };
                    (path.clone(), resolver.resolve_all(&bases))
                })
                .collect()
        };
        report.resolved_files = resolved.len();
        let resolved_at = started.elapsed();

        // Re-index edges: drop the old edges of every re-resolved or removed file, add the new.
        // A file whose edges still join the same entities in the same order (an edit that only
        // moved text) keeps its index entries: they name edges by position.
        let mut old_by_path: FxHashMap<FilePath, Arc<Resolved>> =
            removed_edges.into_iter().collect();
        for (path, _) in &resolved {
            if !old_by_path.contains_key(path)
                && let Some(old) = self.graph.files.get(path)
            {
                old_by_path.insert(path.clone(), old.resolved.clone());
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
            .map(|(path, _)| path.clone())
            .collect();
        let mut replaced: FxHashSet<FilePath> = FxHashSet::default();
        let mut incoming_add: FxHashMap<EntityId, Vec<EdgeRef>> = FxHashMap::default();
        let mut outgoing_add: FxHashMap<EntityId, Vec<EdgeRef>> = FxHashMap::default();
        for (path, old) in &old_by_path {
            if unchanged.contains(path) {
                continue;
            }
            replaced.insert(path.clone());
            for edge in &old.edges {
                incoming_add.entry(edge.to.clone()).or_default();
                outgoing_add.entry(edge.from.clone()).or_default();
            }
        }
        for (path, result) in resolved {
            if !unchanged.contains(&path) {
                for (index, edge) in result.edges.iter().enumerate() {
                    let edge_ref = EdgeRef {
                        file: path.clone(),
                        index: index as u32,
                    };
                    incoming_add
                        .entry(edge.to.clone())
                        .or_default()
                        .push(edge_ref.clone());
                    outgoing_add
                        .entry(edge.from.clone())
                        .or_default()
                        .push(edge_ref);
                }
            }
            if let Some(file) = graph.files.get(&path) {
                let mut node = (**file).clone();
                node.resolved = Arc::new(result);
                graph.files.insert(path, Arc::new(node));
            }
        }
        reindex(&mut graph.incoming, incoming_add, &replaced);
        reindex(&mut graph.outgoing, outgoing_add, &replaced);

        tracing::debug!(
            "apply: {} updates, {} files resolved; indices {:?}, bases {:?}, references {:?}, edges {:?}",
            report.updated_files,
            report.resolved_files,
            indexed,
            based - indexed,
            resolved_at - based,
            started.elapsed() - resolved_at
        );
        graph.revision = self.graph.revision + 1;
        self.graph = graph;
        report
    }

    /// A writer holding files whose resolution is already known (a warm start from the cache):
    /// every index is rebuilt, nothing is resolved. The files must be exactly the set the
    /// resolutions were computed for; apply the files that changed since with [`apply`].
    ///
    /// [`apply`]: GraphWriter::apply
    pub fn load(files: Vec<(FilePath, FileContent, Resolved)>) -> GraphWriter {
        let mut writer = GraphWriter::new();
        let mut graph = Graph::default();
        let mut by_name: FxHashMap<SmolStr, Vec<NameEntry>> = FxHashMap::default();
        let mut modules: FxHashMap<SmolStr, Vec<FilePath>> = FxHashMap::default();
        let mut bases: FxHashMap<EntityId, Vec<super::BaseOf>> = FxHashMap::default();
        let mut incoming: FxHashMap<EntityId, Vec<EdgeRef>> = FxHashMap::default();
        let mut outgoing: FxHashMap<EntityId, Vec<EdgeRef>> = FxHashMap::default();
        for (path, content, resolved) in files {
            let node = new_node(&path, content, resolved);
            let number = writer.number_of(&path);
            let package = package_key(&node.path, &node.summary);
            for (index, id) in node.ids.iter().enumerate() {
                graph.entities.insert(
                    id.clone(),
                    EntityLoc {
                        file: path.clone(),
                        index: Some(index as u32),
                    },
                );
                by_name
                    .entry(node.summary.defs[index].name.clone())
                    .or_default()
                    .push(name_entry(&node, index, &package));
            }
            graph.entities.insert(
                node.module_id.clone(),
                EntityLoc {
                    file: path.clone(),
                    index: None,
                },
            );
            for key in module_keys(&node.path, &node.summary) {
                modules.entry(key).or_default().push(path.clone());
            }
            let (names, module_mentions) = mentions(&node.path, &node.summary);
            for name in names {
                writer.name_mentions.entry(name).or_default().push(number);
            }
            for key in module_mentions {
                writer.module_mentions.entry(key).or_default().push(number);
            }
            for (index, edge) in node.resolved.edges.iter().enumerate() {
                let edge_ref = EdgeRef {
                    file: path.clone(),
                    index: index as u32,
                };
                incoming
                    .entry(edge.to.clone())
                    .or_default()
                    .push(edge_ref.clone());
                outgoing
                    .entry(edge.from.clone())
                    .or_default()
                    .push(edge_ref);
                if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                    bases.entry(edge.from.clone()).or_default().push((
                        edge.to.clone(),
                        edge.kind,
                        path.clone(),
                    ));
                }
            }
            graph.files.insert(path, Arc::new(node));
        }
        for (name, mut entries) in by_name {
            entries.sort();
            graph.by_name.insert(name, entries.into());
        }
        for (key, mut files) in modules {
            files.sort();
            files.dedup();
            graph.modules.insert(key, files.into());
        }
        for (child, mut list) in bases {
            list.sort();
            list.dedup();
            graph.bases.insert(child, list.into());
        }
        for (id, mut refs) in incoming {
            refs.sort();
            graph.incoming.insert(id, refs.into());
        }
        for (id, mut refs) in outgoing {
            refs.sort();
            graph.outgoing.insert(id, refs.into());
        }
        graph.revision = 1;
        writer.graph = graph;
        writer
    }

    fn forget_mentions(&mut self, number: u32, (names, modules): (Vec<SmolStr>, Vec<SmolStr>)) {
        for name in names {
            if let Some(files) = self.name_mentions.get_mut(&name) {
                files.retain(|file| *file != number);
            }
        }
        for key in modules {
            if let Some(files) = self.module_mentions.get_mut(&key) {
                files.retain(|file| *file != number);
            }
        }
    }

    fn add_mentioning(
        &self,
        graph: &Graph,
        names: &FxHashSet<SmolStr>,
        modules: &FxHashSet<SmolStr>,
        affected: &mut FxHashSet<FilePath>,
    ) {
        let mut add = |numbers: Option<&Vec<u32>>| {
            for number in numbers.into_iter().flatten() {
                if let Some(Some(path)) = self.file_paths.get(*number as usize)
                    && graph.files.contains_key(path)
                {
                    affected.insert(path.clone());
                }
            }
        };
        for name in names {
            add(self.name_mentions.get(name));
        }
        for key in modules {
            add(self.module_mentions.get(key));
        }
    }

    /// The names of a type and of every type that inherits from it, transitively.
    fn collect_descendant_names(
        &self,
        graph: &Graph,
        type_id: &EntityId,
        names: &mut FxHashSet<SmolStr>,
    ) {
        let mut stack = vec![type_id.clone()];
        let mut seen: FxHashSet<EntityId> = FxHashSet::default();
        while let Some(current) = stack.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            if let Some(loc) = graph.entities.get(&current)
                && let (Some(file), Some(index)) = (graph.files.get(&loc.file), loc.index)
            {
                names.insert(file.summary.defs[index as usize].name.clone());
            }
            for edge in graph.incoming(&current) {
                if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                    stack.push(edge.from.clone());
                }
            }
        }
    }
}

/// A file as the graph holds it: ids assigned, import bindings computed.
fn new_node(path: &FilePath, content: FileContent, resolved: Resolved) -> FileNode {
    let ids: Arc<[EntityId]> = assign_ids(path, &content.summary).into();
    let import_bindings = content
        .summary
        .imports
        .iter()
        .map(|import| import_binding(&content.summary, import))
        .collect();
    FileNode {
        path: path.clone(),
        language: content.language,
        text: content.text,
        hash: content.hash,
        summary: content.summary,
        ids,
        module_id: EntityId::from(&**path),
        import_bindings,
        resolved: Arc::new(resolved),
    }
}

/// The name-index entry of a file's definition.
fn name_entry(node: &FileNode, index: usize, package: &Option<SmolStr>) -> NameEntry {
    let def = &node.summary.defs[index];
    NameEntry {
        id: node.ids[index].clone(),
        file: node.path.clone(),
        index: index as u32,
        kind: def.kind,
        language: node.language,
        parent: def.parent,
        top_level: is_top_level(&node.summary, index as u32),
        exported: is_exported(&node.summary, index as u32),
        owner: def.owner.clone(),
        package: package.clone(),
    }
}

fn reindex(
    index: &mut imbl::HashMap<EntityId, Arc<[EdgeRef]>>,
    additions: FxHashMap<EntityId, Vec<EdgeRef>>,
    replaced: &FxHashSet<FilePath>,
) {
    for (id, added) in additions {
        let mut next: Vec<EdgeRef> = index
            .get(&id)
            .map(|refs| {
                refs.iter()
                    .filter(|edge_ref| !replaced.contains(&edge_ref.file))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        next.extend(added);
        if next.is_empty() {
            index.remove(&id);
        } else {
            next.sort();
            index.insert(id, next.into());
        }
    }
}

/// For each name a file defines or re-binds through an import: a hash of everything other
/// files' resolution can observe about it.
fn exports(node: &FileNode) -> FxHashMap<SmolStr, u64> {
    let summary = &node.summary;
    let package = package_key(&node.path, summary);
    let mut hashers: FxHashMap<SmolStr, FxHasher> = FxHashMap::default();
    for (index, def) in summary.defs.iter().enumerate() {
        let hasher = hashers.entry(def.name.clone()).or_default();
        node.ids[index].hash(hasher);
        def.kind.hash(hasher);
        def.parent.hash(hasher);
        def.owner.hash(hasher);
        package.hash(hasher);
        node.language.hash(hasher);
    }
    for import in &summary.imports {
        if let Some(binding) = import_binding(summary, import) {
            let hasher = hashers.entry(binding).or_default();
            import.path.hash(hasher);
            import.name.hash(hasher);
            import.alias.hash(hasher);
            import.wildcard.hash(hasher);
        }
    }
    hashers
        .into_iter()
        .map(|(name, hasher)| (name, hasher.finish()))
        .collect()
}

/// What importers of a module can observe about it besides its definitions: its imports
/// (re-exports) and its package.
fn module_signature(summary: &FileSummary) -> u64 {
    let mut hasher = FxHasher::default();
    summary.package.hash(&mut hasher);
    for import in &summary.imports {
        import.path.hash(&mut hasher);
        import.name.hash(&mut hasher);
        import.alias.hash(&mut hasher);
        import.wildcard.hash(&mut hasher);
    }
    hasher.finish()
}
