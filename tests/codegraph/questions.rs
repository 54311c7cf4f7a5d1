//! Search, communities, global and local search on `fixtures/questions`: a small Python
//! project with production code, its tests, an example, and the traps the ranking signals
//! exist for (see `fixtures/questions/ranking.txt`).

use codegraph::analysis::communities;
use codegraph::analysis::filter::FileFilter;
use codegraph::analysis::rag::{self, GlobalOptions, LocalOptions};
use codegraph::analysis::search::{FieldWeights, Ranking, SearchIndex, SearchOptions, SearchScope};
use codegraph::graph::Graph;
use codegraph::graph::query::{self, Lookup};
use codegraph::model::FileClass;

use crate::support;

fn first_hit(
    graph: &Graph,
    index: &SearchIndex,
    question: &str,
    ranking: Ranking,
    filter: FileFilter,
) -> Option<String> {
    let options = SearchOptions {
        ranking,
        filter,
        ..SearchOptions::new(graph, SearchScope::All, 10)
    };
    index
        .search_with(question, &options)
        .hits
        .first()
        .map(|hit| hit.id.to_string())
}

#[test]
fn each_ranking_signal_decides_its_case() {
    let root = support::fixture("questions");
    let (_world, graph) = support::index(&root);
    let index = SearchIndex::build(&graph);
    let path = root.join("ranking.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let full = Ranking::default();
    let mut failures = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (signal, rest) = line.split_once(": ").unwrap();
        let (question, expected) = rest.split_once(" => ").unwrap();
        let place = format!("{}:{}", path.display(), number + 1);
        let found = first_hit(&graph, &index, question, full, FileFilter::default());
        if found.as_deref() != Some(expected) {
            failures.push(format!(
                "{place}: {question:?} first {found:?}, expected {expected}"
            ));
        }
        let without = match signal {
            "name_match" => Ranking {
                name_match: 0.0,
                ..full
            },
            "phrase" => Ranking {
                phrase: 0.0,
                ..full
            },
            "graph_prior" => Ranking {
                graph_prior: 0.0,
                ..full
            },
            "exact_name" => Ranking {
                exact_name: false,
                ..full
            },
            _ => full,
        };
        let (filter, weights) = match signal {
            "production_first" => (FileFilter::ALL, FieldWeights::default()),
            "doc" => (
                FileFilter::default(),
                FieldWeights {
                    doc: 0.0,
                    ..FieldWeights::default()
                },
            ),
            "path" => (
                FileFilter::default(),
                FieldWeights {
                    path: 0.0,
                    module_path: 0.0,
                    ..FieldWeights::default()
                },
            ),
            _ => (FileFilter::default(), FieldWeights::default()),
        };
        if signal == "none" {
            continue;
        }
        let other_index = SearchIndex::build_with(&graph, weights);
        let found = first_hit(&graph, &other_index, question, without, filter);
        if found.as_deref() == Some(expected) {
            failures.push(format!(
                "{place}: without {signal}, {question:?} still finds {expected} first"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
