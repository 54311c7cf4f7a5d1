//! The on-disk cache: every file's content hash and summary, so that a second start re-parses
//! only what changed. One file, written atomically (temporary file, then rename). A cache that is
//! missing, truncated, corrupt or of another format is discarded with one log line.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::graph::Resolved;
use crate::index::FileSummary;

const MAGIC: &[u8; 8] = b"CGCACHE\0";
/// Bump when `FileSummary` or extraction changes meaning.
const FORMAT: u32 = 2;

#[derive(Debug, Serialize, Deserialize)]
pub struct CachedFile {
    pub path: String,
    pub hash: [u8; 32],
    pub summary: FileSummary,
    /// The file's resolved edges, saved only when the whole graph was built from files on disk
    /// (no unsaved editor buffers), so that a warm start can skip resolution.
    pub resolved: Option<Resolved>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CacheBody {
    crate_version: String,
    files: Vec<CachedFile>,
}

pub fn cache_file(directory: &Path) -> PathBuf {
    directory.join("index.bin")
}

/// Loads the cache, or `None` (logged) when it is absent or unusable.
pub fn load(directory: &Path) -> Option<Vec<CachedFile>> {
    let path = cache_file(directory);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
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

fn decode(bytes: &[u8]) -> Result<Vec<CachedFile>, String> {
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err("not a codegraph cache".to_string());
    }
    let format = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
    if format != FORMAT {
        return Err(format!("format {format}, expected {FORMAT}"));
    }
    let body: CacheBody =
        postcard::from_bytes(&bytes[12..]).map_err(|error| format!("corrupt ({error})"))?;
    if body.crate_version != env!("CARGO_PKG_VERSION") {
        return Err(format!("written by codegraph {}", body.crate_version));
    }
    Ok(body.files)
}

/// Writes the cache atomically. Failure is logged, never fatal: the cache is an optimisation.
pub fn save(directory: &Path, files: Vec<CachedFile>) {
    if let Err(error) = try_save(directory, files) {
        tracing::warn!("cache {}: not written ({error})", directory.display());
    }
}

fn try_save(directory: &Path, files: Vec<CachedFile>) -> std::io::Result<()> {
    std::fs::create_dir_all(directory)?;
    let ignore = directory.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "# codegraph's cache; safe to delete\n*\n")?;
    }
    let body = CacheBody {
        crate_version: env!("CARGO_PKG_VERSION").to_string(),
        files,
    };
    let encoded = postcard::to_allocvec(&body).map_err(std::io::Error::other)?;
    let target = cache_file(directory);
    let temporary = directory.join(format!("index.bin.{}.tmp", std::process::id()));
    {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(MAGIC)?;
        file.write_all(&FORMAT.to_le_bytes())?;
        file.write_all(&encoded)?;
        file.sync_all()?;
    }
    std::fs::rename(&temporary, &target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn round_trip_and_corruption_are_handled() {
        let directory = tempfile::tempdir().unwrap();
        let (summary, _) = crate::index::extract_text(Language::Python, "def f():\n    g()\n");
        save(
            directory.path(),
            vec![CachedFile {
                path: "a.py".into(),
                hash: [7; 32],
                summary: summary.clone(),
                resolved: None,
            }],
        );
        let loaded = load(directory.path()).unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].summary, summary);

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
        let mut other = bytes.clone();
        other[8] = 99;
        std::fs::write(&path, other).unwrap();
        assert!(
            load(directory.path()).is_none(),
            "another format is discarded"
        );
    }
}
