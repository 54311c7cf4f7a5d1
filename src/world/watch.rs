//! Keeping a world current without an editor: file-system events (the `notify` crate) are
//! debounced and become [`World::refresh_from_disk`] calls, in order, from one thread.
//!
//! Hidden paths (`.git`, `.codegraph`, ...) and paths the root's `.gitignore` ignores are left
//! out, as the workspace walk leaves them out. A directory that appears (moved in) has its files
//! read; one that disappears takes its files out of the graph.
//!
//! The walk's containment rule holds here too: symlinks are not followed by the watch itself, a
//! directory symlink that appears is not entered (a loop such as `ln -s .. pkg/loop` would index
//! the tree again under it), and a file symlink is read only if it resolves inside the root
//! ([`World::refresh_from_disk`] checks).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use notify::{RecursiveMode, Watcher as _};

use super::World;
use super::walk::{SymlinkTarget, relative_path, symlink_target};
use crate::lang::Language;

/// How long the file system must be quiet before a batch of changes is applied.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// Watches while it lives; dropping it stops the watch and its thread.
pub struct Watcher {
    _watcher: notify::RecommendedWatcher,
}

/// Starts watching `world`'s root. `on_change` runs after every applied batch, with the graph
/// paths that were refreshed (for example to notify subscribed clients).
pub fn watch(
    world: Arc<World>,
    on_change: impl Fn(&[String]) + Send + 'static,
) -> notify::Result<Watcher> {
    let (sender, receiver) = channel::<PathBuf>();
    let mut watcher = notify::RecommendedWatcher::new(
        move |event: notify::Result<notify::Event>| match event {
            // Reading a file is no change: the refresh below and every answer that compares a
            // file with the disk read files, and taking their open/read/close events for
            // changes made the watcher refresh forever (and, events arriving faster than the
            // debounce, never apply a real change).
            Ok(event) if !changes_content(&event.kind) => {}
            Ok(event) => {
                for path in event.paths {
                    let _ = sender.send(path);
                }
            }
            Err(error) => tracing::warn!("file watcher: {error}"),
        },
        notify::Config::default().with_follow_symlinks(false),
    )?;
    watcher.watch(world.root(), RecursiveMode::Recursive)?;
    let root = world.root().to_path_buf();
    let (gitignore, _) = ignore::gitignore::Gitignore::new(root.join(".gitignore"));
    std::thread::Builder::new()
        .name("codegraph-watch".to_string())
        .spawn(move || {
            // Ends when the watcher (and with it the sender) is dropped.
            while let Ok(first) = receiver.recv() {
                let mut batch = vec![first];
                loop {
                    match receiver.recv_timeout(DEBOUNCE) {
                        Ok(path) => batch.push(path),
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                batch.sort();
                batch.dedup();
                let mut changed = Vec::new();
                for path in batch {
                    if ignored(&root, &path, &gitignore) {
                        continue;
                    }
                    changed.extend(apply(&world, &path));
                }
                if !changed.is_empty() {
                    tracing::info!("{} files changed on disk", changed.len());
                    on_change(&changed);
                }
            }
        })
        .map_err(notify::Error::io)?;
    Ok(Watcher { _watcher: watcher })
}

/// Whether an event may have changed what a path holds: not a mere open, read or close after
/// reading (closing after a write still counts).
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match kind {
        notify::EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        notify::EventKind::Access(_) => false,
        _ => true,
    }
}

fn ignored(root: &Path, path: &Path, gitignore: &ignore::gitignore::Gitignore) -> bool {
    let Ok(inside) = path.strip_prefix(root) else {
        return true;
    };
    if inside
        .components()
        .any(|component| component.as_os_str().to_string_lossy().starts_with('.'))
    {
        return true;
    }
    gitignore
        .matched_path_or_any_parents(inside, path.is_dir())
        .is_ignore()
}

/// Refreshes what `path` holds now; returns the graph paths refreshed.
fn apply(world: &World, path: &Path) -> Vec<String> {
    let Some(relative) = relative_path(world.root(), path) else {
        return Vec::new();
    };
    let is_symlink = path
        .symlink_metadata()
        .is_ok_and(|metadata| metadata.file_type().is_symlink());
    if is_symlink && let SymlinkTarget::Skip(reason) = symlink_target(world.root(), path) {
        tracing::warn!("{relative}: {reason}");
        // What the graph had there (a file replaced by the symlink) goes.
        return drop_under(world, &relative);
    }
    if !is_symlink && path.is_dir() {
        // Moved in whole: no event for the files inside. Symlinks inside follow the same rule.
        let mut refreshed = Vec::new();
        for entry in ignore::WalkBuilder::new(path)
            .follow_links(false)
            .build()
            .flatten()
        {
            let readable = match entry.file_type() {
                Some(kind) if kind.is_file() => true,
                Some(kind) if kind.is_symlink() => matches!(
                    symlink_target(world.root(), entry.path()),
                    SymlinkTarget::File
                ),
                _ => false,
            };
            if readable
                && Language::from_path(entry.path()).is_some()
                && let Some(inner) = relative_path(world.root(), entry.path())
            {
                world.refresh_from_disk(&inner);
                refreshed.push(inner);
            }
        }
        return refreshed;
    }
    if Language::from_path(path).is_some() || crate::world::manifests::is_manifest(&relative) {
        world.refresh_from_disk(&relative);
        return vec![relative];
    }
    if path.exists() {
        return Vec::new();
    }
    // Gone, and not a source file: maybe a directory; drop every file the graph has under it.
    drop_under(world, &relative)
}

/// Takes out of the graph the file at `relative` and every file under it; returns them.
fn drop_under(world: &World, relative: &str) -> Vec<String> {
    let prefix = format!("{relative}/");
    let graph = world.snapshot();
    let under: Vec<String> = graph
        .files()
        .filter(|file| &*file.path == relative || file.path.starts_with(&prefix))
        .map(|file| file.path.to_string())
        .collect();
    for file in &under {
        world.refresh_from_disk(file);
    }
    under
}
