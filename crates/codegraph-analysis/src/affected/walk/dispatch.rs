//! Calls made through the bases and interfaces a method overrides or implements.

use rustc_hash::{FxHashMap, FxHashSet};

use codegraph_graph::query;
use codegraph_graph::{EntityId, Graph};
use codegraph_model::Name;

use super::{Node, State, members};

/// The members named `name` of the bases and interfaces of `owner`, in every language (the
/// walk follows the calls through them whatever the language's server lists).
pub(super) fn overridden(state: &mut State, owner: &EntityId, name: Name) -> Vec<EntityId> {
    let graph = state.graph;
    let bases = state
        .bases
        .entry(*owner)
        .or_insert_with(|| supertypes(graph, owner))
        .clone();
    let mut found = Vec::new();
    for base in bases {
        let named = state.members.entry(base).or_insert_with(|| {
            let mut named: FxHashMap<Name, Vec<EntityId>> = FxHashMap::default();
            for member in members(graph, &base) {
                if let Some(node) = Node::of(graph, &member) {
                    named.entry(node.name).or_default().push(member);
                }
            }
            named
        });
        found.extend(named.get(&name).into_iter().flatten().copied());
    }
    found
}

/// Every supertype of `id`, transitively, nearest first; bounded.
fn supertypes(graph: &Graph, id: &EntityId) -> Vec<EntityId> {
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut order = Vec::new();
    let mut frontier = vec![*id];
    for _depth in 0..32 {
        let mut next = Vec::new();
        for current in frontier {
            for (base, _) in query::supertypes(graph, &current) {
                if seen.insert(base.id) {
                    order.push(base.id);
                    next.push(base.id);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    order
}
