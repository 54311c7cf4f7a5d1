//! Analysis over a graph snapshot, protocol-agnostic: ranked search, communities (Leiden),
//! GraphRAG-style global and local search, refactoring suggestions, module-level views,
//! architecture rules (`rules`).
//!
//! Every function here is pure over a `&Graph`; [`Cache`] keeps the derived structures (the
//! search index, the communities, repository-wide facts) of the latest snapshot a reader asked
//! for, so they are computed lazily, off the edit path, and at most once per revision. Their
//! long loops have `cancel::checkpoint`s: a build stopped there is not kept, and the next
//! reader starts it again.

pub mod affected;
pub mod communities;
pub mod filter;
pub mod leiden;
pub mod modules;
pub mod rag;
pub mod refactor;
pub mod rules;
pub mod search;
pub mod text;
pub mod visibility;

use std::sync::Arc;

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use codegraph_graph::Graph;

/// The derived structures of the latest snapshot asked for. Each is computed on first use for a
/// revision, by the reader that needs it (never by the writer), and shared until the graph
/// changes; the search index is then updated file by file from the previous one.
///
/// Each structure has its own lock, so a long community computation does not hold up searches.
#[derive(Default)]
pub struct Cache {
    search: Slot<search::SearchIndex>,
    communities: Slot<communities::Communities>,
    facts: Slot<refactor::RepoFacts>,
    /// The architecture rules of the workspace and their incremental checker.
    rules: rules::Live,
    /// What change impact learnt of each file's words, kept while the file is unchanged.
    lexicon: affected::Lexicon,
}

/// One derived structure: the latest value computed, and (readable without the lock, so that
/// asking never waits or contends) the revision it belongs to.
struct Slot<T> {
    value: Mutex<Option<Arc<T>>>,
    /// The stored value's revision plus one; 0 while none is stored.
    ready: AtomicU64,
}

impl<T> Default for Slot<T> {
    fn default() -> Slot<T> {
        Slot {
            value: Mutex::new(None),
            ready: AtomicU64::new(0),
        }
    }
}

impl<T> Slot<T> {
    fn has(&self, revision: u64) -> bool {
        self.ready.load(Ordering::Acquire) == revision + 1
    }

    /// The value of `revision`: the stored one, or `build` from the stored one (of an older
    /// revision, or none), kept unless a newer one is stored.
    fn get(
        &self,
        revision: u64,
        revision_of: impl Fn(&T) -> u64,
        build: impl FnOnce(Option<&Arc<T>>) -> T,
    ) -> Arc<T> {
        let mut slot = self.value.lock();
        if let Some(value) = &*slot
            && revision_of(value) == revision
        {
            return value.clone();
        }
        let next = Arc::new(build(slot.as_ref()));
        if slot
            .as_ref()
            .is_none_or(|previous| revision_of(previous) <= revision)
        {
            *slot = Some(next.clone());
            self.ready.store(revision + 1, Ordering::Release);
        }
        next
    }
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// The architecture rules (`.codegraph/rules.toml`) and their checker, kept current.
    pub fn rules(&self) -> &rules::Live {
        &self.rules
    }

    /// The words of the files change impact has read ([`affected::Lexicon`]).
    pub fn lexicon(&self) -> &affected::Lexicon {
        &self.lexicon
    }

    /// Whether the search index of `graph`'s revision is built, so a search costs milliseconds.
    pub fn has_search_index(&self, graph: &Graph) -> bool {
        self.search.has(graph.revision())
    }

    /// Whether the communities of `graph`'s revision are computed.
    pub fn has_communities(&self, graph: &Graph) -> bool {
        self.communities.has(graph.revision())
    }

    /// Whether the repository-wide facts of `graph`'s revision are computed.
    pub fn has_repo_facts(&self, graph: &Graph) -> bool {
        self.facts.has(graph.revision())
    }

    /// The search index of `graph`.
    pub fn search_index(&self, graph: &Graph) -> Arc<search::SearchIndex> {
        self.search.get(
            graph.revision(),
            search::SearchIndex::revision,
            |previous| match previous {
                Some(previous) => previous.update(graph),
                None => search::SearchIndex::build(graph),
            },
        )
    }

    /// Starts this cache's search index from `base`'s, when `base` has one: the first search of
    /// a world derived from `base`'s (a worktree of the same repository) re-tokenises only the
    /// files whose text differs, and shares every other file's postings with `base`.
    pub fn seed_search(&self, base: &Cache) {
        let Some(index) = base.search.value.lock().clone() else {
            return;
        };
        let mut slot = self.search.value.lock();
        if slot.is_none() {
            // As of no revision: the first search updates it to its graph's.
            *slot = Some(Arc::new(index.rebased()));
        }
    }

    /// The communities of `graph`.
    pub fn communities(&self, graph: &Graph) -> Arc<communities::Communities> {
        self.communities.get(
            graph.revision(),
            |found| found.revision,
            |_| communities::compute(graph),
        )
    }

    /// Repository-wide refactoring facts (import cycles, duplicates) of `graph`.
    pub fn repo_facts(&self, graph: &Graph) -> Arc<refactor::RepoFacts> {
        self.facts.get(
            graph.revision(),
            |found| found.revision,
            |_| refactor::repo_facts(graph),
        )
    }
}
