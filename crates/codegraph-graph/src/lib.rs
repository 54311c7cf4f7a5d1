//! The code graph: an immutable snapshot of every file's extraction and resolved edges.
//!
//! A [`Graph`] is cheap to clone (persistent maps with structural sharing) and never changes;
//! [`GraphWriter`] produces the next one from a batch of file updates. Readers hold an
//! `Arc<Graph>` for as long as they like and never see half a change.
//!
//! Invariants:
//! - Entity ids are `<relative path>::<Nested.Name>` (a file's module entity is the bare path),
//!   with `#2`, `#3`, ... for later duplicates in the same file. They depend on the file's own
//!   text only, so re-indexing an unrelated file never changes them.
//! - Edges are stored with the file whose reference produced them; the `incoming` and
//!   `outgoing` maps list, for each entity, the numbers of the files that hold an edge to it
//!   (from it), each once, in path order; within a file, [`Resolved::edges_to`] and
//!   [`Resolved::edges_from`] find them by a per-file order computed on first use. So an edit
//!   changes the maps only where a file starts or stops reaching an entity, never because its
//!   edges moved.
//! - Ambiguous references are not edges; they are kept in [`Resolved::ambiguous`].
//! - A graph loaded from the cache ([`GraphWriter::load`]) builds its name and module indices
//!   on threads of their own, after what a call hierarchy, a definition or the references of
//!   an entity read; whoever reads one first waits for it (`deferred.rs`). Every other index is
//!   whole when the graph is.

pub mod aliases;
pub mod build;
mod deferred;
mod files;
pub mod modules;
pub mod query;
mod resolve;
pub mod semantics;
mod sharded;
pub mod text;

use std::sync::Arc;

use rustc_hash::FxHashSet;

use codegraph_model::Name;
use serde::{Deserialize, Serialize};

use codegraph_index::FileSummary;
use codegraph_lang::Language;
use codegraph_model::{EntityKind, FileClass, LineSpan, RelationKind, Resolution, Span};

pub use build::{FileUpdate, GraphWriter};
pub use text::{FileText, TextSource};

/// An entity's id, interned (`model::Name`: eight bytes, each text stored once for the process).
pub type EntityId = codegraph_model::Name;
/// A workspace-relative file path, interned like ids.
pub type FilePath = codegraph_model::Name;

/// One definition in the name index, with the facts resolution filters on, so that looking a
/// common name up (`new`, `get`, `__init__`) never touches the files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NameEntry {
    pub id: EntityId,
    pub file: FilePath,
    pub index: u32,
    pub kind: EntityKind,
    pub language: Language,
    pub parent: Option<u32>,
    /// At the top level, or only inside namespaces and modules.
    pub top_level: bool,
    /// Visible to importers of its file.
    pub exported: bool,
    pub owner: Option<Name>,
    pub package: Option<Name>,
}

/// A resolved base of a type: (base, extends or implements, the file that says so).
pub type BaseOf = (EntityId, RelationKind, FilePath);

/// One indexed file.
#[derive(Debug, Clone)]
pub struct FileNode {
    pub path: FilePath,
    pub language: Language,
    /// What the file is for (production, test, ...), from its path and first lines
    /// (`lang::file_class`).
    pub class: FileClass,
    /// The text the summary was extracted from: an editor's buffer stays resident, a file on
    /// disk is read again when asked for ([`FileNode::text`]).
    pub text: FileText,
    /// The text holds only ASCII: byte columns are UTF-16 columns, positions convert without it.
    pub ascii: bool,
    pub hash: [u8; 32],
    pub summary: Arc<FileSummary>,
    /// The id of each definition, index for index with `summary.defs`.
    pub ids: Arc<[EntityId]>,
    pub module_id: EntityId,
    /// The local name each import binds, index for index with `summary.imports`.
    pub import_bindings: Arc<[Option<Name>]>,
    pub resolved: Arc<Resolved>,
}

impl FileNode {
    /// The reference an external call of this file resolves: its name, receiver, site and
    /// scope (`None` only for a resolution that does not belong to this summary).
    pub fn external_reference(&self, external: &ExternalRef) -> Option<&codegraph_index::Ref> {
        self.summary.refs.get(external.reference as usize)
    }

    /// Where one of this file's edges is in its text (`None` for a definition's containment).
    pub fn site(&self, edge: &Edge) -> Option<Span> {
        edge.site.span(&self.summary)
    }

    /// The entity a reference of this file sits in: its scope's definition, else the module.
    pub fn scope_entity(&self, scope: Option<u32>) -> &EntityId {
        scope
            .and_then(|index| self.ids.get(index as usize))
            .unwrap_or(&self.module_id)
    }

    /// The text the file was indexed from; `None` when it is not resident and the file changed
    /// (or vanished) since: the world re-indexes it rather than let an answer misquote it.
    pub fn text(&self) -> Option<Arc<str>> {
        self.text.get(&self.path, &self.hash)
    }

    /// The text's length in bytes, without reading it.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Why codegraph failed on this file, if it did (its extraction or its resolution
    /// panicked and was contained: `contain`).
    pub fn failure(&self) -> Option<&str> {
        self.summary
            .failure
            .as_deref()
            .or(self.resolved.failure.as_deref())
    }

    /// Whether the text is held in memory (an open editor buffer) rather than read on demand.
    pub fn text_is_resident(&self) -> bool {
        self.text.is_resident()
    }
}

/// What resolution made of a file's references.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Resolved {
    pub edges: Vec<Edge>,
    pub ambiguous: Vec<AmbiguousRef>,
    /// References to names defined nowhere in the workspace: libraries, builtins.
    pub external: Vec<ExternalRef>,
    /// Names and module keys resolution looked up beyond those `resolve::mentions` derives from
    /// the file alone (a return type's name, a field's type, reached through inferred types),
    /// so that a change to them re-resolves this file. Sorted.
    pub extra_names: Vec<Name>,
    pub extra_modules: Vec<Name>,
    /// The files its imports name, in import order, each once (`resolve::import_targets`):
    /// what the reachable-packages walks of other files read of it. A function of the file's
    /// imports and of which files answer its import keys, both of which re-resolve it.
    pub import_targets: Arc<[FilePath]>,
    /// A fingerprint of the packages the file's imports reach (`resolve::walk_reachable`), if
    /// its unique-name guesses needed them, else 0: when a file's imports change, a file that
    /// walked through it keeps its resolution if its walk still reaches the same packages.
    pub reachable: u64,
    /// The names whose unique-name guesses asked which packages the imports reach
    /// (`Resolver::visible_package`), its foreign resolvers' included. Sorted. The walk's
    /// packages decide nothing else: a walk that gains or loses a package changes the file's
    /// resolution only if that package defines one of these names.
    pub guessed: Vec<Name>,
    /// For each reference (by position in `summary.refs`; `u32::MAX` for guesses outside any
    /// reference) the names of `guessed` its resolution guessed, through the memoised values
    /// it used included. Sorted. When a walk gains or loses packages, only the references
    /// that guessed a name such a package defines can resolve otherwise.
    pub guessed_by: Vec<(u32, Name)>,
    /// The references (by position in `summary.refs`) whose resolution ran out of depth or
    /// steps (`walk`): left aside as unresolved, whatever part of a target their walk found.
    /// Rare, and only on absurd code; a file that has any is always resolved whole again.
    #[serde(default)]
    pub bounded: Vec<u32>,
    /// Resolution failed on this file (a bug of ours, caught at the file's boundary:
    /// `contain`): no edges, and the doors report the file.
    #[serde(default)]
    pub failure: Option<Box<str>>,
    /// The edges by target and by source, for the graph's queries (never stored).
    #[serde(skip)]
    pub order: EdgeOrder,
}

impl Resolved {
    /// The resolution of a file whose resolution failed with `message`: nothing but its import
    /// targets as they were (other files' walks read them).
    pub(crate) fn failed(message: String, import_targets: Arc<[FilePath]>) -> Resolved {
        Resolved {
            import_targets,
            failure: Some(message.into()),
            ..Resolved::default()
        }
    }

    /// The edges to `id`, in position order.
    pub fn edges_to<'r>(&'r self, id: &EntityId) -> impl Iterator<Item = &'r Edge> + use<'r> {
        self.edges_by(0, id.addr())
    }

    /// The edges from `id`, in position order.
    pub fn edges_from<'r>(&'r self, id: &EntityId) -> impl Iterator<Item = &'r Edge> + use<'r> {
        self.edges_by(1, id.addr())
    }

    /// The edges whose end `which` ([`EDGE_ENDS`]: the target, the source) is the entity
    /// interned at `wanted`: a binary search of that order, which holds each end's address
    /// next to the edge's position (no edge is read until one is found).
    fn edges_by(&self, which: usize, wanted: usize) -> impl Iterator<Item = &Edge> {
        let orders = self.order.0.get_or_init(|| {
            EDGE_ENDS.map(|end| {
                let mut keys: Vec<u64> = (self.edges.iter().enumerate())
                    .map(|(position, edge)| order_key(end(edge).addr(), position))
                    .collect();
                keys.sort_unstable();
                keys.into_boxed_slice()
            })
        });
        let (order, edges) = (&orders[which], &self.edges);
        let wanted = wanted as u64;
        let start = order.partition_point(|key| key >> 32 < wanted);
        order[start..]
            .iter()
            .take_while(move |key| *key >> 32 == wanted)
            .map(move |key| &edges[*key as u32 as usize])
    }

    /// Gives back the spare capacity of lists grown by pushing: a resolution is kept for as
    /// long as its file is indexed, and a full index resolves every file before keeping any.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.edges.shrink_to_fit();
        self.ambiguous.shrink_to_fit();
        for ambiguous in &mut self.ambiguous {
            // Collected by filtering: up to twice the candidates' room.
            ambiguous.candidates.shrink_to_fit();
        }
        self.external.shrink_to_fit();
        self.extra_names.shrink_to_fit();
        self.extra_modules.shrink_to_fit();
        self.guessed.shrink_to_fit();
        self.guessed_by.shrink_to_fit();
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    pub from: EntityId,
    pub to: EntityId,
    pub kind: RelationKind,
    pub resolution: Resolution,
    /// Where in this edge's file the reference is (the called name, the base name, the import):
    /// [`Site::span`] in the file's summary.
    pub site: Site,
}

/// Which record of its file's summary an edge comes from: a reference, an import, a base (an
/// `inherits` entry) or a definition's name, by its index, in four bytes (a span on every edge
/// would take 28). An edit that only moves text leaves it as it is:
/// the span is read from the summary of the file that holds the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Site(u32);

impl Site {
    /// An edge of no one place (a definition's containment).
    pub const NONE: Site = Site(u32::MAX);
    const INDEX_BITS: u32 = 30;
    const INDEX: u32 = (1 << Site::INDEX_BITS) - 1;
    const REFERENCE: u32 = 0;
    const IMPORT: u32 = 1;
    const BASE: u32 = 2;
    const DEFINITION: u32 = 3;

    fn new(kind: u32, index: usize) -> Site {
        // No summary holds a billion records; one that did would lose its sites, not misplace them.
        match u32::try_from(index) {
            Ok(index) if index < Site::INDEX => Site(kind << Site::INDEX_BITS | index),
            _ => Site::NONE,
        }
    }

    /// The reference at `index` of `summary.refs` (its name).
    pub fn reference(index: usize) -> Site {
        Site::new(Site::REFERENCE, index)
    }

    /// The import at `index` of `summary.imports`.
    pub fn import(index: usize) -> Site {
        Site::new(Site::IMPORT, index)
    }

    /// The base at `index` of `summary.inherits`.
    pub fn base(index: usize) -> Site {
        Site::new(Site::BASE, index)
    }

    /// The name of the definition at `index` of `summary.defs`.
    pub fn definition(index: usize) -> Site {
        Site::new(Site::DEFINITION, index)
    }

    /// The index in `summary.refs` of a reference's site; `None` for a site of another record.
    pub fn reference_index(self) -> Option<usize> {
        (self != Site::NONE && self.0 >> Site::INDEX_BITS == Site::REFERENCE)
            .then_some((self.0 & Site::INDEX) as usize)
    }

    /// The index in `summary.imports` when the site is an import.
    pub fn import_index(self) -> Option<usize> {
        (self != Site::NONE && self.0 >> Site::INDEX_BITS == Site::IMPORT)
            .then_some((self.0 & Site::INDEX) as usize)
    }

    /// Where the site is in `summary` (the summary of the file that holds the edge); `None` for
    /// [`Site::NONE`].
    pub fn span(self, summary: &FileSummary) -> Option<Span> {
        if self == Site::NONE {
            return None;
        }
        let index = (self.0 & Site::INDEX) as usize;
        match self.0 >> Site::INDEX_BITS {
            Site::REFERENCE => summary.refs.get(index).map(|reference| reference.span),
            Site::IMPORT => summary.imports.get(index).map(|import| import.span),
            Site::BASE => summary.inherits.get(index).map(|inherit| inherit.span),
            _ => summary.defs.get(index).map(|def| def.name_span),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AmbiguousRef {
    pub from: EntityId,
    pub name: Name,
    pub site: Span,
    pub candidates: Vec<EntityId>,
}

/// A call of a name defined nowhere in the workspace (a library, a builtin). Its caller, name,
/// receiver and site are those of the reference it resolves, kept once in the file's summary
/// (a fifth of the size of copying them: there are about as many of these as of edges).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalRef {
    /// The reference's index in the file's `summary.refs`.
    pub reference: u32,
    /// The module it comes from, when an import says so.
    pub module: Option<Name>,
}

/// A list of writer file numbers (an entity's files in the edge indices): one or two numbers
/// inline, more in a shared slice; sixteen bytes either way. Most entities are reached from
/// one file or two: a slice of their own was an allocation each (190 k on the benchmark
/// corpus). No file number is `u32::MAX`, which marks an inline list of one.
#[derive(Debug, Clone)]
pub(crate) enum FileNumbers {
    Few([u32; 2]),
    Many(Arc<[u32]>),
}

/// Two lists are equal when they list the same numbers, however they hold them.
impl PartialEq for FileNumbers {
    fn eq(&self, other: &FileNumbers) -> bool {
        **self == **other
    }
}

impl Eq for FileNumbers {}

impl From<Vec<u32>> for FileNumbers {
    fn from(numbers: Vec<u32>) -> FileNumbers {
        match numbers[..] {
            [one] => FileNumbers::Few([one, u32::MAX]),
            [first, second] => FileNumbers::Few([first, second]),
            _ => FileNumbers::Many(numbers.into()),
        }
    }
}

impl std::ops::Deref for FileNumbers {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            FileNumbers::Few([one, u32::MAX]) => std::slice::from_ref(one),
            FileNumbers::Few(two) => two,
            FileNumbers::Many(numbers) => numbers,
        }
    }
}

/// Where an entity lives: its file and its index in the file's definitions (`None` for the
/// file's module entity).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntityLoc {
    pub file: FilePath,
    pub index: Option<u32>,
}

/// An entity id or a name as the graph's queries take it: interned ([`EntityId`], [`Name`]) as
/// it is, or a text, looked up among the interned names (a text never interned names nothing).
pub trait IdKey {
    fn interned(&self) -> Option<Name>;
}

impl IdKey for Name {
    fn interned(&self) -> Option<Name> {
        Some(*self)
    }
}

impl IdKey for str {
    fn interned(&self) -> Option<Name> {
        Name::existing(self)
    }
}

impl IdKey for String {
    fn interned(&self) -> Option<Name> {
        Name::existing(self)
    }
}

/// The two ends of an edge [`EdgeOrder`] orders a file's edges by: the target, the source.
const EDGE_ENDS: [fn(&Edge) -> &EntityId; 2] = [|edge| &edge.to, |edge| &edge.from];

/// A file's edges in two orders, by target and by source (each edge's [`order_key`]: the
/// entity's interned address, then the edge's position in `edges`), computed by the first
/// query that reads them. A clone starts empty: whoever clones a resolution may change its
/// edges.
#[derive(Default)]
pub struct EdgeOrder(std::sync::OnceLock<[Box<[u64]>; 2]>);

/// An edge's place in an [`EdgeOrder`]: its end's interned address (a `u32`) in the high half,
/// its position in the file's edges in the low half, so the keys sort by address, then position.
fn order_key(addr: usize, position: usize) -> u64 {
    (addr as u64) << 32 | position as u64
}

impl Clone for EdgeOrder {
    fn clone(&self) -> Self {
        EdgeOrder::default()
    }
}

impl PartialEq for EdgeOrder {
    /// Derived from the edges, which the resolutions compare.
    fn eq(&self, _: &EdgeOrder) -> bool {
        true
    }
}

impl std::fmt::Debug for EdgeOrder {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("EdgeOrder")
    }
}

/// A persistent hash map of the graph (`graph/sharded.rs`), hashed with `FxHasher` (the keys
/// are ids and names the writer and every resolution look up millions of times; SipHash's
/// resistance to chosen collisions costs a third of an edit's lookups and buys nothing a local
/// index needs).
pub(crate) type PersistentMap<K, V> = sharded::ShardedMap<K, V>;

/// An immutable snapshot of the whole graph.
#[derive(Clone, Default)]
pub struct Graph {
    pub(crate) revision: u64,
    pub(crate) files: files::Files,
    /// The path of each file number (the writer numbers files; a removed file's number is
    /// `None` until reused): what the `incoming` and `outgoing` lists name.
    pub(crate) file_paths: imbl::Vector<Option<FilePath>>,
    pub(crate) entities: PersistentMap<EntityId, EntityLoc>,
    /// Built on a thread of its own by a warm start ([`deferred::Deferred`]).
    pub(crate) by_name: deferred::Deferred<PersistentMap<Name, Arc<[NameEntry]>>>,
    /// Built on a thread of its own by a warm start.
    pub(crate) modules: deferred::Deferred<PersistentMap<Name, Arc<[FilePath]>>>,
    /// Resolved bases of each type: (base, extends or implements, the file that said so).
    pub(crate) bases: PersistentMap<EntityId, Arc<[BaseOf]>>,
    /// The numbers of the files with an edge to each entity, in path order.
    pub(crate) incoming: PersistentMap<EntityId, FileNumbers>,
    /// The numbers of the files with an edge from each entity, in path order.
    pub(crate) outgoing: PersistentMap<EntityId, FileNumbers>,
    /// Every distinct definition name as one flat list, built by the first symbol search of a
    /// revision whose names changed (a scan of a slice, not of the persistent map).
    pub(crate) names_cache: Arc<std::sync::OnceLock<NameList>>,
    /// Where the references left aside are, by the entity or name they may reach: built by the
    /// first query of a revision that needs it (`query::possible_callers`), reset by every
    /// transaction.
    pub(crate) left_aside: Arc<std::sync::OnceLock<Arc<query::LeftAsideIndex>>>,
    /// Where bare JavaScript/TypeScript specifiers land in the workspace (tsconfig `paths`,
    /// workspace packages); set by `world` from the manifests.
    pub(crate) aliases: Arc<aliases::ModuleAliases>,
    /// The files the last transactions replaced, added or removed ([`Graph::changed_since`]).
    pub(crate) changes: imbl::Vector<Arc<Change>>,
}

/// The files one transaction replaced, added or removed in the file map; `None` when it did
/// not list them (more than [`Change::LISTED`], or a change of every file's context).
#[derive(Debug)]
pub struct Change {
    pub(crate) paths: Option<Box<[FilePath]>>,
}

impl Change {
    /// The most files a transaction lists; a bigger one is "everything may have changed".
    pub(crate) const LISTED: usize = 4096;
    /// How many transactions a graph remembers.
    pub(crate) const KEPT: usize = 64;
}

/// Every distinct definition name of a revision, with each one's [`letter_mask`]: a symbol
/// search rejects most names by their mask before reading them.
#[derive(Debug, Default)]
pub struct NameList {
    pub names: Box<[Name]>,
    pub masks: Box<[u32]>,
    /// The names' texts one after another, and where each ends: a search reads them in order
    /// from one block, where following each name's pointer to the interned table cost a cache
    /// miss per name (most of a short query's time on the kernel's 1.6 M names).
    pub text: Box<str>,
    pub ends: Box<[usize]>,
}

impl NameList {
    /// The text of name `index`, from the one block.
    pub fn text_of(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.text[start..self.ends[index]]
    }
}

/// Which characters a text holds, ASCII case folded: bits 0–25 the letters, 26 any digit, 27
/// `_`, 28 any other ASCII character, [`NON_ASCII`] any other byte. An ASCII name can match an
/// ASCII query (every kind of match is then an ASCII case-insensitive subsequence) only if its
/// mask holds every bit of the query's; Unicode case folding (the Kelvin sign is a `k`) makes
/// no such promise for other texts.
pub fn letter_mask(text: &str) -> u32 {
    text.bytes().fold(0, |mask, byte| {
        mask | match byte.to_ascii_lowercase() {
            letter @ b'a'..=b'z' => 1 << (letter - b'a'),
            b'0'..=b'9' => 1 << 26,
            b'_' => 1 << 27,
            0..=127 => 1 << 28,
            _ => NON_ASCII,
        }
    })
}

/// The [`letter_mask`] bit of a text that is not all ASCII.
pub const NON_ASCII: u32 = 1 << 29;

/// Whether a name of mask `name` may match a query of mask `query` (see [`letter_mask`]).
pub fn may_match(query: u32, name: u32) -> bool {
    (query | name) & NON_ASCII != 0 || query & !name == 0
}

/// A definition as the API shows it. Built on demand from the file's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    pub id: EntityId,
    #[serde(rename = "type")]
    pub kind: EntityKind,
    pub name: Name,
    pub qualified_name: String,
    pub file_path: FilePath,
    /// One-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    pub signature: Option<String>,
    pub docstring: Option<String>,
    pub language: Language,
    #[serde(skip)]
    pub span: LineSpan,
    #[serde(skip)]
    pub name_span: LineSpan,
    /// The enclosing entity (a module for top-level definitions); `None` for modules.
    #[serde(skip)]
    pub parent: Option<EntityId>,
}

impl Graph {
    /// The module aliases resolution uses (from the workspace's manifests).
    pub fn aliases(&self) -> &aliases::ModuleAliases {
        &self.aliases
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// What identifies this snapshot among the changes ([`Graph::changed_since`]): the last
    /// transaction's change, `None` for a graph no transaction made.
    pub fn change_mark(&self) -> Option<Arc<Change>> {
        self.changes.last().cloned()
    }

    /// The paths whose node in the file map is not the one of the snapshot `mark` identifies
    /// ([`Graph::change_mark`]): replaced, added or removed by the transactions since. `None`
    /// when that snapshot is not among the last [`Change::KEPT`] before this one (or on another
    /// line of snapshots, a proposed change's), or a transaction since did not list its files:
    /// then every file must be compared. A reader that keeps something per file (the rules
    /// checker) finds an edit's file without comparing every file's node.
    pub fn changed_since(&self, mark: &Arc<Change>) -> Option<FxHashSet<FilePath>> {
        let mut paths: FxHashSet<FilePath> = FxHashSet::default();
        for change in self.changes.iter().rev() {
            if Arc::ptr_eq(change, mark) {
                return Some(paths);
            }
            paths.extend(change.paths.as_deref()?.iter().copied());
        }
        None
    }

    pub fn file(&self, path: &str) -> Option<&Arc<FileNode>> {
        self.files.get(path)
    }

    pub fn files(&self) -> impl Iterator<Item = &Arc<FileNode>> {
        self.files.values()
    }

    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    pub fn contains_entity(&self, id: &str) -> bool {
        self.entities.contains_key(id)
    }

    /// Every distinct definition name.
    pub fn names(&self) -> &[Name] {
        &self.name_list().names
    }

    /// Every distinct definition name with its [`letter_mask`], index for index.
    pub(crate) fn name_list(&self) -> &NameList {
        self.names_cache.get_or_init(|| {
            let names: Box<[Name]> = self.by_name.keys().cloned().collect();
            let masks = names.iter().map(|name| letter_mask(name)).collect();
            let mut text = String::with_capacity(names.iter().map(|name| name.len()).sum());
            let ends = names
                .iter()
                .map(|name| {
                    text.push_str(name);
                    text.len()
                })
                .collect();
            NameList {
                names,
                masks,
                text: text.into_boxed_str(),
                ends,
            }
        })
    }

    /// Every entity with this exact name.
    pub fn named(&self, name: &str) -> &[NameEntry] {
        self.by_name.get(name).map_or(&[], |entries| entries)
    }

    pub fn entity(&self, id: &str) -> Option<Entity> {
        let loc = self.entities.get(id)?;
        let file = self.files.get(&loc.file)?;
        Some(materialize(file, loc.index))
    }

    /// The kind of an entity without materialising it.
    pub fn kind_of(&self, id: &str) -> Option<EntityKind> {
        let loc = self.entities.get(id)?;
        match loc.index {
            None => Some(EntityKind::Module),
            Some(index) => Some(self.files.get(&loc.file)?.summary.defs[index as usize].kind),
        }
    }

    /// What an entity's code is for: its file's class, or test inside a test module
    /// (`index::FileSummary::definition_class`); production for an unknown id.
    pub fn class_of(&self, id: &str) -> FileClass {
        let Some(loc) = self.entities.get(id) else {
            return FileClass::Production;
        };
        let Some(file) = self.files.get(&loc.file) else {
            return FileClass::Production;
        };
        match loc.index {
            None => file.class,
            Some(index) => file.summary.definition_class(file.class, index),
        }
    }

    /// An entity's docstring, without building the entity.
    pub fn docstring_of(&self, id: &str) -> Option<&str> {
        let loc = self.entities.get(id)?;
        let index = loc.index?;
        self.files.get(&loc.file)?.summary.defs[index as usize].doc()
    }

    /// The files that hold an edge to an entity, in path order (each once).
    pub fn incoming_files(&self, id: &str) -> impl Iterator<Item = &Arc<FileNode>> {
        self.numbered_files(self.incoming.get(id))
    }

    pub fn location(&self, id: &str) -> Option<&EntityLoc> {
        self.entities.get(id)
    }

    /// The files of a list of file numbers.
    fn numbered_files<'g>(
        &'g self,
        numbers: Option<&'g FileNumbers>,
    ) -> impl Iterator<Item = &'g Arc<FileNode>> {
        numbers
            .into_iter()
            .flat_map(|numbers| numbers.iter())
            .filter_map(|number| {
                let path = self.file_paths.get(*number as usize)?.as_ref()?;
                self.files.get(path)
            })
    }

    /// The edges that point at an entity: by file in path order, then by position.
    pub fn incoming<'g, K: IdKey + ?Sized>(
        &'g self,
        id: &K,
    ) -> impl Iterator<Item = &'g Edge> + use<'g, K> {
        let id = id.interned();
        self.numbered_files(id.and_then(|id| self.incoming.get(&id)))
            .flat_map(move |file| id.into_iter().flat_map(|id| file.resolved.edges_to(&id)))
    }

    /// The edges from an entity: by file in path order, then by position.
    pub fn outgoing<'g, K: IdKey + ?Sized>(
        &'g self,
        id: &K,
    ) -> impl Iterator<Item = &'g Edge> + use<'g, K> {
        let id = id.interned();
        self.numbered_files(id.and_then(|id| self.outgoing.get(&id)))
            .flat_map(move |file| id.into_iter().flat_map(|id| file.resolved.edges_from(&id)))
    }

    /// The edges that point at an entity, each with the file that holds it (the summary its
    /// site is in): by file in path order, then by position.
    pub fn incoming_in_files<'g, K: IdKey + ?Sized>(
        &'g self,
        id: &K,
    ) -> impl Iterator<Item = (&'g Arc<FileNode>, &'g Edge)> + use<'g, K> {
        let id = id.interned();
        self.numbered_files(id.and_then(|id| self.incoming.get(&id)))
            .flat_map(move |file| {
                id.into_iter()
                    .flat_map(|id| file.resolved.edges_to(&id))
                    .map(move |edge| (file, edge))
            })
    }

    /// Where the reference an edge of a call, a use or an import is: the source of such an
    /// edge, the scope that makes the reference, is in the file that holds the edge. (An edge
    /// of another kind may start in another file: `impl Trait for Type` names a type defined
    /// elsewhere; its site needs the file that holds it, [`FileNode::site`].)
    /// `None` for an edge of another kind.
    pub fn reference_site(&self, edge: &Edge) -> Option<LineSpan> {
        if !matches!(
            edge.kind,
            RelationKind::Calls | RelationKind::Uses | RelationKind::Imports
        ) {
            return None;
        }
        let file = self.files.get(&self.entities.get(&edge.from)?.file)?;
        file.site(edge).map(|site| file.summary.locate(site))
    }

    pub fn all_edges(&self) -> impl Iterator<Item = &Edge> {
        self.files
            .values()
            .flat_map(|file| file.resolved.edges.iter())
    }

    /// Every entity of a file, module first, then definitions in document order.
    pub fn file_entities(&self, path: &str) -> Vec<Entity> {
        let Some(file) = self.files.get(path) else {
            return Vec::new();
        };
        std::iter::once(None)
            .chain((0..file.summary.defs.len() as u32).map(Some))
            .map(|index| materialize(file, index))
            .collect()
    }
}

/// Whether a Go file belongs to the chosen build (`lang::go_build`); other files always do.
pub fn go_file_in_build(file: &FileNode) -> bool {
    file.language != Language::Go
        || codegraph_lang::go_build::in_build(
            &file.path,
            file.summary.build_constraint.as_deref(),
            codegraph_lang::go_build::Platform::chosen(),
        )
}

/// Whether a C or C++ file belongs to the chosen platform's build (`lang::c_build`); any
/// other file does.
pub fn c_file_in_build(file: &FileNode) -> bool {
    !matches!(file.language, Language::C | Language::Cpp)
        || codegraph_lang::c_build::in_build(
            &file.path,
            codegraph_lang::c_build::Platform::chosen(),
        )
}

/// The qualifier of a file's entities: its package, or its path without extension, dotted.
pub fn module_qualifier(path: &str, summary: &FileSummary) -> String {
    if let Some(package) = &summary.package {
        return modules::normalize_package(package).to_string();
    }
    let without = match path.rfind('.') {
        Some(dot) if !path[dot..].contains('/') => &path[..dot],
        _ => path,
    };
    without.replace('/', ".")
}

pub fn materialize(file: &FileNode, index: Option<u32>) -> Entity {
    let summary = &file.summary;
    match index {
        None => {
            let name = file.path.rsplit('/').next().unwrap_or(&file.path);
            let end_line = summary.line_count.max(1);
            Entity {
                id: file.module_id,
                kind: EntityKind::Module,
                name: Name::new(name),
                qualified_name: module_qualifier(&file.path, summary),
                file_path: file.path,
                start_line: 1,
                end_line,
                signature: None,
                docstring: None,
                language: file.language,
                span: summary.locate(Span::new(0, file.text_len() as u32)),
                name_span: LineSpan::default(),
                parent: None,
            }
        }
        Some(index) => {
            let def = &summary.defs[index as usize];
            let qualifier = module_qualifier(&file.path, summary);
            let nested = summary.nested_name(index);
            let span = summary.locate(def.span);
            Entity {
                id: file.ids[index as usize],
                kind: def.kind,
                name: def.name,
                qualified_name: if qualifier.is_empty() {
                    nested
                } else {
                    format!("{qualifier}.{nested}")
                },
                file_path: file.path,
                start_line: span.start.line + 1,
                end_line: span.end.line + 1,
                signature: (!def.signature().is_empty()).then(|| def.signature().to_string()),
                docstring: def.doc().map(str::to_string),
                language: file.language,
                span,
                name_span: summary.locate(def.name_span),
                parent: Some(match def.parent {
                    Some(parent) => file.ids[parent as usize],
                    None => file.module_id,
                }),
            }
        }
    }
}

/// Assigns ids to a file's definitions: `path::Nested.name`, then `#2`, `#3` for duplicates.
///
/// One buffer holds each id's text while it is interned, and duplicates are counted by the
/// interned name (a number), so a warm start's million definitions cost one interning each.
pub fn assign_ids(path: &str, summary: &FileSummary) -> Vec<EntityId> {
    let mut text = String::with_capacity(path.len() + 64);
    let mut seen: rustc_hash::FxHashMap<EntityId, u32> = rustc_hash::FxHashMap::default();
    (0..summary.defs.len() as u32)
        .map(|index| {
            text.clear();
            text.push_str(path);
            text.push_str("::");
            summary.write_nested_name(index, &mut text);
            let base = EntityId::new(&text);
            let count = seen.entry(base).or_insert(0);
            *count += 1;
            if *count == 1 {
                base
            } else {
                use std::fmt::Write;
                let _ = write!(text, "#{count}");
                EntityId::new(&text)
            }
        })
        .collect()
}

impl Graph {
    /// A canonical text form of the whole graph: entities, edges and ambiguous references,
    /// sorted. Two graphs are equal when their dumps are; snapshot tests store it.
    pub fn dump(&self) -> String {
        let mut lines: Vec<String> = Vec::new();
        for file in self.files.values() {
            lines.push(format!("file {} {}", file.path, file.language.name()));
            for index in std::iter::once(None).chain((0..file.summary.defs.len() as u32).map(Some))
            {
                let entity = materialize(file, index);
                lines.push(format!(
                    "entity {} {} {}-{}",
                    entity.id, entity.kind, entity.start_line, entity.end_line
                ));
            }
            for edge in &file.resolved.edges {
                let site = file
                    .site(edge)
                    .map(|site| file.summary.locate(site).start)
                    .map(|site| format!(" @{}:{}", site.line + 1, site.column + 1))
                    .unwrap_or_default();
                lines.push(format!(
                    "edge {} {} {} [{}]{site}",
                    edge.from, edge.kind, edge.to, edge.resolution
                ));
            }
            if let Some(failure) = file.failure() {
                lines.push(format!("failed {} {failure}", file.path));
            }
            for &reference in &file.resolved.bounded {
                if let Some(reference) = file.summary.refs.get(reference as usize) {
                    let site = file.summary.locate(reference.span).start;
                    lines.push(format!(
                        "bounded {} {} @{}:{}",
                        file.path,
                        reference.name,
                        site.line + 1,
                        site.column + 1
                    ));
                }
            }
            for ambiguous in &file.resolved.ambiguous {
                let site = file.summary.locate(ambiguous.site).start;
                let candidates: Vec<&str> = ambiguous.candidates.iter().map(|id| &**id).collect();
                lines.push(format!(
                    "ambiguous {} {} @{}:{} -> {}",
                    ambiguous.from,
                    ambiguous.name,
                    site.line + 1,
                    site.column + 1,
                    candidates.join(" | ")
                ));
            }
        }
        lines.sort();
        lines.join("\n")
    }
}

impl Graph {
    /// Disagreements between the indices and the files (empty when the graph is consistent):
    /// the edge indices against the edges the files hold, the name and module indices against
    /// the definitions and paths of the files. Tests call it after incremental changes.
    pub fn index_problems(&self) -> Vec<String> {
        let mut problems = self.edge_index_problems();
        let nodes: Vec<Arc<FileNode>> = self.files.values().cloned().collect();
        let names = build::name_index(&nodes);
        if sorted_lists(&self.by_name) != sorted_lists(&names) {
            problems.push("the name index is not the files' definitions".to_string());
        }
        let modules = build::module_index(&nodes);
        if sorted_lists(&self.modules) != sorted_lists(&modules) {
            problems.push("the module index is not the files' paths".to_string());
        }
        problems
    }

    /// [`Graph::index_problems`] of the edge indices.
    fn edge_index_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut expected_incoming: std::collections::BTreeMap<&str, Vec<u32>> = Default::default();
        let mut expected_outgoing: std::collections::BTreeMap<&str, Vec<u32>> = Default::default();
        let mut numbered = 0;
        for (number, path) in self.file_paths.iter().enumerate() {
            let Some(file) = path.as_ref().and_then(|path| self.files.get(path)) else {
                continue;
            };
            numbered += 1;
            for edge in &file.resolved.edges {
                for (expected, id) in [
                    (&mut expected_incoming, &edge.to),
                    (&mut expected_outgoing, &edge.from),
                ] {
                    let numbers = expected.entry(id).or_default();
                    if numbers.last() != Some(&(number as u32)) {
                        numbers.push(number as u32);
                    }
                }
                if !file.resolved.edges_to(&edge.to).any(|found| found == edge)
                    || !file
                        .resolved
                        .edges_from(&edge.from)
                        .any(|found| found == edge)
                {
                    problems.push(format!("{}: an edge its order does not find", file.path));
                }
            }
        }
        for (name, index, expected) in [
            ("incoming", &self.incoming, expected_incoming),
            ("outgoing", &self.outgoing, expected_outgoing),
        ] {
            let mut actual_count = 0;
            for (id, numbers) in index.iter() {
                actual_count += numbers.len();
                let mut want = expected.get(&**id).cloned().unwrap_or_default();
                sort_file_numbers(&mut want, &self.file_paths);
                if want.as_slice() != &**numbers {
                    problems.push(format!(
                        "{name} of {id}: index lists {} files, edges say {}",
                        numbers.len(),
                        want.len()
                    ));
                }
            }
            let expected_count: usize = expected.values().map(Vec::len).sum();
            if actual_count != expected_count {
                problems.push(format!(
                    "{name}: index lists {actual_count} files, the edges {expected_count}"
                ));
            }
        }
        if numbered != self.files.len() {
            problems.push(format!(
                "{} files have no number, of {}",
                self.files.len() - numbered,
                self.files.len()
            ));
        }
        problems
    }
}

/// The lists of an index by name, each sorted, in the names' order: two indices with the same
/// lists compare equal whatever order their maps and lists were built in.
fn sorted_lists<V: Clone + Ord>(index: &PersistentMap<Name, Arc<[V]>>) -> Vec<(Name, Vec<V>)> {
    let mut lists: Vec<(Name, Vec<V>)> = index
        .iter()
        .map(|(key, values)| {
            let mut values = values.to_vec();
            values.sort();
            (*key, values)
        })
        .collect();
    lists.sort();
    lists
}

/// Sorts file numbers in the order readers see an entity's edges in: by file path (not by
/// number, which depends on the order files were added).
pub(crate) fn sort_file_numbers(numbers: &mut [u32], paths: &imbl::Vector<Option<FilePath>>) {
    numbers
        .sort_by(|left, right| file_number_key(*left, paths).cmp(&file_number_key(*right, paths)));
}

/// What [`sort_file_numbers`] orders by: the file's path.
pub(crate) fn file_number_key(number: u32, paths: &imbl::Vector<Option<FilePath>>) -> Option<&str> {
    paths.get(number as usize).and_then(|path| path.as_deref())
}
