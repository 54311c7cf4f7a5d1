//! Attaching the code that is not production code (tests, fixtures, examples, generated and
//! vendored code) to the production communities it exercises, after Leiden has partitioned
//! the production code alone.
//!
//! Three passes, each deterministic:
//! 1. **Evidence.** Each non-production entity collects, per production community, the weight of
//!    its edges to that community's members, each edge divided by the square root of how many
//!    non-production entities touch that member. `TestCase`, `Client` and `assertEqual`-like
//!    helpers that every test touches say little about what a test exercises; the function only
//!    three tests call says a lot.
//! 2. **Up and down the containment tree.** A test class adds up its methods' evidence and a
//!    test file its classes'; each entity joins the community its own (and its children's)
//!    evidence favours, and an entity without any (a helper that only calls other test code)
//!    joins its parent's.
//! 3. **Through the rest of the test code.** What is still alone takes the community most of its
//!    attached neighbours have, over a few rounds.
//!
//! What reaches no production code at all stays unattached.

use rustc_hash::FxHashMap;

use codegraph_graph::{EntityId, Graph};

/// Rounds of pass 3.
const PROPAGATION_ROUNDS: usize = 8;

/// The level-0 production community each non-production node joins (`None` for production
/// nodes and for what reaches no production code).
pub fn attach(
    graph: &Graph,
    ids: &[EntityId],
    production: &[bool],
    edges: &[(u32, u32, f64)],
    core: &[Option<u32>],
) -> Vec<Option<u32>> {
    if production.iter().all(|&is_production| is_production) || core.iter().all(Option::is_none) {
        return vec![None; ids.len()];
    }
    let Evidence {
        evidence,
        among_others,
    } = Evidence::of(production, edges, core);
    let tree = Containment::of(graph, ids, production);
    let mut attached = tree.attach(evidence);
    propagate(&mut attached, &tree.others, &among_others);
    attached
}

/// Pass 1: what each non-production node exercises, and the edges among non-production nodes.
struct Evidence {
    /// Per node: production community → weight of its edges to that community's members.
    evidence: Vec<FxHashMap<u32, f64>>,
    /// Per node: its edges to other non-production nodes, with their weights.
    among_others: Vec<Vec<(u32, f64)>>,
}

impl Evidence {
    fn of(production: &[bool], edges: &[(u32, u32, f64)], core: &[Option<u32>]) -> Evidence {
        let node_count = production.len();
        let touched_by_others = touched_by_others(production, edges);
        let mut evidence: Vec<FxHashMap<u32, f64>> = vec![FxHashMap::default(); node_count];
        let mut among_others: Vec<Vec<(u32, f64)>> = vec![Vec::new(); node_count];
        for &(from, to, weight) in edges {
            match (production[from as usize], production[to as usize]) {
                (true, true) => {}
                (false, false) => {
                    among_others[from as usize].push((to, weight));
                    among_others[to as usize].push((from, weight));
                }
                (from_production, _) => {
                    let (inside, outside) = if from_production {
                        (from, to)
                    } else {
                        (to, from)
                    };
                    if let Some(community) = core[inside as usize] {
                        let specificity =
                            1.0 / (1.0 + touched_by_others[inside as usize] as f64).sqrt();
                        *evidence[outside as usize].entry(community).or_default() +=
                            weight * specificity;
                    }
                }
            }
        }
        Evidence {
            evidence,
            among_others,
        }
    }
}

/// How many non-production nodes touch each production node.
fn touched_by_others(production: &[bool], edges: &[(u32, u32, f64)]) -> Vec<u32> {
    let mut touched_by_others = vec![0u32; production.len()];
    for &(from, to, _) in edges {
        if production[from as usize] != production[to as usize] {
            let inside = if production[from as usize] { from } else { to };
            touched_by_others[inside as usize] += 1;
        }
    }
    touched_by_others
}

/// Pass 2's tree: the containment among non-production nodes.
struct Containment {
    /// Per node: the non-production node that contains it, if any.
    parent: Vec<Option<u32>>,
    /// The non-production nodes, deepest first (then by node).
    others: Vec<u32>,
}

impl Containment {
    fn of(graph: &Graph, ids: &[EntityId], production: &[bool]) -> Containment {
        let node_count = ids.len();
        let index_of: FxHashMap<&str, u32> = ids
            .iter()
            .enumerate()
            .map(|(node, id)| (&**id, node as u32))
            .collect();
        let parent: Vec<Option<u32>> = (0..node_count)
            .map(|node| {
                if production[node] {
                    return None;
                }
                let parent = parent_id(graph, &ids[node])?;
                let parent = *index_of.get(&*parent)?;
                (!production[parent as usize]).then_some(parent)
            })
            .collect();
        let depth: Vec<u32> = (0..node_count)
            .map(|node| depth_of(&parent, node))
            .collect();
        let mut others: Vec<u32> = (0..node_count as u32)
            .filter(|&node| !production[node as usize])
            .collect();
        // Deepest first: children add their evidence to their parents before the parents decide.
        others.sort_by_key(|&node| (std::cmp::Reverse(depth[node as usize]), node));
        Containment { parent, others }
    }

    /// Pass 2: each node joins the community its own and its children's evidence favours, or
    /// else its parent's.
    fn attach(&self, evidence: Vec<FxHashMap<u32, f64>>) -> Vec<Option<u32>> {
        let mut attached: Vec<Option<u32>> = vec![None; self.parent.len()];
        let mut total = evidence;
        for &node in &self.others {
            if let Some(up) = self.parent[node as usize] {
                let child: Vec<(u32, f64)> = total[node as usize]
                    .iter()
                    .map(|(&community, &weight)| (community, weight))
                    .collect();
                for (community, weight) in child {
                    *total[up as usize].entry(community).or_default() += weight;
                }
            }
        }
        for &node in &self.others {
            attached[node as usize] = strongest(&total[node as usize]);
        }
        // Shallowest first: an entity without evidence joins its parent's community.
        for &node in self.others.iter().rev() {
            if attached[node as usize].is_none()
                && let Some(up) = self.parent[node as usize]
            {
                attached[node as usize] = attached[up as usize];
            }
        }
        attached
    }
}

/// How many containing non-production nodes are above `node` (at most 65: a guard, not a
/// depth any code has).
fn depth_of(parent: &[Option<u32>], node: usize) -> u32 {
    let mut depth = 0;
    let mut current = parent[node];
    while let Some(up) = current {
        depth += 1;
        current = parent[up as usize];
        if depth > 64 {
            break;
        }
    }
    depth
}

/// Pass 3: what is still alone takes the community its attached neighbours among
/// non-production code vote for, over a few rounds.
fn propagate(attached: &mut [Option<u32>], others: &[u32], among_others: &[Vec<(u32, f64)>]) {
    for _ in 0..PROPAGATION_ROUNDS {
        let before = attached.to_vec();
        let mut changed = false;
        for &node in others {
            if before[node as usize].is_some() {
                continue;
            }
            let mut votes: FxHashMap<u32, f64> = FxHashMap::default();
            for &(neighbour, weight) in &among_others[node as usize] {
                if let Some(community) = before[neighbour as usize] {
                    *votes.entry(community).or_default() += weight;
                }
            }
            if let Some(community) = strongest(&votes) {
                attached[node as usize] = Some(community);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// The community with the most weight, the smallest id on a tie.
fn strongest(weights: &FxHashMap<u32, f64>) -> Option<u32> {
    weights
        .iter()
        .max_by(|left, right| left.1.total_cmp(right.1).then_with(|| right.0.cmp(left.0)))
        .map(|(&community, _)| community)
}

/// The entity that lexically contains `id` (its file's module for a top-level definition).
pub(super) fn parent_id(graph: &Graph, id: &str) -> Option<EntityId> {
    let location = graph.location(id)?;
    let index = location.index?;
    let file = graph.file(&location.file)?;
    Some(match file.summary.defs.get(index as usize)?.parent {
        Some(parent) => *file.ids.get(parent as usize)?,
        None => file.module_id,
    })
}
