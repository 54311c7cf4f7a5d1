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
