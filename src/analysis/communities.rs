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

use super::leiden::{self, WeightedGraph};
use super::text;
use crate::graph::{EntityId, Graph, materialize};
use crate::model::{EntityKind, RelationKind};

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
    /// Its dominant directory and top identifiers, e.g. `shop/auth: AuthService, issue_token`.
    pub name: String,
    /// An extractive summary: main entities, dependencies both ways, key docstrings.
    pub summary: String,
    /// The directory most of its members live in (`.` for the root).
    pub directory: String,
    pub member_count: usize,
    /// Members, highest PageRank first.
    pub members: Vec<EntityId>,
    /// The community one level up that contains this one.
    pub parent: Option<u32>,
    /// Communities at the same level this one depends on, with the weight of the edges.
    pub depends_on: Vec<(u32, f64)>,
    /// Communities at the same level that depend on this one.
    pub used_by: Vec<(u32, f64)>,
    /// The most frequent words of its members' names.
    pub keywords: Vec<String>,
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
        crate::cancel::checkpoint();
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

/// Computes the communities of a snapshot.
pub fn compute(graph: &Graph) -> Communities {
    let started = Instant::now();
    let mut ids: Vec<EntityId> = Vec::with_capacity(graph.entity_count());
    let mut index_of: FxHashMap<EntityId, u32> = FxHashMap::default();
    for file in graph.files() {
        crate::cancel::checkpoint();
        for id in std::iter::once(&file.module_id).chain(file.ids.iter()) {
            if !index_of.contains_key(id) {
                index_of.insert(id.clone(), ids.len() as u32);
                ids.push(id.clone());
            }
        }
    }
    let mut undirected: Vec<(u32, u32, f64)> = Vec::new();
    let mut dependencies: Vec<(u32, u32)> = Vec::new();
    for (step, edge) in graph.all_edges().enumerate() {
        crate::cancel::checkpoint_every(step);
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
    let ranks = pagerank(ids.len(), &dependencies);

    // Partitions of the entity nodes, one per level.
    let mut partitions: Vec<Vec<u32>> = Vec::with_capacity(LEVELS);
    let mut current_graph = entity_graph.clone();
    let mut to_current: Vec<u32> = (0..ids.len() as u32).collect();
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

    // Number the communities: per level, largest first, then by smallest member id.
    let mut communities: Vec<Community> = Vec::new();
    let mut numbering: Vec<FxHashMap<u32, u32>> = Vec::new();
    let mut levels = Vec::new();
    for (level, partition) in partitions.iter().enumerate() {
        let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (node, &community) in partition.iter().enumerate() {
            groups.entry(community).or_default().push(node as u32);
        }
        let mut groups: Vec<(u32, Vec<u32>)> = groups.into_iter().collect();
        for (_, members) in &mut groups {
            members.sort_by(|&left, &right| {
                ranks[right as usize]
                    .total_cmp(&ranks[left as usize])
                    .then_with(|| ids[left as usize].cmp(&ids[right as usize]))
            });
        }
        groups.sort_by(|left, right| {
            right.1.len().cmp(&left.1.len()).then_with(|| {
                let smallest =
                    |members: &[u32]| members.iter().map(|&m| &ids[m as usize]).min().cloned();
                smallest(&left.1).cmp(&smallest(&right.1))
            })
        });
        let mut map = FxHashMap::default();
        let nontrivial_count = groups
            .iter()
            .filter(|(_, members)| members.len() > 1)
            .count();
        for (raw, members) in &groups {
            let id = communities.len() as u32;
            map.insert(*raw, id);
            communities.push(Community {
                id,
                level: level as u8,
                name: String::new(),
                summary: String::new(),
                directory: String::new(),
                member_count: members.len(),
                members: members.iter().map(|&m| ids[m as usize].clone()).collect(),
                parent: None,
                depends_on: Vec::new(),
                used_by: Vec::new(),
                keywords: Vec::new(),
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
        membership.insert(id.clone(), at);
    }
    for at in membership.values() {
        for level in 0..LEVELS - 1 {
            communities[at[level] as usize].parent = Some(at[level + 1]);
        }
    }
    // Dependencies between communities of a level.
    let mut between: FxHashMap<(u32, u32), f64> = FxHashMap::default();
    for &(from, to) in &dependencies {
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
        .map(|(node, id)| (id.clone(), ranks[node]))
        .collect();
    for community in &mut communities {
        crate::cancel::checkpoint();
        describe_members(graph, community);
    }
    let names: Vec<String> = communities.iter().map(|c| c.name.clone()).collect();
    for community in &mut communities {
        crate::cancel::checkpoint();
        community.summary = summarise(graph, community, &names);
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

fn directory_of(path: &str) -> &str {
    path.rsplit_once('/')
        .map_or(".", |(directory, _)| directory)
}

/// The directory holding most members, its name, and keywords.
fn describe_members(graph: &Graph, community: &mut Community) {
    let mut directories: BTreeMap<&str, usize> = BTreeMap::new();
    let mut words: BTreeMap<String, usize> = BTreeMap::new();
    for id in &community.members {
        let Some(location) = graph.location(id) else {
            continue;
        };
        *directories.entry(directory_of(&location.file)).or_default() += 1;
        let name = id.rsplit("::").next().unwrap_or(id);
        let name = name.rsplit(['.', '/']).next().unwrap_or(name);
        for word in text::split_words(name) {
            if word.len() >= 3 && !text::is_stop_word(&word) {
                *words.entry(word).or_default() += 1;
            }
        }
    }
    let mut directories: Vec<(&str, usize)> = directories.into_iter().collect();
    directories.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(right.0)));
    let directory = directories.first().map_or(".", |(directory, _)| directory);
    community.directory = directory.to_string();
    let mut keywords: Vec<(String, usize)> = words.into_iter().collect();
    keywords.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(&right.0)));
    community.keywords = keywords.into_iter().take(8).map(|(word, _)| word).collect();
    let mut top: Vec<String> = Vec::new();
    for id in &community.members {
        if graph.kind_of(id) == Some(EntityKind::Module) {
            continue;
        }
        let name = id.rsplit("::").next().unwrap_or(id).to_string();
        if !top.contains(&name) {
            top.push(name);
        }
        if top.len() == 3 {
            break;
        }
    }
    if top.is_empty() {
        top = community
            .members
            .iter()
            .take(2)
            .map(|id| id.rsplit('/').next().unwrap_or(id).to_string())
            .collect();
    }
    community.name = format!("{directory}: {}", top.join(", "));
}

fn summarise(graph: &Graph, community: &Community, names: &[String]) -> String {
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    for id in &community.members {
        if let Some(location) = graph.location(id) {
            *files.entry(&location.file).or_default() += 1;
        }
    }
    let mut file_list: Vec<(&str, usize)> = files.into_iter().collect();
    file_list.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(right.0)));
    let shown: Vec<&str> = file_list.iter().take(5).map(|(file, _)| *file).collect();
    let mut summary = format!(
        "{} entities in {} file{} under {} ({}{}).",
        community.member_count,
        file_list.len(),
        if file_list.len() == 1 { "" } else { "s" },
        community.directory,
        shown.join(", "),
        if file_list.len() > shown.len() {
            ", ..."
        } else {
            ""
        }
    );
    let main: Vec<String> = community
        .members
        .iter()
        .filter(|id| graph.kind_of(id) != Some(EntityKind::Module))
        .take(5)
        .filter_map(|id| {
            let location = graph.location(id)?;
            let file = graph.file(&location.file)?;
            let entity = materialize(file, location.index);
            Some(format!(
                "{} ({} at {}:{})",
                entity.id.rsplit("::").next().unwrap_or(&entity.name),
                entity.kind,
                entity.file_path,
                entity.start_line
            ))
        })
        .collect();
    if !main.is_empty() {
        summary.push_str(&format!(" Main entities: {}.", main.join(", ")));
    }
    let describe = |list: &[(u32, f64)]| -> String {
        list.iter()
            .take(3)
            .map(|(id, weight)| format!("#{id} {} ({} edges)", names[*id as usize], *weight as u64))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !community.depends_on.is_empty() {
        summary.push_str(&format!(
            " Depends on: {}.",
            describe(&community.depends_on)
        ));
    }
    if !community.used_by.is_empty() {
        summary.push_str(&format!(" Used by: {}.", describe(&community.used_by)));
    }
    let docs: Vec<String> = community
        .members
        .iter()
        .take(50)
        .filter_map(|id| {
            let location = graph.location(id)?;
            let file = graph.file(&location.file)?;
            let doc = materialize(file, location.index).docstring?;
            let first = doc.lines().map(str::trim).find(|line| !line.is_empty())?;
            Some(first.chars().take(160).collect::<String>())
        })
        .take(3)
        .collect();
    if !docs.is_empty() {
        summary.push_str(&format!(" Docs: \"{}\"", docs.join("\"; \"")));
    }
    summary
}
