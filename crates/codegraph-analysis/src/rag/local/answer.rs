//! The text of a local answer: each start with its docstring and what it relates to, then the
//! relevant entities nearby.

use super::super::{cite, first_doc_line};
use super::{Edge, RelevantEntity, WordsFound, relation_label};
use codegraph_graph::{Entity, Graph};

/// The order relations are listed in an answer: what the entity uses first.
fn relation_order(label: &str) -> usize {
    [
        "calls",
        "uses",
        "extends",
        "implements",
        "imports",
        "contains",
        "called_by",
        "used_by",
        "imported_by",
        "extended_by",
        "implemented_by",
        "contained_in",
    ]
    .iter()
    .position(|known| *known == label)
    .unwrap_or(usize::MAX)
}

/// The answer's text: each start with its docstring and its relations, then the relevant
/// entities nearby.
pub(super) fn local_answer(
    graph: &Graph,
    query: &str,
    starts: &[Entity],
    relevant: &[RelevantEntity],
    words: WordsFound,
) -> String {
    let mut answer = String::new();
    for start in starts {
        answer.push_str(&describe_start(graph, start));
        answer.push('\n');
    }
    answer.push_str(&nearby(query, relevant, words));
    answer
}

/// A start cited, with the first line of its docstring and what it relates to, by relation.
fn describe_start(graph: &Graph, start: &Entity) -> String {
    let mut text = cite(start);
    if let Some(doc) = first_doc_line(start) {
        text.push_str(&format!(": \"{doc}\""));
    }
    text.push('.');
    for (label, names) in relation_groups(graph, start) {
        let count = names.len();
        let listed: Vec<String> = names.into_iter().take(8).collect();
        text.push_str(&format!(
            " {}: {}{}.",
            label.replace('_', " "),
            listed.join(", "),
            if count > 8 {
                format!(" and {} more", count - 8)
            } else {
                String::new()
            }
        ));
    }
    text
}

/// The entities `start` relates to, by relation label (what it uses first), each name once.
fn relation_groups(graph: &Graph, start: &Entity) -> Vec<(String, Vec<String>)> {
    let mut edges: Vec<(String, String)> = graph
        .incoming(&start.id)
        .map(|edge| {
            (
                relation_label(edge.kind, Edge::Incoming),
                edge.from.to_string(),
            )
        })
        .chain(graph.outgoing(&start.id).map(|edge| {
            (
                relation_label(edge.kind, Edge::Outgoing),
                edge.to.to_string(),
            )
        }))
        .collect();
    edges.sort_by(|left, right| {
        relation_order(&left.0)
            .cmp(&relation_order(&right.0))
            .then_with(|| left.cmp(right))
    });
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (label, id) in edges {
        let name = id.rsplit("::").next().unwrap_or(&id).to_string();
        match groups.iter_mut().find(|(known, _)| *known == label) {
            Some((_, names)) => {
                if !names.contains(&name) {
                    names.push(name)
                }
            }
            None => groups.push((label, vec![name])),
        }
    }
    groups
}

/// The five most relevant entities nearby, with their relevance when the question's words
/// ranked them.
fn nearby(query: &str, relevant: &[RelevantEntity], words: WordsFound) -> String {
    if relevant.is_empty() {
        return "Nothing around it is connected in the graph.".to_string();
    }
    let names: Vec<String> = relevant
        .iter()
        .take(5)
        .map(|relevant| {
            let relation = relevant.relation.replace('_', " ");
            match words {
                WordsFound::Somewhere => format!(
                    "{} [{relation}, {:.2}]",
                    cite(&relevant.entity),
                    relevant.relevance
                ),
                WordsFound::Nowhere => format!("{} [{relation}]", cite(&relevant.entity)),
            }
        })
        .collect();
    match words {
        WordsFound::Somewhere => {
            format!("Most relevant to \"{query}\" nearby: {}.", names.join("; "))
        }
        WordsFound::Nowhere => format!(
            "No nearby entity mentions the words of \"{query}\"; the closest neighbours are: {}.",
            names.join("; ")
        ),
    }
}
