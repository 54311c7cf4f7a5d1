//! Every fixture's graph holds the edges its `expected.txt` lists (and none of the `!` ones),
//! and matches its `graph.txt` snapshot.

use std::collections::BTreeSet;

use crate::support;

/// Checks one fixture; returns the failures as `path:line: message` lines.
fn check_fixture(name: &str) -> Vec<String> {
    let root = support::fixture(name);
    let (_world, graph) = support::index(&root);
    let edges: BTreeSet<(String, String, String)> = graph
        .all_edges()
        .map(|edge| {
            (
                edge.kind.to_string(),
                edge.from.to_string(),
                edge.to.to_string(),
            )
        })
        .collect();
    let expected_path = root.join("expected.txt");
    let expected = std::fs::read_to_string(&expected_path).expect("expected.txt readable");
    let mut failures = Vec::new();
    for (number, line) in expected.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // `implementations X = A B ...`: exactly these, through `graph::query`.
        if let Some(rest) = line.strip_prefix("implementations ") {
            let (target, listed) = rest.split_once(" = ").unwrap_or((rest, ""));
            let mut expected: Vec<&str> = listed.split_whitespace().collect();
            expected.sort();
            let mut found: Vec<String> =
                codegraph::graph::query::implementations(&graph, target.trim())
                    .into_iter()
                    .map(|entity| entity.id.to_string())
                    .collect();
            found.sort();
            if found != expected {
                failures.push(format!(
                    "{}:{}: implementations of {target} are {found:?}, expected {expected:?}",
                    expected_path.display(),
                    number + 1
                ));
            }
            continue;
        }
        let (negated, rest) = match line.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let mut words = rest.split_whitespace();
        let (Some(kind), Some(from), Some("->"), Some(to), None) = (
            words.next(),
            words.next(),
            words.next(),
            words.next(),
            words.next(),
        ) else {
            failures.push(format!(
                "{}:{}: malformed line: {line}",
                expected_path.display(),
                number + 1
            ));
            continue;
        };
        let present = edges.contains(&(kind.to_string(), from.to_string(), to.to_string()));
        if present == negated {
            let outgoing: Vec<String> = edges
                .iter()
                .filter(|(edge_kind, edge_from, _)| edge_kind == kind && edge_from == from)
                .map(|(_, _, edge_to)| edge_to.clone())
                .collect();
            failures.push(format!(
                "{}:{}: {} edge {kind} {from} -> {to} (its {kind} edges: {})",
                expected_path.display(),
                number + 1,
                if negated { "unexpected" } else { "missing" },
                if outgoing.is_empty() {
                    "none".to_string()
                } else {
                    outgoing.join(", ")
                }
            ));
        }
    }
    if let Err(report) = support::check_snapshot(&root.join("graph.txt"), &graph.dump()) {
        failures.push(report);
    }
    failures
}

#[test]
fn every_fixture_has_its_expected_edges() {
    let names = support::fixture_names();
    assert!(
        names.contains(&"python".to_string()),
        "fixtures found: {names:?}"
    );
    let failures: Vec<String> = names.iter().flat_map(|name| check_fixture(name)).collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn python_callers_are_exactly_the_expected_ones() {
    let (_world, graph) = support::index(&support::fixture("python"));
    let callers: Vec<String> =
        codegraph::graph::query::callers(&graph, "shop/auth/service.py::AuthService.authenticate")
            .into_iter()
            .map(|call| call.entity.id.to_string())
            .collect();
    assert_eq!(callers, ["shop/app/main.py::main"]);
    let callers: Vec<String> =
        codegraph::graph::query::callers(&graph, "shop/util/format.py::format_name")
            .into_iter()
            .map(|call| call.entity.id.to_string())
            .collect();
    assert_eq!(callers, ["shop/app/main.py::main"]);
    assert!(
        codegraph::graph::query::callers(&graph, "shop/report/format.py::format_name").is_empty()
    );
    let implementations: Vec<String> = codegraph::graph::query::implementations(
        &graph,
        "shop/auth/service.py::Authenticator.authenticate",
    )
    .into_iter()
    .map(|entity| entity.id.to_string())
    .collect();
    assert_eq!(
        implementations,
        ["shop/auth/service.py::AuthService.authenticate"]
    );
}
