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
    remove_abandoned(directory);
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

/// Removes the temporary files of writers that died before renaming theirs over the cache
/// (a process killed while it wrote): each is as large as the cache. A file is another
/// writer's while its process runs, and left alone; one of a process gone is removed once an
/// hour old (a directory shared with another machine, whose processes this one cannot see,
/// keeps its writers' files for the time a write takes).
fn remove_abandoned(directory: &Path) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(writer_of) else {
            continue;
        };
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        let old = metadata
            .modified()
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age >= ABANDONED_AFTER);
        if metadata.is_file() && old && pid != std::process::id() && !process_runs(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// How old a dead writer's temporary file must be to be removed.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// The process that writes a temporary file of this name ([`temporary_path`]'s).
fn writer_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("index.bin.")?.strip_suffix(".tmp")?;
    let (pid, stamp) = rest.split_once('.')?;
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
    (digits(pid) && digits(stamp))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether process `pid` runs (on this machine); when that cannot be told, it does.
fn process_runs(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(nix::errno::Errno::ESRCH) => false,
        // It runs, as another user.
        Err(_) => true,
    }
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

#[cfg(test)]
mod tests {
    use super::{remove_abandoned, writer_of};

    #[test]
    fn a_dead_writers_old_temporary_file_is_removed_and_nothing_else() {
        let directory = tempfile::tempdir().unwrap();
        let write = |name: &str, age_seconds: u64| {
            let path = directory.path().join(name);
            let file = std::fs::File::create(&path).unwrap();
            let modified =
                std::time::SystemTime::now() - std::time::Duration::from_secs(age_seconds);
            file.set_modified(modified).unwrap();
            path
        };
        // No process has a number past the kernel's largest (2^22).
        let dead_old = write("index.bin.999999999.17.tmp", 7200);
        let dead_new = write("index.bin.999999998.18.tmp", 10);
        let ours = write(&format!("index.bin.{}.19.tmp", std::process::id()), 7200);
        let init = write("index.bin.1.20.tmp", 7200);
        let cache = write("index.bin", 7200);
        let other = write("index.bin.notes.tmp", 7200);
        remove_abandoned(directory.path());
        assert!(!dead_old.exists(), "a dead writer's file, an hour old");
        for kept in [&dead_new, &ours, &init, &cache, &other] {
            assert!(kept.exists(), "{} is kept", kept.display());
        }
        assert_eq!(writer_of("index.bin.42.7.tmp"), Some(42));
        assert_eq!(writer_of("index.bin.42.tmp"), None);
        assert_eq!(writer_of("index.bin.-1.7.tmp"), None);
        assert_eq!(writer_of("index.bin.42.7.tmp.x"), None);
    }
}
