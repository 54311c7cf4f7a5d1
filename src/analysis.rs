//! Analysis over a graph snapshot, protocol-agnostic: ranked search, communities (Leiden),
//! GraphRAG-style global and local search, refactoring suggestions, module-level views.
//!
//! Every function here is pure over a `&Graph`; [`Cache`] keeps the derived structures (the
//! search index, the communities, repository-wide facts) of the latest snapshot a reader asked
//! for, so they are computed lazily, off the edit path, and at most once per revision.

pub mod communities;
pub mod filter;
pub mod leiden;
pub mod modules;
pub mod rag;
pub mod refactor;
pub mod search;
pub mod text;
pub mod visibility;

use std::sync::Arc;

use parking_lot::Mutex;

use crate::graph::Graph;

/// The derived structures of the latest snapshot asked for. Each is computed on first use for a
/// revision, by the reader that needs it (never by the writer), and shared until the graph
/// changes; the search index is then updated file by file from the previous one.
///
/// Each structure has its own lock, so a long community computation does not hold up searches.
#[derive(Default)]
pub struct Cache {
    search: Mutex<Option<Arc<search::SearchIndex>>>,
    communities: Mutex<Option<Arc<communities::Communities>>>,
    facts: Mutex<Option<Arc<refactor::RepoFacts>>>,
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// The search index of `graph`.
    pub fn search_index(&self, graph: &Graph) -> Arc<search::SearchIndex> {
        let mut slot = self.search.lock();
        if let Some(index) = &*slot
            && index.revision() == graph.revision()
        {
            return index.clone();
        }
        let next = Arc::new(match &*slot {
            Some(previous) => previous.update(graph),
            None => search::SearchIndex::build(graph),
        });
        if slot
            .as_ref()
            .is_none_or(|previous| previous.revision() <= graph.revision())
        {
            *slot = Some(next.clone());
        }
        next
    }

    /// The communities of `graph`.
    pub fn communities(&self, graph: &Graph) -> Arc<communities::Communities> {
        let mut slot = self.communities.lock();
        if let Some(found) = &*slot
            && found.revision == graph.revision()
        {
            return found.clone();
        }
        let computed = Arc::new(communities::compute(graph));
        if slot
            .as_ref()
            .is_none_or(|previous| previous.revision <= graph.revision())
        {
            *slot = Some(computed.clone());
        }
        computed
    }

    /// Repository-wide refactoring facts (import cycles, duplicates) of `graph`.
    pub fn repo_facts(&self, graph: &Graph) -> Arc<refactor::RepoFacts> {
        let mut slot = self.facts.lock();
        if let Some(found) = &*slot
            && found.revision == graph.revision()
        {
            return found.clone();
        }
        let computed = Arc::new(refactor::repo_facts(graph));
        if slot
            .as_ref()
            .is_none_or(|previous| previous.revision <= graph.revision())
        {
            *slot = Some(computed.clone());
        }
        computed
    }
}
