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
//!
//! With inotify (Linux) each directory is watched on its own, found by the workspace walk's
//! rules (ignored and hidden directories are not watched), and a directory that appears while
//! serving is added: notify's recursive mode gives up on the whole tree when one directory
//! cannot be watched (unreadable, or past the inotify limit). A directory that cannot be
//! watched or read, and a symlink that is not followed, is logged once, not at every event.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Weak};
use std::time::Duration;

use notify::{RecursiveMode, Watcher as _, WatcherKind};
use parking_lot::Mutex;

use super::World;
use super::walk::{SymlinkTarget, relative_path, symlink_target};
use codegraph_lang::Language;

/// How long the file system must be quiet before a batch of changes is applied.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// Watches while it lives; dropping it stops the watch and its thread.
pub struct Watcher {
    _watcher: Arc<Mutex<notify::RecommendedWatcher>>,
}

/// Starts watching `world`'s root. `on_change` runs after every applied batch, with the graph
/// paths that were refreshed (for example to notify subscribed clients).
pub fn watch(
    world: Arc<World>,
    on_change: impl Fn(&[String]) + Send + 'static,
) -> notify::Result<Watcher> {
    let (sender, receiver) = channel::<PathBuf>();
    let watcher = notify::RecommendedWatcher::new(
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
    let watcher = Arc::new(Mutex::new(watcher));
    let root = world.root().to_path_buf();
    let mut tracker = Tracker {
        // The thread must not keep the watcher alive: dropping [`Watcher`] ends it.
        watcher: Arc::downgrade(&watcher),
        per_directory: notify::RecommendedWatcher::kind() == WatcherKind::Inotify,
        reported: HashSet::new(),
    };
    if tracker.per_directory {
        tracker.watch_tree(&root);
    } else {
        watcher.lock().watch(&root, RecursiveMode::Recursive)?;
    }
    let (gitignore, _) = ignore::gitignore::Gitignore::new(root.join(".gitignore"));
    std::thread::Builder::new()
        .name("codegraph-watch".to_string())
        // It applies the changes: extraction and resolution (`walk::STACK_SIZE`).
        .stack_size(codegraph_model::walk::STACK_SIZE)
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
                    changed.extend(tracker.apply(&world, &path));
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

/// What the watch thread keeps between batches.
struct Tracker {
    watcher: Weak<Mutex<notify::RecommendedWatcher>>,
    /// Each directory gets its own watch (inotify); otherwise the root is watched recursively.
    per_directory: bool,
    /// Paths already logged as not watched or not followed.
    reported: HashSet<PathBuf>,
}

impl Tracker {
    /// Logs `message` about `path` unless something was already logged about it.
    fn report_once(&mut self, path: &Path, message: std::fmt::Arguments) {
        if self.reported.insert(path.to_path_buf()) {
            tracing::warn!("file watcher: {message}");
        }
    }

    /// Watches `directory` and every directory below it that the workspace walk enters; one
    /// that cannot be watched or read is logged and left out, the others are watched.
    fn watch_tree(&mut self, directory: &Path) {
        let Some(watcher) = self.watcher.upgrade() else {
            return;
        };
        walk_tree(directory, |entry| match entry {
            Ok(entry) => {
                if entry.file_type().is_some_and(|kind| kind.is_dir())
                    && let Err(error) = watcher
                        .lock()
                        .watch(entry.path(), RecursiveMode::NonRecursive)
                {
                    self.report_once(
                        entry.path(),
                        format_args!("not watching {}: {error}", entry.path().display()),
                    );
                }
            }
            Err((path, error)) => match path {
                Some(path) => self.report_once(
                    &path,
                    format_args!("not watching {}: {error}", path.display()),
                ),
                None => tracing::warn!("file watcher: {error}"),
            },
        });
    }

    /// Refreshes what `path` holds now; returns the graph paths refreshed.
    fn apply(&mut self, world: &World, path: &Path) -> Vec<String> {
        let Some(relative) = relative_path(world.root(), path) else {
            return Vec::new();
        };
        let is_symlink = path
            .symlink_metadata()
            .is_ok_and(|metadata| metadata.file_type().is_symlink());
        if is_symlink && let SymlinkTarget::Skip(reason) = symlink_target(world.root(), path) {
            self.report_once(path, format_args!("{relative}: {reason}"));
            // What the graph had there (a file replaced by the symlink) goes.
            return drop_under(world, &relative);
        }
        if !is_symlink && path.is_dir() {
            // Made or moved in: watch it, and read its files (no event came for the files a
            // directory held when it was moved in, or that were written before its watch).
            if self.per_directory {
                self.watch_tree(path);
            }
            let mut refreshed = Vec::new();
            walk_tree(path, |entry| {
                let Ok(entry) = entry else {
                    return;
                };
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
            });
            return refreshed;
        }
        if Language::from_path(path).is_some() || crate::manifests::is_manifest(&relative) {
            world.refresh_from_disk(&relative);
            return vec![relative];
        }
        if path.exists() {
            return Vec::new();
        }
        // Gone, and not a source file: maybe a directory; drop every file the graph has under it.
        drop_under(world, &relative)
    }
}

/// Walks `directory` by the workspace walk's rules (ignore files, no hidden entries, no symlink
/// followed); an error comes with the path it is about, when it names one.
fn walk_tree(
    directory: &Path,
    mut visit: impl FnMut(Result<&ignore::DirEntry, (Option<PathBuf>, &ignore::Error)>),
) {
    let walker = ignore::WalkBuilder::new(directory)
        .follow_links(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".codegraph" && entry.file_name() != ".git")
        .build();
    for entry in walker {
        match &entry {
            Ok(entry) => visit(Ok(entry)),
            Err(error) => visit(Err((error_path(error), error))),
        }
    }
}

/// The path an error of the walk is about.
fn error_path(error: &ignore::Error) -> Option<PathBuf> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
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
