//! Turning a path a client sent into a file inside the workspace, and never one outside it.
//!
//! The check is done on canonical paths (symlinks resolved) and compares path components, so a
//! root `/repo` admits `/repo/a.py` but not `/repo-evil/a.py`, and a symlink inside the root that
//! leads outside is refused like the path it leads to.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The path leaves the workspace (or tries to, with `..`).
    Outside(String),
    /// Nothing readable is there.
    NotFound(String),
}

impl std::fmt::Display for PathError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::Outside(path) => write!(
                formatter,
                "Access denied: {path} is outside the workspace (only files inside the repository can be read)"
            ),
            PathError::NotFound(path) => write!(formatter, "File not found: {path}"),
        }
    }
}

/// A file inside the workspace: its canonical absolute path and its path relative to the root,
/// with `/` separators (the form the graph uses).
#[derive(Debug, Clone)]
pub struct WorkspaceFile {
    pub absolute: PathBuf,
    pub relative: String,
}

/// Resolves `requested` (relative to `root`, or absolute) to a regular file inside `root`.
/// `root` must already be canonical.
pub fn resolve_in_workspace(root: &Path, requested: &str) -> Result<WorkspaceFile, PathError> {
    let found = resolve_inside(root, requested)?;
    if !found.absolute.is_file() {
        return Err(PathError::NotFound(requested.to_string()));
    }
    Ok(found)
}

/// Resolves `requested` to a directory inside `root` (the root itself for `.` or an empty
/// path). `root` must already be canonical.
pub fn resolve_directory_in_workspace(
    root: &Path,
    requested: &str,
) -> Result<WorkspaceFile, PathError> {
    let requested_trimmed = requested.trim();
    if requested_trimmed.is_empty() || requested_trimmed == "." {
        return Ok(WorkspaceFile {
            absolute: root.to_path_buf(),
            relative: String::new(),
        });
    }
    let found = resolve_inside(root, requested)?;
    if !found.absolute.is_dir() {
        return Err(PathError::NotFound(requested.to_string()));
    }
    Ok(found)
}

/// Anything that exists inside `root`.
fn resolve_inside(root: &Path, requested: &str) -> Result<WorkspaceFile, PathError> {
    let requested_path = Path::new(requested.trim());
    if requested.trim().is_empty() {
        return Err(PathError::NotFound(requested.to_string()));
    }
    // `..` is refused outright, even when it would come back inside: no client needs it, and
    // refusing it keeps the rule easy to state.
    if requested_path
        .components()
        .any(|component| matches!(component, Component::ParentDir))
    {
        return Err(PathError::Outside(requested.to_string()));
    }
    let joined = if requested_path.is_absolute() {
        if !requested_path.starts_with(root) {
            return Err(PathError::Outside(requested.to_string()));
        }
        requested_path.to_path_buf()
    } else {
        root.join(requested_path)
    };
    let canonical = joined
        .canonicalize()
        .map_err(|_| PathError::NotFound(requested.to_string()))?;
    // Component-wise: `/repo-evil` does not start with `/repo`.
    let Ok(relative) = canonical.strip_prefix(root) else {
        return Err(PathError::Outside(requested.to_string()));
    };
    let relative = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    Ok(WorkspaceFile {
        absolute: canonical,
        relative,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_components_are_refused_before_touching_the_disk() {
        let root = Path::new("/nonexistent-root");
        assert_eq!(
            resolve_in_workspace(root, "a/../../x").unwrap_err(),
            PathError::Outside("a/../../x".to_string())
        );
        assert_eq!(
            resolve_in_workspace(root, "/nonexistent-root-evil/x").unwrap_err(),
            PathError::Outside("/nonexistent-root-evil/x".to_string())
        );
    }
}
