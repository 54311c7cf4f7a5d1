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
pub mod manifests;
pub mod stamp;
pub mod texts;
pub mod trim;
pub mod walk;
pub mod watch;
pub mod work;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use parking_lot::Mutex;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use buffer::{Buffer, TextEdit};
use codegraph_graph::{FilePath, FileText, FileUpdate, Graph, GraphWriter, build::FileContent};
use codegraph_index::FileSummary;
use codegraph_lang::Language;
use codegraph_model::{EntityKind, RelationKind};
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

/// What an index run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    pub root: String,
    pub files: usize,
    pub parsed: usize,
    pub from_cache: usize,
    /// Of `from_cache`, the files not even read: their stamp was the one the cache recorded.
    pub unread: usize,
    pub removed: usize,
    pub lines: u64,
    pub entities: usize,
    pub relations: usize,
    pub entities_by_type: BTreeMap<String, usize>,
    pub relations_by_type: BTreeMap<String, usize>,
    pub languages: BTreeMap<String, usize>,
    /// Files by what they are for: production, test, fixture, example, generated, vendored
    /// (`lang::file_class`).
    pub files_by_class: BTreeMap<String, usize>,
    pub ambiguous_references: usize,
    pub external_references: usize,
    pub files_with_problems: usize,
    /// The files codegraph failed on (an internal error, contained to the file: `contain`),
    /// with the error.
    pub failed: Vec<FailedFile>,
    /// References whose resolution was stopped at the bound every walk has (`walk`).
    pub bounded_references: usize,
    pub skipped: Vec<walk::Skipped>,
    pub duration_ms: f64,
}

/// A file codegraph failed on, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedFile {
    pub path: String,
    pub error: String,
}

/// How many open documents keep their syntax tree between edits (each costs about 40 times its
/// text); a document edited before them parses in full on its next edit.
const EDITED_TREES: usize = 8;

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

/// A file's content, where it came from and what the file looked like when read (before it was
/// read), or why it was skipped.
type LoadResult = Result<(FileContent, Source, Option<stamp::DiskStamp>), String>;

/// Where a loaded file's summary came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Extracted from the text just read.
    Parsed,
    /// The cache's: the text read has the cached hash.
    Hashed,
    /// The cache's, not read at all: the file's stamp is the settled one the cache recorded
    /// (`cache::Unread`).
    Trusted,
}

/// Reads, hashes and extracts one file from disk, reading at most `max_file_size` bytes. `Err`
/// says why not: unreadable, binary, not a regular file, over the cap, minified or not source
/// (`file_class::not_indexed`). The text is not kept:
/// `texts` reads it again when an answer needs it. With `trust` (the cache was written under
/// the same C/C++ header setting), a file whose stamp is the one the cache recorded is not read.
#[allow(clippy::too_many_arguments)]
fn load_file(
    absolute: &Path,
    relative: &str,
    language: Language,
    cpp_headers: bool,
    max_file_size: u64,
    cached: Option<&cache::CachedFile>,
    trust: bool,
    texts: &Arc<DiskTexts>,
) -> LoadResult {
    // Before the read: a change during it makes the stamp compare the content, never miss it.
    let disk = stamp::DiskStamp::of(absolute);
    if trust
        && let Some(cached) = cached
        && let Some(unread) = &cached.unread
        && disk.as_ref() == Some(&unread.stamp)
        && unread.stamp.bytes() <= max_file_size
    {
        let content = FileContent {
            language: cached.summary.language,
            text: FileText::Elsewhere {
                len: unread.len,
                ascii: unread.ascii,
                source: texts.clone(),
            },
            hash: cached.hash,
            summary: cached.summary.clone(),
            class: unread.class,
        };
        return Ok((content, Source::Trusted, disk));
    }
    let (bytes, truncated) =
        walk::read_prefix(absolute, max_file_size).map_err(|refusal| refusal.to_string())?;
    if truncated {
        return Err(format!("over the {max_file_size}-byte cap"));
    }
    let hash: [u8; 32] = blake3::hash(&bytes).into();
    let text = codegraph_lang::syntax::decode_lossy(bytes);
    if let Some(reason) = codegraph_lang::file_class::not_indexed(language, &text) {
        return Err(reason);
    }
    let language =
        codegraph_lang::header_language(absolute, &text, cpp_headers).unwrap_or(language);
    let elsewhere = FileText::Elsewhere {
        len: text.len() as u32,
        ascii: text.is_ascii(),
        source: texts.clone(),
    };
    let class = codegraph_lang::file_class::classify(relative, language, &text);
    if let Some(cached) = cached
        && cached.hash == hash
        && cached.summary.language == language
    {
        return Ok((
            FileContent {
                language,
                text: elsewhere,
                hash,
                summary: cached.summary.clone(),
                class,
            },
            Source::Hashed,
            disk,
        ));
    }
    let (mut summary, _) = codegraph_index::extract_text(language, &text);
    shrink_summary(&mut summary);
    Ok((
        FileContent {
            language,
            text: elsewhere,
            hash,
            summary: Arc::new(summary),
            class,
        },
        Source::Parsed,
        disk,
    ))
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

    /// Walks the workspace and brings the graph in line with the disk: new and changed files
    /// are parsed (unless the cache has their hash), deleted files removed. With `full`, the
    /// cache and the current graph are ignored and everything is parsed again. Open editor
    /// buffers keep their unsaved text. `progress(done, total)` is called as files are read.
    pub fn index(&self, full: bool, progress: &(dyn Fn(usize, usize) + Sync)) -> IndexReport {
        let started = Instant::now();
        // What is known already: the current graph, else the on-disk cache (read while the
        // workspace is walked).
        let graph = self.snapshot();
        let from_disk = !full && graph.files().next().is_none();
        let (listing, disk_cache) = rayon::join(
            || walk::walk(&self.root, self.config.max_file_size),
            || {
                if from_disk {
                    self.cache_directory()
                        .and_then(|directory| cache::load(&directory))
                } else {
                    None
                }
            },
        );
        let walk::Listing {
            files,
            skipped,
            manifests,
        } = listing;
        let aliases = manifests::read_aliases(&self.root, &manifests);
        let mut cached_aliases = codegraph_graph::aliases::ModuleAliases::default();
        let mut from_disk_cache = false;
        let mut cached_cpp_headers = None;
        let mut cached: FxHashMap<FilePath, cache::CachedFile> = FxHashMap::default();
        if !full {
            // Summaries already in the graph are as good as the cache's.
            for file in graph.files() {
                cached.insert(
                    file.path,
                    cache::CachedFile {
                        path: file.path,
                        hash: file.hash,
                        summary: file.summary.clone(),
                        ids: file.ids.clone(),
                        resolved: None,
                        unread: None,
                    },
                );
            }
            if let Some(loaded) = disk_cache {
                for file in loaded.files {
                    cached.insert(file.path, file);
                }
                cached_aliases = loaded.aliases;
                cached_cpp_headers = Some(loaded.cpp_headers);
                from_disk_cache = !cached.is_empty();
            }
        }
        drop(graph);
        let cpp_headers =
            codegraph_lang::cpp_workspace(files.iter().map(|file| file.relative.as_str()));
        self.cpp_headers
            .store(cpp_headers, std::sync::atomic::Ordering::Relaxed);
        let trust = cached_cpp_headers == Some(cpp_headers);
        let total = files.len();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let loaded: Vec<(FilePath, LoadResult)> = files
            .par_iter()
            .map(|file| {
                let result = load_file(
                    &file.absolute,
                    &file.relative,
                    file.language,
                    cpp_headers,
                    self.config.max_file_size,
                    cached.get(file.relative.as_str()),
                    trust,
                    &self.texts,
                );
                let count = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if count.is_multiple_of(64) || count == total {
                    progress(count, total);
                }
                (FilePath::from(file.relative.as_str()), result)
            })
            .collect();

        // The parse's freed memory goes back to the system before the writer allocates.
        trim::now();
        let mut state = self.state.lock();
        let mut report = IndexReport {
            root: self.root.display().to_string(),
            skipped,
            ..IndexReport::default()
        };
        let mut contents: FxHashMap<FilePath, FileContent> = FxHashMap::default();
        // Per file read from disk with a settled stamp: its hash and what the cache keeps of it.
        let mut unread: FxHashMap<FilePath, ([u8; 32], cache::Unread)> = FxHashMap::default();
        let mut newly_settled = 0;
        for (path, result) in loaded {
            match result {
                Ok((content, source, disk)) => {
                    match source {
                        Source::Parsed => report.parsed += 1,
                        Source::Hashed => report.from_cache += 1,
                        Source::Trusted => {
                            report.from_cache += 1;
                            report.unread += 1;
                        }
                    }
                    if let Some(stamp) = disk.filter(stamp::DiskStamp::settled) {
                        // A cache written now can vouch for this content by its stamp; one
                        // that did not yet (read, not trusted) is worth writing again.
                        newly_settled += usize::from(source != Source::Trusted);
                        unread.insert(
                            path,
                            (
                                content.hash,
                                cache::Unread {
                                    stamp,
                                    len: content.text.len() as u32,
                                    ascii: content.text.is_ascii(),
                                    class: content.class,
                                },
                            ),
                        );
                    }
                    self.disk.read(&path, disk);
                    contents.insert(path, content);
                }
                Err(reason) => report.skipped.push(walk::Skipped {
                    path: path.to_string(),
                    reason,
                }),
            }
        }

        // A warm start: the cache holds the resolution of exactly the files it lists, so load
        // that graph as it was and apply what changed since as an ordinary transaction.
        let warm = from_disk_cache
            && state.buffers.is_empty()
            && cached.values().all(|file| file.resolved.is_some());
        // The files the warm start loaded as they are: updating them again would change nothing.
        let mut as_loaded: FxHashSet<FilePath> = FxHashSet::default();
        if warm {
            let mut known = Vec::with_capacity(cached.len());
            for (path, file) in cached {
                let (text, class) = match contents.get(&path) {
                    Some(content) if content.hash == file.hash => {
                        as_loaded.insert(path);
                        (content.text.clone(), content.class)
                    }
                    // Changed or gone: its old text is not needed, the update below replaces it.
                    _ => (
                        FileText::from(""),
                        codegraph_lang::file_class::classify(&path, file.summary.language, ""),
                    ),
                };
                let content = FileContent {
                    language: file.summary.language,
                    text,
                    hash: file.hash,
                    summary: file.summary,
                    class,
                };
                known.push(codegraph_graph::build::LoadedFile {
                    path,
                    content,
                    ids: file.ids,
                    resolved: file.resolved.unwrap_or_default(),
                });
            }
            state.writer = GraphWriter::load(known, cached_aliases);
        } else {
            drop(cached);
        }

        let mut updates = Vec::with_capacity(contents.len());
        let current = state.writer.graph().clone();
        for file in current.files() {
            if !contents.contains_key(&file.path) && !state.buffers.contains_key(&file.path) {
                self.disk.forget(&file.path);
                updates.push(FileUpdate {
                    path: file.path,
                    content: None,
                });
                report.removed += 1;
            }
        }
        if full {
            state.writer = GraphWriter::new();
            for (path, buffer) in &state.buffers {
                updates.push(FileUpdate {
                    path: *path,
                    content: Some(buffer.content(path)),
                });
            }
        }
        for (path, content) in contents {
            if state.buffers.contains_key(&path) || as_loaded.contains(&path) {
                continue;
            }
            updates.push(FileUpdate {
                path,
                content: Some(content),
            });
        }
        state.manifests = manifests;
        state.writer.set_aliases(aliases);
        state.writer.apply(updates);
        let graph = Arc::new(state.writer.graph().clone());
        self.store(graph.clone());
        let unchanged = warm && report.parsed == 0 && report.removed == 0 && newly_settled == 0;
        if let Some(directory) = self.cache_directory().filter(|_| !unchanged) {
            // Resolutions are saved only when they were computed from files on disk alone.
            let with_resolution = state.buffers.is_empty();
            let files: Vec<cache::SavedFile> = graph
                .files()
                .filter(|file| !state.buffers.contains_key(&file.path))
                .map(|file| cache::SavedFile {
                    path: &file.path,
                    hash: file.hash,
                    summary: &file.summary,
                    ids: &file.ids,
                    resolved: with_resolution.then_some(&*file.resolved),
                    unread: unread
                        .get(&file.path)
                        .filter(|(hash, _)| *hash == file.hash)
                        .map(|(_, unread)| *unread),
                })
                .collect();
            cache::save(&directory, files, graph.aliases(), cpp_headers);
        }
        fill_counts(&mut report, &graph);
        report.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        state.last_report = Some(report.clone());
        report
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
            Ok(()) => load_file(
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

    /// The editor opened a document: its text replaces the disk's until it is closed.
    ///
    /// A document over the size cap (`max_file_size`, as for files on disk), minified or not source is not
    /// indexed from the editor: parsing it would hold up every request behind it. The graph keeps the file as
    /// it is on disk, and `false` says so (the editor door tells the user).
    pub fn open_buffer(&self, relative: &str, version: i32, text: String) -> bool {
        let Some(language) = Language::from_path(Path::new(relative)) else {
            return false;
        };
        if text.len() as u64 > self.config.max_file_size {
            tracing::warn!(
                "{relative}: {} bytes, over the {}-byte cap; not indexed from the editor",
                text.len(),
                self.config.max_file_size
            );
            self.close_buffer(relative);
            return false;
        }
        if let Some(reason) = codegraph_lang::file_class::not_indexed(language, &text) {
            tracing::warn!("{relative}: {reason}; not indexed from the editor");
            self.close_buffer(relative);
            return false;
        }
        let language =
            codegraph_lang::header_language(Path::new(relative), &text, self.cpp_headers())
                .unwrap_or(language);
        let path = FilePath::from(relative);
        // A document opened as it is on disk (the usual case) keeps the summary the graph has:
        // nothing is parsed or extracted again until its first edit. (The same bytes in the same
        // language give the same summary, whatever changed in the graph since.)
        let hash: [u8; 32] = blake3::hash(text.as_bytes()).into();
        let known = self
            .snapshot()
            .file(relative)
            .filter(|node| node.hash == hash && node.summary.language == language)
            .map(|node| node.summary.clone());
        let buffer = Buffer::new(language, version, text).knowing_summary(known);
        let content = buffer.content(relative);
        let mut state = self.state.lock();
        self.disk.open(&path);
        state.buffers.insert(path, buffer);
        self.publish(
            &mut state,
            vec![FileUpdate {
                path,
                content: Some(content),
            }],
        );
        true
    }

    /// Applies the editor's edits to an open buffer, in order. Returns `false` (and changes
    /// nothing) when the buffer is not open or the version goes backwards; a buffer that grows
    /// over the size cap is closed (the graph goes back to the file on disk) and `false` too.
    pub fn edit_buffer(&self, relative: &str, version: i32, edits: &[TextEdit]) -> bool {
        let path = FilePath::from(relative);
        let mut state = self.state.lock();
        let Some(buffer) = state.buffers.get_mut(&path) else {
            return false;
        };
        if version < buffer.version() {
            tracing::warn!(
                "{relative}: edit version {version} is older than {}; ignored",
                buffer.version()
            );
            return false;
        }
        buffer.apply(version, edits);
        // A header is C or C++ by what its text says, as when it is read from disk: an edit can
        // change which (`lang::header_language`).
        if relative.to_ascii_lowercase().ends_with(".h")
            && let Some(language) = codegraph_lang::header_language(
                Path::new(relative),
                buffer.text_str(),
                self.cpp_headers.load(std::sync::atomic::Ordering::Relaxed),
            )
        {
            buffer.set_language(language);
        }
        let too_large = buffer.len() as u64 > self.config.max_file_size;
        state.edited.retain(|edited| *edited != path);
        state.edited.push(path);
        if state.edited.len() > EDITED_TREES {
            let oldest = state.edited.remove(0);
            if let Some(buffer) = state.buffers.get_mut(&oldest) {
                buffer.drop_tree();
            }
        }
        let Some(buffer) = state.buffers.get(&path) else {
            return false;
        };
        if too_large {
            tracing::warn!(
                "{relative}: grew over the {}-byte cap; back to its contents on disk",
                self.config.max_file_size
            );
            drop(state);
            self.close_buffer(relative);
            return false;
        }
        let content = buffer.content(relative);
        self.publish(
            &mut state,
            vec![FileUpdate {
                path,
                content: Some(content),
            }],
        );
        true
    }

    /// The editor closed a document: the file goes back to its contents on disk.
    pub fn close_buffer(&self, relative: &str) {
        let removed = {
            let mut state = self.state.lock();
            state.edited.retain(|edited| &**edited != relative);
            self.disk.close(relative);
            state.buffers.remove(relative).is_some()
        };
        if removed {
            self.refresh_from_disk(relative);
        }
    }

    /// The open editor buffers whose text differs from the file on disk (unsaved edits), sorted.
    /// A buffer whose file is gone or unreadable counts as unsaved.
    pub fn unsaved_files(&self) -> Vec<FilePath> {
        let buffers: Vec<(FilePath, String)> = self
            .state
            .lock()
            .buffers
            .iter()
            .map(|(path, buffer)| (*path, buffer.text()))
            .collect();
        let mut unsaved: Vec<FilePath> = buffers
            .into_iter()
            .filter(|(path, text)| {
                let absolute = self.root.join(&**path);
                let limit = (text.len() as u64).saturating_add(1);
                match walk::read_prefix(&absolute, limit) {
                    Ok((bytes, false)) => bytes != text.as_bytes(),
                    _ => true,
                }
            })
            .map(|(path, _)| path)
            .collect();
        unsaved.sort();
        unsaved
    }

    /// The open editor buffers, sorted, each with whether it holds a syntax tree (only the
    /// few edited last do), for tests and diagnostics.
    pub fn open_documents(&self) -> Vec<(FilePath, bool)> {
        let state = self.state.lock();
        let mut documents: Vec<(FilePath, bool)> = state
            .buffers
            .iter()
            .map(|(path, buffer)| (*path, buffer.has_tree()))
            .collect();
        documents.sort();
        documents
    }

    /// The text of an open buffer, for tests and diagnostics.
    pub fn buffer_text(&self, relative: &str) -> Option<String> {
        self.state
            .lock()
            .buffers
            .get(relative)
            .map(|buffer| buffer.text())
    }

    /// Makes the writer ready for changes (`GraphWriter::prepare_changes`): a server calls this
    /// once its initial index is done, so that the first edit does not pay for it. A one-shot
    /// command never changes its graph and never calls it.
    pub fn prepare_changes(&self) {
        self.state.lock().writer.prepare_changes();
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

/// Summary counts of a graph, shared by the index report and the stats queries.
pub fn fill_counts(report: &mut IndexReport, graph: &Graph) {
    report.files = graph.file_count();
    report.entities = graph.entity_count();
    // Counted under the kinds' static names (no allocation per definition or edge), turned into
    // the report's maps once at the end.
    let mut entities_by_type: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut relations_by_type: BTreeMap<&'static str, usize> = BTreeMap::new();
    for kind in EntityKind::ALL {
        entities_by_type.insert(kind.as_str(), 0);
    }
    for kind in RelationKind::ALL {
        relations_by_type.insert(kind.as_str(), 0);
    }
    let mut languages: BTreeMap<String, usize> = BTreeMap::new();
    let mut files_by_class: BTreeMap<String, usize> = BTreeMap::new();
    report.lines = 0;
    report.files_with_problems = 0;
    report.failed.clear();
    report.bounded_references = 0;
    report.ambiguous_references = 0;
    report.external_references = 0;
    for file in graph.files() {
        let summary: &FileSummary = &file.summary;
        *languages
            .entry(file.language.name().to_string())
            .or_default() += 1;
        *files_by_class
            .entry(file.class.as_str().to_string())
            .or_default() += 1;
        report.lines += u64::from(summary.line_count);
        *entities_by_type.entry("module").or_default() += 1;
        for def in &summary.defs {
            *entities_by_type.entry(def.kind.as_str()).or_default() += 1;
        }
        for edge in &file.resolved.edges {
            *relations_by_type.entry(edge.kind.as_str()).or_default() += 1;
        }
        if let Some(error) = file.failure() {
            report.failed.push(FailedFile {
                path: file.path.to_string(),
                error: error.to_string(),
            });
        }
        report.bounded_references += file.resolved.bounded.len();
        if !summary.problems.is_empty() {
            report.files_with_problems += 1;
        }
        report.ambiguous_references += file.resolved.ambiguous.len();
        report.external_references += file.resolved.external.len();
    }
    let owned = |counts: BTreeMap<&'static str, usize>| -> BTreeMap<String, usize> {
        counts
            .into_iter()
            .map(|(kind, count)| (kind.to_string(), count))
            .collect()
    };
    let entities_by_type = owned(entities_by_type);
    let relations_by_type = owned(relations_by_type);
    report.relations = relations_by_type.values().sum();
    report.entities_by_type = entities_by_type;
    report.relations_by_type = relations_by_type;
    report.languages = languages;
    report.files_by_class = files_by_class;
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
