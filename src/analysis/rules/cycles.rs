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
//! node existed before, inside one old component. Components outside `S` are unchanged, and
//! Tarjan's algorithm on the graph induced by `S` gives exactly the components inside it. An
//! edit that moves no successor set costs nothing here; one that does costs the reach of the
//! edited node, not the whole graph. The first evaluation is the same step with every node
//! touched.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use smol_str::SmolStr;

use super::config::CycleUnit;

/// Not in a cycle.
const NONE: u32 = u32::MAX;

#[derive(Clone)]
pub(super) struct Cycles {
    /// The rule's index in the rule set.
    pub rule: usize,
    pub unit: CycleUnit,
    ids: FxHashMap<SmolStr, u32>,
    names: Vec<SmolStr>,
    /// Per node: its successors, each with how many of the node's files depend on it.
    successors: Vec<FxHashMap<u32, u32>>,
    /// Per node: its cycle (a component with more than one node), or [`NONE`].
    component: Vec<u32>,
    members: FxHashMap<u32, Vec<u32>>,
    next_component: u32,
}

/// The node a file belongs to.
pub(super) fn node_of(unit: CycleUnit, path: &str) -> SmolStr {
    match unit {
        CycleUnit::Files => SmolStr::new(path),
        CycleUnit::Directories => SmolStr::new(path.rsplit_once('/').map_or("", |(dir, _)| dir)),
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
            members: FxHashMap::default(),
            next_component: 0,
        }
    }

    fn id(&mut self, name: &SmolStr) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(name.clone(), id);
        self.names.push(name.clone());
        self.successors.push(FxHashMap::default());
        self.component.push(NONE);
        id
    }

    /// One file's dependencies moved from the nodes `old` to the nodes `new` (each without
    /// duplicates). Adds to `touched` the file's node when its set of successors changed.
    pub fn change(&mut self, file: &str, old: &[SmolStr], new: &[SmolStr], touched: &mut Vec<u32>) {
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
        for &node in &order {
            let old = std::mem::replace(&mut self.component[node as usize], NONE);
            if old != NONE {
                self.members.remove(&old);
            }
        }
        for members in crate::analysis::refactor::tarjan(&successors) {
            if members.len() < 2 {
                continue;
            }
            let id = self.next_component;
            self.next_component += 1;
            let members: Vec<u32> = members.into_iter().map(|index| order[index]).collect();
            for &member in &members {
                self.component[member as usize] = id;
            }
            self.members.insert(id, members);
        }
        order.len()
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

    /// A shortest path from `start` to `goal` inside their cycle (both included); among paths
    /// of the same length, the one first by node names, so that the path shown does not depend
    /// on the order of past edits.
    pub fn path_back(&self, start: &str, goal: &str) -> Vec<SmolStr> {
        let (Some(&start_id), Some(&goal_id)) = (self.ids.get(start), self.ids.get(goal)) else {
            return vec![SmolStr::new(start), SmolStr::new(goal)];
        };
        let component = self.component[start_id as usize];
        let mut previous: FxHashMap<u32, u32> = FxHashMap::default();
        let mut queue = VecDeque::from([start_id]);
        let mut seen: FxHashSet<u32> = FxHashSet::from_iter([start_id]);
        while let Some(node) = queue.pop_front() {
            if node == goal_id {
                let mut path = vec![self.names[node as usize].clone()];
                let mut current = node;
                while let Some(&before) = previous.get(&current) {
                    path.push(self.names[before as usize].clone());
                    current = before;
                }
                path.reverse();
                return path;
            }
            let mut next: Vec<u32> = self.successors[node as usize]
                .keys()
                .copied()
                .filter(|next| self.component[*next as usize] == component)
                .collect();
            next.sort_by(|left, right| {
                self.names[*left as usize].cmp(&self.names[*right as usize])
            });
            for next in next {
                if seen.insert(next) {
                    previous.insert(next, node);
                    queue.push_back(next);
                }
            }
        }
        vec![SmolStr::new(start), SmolStr::new(goal)]
    }
}
