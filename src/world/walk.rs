//! Finding the workspace's source files: `.gitignore`/`.ignore` respected (the `ignore` crate),
//! symlinks followed but never outside the root (loops are reported and skipped), files of
//! unknown languages, binary files and files over the size cap skipped with a reason.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use crate::lang::Language;

#[derive(Debug, Clone)]
pub struct SourceFile {
    pub absolute: PathBuf,
    /// Relative to the root, `/`-separated.
    pub relative: String,
    pub language: Language,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// Lists the source files under `root` (which must be canonical).
pub fn walk(root: &Path, max_file_size: u64) -> (Vec<SourceFile>, Vec<Skipped>) {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let walker = WalkBuilder::new(root)
        .follow_links(true)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".codegraph" && entry.file_name() != ".git")
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                skipped.push(Skipped {
                    path: String::new(),
                    reason: error.to_string(),
                });
                continue;
            }
        };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let path = entry.path();
        let Some(language) = Language::from_path(path) else {
            continue;
        };
        let relative = match relative_path(root, path) {
            Some(relative) => relative,
            None => continue,
        };
        if entry.path_is_symlink() {
            match path.canonicalize() {
                Ok(target) if target.starts_with(root) => {}
                _ => {
                    skipped.push(Skipped {
                        path: relative,
                        reason: "symlink leads outside the workspace".into(),
                    });
                    continue;
                }
            }
        }
        match entry.metadata() {
            Ok(metadata) if metadata.len() > max_file_size => {
                skipped.push(Skipped {
                    path: relative,
                    reason: format!(
                        "{} bytes, over the {max_file_size}-byte cap",
                        metadata.len()
                    ),
                });
                continue;
            }
            Ok(_) => {}
            Err(error) => {
                skipped.push(Skipped {
                    path: relative,
                    reason: error.to_string(),
                });
                continue;
            }
        }
        files.push(SourceFile {
            absolute: path.to_path_buf(),
            relative,
            language,
        });
    }
    files.sort_by(|left, right| left.relative.cmp(&right.relative));
    files.dedup_by(|left, right| left.relative == right.relative);
    (files, skipped)
}

/// `path` relative to `root` with `/` separators, or `None` if it is not inside.
pub fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}
