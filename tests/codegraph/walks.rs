//! Every recursive walk over code is bounded by construction (`walk`): checked on this
//! workspace's own source with its own call graph. In the layers that read code (extraction, syntax,
//! language rules, resolution and the writer), every cycle of calls between functions passes
//! through a function that takes a `walk::enter` step: with those functions removed, the call
//! graph of those layers has no cycle left.
//!
//! The check is as good as the call graph: a call it cannot resolve (through a trait object or
//! a function value) is a cycle it cannot see.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use codegraph::graph::query;

use crate::support;

/// The layers that read code (the languages and parsing, extraction, resolution and the
/// writer), by path prefix.
const LAYERS: [&str; 3] = [
    "crates/codegraph-lang/",
    "crates/codegraph-index/",
    "crates/codegraph-graph/",
];

/// Copies this workspace's manifests and Rust sources (`src/`, `crates/`) into `root`.
fn copy_workspace(root: &Path) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(manifest.join("Cargo.toml"), root.join("Cargo.toml")).unwrap();
    let mut pending = vec![manifest.join("src"), manifest.join("crates")];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(manifest).unwrap();
            if path.is_dir() {
                std::fs::create_dir_all(root.join(relative)).unwrap();
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs")
                || path.file_name().is_some_and(|name| name == "Cargo.toml")
            {
                std::fs::copy(&path, root.join(relative)).unwrap();
            }
        }
    }
}

/// Strongly connected components of `edges` over `nodes` (Tarjan's, iterative), those with a
/// cycle only: more than one function, or one that calls itself.
fn cycles(
    nodes: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Vec<String>> {
    let names: Vec<&String> = nodes.iter().collect();
    let number: BTreeMap<&String, usize> = names
        .iter()
        .enumerate()
        .map(|(index, name)| (*name, index))
        .collect();
    let successors: Vec<Vec<usize>> = names
        .iter()
        .map(|name| {
            edges
                .get(*name)
                .into_iter()
                .flatten()
                .filter_map(|callee| number.get(callee).copied())
                .collect()
        })
        .collect();
    let count = names.len();
    let (mut index, mut low, mut on_stack) =
        (vec![usize::MAX; count], vec![0; count], vec![false; count]);
    let (mut stack, mut found, mut next) = (Vec::new(), Vec::new(), 0);
    for start in 0..count {
        if index[start] != usize::MAX {
            continue;
        }
        let mut frames = vec![(start, 0usize)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some((node, position)) = frames.last().copied() {
            if let Some(&successor) = successors[node].get(position) {
                frames.last_mut().unwrap().1 += 1;
                if index[successor] == usize::MAX {
                    index[successor] = next;
                    low[successor] = next;
                    next += 1;
                    stack.push(successor);
                    on_stack[successor] = true;
                    frames.push((successor, 0));
                } else if on_stack[successor] {
                    low[node] = low[node].min(index[successor]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(names[member].clone());
                    if member == node {
                        break;
                    }
                }
                let cyclic = component.len() > 1 || successors[node].contains(&node);
                if cyclic {
                    component.sort();
                    found.push(component);
                }
            }
        }
    }
    found
}

#[test]
fn every_cycle_of_calls_in_the_code_reading_layers_passes_a_walk_step() {
    let root = tempfile::tempdir().unwrap();
    copy_workspace(root.path());
    let (_world, graph) = support::index(root.path());
    let mut functions = BTreeSet::new();
    let mut gated = BTreeSet::new();
    for file in graph.files() {
        if !LAYERS
            .iter()
            .any(|layer| file.path.as_str().starts_with(layer))
        {
            continue;
        }
        let text = file.text().expect("the copy is unchanged");
        for (def, id) in file.summary.defs.iter().zip(file.ids.iter()) {
            if !def.kind.is_callable() {
                continue;
            }
            functions.insert(id.to_string());
            let body = &text[def.span.start_byte as usize..def.span.end_byte as usize];
            if body.contains("walk::enter") {
                gated.insert(id.to_string());
            }
        }
    }
    // The check would pass vacuously on a graph that lost its edges.
    assert!(functions.len() > 500, "{} functions", functions.len());
    assert!(gated.len() > 20, "{} gated", gated.len());
    let ungated: BTreeSet<String> = functions.difference(&gated).cloned().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut calls = 0;
    for function in &ungated {
        for callee in query::callees(&graph, function) {
            let callee = callee.entity.id.to_string();
            if ungated.contains(&callee) {
                calls += 1;
                edges.entry(function.clone()).or_default().insert(callee);
            }
        }
    }
    assert!(calls > 500, "{calls} calls between ungated functions");
    let unbounded = cycles(&ungated, &edges);
    assert!(
        unbounded.is_empty(),
        "cycles of calls with no `walk::enter` step (add one to a function of each):\n{unbounded:#?}"
    );
}

#[test]
fn the_cycle_finder_finds_cycles_and_only_cycles() {
    let nodes: BTreeSet<String> = ["a", "b", "c", "d", "e"].map(String::from).into();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "e")] {
        edges.entry(from.into()).or_default().insert(to.into());
    }
    let mut found = cycles(&nodes, &edges);
    found.sort();
    assert_eq!(found, vec![vec!["a", "b", "c"], vec!["e"]]);
}
