//! What an answer rests on: the graph revision it was read from and, among the files it read,
//! those whose text in the graph is not the text on disk (open in the editor with unsaved edits,
//! or changed on disk since codegraph read them). Every door stamps its answers with it.
//!
//! Stamping must cost next to nothing beside the answer: a file's identity, length and times
//! are recorded when the graph reads it ([`DiskRecord`]), and a stamp compares them with one
//! `stat` per file; only a file whose stamp differs (or one open in an editor) is read and
//! compared by content, so touching a file without changing it makes nothing stale. The cache
//! keeps the settled stamps too, so that a warm start need not read a file whose stamp is the
//! same ([`DiskStamp::settled`]).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::SystemTime;

use dashmap::{DashMap, DashSet};
use serde::{Deserialize, Serialize};

use super::{World, walk};
use codegraph_graph::{FileNode, FilePath, FileText, Graph};

/// The trust stamp of one answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stamp {
    /// The revision of the graph snapshot the answer was read from.
    pub revision: u64,
    /// Files of the answer open in the editor with edits not on disk: the answer follows the
    /// editor's text.
    pub unsaved_files: Vec<FilePath>,
    /// Files of the answer that changed (or disappeared) on disk since the graph read them and
    /// are not open in an editor: the answer follows the older text until the watcher or a
    /// reindex catches up.
    pub stale_files: Vec<FilePath>,
    /// Files of the answer that codegraph failed to read (a bug of ours, caught at the file:
    /// `contain`): what the answer says of them is incomplete.
    pub failed_files: Vec<FilePath>,
}

/// A file's identity (device and inode), length, modification and change times, taken just
/// before it was read, and whether the path is a symbolic link. Identity and link tell a file
/// replaced by another (a rename over it, a symlink swapped in) even when length and time agree:
/// times are only as fine as the kernel's clock tick.
///
/// Two stamps are equal when all of that is; `settled` is not compared.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct DiskStamp {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
    /// The inode's change time (seconds, nanoseconds): set by the kernel on every write,
    /// rename or `touch`, and, unlike the modification time, not settable by a program.
    changed: (i64, i64),
    symlink: bool,
    /// Both times were at least [`SETTLE`] old when the stamp was taken: a later write would
    /// change them, even on a file system whose clock ticks coarsely. Only such a stamp lets
    /// a warm start trust the cache without reading the file (git's "racily clean" entries,
    /// avoided rather than detected).
    #[serde(skip)]
    settled: bool,
}

/// How old a file's times must be for its stamp to vouch for its content: far above any file
/// system's timestamp granularity (FAT's two seconds included).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(3);

impl PartialEq for DiskStamp {
    fn eq(&self, other: &DiskStamp) -> bool {
        (
            self.device,
            self.inode,
            self.len,
            self.modified,
            self.changed,
            self.symlink,
        ) == (
            other.device,
            other.inode,
            other.len,
            other.modified,
            other.changed,
            other.symlink,
        )
    }
}

impl Eq for DiskStamp {}

impl DiskStamp {
    /// The file's stamp now; `None` when it cannot be stat-ed. One `lstat`, and a `stat` more
    /// only for a link.
    pub fn of(absolute: &Path) -> Option<DiskStamp> {
        use std::os::unix::fs::MetadataExt;
        let now = SystemTime::now();
        let link = std::fs::symlink_metadata(absolute).ok()?;
        let symlink = link.file_type().is_symlink();
        let metadata = if symlink {
            std::fs::metadata(absolute).ok()?
        } else {
            link
        };
        let modified = metadata.modified().ok();
        let changed = (metadata.ctime(), metadata.ctime_nsec());
        let changed_at = u64::try_from(changed.0).ok().map(|seconds| {
            SystemTime::UNIX_EPOCH
                + std::time::Duration::new(seconds, changed.1.clamp(0, 999_999_999) as u32)
        });
        let old = |time: Option<SystemTime>| {
            time.and_then(|time| now.duration_since(time).ok())
                .is_some_and(|age| age >= SETTLE)
        };
        Some(DiskStamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified,
            changed,
            symlink,
            settled: old(modified) && old(changed_at),
        })
    }

    /// The file's length in bytes.
    pub fn bytes(&self) -> u64 {
        self.len
    }

    /// Whether the stamp vouches for the content read after it (see `settled`).
    pub fn settled(&self) -> bool {
        self.settled
    }
}

/// What the graph's files looked like on disk when read, and which are open in an editor.
/// Written by the writer as it reads files and opens or closes buffers; read by stamps without
/// the writer's lock.
#[derive(Debug, Default)]
pub struct DiskRecord {
    read: DashMap<FilePath, DiskStamp>,
    open: DashSet<FilePath>,
}

impl DiskRecord {
    pub(super) fn read(&self, path: &FilePath, stamp: Option<DiskStamp>) {
        match stamp {
            Some(stamp) => {
                self.read.insert(*path, stamp);
            }
            None => self.forget(path),
        }
    }

    pub(super) fn forget(&self, path: &str) {
        self.read.remove(path);
    }

    pub(super) fn open(&self, path: &FilePath) {
        self.open.insert(*path);
    }

    pub(super) fn close(&self, path: &str) {
        self.open.remove(path);
    }
}

impl World {
    /// Stamps an answer read from `graph` that rests on `files` (graph paths; paths the graph
    /// does not hold are ignored): one `stat` per file, and a read of the files that are open
    /// in an editor or whose length or modification time changed since the graph read them.
    pub fn stamp<'a>(&self, graph: &Graph, files: impl IntoIterator<Item = &'a str>) -> Stamp {
        let files: BTreeSet<&str> = files.into_iter().collect();
        let mut stamp = Stamp {
            revision: graph.revision(),
            ..Stamp::default()
        };
        for path in files {
            let Some(node) = graph.file(path) else {
                continue;
            };
            if node.failure().is_some() {
                stamp.failed_files.push(node.path);
            }
            let absolute = self.root.join(path);
            let open = self.disk.open.contains(path);
            let unchanged =
                !open
                    && self.disk.read.get(path).is_some_and(|read| {
                        DiskStamp::of(&absolute).is_some_and(|now| now == *read)
                    });
            if unchanged {
                continue;
            }
            // A file swapped for a symlink out of the workspace is not read, not even to be
            // compared: it no longer is the workspace's file, so the answer rests on a stale one.
            let contained = walk::contained(&self.root, &absolute).is_ok();
            if contained && !differs_from_disk(&absolute, node) {
                continue;
            }
            if open {
                stamp.unsaved_files.push(node.path);
            } else {
                stamp.stale_files.push(node.path);
            }
        }
        stamp
    }
}

/// Whether the file on disk is not the text the graph holds: changed, gone or unreadable.
fn differs_from_disk(absolute: &Path, node: &FileNode) -> bool {
    // A lossy decoding only grows the text (one invalid byte becomes a three-byte U+FFFD), so
    // a file longer than the text plus one byte is different, and reading that much decides.
    let limit = (node.text.len() as u64).saturating_add(1);
    match walk::read_prefix(absolute, limit) {
        Ok((bytes, false)) => {
            // A resident text (an open buffer) is compared as it is; a file read from disk was
            // hashed as bytes, before decoding.
            let same_text = match &node.text {
                FileText::Resident(text) => bytes == text.as_bytes(),
                FileText::Elsewhere { .. } => false,
            };
            !same_text && blake3::hash(&bytes).as_bytes() != &node.hash
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CacheLocation, WorldConfig};

    fn world_with(files: &[(&str, &str)]) -> (tempfile::TempDir, World) {
        let directory = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(directory.path().join(path), text).unwrap();
        }
        let world = World::open(
            directory.path(),
            WorldConfig {
                cache: CacheLocation::Disabled,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        world.index(false, &|_, _| {});
        (directory, world)
    }

    fn paths(list: &[FilePath]) -> Vec<&str> {
        list.iter().map(|path| &**path).collect()
    }

    #[test]
    fn unsaved_stale_and_untouched_files_are_told_apart() {
        let (directory, world) = world_with(&[
            ("a.py", "def a():\n    pass\n"),
            ("b.py", "def b():\n    pass\n"),
            ("c.py", "def c():\n    pass\n"),
            ("gone.py", "def gone():\n    pass\n"),
        ]);
        world.open_buffer("a.py", 1, "def a():\n    return 1\n".to_string());
        std::fs::write(directory.path().join("b.py"), "def b():\n    return 2\n").unwrap();
        std::fs::remove_file(directory.path().join("gone.py")).unwrap();
        let graph = world.snapshot();
        let stamp = world.stamp(&graph, ["a.py", "b.py", "c.py", "gone.py", "nowhere.py"]);
        assert_eq!(stamp.revision, graph.revision());
        assert_eq!(paths(&stamp.unsaved_files), ["a.py"]);
        assert_eq!(paths(&stamp.stale_files), ["b.py", "gone.py"]);
        // Only the files the answer names count.
        let stamp = world.stamp(&graph, ["c.py"]);
        assert!(stamp.unsaved_files.is_empty() && stamp.stale_files.is_empty());
    }

    #[test]
    fn a_touched_file_is_not_stale_and_a_same_length_change_is() {
        let (directory, world) = world_with(&[("a.py", "def a():\n    return 1\n")]);
        let graph = world.snapshot();
        let path = directory.path().join("a.py");
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(later).unwrap();
        assert!(world.stamp(&graph, ["a.py"]).stale_files.is_empty());
        std::fs::write(&path, "def a():\n    return 2\n").unwrap();
        assert_eq!(paths(&world.stamp(&graph, ["a.py"]).stale_files), ["a.py"]);
    }

    #[test]
    fn a_file_swapped_for_a_symlink_out_of_the_workspace_is_stale_unread() {
        let text = "def a():\n    pass\n";
        let (directory, world) = world_with(&[("a.py", text)]);
        let graph = world.snapshot();
        // The same text outside: were it read, it would compare equal.
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("a.py");
        std::fs::write(&target, text).unwrap();
        let path = directory.path().join("a.py");
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert_eq!(paths(&world.stamp(&graph, ["a.py"]).stale_files), ["a.py"]);
    }

    #[test]
    fn an_open_buffer_equal_to_the_disk_is_not_unsaved() {
        let text = "def a():\n    pass\n";
        let (_directory, world) = world_with(&[("a.py", text)]);
        world.open_buffer("a.py", 1, text.to_string());
        let graph = world.snapshot();
        assert_eq!(
            world.stamp(&graph, ["a.py"]),
            Stamp {
                revision: graph.revision(),
                ..Stamp::default()
            }
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_is_not_stale_for_its_lossy_text() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(
            directory.path().join("latin.py"),
            b"# caf\xe9\ndef f():\n    pass\n",
        )
        .unwrap();
        let world = World::open(
            directory.path(),
            WorldConfig {
                cache: CacheLocation::Disabled,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        world.index(false, &|_, _| {});
        let graph = world.snapshot();
        assert!(
            graph
                .file("latin.py")
                .unwrap()
                .text()
                .unwrap()
                .contains('\u{fffd}')
        );
        assert!(world.stamp(&graph, ["latin.py"]).stale_files.is_empty());
    }
}
