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

#[test]
fn files_are_classified_by_what_they_are_for_and_counted() {
    let (_world, graph) = support::index(&support::fixture("questions"));
    for (path, class) in [
        ("mailer/message.py", FileClass::Production),
        ("tests/test_message.py", FileClass::Test),
        ("tests/__init__.py", FileClass::Test),
        ("examples/send_newsletter.py", FileClass::Example),
    ] {
        assert_eq!(graph.file(path).unwrap().class, class, "{path}");
    }
    assert_eq!(
        graph.class_of("tests/test_message.py::EmailMessageTests.test_recipients"),
        FileClass::Test
    );
    let mut report = codegraph::world::IndexReport::default();
    codegraph::world::fill_counts(&mut report, &graph);
    let counts: Vec<(&str, usize)> = report
        .files_by_class
        .iter()
        .map(|(class, count)| (class.as_str(), *count))
        .collect();
    assert_eq!(counts, [("example", 1), ("production", 16), ("test", 5)]);
}

#[test]
fn filters_keep_or_drop_tests() {
    let (_world, graph) = support::index(&support::fixture("questions"));
    let index = SearchIndex::build(&graph);
    let classes = |filter: FileFilter| -> Vec<FileClass> {
        let options = SearchOptions::new(&graph, SearchScope::All, 50).with_filter(filter);
        let mut classes: Vec<FileClass> = index
            .search_with("send email message", &options)
            .hits
            .iter()
            .map(|hit| hit.class)
            .collect();
        classes.sort();
        classes.dedup();
        classes
    };
    assert_eq!(
        classes(FileFilter::default()),
        [FileClass::Production, FileClass::Test, FileClass::Example]
    );
    assert_eq!(
        classes(FileFilter::parse("production").unwrap()),
        [FileClass::Production]
    );
    assert_eq!(
        classes(FileFilter::parse("tests").unwrap()),
        [FileClass::Test]
    );
}

#[test]
fn communities_form_over_production_code_and_tests_join_what_they_exercise() {
    let (_world, graph) = support::index(&support::fixture("questions"));
    let found = communities::compute(&graph);
    let at = |id: &str, level: usize| found.community_of(id, level).unwrap().id;
    // Each test joins the community of the code it calls; a test class goes with its methods.
    for (test, exercised) in [
        (
            "tests/test_message.py::EmailMessageTests.test_send_email_message",
            "mailer/message.py::EmailMessage.send",
        ),
        (
            "tests/test_billing.py::test_invoice_total",
            "billing/invoice.py::Invoice.total",
        ),
        (
            "tests/test_executor.py::ExecutorTests.test_migrate_forwards",
            "migrations/executor.py::MigrationExecutor.run",
        ),
        (
            "tests/test_executor.py::ExecutorTests",
            "migrations/executor.py::MigrationExecutor",
        ),
        (
            "examples/send_newsletter.py::send_newsletter_email_message",
            "mailer/message.py::EmailMessage",
        ),
    ] {
        for level in 0..communities::LEVELS {
            assert_eq!(
                at(test, level),
                at(exercised, level),
                "{test} at level {level}"
            );
        }
    }
    // Test code that touches no production code forms a community of its own.
    let standalone = found
        .community_of("tests/test_standalone.py::test_numbers_add_up", 0)
        .unwrap();
    assert_eq!(standalone.production_count, 0);
    assert!(
        standalone
            .members
            .iter()
            .any(|member| &**member == "tests/test_standalone.py::make_numbers")
    );
    // Named after production directories and central entities, never after tests.
    let mailer = found
        .community_of("mailer/message.py::EmailMessage", 0)
        .unwrap();
    assert!(mailer.production_count < mailer.member_count);
    assert!(mailer.name.starts_with("mailer: "), "{}", mailer.name);
    assert!(mailer.name.contains("EmailMessage"), "{}", mailer.name);
    assert!(
        mailer
            .summary
            .contains("\"A container for email information: subject, body, recipients.\""),
        "{}",
        mailer.summary
    );
    for community in found.at_level(0) {
        if community.production_count > 0 {
            assert!(!community.name.starts_with("tests"), "{}", community.name);
        }
    }
}

#[test]
fn local_search_follows_what_an_entity_uses_before_who_calls_it() {
    let (_world, graph) = support::index(&support::fixture("questions"));
    let index = SearchIndex::build(&graph);
    let start = match query::lookup(&graph, "migrations/executor.py::MigrationExecutor") {
        Lookup::Found(entity) => entity,
        other => panic!("{other:?}"),
    };
    let answer = rag::local_search(
        &graph,
        &index,
        "What does it use to find migrations?",
        &[start],
        &LocalOptions::default(),
    );
    let ranked: Vec<(&str, &str)> = answer
        .relevant_entities
        .iter()
        .map(|relevant| (&*relevant.entity.id, relevant.relation.as_str()))
        .collect();
    // The loader its constructor assigns to `self.loader`, and its members, come before the
    // tests that call the executor (whose names say "migrate" too).
    assert_eq!(
        ranked[0],
        ("migrations/loader.py::MigrationLoader", "calls")
    );
    let first_test = ranked
        .iter()
        .position(|(id, _)| id.starts_with("tests/"))
        .unwrap_or(ranked.len());
    let load_disk = ranked
        .iter()
        .position(|(id, _)| *id == "migrations/loader.py::MigrationLoader.load_disk")
        .unwrap();
    assert!(load_disk < first_test, "{ranked:?}");
}

#[test]
fn global_search_chooses_the_level_from_the_question() {
    let (_world, graph) = support::index(&support::fixture("questions"));
    let index = SearchIndex::build(&graph);
    let found = communities::compute(&graph);
    let answer = rag::global_search(
        &graph,
        &index,
        &found,
        "send email message",
        &GlobalOptions::default(),
    );
    assert_eq!(
        answer.supporting_entities[0].entity.id.as_ref(),
        "mailer/message.py::EmailMessage.send"
    );
    let best = &answer.relevant_communities[0];
    assert!(best.name.starts_with("mailer"), "{}", best.name);
    assert!(
        answer.answer.contains("(Answered from level"),
        "{}",
        answer.answer
    );
    // An explicit level is kept.
    let coarse = rag::global_search(
        &graph,
        &index,
        &found,
        "send email message",
        &GlobalOptions {
            level: Some(2),
            ..GlobalOptions::default()
        },
    );
    assert_eq!(coarse.community_level, 2);
    assert!(!coarse.answer.contains("(Answered from level"));
    // The best match of the search leads the supporting entities, whichever community wins
    // (on the benchmark, `select!` lost to three communities of `Waiter`s).
    for question in [
        "refund line",
        "Invoice",
        "template loader for the engine",
        "tests of sending an email message",
        "receipt refund migrations loader template engine email backend",
    ] {
        let options = SearchOptions::new(&graph, SearchScope::All, 1);
        let best = index.search_with(question, &options).hits[0].id;
        let answer =
            rag::global_search(&graph, &index, &found, question, &GlobalOptions::default());
        assert_eq!(answer.supporting_entities[0].entity.id, best, "{question}");
    }
}
