//! Facts that need the whole repository, computed once per snapshot: the import cycles between
//! files and the function bodies that are copies of each other.

use std::collections::BTreeSet;

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use codegraph_graph::{EntityId, FilePath, Graph};
use codegraph_model::{EntityKind, RelationKind};

/// Bodies shorter than this (non-blank lines) are not reported as duplicates.
const DUPLICATE_MIN_LINES: usize = 5;

/// Facts that need the whole repository, computed once per snapshot.
#[derive(Debug, Clone, Default)]
pub struct RepoFacts {
    pub revision: u64,
    /// Strongly connected components of the file import graph with more than one file, each with
    /// one concrete cycle through them (first file repeated at the end).
    pub import_cycles: Vec<ImportCycle>,
    /// Entity → every entity with the same normalised body (itself included, sorted), one
    /// list shared by the group: a repository of n copies costs n, not n².
    pub duplicates: FxHashMap<EntityId, std::sync::Arc<[EntityId]>>,
    /// Entities that some ambiguous reference might reach.
    pub maybe_referenced: FxHashSet<EntityId>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportCycle {
    pub files: Vec<FilePath>,
    pub cycle: Vec<FilePath>,
}

pub fn repo_facts(graph: &Graph) -> RepoFacts {
    let mut maybe_referenced = FxHashSet::default();
    for file in graph.files() {
        codegraph_model::cancel::checkpoint();
        for ambiguous in &file.resolved.ambiguous {
            maybe_referenced.extend(ambiguous.candidates.iter().cloned());
        }
    }
    RepoFacts {
        revision: graph.revision(),
        import_cycles: import_cycles(graph),
        duplicates: duplicate_bodies(graph),
        maybe_referenced,
    }
}

/// Import cycles between files: the strongly connected components of `file imports file` edges.
pub fn import_cycles(graph: &Graph) -> Vec<ImportCycle> {
    let files: Vec<FilePath> = graph.files().map(|file| file.path).collect();
    let index_of: FxHashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(index, path)| (&**path, index))
        .collect();
    let mut successors: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for file in graph.files() {
        let from = index_of[&*file.path];
        for edge in &file.resolved.edges {
            if edge.kind != RelationKind::Imports {
                continue;
            }
            if let Some(target) = graph.location(&edge.to)
                && let Some(&to) = index_of.get(&*target.file)
                && to != from
            {
                successors[from].insert(to);
            }
        }
    }
    let successors: Vec<Vec<usize>> = successors
        .into_iter()
        .map(|set| set.into_iter().collect())
        .collect();
    let mut cycles: Vec<ImportCycle> = cyclic_components(&successors)
        .into_iter()
        .map(|mut component| {
            component.sort_by(|&left, &right| files[left].cmp(&files[right]));
            let cycle = one_cycle(&successors, &component)
                .into_iter()
                .map(|node| files[node])
                .collect();
            ImportCycle {
                files: component.iter().map(|&node| files[node]).collect(),
                cycle,
            }
        })
        .collect();
    cycles.sort_by(|left, right| left.files.cmp(&right.files));
    cycles
}

/// The strongly connected components of more than one node (the cycles) of the graph whose node
/// `n` has the successors `successors[n]`, each component's nodes in ascending order.
///
/// petgraph's Kosaraju, which is iterative: a deep import chain must not overflow the stack (its
/// recursive `tarjan_scc` does on a chain of a million files).
pub(crate) fn cyclic_components(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut graph: DiGraph<(), (), u32> = DiGraph::with_capacity(successors.len(), 0);
    for _ in successors {
        graph.add_node(());
    }
    for (from, nexts) in successors.iter().enumerate() {
        for &to in nexts {
            graph.add_edge(NodeIndex::new(from), NodeIndex::new(to), ());
        }
    }
    kosaraju_scc(&graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut nodes: Vec<usize> = component.into_iter().map(NodeIndex::index).collect();
            nodes.sort_unstable();
            nodes
        })
        .collect()
}

/// A shortest cycle through the component's first node, staying inside the component.
fn one_cycle(successors: &[Vec<usize>], component: &[usize]) -> Vec<usize> {
    let inside: FxHashSet<usize> = component.iter().copied().collect();
    let start = component[0];
    let mut previous: FxHashMap<usize, usize> = FxHashMap::default();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &next in &successors[node] {
            if !inside.contains(&next) {
                continue;
            }
            if next == start {
                let mut back = Vec::new();
                let mut current = node;
                while current != start {
                    back.push(current);
                    current = previous[&current];
                }
                back.reverse();
                let mut forward = vec![start];
                forward.extend(back);
                forward.push(start);
                return forward;
            }
            if let std::collections::hash_map::Entry::Vacant(entry) = previous.entry(next) {
                entry.insert(node);
                queue.push_back(next);
            }
        }
    }
    vec![start]
}

/// Function bodies that are the same text once whitespace is removed (and the name, so that
/// copies under another name count).
fn duplicate_bodies(graph: &Graph) -> FxHashMap<EntityId, std::sync::Arc<[EntityId]>> {
    let mut by_hash: FxHashMap<blake3::Hash, Vec<EntityId>> = FxHashMap::default();
    for file in graph.files() {
        codegraph_model::cancel::checkpoint();
        // Read (from disk, for a file no editor has open) only if some body is long enough.
        let mut text: Option<Option<std::sync::Arc<str>>> = None;
        for (index, def) in file.summary.defs.iter().enumerate() {
            if !matches!(def.kind, EntityKind::Function | EntityKind::Method) || {
                let span = file.summary.locate(def.span);
                span.end.line.saturating_sub(span.start.line) + 1 < DUPLICATE_MIN_LINES as u32
            } {
                continue;
            }
            let Some(text) = text.get_or_insert_with(|| file.text()) else {
                break;
            };
            let start = def.name_span.end_byte.max(def.span.start_byte) as usize;
            let end = (def.span.end_byte as usize).min(text.len());
            let Some(body) = text.get(start..end) else {
                continue;
            };
            if body.lines().filter(|line| !line.trim().is_empty()).count() < DUPLICATE_MIN_LINES {
                continue;
            }
            let normalised: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            by_hash
                .entry(blake3::hash(normalised.as_bytes()))
                .or_default()
                .push(file.ids[index]);
        }
    }
    let mut duplicates = FxHashMap::default();
    for mut group in by_hash.into_values().filter(|group| group.len() > 1) {
        group.sort();
        let group: std::sync::Arc<[EntityId]> = group.into();
        for id in group.iter() {
            duplicates.insert(*id, group.clone());
        }
    }
    duplicates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strongly_connected_components_find_cycles() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3
        let successors = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![3]];
        let mut components = cyclic_components(&successors);
        components.sort();
        assert_eq!(components, [vec![0, 1, 2], vec![3, 4]]);
        assert_eq!(one_cycle(&successors, &[0, 1, 2]), [0, 1, 2, 0]);
        assert_eq!(one_cycle(&successors, &[3, 4]), [3, 4, 3]);
    }
}
