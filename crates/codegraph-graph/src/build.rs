//! The single writer of the graph: applies a batch of file updates as one transaction
//! (`build/transaction.rs`, one method per step; the longer steps in `build/transaction/`).
//!
//! Steps: swap the files' summaries and definitions into the indices; find every file whose
//! resolution may have changed (those that mention a name whose definitions changed, or a module
//! key whose files changed, or that read one through an inferred type last time); resolve their
//! bases (phase one), widen the set with the descendants of every type whose bases changed,
//! resolve their references (phase two); record what each resolution read beyond its own
//! mentions; re-index their edges. A full index is the same transaction with every file in it,
//! so the incremental result equals a full rebuild of the same texts.
//!
//! Invariant: a file is re-resolved whenever anything its last resolution read may have
//! changed. Resolution reads other files only through the name index, the module map and the
//! bases, and records every name and module key it asks for (`resolve::Recorder`); a name's
//! `exports` hash covers everything readable about it (definitions, return types, the fields a
//! type declares, import bindings).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use codegraph_model::{ByNumber, Name};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use super::aliases::ModuleAliases;
use super::deferred::Deferred;
use super::modules::{import_binding, module_keys, package_key};
use super::semantics;
mod mentions;
mod moved;
mod transaction;

use super::resolve::{is_exported, is_top_level, mentions};
use super::{EntityId, EntityLoc, FileNode, FilePath, Graph, NameEntry, Resolved, assign_ids};
use codegraph_index::FileSummary;
use codegraph_lang::Language;
use codegraph_model::RelationKind;
use transaction::Transaction;

/// A file's new content, or its removal.
#[derive(Debug, Clone)]
pub struct FileUpdate {
    pub path: FilePath,
    pub content: Option<FileContent>,
}

#[derive(Debug, Clone)]
pub struct FileContent {
    pub language: Language,
    /// Resident for an editor's buffer; elsewhere (read again on demand) for a file on disk.
    pub text: super::FileText,
    pub hash: [u8; 32],
    pub summary: Arc<FileSummary>,
    /// What the file is for, classified where its text was at hand
    /// (`lang::file_class::classify`).
    pub class: codegraph_model::FileClass,
}

/// What a transaction did, for logs and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct ApplyReport {
    pub updated_files: usize,
    pub resolved_files: usize,
    /// Files that walked again through a file whose import targets changed and kept their
    /// resolution (no package they gained or lost defines a name they guessed); only what
    /// the walk read is updated.
    pub walked_again: usize,
    /// Files that walked again, whose walk gained or lost a package that defines a name they
    /// guessed, and whose guessing references alone were resolved again (counted in
    /// `resolved_files` too).
    pub guessed_again: usize,
}

/// Owns the current graph and the indices only the writer needs. Cloned to see what proposed
/// contents would make of the graph without storing it (`World::proposed`).
#[derive(Default, Clone)]
pub struct GraphWriter {
    graph: Graph,
    file_numbers: FxHashMap<FilePath, u32>,
    /// Number → path; the graph gets a copy (cheap: persistent) when its edge indices change.
    file_paths: imbl::Vector<Option<FilePath>>,
    free_numbers: Vec<u32>,
    /// Name → files whose resolution may look it up.
    name_mentions: mentions::MentionIndex,
    /// Module key → files whose imports may look it up.
    module_mentions: mentions::MentionIndex,
    /// Whether the two mention indices are built. They are needed only to change a graph that
    /// has files, so they are built by the first such change ([`GraphWriter::prepare_changes`]),
    /// not by a load from the cache or a first full index: a one-shot command never pays for
    /// them. Unbuilt, both are empty and every addition to them is skipped; built, they hold
    /// what each file mentions and what its resolution read.
    mentions_built: bool,
    /// The mentions of the files swapped last (an editor's documents), with the summary and
    /// the aliases they were computed from: the next edit of such a file need not compute its
    /// old mentions again.
    recent_mentions: Vec<RecentMentions>,
    /// Bumped by every transaction that changed what imports can reach: a file added or
    /// removed, a file's imports, `#[path]` modules or module keys, the aliases.
    imports_epoch: u64,
    /// The packages the imports of the files swapped last reach (`Resolver::reachable`), with
    /// the imports epoch they were computed at: valid while it is current.
    recent_reachable: Vec<(FilePath, u64, super::resolve::Reachable)>,
    /// The walks the last transaction walked again (`Transaction::walk_again`), on the graph
    /// of the revision given: the walks "before" of the next transaction, if that graph is
    /// still the writer's.
    last_walks: (u64, FxHashMap<FilePath, super::resolve::Reachable>),
    /// Every file's import targets by the address of its interned path, on the graph of the
    /// revision given (`Transaction::walk_again` reads them for each walk): the next
    /// transaction updates only the files whose targets it can have changed.
    last_targets: (u64, TargetsByAddress),
    /// The mentions of the files resolved again by reference because their walk gained or
    /// lost a package (`Transaction::walk_again`): the same files at every import edit of a
    /// file many walk through, each of whose mentions cost more than the references redone.
    /// Valid for the summary and aliases they were computed from; at most `WALKER_MENTIONS`.
    walker_mentions: FxHashMap<FilePath, RecentMentions>,
}

/// Import targets by the address of the interned path ([`FilePath::addr`]).
pub(crate) type TargetsByAddress = FxHashMap<usize, Arc<[FilePath]>>;

/// How many files' mentions the writer keeps from one transaction to the next (the documents
/// being edited; a transaction of more files keeps none).
const RECENT_MENTIONS: usize = 8;

/// How many walkers' mentions the writer keeps (`GraphWriter::walker_mentions`).
const WALKER_MENTIONS: usize = 64;

#[derive(Clone)]
struct RecentMentions {
    path: FilePath,
    summary: Arc<FileSummary>,
    aliases: Arc<ModuleAliases>,
    mentions: Arc<super::resolve::Mentions>,
}

impl RecentMentions {
    /// Whether these mentions were computed from this very summary and these aliases.
    fn made_from(&self, summary: &Arc<FileSummary>, aliases: &Arc<ModuleAliases>) -> bool {
        Arc::ptr_eq(&self.summary, summary) && Arc::ptr_eq(&self.aliases, aliases)
    }
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
                self.file_paths.set(number as usize, Some(*path));
                number
            }
            None => {
                self.file_paths.push_back(Some(*path));
                (self.file_paths.len() - 1) as u32
            }
        };
        self.file_numbers.insert(*path, number);
        number
    }

    /// Builds what the writer needs to change a graph that has files (the mention indices),
    /// if not yet built: the first change after a load or a first full index would otherwise
    /// pay for it. A server calls this once its initial index is done, before edits arrive.
    pub fn prepare_changes(&mut self) {
        if self.mentions_built {
            return;
        }
        self.mentions_built = true;
        // Unbuilt, they are empty; fresh, they are this writer's alone (a copy made to build
        // them would otherwise write every mention to an overlay of a table it shares).
        self.name_mentions = mentions::MentionIndex::default();
        self.module_mentions = mentions::MentionIndex::default();
        let aliases = &self.graph.aliases;
        let numbers = &self.file_numbers;
        let per_file: Vec<(u32, super::resolve::Mentions, super::resolve::Mentions)> = self
            .graph
            .files
            .values()
            .collect::<Vec<_>>()
            .par_iter()
            .filter_map(|node| {
                let number = *numbers.get(&node.path)?;
                Some((
                    number,
                    mentions(aliases, &node.path, &node.summary),
                    (
                        node.resolved.extra_names.clone(),
                        node.resolved.extra_modules.clone(),
                    ),
                ))
            })
            .collect();
        for (number, own, read) in per_file {
            self.add_mentions(number, own);
            self.add_mentions(number, read);
        }
    }

    /// Whether [`GraphWriter::prepare_changes`] has run.
    pub fn changes_prepared(&self) -> bool {
        self.mentions_built
    }

    /// Takes the mention indices of `prepared`, a copy of this writer made while it was at the
    /// same graph and prepared since, unless this one has its own already.
    pub fn take_prepared(&mut self, prepared: GraphWriter) {
        if self.mentions_built || !prepared.mentions_built {
            return;
        }
        self.name_mentions = prepared.name_mentions;
        self.module_mentions = prepared.module_mentions;
        self.mentions_built = true;
    }

    /// Applies a batch of updates as one transaction and returns what it did.
    pub fn apply(&mut self, updates: Vec<FileUpdate>) -> ApplyReport {
        let updated_files = updates.len();
        // Later updates of the same path win.
        let mut latest: FxHashMap<FilePath, Option<FileContent>> = FxHashMap::default();
        let mut order: Vec<FilePath> = Vec::new();
        for update in updates {
            if latest.insert(update.path, update.content).is_none() {
                order.push(update.path);
            }
        }
        let mut transaction = Transaction::begin(self, updated_files);
        for path in order {
            let content = latest.remove(&path).flatten();
            transaction.swap_file(path, content);
        }
        transaction.reindex_names_and_modules();
        transaction.widen_by_mentions();
        let phase_one = transaction.resolve_bases();
        let phase_one = transaction.apply_bases(phase_one);
        let resolved = transaction.resolve_references(&phase_one);
        transaction.reindex_edges(resolved);
        transaction.commit()
    }

    /// Replaces the module aliases (read from the workspace's manifests). When they changed,
    /// every JavaScript/TypeScript file imports through the new table: its mentions are
    /// recomputed and it is re-resolved, in one transaction.
    pub fn set_aliases(&mut self, aliases: ModuleAliases) -> Option<ApplyReport> {
        if *self.graph.aliases == aliases {
            return None;
        }
        // A graph without files (the aliases read before a first index) has no mentions to
        // change: a one-shot command must not start keeping them for the files to come.
        if !self.graph.files.is_empty() {
            self.prepare_changes();
        }
        let files: Vec<(u32, FilePath, Arc<FileSummary>)> = self
            .graph
            .files
            .values()
            .filter(|file| semantics::of(file.language).reads_module_aliases())
            .map(|file| (file.path, file.summary.clone()))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|(path, summary)| (self.number_of(&path), path, summary))
            .collect();
        self.imports_epoch += 1;
        let old = self.graph.aliases.clone();
        let new = Arc::new(aliases);
        for (number, path, summary) in &files {
            self.forget_mentions(*number, mentions(&old, path, summary));
            self.add_mentions(*number, mentions(&new, path, summary));
        }
        self.graph.aliases = new;
        for (_, path, _) in &files {
            self.classify_again(path);
        }
        let mut transaction = Transaction::begin(self, 0);
        // Classes changed above, and resolutions below, anywhere.
        transaction.touch_everything();
        transaction.re_resolve(files.into_iter().map(|(_, path, _)| path));
        let phase_one = transaction.resolve_bases();
        let phase_one = transaction.apply_bases(phase_one);
        let resolved = transaction.resolve_references(&phase_one);
        transaction.reindex_edges(resolved);
        Some(transaction.commit())
    }

    /// What the packages publish may have changed with the aliases: the class of their files
    /// with it. A production or example file's class comes from its path alone (a generated
    /// marker in the text would have made it generated), so the path gives it again.
    fn classify_again(&mut self, path: &FilePath) {
        let Some(node) = self.graph.files.get(path) else {
            return;
        };
        if !matches!(
            node.class,
            codegraph_model::FileClass::Production | codegraph_model::FileClass::Example
        ) {
            return;
        }
        let base = codegraph_lang::file_class::classify(path, node.language, "");
        let class = published_class(&self.graph.aliases, path, node.language, base);
        if class != node.class {
            let mut changed = (**node).clone();
            changed.class = class;
            self.graph.files.insert(*path, Arc::new(changed));
        }
    }

    /// A writer holding files whose resolution is already known (a warm start from the cache):
    /// every index is rebuilt, nothing is resolved. The files must be exactly the set the
    /// resolutions were computed for; apply the files that changed since with [`apply`].
    ///
    /// The files are numbered in path order, so each entity's list of files is built in the
    /// order readers see them (by path) and needs no sort; the nodes and the indices
    /// (entities, names, modules, edges, bases) are built in parallel.
    ///
    /// [`apply`]: GraphWriter::apply
    pub fn load(mut files: Vec<LoadedFile>, aliases: ModuleAliases) -> GraphWriter {
        files.sort_unstable_by_key(|left| left.path);
        files.dedup_by(|right, left| left.path == right.path);
        let aliases = Arc::new(aliases);
        let nodes: Vec<Arc<FileNode>> = files
            .into_par_iter()
            .map(|file| Arc::new(loaded_node(file, &aliases)))
            .collect();
        let mut writer = GraphWriter::new();
        for node in &nodes {
            writer.number_of(&node.path);
        }
        let mut graph = Graph {
            aliases,
            ..Graph::default()
        };
        // What a call hierarchy, a definition or the references of a file's entities read is
        // built now; the name and module indices are built on threads of their own while the
        // first of those requests are answered (a request or an edit that reads one first
        // waits for it).
        let ((entities, (incoming, outgoing)), (bases, files)) = rayon::join(
            || {
                rayon::join(
                    || entity_index(&nodes),
                    || {
                        rayon::join(
                            || edge_index(&nodes, |edge| edge.to),
                            || edge_index(&nodes, |edge| edge.from),
                        )
                    },
                )
            },
            || {
                rayon::join(
                    || base_index(&nodes),
                    || {
                        nodes
                            .iter()
                            .map(|node| (node.path, node.clone()))
                            .collect::<super::files::Files>()
                    },
                )
            },
        );
        let nodes = Arc::new(nodes);
        graph.by_name = later(&nodes, name_index);
        graph.modules = later(&nodes, module_index);
        graph.entities = entities;
        graph.incoming = incoming;
        graph.outgoing = outgoing;
        graph.bases = bases;
        graph.files = files;
        graph.file_paths = writer.file_paths.clone();
        graph.revision = 1;
        writer.graph = graph;
        writer
    }

    /// The mention indices are multisets: a file registers its own mentions and, separately,
    /// the extra names its last resolution read; each is forgotten once.
    /// The mentions remembered for `path`, if they were computed from this very summary and
    /// these aliases.
    fn recent_mentions(
        &self,
        path: &FilePath,
        summary: &Arc<FileSummary>,
        aliases: &Arc<ModuleAliases>,
    ) -> Option<super::resolve::Mentions> {
        self.recent_mentions
            .iter()
            .find(|recent| recent.path == *path && recent.made_from(summary, aliases))
            .map(|recent| (*recent.mentions).clone())
    }

    fn remember_mentions(
        &mut self,
        path: &FilePath,
        summary: &Arc<FileSummary>,
        aliases: &Arc<ModuleAliases>,
        mentions: Arc<super::resolve::Mentions>,
    ) {
        self.recent_mentions.retain(|recent| recent.path != *path);
        if self.recent_mentions.len() >= RECENT_MENTIONS {
            self.recent_mentions.remove(0);
        }
        self.recent_mentions.push(RecentMentions {
            path: *path,
            summary: summary.clone(),
            aliases: aliases.clone(),
            mentions,
        });
    }

    /// The mentions remembered for a file resolved again by reference, if they were computed
    /// from this summary and these aliases.
    fn walker_mentions(
        &self,
        path: &FilePath,
        summary: &Arc<FileSummary>,
        aliases: &Arc<ModuleAliases>,
    ) -> Option<Arc<super::resolve::Mentions>> {
        self.walker_mentions
            .get(path)
            .filter(|known| known.made_from(summary, aliases))
            .map(|known| known.mentions.clone())
    }

    fn remember_walker_mentions(
        &mut self,
        path: FilePath,
        summary: &Arc<FileSummary>,
        aliases: &Arc<ModuleAliases>,
        mentions: Arc<super::resolve::Mentions>,
    ) {
        if self.walker_mentions.len() >= WALKER_MENTIONS
            && !self.walker_mentions.contains_key(&path)
        {
            self.walker_mentions.clear();
        }
        self.walker_mentions.insert(
            path,
            RecentMentions {
                path,
                summary: summary.clone(),
                aliases: aliases.clone(),
                mentions,
            },
        );
    }

    /// The packages `path`'s imports reached when the imports epoch was `epoch`.
    fn recent_reachable(&self, path: &FilePath, epoch: u64) -> Option<super::resolve::Reachable> {
        self.recent_reachable
            .iter()
            .find(|(known, at, _)| known == path && *at == epoch)
            .map(|(_, _, packages)| packages.clone())
    }

    fn remember_reachable(
        &mut self,
        path: FilePath,
        epoch: u64,
        packages: super::resolve::Reachable,
    ) {
        self.recent_reachable.retain(|(known, _, _)| *known != path);
        if self.recent_reachable.len() >= RECENT_MENTIONS {
            self.recent_reachable.remove(0);
        }
        self.recent_reachable.push((path, epoch, packages));
    }

    fn add_mentions(&mut self, number: u32, (names, modules): (Vec<Name>, Vec<Name>)) {
        if !self.mentions_built {
            return;
        }
        for name in names {
            self.name_mentions.add(&name, number);
        }
        for key in modules {
            self.module_mentions.add(&key, number);
        }
    }

    fn forget_mentions(&mut self, number: u32, (names, modules): (Vec<Name>, Vec<Name>)) {
        if !self.mentions_built {
            return;
        }
        for name in names {
            self.name_mentions.forget(&name, number);
        }
        for key in modules {
            self.module_mentions.forget(&key, number);
        }
    }

    /// Adds to `affected` the files that mention one of `names` or of `modules`, of one of
    /// `families` when given (references never cross families: a name changed in Java files
    /// changes no Python file's resolution).
    fn add_mentioning(
        &self,
        graph: &Graph,
        (names, modules): (&FxHashSet<Name>, &FxHashSet<Name>),
        families: Option<&FxHashSet<codegraph_lang::Family>>,
        affected: &mut FxHashSet<FilePath>,
    ) {
        let mut add = |numbers: Vec<u32>| {
            for number in numbers {
                if let Some(Some(path)) = self.file_paths.get(number as usize)
                    && let Some(file) = graph.files.get(path)
                    && families.is_none_or(|families| families.contains(&file.language.family()))
                {
                    affected.insert(*path);
                }
            }
        };
        for name in names {
            add(self.name_mentions.files(name));
        }
        for key in modules {
            add(self.module_mentions.files(key));
        }
    }

    /// The names of a type and of every type that inherits from it, transitively.
    fn collect_descendant_names(
        &self,
        graph: &Graph,
        type_id: &EntityId,
        names: &mut FxHashSet<Name>,
    ) {
        let mut stack = vec![*type_id];
        let mut seen: FxHashSet<EntityId> = FxHashSet::default();
        while let Some(current) = stack.pop() {
            if !seen.insert(current) {
                continue;
            }
            if let Some(loc) = graph.entities.get(&current)
                && let (Some(file), Some(index)) = (graph.files.get(&loc.file), loc.index)
            {
                names.insert(file.summary.defs[index as usize].name);
            }
            for edge in graph.incoming(&current) {
                if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                    stack.push(edge.from);
                }
            }
        }
    }
}

/// The class a file has in the graph: what its path and text say ([`FileContent::class`]),
/// except that a JavaScript/TypeScript file that a workspace package publishes through its
/// `package.json` `exports` is production, not an example (three.js ships `examples/jsm` as
/// `three/addons`). It depends on the aliases, so [`GraphWriter::set_aliases`] recomputes it.
pub(crate) fn published_class(
    aliases: &ModuleAliases,
    path: &str,
    language: Language,
    class: codegraph_model::FileClass,
) -> codegraph_model::FileClass {
    use codegraph_model::FileClass;
    if class == FileClass::Example
        && semantics::of(language).reads_module_aliases()
        && aliases.publishes(path)
    {
        FileClass::Production
    } else {
        class
    }
}

/// A file as the graph holds it: ids assigned, import bindings computed.
fn new_node(
    path: &FilePath,
    content: FileContent,
    resolved: Resolved,
    aliases: &ModuleAliases,
) -> FileNode {
    let ids = assign_ids(path, &content.summary).into();
    node_with_ids(path, content, resolved, ids, aliases)
}

/// [`new_node`] with the ids already assigned (the cache's, shared with its edges).
fn node_with_ids(
    path: &FilePath,
    content: FileContent,
    resolved: Resolved,
    ids: Arc<[EntityId]>,
    aliases: &ModuleAliases,
) -> FileNode {
    let import_bindings = content
        .summary
        .imports
        .iter()
        .map(|import| import_binding(&content.summary, import))
        .collect();
    FileNode {
        path: *path,
        language: content.language,
        ascii: content.text.is_ascii(),
        class: published_class(aliases, path, content.language, content.class),
        text: content.text,
        hash: content.hash,
        summary: content.summary,
        ids,
        // The path's own allocation: a module's id is its path.
        module_id: *path,
        import_bindings,
        resolved: Arc::new(resolved),
    }
}

type NameIndex = super::PersistentMap<Name, Arc<[NameEntry]>>;
type ModuleIndex = super::PersistentMap<Name, Arc<[FilePath]>>;
type EdgeIndex = super::PersistentMap<EntityId, super::FileNumbers>;

/// A file given back by the cache, for [`GraphWriter::load`].
pub struct LoadedFile {
    pub path: FilePath,
    pub content: FileContent,
    /// The id of each definition (`assign_ids`), shared with the resolution's edges; ids of
    /// another length are assigned again.
    pub ids: Arc<[EntityId]>,
    pub resolved: Resolved,
}

/// The node of a file given back by the cache, with its ids (assigned again when they are
/// not one a definition).
fn loaded_node(file: LoadedFile, aliases: &ModuleAliases) -> FileNode {
    let ids = if file.ids.len() == file.content.summary.defs.len() {
        file.ids
    } else {
        assign_ids(&file.path, &file.content.summary).into()
    };
    node_with_ids(&file.path, file.content, file.resolved, ids, aliases)
}

/// Where every entity of `nodes` is (a load's entity index).
/// Built at once, as the index would be by inserting one entity after another (a later file's
/// entity of the same id replaces an earlier one's).
fn entity_index(nodes: &[Arc<FileNode>]) -> super::PersistentMap<EntityId, EntityLoc> {
    nodes
        .iter()
        .flat_map(|node| {
            let defs = node.ids.iter().enumerate().map(|(index, id)| {
                let loc = EntityLoc {
                    file: node.path,
                    index: Some(index as u32),
                };
                (*id, loc)
            });
            let module = EntityLoc {
                file: node.path,
                index: None,
            };
            defs.chain(std::iter::once((node.module_id, module)))
        })
        .collect()
}

/// The name index of `nodes` (a load's).
pub(crate) fn name_index(nodes: &[Arc<FileNode>]) -> NameIndex {
    let mut by_name: Gather<Vec<NameEntry>> = Gather::default();
    for node in nodes {
        let package = package_key(&node.path, &node.summary);
        for (index, def) in node.summary.defs.iter().enumerate() {
            by_name
                .list(def.name)
                .push(name_entry(node, index, &package));
        }
    }
    by_name
        .lists
        .into_iter()
        .map(|(name, mut entries)| {
            entries.sort();
            (name, entries.into())
        })
        .collect()
}

/// The module index of `nodes` (a load's).
pub(crate) fn module_index(nodes: &[Arc<FileNode>]) -> ModuleIndex {
    let mut modules: Gather<Vec<FilePath>> = Gather::default();
    for node in nodes {
        for key in module_keys(&node.path, &node.summary) {
            modules.list(key).push(node.path);
        }
    }
    modules
        .lists
        .into_iter()
        .map(|(key, mut files)| {
            files.sort();
            files.dedup();
            (key, files.into())
        })
        .collect()
}

/// An index of `nodes` built on a thread of its own.
fn later<T: Send + Sync + 'static>(
    nodes: &Arc<Vec<Arc<FileNode>>>,
    build: fn(&[Arc<FileNode>]) -> T,
) -> Deferred<T> {
    let nodes = nodes.clone();
    Deferred::in_background(move || build(&nodes))
}

/// An edge index of `nodes`: the numbers of the files with an edge whose `end` is each entity,
/// by file number (a load's: the writer numbered them in path order, so the lists come out
/// sorted as readers want). The lists are gathered by each id's number ([`Gather`]); each id's
/// text is hashed once, when the lists become the index.
fn edge_index(nodes: &[Arc<FileNode>], end: fn(&crate::Edge) -> EntityId) -> EdgeIndex {
    let mut index: Gather<Gathered> = Gather::default();
    for (number, node) in nodes.iter().enumerate() {
        for edge in &node.resolved.edges {
            index.list(end(edge)).add(number as u32);
        }
    }
    index
        .lists
        .into_iter()
        .map(|(id, numbers)| (id, numbers.into_numbers()))
        .collect()
}

/// Lists kept per name (an entity, a name, a module key), found by the name's number (hashing
/// a number, not the name's text), in the order their names are first met: a load meets them
/// in the files' path order, so the index it builds from them is the same from one run to the
/// next (a name's number depends on the order the cache's decoding threads interned it).
struct Gather<T> {
    at: FxHashMap<ByNumber, u32>,
    lists: Vec<(Name, T)>,
}

impl<T> Default for Gather<T> {
    fn default() -> Self {
        Gather {
            at: FxHashMap::default(),
            lists: Vec::new(),
        }
    }
}

impl<T: Default> Gather<T> {
    fn list(&mut self, name: Name) -> &mut T {
        let next = self.lists.len() as u32;
        let at = *self.at.entry(ByNumber(name)).or_insert(next);
        if at == next {
            self.lists.push((name, T::default()));
        }
        &mut self.lists[at as usize].1
    }
}

/// An entity's file numbers as [`edge_index`] gathers them: the first two inline (most
/// entities are reached from one file or two, and need no allocation), the rest after.
#[derive(Default)]
struct Gathered {
    few: [u32; 2],
    len: u32,
    more: Vec<u32>,
}

impl Gathered {
    /// Adds `number` unless it is the last added (a file's numbers are added together).
    fn add(&mut self, number: u32) {
        let last = match self.more.last() {
            Some(last) => Some(*last),
            None => self.len.checked_sub(1).map(|at| self.few[at as usize]),
        };
        if last == Some(number) {
            return;
        }
        if self.len < 2 {
            self.few[self.len as usize] = number;
            self.len += 1;
        } else {
            self.more.push(number);
        }
    }

    fn into_numbers(self) -> super::FileNumbers {
        match (self.len, self.more.is_empty()) {
            (2, true) => super::FileNumbers::Few(self.few),
            (_, true) => super::FileNumbers::Few([self.few[0], u32::MAX]),
            _ => {
                let mut all = self.few.to_vec();
                all.extend(self.more);
                super::FileNumbers::Many(all.into())
            }
        }
    }
}

/// The resolved bases of every type in `nodes` (a load's).
fn base_index(nodes: &[Arc<FileNode>]) -> super::PersistentMap<EntityId, Arc<[super::BaseOf]>> {
    let mut bases: FxHashMap<EntityId, Vec<super::BaseOf>> = FxHashMap::default();
    for node in nodes {
        for edge in &node.resolved.edges {
            if matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                bases
                    .entry(edge.from)
                    .or_default()
                    .push((edge.to, edge.kind, node.path));
            }
        }
    }
    bases
        .into_iter()
        .map(|(child, mut list)| {
            list.sort();
            list.dedup();
            (child, list.into())
        })
        .collect()
}

/// The name-index entry of a file's definition.
fn name_entry(node: &FileNode, index: usize, package: &Option<Name>) -> NameEntry {
    let def = &node.summary.defs[index];
    NameEntry {
        id: node.ids[index],
        file: node.path,
        index: index as u32,
        kind: def.kind,
        language: node.language,
        parent: def.parent,
        top_level: is_top_level(&node.summary, index as u32),
        exported: is_exported(&node.summary, index as u32),
        owner: def.owner,
        package: *package,
    }
}

/// The entities a file's edges point at and come from, each once: what it adds to the
/// incoming and outgoing lists.
pub(super) fn edge_ends(resolved: &Resolved) -> (FxHashSet<EntityId>, FxHashSet<EntityId>) {
    let mut ends = (FxHashSet::default(), FxHashSet::default());
    for edge in &resolved.edges {
        ends.0.insert(edge.to);
        ends.1.insert(edge.from);
    }
    ends
}

/// A change of a list kept per key (a name, an entity): the key, whether the item joins the
/// list (else it leaves), the item. A transaction's changes are one flat list, grouped by key
/// when applied: a map of two vectors per key was a full index's largest transient (the edge
/// lists', 30 MB on the benchmark corpus), and left its holes in the writer's heap.
pub(super) type ListChange<T> = (Name, bool, T);

/// `changes` sorted and grouped by key: for each key, its leaving items, then its joining
/// items, each in order.
#[allow(clippy::type_complexity)]
pub(super) fn by_key<T: Ord>(
    changes: &mut [ListChange<T>],
) -> impl Iterator<Item = (Name, &[ListChange<T>], &[ListChange<T>])> {
    changes.sort_unstable_by(|a, b| {
        (a.0.addr(), a.1)
            .cmp(&(b.0.addr(), b.1))
            .then_with(|| a.2.cmp(&b.2))
    });
    changes.chunk_by(|a, b| a.0 == b.0).map(|group| {
        let (leaving, joining) = group.split_at(group.partition_point(|(_, joins, _)| !joins));
        (group[0].0, leaving, joining)
    })
}

/// Applies each entity's list change: the removed numbers leave, the added join at their place
/// in path order (`paths` numbers the files, new numbers included). A number both removed and
/// added (a file's number reused within the transaction) ends up listed.
fn reindex(
    index: &mut EdgeIndex,
    mut changes: Vec<ListChange<u32>>,
    paths: &imbl::Vector<Option<FilePath>>,
) {
    for (id, removed, added) in by_key(&mut changes) {
        let mut next: Vec<u32> = index
            .get(&id)
            .map(|numbers| {
                numbers
                    .iter()
                    .filter(|number| {
                        removed
                            .binary_search_by_key(*number, |(_, _, removed)| *removed)
                            .is_err()
                    })
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        let mut added: Vec<u32> = added.iter().map(|(_, _, number)| *number).collect();
        if added.len() <= 8 {
            // An edit's few files join a sorted list: each finds its place by a binary search
            // by path instead of the whole list being sorted again, and the list stays sorted.
            added.retain(|number| !next.contains(number));
            super::sort_file_numbers(&mut added, paths);
            let mut start = 0;
            for number in added {
                let key = super::file_number_key(number, paths);
                let place = start
                    + next[start..]
                        .partition_point(|existing| super::file_number_key(*existing, paths) < key);
                next.insert(place, number);
                start = place + 1;
            }
        } else {
            next.extend(added);
            super::sort_file_numbers(&mut next, paths);
            next.dedup();
        }
        if next.is_empty() {
            index.remove(&id);
        } else if index.get(&id).is_none_or(|numbers| **numbers != *next) {
            index.insert(id, next.into());
        }
    }
}

/// For each name a file defines or re-binds through an import: a hash of everything other
/// files' resolution can observe about it.
fn exports(node: &FileNode) -> FxHashMap<Name, u64> {
    let summary = &node.summary;
    let package = package_key(&node.path, summary);
    let mut hashers: FxHashMap<Name, FxHasher> = FxHashMap::default();
    for (index, def) in summary.defs.iter().enumerate() {
        hash_definition(hashers.entry(def.name).or_default(), node, index, &package);
    }
    for binding in &summary.bindings {
        if let Some(scope) = binding.scope()
            && let Some(def) = summary.defs.get(scope as usize)
            && def.kind.is_type()
        {
            let hasher = hashers.entry(def.name).or_default();
            binding.name.hash(hasher);
            binding.type_name.hash(hasher);
            binding.kind.hash(hasher);
        }
    }
    // Module-level values (`REGISTRY = Registry()`): importers infer their type from them.
    for binding in summary
        .bindings
        .iter()
        .filter(|binding| binding.scope().is_none())
    {
        let hasher = hashers.entry(binding.name).or_default();
        binding.type_name.hash(hasher);
        binding.kind.hash(hasher);
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

/// Hashes what other files' resolution can observe of a file's definition `index`.
fn hash_definition(hasher: &mut FxHasher, node: &FileNode, index: usize, package: &Option<Name>) {
    let summary = &node.summary;
    let def = &summary.defs[index];
    node.ids[index].hash(hasher);
    def.kind.hash(hasher);
    def.parent.hash(hasher);
    def.owner.hash(hasher);
    package.hash(hasher);
    node.language.hash(hasher);
    // Inference reads return types, and the fields a type declares or assigns.
    def.returns.hash(hasher);
    // Build variants: a `#[cfg]` and a Go file's build line decide which twin wins.
    def.disabled.hash(hasher);
    // What importers see of it (a Lua-style `M.f` is exported only while no type `M` is).
    is_exported(summary, index as u32).hash(hasher);
    summary.build_constraint.hash(hasher);
    // A TypeScript callback's parameters are typed by the callee's signature.
    if semantics::of(node.language).callbacks_typed_by_declared_signature()
        && def.kind.is_callable()
    {
        def.signature().hash(hasher);
    }
}

/// What importers of a module may read of its imports, when its imports changed but its package,
/// its `#[path]` modules and its wildcard imports did not: the names whose bindings changed
/// (an import binds them, or bound them, differently), each with its identifier parts (a
/// Python `import a.b` binds `a.b`; a receiver `a.b` is mentioned as `a` and `b`). Readers
/// follow another file's imports only by the name they look up or through its wildcards
/// (`exported_by_files`, `alias_in_files`, `reexporting_files`, `module_binding_value`), so
/// the files that mention one of these names are all the importers that can see the change;
/// the reachable-packages walks, which read whole import lists, follow the import targets
/// instead (`Transaction::new_import_targets`).
/// `None` when importers must all be re-resolved (package, path modules or wildcards changed).
fn imports_change(old: &FileNode, new: &FileNode) -> Option<Vec<Name>> {
    if old.summary.package != new.summary.package
        || old.summary.path_modules != new.summary.path_modules
    {
        return None;
    }
    let (old_wildcards, old_bound) = imports_by_binding(old);
    let (new_wildcards, new_bound) = imports_by_binding(new);
    if old_wildcards != new_wildcards {
        return None;
    }
    let mut names: FxHashSet<Name> = FxHashSet::default();
    for binding in old_bound.keys().chain(new_bound.keys()) {
        if old_bound.get(binding) == new_bound.get(binding) {
            continue;
        }
        names.insert(*binding);
        for part in binding.split(|character: char| {
            !(character.is_alphanumeric() || character == '_' || character == '$')
        }) {
            if !part.is_empty() {
                names.insert(Name::new(part));
            }
        }
    }
    Some(names.into_iter().collect())
}

/// An import as another file reads it: (path, name, alias, scope), without its position.
type ImportRead = (Name, Option<Name>, Option<Name>, Option<u32>);

/// A file's wildcard imports in order, and its other imports in order per name they bind.
fn imports_by_binding(node: &FileNode) -> (Vec<ImportRead>, FxHashMap<Name, Vec<ImportRead>>) {
    let mut wildcards = Vec::new();
    let mut bound: FxHashMap<Name, Vec<ImportRead>> = FxHashMap::default();
    for (position, import) in node.summary.imports.iter().enumerate() {
        let read = (import.path, import.name, import.alias, import.scope);
        match &node.import_bindings[position] {
            Some(binding) if !import.wildcard => bound.entry(*binding).or_default().push(read),
            _ => wildcards.push(read),
        }
    }
    (wildcards, bound)
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
    summary.path_modules.hash(&mut hasher);
    hasher.finish()
}
