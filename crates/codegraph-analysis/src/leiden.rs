//! The Leiden algorithm (Traag, Waltman & van Eck 2019) for modularity with a resolution
//! parameter, over a weighted undirected graph, deterministic for a given seed.
//!
//! Each pass: (1) move nodes fast between communities (a queue of nodes whose neighbourhood
//! changed); (2) refine: inside each community, start from singletons and merge a node only into
//! a well-connected sub-community it has an edge to, so every refined community is connected;
//! (3) aggregate the refined communities into nodes, starting the next pass from the unrefined
//! partition. It stops when a pass moves nothing.
//!
//! One deviation from the paper: the refinement picks the best merge (the paper's randomness
//! parameter θ → 0) rather than sampling; the node order is still a seeded shuffle.

/// A weighted undirected graph in compressed adjacency form. Self-loops (the internal weight of
/// an aggregated node) are kept apart.
#[derive(Debug, Clone, Default)]
pub struct WeightedGraph {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
    weights: Vec<f64>,
    self_loops: Vec<f64>,
    /// Weighted degree; a self-loop counts twice.
    degrees: Vec<f64>,
    /// Sum of all degrees (2m).
    total_degree: f64,
}

impl WeightedGraph {
    /// Builds from undirected edges; parallel edges are summed, `(a, a, w)` is a self-loop.
    pub fn from_edges(node_count: usize, edges: &[(u32, u32, f64)]) -> WeightedGraph {
        let mut self_loops = vec![0.0; node_count];
        let mut counts = vec![0usize; node_count];
        for &(from, to, _) in edges {
            if from != to {
                counts[from as usize] += 1;
                counts[to as usize] += 1;
            }
        }
        let mut offsets = vec![0usize; node_count + 1];
        for node in 0..node_count {
            offsets[node + 1] = offsets[node] + counts[node];
        }
        let mut fill = offsets.clone();
        let mut neighbours = vec![0u32; offsets[node_count]];
        let mut weights = vec![0.0; offsets[node_count]];
        for &(from, to, weight) in edges {
            if from == to {
                self_loops[from as usize] += weight;
                continue;
            }
            for (a, b) in [(from, to), (to, from)] {
                let slot = fill[a as usize];
                neighbours[slot] = b;
                weights[slot] = weight;
                fill[a as usize] += 1;
            }
        }
        // Sort each adjacency list and merge parallel edges, for determinism and speed.
        let mut merged_offsets = vec![0usize; node_count + 1];
        let mut merged_neighbours = Vec::with_capacity(neighbours.len());
        let mut merged_weights = Vec::with_capacity(weights.len());
        let mut pairs: Vec<(u32, f64)> = Vec::new();
        for node in 0..node_count {
            pairs.clear();
            pairs.extend(
                (offsets[node]..offsets[node + 1]).map(|slot| (neighbours[slot], weights[slot])),
            );
            pairs.sort_by_key(|pair| pair.0);
            for &(neighbour, weight) in &pairs {
                if merged_neighbours.len() > merged_offsets[node]
                    && *merged_neighbours.last().expect("non-empty") == neighbour
                {
                    *merged_weights.last_mut().expect("non-empty") += weight;
                } else {
                    merged_neighbours.push(neighbour);
                    merged_weights.push(weight);
                }
            }
            merged_offsets[node + 1] = merged_neighbours.len();
        }
        let mut graph = WeightedGraph {
            offsets: merged_offsets,
            neighbours: merged_neighbours,
            weights: merged_weights,
            self_loops,
            degrees: Vec::new(),
            total_degree: 0.0,
        };
        graph.degrees = (0..node_count)
            .map(|node| {
                graph
                    .neighbours_of(node as u32)
                    .map(|(_, weight)| weight)
                    .sum::<f64>()
                    + 2.0 * graph.self_loops[node]
            })
            .collect();
        graph.total_degree = graph.degrees.iter().sum();
        graph
    }

    pub fn node_count(&self) -> usize {
        self.degrees.len()
    }

    pub fn neighbours_of(&self, node: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        let range = self.offsets[node as usize]..self.offsets[node as usize + 1];
        self.neighbours[range.clone()]
            .iter()
            .copied()
            .zip(self.weights[range].iter().copied())
    }

    pub fn degree(&self, node: u32) -> f64 {
        self.degrees[node as usize]
    }

    pub fn total_degree(&self) -> f64 {
        self.total_degree
    }

    /// The graph whose nodes are the communities of `partition` (numbered `0..count`).
    pub fn aggregate(&self, partition: &[u32], count: usize) -> WeightedGraph {
        let mut edges: Vec<(u32, u32, f64)> = Vec::new();
        for node in 0..self.node_count() as u32 {
            let community = partition[node as usize];
            if self.self_loops[node as usize] > 0.0 {
                edges.push((community, community, self.self_loops[node as usize]));
            }
            for (neighbour, weight) in self.neighbours_of(node) {
                // Each undirected edge is seen from both ends; keep one.
                if neighbour < node {
                    continue;
                }
                edges.push((community, partition[neighbour as usize], weight));
            }
        }
        WeightedGraph::from_edges(count, &edges)
    }

    /// Modularity of a partition, with resolution `resolution` (1 = Newman–Girvan).
    pub fn modularity(&self, partition: &[u32], resolution: f64) -> f64 {
        if self.total_degree == 0.0 {
            return 0.0;
        }
        let count = partition.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut internal = vec![0.0; count];
        let mut degree = vec![0.0; count];
        for node in 0..self.node_count() as u32 {
            let community = partition[node as usize] as usize;
            degree[community] += self.degree(node);
            internal[community] += 2.0 * self.self_loops[node as usize];
            for (neighbour, weight) in self.neighbours_of(node) {
                if partition[neighbour as usize] as usize == community {
                    internal[community] += weight;
                }
            }
        }
        let m2 = self.total_degree;
        (0..count)
            .map(|community| {
                internal[community] / m2 - resolution * (degree[community] / m2).powi(2)
            })
            .sum()
    }
}

/// A small deterministic generator (SplitMix64); enough for shuffling node orders.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut value = self.0;
        value = (value ^ (value >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        value = (value ^ (value >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        value ^ (value >> 31)
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for index in (1..items.len()).rev() {
            let other = (self.next() % (index as u64 + 1)) as usize;
            items.swap(index, other);
        }
    }
}

/// Renumbers communities `0..count` in order of first appearance; returns the count.
fn renumber(partition: &mut [u32]) -> usize {
    let mut map: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
    for community in partition.iter_mut() {
        let next = map.len() as u32;
        *community = *map.entry(*community).or_insert(next);
    }
    map.len()
}

/// Scratch space for summing the weights from one node to each community.
struct Neighbourhood {
    weight_to: Vec<f64>,
    touched: Vec<u32>,
}

impl Neighbourhood {
    fn new(size: usize) -> Neighbourhood {
        Neighbourhood {
            weight_to: vec![0.0; size],
            touched: Vec::new(),
        }
    }

    fn add(&mut self, community: u32, weight: f64) {
        if self.weight_to[community as usize] == 0.0 {
            self.touched.push(community);
        }
        self.weight_to[community as usize] += weight;
    }

    fn clear(&mut self) {
        for community in self.touched.drain(..) {
            self.weight_to[community as usize] = 0.0;
        }
    }
}

/// Phase 1: the fast local moving of nodes. Returns whether anything moved.
fn move_nodes(
    graph: &WeightedGraph,
    partition: &mut [u32],
    resolution: f64,
    random: &mut Random,
) -> bool {
    let node_count = graph.node_count();
    let m2 = graph.total_degree();
    let mut community_degree = vec![0.0; node_count];
    let mut community_size = vec![0u32; node_count];
    for node in 0..node_count {
        community_degree[partition[node] as usize] += graph.degree(node as u32);
        community_size[partition[node] as usize] += 1;
    }
    let mut empty: Vec<u32> = (0..node_count as u32)
        .filter(|&community| community_size[community as usize] == 0)
        .collect();
    let mut order: Vec<u32> = (0..node_count as u32).collect();
    random.shuffle(&mut order);
    let mut queue: std::collections::VecDeque<u32> = order.into_iter().collect();
    let mut queued = vec![true; node_count];
    let mut neighbourhood = Neighbourhood::new(node_count);
    let mut moved = false;
    let mut step = 0usize;
    while let Some(node) = queue.pop_front() {
        step += 1;
        codegraph_model::cancel::checkpoint_every(step);
        queued[node as usize] = false;
        let own = partition[node as usize];
        let degree = graph.degree(node);
        for (neighbour, weight) in graph.neighbours_of(node) {
            neighbourhood.add(partition[neighbour as usize], weight);
        }
        community_degree[own as usize] -= degree;
        community_size[own as usize] -= 1;
        if community_size[own as usize] == 0 {
            empty.push(own);
        }
        let gain = |community: u32, weight: f64| {
            weight - resolution * degree * community_degree[community as usize] / m2
        };
        let mut best = own;
        let mut best_gain = gain(own, neighbourhood.weight_to[own as usize]);
        for &community in &neighbourhood.touched {
            let candidate = gain(community, neighbourhood.weight_to[community as usize]);
            if candidate > best_gain + 1e-12 {
                best = community;
                best_gain = candidate;
            }
        }
        // Leaving for an empty community gains 0.
        if best_gain < -1e-12
            && let Some(&alone) = empty.last()
        {
            best = alone;
        }
        // An empty target is the last empty community: `own`, just emptied, or `alone`.
        if community_size[best as usize] == 0 {
            empty.pop();
        }
        community_degree[best as usize] += degree;
        community_size[best as usize] += 1;
        if best != own {
            moved = true;
            partition[node as usize] = best;
            for (neighbour, _) in graph.neighbours_of(node) {
                if !queued[neighbour as usize] && partition[neighbour as usize] != best {
                    queued[neighbour as usize] = true;
                    queue.push_back(neighbour);
                }
            }
        }
        neighbourhood.clear();
    }
    moved
}

/// Phase 2: refine each community from singletons, merging only well-connected nodes into
/// well-connected sub-communities they touch. Returns the refined partition.
fn refine(
    graph: &WeightedGraph,
    partition: &[u32],
    resolution: f64,
    random: &mut Random,
) -> Vec<u32> {
    let node_count = graph.node_count();
    let m2 = graph.total_degree();
    let mut refined: Vec<u32> = (0..node_count as u32).collect();
    let mut community_degree = vec![0.0; node_count];
    for node in 0..node_count {
        community_degree[partition[node] as usize] += graph.degree(node as u32);
    }
    // Weight from each refined community to the rest of its community; its degree; its size.
    let mut external: Vec<f64> = vec![0.0; node_count];
    let mut refined_degree: Vec<f64> = (0..node_count).map(|n| graph.degree(n as u32)).collect();
    let mut refined_size = vec![1u32; node_count];
    for node in 0..node_count as u32 {
        for (neighbour, weight) in graph.neighbours_of(node) {
            if partition[neighbour as usize] == partition[node as usize] {
                external[node as usize] += weight;
            }
        }
    }
    let mut order: Vec<u32> = (0..node_count as u32).collect();
    random.shuffle(&mut order);
    let mut neighbourhood = Neighbourhood::new(node_count);
    for (step, node) in order.into_iter().enumerate() {
        codegraph_model::cancel::checkpoint_every(step);
        if refined_size[refined[node as usize] as usize] != 1 {
            continue;
        }
        let community = partition[node as usize];
        let degree = graph.degree(node);
        let total = community_degree[community as usize];
        // The node must itself be well connected to its community.
        if external[node as usize] < resolution * degree * (total - degree) / m2 {
            continue;
        }
        for (neighbour, weight) in graph.neighbours_of(node) {
            if partition[neighbour as usize] == community {
                neighbourhood.add(refined[neighbour as usize], weight);
            }
        }
        let own = refined[node as usize];
        let mut best = own;
        let mut best_gain = 0.0;
        for &target in &neighbourhood.touched {
            if target == own {
                continue;
            }
            let target_degree = refined_degree[target as usize];
            let well_connected = external[target as usize]
                >= resolution * target_degree * (total - target_degree) / m2;
            if !well_connected {
                continue;
            }
            let gain =
                neighbourhood.weight_to[target as usize] - resolution * degree * target_degree / m2;
            if gain > best_gain + 1e-12 || (gain >= best_gain - 1e-12 && best == own && gain >= 0.0)
            {
                best = target;
                best_gain = gain;
            }
        }
        if best != own {
            let weight_between = neighbourhood.weight_to[best as usize];
            external[best as usize] =
                external[best as usize] + external[node as usize] - 2.0 * weight_between;
            refined_degree[best as usize] += degree;
            refined_size[best as usize] += 1;
            refined_size[own as usize] = 0;
            refined[node as usize] = best;
        }
        neighbourhood.clear();
    }
    refined
}

/// Runs Leiden to convergence and returns each node's community, numbered `0..count` in order of
/// first appearance.
pub fn leiden(graph: &WeightedGraph, resolution: f64, seed: u64) -> Vec<u32> {
    let mut random = Random(seed);
    let node_count = graph.node_count();
    // `membership[original node]` = node of the current aggregate graph.
    let mut membership: Vec<u32> = (0..node_count as u32).collect();
    let mut current = graph.clone();
    let mut partition: Vec<u32> = (0..node_count as u32).collect();
    for _pass in 0..32 {
        codegraph_model::cancel::checkpoint();
        let moved = move_nodes(&current, &mut partition, resolution, &mut random);
        let community_count = renumber(&mut partition);
        if community_count == current.node_count() {
            break;
        }
        let mut refined = refine(&current, &partition, resolution, &mut random);
        let refined_count = renumber(&mut refined);
        if !moved && refined_count == current.node_count() {
            break;
        }
        // Each refined community lies inside one community of `partition`.
        let mut initial = vec![0u32; refined_count];
        for node in 0..current.node_count() {
            initial[refined[node] as usize] = partition[node];
        }
        let aggregate = current.aggregate(&refined, refined_count);
        for node in membership.iter_mut() {
            *node = refined[*node as usize];
        }
        current = aggregate;
        partition = initial;
    }
    let mut result: Vec<u32> = membership
        .iter()
        .map(|&node| partition[node as usize])
        .collect();
    renumber(&mut result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clique(nodes: std::ops::Range<u32>, edges: &mut Vec<(u32, u32, f64)>) {
        for a in nodes.clone() {
            for b in nodes.clone() {
                if a < b {
                    edges.push((a, b, 1.0));
                }
            }
        }
    }

    #[test]
    fn two_cliques_joined_by_an_edge_are_two_communities() {
        let mut edges = Vec::new();
        clique(0..5, &mut edges);
        clique(5..10, &mut edges);
        edges.push((4, 5, 1.0));
        let graph = WeightedGraph::from_edges(10, &edges);
        let partition = leiden(&graph, 1.0, 42);
        assert_eq!(partition, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
        let modularity = graph.modularity(&partition, 1.0);
        assert!((modularity - 0.4523).abs() < 1e-3, "{modularity}");
    }

    #[test]
    fn the_same_seed_gives_the_same_partition() {
        // A ring of eight 4-cliques: many equally good answers, so order matters.
        let mut edges = Vec::new();
        for ring in 0..8u32 {
            clique(ring * 4..ring * 4 + 4, &mut edges);
            edges.push((ring * 4 + 3, ((ring + 1) % 8) * 4, 1.0));
        }
        let graph = WeightedGraph::from_edges(32, &edges);
        let first = leiden(&graph, 1.0, 7);
        for _ in 0..5 {
            assert_eq!(leiden(&graph, 1.0, 7), first);
        }
        // Every clique stays together.
        for ring in 0..8usize {
            let community = first[ring * 4];
            assert!(
                first[ring * 4..ring * 4 + 4]
                    .iter()
                    .all(|&c| c == community)
            );
        }
    }

    #[test]
    fn communities_are_connected_and_isolated_nodes_stay_alone() {
        let mut edges = Vec::new();
        clique(0..4, &mut edges);
        // A path hanging off the clique, and an isolated node 7.
        edges.push((3, 4, 1.0));
        edges.push((4, 5, 1.0));
        edges.push((5, 6, 1.0));
        let graph = WeightedGraph::from_edges(8, &edges);
        let partition = leiden(&graph, 1.0, 1);
        let isolated = partition[7];
        assert!(partition[..7].iter().all(|&c| c != isolated));
        for community in 0..=*partition.iter().max().unwrap() {
            let members: Vec<u32> = (0..8u32)
                .filter(|&n| partition[n as usize] == community)
                .collect();
            // Connected: a walk from the first member reaches all of them inside the community.
            let mut seen = vec![members[0]];
            let mut index = 0;
            while index < seen.len() {
                for (neighbour, _) in graph.neighbours_of(seen[index]) {
                    if partition[neighbour as usize] == community && !seen.contains(&neighbour) {
                        seen.push(neighbour);
                    }
                }
                index += 1;
            }
            assert_eq!(
                seen.len(),
                members.len(),
                "community {community} is not connected"
            );
        }
    }

    #[test]
    fn aggregation_keeps_the_total_weight() {
        let edges = [(0, 1, 2.0), (1, 2, 1.0), (2, 0, 1.0), (2, 3, 5.0)];
        let graph = WeightedGraph::from_edges(4, &edges);
        let aggregate = graph.aggregate(&[0, 0, 1, 1], 2);
        assert_eq!(aggregate.total_degree(), graph.total_degree());
        assert_eq!(aggregate.neighbours_of(0).collect::<Vec<_>>(), [(1, 2.0)]);
    }
}
