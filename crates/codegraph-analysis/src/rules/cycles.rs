//! The dependency cycles of one cycles rule, kept up to date edit by edit.
//!
//! The nodes are files (or directories); a node depends on another when one of its files has a
//! dependency onto a file of the other, counted per file so that a directory's edge goes only
//! when its last file stops depending. The cycles are the strongly connected components with
//! more than one node.
//!
//! After a change, only the nodes whose set of successors changed (`touched`) can have changed
//! components, and only within `S` = the nodes reachable from them plus the members of their old
//! components: a cycle through a touched node lies in its reach, and a cycle through no touched
//! node existed before, inside one old component. Components outside `S` are unchanged, and the
//! strongly connected components of the graph induced by `S` are exactly the components inside
//! it. An edit that moves no successor set costs nothing here; one that does costs the reach of
//! the edited node, not the whole graph. The first evaluation is the same step with every node
//! touched.

use std::collections::VecDeque;

use codegraph_model::Name;
use rustc_hash::{FxHashMap, FxHashSet};

use super::config::CycleUnit;

/// Not in a cycle.
const NONE: u32 = u32::MAX;

#[derive(Clone)]
pub(super) struct Cycles {
    /// The rule's index in the rule set.
    pub rule: usize,
    pub unit: CycleUnit,
    ids: FxHashMap<Name, u32>,
    names: Vec<Name>,
    /// Per node: its successors, each with how many of the node's files depend on it.
    successors: Vec<FxHashMap<u32, u32>>,
    /// Per node: its cycle (a component with more than one node), or [`NONE`].
    component: Vec<u32>,
    /// Per node in a cycle: the nodes of the same cycle that depend on it, in name order.
    predecessors: Vec<Vec<u32>>,
    members: FxHashMap<u32, Vec<u32>>,
    next_component: u32,
}

/// The node a file belongs to.
pub(super) fn node_of(unit: CycleUnit, path: &str) -> Name {
    match unit {
        CycleUnit::Files => Name::new(path),
        CycleUnit::Directories => Name::new(path.rsplit_once('/').map_or("", |(dir, _)| dir)),
    }
}

/// A node as messages show it.
pub(super) fn node_display(unit: CycleUnit, node: &str) -> String {
    match (unit, node) {
        (CycleUnit::Directories, "") => "(root)".to_string(),
        (CycleUnit::Directories, _) => format!("{node}/"),
        _ => node.to_string(),
    }
}

impl Cycles {
    pub fn new(rule: usize, unit: CycleUnit) -> Cycles {
        Cycles {
            rule,
            unit,
            ids: FxHashMap::default(),
            names: Vec::new(),
            successors: Vec::new(),
            component: Vec::new(),
            predecessors: Vec::new(),
            members: FxHashMap::default(),
            next_component: 0,
        }
    }

    fn id(&mut self, name: &Name) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(*name, id);
        self.names.push(*name);
        self.successors.push(FxHashMap::default());
        self.component.push(NONE);
        self.predecessors.push(Vec::new());
        id
    }

    /// One file's dependencies moved from the nodes `old` to the nodes `new` (each without
    /// duplicates). Adds to `touched` the file's node when its set of successors changed.
    pub fn change(&mut self, file: &str, old: &[Name], new: &[Name], touched: &mut Vec<u32>) {
        let from_name = node_of(self.unit, file);
        let from = self.id(&from_name);
        let mut moved = false;
        for name in old {
            if *name == from_name || new.contains(name) {
                continue;
            }
            let to = self.id(name);
            let successors = &mut self.successors[from as usize];
            if let Some(count) = successors.get_mut(&to) {
                *count -= 1;
                if *count == 0 {
                    successors.remove(&to);
                    moved = true;
                }
            }
        }
        for name in new {
            if *name == from_name || old.contains(name) {
                continue;
            }
            let to = self.id(name);
            let count = self.successors[from as usize].entry(to).or_insert(0);
            *count += 1;
            moved |= *count == 1;
        }
        if moved {
            touched.push(from);
        }
    }

    /// Recomputes the components that the changes of `touched` nodes can have changed (see the
    /// module doc). Returns how many nodes that covered.
    pub fn settle(&mut self, touched: Vec<u32>) -> usize {
        if touched.is_empty() {
            return 0;
        }
        let order = self.reach(touched);
        self.recompute_components(&order);
        self.link_predecessors(&order);
        order.len()
    }

    /// `S`: the nodes reachable from `touched` and from the members of their old components.
    fn reach(&self, touched: Vec<u32>) -> Vec<u32> {
        let mut inside: FxHashSet<u32> = FxHashSet::default();
        let mut pending: Vec<u32> = Vec::new();
        for node in touched {
            pending.push(node);
            if let Some(members) = self.members.get(&self.component[node as usize]) {
                pending.extend(members.iter().copied());
            }
        }
        let mut order: Vec<u32> = Vec::new();
        while let Some(node) = pending.pop() {
            if !inside.insert(node) {
                continue;
            }
            order.push(node);
            pending.extend(self.successors[node as usize].keys().copied());
        }
        order
    }

    /// The components of the graph induced by `order`, in place of its nodes' old ones.
    fn recompute_components(&mut self, order: &[u32]) {
        let local: FxHashMap<u32, usize> = order
            .iter()
            .enumerate()
            .map(|(index, &node)| (node, index))
            .collect();
        let successors: Vec<Vec<usize>> = order
            .iter()
            .map(|&node| {
                self.successors[node as usize]
                    .keys()
                    .filter_map(|next| local.get(next).copied())
                    .collect()
            })
            .collect();
        for &node in order {
            let old = std::mem::replace(&mut self.component[node as usize], NONE);
            if old != NONE {
                self.members.remove(&old);
            }
        }
        for members in crate::refactor::cyclic_components(&successors) {
            let id = self.next_component;
            self.next_component += 1;
            let members: Vec<u32> = members.into_iter().map(|index| order[index]).collect();
            for &member in &members {
                self.component[member as usize] = id;
            }
            self.members.insert(id, members);
        }
    }

    /// Each node of `order` in a cycle: the nodes of its cycle that depend on it, in name order.
    fn link_predecessors(&mut self, order: &[u32]) {
        // A cycle's edges join nodes of the cycle, so those of `order` are all in `order`.
        for &node in order {
            self.predecessors[node as usize].clear();
        }
        for &node in order {
            let component = self.component[node as usize];
            if component == NONE {
                continue;
            }
            for &next in self.successors[node as usize].keys() {
                if self.component[next as usize] == component {
                    self.predecessors[next as usize].push(node);
                }
            }
        }
        // In name order once here, not in every search (`paths_to`).
        for &node in order {
            let mut before = std::mem::take(&mut self.predecessors[node as usize]);
            before.sort_by(|left, right| {
                self.names[*left as usize].cmp(&self.names[*right as usize])
            });
            self.predecessors[node as usize] = before;
        }
    }

    pub fn has_cycles(&self) -> bool {
        !self.members.is_empty()
    }

    /// The cycle `node` is in, if any.
    pub fn cycle_of(&self, node: &str) -> Option<u32> {
        let &id = self.ids.get(node)?;
        let component = self.component[id as usize];
        (component != NONE).then_some(component)
    }

    /// The shortest paths inside `goal`'s cycle from every node of it to `goal`: one search
    /// backwards from `goal`, however many of its dependencies a file's violations explain.
    /// Among paths of the same length, the first by node names, so that the path shown does
    /// not depend on the order of past edits.
    pub fn paths_to(&self, goal: &str) -> PathsTo<'_> {
        let mut next: FxHashMap<u32, u32> = FxHashMap::default();
        let Some(&goal_id) = self.ids.get(goal) else {
            return PathsTo {
                cycles: self,
                goal: NONE,
                next,
            };
        };
        let mut queue = VecDeque::from([goal_id]);
        next.insert(goal_id, goal_id);
        while let Some(node) = queue.pop_front() {
            // Already in name order (kept so where they are built).
            for &previous in &self.predecessors[node as usize] {
                if let std::collections::hash_map::Entry::Vacant(entry) = next.entry(previous) {
                    entry.insert(node);
                    queue.push_back(previous);
                }
            }
        }
        PathsTo {
            cycles: self,
            goal: goal_id,
            next,
        }
    }
}

/// See [`Cycles::paths_to`].
pub(super) struct PathsTo<'a> {
    cycles: &'a Cycles,
    goal: u32,
    /// Per node: the next node on its path to the goal.
    next: FxHashMap<u32, u32>,
}

impl PathsTo<'_> {
    /// The path from `start` to the goal, both included.
    pub fn from(&self, start: &str) -> Vec<Name> {
        let names = &self.cycles.names;
        let Some(mut node) = self.cycles.ids.get(start).copied() else {
            return vec![Name::new(start)];
        };
        let mut path = vec![names[node as usize]];
        while node != self.goal {
            match self.next.get(&node) {
                Some(&after) => {
                    path.push(names[after as usize]);
                    node = after;
                }
                None => break,
            }
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so that a failure replays.
    struct Random(u64);

    impl Random {
        fn below(&mut self, bound: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % bound as u64) as usize
        }
    }

    /// Which nodes share a cycle, as a sorted list of sorted cycles of names.
    fn partition(cycles: &Cycles) -> Vec<Vec<Name>> {
        let mut found: Vec<Vec<Name>> = cycles
            .members
            .values()
            .map(|members| {
                let mut names: Vec<Name> = members
                    .iter()
                    .map(|&member| cycles.names[member as usize])
                    .collect();
                names.sort();
                names
            })
            .collect();
        found.sort();
        found
    }

    fn from_scratch(unit: CycleUnit, targets: &FxHashMap<String, Vec<Name>>) -> Cycles {
        let mut cycles = Cycles::new(0, unit);
        let mut touched = Vec::new();
        let mut files: Vec<&String> = targets.keys().collect();
        files.sort();
        for file in files {
            cycles.change(file, &[], &targets[file], &mut touched);
        }
        cycles.settle(touched);
        cycles
    }

    /// Random series of edits on small graphs (dense enough for cycles to form, merge, split
    /// and vanish): after every edit, the kept components equal those computed from scratch.
    #[test]
    fn components_kept_edit_by_edit_equal_components_from_scratch() {
        for (unit, seed) in [
            (CycleUnit::Files, 0x9e37_79b9_7f4a_7c15),
            (CycleUnit::Files, 42),
            (CycleUnit::Directories, 7),
            (CycleUnit::Directories, 0xdead_beef),
        ] {
            let mut random = Random(seed);
            let files: Vec<String> = (0..14)
                .map(|index| format!("d{}/f{index}", index % 4))
                .collect();
            let mut targets: FxHashMap<String, Vec<Name>> = FxHashMap::default();
            let mut kept = Cycles::new(0, unit);
            let mut seen_cycles = 0;
            for _ in 0..400 {
                let file = &files[random.below(files.len())];
                let mut new: Vec<Name> = (0..random.below(3))
                    .map(|_| node_of(unit, &files[random.below(files.len())]))
                    .collect();
                new.sort();
                new.dedup();
                let old = targets
                    .insert(file.clone(), new.clone())
                    .unwrap_or_default();
                let mut touched = Vec::new();
                kept.change(file, &old, &new, &mut touched);
                kept.settle(touched);
                let fresh = from_scratch(unit, &targets);
                assert_eq!(partition(&kept), partition(&fresh), "{unit:?} seed {seed}");
                // The paths shown are those of a check from scratch too.
                for cycle in partition(&fresh) {
                    for goal in &cycle {
                        let (kept_paths, fresh_paths) = (kept.paths_to(goal), fresh.paths_to(goal));
                        for start in &cycle {
                            let path = kept_paths.from(start);
                            assert_eq!(path, fresh_paths.from(start), "{unit:?} seed {seed}");
                            assert_eq!((path.first(), path.last()), (Some(start), Some(goal)));
                        }
                    }
                }
                seen_cycles += usize::from(kept.has_cycles());
            }
            assert!(seen_cycles > 20, "the series made cycles: {seen_cycles}");
        }
    }
}
