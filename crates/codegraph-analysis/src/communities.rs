//! Communities of entities: Leiden over a weighted undirected graph of calls, imports, uses,
//! containment and inheritance, at three levels (0 fine, 1, 2 coarse), each named and summarised
//! from the code itself, with entities ranked by PageRank.
//!
//! Level 0 is Leiden at resolution 1 (plain modularity) over entities. Each coarser level
//! aggregates the level below (one node per community) and runs Leiden again at a lower
//! resolution, so communities only ever merge going up and the levels nest.

use std::collections::BTreeMap;
use std::time::Instant;

use rustc_hash::FxHashMap;
use serde::Serialize;

mod attach;
mod describe;

use super::leiden::{self, WeightedGraph};
use codegraph_graph::{EntityId, Graph};
use codegraph_model::{FileClass, RelationKind};

pub const LEVELS: usize = 3;
/// The resolution of each level: lower merges more.
const RESOLUTIONS: [f64; LEVELS] = [1.0, 0.4, 0.15];
const SEED: u64 = 0x5eed_c0de;

fn edge_weight(kind: RelationKind) -> f64 {
    match kind {
        // A file's definitions belong together more than any two callers do.
        RelationKind::Contains | RelationKind::Defines => 2.0,
        RelationKind::Calls | RelationKind::Imports => 1.0,
        RelationKind::Extends | RelationKind::Implements => 2.0,
        RelationKind::Uses => 0.5,
    }
}

/// Edges that make one entity depend on another (PageRank and "depends on" follow them).
pub fn is_dependency(kind: RelationKind) -> bool {
    matches!(
        kind,
        RelationKind::Calls
            | RelationKind::Imports
            | RelationKind::Uses
            | RelationKind::Extends
            | RelationKind::Implements
    )
}

/// One community at one level.
#[derive(Debug, Clone, Serialize)]
pub struct Community {
    /// Unique across levels.
    pub id: u32,
    pub level: u8,
    /// Its dominant production directory and most central entities, e.g.
    /// `shop/auth: AuthService, issue_token`.
    pub name: String,
    /// A paragraph, extractive: where it lives, its central entities with the first sentence
    /// of their docstrings, what it depends on and what uses it.
    pub summary: String,
    /// The deepest directory holding most of its production members (`.` for the root).
    pub directory: String,
    pub member_count: usize,
    /// Members from production code; the others (tests, examples, ...) were attached to it.
    pub production_count: usize,
    /// Members: production code first, each by PageRank (within production code), highest
    /// first.
    pub members: Vec<EntityId>,
    /// The community one level up that contains this one.
    pub parent: Option<u32>,
    /// Communities at the same level this one depends on, with the weight of the edges.
    pub depends_on: Vec<(u32, f64)>,
    /// Communities at the same level that depend on this one.
    pub used_by: Vec<(u32, f64)>,
    /// The most frequent words of its production members' names.
    pub keywords: Vec<String>,
    /// Its most central production entities (by the weight of their edges inside it, a
    /// method counting for its type), the ones it is named after.
    pub central: Vec<EntityId>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LevelInfo {
    pub level: u8,
    pub resolution: f64,
    /// Newman–Girvan modularity (resolution 1) of this level's partition of the entity graph.
    pub modularity: f64,
    pub community_count: usize,
    /// Communities with at least two members.
    pub nontrivial_count: usize,
}

/// Every community of a snapshot.
#[derive(Debug, Clone, Default)]
pub struct Communities {
    pub revision: u64,
    pub levels: Vec<LevelInfo>,
    /// Indexed by id.
    pub communities: Vec<Community>,
    /// Entity → its community id at each level.
    pub membership: FxHashMap<EntityId, [u32; LEVELS]>,
    pub pagerank: FxHashMap<EntityId, f64>,
    pub duration_ms: f64,
}

impl Communities {
    pub fn get(&self, id: u32) -> Option<&Community> {
        self.communities.get(id as usize)
    }

    pub fn community_of(&self, entity: &str, level: usize) -> Option<&Community> {
        let ids = self.membership.get(entity)?;
        self.get(ids[level.min(LEVELS - 1)])
    }

    /// The communities of one level, largest first.
    pub fn at_level(&self, level: usize) -> impl Iterator<Item = &Community> {
        self.communities
            .iter()
            .filter(move |community| community.level as usize == level)
    }

    pub fn rank(&self, entity: &str) -> f64 {
        self.pagerank.get(entity).copied().unwrap_or(0.0)
    }
}

/// PageRank over dependency edges (from the dependent to the dependency), damping 0.85.
fn pagerank(node_count: usize, edges: &[(u32, u32)]) -> Vec<f64> {
    if node_count == 0 {
        return Vec::new();
    }
    let mut out_degree = vec![0u32; node_count];
    for &(from, _) in edges {
        out_degree[from as usize] += 1;
    }
    let base = 1.0 / node_count as f64;
    let mut rank = vec![base; node_count];
    let mut next = vec![0.0; node_count];
    for _ in 0..30 {
        codegraph_model::cancel::checkpoint();
        let dangling: f64 = (0..node_count)
            .filter(|&node| out_degree[node] == 0)
            .map(|node| rank[node])
            .sum();
        let spread = (0.15 + 0.85 * dangling) * base;
        next.iter_mut().for_each(|value| *value = spread);
        for &(from, to) in edges {
            next[to as usize] += 0.85 * rank[from as usize] / out_degree[from as usize] as f64;
        }
        std::mem::swap(&mut rank, &mut next);
    }
    rank
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

/// Computes the communities of a snapshot: Leiden over production code, then every other
/// entity (tests, fixtures, examples, generated and vendored code) attached to the community
/// of the production code it exercises (`communities::attach`); what touches no production code
/// at all forms communities of its own, found by Leiden among themselves.
///
/// Tests call everything, so letting them into the partition glues unrelated production code
/// together and lends the result their names; attached afterwards, they only join.
pub fn compute(graph: &Graph) -> Communities {
    let started = Instant::now();
    let mut ids: Vec<EntityId> = Vec::with_capacity(graph.entity_count());
    let mut index_of: FxHashMap<EntityId, u32> = FxHashMap::default();
    for file in graph.files() {
        codegraph_model::cancel::checkpoint();
        for id in std::iter::once(&file.module_id).chain(file.ids.iter()) {
            if !index_of.contains_key(id) {
                index_of.insert(*id, ids.len() as u32);
                ids.push(*id);
            }
        }
    }
    let production: Vec<bool> = ids
        .iter()
        .map(|id| graph.class_of(id) == FileClass::Production)
        .collect();
    let mut undirected: Vec<(u32, u32, f64)> = Vec::new();
    let mut dependencies: Vec<(u32, u32)> = Vec::new();
    for (step, edge) in graph.all_edges().enumerate() {
        codegraph_model::cancel::checkpoint_every(step);
        let (Some(&from), Some(&to)) = (index_of.get(&edge.from), index_of.get(&edge.to)) else {
            continue;
        };
        if from == to {
            continue;
        }
        undirected.push((from, to, edge_weight(edge.kind)));
        if is_dependency(edge.kind) {
            dependencies.push((from, to));
        }
    }
    let entity_graph = WeightedGraph::from_edges(ids.len(), &undirected);
    // Centrality within production code; the others are ranked in the whole graph.
    let production_dependencies: Vec<(u32, u32)> = dependencies
        .iter()
        .copied()
        .filter(|&(from, to)| production[from as usize] && production[to as usize])
        .collect();
    let production_ranks = pagerank(ids.len(), &production_dependencies);
    let all_ranks = pagerank(ids.len(), &dependencies);
    let ranks: Vec<f64> = (0..ids.len())
        .map(|node| {
            if production[node] {
                production_ranks[node]
            } else {
                all_ranks[node]
            }
        })
        .collect();

    // 1. The production core.
    let core: Vec<u32> = (0..ids.len() as u32)
        .filter(|&node| production[node as usize])
        .collect();
    let core_partitions = partitions_of_subgraph(ids.len(), &core, &undirected);
    // 2. Everything else joins the community of the production code it touches.
    let attached = attach::attach(graph, &ids, &production, &undirected, &core_partitions[0]);
    // 3. What touches no production code: communities of its own.
    let rest: Vec<u32> = (0..ids.len() as u32)
        .filter(|&node| {
            core_partitions[0][node as usize].is_none() && attached[node as usize].is_none()
        })
        .collect();
    let rest_partitions = partitions_of_subgraph(ids.len(), &rest, &undirected);
    let mut partitions: Vec<Vec<u32>> = Vec::with_capacity(LEVELS);
    // A level-0 core community's community at each level (levels nest).
    let mut core_parent: Vec<FxHashMap<u32, u32>> = vec![FxHashMap::default(); LEVELS];
    for &node in &core {
        let fine = core_partitions[0][node as usize].unwrap_or_default();
        for level in 0..LEVELS {
            core_parent[level].insert(
                fine,
                core_partitions[level][node as usize].unwrap_or_default(),
            );
        }
    }
    for level in 0..LEVELS {
        let core_count = core
            .iter()
            .filter_map(|&node| core_partitions[level][node as usize])
            .max()
            .map_or(0, |max| max + 1);
        let partition: Vec<u32> = (0..ids.len())
            .map(|node| {
                if let Some(label) = core_partitions[level][node] {
                    label
                } else if let Some(fine) = attached[node] {
                    core_parent[level][&fine]
                } else {
                    core_count + rest_partitions[level][node].unwrap_or_default()
                }
            })
            .collect();
        partitions.push(partition);
    }

    // Number the communities: per level, most production members first, then largest, then
    // by smallest member id. Members: production first, each by rank.
    let mut communities: Vec<Community> = Vec::new();
    let mut numbering: Vec<FxHashMap<u32, u32>> = Vec::new();
    let mut levels = Vec::new();
    for (level, partition) in partitions.iter().enumerate() {
        let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (node, &community) in partition.iter().enumerate() {
            groups.entry(community).or_default().push(node as u32);
        }
        let mut groups: Vec<(u32, Vec<u32>, usize)> = groups
            .into_iter()
            .map(|(label, members)| {
                let count = members.iter().filter(|&&m| production[m as usize]).count();
                (label, members, count)
            })
            .collect();
        for (_, members, _) in &mut groups {
            members.sort_by(|&left, &right| {
                production[right as usize]
                    .cmp(&production[left as usize])
                    .then_with(|| ranks[right as usize].total_cmp(&ranks[left as usize]))
                    .then_with(|| ids[left as usize].cmp(&ids[right as usize]))
            });
        }
        groups.sort_by(|left, right| {
            right
                .2
                .cmp(&left.2)
                .then_with(|| right.1.len().cmp(&left.1.len()))
                .then_with(|| {
                    let smallest =
                        |members: &[u32]| members.iter().map(|&m| &ids[m as usize]).min().cloned();
                    smallest(&left.1).cmp(&smallest(&right.1))
                })
        });
        let mut map = FxHashMap::default();
        let nontrivial_count = groups
            .iter()
            .filter(|(_, members, _)| members.len() > 1)
            .count();
        for (raw, members, production_count) in &groups {
            let id = communities.len() as u32;
            map.insert(*raw, id);
            communities.push(Community {
                id,
                level: level as u8,
                name: String::new(),
                summary: String::new(),
                directory: String::new(),
                member_count: members.len(),
                production_count: *production_count,
                members: members.iter().map(|&m| ids[m as usize]).collect(),
                parent: None,
                depends_on: Vec::new(),
                used_by: Vec::new(),
                keywords: Vec::new(),
                central: Vec::new(),
            });
        }
        levels.push(LevelInfo {
            level: level as u8,
            resolution: RESOLUTIONS[level],
            modularity: entity_graph.modularity(partition, 1.0),
            community_count: groups.len(),
            nontrivial_count,
        });
        numbering.push(map);
    }
    let mut membership: FxHashMap<EntityId, [u32; LEVELS]> = FxHashMap::default();
    for (node, id) in ids.iter().enumerate() {
        let mut at = [0u32; LEVELS];
        for level in 0..LEVELS {
            at[level] = numbering[level][&partitions[level][node]];
        }
        membership.insert(*id, at);
    }
    for at in membership.values() {
        for level in 0..LEVELS - 1 {
            communities[at[level] as usize].parent = Some(at[level + 1]);
        }
    }
    // Dependencies between communities of a level, counted over production code.
    let mut between: FxHashMap<(u32, u32), f64> = FxHashMap::default();
    for &(from, to) in &production_dependencies {
        let (from_at, to_at) = (
            &membership[&ids[from as usize]],
            &membership[&ids[to as usize]],
        );
        for level in 0..LEVELS {
            if from_at[level] != to_at[level] {
                *between.entry((from_at[level], to_at[level])).or_default() += 1.0;
            }
        }
    }
    let mut between: Vec<((u32, u32), f64)> = between.into_iter().collect();
    between.sort_by(|left, right| {
        right
            .1
            .total_cmp(&left.1)
            .then_with(|| left.0.cmp(&right.0))
    });
    for ((from, to), weight) in between {
        communities[from as usize].depends_on.push((to, weight));
        communities[to as usize].used_by.push((from, weight));
    }
    let pagerank: FxHashMap<EntityId, f64> = ids
        .iter()
        .enumerate()
        .map(|(node, id)| (*id, ranks[node]))
        .collect();
    // Centrality inside each community: the weight of a member's edges to other members.
    let mut internal: Vec<FxHashMap<u32, f64>> = vec![FxHashMap::default(); communities.len()];
    for &(from, to, weight) in &undirected {
        if !production[from as usize] || !production[to as usize] {
            continue;
        }
        let (from_at, to_at) = (
            &membership[&ids[from as usize]],
            &membership[&ids[to as usize]],
        );
        for level in 0..LEVELS {
            if from_at[level] == to_at[level] {
                let community = &mut internal[from_at[level] as usize];
                *community.entry(from).or_default() += weight;
                *community.entry(to).or_default() += weight;
            }
        }
    }
    let context = describe::Context {
        graph,
        ids: &ids,
        index_of: &index_of,
        production: &production,
        ranks: &ranks,
    };
    for (community, internal) in communities.iter_mut().zip(&internal) {
        codegraph_model::cancel::checkpoint();
        describe::describe_members(&context, community, internal);
    }
    let names: Vec<String> = communities.iter().map(|c| c.name.clone()).collect();
    for community in &mut communities {
        codegraph_model::cancel::checkpoint();
        community.summary = describe::summarise(graph, community, &names);
    }
    Communities {
        revision: graph.revision(),
        levels,
        communities,
        membership,
        pagerank,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}
