//! Writing the cache: the directory made safe to write in, the names the records hold
//! collected, then the body encoded straight into a fresh temporary file through a hasher and
//! renamed over the cache.

use std::io::{Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::stored::{SavedMeta, StoredId, compact, stored_positions};
use super::{FORMAT, HEADER, LENGTH_AT, MAGIC, SavedFile, cache_file, check_directory};
use codegraph_graph::EntityId;
use codegraph_graph::aliases::ModuleAliases;
use codegraph_model::{Name, NameCodec, with_codec};

/// Creates a file that did not exist (`O_EXCL`, so never through a planted symlink), mode 0600.
fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

pub(super) fn try_save(
    directory: &Path,
    files: Vec<SavedFile<'_>>,
    aliases: &ModuleAliases,
    cpp_headers: bool,
) -> std::io::Result<()> {
    prepare_directory(directory)?;
    let count = files.len() as u32;
    let positions = stored_positions(&files);
    let names = collect_names(&files, &positions)?;
    let meta = SavedMeta {
        crate_version: env!("CARGO_PKG_VERSION"),
        aliases,
        cpp_headers,
        files: count,
        names: &names,
    };
    let target = cache_file(directory);
    let temporary = temporary_path(directory);
    let file = create_new(&temporary)?;
    let written = write_body(file, &meta, &files, &positions)
        .and_then(|()| std::fs::rename(&temporary, &target));
    if written.is_err() {
        // Ours: `create_new` made it.
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Makes the cache directory if it is missing, after checking that it may hold the cache (and
/// again after making it: it may have been swapped for a symlink since), and writes its
/// `.gitignore` when nothing is at that name.
fn prepare_directory(directory: &Path) -> std::io::Result<()> {
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
    Ok(())
}

/// The names the records hold, sorted: each record is made and walked once only to collect
/// them (into no bytes), then again to be written.
fn collect_names(
    files: &[SavedFile<'_>],
    positions: &FxHashMap<EntityId, StoredId>,
) -> std::io::Result<Vec<Name>> {
    let mut names: Vec<Name> = files
        .par_iter()
        .map(|file| {
            let stored = compact(file, positions);
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
    Ok(names)
}

/// A fresh name beside the cache for the file being written.
fn temporary_path(directory: &Path) -> PathBuf {
    directory.join(format!(
        "index.bin.{}.{}.tmp",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos())
    ))
}

/// Writes header and body into `file`. The body is encoded straight into the file (no copy of
/// the whole cache in memory) through a hasher; the checksum goes into the header once the body
/// is written.
fn write_body(
    file: std::fs::File,
    meta: &SavedMeta<'_>,
    files: &[SavedFile<'_>],
    positions: &FxHashMap<EntityId, StoredId>,
) -> std::io::Result<()> {
    let mut writer = HashingWriter {
        inner: std::io::BufWriter::with_capacity(1 << 20, file),
        hasher: blake3::Hasher::new(),
    };
    writer.inner.write_all(MAGIC)?;
    writer.inner.write_all(&FORMAT.to_le_bytes())?;
    // The body's length and checksum, written once the body is.
    writer.inner.write_all(&[0; HEADER - LENGTH_AT])?;
    // Encoded straight into the file too: the names' texts are most of the cache's meta.
    let length = postcard::experimental::serialized_size(meta)
        .ok()
        .and_then(|length| u32::try_from(length).ok())
        .ok_or_else(|| std::io::Error::other("the cache's names are over 4 GiB"))?;
    writer.write_all(&length.to_le_bytes())?;
    postcard::to_io(meta, &mut writer).map_err(std::io::Error::other)?;
    let table: Arc<FxHashMap<Name, u32>> = Arc::new(
        meta.names
            .iter()
            .enumerate()
            .map(|(index, name)| (*name, index as u32))
            .collect(),
    );
    write_records(&mut writer, files, positions, &table)?;
    let checksum = writer.hasher.finalize();
    let mut file = writer
        .inner
        .into_inner()
        .map_err(|error| error.into_error())?;
    let body = file.stream_position()? - HEADER as u64;
    file.seek(std::io::SeekFrom::Start(LENGTH_AT as u64))?;
    file.write_all(&body.to_le_bytes())?;
    file.write_all(checksum.as_bytes())?;
    file.sync_all()
}

/// The file records, encoded in parallel a slice at a time, so that the whole cache is never
/// in memory.
fn write_records(
    writer: &mut impl Write,
    files: &[SavedFile<'_>],
    positions: &FxHashMap<EntityId, StoredId>,
    table: &Arc<FxHashMap<Name, u32>>,
) -> std::io::Result<()> {
    for slice in files.chunks(512) {
        let records = slice
            .par_iter()
            .map(|file| {
                let stored = compact(file, positions);
                with_codec(NameCodec::Encode(table.clone()), || {
                    postcard::to_allocvec(&stored)
                })
                .0
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(std::io::Error::other)?;
        for record in &records {
            write_record(writer, record)?;
        }
    }
    Ok(())
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
