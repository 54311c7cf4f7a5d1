//! Which entities are tests, by each language's conventions, and the selection written for each
//! test runner.
//!
//! A test is a definition the language's runner collects:
//! - Python (pytest, unittest): a function or method named `test*` in a test file (a method of
//!   any class: `Test*` for pytest, a `TestCase` for unittest);
//! - Go: `TestXxx`, `BenchmarkXxx`, `ExampleXxx`, `FuzzXxx` in a `_test.go` file;
//! - Rust, Java, Kotlin, C#, Swift: a function marked by a test attribute or annotation
//!   (`#[test]`, `#[tokio::test]`, `@Test`, `[Fact]`, ...), in any file;
//! - JavaScript and TypeScript: a test file as a whole (its `describe`/`it`/`test` blocks are
//!   the file's own code); other languages' test files as a whole too.
//!
//! pytest fixtures are followed as the runner injects them: a fixture (any function of a test
//! file or `conftest.py` that is not a test) reaches the tests and fixtures that name it as a
//! parameter in its file, or below its `conftest.py`'s directory.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use codegraph_graph::query;
use codegraph_graph::{EntityId, FileNode, FilePath, Graph};
use codegraph_lang::Language;
use codegraph_model::{EntityKind, FileClass, RelationKind};

use super::changes::{Change, Changed};
use super::walk::{Affected, Confidence, Node, State, Step};

/// A test to run.
#[derive(Debug, Clone, Serialize)]
pub struct Test {
    pub id: EntityId,
    pub file: FilePath,
    /// The name its runner selects it by: a pytest node id (`tests/test_a.py::TestA::test_b`),
    /// a Rust test path (`parser::tests::parses_empty`), a Go test name, else the nested name.
    pub name: String,
    /// One-based.
    pub line: u32,
    pub confidence: Confidence,
    /// From a changed entity to the test, both ends included; the test alone when it changed.
    pub via: Vec<EntityId>,
}

/// How `codegraph affected` prints its selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One test a line, with its file, line and confidence; then the test files.
    List,
    /// pytest node ids (and whole test files), one a line.
    Pytest,
    /// Rust test paths, one a line: `cargo test -- $(...)` (libtest takes several filters).
    Cargo,
    /// Per Go package, its directory and a `-run` expression: `./pkg ^(TestA|TestB)$`.
    Go,
    /// JavaScript and TypeScript test files, one a line (Jest, Vitest and Mocha take paths).
    Jest,
}

impl Format {
    pub fn parse(text: &str) -> Option<Format> {
        Some(match text {
            "list" => Format::List,
            "pytest" => Format::Pytest,
            "cargo" | "nextest" => Format::Cargo,
            "go" => Format::Go,
            "jest" | "vitest" | "mocha" => Format::Jest,
            _ => return None,
        })
    }
}

/// The tests among the changed and affected entities (a test file whose own code changed or is
/// affected gives all its tests), and the test files that hold them.
pub(crate) fn select(
    graph: &Graph,
    changed: &[Changed],
    affected: &[Affected],
) -> (Vec<Test>, Vec<FilePath>) {
    let mut reached: Vec<(EntityId, Confidence, Vec<EntityId>)> = changed
        .iter()
        .filter(|changed| changed.change != Change::Removed)
        .map(|changed| (changed.id, Confidence::Proven, vec![changed.id]))
        .collect();
    reached.extend(
        affected
            .iter()
            .map(|affected| (affected.id, affected.confidence, affected.via.clone())),
    );
    let mut selection = Selection::default();
    let mut texts: FxHashMap<FilePath, Option<Arc<str>>> = FxHashMap::default();
    for (id, confidence, via) in reached {
        let Some(location) = graph.location(&id) else {
            continue;
        };
        let Some(file) = graph.file(&location.file) else {
            continue;
        };
        let indices: Vec<u32> = match location.index {
            // A test class reached (its class attributes, a class it holds as a value): its
            // tests, those it inherits included (collected under it).
            Some(index)
                if is_test_file(file)
                    && file.summary.defs[index as usize].kind == EntityKind::Class =>
            {
                for class in with_subclasses(graph, &id) {
                    for test in class_tests(graph, &class, confidence, &via) {
                        selection.add(test);
                    }
                }
                selection.files.insert(file.path);
                continue;
            }
            // A test class's hook (`setUp`, a fixture method): the tests of the class and of
            // the test classes that extend it, which run it without calling it.
            Some(index) if is_test_file(file) && is_hook(file, index) => {
                let class = file.summary.defs[index as usize]
                    .parent
                    .map(|parent| file.ids[parent as usize]);
                for class in class.iter().flat_map(|class| with_subclasses(graph, class)) {
                    for test in class_tests(graph, &class, confidence, &via) {
                        selection.add(test);
                    }
                }
                continue;
            }
            Some(index) => vec![index],
            // The file's own code: every test of a test file.
            None if is_test_file(file) => (0..file.summary.defs.len() as u32).collect(),
            None => continue,
        };
        // Read only where a test is told by its annotations.
        let text = (!matches!(file.language, Language::Python | Language::Go))
            .then(|| {
                texts
                    .entry(file.path)
                    .or_insert_with(|| file.text())
                    .clone()
            })
            .flatten();
        for index in indices {
            if !is_test(file, text.as_deref(), index) {
                continue;
            }
            let test_id = file.ids[index as usize];
            let mut path = via.clone();
            if path.last() != Some(&test_id) {
                path.push(test_id);
            }
            for test in collected(graph, file, index, confidence, &path) {
                selection.add(test);
            }
        }
        if is_test_file(file) && !collects_definitions(file.language) {
            selection.files.insert(file.path);
        }
    }
    selection.finish()
}

/// Tests by the name their runner selects them by, each with its surest path, and the test
/// files to run whole.
#[derive(Default)]
pub(crate) struct Selection {
    tests: FxHashMap<(EntityId, String), Test>,
    pub(crate) files: FxHashSet<FilePath>,
}

impl Selection {
    /// Adds `test`, unless it is known with a surer path.
    pub(crate) fn add(&mut self, test: Test) {
        let key = (test.id, test.name.clone());
        if self
            .tests
            .get(&key)
            .is_none_or(|known| known.confidence < test.confidence)
        {
            self.tests.insert(key, test);
        }
    }

    /// The tests in file and line order, and the test files: those added, and those of the
    /// tests.
    pub(crate) fn finish(self) -> (Vec<Test>, Vec<FilePath>) {
        let mut tests: Vec<Test> = self.tests.into_values().collect();
        tests.sort_by(|left, right| {
            (left.file, left.line, &left.name).cmp(&(right.file, right.line, &right.name))
        });
        let mut files = self.files;
        files.extend(tests.iter().map(|test| test.file));
        let mut files: Vec<FilePath> = files.into_iter().collect();
        files.sort();
        (tests, files)
    }
}

/// The tests its runner collects for definition `index` of `file`: the definition itself; for
/// a Python test method, under each class pytest collects it in (its own class unless that is a
/// mixin, every subclass that does not override it, in any test file, and in every test module
/// that imports one of those classes).
fn collected(
    graph: &Graph,
    file: &FileNode,
    index: u32,
    confidence: Confidence,
    via: &[EntityId],
) -> Vec<Test> {
    let def = &file.summary.defs[index as usize];
    let parent = def
        .parent
        .filter(|parent| file.summary.defs[*parent as usize].kind == EntityKind::Class);
    let (Language::Python, Some(parent)) = (file.language, parent) else {
        return vec![test(file, index, confidence, via.to_vec())];
    };
    let own = test(file, index, confidence, via.to_vec());
    let class = file.ids[parent as usize];
    let mut tests = Vec::new();
    let classes = with_subclasses(graph, &class);
    for class in classes {
        let Some((holder, at)) = graph
            .location(&class)
            .and_then(|location| Some((graph.file(&location.file)?, location.index?)))
        else {
            continue;
        };
        if !is_test_file(holder) || !collectible(graph, &class) {
            continue;
        }
        let overrides = holder.summary.defs.iter().any(|other| {
            other.parent == Some(at) && other.name == def.name && !std::ptr::eq(other, def)
        });
        if overrides {
            continue;
        }
        for (module, class_name) in collecting_modules(graph, &class, holder, at) {
            let mut test = own.clone();
            test.file = module;
            test.name = format!("{module}::{class_name}::{}", def.name);
            if module != file.path {
                test.line = 1;
            }
            tests.push(test);
        }
    }
    tests
}

/// The tests a Python test class runs: its own test methods and those of its bases it does not
/// override, each named under it (none when pytest does not collect it).
fn class_tests(
    graph: &Graph,
    class: &EntityId,
    confidence: Confidence,
    via: &[EntityId],
) -> Vec<Test> {
    let Some((file, at)) = graph
        .location(class)
        .and_then(|location| Some((graph.file(&location.file)?, location.index?)))
    else {
        return Vec::new();
    };
    if file.language != Language::Python || !collectible(graph, class) {
        return Vec::new();
    }
    let modules = collecting_modules(graph, class, file, at);
    let mut seen: FxHashSet<codegraph_model::Name> = FxHashSet::default();
    let mut tests = Vec::new();
    let owners = std::iter::once(*class).chain(
        query::supertypes(graph, class)
            .into_iter()
            .map(|(base, _)| base.id),
    );
    for owner in owners.take(16) {
        let Some((holder, owner_at)) = graph
            .location(&owner)
            .and_then(|location| Some((graph.file(&location.file)?, location.index?)))
        else {
            continue;
        };
        for (index, def) in holder.summary.defs.iter().enumerate() {
            if def.parent != Some(owner_at)
                || !def.name.starts_with("test")
                || !seen.insert(def.name)
            {
                continue;
            }
            let mut path = via.to_vec();
            path.push(holder.ids[index]);
            let own = test(holder, index as u32, confidence, path);
            for (module, class_name) in &modules {
                let mut test = own.clone();
                test.file = *module;
                test.name = format!("{module}::{class_name}::{}", def.name);
                if *module != holder.path {
                    test.line = 1;
                }
                tests.push(test);
            }
        }
    }
    tests
}

/// The test modules pytest collects test class `class` (definition `at` of `file`) in: its
/// own, under its nested name, and each test module importing it, under its name.
fn collecting_modules(
    graph: &Graph,
    class: &EntityId,
    file: &FileNode,
    at: u32,
) -> Vec<(FilePath, String)> {
    let mut modules = vec![(file.path, file.summary.nested_name(at).replace('.', "::"))];
    for edge in graph
        .incoming(class)
        .filter(|edge| edge.kind == RelationKind::Imports)
    {
        let importer = graph
            .location(&edge.from)
            .and_then(|location| graph.file(&location.file));
        if let Some(importer) = importer.filter(|importer| is_test_file(importer)) {
            modules.push((
                importer.path,
                file.summary.defs[at as usize].name.to_string(),
            ));
        }
    }
    modules
}

/// A method of a Python test class that its runner calls around the class's tests: unittest's
/// and pytest's setup and teardown hooks, a fixture method.
fn is_hook(file: &FileNode, index: u32) -> bool {
    let def = &file.summary.defs[index as usize];
    if file.language != Language::Python
        || def.kind != EntityKind::Method
        || def.name.starts_with("test")
    {
        return false;
    }
    let hook = matches!(
        def.name.as_str(),
        "setUp"
            | "tearDown"
            | "setUpClass"
            | "tearDownClass"
            | "asyncSetUp"
            | "asyncTearDown"
            | "setup_method"
            | "teardown_method"
            | "setup_class"
            | "teardown_class"
            | "setup"
            | "teardown"
    );
    hook || file.text().is_some_and(|text| {
        decorators(&text, def.span.start_byte as usize)
            .iter()
            .any(|line| line.contains("fixture"))
    })
}

/// `class` and the classes that extend it, transitively.
pub(crate) fn with_subclasses(graph: &Graph, class: &EntityId) -> Vec<EntityId> {
    std::iter::once(*class)
        .chain(query::subtypes(graph, class))
        .collect()
}

/// A `conftest.py`, which pytest imports for the tests of its directory.
pub(crate) fn is_conftest(file: &FileNode) -> bool {
    file.language == Language::Python && file.path.rsplit('/').next() == Some("conftest.py")
}

/// A Python class pytest collects tests from: named `Test*`, or a `unittest.TestCase` (a base
/// written `...TestCase` in it or in its workspace bases).
fn collectible(graph: &Graph, class: &EntityId) -> bool {
    let starts_test = |id: &EntityId| {
        graph
            .location(id)
            .and_then(|location| {
                graph
                    .file(&location.file)?
                    .summary
                    .defs
                    .get(location.index? as usize)
                    .map(|def| def.name.starts_with("Test"))
            })
            .unwrap_or(false)
    };
    if starts_test(class) {
        return true;
    }
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut frontier = vec![*class];
    for _depth in 0..16 {
        let mut next = Vec::new();
        for current in frontier {
            if !seen.insert(current) {
                continue;
            }
            let Some(location) = graph.location(&current) else {
                continue;
            };
            let Some(file) = graph.file(&location.file) else {
                continue;
            };
            let written = file
                .summary
                .inherits
                .iter()
                .filter(|inherit| inherit.child == location.index);
            if written
                .clone()
                .any(|inherit| inherit.base.ends_with("TestCase"))
            {
                return true;
            }
            next.extend(
                query::supertypes(graph, &current)
                    .into_iter()
                    .map(|(base, _)| base.id),
            );
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    false
}

fn test(file: &FileNode, index: u32, confidence: Confidence, via: Vec<EntityId>) -> Test {
    let def = &file.summary.defs[index as usize];
    Test {
        id: file.ids[index as usize],
        file: file.path,
        name: runner_name(file, index),
        line: file.summary.locate(def.span).start.line + 1,
        confidence,
        via,
    }
}

/// The language's runner collects tests by definition (so a test file counts by the tests it
/// holds); the others (JavaScript's and TypeScript's `describe`/`it` blocks, Ruby's, ...) count
/// by file.
fn collects_definitions(language: Language) -> bool {
    matches!(
        language,
        Language::Python
            | Language::Go
            | Language::Rust
            | Language::Java
            | Language::Kotlin
            | Language::CSharp
            | Language::Swift
            | Language::Scala
    )
}

/// A file its runner collects tests from.
pub(crate) fn is_test_file(file: &FileNode) -> bool {
    file.class == FileClass::Test
        || python_test_name(&file.path) && file.language == Language::Python
}

/// A module of tests its runner collects (`test_*.py`, not a `conftest.py` or a helper of the
/// tests' directory; in other languages, any test file).
pub(crate) fn is_test_module(file: &FileNode) -> bool {
    if file.language != Language::Python {
        return is_test_file(file);
    }
    let name = file.path.rsplit('/').next().unwrap_or(&file.path);
    name.starts_with("test_") || name.ends_with("_test.py")
}

fn python_test_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py"
}

/// Whether definition `index` of `file` is a test its runner collects.
fn is_test(file: &FileNode, text: Option<&str>, index: u32) -> bool {
    let def = &file.summary.defs[index as usize];
    if !matches!(def.kind, EntityKind::Function | EntityKind::Method) {
        return false;
    }
    let name = def.name.as_str();
    match file.language {
        Language::Python => {
            is_test_file(file)
                && name.starts_with("test")
                && def
                    .parent
                    .and_then(|parent| file.summary.defs.get(parent as usize))
                    .is_none_or(|parent| parent.kind == EntityKind::Class)
        }
        Language::Go => {
            file.path.ends_with("_test.go")
                && ["Test", "Benchmark", "Example", "Fuzz"]
                    .iter()
                    .any(|prefix| {
                        name.strip_prefix(prefix).is_some_and(|rest| {
                            rest.is_empty() || !rest.starts_with(|c: char| c.is_lowercase())
                        })
                    })
        }
        language if !collects_definitions(language) => false,
        _ => {
            text.is_some_and(|text| {
                annotations_before(text, def.span.start_byte as usize)
                    .iter()
                    .any(|line| marks_test(line))
            }) || (is_test_file(file)
                && name.starts_with("test")
                && file.language != Language::Rust)
        }
    }
}

/// A test attribute or annotation: `#[test]`, `#[tokio::test]`, `#[rstest]`, `@Test`,
/// `@ParameterizedTest`, `[Fact]`, `[Theory]`, `[TestMethod]`, `[Test]`.
fn marks_test(line: &str) -> bool {
    let line = line.trim();
    let attribute = line
        .strip_prefix("#[")
        .or_else(|| line.strip_prefix('@'))
        .or_else(|| line.strip_prefix('['));
    let Some(attribute) = attribute else {
        return false;
    };
    let head: &str = attribute
        .split(|c: char| c == '(' || c == ']' || c.is_whitespace())
        .next()
        .unwrap_or_default();
    let last = head.rsplit("::").next().unwrap_or(head);
    let last = last.rsplit('.').next().unwrap_or(last);
    matches!(
        last,
        "test"
            | "rstest"
            | "test_case"
            | "quickcheck"
            | "proptest"
            | "Test"
            | "ParameterizedTest"
            | "RepeatedTest"
            | "TestFactory"
            | "Fact"
            | "Theory"
            | "TestMethod"
            | "TestCase"
    )
}

/// The attribute, annotation or decorator lines written just above byte `start` (blank lines
/// and comments between them skipped), nearest first; a definition's own first line when the
/// span already starts at them is read too.
fn annotations_before(text: &str, start: usize) -> Vec<&str> {
    let start = start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let mut lines = Vec::new();
    // The span may start at the annotations themselves (Java's modifiers, Python's decorated
    // definition): read the lines of the definition up to its name as well.
    let own: &str = text[line_start..].lines().next().unwrap_or_default();
    if own.trim_start().starts_with(['@', '#', '[']) {
        lines.push(own);
    }
    for line in text[..line_start].lines().rev().take(16) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with("///") {
            continue;
        }
        if trimmed.starts_with(['@', '#', '['])
            || trimmed.ends_with(')')
                && lines
                    .last()
                    .is_some_and(|last: &&str| last.trim_start().starts_with('@'))
        {
            lines.push(line);
            continue;
        }
        break;
    }
    lines
}

/// A Python definition's decorator lines, trimmed (`@property`, `@pytest.fixture(autouse=True)`).
pub(crate) fn decorators(text: &str, start: usize) -> Vec<String> {
    annotations_before(text, start)
        .into_iter()
        .map(|line| line.trim().to_string())
        .filter(|line| line.starts_with('@'))
        .collect()
}

/// The name the language's runner selects a test by.
fn runner_name(file: &FileNode, index: u32) -> String {
    let nested = file.summary.nested_name(index);
    match file.language {
        Language::Python => format!("{}::{}", file.path, nested.replace('.', "::")),
        Language::Go => file.summary.defs[index as usize].name.to_string(),
        Language::Rust => {
            let module = rust_module_path(&file.path);
            let nested = nested.replace('.', "::");
            if module.is_empty() {
                nested
            } else {
                format!("{module}::{nested}")
            }
        }
        _ => nested,
    }
}

/// A Rust file's module path below its crate root, from the file layout (`src/a/b.rs` and
/// `src/a/b/mod.rs` are `a::b`; the crate roots and `tests/x.rs` are the root).
fn rust_module_path(path: &str) -> String {
    let below = match path.rfind("src/") {
        Some(at) if at == 0 || path.as_bytes()[at - 1] == b'/' => &path[at + 4..],
        _ => return String::new(),
    };
    let below = below.strip_suffix(".rs").unwrap_or(below);
    let mut parts: Vec<&str> = below.split('/').collect();
    if matches!(parts.last(), Some(&"mod")) {
        parts.pop();
    }
    if parts.len() == 1 && matches!(parts[0], "lib" | "main") {
        return String::new();
    }
    if parts.first() == Some(&"bin") {
        parts.remove(0);
        if !parts.is_empty() {
            parts.remove(0);
        }
    }
    parts.join("::")
}

/// pytest's injection: the tests and fixtures that take `entity` (a fixture: a function of a
/// Python test file or `conftest.py`, not a test) as a parameter, in its file or below its
/// `conftest.py`'s directory; all tests there when it is `autouse`.
pub(crate) fn fixture_steps(state: &mut State, entity: &Node, steps: &mut Vec<Step>) {
    let graph = state.graph;
    if entity.language != Language::Python || entity.kind != EntityKind::Function {
        return;
    }
    let Some(file) = graph.file(&entity.file).cloned() else {
        return;
    };
    if !is_test_file(&file) || entity.name.starts_with("test") {
        return;
    }
    let (Some(text), Some(start)) = (state.mentions.text(entity.file), entity.start_byte(graph))
    else {
        return;
    };
    let decorators = decorators(&text, start);
    if !decorators.iter().any(|line| line.contains("fixture")) {
        return;
    }
    let autouse = decorators.iter().any(|line| line.contains("autouse=True"));
    let scope: Vec<Arc<FileNode>> = match file.path.strip_suffix("conftest.py") {
        Some(directory) => graph
            .files()
            .filter(|other| {
                other.language == Language::Python
                    && other.path.starts_with(directory)
                    && is_test_file(other)
            })
            .cloned()
            .collect(),
        None => vec![file],
    };
    for other in scope {
        for (index, def) in other.summary.defs.iter().enumerate() {
            if !matches!(def.kind, EntityKind::Function | EntityKind::Method) {
                continue;
            }
            let takes =
                parameters(def.signature()).any(|parameter| parameter == entity.name.as_str());
            if takes || autouse && def.name.starts_with("test") {
                steps.push((other.ids[index], Confidence::Proven, "fixture"));
            }
        }
    }
}

/// The parameter names of a Python signature as written (`def f(a, b: int = 1, *args)`).
pub(crate) fn parameters(signature: &str) -> impl Iterator<Item = &str> {
    let inside = signature
        .split_once('(')
        .map(|(_, rest)| rest.rsplit_once(')').map_or(rest, |(inside, _)| inside))
        .unwrap_or_default();
    inside.split(',').filter_map(|parameter| {
        let name = parameter
            .split([':', '='])
            .next()?
            .trim()
            .trim_start_matches('*');
        (!name.is_empty()).then_some(name)
    })
}

/// The selection as the runner of `format` takes it, one item a line.
pub fn render(tests: &[Test], test_files: &[FilePath], graph: &Graph, format: Format) -> String {
    let language_of = |path: &FilePath| graph.file(path).map(|file| file.language);
    let mut lines: Vec<String> = Vec::new();
    match format {
        Format::List => {
            for test in tests {
                lines.push(format!(
                    "{}  {}:{}  ({})",
                    test.name,
                    test.file,
                    test.line,
                    test.confidence.as_str()
                ));
            }
            for file in test_files {
                if !tests.iter().any(|test| test.file == *file) {
                    lines.push(format!("{file}  (whole file)"));
                }
            }
        }
        Format::Pytest => {
            for test in tests
                .iter()
                .filter(|test| language_of(&test.file) == Some(Language::Python))
            {
                lines.push(test.name.clone());
            }
            for file in test_files {
                if language_of(file) == Some(Language::Python)
                    && !tests.iter().any(|test| test.file == *file)
                    && !file.ends_with("conftest.py")
                {
                    lines.push(file.to_string());
                }
            }
        }
        Format::Cargo => {
            for test in tests
                .iter()
                .filter(|test| language_of(&test.file) == Some(Language::Rust))
            {
                if !lines.contains(&test.name) {
                    lines.push(test.name.clone());
                }
            }
        }
        Format::Go => {
            let mut packages: std::collections::BTreeMap<String, Vec<String>> = Default::default();
            for test in tests
                .iter()
                .filter(|test| language_of(&test.file) == Some(Language::Go))
            {
                let directory = test
                    .file
                    .rsplit_once('/')
                    .map_or(".", |(directory, _)| directory);
                let package = if directory == "." {
                    ".".to_string()
                } else {
                    format!("./{directory}")
                };
                packages.entry(package).or_default().push(test.name.clone());
            }
            for (package, mut names) in packages {
                names.sort();
                names.dedup();
                lines.push(format!("{package} ^({})$", names.join("|")));
            }
        }
        Format::Jest => {
            for file in test_files {
                if matches!(
                    language_of(file),
                    Some(Language::JavaScript | Language::TypeScript | Language::Tsx)
                ) {
                    lines.push(file.to_string());
                }
            }
        }
    }
    lines.join("\n")
}
