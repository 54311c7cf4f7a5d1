//! The walks through changed imports (part of step 6): the import targets of every affected
//! file are found first; a file whose targets changed makes the files whose reachable-packages
//! walk passed through it walk again, and each such walker keeps its resolution, has only its
//! guessing references resolved again, or is resolved whole.

use std::sync::Arc;
use std::time::Instant;

use codegraph_model::Name;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{PartialFile, Transaction};
use crate::build::TargetsByAddress;
use crate::resolve::{
    Reachable, import_targets, import_targets_by_address, is_walk_key, names_in_packages, walk_key,
    walk_reachable_in,
};
use crate::{FilePath, Graph, Resolved};

/// A walker's new walk, the packages it gained or lost, and whether it walked the same files.
struct Walked {
    walk: Reachable,
    changed_packages: Vec<&'static str>,
    same_files: bool,
}

/// A walker whose guessing references are resolved again: its path, their positions, and its
/// walk on the graph being made.
pub(super) struct GuessedAgain {
    pub(super) path: FilePath,
    pub(super) redo: Vec<u32>,
    pub(super) walk: Reachable,
}

/// What the walkers came to: the walks made (kept for the next transaction), the walkers that
/// keep their resolution with what the walk read now, and those resolved again by reference.
#[derive(Default)]
struct Settled {
    walks: FxHashMap<FilePath, Reachable>,
    kept: Vec<(FilePath, Resolved)>,
    again: Vec<GuessedAgain>,
}

/// What a walker's walks are made from, on the graph before and the graph being made.
struct Walks<'t> {
    before: &'t Graph,
    graph: &'t Graph,
    partial: &'t FxHashMap<FilePath, PartialFile>,
    /// The walks the last transaction made on the graph before.
    last_walks: &'t FxHashMap<FilePath, Reachable>,
    targets_now: &'t TargetsByAddress,
    targets_before: &'t TargetsByAddress,
}

impl Transaction<'_> {
    /// The import targets of every affected file, found now, so that the walks of this
    /// transaction's resolutions read them; a file whose targets changed (or that came or went)
    /// makes the files that walked through it walk again (`walk_again`).
    pub(super) fn new_import_targets(&mut self) {
        let graph = &self.next;
        let found: Vec<(FilePath, Arc<[FilePath]>)> = self
            .affected
            .par_iter()
            .filter_map(|path| {
                let node = graph.files.get(path)?;
                Some((*path, import_targets(graph, node)))
            })
            .collect();
        let mut walked_through: FxHashSet<Name> =
            self.removed_numbers.keys().map(walk_key).collect();
        for (path, targets) in found {
            let before = self
                .writer
                .graph
                .files
                .get(&path)
                .map(|node| node.resolved.import_targets.clone());
            if before.as_deref() != Some(&*targets) {
                walked_through.insert(walk_key(&path));
            }
            let node = &self.next.files[&path];
            if node.resolved.import_targets != targets {
                // Until it is resolved again, with the targets its resolution will find.
                let mut node = (**node).clone();
                node.resolved = Arc::new(Resolved {
                    import_targets: targets,
                    ..Resolved::default()
                });
                self.put_file(path, Arc::new(node));
            }
        }
        self.writer.add_mentioning(
            &self.next,
            (&FxHashSet::default(), &walked_through),
            None,
            &mut self.walkers,
        );
    }

    /// The files whose walk passed through a change and that nothing else widened in walk
    /// again (in parallel), on the graph before and after. A file keeps its resolution, with
    /// what the walk read now (`Resolved::extra_modules`' walk keys and `reachable`), when no
    /// package its walk gained or lost defines a name it guessed (`Resolved::guessed`): the
    /// walk's packages are read only by those guesses, which test only candidates of their
    /// name, so none changed visibility. Otherwise,
    /// or when the file's resolution read another file's walk (`reachable` 0), it joins the
    /// affected files, unless those guesses were made by references alone (not outside one,
    /// `Resolved::guessed_by`): then only those references are resolved again (returned with
    /// their positions; `Resolver::resolve_again`). An edited file of the reference-level path
    /// is resolved whole instead (it would replay its old walk).
    pub(super) fn walk_again(&mut self) -> (Vec<(FilePath, Resolved)>, Vec<GuessedAgain>) {
        let walkers = self.take_walkers();
        let started = Instant::now();
        let last_walks = self.last_walks_before();
        let (targets_now, targets_before) = self.walk_targets(&walkers, &last_walks);
        let mapped = started.elapsed();
        let count = walkers.len();
        let walks = Walks {
            before: &self.writer.graph,
            graph: &self.next,
            partial: &self.partial,
            last_walks: &last_walks,
            targets_now: &targets_now,
            targets_before: &targets_before,
        };
        let checked: Vec<(FilePath, Option<Walked>)> = walkers
            .into_par_iter()
            .map(|path| (path, walks.walk(path)))
            .collect();
        // The names the changed packages define, and the walkers that guessed one.
        let changed_packages = changed_packages(&self.next, &checked);
        let walked = started.elapsed();
        let names = if changed_packages.is_empty() {
            FxHashSet::default()
        } else {
            names_in_packages(&self.next, &changed_packages)
        };
        tracing::trace!(
            "walk again: {count} walkers; targets mapped {mapped:?}, walked {:?}, names of {} changed packages {:?}",
            walked - mapped,
            changed_packages.len(),
            started.elapsed() - walked
        );
        let mut settled = Settled::default();
        for (path, walked) in checked {
            self.settle(path, walked, &names, &mut settled);
        }
        // The walks are kept for the next transaction, whose graph before is the one being made.
        let made_on = self.writer.graph.revision + 1;
        self.writer.last_walks = (made_on, settled.walks);
        if !targets_now.is_empty() {
            self.writer.last_targets = (made_on, targets_now);
        }
        self.walking = started.elapsed();
        (settled.kept, settled.again)
    }

    /// The files that walk again: those whose walk passed through a change, still there, and
    /// not resolved whole anyway.
    fn take_walkers(&mut self) -> Vec<FilePath> {
        std::mem::take(&mut self.walkers)
            .into_iter()
            .filter(|path| !self.affected.contains(path) && self.next.files.contains_key(path))
            .collect()
    }

    /// The walks on the graph before, where the last transaction made them on it.
    fn last_walks_before(&mut self) -> FxHashMap<FilePath, Reachable> {
        let (made_on, last_walks) = std::mem::take(&mut self.writer.last_walks);
        if made_on == self.writer.graph.revision {
            last_walks
        } else {
            FxHashMap::default()
        }
    }

    /// The import targets the walks read: on the graph being made, and on the graph before
    /// where a walker's walk on it is not known; none without walkers.
    fn walk_targets(
        &mut self,
        walkers: &[FilePath],
        last_walks: &FxHashMap<FilePath, Reachable>,
    ) -> (TargetsByAddress, TargetsByAddress) {
        let all_known = walkers.iter().all(|path| last_walks.contains_key(path));
        let kept_targets = std::mem::take(&mut self.writer.last_targets);
        let targets_now = if walkers.is_empty() {
            FxHashMap::default()
        } else {
            self.targets_now(kept_targets)
        };
        let targets_before = if walkers.is_empty() || all_known {
            FxHashMap::default()
        } else {
            import_targets_by_address(&self.writer.graph)
        };
        (targets_now, targets_before)
    }

    /// Every file's import targets on the graph being made. Each walk reads up to hundreds of
    /// files' targets: looked up by address, not by comparing paths in the graph's ordered
    /// map. The map of the last transaction (`kept`), on the graph before, is brought up to
    /// date: only the affected files' targets can have changed (`new_import_targets`), and the
    /// removed files' are gone.
    fn targets_now(&self, (kept_on, kept): (u64, TargetsByAddress)) -> TargetsByAddress {
        let graph = &self.next;
        if kept_on != self.writer.graph.revision {
            return import_targets_by_address(graph);
        }
        let mut targets = kept;
        for path in self.removed_numbers.keys() {
            targets.remove(&path.addr());
        }
        for path in &self.affected {
            match graph.files.get(path) {
                Some(node) => {
                    targets.insert(path.addr(), node.resolved.import_targets.clone());
                }
                None => {
                    targets.remove(&path.addr());
                }
            }
        }
        debug_assert!(
            targets == import_targets_by_address(graph),
            "the kept import targets differ from the graph's"
        );
        targets
    }

    /// What a walker that walked again comes to: resolved whole (`affected`), its guessing
    /// references resolved again (`settled.again`), or its resolution kept with what the walk
    /// read now (`settled.kept`, unless that is what it recorded).
    fn settle(
        &mut self,
        path: FilePath,
        walked: Option<Walked>,
        names: &FxHashSet<Name>,
        settled: &mut Settled,
    ) {
        let Some(walked) = walked else {
            self.affected.insert(path);
            return;
        };
        let redo = if walked.changed_packages.is_empty() {
            Vec::new()
        } else {
            guessing(&self.next, &path, names)
        };
        if redo.last() == Some(&u32::MAX) {
            self.affected.insert(path);
        } else if !redo.is_empty() {
            self.report.guessed_again += 1;
            let walk = walked.walk.clone();
            settled.again.push(GuessedAgain { path, redo, walk });
        } else {
            self.report.walked_again += 1;
            let resolved = &self.next.files[&path].resolved;
            if let Some(next) = with_walk(resolved, &walked) {
                settled.kept.push((path, next));
            }
        }
        settled.walks.insert(path, walked.walk);
    }
}

impl Walks<'_> {
    /// A walker's walk again, on the graph being made, with what changed since its walk on
    /// the graph before; `None` where it must be resolved whole.
    fn walk(&self, path: FilePath) -> Option<Walked> {
        let node = &self.graph.files[&path];
        let old_node = self.before.files.get(&path)?;
        if self.partial.contains_key(&path) || node.resolved.reachable == 0 {
            return None;
        }
        let old_walk = match self.last_walks.get(&path) {
            Some(walk) => walk.clone(),
            None => walk_reachable_in(old_node, |path| {
                self.targets_before
                    .get(&path.addr())
                    .map(|targets| &**targets)
            }),
        };
        let walk = walk_reachable_in(node, |path| {
            self.targets_now.get(&path.addr()).map(|targets| &**targets)
        });
        if old_walk.fingerprint() != node.resolved.reachable {
            return None;
        }
        Some(Walked {
            changed_packages: walk.changed_packages(&old_walk),
            same_files: old_walk.same_files(&walk),
            walk,
        })
    }
}

/// The packages some walker's walk gained or lost, with the walker's language.
fn changed_packages(
    graph: &Graph,
    checked: &[(FilePath, Option<Walked>)],
) -> FxHashSet<(codegraph_lang::Language, String)> {
    checked
        .iter()
        .filter_map(|(path, walked)| {
            let walked = walked.as_ref()?;
            let language = graph.files[path].language;
            Some(
                walked
                    .changed_packages
                    .iter()
                    .map(move |package| (language, package.to_string())),
            )
        })
        .flatten()
        .collect()
}

/// The references of a walker that guessed one of `names` (the names the changed packages
/// define), by position; `u32::MAX` last when a guess was made outside any reference.
fn guessing(graph: &Graph, path: &FilePath, names: &FxHashSet<Name>) -> Vec<u32> {
    let resolved = &graph.files[path].resolved;
    if !resolved.guessed.iter().any(|name| names.contains(name)) {
        return Vec::new();
    }
    let mut positions: Vec<u32> = resolved
        .guessed_by
        .iter()
        .filter(|(_, name)| names.contains(name))
        .map(|(position, _)| *position)
        .collect();
    positions.dedup();
    positions
}

/// A walker's resolution with what its new walk read (its walk keys and `reachable`), when
/// that differs from what it recorded. The same files walked, to the same packages: what the
/// walk read is what the resolution recorded.
fn with_walk(resolved: &Resolved, walked: &Walked) -> Option<Resolved> {
    let walk = &walked.walk;
    if walked.same_files && walk.fingerprint() == resolved.reachable {
        return None;
    }
    let mut modules: Vec<Name> = resolved
        .extra_modules
        .iter()
        .filter(|key| !is_walk_key(key))
        .cloned()
        .chain(walk.modules().iter().cloned())
        .collect();
    modules.sort();
    modules.dedup();
    let reachable = walk.fingerprint();
    if modules == resolved.extra_modules && reachable == resolved.reachable {
        return None;
    }
    let mut next = resolved.clone();
    next.extra_modules = modules;
    next.reachable = reachable;
    Some(next)
}
