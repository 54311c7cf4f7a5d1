//! The partitions of the entities at each level: Leiden over the production core, the other
//! code attached to it or partitioned among itself, each level nesting in the next.

use rustc_hash::FxHashMap;

use super::{Edges, LEVELS, Nodes, RESOLUTIONS, SEED, attach};
use crate::leiden::{self, WeightedGraph};
use codegraph_graph::Graph;

/// The partition of every node at each level: the production core by Leiden, everything else
/// attached to the core community it touches, and what touches no production code
/// partitioned among itself, numbered after the core's communities.
pub(super) fn level_partitions(graph: &Graph, nodes: &Nodes, edges: &Edges) -> Vec<Vec<u32>> {
    let node_count = nodes.count();
    // 1. The production core.
    let core: Vec<u32> = (0..node_count as u32)
        .filter(|&node| nodes.production[node as usize])
        .collect();
    let core_partitions = partitions_of_subgraph(node_count, &core, &edges.undirected);
    // 2. Everything else joins the community of the production code it touches.
    let attached = attach::attach(
        graph,
        &nodes.ids,
        &nodes.production,
        &edges.undirected,
        &core_partitions[0],
    );
    // 3. What touches no production code: communities of its own.
    let rest: Vec<u32> = (0..node_count as u32)
        .filter(|&node| {
            core_partitions[0][node as usize].is_none() && attached[node as usize].is_none()
        })
        .collect();
    let rest_partitions = partitions_of_subgraph(node_count, &rest, &edges.undirected);
    let core_parent = core_parents(&core, &core_partitions);
    (0..LEVELS)
        .map(|level| {
            let core_count = core
                .iter()
                .filter_map(|&node| core_partitions[level][node as usize])
                .max()
                .map_or(0, |max| max + 1);
            (0..node_count)
                .map(|node| {
                    if let Some(label) = core_partitions[level][node] {
                        label
                    } else if let Some(fine) = attached[node] {
                        core_parent[level][&fine]
                    } else {
                        core_count + rest_partitions[level][node].unwrap_or_default()
                    }
                })
                .collect()
        })
        .collect()
}

/// A level-0 core community's community at each level (levels nest).
fn core_parents(core: &[u32], core_partitions: &[Vec<Option<u32>>]) -> Vec<FxHashMap<u32, u32>> {
    let mut core_parent: Vec<FxHashMap<u32, u32>> = vec![FxHashMap::default(); LEVELS];
    for &node in core {
        let fine = core_partitions[0][node as usize].unwrap_or_default();
        for level in 0..LEVELS {
            core_parent[level].insert(
                fine,
                core_partitions[level][node as usize].unwrap_or_default(),
            );
        }
    }
    core_parent
}

/// Leiden at each resolution of [`RESOLUTIONS`], each level over the aggregate of the one
/// below: the partition of the nodes at each level (labels `0..count` per level).
fn nested_partitions(graph: &WeightedGraph) -> Vec<Vec<u32>> {
    let mut partitions: Vec<Vec<u32>> = Vec::with_capacity(LEVELS);
    let mut current_graph = graph.clone();
    let mut to_current: Vec<u32> = (0..graph.node_count() as u32).collect();
    for (level, resolution) in RESOLUTIONS.iter().enumerate() {
        let partition = leiden::leiden(&current_graph, *resolution, SEED + level as u64);
        let flat: Vec<u32> = to_current
            .iter()
            .map(|&node| partition[node as usize])
            .collect();
        let count = partition.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        current_graph = current_graph.aggregate(&partition, count);
        to_current = flat.clone();
        partitions.push(flat);
    }
    partitions
}

/// [`nested_partitions`] of the subgraph induced by `nodes`, mapped back onto all
/// `node_count` nodes (`None` outside the subgraph).
fn partitions_of_subgraph(
    node_count: usize,
    nodes: &[u32],
    edges: &[(u32, u32, f64)],
) -> Vec<Vec<Option<u32>>> {
    let mut local = vec![u32::MAX; node_count];
    for (position, &node) in nodes.iter().enumerate() {
        local[node as usize] = position as u32;
    }
    let inside: Vec<(u32, u32, f64)> = edges
        .iter()
        .filter_map(|&(from, to, weight)| {
            let (from, to) = (local[from as usize], local[to as usize]);
            (from != u32::MAX && to != u32::MAX).then_some((from, to, weight))
        })
        .collect();
    let subgraph = WeightedGraph::from_edges(nodes.len(), &inside);
    nested_partitions(&subgraph)
        .into_iter()
        .map(|partition| {
            let mut all = vec![None; node_count];
            for (position, &node) in nodes.iter().enumerate() {
                all[node as usize] = Some(partition[position]);
            }
            all
        })
        .collect()
}
