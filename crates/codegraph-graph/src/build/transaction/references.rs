//! Step 6 of a transaction (phase two): every reference of every affected file, in one parallel
//! pass over the files resolved whole, again by reference after their walk changed, or by
//! reference after an edit of references alone.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::walk::GuessedAgain;
use super::{PartialFile, Transaction};
use crate::resolve::{BaseEdge, Mentions, Reachable, Resolver, mentions};
use crate::{FileNode, FilePath, Graph, Resolved};

/// One file's resolution: whole; again by reference for a walk that changed (the references to
/// redo, the walk, the file's mentions); by reference for an edit of references alone (its old
/// node and mentions).
enum Job<'t> {
    Whole(FilePath),
    Again(GuessedAgain, Arc<Mentions>),
    Changed(FilePath, &'t PartialFile),
}

impl Job<'_> {
    fn path(&self) -> FilePath {
        match self {
            Job::Whole(path) | Job::Changed(path, _) => *path,
            Job::Again(guessed, _) => guessed.path,
        }
    }
}

/// What the resolutions of one transaction read besides the graph being made.
struct Resolving<'t> {
    graph: &'t Graph,
    /// The bases resolved in phase one, by file.
    phase_one: &'t FxHashMap<FilePath, Vec<BaseEdge>>,
    /// The packages the swapped files' imports reach, where still known.
    known: &'t FxHashMap<FilePath, Reachable>,
    /// The files swapped in a transaction of a few (an editor's documents).
    swapped: &'t FxHashSet<FilePath>,
    /// The mentions of the files swapped in a transaction of a few.
    mentioned: &'t FxHashMap<FilePath, Arc<Mentions>>,
}

/// A file's resolution, and the packages its imports reach when they are kept for its next
/// edit.
type Outcome = (Resolved, Option<Reachable>);

impl Transaction<'_> {
    /// Step 6 (phase two): every reference of every affected file.
    pub(in crate::build) fn resolve_references(
        &mut self,
        phase_one: &FxHashMap<FilePath, Vec<BaseEdge>>,
    ) -> Vec<(FilePath, Resolved)> {
        self.new_import_targets();
        let (walked_again, guessed_again) = self.walk_again();
        let (affected, partial) = self.whole_and_partial();
        tracing::trace!("resolved whole: {affected:?}");
        // The imports epoch this graph will have: the packages an edited file's imports
        // reach, computed at it, hold for it.
        let epoch = self.writer.imports_epoch + u64::from(self.imports_changed);
        let known = self.known_reachable(epoch);
        let again_mentions = self.walker_mentions(&guessed_again);
        // One parallel pass over every resolution, whole or by reference, so that a large file
        // resolved whole does not leave the other cores idle.
        let jobs: Vec<Job<'_>> = affected
            .iter()
            .map(|path| Job::Whole(*path))
            .chain(
                guessed_again
                    .into_iter()
                    .zip(again_mentions)
                    .map(|(guessed, found)| Job::Again(guessed, found)),
            )
            .chain(partial.iter().map(|(path, file)| Job::Changed(*path, file)))
            .collect();
        let resolving = Resolving {
            graph: &self.next,
            phase_one,
            known: &known,
            swapped: &self.swapped,
            mentioned: &self.new_mentions,
        };
        let results: Vec<(FilePath, Resolved, Option<Reachable>)> = jobs
            .into_par_iter()
            .with_max_len(1)
            .map(|job| resolving.run(job))
            .collect();
        let mut resolved = Vec::with_capacity(results.len());
        for (path, result, reachable) in results {
            if let Some(packages) = reachable {
                self.writer.remember_reachable(path, epoch, packages);
            }
            resolved.push((path, result));
        }
        self.report.resolved_files = resolved.len();
        resolved.extend(walked_again);
        self.resolved_at = self.started.elapsed();
        resolved
    }

    /// The files to resolve whole, and those of the reference-level path that nothing else
    /// widened in (whose old outcome of every reference that is still there is kept, and only
    /// the new ones resolved), each in path order.
    fn whole_and_partial(&mut self) -> (Vec<FilePath>, Vec<(FilePath, PartialFile)>) {
        let affected_set = std::mem::take(&mut self.affected);
        let mut partial: Vec<(FilePath, PartialFile)> = std::mem::take(&mut self.partial)
            .into_iter()
            .filter(|(path, _)| !affected_set.contains(path) && self.next.files.contains_key(path))
            .collect();
        partial.sort_by_key(|a| a.0);
        let mut affected: Vec<FilePath> = affected_set
            .into_iter()
            .filter(|path| self.next.files.contains_key(path))
            .collect();
        affected.sort();
        (affected, partial)
    }

    /// The packages the swapped files' imports reach, remembered at the imports epoch `epoch`.
    fn known_reachable(&self, epoch: u64) -> FxHashMap<FilePath, Reachable> {
        self.swapped
            .iter()
            .filter_map(|path| {
                let packages = self.writer.recent_reachable(path, epoch)?;
                Some((*path, packages))
            })
            .collect()
    }

    /// The mentions of the files resolved again by reference: remembered, else found now
    /// (in parallel, and only then: the next edit finds them all remembered).
    fn walker_mentions(&mut self, guessed_again: &[GuessedAgain]) -> Vec<Arc<Mentions>> {
        let aliases = self.next.aliases.clone();
        let remembered: Vec<Option<Arc<Mentions>>> = guessed_again
            .iter()
            .map(|guessed| {
                let summary = &self.next.files[&guessed.path].summary;
                self.writer
                    .walker_mentions(&guessed.path, summary, &aliases)
            })
            .collect();
        let missing: Vec<FilePath> = guessed_again
            .iter()
            .zip(&remembered)
            .filter(|(_, known)| known.is_none())
            .map(|(guessed, _)| guessed.path)
            .collect();
        let found: FxHashMap<FilePath, Arc<Mentions>> = if missing.is_empty() {
            FxHashMap::default()
        } else {
            missing
                .par_iter()
                .map(|path| {
                    let summary = &self.next.files[path].summary;
                    (*path, Arc::new(mentions(&aliases, path, summary)))
                })
                .collect()
        };
        for (path, computed) in &found {
            let summary = self.next.files[path].summary.clone();
            self.writer
                .remember_walker_mentions(*path, &summary, &aliases, computed.clone());
        }
        guessed_again
            .iter()
            .zip(remembered)
            .map(|(guessed, known)| known.unwrap_or_else(|| found[&guessed.path].clone()))
            .collect()
    }
}

impl Resolving<'_> {
    /// One file's resolution, contained (`contain`): a panic costs this file its edges, and
    /// the graph says so.
    fn run(&self, job: Job<'_>) -> (FilePath, Resolved, Option<Reachable>) {
        let path = job.path();
        let resolve = || match job {
            Job::Whole(path) => self.whole(&path),
            Job::Again(guessed, found) => self.again(guessed, &found),
            Job::Changed(path, partial) => self.changed(&path, partial),
        };
        let (mut result, reachable) =
            codegraph_model::contain::file(resolve).unwrap_or_else(|message| {
                let targets = self.graph.files[&path].resolved.import_targets.clone();
                (Resolved::failed(message, targets), None)
            });
        result.shrink_to_fit();
        (path, result, reachable)
    }

    /// A resolver of a file, knowing the packages its imports reach where they are known.
    fn resolver(&self, path: &FilePath) -> Resolver<'_> {
        Resolver::new(self.graph, &self.graph.files[path])
            .knowing_reachable(self.known.get(path).cloned())
    }

    /// The packages a swapped file's imports reach, kept for its next edit.
    fn kept(&self, path: &FilePath, resolver: &Resolver<'_>) -> Option<Reachable> {
        self.swapped
            .contains(path)
            .then(|| resolver.reachable())
            .flatten()
    }

    /// A file resolved whole.
    fn whole(&self, path: &FilePath) -> Outcome {
        let file: &FileNode = &self.graph.files[path];
        let resolving = self.resolver(path);
        let bases = match self.phase_one.get(path) {
            Some(bases) => bases.clone(),
            // Widened in by a base change: its own bases did not change.
            None => Resolver::new(self.graph, file).resolve_bases(),
        };
        let mentioned = self.mentioned.get(path).map(|mentions| &**mentions);
        let result = resolving.resolve_all_knowing(&bases, mentioned);
        (result, self.kept(path, &resolving))
    }

    /// A walker's guessing references resolved again on its new walk, else the file whole.
    fn again(&self, guessed: GuessedAgain, found: &Mentions) -> Outcome {
        let path = guessed.path;
        let file = &self.graph.files[&path];
        let resolving = Resolver::new(self.graph, file).knowing_reachable(Some(guessed.walk));
        match resolving.resolve_again(&file.resolved, &guessed.redo, found) {
            Some(result) => (result, self.kept(&path, &resolving)),
            None => self.whole(&path),
        }
    }

    /// An edited file's changed references resolved, else the file whole.
    fn changed(&self, path: &FilePath, partial: &PartialFile) -> Outcome {
        let resolving = self.resolver(path);
        match resolving.resolve_changed(&partial.old, &partial.mentions) {
            Some(result) => (result, self.kept(path, &resolving)),
            None => self.whole(path),
        }
    }
}
