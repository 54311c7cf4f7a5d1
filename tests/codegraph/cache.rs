//! The on-disk cache: a warm start re-parses nothing, a changed file is re-parsed, and a corrupt
//! cache is discarded without changing the answer.

use codegraph::world::{CacheLocation, World, WorldConfig};

use crate::support;

fn copy_fixture(name: &str) -> tempfile::TempDir {
    let directory = tempfile::tempdir().unwrap();
    copy_tree(&support::fixture(name), directory.path());
    directory
}

pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn open(root: &std::path::Path) -> World {
    World::open(
        root,
        WorldConfig {
            cache: CacheLocation::InWorkspace,
            ..WorldConfig::default()
        },
    )
    .unwrap()
}

#[test]
fn warm_start_reuses_the_cache_and_sees_changes() {
    let repo = copy_fixture("python");
    let first = open(repo.path()).index(false, &|_, _| {});
    assert_eq!(first.from_cache, 0);
    assert_eq!(first.parsed, first.files);
    let cold = open(repo.path());
    cold.index(false, &|_, _| {});
    let cold_dump = cold.snapshot().dump();

    let warm = open(repo.path());
    let report = warm.index(false, &|_, _| {});
    assert_eq!(report.parsed, 0, "nothing changed, nothing re-parsed");
    assert_eq!(report.from_cache, first.files);
    assert_eq!(warm.snapshot().dump(), cold_dump);

    std::fs::write(
        repo.path().join("shop/util/math.py"),
        "def factorial(n):\n    return n\n",
    )
    .unwrap();
    let changed = open(repo.path()).index(false, &|_, _| {});
    assert_eq!(changed.parsed, 1);
    assert_eq!(changed.from_cache, first.files - 1);
}

#[test]
fn a_corrupt_cache_is_discarded_and_the_graph_is_right() {
    let repo = copy_fixture("python");
    let world = open(repo.path());
    world.index(false, &|_, _| {});
    let expected = world.snapshot().dump();
    let cache = repo.path().join(".codegraph/index.bin");
    let bytes = std::fs::read(&cache).unwrap();
    std::fs::write(&cache, &bytes[..bytes.len() / 3]).unwrap();
    let again = open(repo.path());
    let report = again.index(false, &|_, _| {});
    assert_eq!(report.from_cache, 0);
    assert_eq!(again.snapshot().dump(), expected);
    assert!(
        std::fs::read_to_string(repo.path().join(".codegraph/.gitignore"))
            .unwrap()
            .contains('*')
    );
}

#[test]
fn a_warm_start_with_changed_added_and_deleted_files_equals_a_cold_index() {
    let repo = copy_fixture("python");
    open(repo.path()).index(false, &|_, _| {});
    // Change a definition others call, delete a file others import, add a new caller.
    std::fs::write(
        repo.path().join("shop/util/math.py"),
        "def factorial_v2(n):\n    return n\n",
    )
    .unwrap();
    std::fs::remove_file(repo.path().join("shop/auth/tokens.py")).unwrap();
    std::fs::write(
        repo.path().join("shop/extra.py"),
        "from shop.util.format import format_name\n\ndef shout():\n    return format_name('a', 'b')\n",
    )
    .unwrap();
    let warm = open(repo.path());
    let report = warm.index(false, &|_, _| {});
    assert_eq!(report.parsed, 2, "the changed and the added file");
    assert_eq!(report.removed, 1);
    let (_cold_world, cold) = support::index(repo.path());
    assert_eq!(warm.snapshot().dump(), cold.dump());
    assert_eq!(warm.snapshot().index_problems(), Vec::<String>::new());
    let callers: Vec<String> =
        codegraph::graph::query::callers(&warm.snapshot(), "shop/util/format.py::format_name")
            .into_iter()
            .map(|call| call.entity.id.to_string())
            .collect();
    assert_eq!(callers, ["shop/app/main.py::main", "shop/extra.py::shout"]);
}
