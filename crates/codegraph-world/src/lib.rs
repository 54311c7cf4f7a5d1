//! The workspace and its single writer.
//!
//! A [`World`] owns one workspace root: the files found on disk, the editor's open buffers
//! (texts, and syntax trees for the few edited last, so edits reparse incrementally), the on-disk
//! cache, and the current graph. Every change goes through the writer lock, in order, as one
//! transaction; readers call [`World::snapshot`] and get an `Arc<Graph>` that never changes
//! under them.
//!
//! Architecture invariant: nothing else writes the graph, and the writer lock is never held
//! while waiting on a client.

pub mod buffer;
pub mod cache;
pub mod changes;
mod documents;
mod indexing;
mod load;
pub mod manifests;
mod report;
pub mod stamp;
pub mod texts;
pub mod trim;
pub mod walk;
pub mod watch;
pub mod work;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use parking_lot::Mutex;
use rustc_hash::FxHashMap;

use buffer::Buffer;
use codegraph_graph::{FilePath, FileText, FileUpdate, Graph, GraphWriter, build::FileContent};
use codegraph_index::FileSummary;
use codegraph_lang::Language;
pub use report::{FailedFile, IndexReport, fill_counts};
pub use stamp::Stamp;
use texts::DiskTexts;

/// Where the cache lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheLocation {
    /// `<root>/.codegraph/`.
    InWorkspace,
    Directory(PathBuf),
    /// `<directory>/<folder name>-<hash of the folder's path>/`: one cache per workspace folder
    /// under a directory of the user's choosing (`codegraph lsp --cache-dir`).
    PerFolderUnder(PathBuf),
    Disabled,
}

#[derive(Debug, Clone)]
pub struct WorldConfig {
    pub max_file_size: u64,
    pub cache: CacheLocation,
}

impl Default for WorldConfig {
    fn default() -> WorldConfig {
        WorldConfig {
            max_file_size: 1024 * 1024,
            cache: CacheLocation::InWorkspace,
        }
    }
}

struct WriterState {
    writer: GraphWriter,
    buffers: FxHashMap<FilePath, Buffer>,
    /// The open documents that hold a syntax tree, the one edited last at the end.
    edited: Vec<FilePath>,
    last_report: Option<IndexReport>,
    /// The manifests the last walk found (relative paths), kept as the watcher reports them.
    manifests: Vec<String>,
}

pub struct World {
    root: PathBuf,
    config: WorldConfig,
    current: ArcSwap<Graph>,
    state: Mutex<WriterState>,
    /// Search index, communities and refactoring facts of recent snapshots, computed by
    /// readers on demand; the writer never touches it.
    analysis: codegraph_analysis::Cache,
    /// The graph's revision, bumped after every stored snapshot. Readers that want to hear of
    /// changes (MCP resource subscriptions) hold a receiver; sending never waits for them.
    revision: tokio::sync::watch::Sender<u64>,
    /// The last walk found C++ sources and no C sources: `.h` headers are C++
    /// ([`codegraph_lang::header_language`]).
    cpp_headers: std::sync::atomic::AtomicBool,
    /// Reads the texts of files on disk again when an answer needs them; the graph keeps only
    /// open buffers' texts.
    texts: Arc<DiskTexts>,
    /// What each file of the graph read from disk looked like when it was read, and the files
    /// open in an editor: what [`World::stamp`] compares against, without the writer's lock.
    disk: stamp::DiskRecord,
}

/// Drops a replaced snapshot off the writer's path: when no reader holds it any more, freeing
/// what only it had (the edited file's old summary and resolution, the index shards the edit
/// copied) is a tenth of an edit's time, which the next answer need not wait for. One thread
/// for the process, started by the first snapshot replaced.
fn retire(graph: Arc<Graph>) {
    static RETIRED: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Arc<Graph>>>> =
        std::sync::OnceLock::new();
    if Arc::strong_count(&graph) > 1 {
        return; // a reader frees it, when done
    }
    let sender = RETIRED.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Arc<Graph>>();
        std::thread::Builder::new()
            .name("codegraph-retire".into())
            .spawn(move || receiver.into_iter().for_each(drop))
            .ok()
            .map(|_| sender)
    });
    if let Some(sender) = sender {
        // A send fails only if the thread is gone: then the graph comes back and drops here.
        let _ = sender.send(graph);
    }
}

impl World {
    /// Opens a workspace root. Nothing is indexed until [`World::index`].
    pub fn open(root: &Path, mut config: WorldConfig) -> anyhow::Result<World> {
        // Spans are four-byte offsets: a file is indexed only while every offset fits.
        let most = u64::from(u32::MAX - 1);
        if config.max_file_size > most {
            tracing::warn!(
                "a file size cap of {} bytes is over the {most} that byte offsets can address; using {most}",
                config.max_file_size
            );
            config.max_file_size = most;
        }
        let root = root
            .canonicalize()
            .map_err(|error| anyhow::anyhow!("{}: {error}", root.display()))?;
        if !root.is_dir() {
            anyhow::bail!("{}: not a directory", root.display());
        }
        std::fs::read_dir(&root).map_err(|error| anyhow::anyhow!("{}: {error}", root.display()))?;
        let texts = Arc::new(DiskTexts::new(root.clone(), config.max_file_size));
        Ok(World {
            root,
            config,
            texts,
            current: ArcSwap::from_pointee(Graph::default()),
            state: Mutex::new(WriterState {
                writer: GraphWriter::new(),
                buffers: FxHashMap::default(),
                edited: Vec::new(),
                last_report: None,
                manifests: Vec::new(),
            }),
            analysis: codegraph_analysis::Cache::new(),
            revision: tokio::sync::watch::Sender::new(0),
            cpp_headers: std::sync::atomic::AtomicBool::new(false),
            disk: stamp::DiskRecord::default(),
        })
    }

    /// Opens `root`, a worktree of the same repository as `base`'s root, starting from `base`'s
    /// graph: the next [`World::index`] reads every file and parses only those whose content
    /// differs from `base`'s, and the graph shares with `base`'s every summary and every index
    /// shard that the difference leaves untouched, and its search index, when built, starts
    /// from `base`'s. A derived world writes no cache (its base has one; the difference is
    /// computed again at each start).
    pub fn derive(root: &Path, config: WorldConfig, base: &World) -> anyhow::Result<World> {
        let world = World::open(
            root,
            WorldConfig {
                cache: CacheLocation::Disabled,
                ..config
            },
        )?;
        let graph = {
            let from = base.state.lock();
            let mut state = world.state.lock();
            // The base's open buffers come along as content; the index replaces every file
            // whose text on this worktree's disk differs, theirs included.
            state.writer = from.writer.clone();
            state.manifests = from.manifests.clone();
            Arc::new(state.writer.graph().clone())
        };
        world
            .cpp_headers
            .store(base.cpp_headers(), std::sync::atomic::Ordering::Relaxed);
        world.analysis.seed_search(&base.analysis);
        world.store(graph);
        Ok(world)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn cpp_headers(&self) -> bool {
        self.cpp_headers.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The analysis cache shared by every door.
    pub fn analysis(&self) -> &codegraph_analysis::Cache {
        &self.analysis
    }

    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Hears of every new snapshot: the receiver sees the revision change after the snapshot is
    /// stored (several quick changes may arrive as one).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.revision.subscribe()
    }

    /// The revision of the current snapshot (0 before anything was stored).
    pub fn revision(&self) -> u64 {
        *self.revision.borrow()
    }

    /// Stores a new snapshot and tells the listeners. Called with the writer lock held, so
    /// revisions follow the order of changes; the send only bumps a counter.
    fn store(&self, graph: Arc<Graph>) {
        retire(self.current.swap(graph));
        self.revision.send_modify(|revision| *revision += 1);
        trim::after_change();
    }

    /// The current graph. Cheap; the snapshot never changes.
    ///
    /// Files an earlier answer found changed on disk since they were indexed (their text no
    /// longer matches the hash) are re-indexed first, unless the writer is busy (then the next
    /// snapshot does it).
    pub fn snapshot(&self) -> Arc<Graph> {
        let stale = self.texts.take_stale();
        if !stale.is_empty() {
            match self.state.try_lock() {
                Some(mut state) => {
                    for relative in &stale {
                        self.refresh_locked(&mut state, relative);
                    }
                }
                None => self.texts.keep_stale(stale),
            }
        }
        self.current.load_full()
    }

    pub fn last_report(&self) -> Option<IndexReport> {
        self.state.lock().last_report.clone()
    }

    fn cache_directory(&self) -> Option<PathBuf> {
        match &self.config.cache {
            CacheLocation::InWorkspace => Some(self.root.join(".codegraph")),
            CacheLocation::Directory(directory) => Some(directory.clone()),
            CacheLocation::PerFolderUnder(directory) => {
                Some(directory.join(per_folder_cache_name(&self.root)))
            }
            CacheLocation::Disabled => None,
        }
    }

    fn publish(&self, state: &mut WriterState, updates: Vec<FileUpdate>) {
        state.writer.apply(updates);
        self.store(Arc::new(state.writer.graph().clone()));
    }

    /// The graph path of an absolute path inside the root, if it is a file codegraph parses.
    /// Lexical only (no `..`); [`World::admit`] also applies the containment rule.
    pub fn graph_path(&self, absolute: &Path) -> Option<FilePath> {
        Language::from_path(absolute)?;
        walk::relative_path(&self.root, absolute).map(|relative| FilePath::from(relative.as_str()))
    }

    /// Applies the containment rule (see `world::walk`) to a path a client named: `Ok` with its
    /// graph path if it is a file codegraph parses, lexically under the root and not resolving
    /// outside it through a symlink; `Err` with the reason otherwise (`Ok(None)`: inside, but
    /// not a language codegraph parses).
    pub fn admit(&self, absolute: &Path) -> Result<Option<FilePath>, String> {
        let Some(relative) = walk::relative_path(&self.root, absolute) else {
            return Err(format!(
                "{} is outside the workspace {} (`..` or not under it)",
                absolute.display(),
                self.root.display()
            ));
        };
        walk::contained(&self.root, absolute)?;
        Ok(Language::from_path(absolute).map(|_| FilePath::from(relative.as_str())))
    }

    /// Re-reads one file from disk (saved, created or deleted outside the editor). An open
    /// buffer wins over the disk until it is closed.
    pub fn refresh_from_disk(&self, relative: &str) {
        if manifests::is_manifest(relative) {
            self.refresh_manifest(relative);
            return;
        }
        let mut state = self.state.lock();
        self.refresh_locked(&mut state, relative);
    }

    fn refresh_locked(&self, state: &mut WriterState, relative: &str) {
        let path = FilePath::from(relative);
        let Some(language) = Language::from_path(Path::new(relative)) else {
            return;
        };
        let absolute = self.root.join(relative);
        if state.buffers.contains_key(&path) {
            return;
        }
        // The containment rule: a path whose directory or file resolves outside the root (a
        // symlink created while serving) is not read; the graph drops what it had there.
        let content = match walk::contained(&self.root, &absolute) {
            Ok(()) => load::load_file(
                &absolute,
                relative,
                language,
                self.cpp_headers(),
                self.config.max_file_size,
                None,
                false,
                &self.texts,
            )
            .ok()
            .map(|(content, _, disk)| {
                self.disk.read(&path, disk);
                content
            }),
            Err(reason) => {
                tracing::warn!("{relative}: not read ({reason})");
                None
            }
        };
        if content.is_none() {
            self.disk.forget(&path);
            if state.writer.graph().file(relative).is_none() {
                return;
            }
        }
        self.publish(state, vec![FileUpdate { path, content }]);
    }

    /// A manifest (`tsconfig.json`, `package.json`, ...) was created, changed or deleted: the
    /// module aliases are read again, and the JavaScript/TypeScript files re-resolved if they
    /// changed.
    fn refresh_manifest(&self, relative: &str) {
        let absolute = self.root.join(relative);
        let present = absolute.is_file() && walk::contained(&self.root, &absolute).is_ok();
        let mut state = self.state.lock();
        let known = state.manifests.iter().position(|known| known == relative);
        match (present, known) {
            (true, None) => {
                state.manifests.push(relative.to_string());
                state.manifests.sort();
            }
            (false, Some(position)) => {
                state.manifests.remove(position);
            }
            _ => {}
        }
        let aliases = manifests::read_aliases(&self.root, &state.manifests);
        if state.writer.set_aliases(aliases).is_some() {
            self.store(Arc::new(state.writer.graph().clone()));
        }
    }

    /// Makes the writer ready for changes (`GraphWriter::prepare_changes`): a server calls this
    /// once its initial index is done, so that the first edit does not pay for it. A one-shot
    /// command never changes its graph and never calls it.
    ///
    /// The indices are built on a copy of the writer, without holding it (the work grows with
    /// every name of the repository), and taken in if no snapshot was stored in between: a
    /// change that came first built them itself. An editor's first `didOpen` of a file as it is
    /// on disk, which needs none of them, is not kept waiting.
    pub fn prepare_changes(&self) {
        let (mut copy, revision) = {
            let state = self.state.lock();
            if state.writer.changes_prepared() {
                return;
            }
            (state.writer.clone(), self.revision())
        };
        copy.prepare_changes();
        let mut state = self.state.lock();
        if self.revision() == revision {
            state.writer.take_prepared(copy);
        }
    }

    /// Applies raw updates (used by tests and benchmarks to drive the writer directly).
    pub fn apply_texts(&self, changes: Vec<(String, Option<String>)>) {
        let updates = self.updates_of(changes);
        let mut state = self.state.lock();
        self.publish(&mut state, updates);
    }

    /// The graph as it would be with `changes` (relative path, new text or `None` for a
    /// deletion) applied on top of the current one: nothing is stored, written or published.
    /// Paths of languages codegraph does not parse are left out. The writer lock is held only to
    /// copy the writer's indices (proportional to the repository's names); the extraction and
    /// the resolution run outside it.
    pub fn proposed(&self, changes: Vec<(String, Option<String>)>) -> Graph {
        let updates = self.updates_of(changes);
        let mut writer = {
            let mut state = self.state.lock();
            // Built once for the writer, not once per copy.
            state.writer.prepare_changes();
            state.writer.clone()
        };
        writer.apply(updates);
        writer.graph().clone()
    }

    fn updates_of(&self, changes: Vec<(String, Option<String>)>) -> Vec<FileUpdate> {
        changes
            .into_iter()
            .filter_map(|(relative, text)| {
                let language = Language::from_path(Path::new(&relative))?;
                let content = text.map(|text| {
                    let language = codegraph_lang::header_language(
                        Path::new(&relative),
                        &text,
                        self.cpp_headers(),
                    )
                    .unwrap_or(language);
                    content_of(&relative, language, text)
                });
                Some(FileUpdate {
                    path: FilePath::from(relative.as_str()),
                    content,
                })
            })
            .collect()
    }
}

/// Gives back the spare capacity extraction left in a summary's lists and strings (vectors grown
/// by pushing hold up to twice what they need), before the graph keeps it for good.
pub fn shrink_summary(summary: &mut FileSummary) {
    summary.defs.shrink_to_fit();
    summary.refs.shrink_to_fit();
    summary.imports.shrink_to_fit();
    summary.inherits.shrink_to_fit();
    summary.bindings.shrink_to_fit();
    summary.problems.shrink_to_fit();
}

/// Extracts a text into the writer's input form.
pub fn content_of(path: &str, language: Language, text: String) -> FileContent {
    let hash: [u8; 32] = blake3::hash(text.as_bytes()).into();
    let (mut summary, _) = codegraph_index::extract_text(language, &text);
    shrink_summary(&mut summary);
    FileContent {
        language,
        class: codegraph_lang::file_class::classify(path, language, &text),
        text: FileText::from(text),
        hash,
        summary: Arc::new(summary),
    }
}

/// A duration for humans.
pub fn human_duration(duration: Duration) -> String {
    let millis = duration.as_secs_f64() * 1000.0;
    if millis < 1000.0 {
        format!("{millis:.0} ms")
    } else {
        format!("{:.2} s", millis / 1000.0)
    }
}

/// The name of a workspace folder's cache under `codegraph lsp --cache-dir`: the folder's name
/// (for people looking in the directory) and a hash of its whole path (two folders of one name
/// never share a cache).
pub fn per_folder_cache_name(root: &Path) -> String {
    let name: String = root
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|character| {
            if character.is_alphanumeric() || "-_.".contains(character) {
                character
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let hash = blake3::hash(root.as_os_str().as_encoded_bytes());
    format!("{name}-{}", &hash.to_hex()[..16])
}
