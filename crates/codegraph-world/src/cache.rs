//! The on-disk cache: every file's content hash and summary, so that a second start re-parses
//! only what changed. One file, written atomically (temporary file, then rename). A cache that is
//! missing, truncated, corrupt or of another format is discarded with one log line.
//!
//! Layout: magic, format, the body's length, the blake3 checksum of the body, then the body: a
//! [`CacheMeta`]
//! record and one record per file, each a postcard encoding behind its four-byte length, so
//! that a warm start decodes the files in parallel.
//!
//! The cache lives in the repository (`.codegraph/`), which whoever wrote the repository
//! controls, so nothing there is trusted to point where it claims:
//! - the directory is used only if it is a real directory (not a symlink) owned by this user;
//!   otherwise codegraph runs without the cache and says so once per load or save;
//! - `index.bin` is read only if it is a regular file (opened with `O_NOFOLLOW`, non-blocking,
//!   so neither a symlink to `/dev/zero` nor a FIFO is read) of at most [`MAX_CACHE_BYTES`],
//!   and read past its header only if the header is this format's and announces the file's
//!   size ([`check_header`]): a file that is not a cache costs a header's read, not its size;
//! - its body is trusted only after its blake3 checksum matches;
//! - writes go to a fresh temporary created with `create_new` (`O_EXCL`: a planted file or
//!   symlink at that name makes the write fail instead of landing on its target), then renamed;
//! - `.gitignore` is written the same way, and only when nothing (not even a dangling symlink)
//!   is at that name.

use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::stamp::DiskStamp;
use codegraph_graph::aliases::ModuleAliases;
use codegraph_graph::{
    AmbiguousRef, Edge, EntityId, ExternalRef, FilePath, Resolved, Site, assign_ids,
};
use codegraph_index::FileSummary;
use codegraph_model::{FileClass, Name, NameCodec, RelationKind, Resolution, Span, with_codec};

const MAGIC: &[u8; 8] = b"CGCACHE\0";
/// Bump when `FileSummary` or extraction changes meaning (or what `Resolved` stores, such as
/// the walk's fingerprint), or the layout
/// (magic, format, length of the body, blake3 of the body, body) changes.
const FORMAT: u32 = 30;
/// Where the body's length (eight bytes, little-endian) is in the header.
const LENGTH_AT: usize = 8 + 4;
/// Where the body's checksum is in the header.
const CHECKSUM_AT: usize = LENGTH_AT + 8;
/// Magic, format, length, checksum.
const HEADER: usize = CHECKSUM_AT + 32;
/// A cache larger than this is not read (a repository of a million small files stays far below).
pub const MAX_CACHE_BYTES: u64 = 1 << 30;

#[derive(Debug)]
pub struct CachedFile {
    pub path: FilePath,
    pub hash: [u8; 32],
    pub summary: Arc<FileSummary>,
    /// The id of each definition (`assign_ids`), shared with the resolution's edges.
    pub ids: Arc<[EntityId]>,
    /// What a warm start needs to take the file as cached without reading it.
    pub unread: Option<Unread>,
    /// The file's resolved edges, saved only when the whole graph was built from files on disk
    /// (no unsaved editor buffers), so that a warm start can skip resolution.
    pub resolved: Option<Resolved>,
}

/// A file's stamp when it was read (a settled one: [`DiskStamp::settled`]), and what its text
/// said beyond the summary. A warm start that finds the same stamp, under the same C/C++
/// header setting, takes the file as cached without reading or hashing it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Unread {
    pub stamp: DiskStamp,
    /// The text's length in bytes, and whether it is all ASCII.
    pub len: u32,
    pub ascii: bool,
    /// The class its path and first lines gave it (before `published_class`).
    pub class: FileClass,
}

/// What [`load`] gives back.
#[derive(Debug)]
pub struct Loaded {
    pub files: Vec<CachedFile>,
    /// The module aliases the resolutions were computed with.
    pub aliases: ModuleAliases,
    /// Whether `.h` files were read as C++ (`lang::cpp_workspace`) when the cache was written.
    pub cpp_headers: bool,
}

/// A file to save, borrowed from the graph (saving copies nothing but the stored ids).
#[derive(Debug, Clone, Copy)]
pub struct SavedFile<'a> {
    pub path: &'a str,
    pub hash: [u8; 32],
    pub summary: &'a FileSummary,
    /// The id of each definition, as the graph holds them (`assign_ids` of path and summary).
    pub ids: &'a [EntityId],
    pub resolved: Option<&'a Resolved>,
    pub unread: Option<Unread>,
}

/// On disk, entity ids in resolutions are stored as (file position, definition index) pairs:
/// ids are long strings repeated in every edge, and are a pure function of the file's path and
/// summary, so they are rebuilt on load.
#[derive(Debug, Deserialize)]
struct StoredFile {
    path: String,
    hash: [u8; 32],
    summary: FileSummary,
    resolved: Option<StoredResolved>,
    unread: Option<Unread>,
}

/// [`StoredFile`] as written: the same encoding, borrowing the summary.
#[derive(Debug, Serialize)]
struct StoredFileRef<'a> {
    path: &'a str,
    hash: [u8; 32],
    summary: &'a FileSummary,
    resolved: Option<StoredResolved>,
    unread: Option<Unread>,
}

/// (file position in the cache, definition index or `MODULE` for the file itself).
type StoredId = (u32, u32);
const MODULE: u32 = u32::MAX;

/// (the reference's index in the summary, module)
type StoredExternal = (u32, Option<Name>);

#[derive(Debug, Serialize, Deserialize)]
struct StoredResolved {
    edges: Vec<(StoredId, StoredId, RelationKind, Resolution, Site)>,
    ambiguous: Vec<(StoredId, Name, Span, Vec<StoredId>)>,
    external: Vec<StoredExternal>,
    extra_names: Vec<Name>,
    extra_modules: Vec<Name>,
    /// The files the imports name, by position in the cache.
    import_targets: Vec<u32>,
    reachable: u64,
    guessed: Vec<Name>,
    guessed_by: Vec<(u32, Name)>,
}

/// What precedes the files in the body. The body is this, then each file as its own postcard
/// record behind a four-byte little-endian length, so that the files decode in parallel.
#[derive(Debug, Serialize, Deserialize)]
struct CacheMeta<'a> {
    crate_version: String,
    /// The module aliases the resolutions were computed with.
    aliases: ModuleAliases,
    cpp_headers: bool,
    files: u32,
    /// Every distinct name the file records hold, which write each name as its index here
    /// (`model::NameCodec`): a load interns each text once. Borrowed from the cache's bytes:
    /// owned, the benchmark corpus's 330 k names would be 26 MB of strings made only to be
    /// interned.
    #[serde(borrow)]
    names: Vec<&'a str>,
}

/// [`CacheMeta`] as a save writes it, the same bytes: the names as they are (a name is written
/// as its text), nothing copied.
#[derive(Serialize)]
struct SavedMeta<'a> {
    crate_version: &'a str,
    aliases: &'a ModuleAliases,
    cpp_headers: bool,
    files: u32,
    names: &'a [Name],
}

/// Where each entity of the files being saved is: its [`StoredId`].
fn stored_positions(files: &[SavedFile<'_>]) -> FxHashMap<EntityId, StoredId> {
    let mut positions: FxHashMap<EntityId, StoredId> = FxHashMap::default();
    for (position, file) in files.iter().enumerate() {
        positions.insert(EntityId::from(file.path), (position as u32, MODULE));
        for (index, id) in file.ids.iter().enumerate() {
            positions.insert(*id, (position as u32, index as u32));
        }
    }
    positions
}

/// One file as written: its resolution's ids as [`StoredId`]s. Made when the file is
/// encoded, and dropped once it is, so that the whole cache's compact form is never in memory.
fn compact<'a>(
    file: &SavedFile<'a>,
    positions: &FxHashMap<EntityId, StoredId>,
) -> StoredFileRef<'a> {
    let stored_id = |id: &EntityId| positions.get(id).copied();
    // A resolution naming an entity outside the cached files is dropped whole; the
    // warm start then resolves again.
    // A resolution with references left aside as bounded is not kept: the warm start
    // resolves that file again and says so again.
    let resolved = file
        .resolved
        .filter(|resolved| resolved.bounded.is_empty() && resolved.failure.is_none())
        .and_then(|resolved| {
            let edges = resolved
                .edges
                .iter()
                .map(|edge| {
                    Some((
                        stored_id(&edge.from)?,
                        stored_id(&edge.to)?,
                        edge.kind,
                        edge.resolution,
                        edge.site,
                    ))
                })
                .collect::<Option<Vec<_>>>()?;
            let ambiguous = resolved
                .ambiguous
                .iter()
                .map(|item| {
                    let candidates = item
                        .candidates
                        .iter()
                        .map(stored_id)
                        .collect::<Option<Vec<_>>>()?;
                    Some((stored_id(&item.from)?, item.name, item.site, candidates))
                })
                .collect::<Option<Vec<_>>>()?;
            let external = resolved
                .external
                .iter()
                .map(|item| (item.reference, item.module))
                .collect();
            let import_targets = resolved
                .import_targets
                .iter()
                .map(|path| stored_id(path).map(|(position, _)| position))
                .collect::<Option<Vec<_>>>()?;
            Some(StoredResolved {
                import_targets,
                edges,
                ambiguous,
                external,
                extra_names: resolved.extra_names.clone(),
                extra_modules: resolved.extra_modules.clone(),
                reachable: resolved.reachable,
                guessed: resolved.guessed.clone(),
                guessed_by: resolved.guessed_by.clone(),
            })
        });
    StoredFileRef {
        path: file.path,
        hash: file.hash,
        summary: file.summary,
        resolved,
        unread: file.unread,
    }
}

fn expand(files: Vec<StoredFile>) -> Result<Vec<CachedFile>, String> {
    let ids: Vec<(FilePath, Arc<[EntityId]>)> = files
        .par_iter()
        .map(|file| {
            (
                FilePath::from(file.path.as_str()),
                assign_ids(&file.path, &file.summary).into(),
            )
        })
        .collect();
    let id_of = |(position, index): StoredId| -> Result<EntityId, String> {
        let (module, defs) = ids
            .get(position as usize)
            .ok_or("an edge names a file that is not cached")?;
        if index == MODULE {
            return Ok(*module);
        }
        defs.get(index as usize)
            .cloned()
            .ok_or_else(|| "an edge names a definition that is not cached".to_string())
    };
    files
        .into_par_iter()
        .zip(ids.par_iter())
        .map(|(file, (path, file_ids))| {
            let resolved = match file.resolved {
                None => None,
                Some(stored) => Some(Resolved {
                    edges: stored
                        .edges
                        .into_iter()
                        .map(|(from, to, kind, resolution, site)| {
                            Ok(Edge {
                                from: id_of(from)?,
                                to: id_of(to)?,
                                kind,
                                resolution,
                                site,
                            })
                        })
                        .collect::<Result<_, String>>()?,
                    ambiguous: stored
                        .ambiguous
                        .into_iter()
                        .map(|(from, name, site, candidates)| {
                            Ok(AmbiguousRef {
                                from: id_of(from)?,
                                name,
                                site,
                                candidates: candidates
                                    .into_iter()
                                    .map(id_of)
                                    .collect::<Result<_, String>>()?,
                            })
                        })
                        .collect::<Result<_, String>>()?,
                    external: stored
                        .external
                        .into_iter()
                        .map(|(reference, module)| {
                            if reference as usize >= file.summary.refs.len() {
                                return Err(format!("reference {reference} out of range"));
                            }
                            Ok(ExternalRef { reference, module })
                        })
                        .collect::<Result<_, String>>()?,
                    extra_names: stored.extra_names,
                    extra_modules: stored.extra_modules,
                    import_targets: stored
                        .import_targets
                        .into_iter()
                        .map(|position| id_of((position, MODULE)))
                        .collect::<Result<_, String>>()?,
                    reachable: stored.reachable,
                    guessed: stored.guessed,
                    guessed_by: stored.guessed_by,
                    bounded: Vec::new(),
                    failure: None,
                    order: Default::default(),
                }),
            };
            Ok(CachedFile {
                path: *path,
                hash: file.hash,
                summary: Arc::new(file.summary),
                ids: file_ids.clone(),
                resolved,
                unread: file.unread,
            })
        })
        .collect()
}

pub fn cache_file(directory: &Path) -> PathBuf {
    directory.join("index.bin")
}

/// Whether `directory` may hold the cache: `Ok` if it is absent or a directory owned by this
/// user that is not a symlink; `Err` with the reason otherwise.
fn check_directory(directory: &Path) -> Result<(), String> {
    let metadata = match directory.symlink_metadata() {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error.to_string()),
    };
    if metadata.file_type().is_symlink() {
        return Err("is a symlink".to_string());
    }
    if !metadata.is_dir() {
        return Err("is not a directory".to_string());
    }
    let user = nix::unistd::geteuid().as_raw();
    if metadata.uid() != user {
        return Err(format!(
            "is owned by uid {}, not by this user ({user})",
            metadata.uid()
        ));
    }
    Ok(())
}

/// Loads the cache, or `None` (logged) when it is absent or unusable.
/// The files come with the module aliases their resolutions were computed with.
pub fn load(directory: &Path) -> Option<Loaded> {
    if let Err(reason) = check_directory(directory) {
        tracing::warn!(
            "cache directory {} {reason}; running without the cache",
            directory.display()
        );
        return None;
    }
    let path = cache_file(directory);
    let bytes = match read_regular(&path) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(reason)) => {
            tracing::warn!("cache {}: {reason}; discarded, re-indexing", path.display());
            return None;
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            tracing::warn!(
                "cache {}: unreadable ({error}); re-indexing",
                path.display()
            );
            return None;
        }
    };
    match decode(&bytes) {
        Ok(files) => Some(files),
        Err(reason) => {
            tracing::warn!("cache {}: {reason}; discarded, re-indexing", path.display());
            None
        }
    }
}

/// Reads `path` only if it is a regular file (not a symlink, FIFO or device) of at most
/// [`MAX_CACHE_BYTES`], and then as [`read_checked`] does: the inner `Err` says why the file is
/// not a cache.
fn read_regular(path: &Path) -> std::io::Result<Result<Vec<u8>, String>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if metadata.len() > MAX_CACHE_BYTES {
        return Err(std::io::Error::other(format!(
            "{} bytes, over the {MAX_CACHE_BYTES}-byte cap",
            metadata.len()
        )));
    }
    read_checked(file, metadata.len())
}

/// Reads a cache file of `size` bytes: its header, then the rest only if [`check_header`]
/// passes, so that a file that is not a cache (or not a whole one) is never read past its
/// header. The inner `Err` says why the file is not a cache.
fn read_checked(mut file: impl Read, size: u64) -> std::io::Result<Result<Vec<u8>, String>> {
    let mut header = Vec::with_capacity(HEADER);
    (&mut file).take(HEADER as u64).read_to_end(&mut header)?;
    if let Err(reason) = check_header(&header, size) {
        return Ok(Err(reason));
    }
    let mut bytes = header;
    bytes.reserve_exact((size as usize).saturating_sub(HEADER));
    // One byte more than announced, to see a file that grew since its size was taken.
    file.take(size - HEADER as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 != size {
        return Ok(Err(format!(
            "{} bytes read of {size}: changed while read",
            bytes.len()
        )));
    }
    Ok(Ok(bytes))
}

/// Whether `header` (a file's first [`HEADER`] bytes, or all of a shorter file) is this
/// format's cache header announcing a body that makes the file `size` bytes long; `Err` with
/// what it is instead.
fn check_header(header: &[u8], size: u64) -> Result<(), String> {
    if header.len() < LENGTH_AT || &header[..MAGIC.len()] != MAGIC {
        return Err("not a codegraph cache".to_string());
    }
    let format = u32::from_le_bytes(
        header[MAGIC.len()..LENGTH_AT]
            .try_into()
            .expect("four bytes"),
    );
    if format != FORMAT {
        return Err(format!("format {format}, expected {FORMAT}"));
    }
    if header.len() < HEADER {
        return Err("truncated".to_string());
    }
    let body = u64::from_le_bytes(
        header[LENGTH_AT..CHECKSUM_AT]
            .try_into()
            .expect("eight bytes"),
    );
    if body.checked_add(HEADER as u64) != Some(size) {
        return Err(format!(
            "the header announces a body of {body} bytes, the file holds {}: not a whole cache",
            size.saturating_sub(HEADER as u64)
        ));
    }
    Ok(())
}

fn decode(bytes: &[u8]) -> Result<Loaded, String> {
    check_header(&bytes[..bytes.len().min(HEADER)], bytes.len() as u64)?;
    let body = &bytes[HEADER..];
    if blake3::hash(body).as_bytes() != &bytes[CHECKSUM_AT..HEADER] {
        return Err("checksum mismatch".to_string());
    }
    let (meta, mut rest) = record(body)?;
    let meta: CacheMeta =
        postcard::from_bytes(meta).map_err(|error| format!("corrupt ({error})"))?;
    if meta.crate_version != env!("CARGO_PKG_VERSION") {
        return Err(format!("written by codegraph {}", meta.crate_version));
    }
    // The count is checked against the records, not trusted for an allocation.
    let mut records = Vec::new();
    while !rest.is_empty() {
        let (file, after) = record(rest)?;
        records.push(file);
        rest = after;
    }
    if records.len() != meta.files as usize {
        return Err(format!(
            "{} files, the header says {}",
            records.len(),
            meta.files
        ));
    }
    let names: Arc<[Name]> = meta
        .names
        .par_iter()
        .map(Name::new)
        .collect::<Vec<_>>()
        .into();
    let files = records
        .into_par_iter()
        .map(|record| {
            with_codec(NameCodec::Decode(names.clone()), || {
                postcard::from_bytes::<StoredFile>(record)
            })
            .0
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| format!("corrupt ({error})"))?;
    Ok(Loaded {
        files: expand(files)?,
        aliases: meta.aliases,
        cpp_headers: meta.cpp_headers,
    })
}

/// Splits one length-prefixed record off the front of `bytes`: (the record, what follows).
fn record(bytes: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let Some((length, rest)) = bytes.split_first_chunk::<4>() else {
        return Err("truncated".to_string());
    };
    let length = u32::from_le_bytes(*length) as usize;
    if rest.len() < length {
        return Err("truncated".to_string());
    }
    Ok(rest.split_at(length))
}

/// Writes the cache atomically. Failure is logged, never fatal: the cache is an optimisation.
pub fn save(
    directory: &Path,
    files: Vec<SavedFile<'_>>,
    aliases: &ModuleAliases,
    cpp_headers: bool,
) {
    if let Err(error) = try_save(directory, files, aliases, cpp_headers) {
        tracing::warn!("cache {}: not written ({error})", directory.display());
    }
}

/// Creates a file that did not exist (`O_EXCL`, so never through a planted symlink), mode 0600.
fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

fn try_save(
    directory: &Path,
    files: Vec<SavedFile<'_>>,
    aliases: &ModuleAliases,
    cpp_headers: bool,
) -> std::io::Result<()> {
    check_directory(directory).map_err(|reason| {
        std::io::Error::other(format!("the directory {reason}; running without the cache"))
    })?;
    if let Some(parent) = directory.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::create_dir(directory) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    // Checked again: it may have been swapped for a symlink since.
    check_directory(directory)
        .map_err(|reason| std::io::Error::other(format!("the directory {reason}")))?;
    // The cache is not versioned; the architecture rules and their baseline, which live beside
    // it, are.
    const GITIGNORE: &str = "# codegraph's cache; safe to delete (but keep the rules)\n*\n!rules.toml\n!rules-baseline.json\n";
    let ignore = directory.join(".gitignore");
    if ignore.symlink_metadata().is_err() {
        match create_new(&ignore) {
            Ok(mut file) => file.write_all(GITIGNORE.as_bytes())?,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    let count = files.len() as u32;
    let positions = stored_positions(&files);
    // The names the records hold: each record is made and walked once only to collect them
    // (into no bytes), then again to be written.
    let mut names: Vec<Name> = files
        .par_iter()
        .map(|file| {
            let stored = compact(file, &positions);
            let (walked, codec) = with_codec(NameCodec::Collect(FxHashSet::default()), || {
                postcard::serialize_with_flavor::<_, _, ()>(&stored, Discard)
            });
            walked.map(|()| match codec {
                NameCodec::Collect(names) => names,
                _ => FxHashSet::default(),
            })
        })
        .try_reduce(FxHashSet::default, |mut left, right| {
            left.extend(right);
            Ok(left)
        })
        .map_err(std::io::Error::other)?
        .into_iter()
        .collect();
    names.sort();
    let table: Arc<FxHashMap<Name, u32>> = Arc::new(
        names
            .iter()
            .enumerate()
            .map(|(index, name)| (*name, index as u32))
            .collect(),
    );
    let meta = SavedMeta {
        crate_version: env!("CARGO_PKG_VERSION"),
        aliases,
        cpp_headers,
        files: count,
        names: &names,
    };
    let target = cache_file(directory);
    let temporary = directory.join(format!(
        "index.bin.{}.{}.tmp",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos())
    ));
    let file = create_new(&temporary)?;
    // The body is encoded straight into the file (no copy of the whole cache in memory) through
    // a hasher; the checksum goes into the header once the body is written.
    let written = (|| {
        let mut writer = HashingWriter {
            inner: std::io::BufWriter::with_capacity(1 << 20, file),
            hasher: blake3::Hasher::new(),
        };
        writer.inner.write_all(MAGIC)?;
        writer.inner.write_all(&FORMAT.to_le_bytes())?;
        // The body's length and checksum, written once the body is.
        writer.inner.write_all(&[0; HEADER - LENGTH_AT])?;
        // Encoded straight into the file too: the names' texts are most of the cache's meta.
        let length = postcard::experimental::serialized_size(&meta)
            .ok()
            .and_then(|length| u32::try_from(length).ok())
            .ok_or_else(|| std::io::Error::other("the cache's names are over 4 GiB"))?;
        writer.write_all(&length.to_le_bytes())?;
        postcard::to_io(&meta, &mut writer).map_err(std::io::Error::other)?;
        // Encoded in parallel a slice at a time, so that the whole cache is never in memory.
        for slice in files.chunks(512) {
            let records = slice
                .par_iter()
                .map(|file| {
                    let stored = compact(file, &positions);
                    with_codec(NameCodec::Encode(table.clone()), || {
                        postcard::to_allocvec(&stored)
                    })
                    .0
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(std::io::Error::other)?;
            for record in &records {
                write_record(&mut writer, record)?;
            }
        }
        let checksum = writer.hasher.finalize();
        let mut file = writer
            .inner
            .into_inner()
            .map_err(|error| error.into_error())?;
        let body = file.stream_position()? - HEADER as u64;
        file.seek(std::io::SeekFrom::Start(LENGTH_AT as u64))?;
        file.write_all(&body.to_le_bytes())?;
        file.write_all(checksum.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        // Ours: `create_new` made it.
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A postcard output that keeps no bytes: serialising into it only walks the value (the save's
/// first pass, which collects the names).
struct Discard;

impl postcard::ser_flavors::Flavor for Discard {
    type Output = ();

    fn try_push(&mut self, _: u8) -> postcard::Result<()> {
        Ok(())
    }

    fn try_extend(&mut self, _: &[u8]) -> postcard::Result<()> {
        Ok(())
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// Writes one length-prefixed record ([`record`] reads it back).
fn write_record(writer: &mut impl Write, record: &[u8]) -> std::io::Result<()> {
    let length = u32::try_from(record.len())
        .map_err(|_| std::io::Error::other("a file's cache record is over 4 GiB"))?;
    writer.write_all(&length.to_le_bytes())?;
    writer.write_all(record)
}

/// Writes through, hashing what passes.
struct HashingWriter<W> {
    inner: W,
    hasher: blake3::Hasher,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_lang::Language;

    #[test]
    fn round_trip_and_corruption_are_handled() {
        let directory = tempfile::tempdir().unwrap();
        let (summary, _) = codegraph_index::extract_text(Language::Python, "def f():\n    g()\n");
        let aliases = ModuleAliases {
            configs: Vec::new(),
            packages: vec![codegraph_graph::aliases::PackageAlias {
                name: "@acme/core".into(),
                directory: "packages/core".into(),
                entries: vec![(String::new(), vec!["packages/core/src/index".into()])],
            }],
        };
        save(
            directory.path(),
            vec![SavedFile {
                path: "a.py",
                hash: [7; 32],
                summary: &summary,
                ids: &assign_ids("a.py", &summary),
                resolved: None,
                unread: None,
            }],
            &aliases,
            true,
        );
        let loaded = load(directory.path()).unwrap();
        assert_eq!(loaded.aliases, aliases);
        assert!(loaded.cpp_headers);
        assert_eq!(loaded.files.len(), 1);
        assert_eq!(*loaded.files[0].summary, summary);

        let path = cache_file(directory.path());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(
            load(directory.path()).is_none(),
            "a truncated cache is discarded"
        );
        std::fs::write(&path, b"garbage").unwrap();
        assert!(
            load(directory.path()).is_none(),
            "a foreign file is discarded"
        );
        // A record dropped from a consistent body (the checksum recomputed) is caught by the
        // count in the header, and a length that runs past the end by the framing.
        let (meta, rest) = record(&bytes[HEADER..]).unwrap();
        let mut shortened = bytes[..HEADER].to_vec();
        shortened.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        shortened.extend_from_slice(meta);
        assert!(!rest.is_empty(), "one file record follows the header");
        let mut overlong = shortened.clone();
        overlong.extend_from_slice(&u32::MAX.to_le_bytes());
        for (body, why) in [
            (shortened, "a missing record"),
            (overlong, "a record past the end"),
        ] {
            let mut body = body;
            let length = (body.len() - HEADER) as u64;
            body[LENGTH_AT..CHECKSUM_AT].copy_from_slice(&length.to_le_bytes());
            let checksum = *blake3::hash(&body[HEADER..]).as_bytes();
            body[CHECKSUM_AT..HEADER].copy_from_slice(&checksum);
            std::fs::write(&path, &body).unwrap();
            assert!(load(directory.path()).is_none(), "{why} is discarded");
        }
        let mut other = bytes.clone();
        other[8] = 99;
        std::fs::write(&path, other).unwrap();
        assert!(
            load(directory.path()).is_none(),
            "another format is discarded"
        );
    }

    /// A reader that counts the bytes it hands out.
    struct Counting<R> {
        inner: R,
        read: u64,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            let read = self.inner.read(buffer)?;
            self.read += read as u64;
            Ok(read)
        }
    }

    /// A 1 GiB sparse file behind a header that is not a cache's, or a cache's header whose
    /// announced body is not the rest of the file, is refused having read at most the header; a
    /// whole cache is read whole.
    #[test]
    fn only_a_header_announcing_the_files_size_gets_the_rest_read() {
        let directory = tempfile::tempdir().unwrap();
        let (summary, _) = codegraph_index::extract_text(Language::Python, "def f():\n    g()\n");
        save(
            directory.path(),
            vec![SavedFile {
                path: "a.py",
                hash: [7; 32],
                summary: &summary,
                ids: &assign_ids("a.py", &summary),
                resolved: None,
                unread: None,
            }],
            &ModuleAliases::default(),
            false,
        );
        let path = cache_file(directory.path());
        let cache = std::fs::read(&path).unwrap();
        let read = |path: &Path| {
            let file = std::fs::File::open(path).unwrap();
            let size = file.metadata().unwrap().len();
            let mut counting = Counting {
                inner: file,
                read: 0,
            };
            let outcome = read_checked(&mut counting, size).unwrap();
            (outcome, counting.read)
        };
        let (whole, count) = read(&path);
        assert_eq!(whole.unwrap(), cache);
        assert_eq!(count, cache.len() as u64);

        let huge = directory.path().join("huge.bin");
        for (header, why) in [
            (&b"garbage"[..], "not a codegraph cache"),
            (&cache[..HEADER], "not a whole cache"),
            (&cache[..HEADER - 1], "not a whole cache"),
        ] {
            let file = std::fs::File::create(&huge).unwrap();
            (&file).write_all(header).unwrap();
            file.set_len(MAX_CACHE_BYTES).unwrap();
            drop(file);
            let (outcome, count) = read(&huge);
            let reason = outcome.unwrap_err();
            assert!(reason.contains(why), "{reason}");
            assert!(count <= HEADER as u64, "{why}: {count} bytes read");
            assert!(
                read_regular(&huge).unwrap().is_err(),
                "{why}: read_regular refuses it too"
            );
        }
    }
}
