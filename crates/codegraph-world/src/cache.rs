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

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod stored;
mod write;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::stamp::DiskStamp;
use codegraph_graph::aliases::ModuleAliases;
use codegraph_graph::{EntityId, FilePath, Resolved};
use codegraph_index::FileSummary;
use codegraph_model::{FileClass, Name, NameCodec, with_codec};
use stored::{CacheMeta, StoredFile, expand};

const MAGIC: &[u8; 8] = b"CGCACHE\0";
/// Bump when `FileSummary` or extraction changes meaning (or what `Resolved` stores, such as
/// the walk's fingerprint), or the layout
/// (magic, format, length of the body, blake3 of the body, body) changes.
const FORMAT: u32 = 34;
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
    if let Err(error) = write::try_save(directory, files, aliases, cpp_headers) {
        tracing::warn!("cache {}: not written ({error})", directory.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_graph::assign_ids;
    use codegraph_lang::Language;
    use std::io::Write;

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
