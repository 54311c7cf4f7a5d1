//! The texts of files on disk, read again when an answer needs them (a snippet, a hover, a
//! position in a client's columns) instead of being kept in the graph: a file no editor has open
//! costs the graph its summary, not its text.
//!
//! A read is checked against the hash the file was indexed from. A file that changed since is
//! not quoted: its path is remembered as stale and the world re-indexes it
//! ([`crate::World::snapshot`] drains the list). The last few texts read are kept, so
//! that converting the positions of one answer reads each file once.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use codegraph_graph::TextSource;

/// At most this many recently read texts are kept...
const RECENT_FILES: usize = 16;
/// ...holding at most this many bytes together.
const RECENT_BYTES: usize = 8 * 1024 * 1024;

/// A text read recently: (path, hash, text).
type Recent = (Arc<str>, [u8; 32], Arc<str>);

pub struct DiskTexts {
    root: PathBuf,
    max_file_size: u64,
    recent: Mutex<VecDeque<Recent>>,
    stale: Mutex<Vec<String>>,
    any_stale: AtomicBool,
}

impl DiskTexts {
    pub fn new(root: PathBuf, max_file_size: u64) -> DiskTexts {
        DiskTexts {
            root,
            max_file_size,
            recent: Mutex::new(VecDeque::new()),
            stale: Mutex::new(Vec::new()),
            any_stale: AtomicBool::new(false),
        }
    }

    /// The paths found changed since they were indexed, each once; empties the list.
    pub fn take_stale(&self) -> Vec<String> {
        if !self.any_stale.swap(false, Ordering::AcqRel) {
            return Vec::new();
        }
        let mut stale = std::mem::take(&mut *self.stale.lock());
        stale.sort();
        stale.dedup();
        stale
    }

    /// Puts back paths taken with [`DiskTexts::take_stale`] that could not be re-indexed yet.
    pub fn keep_stale(&self, paths: Vec<String>) {
        self.stale.lock().extend(paths);
        self.any_stale.store(true, Ordering::Release);
    }

    fn remember(&self, path: &str, hash: [u8; 32], text: Arc<str>) {
        if text.len() > RECENT_BYTES {
            return;
        }
        let mut recent = self.recent.lock();
        recent.retain(|(known, _, _)| &**known != path);
        recent.push_front((Arc::from(path), hash, text));
        let mut bytes = 0;
        let mut keep = 0;
        for (_, _, text) in recent.iter() {
            if keep == RECENT_FILES || bytes + text.len() > RECENT_BYTES {
                break;
            }
            bytes += text.len();
            keep += 1;
        }
        recent.truncate(keep);
    }
}

impl TextSource for DiskTexts {
    fn read(&self, path: &str, hash: &[u8; 32]) -> Option<Arc<str>> {
        if let Some((_, _, text)) = self
            .recent
            .lock()
            .iter()
            .find(|(known, known_hash, _)| &**known == path && known_hash == hash)
        {
            return Some(text.clone());
        }
        let absolute = self.root.join(path);
        let read = super::walk::read_prefix(&absolute, self.max_file_size)
            .ok()
            .filter(|(_, truncated)| !truncated)
            .map(|(bytes, _)| bytes)
            .filter(|bytes| blake3::hash(bytes).as_bytes() == hash);
        let Some(bytes) = read else {
            tracing::debug!("{path}: changed on disk since it was indexed; re-indexing it");
            self.stale.lock().push(path.to_string());
            self.any_stale.store(true, Ordering::Release);
            return None;
        };
        let text: Arc<str> = codegraph_lang::syntax::decode_lossy(bytes).into();
        self.remember(path, *hash, text.clone());
        Some(text)
    }
}
