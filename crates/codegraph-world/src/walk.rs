//! Finding the workspace's source files: `.gitignore`/`.ignore` respected (the `ignore` crate),
//! files of unknown languages, binary files and files over the size cap skipped with a reason.
//!
//! The containment rule, applied here where files enter the graph (and by the watcher and the
//! editor door through [`contained`]): a path is read only if its canonical form (symlinks
//! resolved) lies inside the canonical root, compared by path components. A file symlink whose
//! target stays inside is indexed under the link's own path; one that leads outside is skipped.
//! Directory symlinks are never followed: one inside the workspace leads to files the walk
//! reaches under their own path anyway (following it would index them twice, or endlessly for a
//! loop such as `ln -s .. pkg/loop`), and one outside is an escape. Each is reported with a reason.

use std::path::{Component, Path, PathBuf};

use ignore::WalkBuilder;

use codegraph_lang::Language;

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

/// Whether `path` (absolute, lexically under `root`, which is canonical) may be read as part
/// of the workspace: its nearest existing ancestor-or-self, canonicalised, must lie inside the
/// root. `Err` says why not. A path that does not exist yet is judged by its directory, so a
/// deleted file can still leave the graph but nothing is read through a symlink that leaves.
pub fn contained(root: &Path, path: &Path) -> Result<(), String> {
    if path
        .components()
        .any(|component| matches!(component, Component::ParentDir))
    {
        return Err(format!("{}: `..` in a workspace path", path.display()));
    }
    let mut existing = path;
    loop {
        match existing.canonicalize() {
            Ok(target) if target.starts_with(root) => return Ok(()),
            Ok(target) => {
                return Err(format!(
                    "{} resolves to {}, outside the workspace {}",
                    path.display(),
                    target.display(),
                    root.display()
                ));
            }
            Err(_) => match existing.parent() {
                Some(parent) => existing = parent,
                None => return Err(format!("{}: not under the workspace", path.display())),
            },
        }
    }
}

/// What the walk and the watcher do with a symlink found inside the workspace.
pub enum SymlinkTarget {
    /// A file inside the workspace: read it under the link's path.
    File,
    /// Not followed, for this reason.
    Skip(String),
}

/// Applies the containment rule to the symlink at `link` (inside `root`).
pub fn symlink_target(root: &Path, link: &Path) -> SymlinkTarget {
    let target = match link.canonicalize() {
        Ok(target) => target,
        Err(error) => return SymlinkTarget::Skip(format!("broken symlink ({error})")),
    };
    if !target.starts_with(root) {
        return SymlinkTarget::Skip("symlink leads outside the workspace".to_string());
    }
    if target.is_file() {
        return SymlinkTarget::File;
    }
    let parent = link.parent().and_then(|parent| parent.canonicalize().ok());
    if parent.is_some_and(|parent| parent.starts_with(&target)) {
        return SymlinkTarget::Skip(
            "symlink loop: leads to a directory that contains it; not followed".to_string(),
        );
    }
    SymlinkTarget::Skip(
        "directory symlink inside the workspace; not followed (its files are indexed under their own path)"
            .to_string(),
    )
}

/// What a walk found: the source files, what was skipped and why, and the manifests
/// ([`super::manifests`]) by relative path.
pub struct Listing {
    pub files: Vec<SourceFile>,
    pub skipped: Vec<Skipped>,
    pub manifests: Vec<String>,
}

/// Lists the source files and manifests under `root` (which must be canonical).
pub fn walk(root: &Path, max_file_size: u64) -> Listing {
    let mut listing = Listing {
        files: Vec::new(),
        skipped: Vec::new(),
        manifests: Vec::new(),
    };
    let walker = WalkBuilder::new(root)
        .follow_links(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".codegraph" && entry.file_name() != ".git")
        .build();
    for entry in walker {
        let found = match entry {
            Ok(entry) => examine(root, &entry, max_file_size),
            Err(error) => Found::Skipped(Skipped {
                path: String::new(),
                reason: error.to_string(),
            }),
        };
        match found {
            Found::Source(file) => listing.files.push(file),
            Found::Manifest(relative) => listing.manifests.push(relative),
            Found::Skipped(skipped) => listing.skipped.push(skipped),
            Found::Nothing => {}
        }
    }
    listing
        .files
        .sort_by(|left, right| left.relative.cmp(&right.relative));
    listing
        .files
        .dedup_by(|left, right| left.relative == right.relative);
    listing.manifests.sort();
    listing
}

/// What one entry of the walk is to the listing.
enum Found {
    Source(SourceFile),
    Manifest(String),
    Skipped(Skipped),
    /// A directory, a file of no language codegraph parses, a path outside the root.
    Nothing,
}

fn examine(root: &Path, entry: &ignore::DirEntry, max_file_size: u64) -> Found {
    let path = entry.path();
    let Some(relative) = relative_path(root, path) else {
        return Found::Nothing;
    };
    if entry.path_is_symlink() {
        if let SymlinkTarget::Skip(reason) = symlink_target(root, path) {
            return Found::Skipped(Skipped {
                path: relative,
                reason,
            });
        }
    } else if !entry.file_type().is_some_and(|kind| kind.is_file()) {
        return Found::Nothing;
    }
    let Some(language) = Language::from_path(path) else {
        if super::manifests::is_manifest(&relative) {
            return Found::Manifest(relative);
        }
        return Found::Nothing;
    };
    // `metadata` of the path follows a (contained) file symlink to its target.
    let reason = match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => return Found::Nothing,
        Ok(metadata) if metadata.len() > max_file_size => format!(
            "{} bytes, over the {max_file_size}-byte cap",
            metadata.len()
        ),
        Ok(_) => {
            return Found::Source(SourceFile {
                absolute: path.to_path_buf(),
                relative,
                language,
            });
        }
        Err(error) => error.to_string(),
    };
    Found::Skipped(Skipped {
        path: relative,
        reason,
    })
}

/// `path` relative to `root` with `/` separators, or `None` if it is not inside (lexically: the
/// caller checks symlinks with [`contained`] before reading).
pub fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    // Only plain names: `..` (or `.`) would let `/repo/../sibling/x.py` pass as inside.
    let parts: Vec<String> = relative
        .components()
        .map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

/// How many leading bytes decide whether a file is binary.
pub const BINARY_PREFIX: u64 = 8192;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadRefusal {
    /// A FIFO, a device, a socket or a directory: reading it could block or never end.
    NotRegular,
    /// A NUL byte in the first [`BINARY_PREFIX`] bytes.
    Binary,
    Io(std::io::Error),
}

impl std::fmt::Display for ReadRefusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadRefusal::NotRegular => formatter.write_str("not a regular file"),
            ReadRefusal::Binary => formatter.write_str("binary file"),
            ReadRefusal::Io(error) => write!(formatter, "{error}"),
        }
    }
}

impl From<std::io::Error> for ReadRefusal {
    fn from(error: std::io::Error) -> ReadRefusal {
        ReadRefusal::Io(error)
    }
}

/// Reads at most `limit` bytes of the regular file at `path`, and whether there was more. The
/// first [`BINARY_PREFIX`] bytes are read and checked before anything else, so deciding that a
/// huge (or sparse) file is binary costs 8 KiB, and no file costs more than `limit` whatever
/// its size says. The file is opened non-blocking, so a FIFO swapped in after the type check
/// cannot hang the reader.
pub fn read_prefix(path: &Path, limit: u64) -> Result<(Vec<u8>, bool), ReadRefusal> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;

    if !std::fs::metadata(path)?.is_file() {
        return Err(ReadRefusal::NotRegular);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(ReadRefusal::NotRegular);
    }
    let mut bytes = Vec::with_capacity(metadata.len().min(limit.saturating_add(1)) as usize);
    let mut reader = file.take(limit.saturating_add(1));
    (&mut reader).take(BINARY_PREFIX).read_to_end(&mut bytes)?;
    if codegraph_lang::syntax::looks_binary(&bytes) {
        return Err(ReadRefusal::Binary);
    }
    reader.read_to_end(&mut bytes)?;
    let truncated = bytes.len() as u64 > limit;
    bytes.truncate(limit as usize);
    Ok((bytes, truncated))
}
