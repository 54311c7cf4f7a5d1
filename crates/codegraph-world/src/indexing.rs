//! [`World::index`], one step a function: walk the workspace while the cache is read, load every
//! file (from the cache when its stamp or hash says so), sort what loaded from what was skipped,
//! start warm from the cache's graph when it holds every resolution, apply what changed as one
//! transaction, save the cache.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::load::{LoadResult, Source, load_file};
use crate::{IndexReport, World, WriterState, cache, fill_counts, manifests, stamp, walk};
use codegraph_graph::aliases::ModuleAliases;
use codegraph_graph::{FilePath, FileText, FileUpdate, Graph, GraphWriter, build::FileContent};

/// What is known before any file is read: the walk's listing, the module aliases its manifests
/// give, and the summaries known already (the current graph's, else the on-disk cache's).
struct Survey {
    listing: walk::Listing,
    aliases: ModuleAliases,
    cached: FxHashMap<FilePath, cache::CachedFile>,
    /// The cache's, when it was read: the aliases its resolutions were computed with, and
    /// whether `.h` files were C++ then.
    cached_aliases: ModuleAliases,
    cached_cpp_headers: Option<bool>,
    /// The summaries came from the on-disk cache (not the current graph).
    from_disk_cache: bool,
}

/// The files that loaded, sorted out of the load results.
#[derive(Default)]
struct Loaded {
    contents: FxHashMap<FilePath, FileContent>,
    /// Per file read from disk with a settled stamp: its hash and what the cache keeps of it.
    unread: FxHashMap<FilePath, ([u8; 32], cache::Unread)>,
    /// Files a cache written now can vouch for by their stamp, which the last one did not.
    newly_settled: usize,
}

impl World {
    /// Walks the workspace and brings the graph in line with the disk: new and changed files
    /// are parsed (unless the cache has their hash), deleted files removed. With `full`, the
    /// cache and the current graph are ignored and everything is parsed again. Open editor
    /// buffers keep their unsaved text. `progress(done, total)` is called as files are read.
    pub fn index(&self, full: bool, progress: &(dyn Fn(usize, usize) + Sync)) -> IndexReport {
        let started = Instant::now();
        let survey = self.survey(full);
        let walk::Listing {
            files,
            skipped,
            manifests,
        } = survey.listing;
        let cpp_headers = self.settle_cpp_headers(&files);
        let trust = survey.cached_cpp_headers == Some(cpp_headers);
        let results = self.load_all(&files, cpp_headers, &survey.cached, trust, progress);

        // The parse's freed memory goes back to the system before the writer allocates.
        crate::trim::now();
        let mut state = self.state.lock();
        let mut report = IndexReport {
            root: self.root.display().to_string(),
            skipped,
            ..IndexReport::default()
        };
        let loaded = self.sort_loaded(results, &mut report);

        // A warm start: the cache holds the resolution of exactly the files it lists, so load
        // that graph as it was and apply what changed since as an ordinary transaction, the
        // open buffers' text included (an editor opens its documents before the index ends).
        let warm =
            survey.from_disk_cache && survey.cached.values().all(|file| file.resolved.is_some());
        // The open buffers as writer input, taken once (each is hashed and summarised).
        let buffers: Vec<FileUpdate> = state
            .buffers
            .iter()
            .map(|(path, buffer)| FileUpdate {
                path: *path,
                content: Some(buffer.content(path)),
            })
            .collect();
        // The buffers hold what the disk holds: the graph is the disk's, and its resolutions
        // may be cached.
        let buffers_as_on_disk = buffers.iter().all(|buffer| {
            let hash = buffer.content.as_ref().map(|content| content.hash);
            loaded.contents.get(&buffer.path).map(|disk| disk.hash) == hash
        });
        // The files the warm start loaded as they are: updating them again would change nothing.
        let as_loaded = if warm {
            start_warm(
                &mut state,
                survey.cached,
                survey.cached_aliases,
                &loaded.contents,
            )
        } else {
            drop(survey.cached);
            FxHashSet::default()
        };
        // A writer started afresh, or from the cache's graph, holds no buffer's text.
        let buffers = if full || warm { buffers } else { Vec::new() };
        let updates = self.updates(
            &mut state,
            loaded.contents,
            &as_loaded,
            buffers,
            full,
            &mut report,
        );
        let graph = self.install(&mut state, updates, manifests, survey.aliases);
        let unchanged =
            warm && report.parsed == 0 && report.removed == 0 && loaded.newly_settled == 0;
        if !unchanged {
            self.save_cache(
                &state,
                &graph,
                &loaded.unread,
                cpp_headers,
                buffers_as_on_disk,
            );
        }
        fill_counts(&mut report, &graph);
        report.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        state.last_report = Some(report.clone());
        report
    }

    /// Applies the index's transaction with the walk's manifests and their aliases, and stores
    /// the new snapshot.
    fn install(
        &self,
        state: &mut WriterState,
        updates: Vec<FileUpdate>,
        manifests: Vec<String>,
        aliases: ModuleAliases,
    ) -> Arc<Graph> {
        state.manifests = manifests;
        state.writer.set_aliases(aliases);
        state.writer.apply(updates);
        let graph = Arc::new(state.writer.graph().clone());
        self.store(graph.clone());
        graph
    }

    /// Whether `.h` headers are C++ in this workspace (C++ sources and no C ones), kept for the
    /// files read later.
    fn settle_cpp_headers(&self, files: &[walk::SourceFile]) -> bool {
        let cpp_headers =
            codegraph_lang::cpp_workspace(files.iter().map(|file| file.relative.as_str()));
        self.cpp_headers
            .store(cpp_headers, std::sync::atomic::Ordering::Relaxed);
        cpp_headers
    }

    /// Walks the workspace while reading the on-disk cache (when the graph is empty and the run
    /// not `full`), and gathers the summaries known already.
    fn survey(&self, full: bool) -> Survey {
        // The graph holds nothing but the documents an editor opened before the first index:
        // start from the on-disk cache.
        let (graph, from_disk) = {
            let state = self.state.lock();
            let graph = self.current.load_full();
            let only_buffers = graph
                .files()
                .all(|file| state.buffers.contains_key(&file.path));
            (graph, !full && only_buffers)
        };
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
        let aliases = manifests::read_aliases(&self.root, &listing.manifests);
        let mut survey = Survey {
            listing,
            aliases,
            cached: FxHashMap::default(),
            cached_aliases: ModuleAliases::default(),
            cached_cpp_headers: None,
            from_disk_cache: false,
        };
        if full {
            return survey;
        }
        // Summaries already in the graph are as good as the cache's (but for a graph of open
        // buffers alone, whose text the index sends again: the disk's are in the cache).
        for file in graph.files().filter(|_| !from_disk) {
            survey.cached.insert(
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
                survey.cached.insert(file.path, file);
            }
            survey.cached_aliases = loaded.aliases;
            survey.cached_cpp_headers = Some(loaded.cpp_headers);
            survey.from_disk_cache = !survey.cached.is_empty();
        }
        survey
    }

    /// Loads every file of the walk on all cores, calling `progress` every 64 files.
    fn load_all(
        &self,
        files: &[walk::SourceFile],
        cpp_headers: bool,
        cached: &FxHashMap<FilePath, cache::CachedFile>,
        trust: bool,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<(FilePath, LoadResult)> {
        let total = files.len();
        let done = std::sync::atomic::AtomicUsize::new(0);
        files
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
            .collect()
    }

    /// Sorts the load results: contents kept, skipped files and where the others came from
    /// counted in `report`, each file's stamp recorded.
    fn sort_loaded(
        &self,
        results: Vec<(FilePath, LoadResult)>,
        report: &mut IndexReport,
    ) -> Loaded {
        let mut loaded = Loaded::default();
        // Sized once: grown a doubling at a time, the whole kernel's maps were copied for a
        // quarter of a second on one thread.
        loaded.contents.reserve(results.len());
        loaded.unread.reserve(results.len());
        for (path, result) in results {
            let (content, source, disk) = match result {
                Ok(found) => found,
                Err(reason) => {
                    report.skipped.push(walk::Skipped {
                        path: path.to_string(),
                        reason,
                    });
                    continue;
                }
            };
            match source {
                Source::Parsed => report.parsed += 1,
                Source::Hashed => report.from_cache += 1,
                Source::Trusted => {
                    report.from_cache += 1;
                    report.unread += 1;
                }
            }
            if let Some(stamp) = disk.filter(stamp::DiskStamp::settled) {
                // A cache written now can vouch for this content by its stamp; one that did not
                // yet (read, not trusted) is worth writing again.
                loaded.newly_settled += usize::from(source != Source::Trusted);
                let unread = cache::Unread {
                    stamp,
                    len: content.text.len() as u32,
                    ascii: content.text.is_ascii(),
                    class: content.class,
                };
                loaded.unread.insert(path, (content.hash, unread));
            }
            self.disk.read(&path, disk);
            loaded.contents.insert(path, content);
        }
        loaded
    }

    /// The transaction that brings the graph in line with `contents`: files gone from disk (and
    /// not open) removed, with `full` the writer started afresh, `buffers` (the open buffers'
    /// text, for a writer that does not hold it), every file read updated unless an open
    /// buffer holds it or the warm start loaded it as it is.
    fn updates(
        &self,
        state: &mut WriterState,
        contents: FxHashMap<FilePath, FileContent>,
        as_loaded: &FxHashSet<FilePath>,
        buffers: Vec<FileUpdate>,
        full: bool,
        report: &mut IndexReport,
    ) -> Vec<FileUpdate> {
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
        }
        updates.extend(buffers);
        for (path, content) in contents {
            if state.buffers.contains_key(&path) || as_loaded.contains(&path) {
                continue;
            }
            updates.push(FileUpdate {
                path,
                content: Some(content),
            });
        }
        updates
    }

    /// Saves the graph's files to the cache. When the open buffers hold what the disk holds
    /// (`buffers_as_on_disk`), the graph is the disk's: every file is saved with its
    /// resolution. Otherwise the buffers' files are left out and no resolution is saved (they
    /// were computed from unsaved text).
    fn save_cache(
        &self,
        state: &WriterState,
        graph: &Graph,
        unread: &FxHashMap<FilePath, ([u8; 32], cache::Unread)>,
        cpp_headers: bool,
        buffers_as_on_disk: bool,
    ) {
        let Some(directory) = self.cache_directory() else {
            return;
        };
        let with_resolution = buffers_as_on_disk;
        let files: Vec<cache::SavedFile> = graph
            .files()
            .filter(|file| buffers_as_on_disk || !state.buffers.contains_key(&file.path))
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
}

/// Loads the cache's graph into the writer as it was; the files whose content is the cached one
/// are returned (loaded as they are). A file changed or gone gets an empty text: the update
/// that follows replaces it.
fn start_warm(
    state: &mut WriterState,
    cached: FxHashMap<FilePath, cache::CachedFile>,
    cached_aliases: ModuleAliases,
    contents: &FxHashMap<FilePath, FileContent>,
) -> FxHashSet<FilePath> {
    let mut as_loaded = FxHashSet::default();
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
    as_loaded
}
