//! Change impact (`World::affected`, the function behind `codegraph affected`, the MCP tool
//! `find_affected_tests` and the LSP command `codegraph.affectedTests`): for a small git
//! repository per language family, each change's exact selection of tests.

use std::path::Path;
use std::process::Command;

use codegraph::analysis::affected::{Format, tests::render};
use codegraph::world::World;

use crate::support;

mod instances;
mod reach;

/// A git repository in a temporary directory, committed once.
struct Repo {
    directory: tempfile::TempDir,
}

impl Repo {
    fn new(files: &[(&str, &str)]) -> Repo {
        let repo = Repo {
            directory: tempfile::tempdir().unwrap(),
        };
        for (path, text) in files {
            repo.write(path, text);
        }
        support::commit_all(repo.root());
        repo
    }

    fn root(&self) -> &Path {
        self.directory.path()
    }

    fn git(&self, arguments: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(self.root())
            .args(arguments)
            .status()
            .unwrap();
        assert!(status.success(), "git {arguments:?}");
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn replace(&self, path: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.root().join(path)).unwrap();
        assert!(text.contains(from), "{path} has no {from:?}");
        self.write(path, &text.replacen(from, to, 1));
    }

    /// Undoes every change since the commit.
    fn reset(&self) {
        self.git(&["checkout", "-q", "--", "."]);
        self.git(&["clean", "-qfd"]);
    }

    /// The change since HEAD, indexed afresh: (changed "id change", the selection in `format`).
    fn affected(&self, format: Format) -> (Vec<String>, Vec<String>) {
        let (world, _) = support::index(self.root());
        selection(&world, format)
    }
}

fn selection(world: &World, format: Format) -> (Vec<String>, Vec<String>) {
    let (graph, answer) = world.affected("HEAD").unwrap();
    let impact = &answer.impact;
    let changed = impact
        .changed
        .iter()
        .map(|changed| format!("{} {}", changed.id, changed.change.as_str()))
        .collect();
    let selected = render(&impact.tests, &impact.test_files, &graph, format);
    (changed, selected.lines().map(str::to_string).collect())
}

const PYTHON: &[(&str, &str)] = &[
    ("pkg/__init__.py", ""),
    (
        "pkg/core.py",
        "LIMIT = 3\n\n\ndef helper(text):\n    return text.strip()\n\n\ndef parse(text):\n    return helper(text)[:LIMIT]\n\n\nclass Base:\n    def run(self):\n        return self.step()\n\n    def step(self):\n        return \"base\"\n\n\nclass Child(Base):\n    def step(self):\n        return \"child\"\n\n\ndef on_event(value):\n    return value * 2\n\n\nCALLBACKS = {\"event\": on_event}\n",
    ),
    (
        "pkg/api.py",
        "from pkg.core import parse, Child\n\n\ndef load(path):\n    return parse(path)\n\n\ndef make():\n    return Child().run()\n",
    ),
    ("pkg/unrelated.py", "def alone():\n    return 0\n"),
    (
        "tests/conftest.py",
        "import pytest\nfrom pkg.api import make\n\n\n@pytest.fixture\ndef made():\n    return make()\n",
    ),
    (
        "tests/test_api.py",
        "from pkg.api import load\n\n\ndef test_load():\n    assert load(\" abcd \") == \"abc\"\n\n\ndef test_made(made):\n    assert made == \"child\"\n",
    ),
    (
        "tests/test_events.py",
        "from pkg.core import CALLBACKS\n\n\nclass TestCallbacks:\n    def test_event(self):\n        assert CALLBACKS[\"event\"](2) == 4\n\n\ndef test_alone():\n    from pkg.unrelated import alone\n    assert alone() == 0\n",
    ),
    ("setup.cfg", "[metadata]\nname = pkg\n"),
];

#[test]
fn python_changes_select_exactly_the_tests_that_reach_them() {
    let repo = Repo::new(PYTHON);
    let strings = |items: &[&str]| {
        items
            .iter()
            .map(|item| item.to_string())
            .collect::<Vec<_>>()
    };

    // Nothing changed: nothing to run.
    assert_eq!(repo.affected(Format::Pytest), (vec![], vec![]));

    // A helper's body: the test that calls it through two callers.
    repo.replace(
        "pkg/core.py",
        "return text.strip()",
        "return text.strip().lower()",
    );
    assert_eq!(
        repo.affected(Format::Pytest),
        (
            strings(&["pkg/core.py::helper body"]),
            strings(&["tests/test_api.py::test_load"])
        )
    );
    repo.reset();

    // An override: reached through the base's `self.step()`, a constructor and a conftest
    // fixture the test takes as a parameter.
    repo.replace("pkg/core.py", "return \"child\"", "return \"CHILD\"");
    assert_eq!(
        repo.affected(Format::Pytest),
        (
            strings(&["pkg/core.py::Child.step body"]),
            strings(&["tests/test_api.py::test_made"])
        )
    );
    repo.reset();

    // A base class's own code: its subclass, and who constructs it.
    repo.replace(
        "pkg/core.py",
        "class Base:\n",
        "class Base:\n    kind = \"base\"\n",
    );
    assert_eq!(
        repo.affected(Format::Pytest),
        (
            strings(&["pkg/core.py::Base body"]),
            strings(&["tests/test_api.py::test_made"])
        )
    );
    repo.reset();

    // A function stored as a value in module state: the tests of the files that import it.
    repo.replace("pkg/core.py", "return value * 2", "return value * 3");
    assert_eq!(
        repo.affected(Format::Pytest),
        (
            strings(&["pkg/core.py::on_event body"]),
            strings(&[
                "tests/test_events.py::TestCallbacks::test_event",
                "tests/test_events.py::test_alone"
            ])
        )
    );
    repo.reset();

    // A removed function whose caller was not updated: the caller's tests.
    repo.replace(
        "pkg/core.py",
        "def helper(text):",
        "def renamed_helper(text):",
    );
    let (changed, selected) = repo.affected(Format::Pytest);
    assert_eq!(
        changed,
        strings(&[
            "pkg/core.py::helper removed",
            "pkg/core.py::renamed_helper added"
        ])
    );
    assert_eq!(selected, strings(&["tests/test_api.py::test_load"]));
    repo.reset();

    // A new test file, untracked: its tests; a configuration file: unmodelled.
    repo.write("tests/test_new.py", "def test_new():\n    assert True\n");
    repo.replace("setup.cfg", "name = pkg", "name = pkg2");
    let (world, _) = support::index(repo.root());
    let (_, answer) = world.affected("HEAD").unwrap();
    let names: Vec<&str> = answer
        .impact
        .tests
        .iter()
        .map(|test| test.name.as_str())
        .collect();
    assert_eq!(names, ["tests/test_new.py::test_new"]);
    assert_eq!(answer.impact.unmodelled, ["setup.cfg"]);
    repo.reset();
}

#[test]
fn an_unsaved_edit_is_part_of_the_change() {
    let repo = Repo::new(PYTHON);
    let (world, _) = support::index(repo.root());
    world.prepare_changes();
    let text = std::fs::read_to_string(repo.root().join("pkg/api.py")).unwrap();
    assert!(world.open_buffer("pkg/api.py", 1, text.clone()));
    assert_eq!(selection(&world, Format::Pytest), (vec![], vec![]));
    let edited = text.replace("return parse(path)", "return parse(path.strip())");
    set_buffer(&world, "pkg/api.py", 2, &edited);
    let (graph, answer) = world.affected("HEAD").unwrap();
    assert_eq!(answer.provenance.unsaved, ["pkg/api.py"]);
    let selected = render(
        &answer.impact.tests,
        &answer.impact.test_files,
        &graph,
        Format::Pytest,
    );
    assert_eq!(selected, "tests/test_api.py::test_load");
    // The disk did not change: the same question without the editor selects nothing.
    assert_eq!(repo.affected(Format::Pytest), (vec![], vec![]));
}

/// Replaces the whole text of the open buffer `path` with `text`, as version `version`.
fn set_buffer(world: &World, path: &str, version: i32, text: &str) {
    assert!(world.edit_buffer(
        path,
        version,
        &[codegraph::world::buffer::TextEdit {
            range: None,
            text: text.to_string(),
            encoding: Default::default(),
        }]
    ));
}

#[test]
fn a_live_server_answers_each_edit_from_the_text_as_it_is_now() {
    // The server keeps what it learnt of each file's words from one answer to the next; each
    // answer reads the buffers as they are now: changed, undone, changed again.
    let repo = Repo::new(PYTHON);
    let (world, _) = support::index(repo.root());
    world.prepare_changes();
    let text = std::fs::read_to_string(repo.root().join("pkg/core.py")).unwrap();
    assert!(world.open_buffer("pkg/core.py", 1, text.clone()));
    let changed = text.replace("return value * 2", "return value * 3");
    let held = (
        vec!["pkg/core.py::on_event body".to_string()],
        vec![
            "tests/test_events.py::TestCallbacks::test_event".to_string(),
            "tests/test_events.py::test_alone".to_string(),
        ],
    );
    set_buffer(&world, "pkg/core.py", 2, &changed);
    assert_eq!(selection(&world, Format::Pytest), held);
    set_buffer(&world, "pkg/core.py", 3, &text);
    assert_eq!(selection(&world, Format::Pytest), (vec![], vec![]));
    set_buffer(&world, "pkg/core.py", 4, &changed);
    assert_eq!(selection(&world, Format::Pytest), held);
}

#[test]
fn go_rust_and_javascript_selections_are_what_their_runners_take() {
    let go = Repo::new(&[
        ("go.mod", "module example.com/m\n\ngo 1.21\n"),
        (
            "calc/calc.go",
            "package calc\n\nfunc Add(a, b int) int { return sum(a, b) }\n\nfunc sum(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a * b }\n",
        ),
        (
            "calc/calc_test.go",
            "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 2) != 4 {\n\t\tt.Fatal()\n\t}\n}\n\nfunc BenchmarkAdd(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tAdd(1, 2)\n\t}\n}\n",
        ),
    ]);
    go.replace("calc/calc.go", "return a + b", "return b + a");
    assert_eq!(
        go.affected(Format::Go).1,
        ["./calc ^(BenchmarkAdd|TestAdd)$"]
    );

    let rust = Repo::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "src/lib.rs",
            "pub mod text;\n\npub fn parse(input: &str) -> usize {\n    text::helper(input)\n}\n\npub fn other() -> usize {\n    1\n}\n",
        ),
        (
            "src/text.rs",
            "pub fn helper(input: &str) -> usize {\n    input.len()\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn measures() {\n        assert_eq!(helper(\"ab\"), 2);\n    }\n\n    #[test]\n    fn unrelated() {\n        assert_eq!(1, 1);\n    }\n}\n",
        ),
        (
            "tests/it.rs",
            "#[test]\nfn parses() {\n    assert_eq!(m::parse(\"abc\"), 3);\n}\n\n#[test]\nfn others() {\n    assert_eq!(m::other(), 1);\n}\n",
        ),
    ]);
    rust.replace("src/text.rs", "input.len()", "input.chars().count()");
    assert_eq!(
        rust.affected(Format::Cargo).1,
        ["text::tests::measures", "parses"]
    );

    let javascript = Repo::new(&[
        (
            "package.json",
            "{\"name\": \"m\", \"version\": \"1.0.0\"}\n",
        ),
        (
            "src/math.js",
            "export function add(a, b) {\n  return sum(a, b);\n}\n\nfunction sum(a, b) {\n  return a + b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n",
        ),
        (
            "test/add.test.js",
            "import { add } from '../src/math.js';\n\ndescribe('add', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n",
        ),
        (
            "test/mul.test.js",
            "import { mul } from '../src/math.js';\n\ntest('mul', () => {\n  expect(mul(2, 2)).toBe(4);\n});\n",
        ),
    ]);
    javascript.replace("src/math.js", "return a + b;", "return b + a;");
    assert_eq!(javascript.affected(Format::Jest).1, ["test/add.test.js"]);
}

#[test]
fn the_editor_command_answers_for_the_unsaved_buffers() {
    use crate::lsp::{LspClient, uri};
    use serde_json::{Value, json};

    let repo = Repo::new(PYTHON);
    let root = repo.root().canonicalize().unwrap();
    let (mut lsp, initialized) = LspClient::start(&[&root], false);
    let commands = &initialized["capabilities"]["executeCommandProvider"]["commands"];
    assert!(
        commands
            .as_array()
            .unwrap()
            .contains(&json!("codegraph.affectedTests")),
        "{commands}"
    );
    let api = root.join("pkg/api.py");
    let text = std::fs::read_to_string(&api).unwrap();
    lsp.open(&api, &text);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&api), "version": 2},
               "contentChanges": [{"text": text.replace("Child().run()", "Child().step()")}]}),
    );
    lsp.request("codegraph/status", Value::Null);
    let answer = lsp.request(
        "workspace/executeCommand",
        json!({"command": "codegraph.affectedTests", "arguments": [{"base": "HEAD"}]}),
    );
    let folder = &answer[0];
    assert_eq!(folder["changed"][0]["id"], "pkg/api.py::make", "{answer}");
    let tests: Vec<&str> = folder["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| test["name"].as_str().unwrap())
        .collect();
    assert_eq!(tests, ["tests/test_api.py::test_made"]);
    assert_eq!(folder["provenance"]["unsaved"], json!(["pkg/api.py"]));
    assert!(lsp.shutdown().success());
}

#[test]
fn a_branch_is_compared_from_where_it_left_its_base() {
    let repo = Repo::new(PYTHON);
    repo.git(&["branch", "-M", "trunk"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.replace(
        "pkg/api.py",
        "return parse(path)",
        "return parse(path.strip())",
    );
    repo.git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qam",
        "feature",
    ]);
    // The base moves on after the branch left it: its commit is not the branch's change.
    repo.git(&["checkout", "-q", "trunk"]);
    repo.replace(
        "pkg/core.py",
        "return text.strip()",
        "return text.strip().lower()",
    );
    repo.git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qam",
        "trunk",
    ]);
    repo.git(&["checkout", "-q", "feature"]);
    let (world, _) = support::index(repo.root());
    let (graph, answer) = world.affected("trunk").unwrap();
    let changed: Vec<String> = answer
        .impact
        .changed
        .iter()
        .map(|changed| changed.id.to_string())
        .collect();
    assert_eq!(changed, ["pkg/api.py::load"]);
    let selected = render(
        &answer.impact.tests,
        &answer.impact.test_files,
        &graph,
        Format::Pytest,
    );
    assert_eq!(selected, "tests/test_api.py::test_load");
}

#[test]
fn outside_git_or_with_an_unknown_base_the_answer_is_an_error_that_says_why() {
    let directory = tempfile::tempdir().unwrap();
    std::fs::write(directory.path().join("a.py"), "def f():\n    pass\n").unwrap();
    let (world, _) = support::index(directory.path());
    let error = |world: &World, base: &str| match world.affected(base) {
        Ok(_) => panic!("{base}: answered"),
        Err(error) => error.to_string(),
    };
    let outside = error(&world, "HEAD");
    assert!(outside.contains("not in a git repository"), "{outside}");

    let repo = Repo::new(PYTHON);
    let (world, _) = support::index(repo.root());
    let unknown = error(&world, "no-such-branch");
    assert!(
        unknown.starts_with("no-such-branch: no such revision"),
        "{unknown}"
    );
    assert_eq!(
        error(&world, "--output=/tmp/x"),
        "--output=/tmp/x: not a revision"
    );
}

#[test]
fn python_tests_are_named_where_pytest_collects_them_and_import_time_calls_reach_every_importer() {
    let repo = Repo::new(&[
        (
            "pkg/__init__.py",
            "from pkg.version import get_version\n\n__version__ = get_version()\n",
        ),
        ("pkg/version.py", "def get_version():\n    return \"1\"\n"),
        (
            "pkg/cache.py",
            "class Cache:\n    def get(self, key):\n        return key\n\n    def __len__(self):\n        return 0\n",
        ),
        (
            "tests/test_held.py",
            "from pkg.cache import Cache\n\n\nclass TestHeld:\n    Kind = Cache\n\n    def test_kind(self):\n        assert self.Kind().get(3) == 3\n",
        ),
        ("pkg/other.py", "def other():\n    return 0\n"),
        (
            "tests/__init__.py",
            "from pkg.cache import Cache\n\n\nclass CacheMixin:\n    def test_get(self):\n        assert Cache().get(1) == 1\n",
        ),
        (
            "tests/test_lru.py",
            "import unittest\n\nfrom tests import CacheMixin\n\n\nclass LRUTest(unittest.TestCase, CacheMixin):\n    pass\n",
        ),
        (
            "tests/test_base.py",
            "from pkg.cache import Cache\n\n\nclass TestBase:\n    def test_one(self):\n        assert Cache().get(2) == 2\n",
        ),
        (
            "tests/test_more.py",
            "from tests.test_base import TestBase\n\n\nclass TestMore(TestBase):\n    def test_two(self):\n        assert True\n",
        ),
        (
            "tests/test_other.py",
            "from pkg.other import other\n\n\ndef test_other():\n    assert other() == 0\n",
        ),
    ]);
    // A test written in a mixin runs in the TestCase that mixes it in; a test class imported
    // into another test module runs there too, and in its subclasses.
    repo.replace("pkg/cache.py", "return key", "return key or None");
    assert_eq!(
        repo.affected(Format::Pytest).1,
        [
            "tests/test_base.py::TestBase::test_one",
            "tests/test_held.py::TestHeld::test_kind",
            "tests/test_lru.py::LRUTest::test_get",
            "tests/test_more.py::TestBase::test_one",
            "tests/test_more.py::TestMore::test_one",
        ]
    );
    repo.reset();
    // A special method: the class's users, a test class that holds it as a value included.
    repo.replace("pkg/cache.py", "return 0", "return 1");
    assert_eq!(
        repo.affected(Format::Pytest).1,
        [
            "tests/test_base.py::TestBase::test_one",
            "tests/test_held.py::TestHeld::test_kind",
            "tests/test_lru.py::LRUTest::test_get",
            "tests/test_more.py::TestBase::test_one",
            "tests/test_more.py::TestMore::test_one",
        ]
    );
    repo.reset();
    // A function called when the package is imported: every test that imports the package,
    // or any of its modules.
    repo.replace("pkg/version.py", "return \"1\"", "return \"2\"");
    assert_eq!(
        repo.affected(Format::Pytest).1,
        [
            "tests/test_base.py::TestBase::test_one",
            "tests/test_held.py::TestHeld::test_kind",
            "tests/test_lru.py::LRUTest::test_get",
            "tests/test_more.py::TestBase::test_one",
            "tests/test_more.py::TestMore::test_one",
            "tests/test_more.py::TestMore::test_two",
            "tests/test_other.py::test_other",
        ]
    );
}
