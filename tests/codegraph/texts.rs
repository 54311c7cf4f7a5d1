//! Texts live on disk, not in the graph: a file no editor has open is read again when an answer
//! needs its text, checked against the hash it was indexed from; a file changed since is
//! re-indexed rather than misquoted. Open buffers stay resident.

use codegraph::graph::query;

use crate::support;

const SHOP: &str =
    "def charge(amount):\n    return amount\n\n\ndef checkout():\n    return charge(3)\n";

fn snippet(graph: &codegraph::graph::Graph, id: &str) -> String {
    let entity = graph.entity(id).expect("entity exists");
    let text = graph
        .file(&entity.file_path)
        .and_then(|file| file.text())
        .unwrap_or_default();
    text[entity.span.start_byte as usize..entity.span.end_byte as usize].to_string()
}

#[test]
fn a_file_on_disk_is_read_again_for_its_text_and_an_open_buffer_stays_resident() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("shop.py"), SHOP).unwrap();
    let (world, graph) = support::index(repo.path());
    let file = graph.file("shop.py").unwrap();
    assert!(!file.text_is_resident());
    assert!(file.ascii);
    assert_eq!(file.text_len(), SHOP.len());
    assert_eq!(file.text().as_deref(), Some(SHOP));
    assert_eq!(
        snippet(&graph, "shop.py::charge"),
        "def charge(amount):\n    return amount"
    );

    // An editor opens it with unsaved text: resident, and answers quote the buffer.
    let unsaved = SHOP.replace("return amount", "return amount * 2");
    assert!(world.open_buffer("shop.py", 1, unsaved.clone()));
    let graph = world.snapshot();
    let file = graph.file("shop.py").unwrap();
    assert!(file.text_is_resident());
    assert_eq!(file.text().as_deref(), Some(unsaved.as_str()));
    assert_eq!(
        snippet(&graph, "shop.py::charge"),
        "def charge(amount):\n    return amount * 2"
    );

    // Closed: back to the disk's text, not resident.
    world.close_buffer("shop.py");
    let graph = world.snapshot();
    let file = graph.file("shop.py").unwrap();
    assert!(!file.text_is_resident());
    assert_eq!(file.text().as_deref(), Some(SHOP));
}

#[test]
fn a_file_changed_on_disk_is_not_quoted_but_re_indexed() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("shop.py"), SHOP).unwrap();
    let (world, graph) = support::index(repo.path());
    // Changed behind the graph's back (no watcher event yet): the old snapshot's spans no
    // longer fit the disk, so it has no text to give.
    let changed = format!("# a new first line\n{SHOP}\ndef refund():\n    return charge(-1)\n");
    std::fs::write(repo.path().join("shop.py"), &changed).unwrap();
    assert_eq!(graph.file("shop.py").unwrap().text(), None);
    // The next snapshot has re-indexed it: the new text, the new definition, its call.
    let graph = world.snapshot();
    assert_eq!(
        graph.file("shop.py").unwrap().text().as_deref(),
        Some(changed.as_str())
    );
    assert_eq!(
        snippet(&graph, "shop.py::charge"),
        "def charge(amount):\n    return amount"
    );
    let callers: Vec<String> = query::callers(&graph, "shop.py::charge")
        .into_iter()
        .map(|call| call.entity.id.to_string())
        .collect();
    assert_eq!(callers, ["shop.py::checkout", "shop.py::refund"]);
}

#[test]
fn a_file_removed_from_disk_has_no_text_and_leaves_the_graph() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("shop.py"), SHOP).unwrap();
    std::fs::write(repo.path().join("other.py"), "def other():\n    pass\n").unwrap();
    let (world, graph) = support::index(repo.path());
    std::fs::remove_file(repo.path().join("shop.py")).unwrap();
    assert_eq!(graph.file("shop.py").unwrap().text(), None);
    let graph = world.snapshot();
    assert!(graph.file("shop.py").is_none());
    assert!(graph.contains_entity("other.py::other"));
}

/// Only the documents edited last keep a syntax tree (about 40 times their text); one edited
/// before them parses in full on its next edit, with the same result.
#[test]
fn only_the_documents_edited_last_keep_a_syntax_tree() {
    use codegraph::world::buffer::{ClientPosition, ColumnEncoding, TextEdit};
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("shop.py"), SHOP).unwrap();
    for number in 0..10 {
        std::fs::write(
            repo.path().join(format!("m{number}.py")),
            format!("from shop import charge\n\n\ndef pay{number}():\n    return 0\n"),
        )
        .unwrap();
    }
    let (world, _) = support::index(repo.path());
    // `return 0` becomes `return charge(0)`: a new call in each module.
    let call_charge = |path: &str, version: i32| {
        let edit = TextEdit {
            range: Some((
                ClientPosition {
                    line: 4,
                    column: 11,
                },
                ClientPosition {
                    line: 4,
                    column: 12,
                },
            )),
            text: "charge(0)".to_string(),
            encoding: ColumnEncoding::Utf16,
        };
        assert!(world.edit_buffer(path, version, &[edit]));
    };
    for number in 0..10 {
        let path = format!("m{number}.py");
        let text = std::fs::read_to_string(repo.path().join(&path)).unwrap();
        assert!(world.open_buffer(&path, 1, text));
        call_charge(&path, 2);
    }
    let with_trees: Vec<String> = world
        .open_documents()
        .into_iter()
        .filter(|(_, tree)| *tree)
        .map(|(path, _)| path.to_string())
        .collect();
    assert_eq!(
        with_trees,
        [
            "m2.py", "m3.py", "m4.py", "m5.py", "m6.py", "m7.py", "m8.py", "m9.py"
        ]
    );
    // m0 lost its tree; its next edit (the call back to `0`) parses it in full.
    let edit = TextEdit {
        range: Some((
            ClientPosition {
                line: 4,
                column: 11,
            },
            ClientPosition {
                line: 4,
                column: 20,
            },
        )),
        text: "0".to_string(),
        encoding: ColumnEncoding::Utf16,
    };
    assert!(world.edit_buffer("m0.py", 3, &[edit]));
    assert_eq!(
        world.buffer_text("m0.py").as_deref(),
        Some("from shop import charge\n\n\ndef pay0():\n    return 0\n")
    );
    let graph = world.snapshot();
    let mut callers: Vec<String> = query::callers(&graph, "shop.py::charge")
        .into_iter()
        .map(|call| call.entity.id.to_string())
        .collect();
    callers.dedup();
    let mut expected: Vec<String> = (1..10)
        .map(|number| format!("m{number}.py::pay{number}"))
        .collect();
    expected.insert(0, "shop.py::checkout".to_string());
    expected.sort();
    assert_eq!(callers, expected);
    assert!(
        world
            .open_documents()
            .iter()
            .any(|(path, tree)| &**path == "m0.py" && *tree)
    );
}
