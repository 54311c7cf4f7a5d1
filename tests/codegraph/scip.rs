//! `codegraph scip`: the index encoded, read back with the `scip` crate, and asserted against
//! the fixtures: symbols, definitions, references, relationships, what is left out.

use std::path::Path;
use std::process::Command;

use codegraph::export::scip::{Exported, export};
use codegraph::model::Resolution;
use protobuf::Message;
use scip::types::{Index, Occurrence, PositionEncoding, SymbolInformation, SymbolRole};

use crate::support;

/// Exports a directory and reads the encoded index back.
fn exported(root: &Path) -> (Index, Exported) {
    let (_world, graph) = support::index(root);
    let (index, report) = export(&graph, root, Vec::new());
    let bytes = index.write_to_bytes().unwrap();
    (Index::parse_from_bytes(&bytes).unwrap(), report)
}

fn is_definition(occurrence: &Occurrence) -> bool {
    occurrence.symbol_roles & SymbolRole::Definition as i32 != 0
}

/// The text an occurrence's range covers.
fn text_at(root: &Path, path: &str, range: &[i32]) -> String {
    let text = std::fs::read_to_string(root.join(path)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (line, start, end_line, end) = match range {
        [line, start, end] => (*line, *start, *line, *end),
        [line, start, end_line, end] => (*line, *start, *end_line, *end),
        other => panic!("a range of {} numbers", other.len()),
    };
    assert_eq!(line, end_line, "one-line ranges here");
    lines[line as usize][start as usize..end as usize].to_string()
}

/// Where `symbol` is defined: (path, range).
fn definitions(index: &Index, symbol: &str) -> Vec<(String, Vec<i32>)> {
    occurrences(index, symbol, true)
}

/// Where `symbol` is referenced (not defined): (path, range).
fn references(index: &Index, symbol: &str) -> Vec<(String, Vec<i32>)> {
    occurrences(index, symbol, false)
}

fn occurrences(index: &Index, symbol: &str, definition: bool) -> Vec<(String, Vec<i32>)> {
    let mut found = Vec::new();
    for document in &index.documents {
        for occurrence in &document.occurrences {
            if occurrence.symbol == symbol && is_definition(occurrence) == definition {
                found.push((document.relative_path.clone(), occurrence.range.clone()));
            }
        }
    }
    found.sort();
    found
}

fn information<'a>(index: &'a Index, symbol: &str) -> &'a SymbolInformation {
    index
        .documents
        .iter()
        .flat_map(|document| &document.symbols)
        .find(|information| information.symbol == symbol)
        .unwrap_or_else(|| panic!("no symbol information for {symbol}"))
}

fn relationships(information: &SymbolInformation) -> Vec<(String, bool, bool)> {
    information
        .relationships
        .iter()
        .map(|relationship| {
            (
                relationship.symbol.clone(),
                relationship.is_implementation,
                relationship.is_reference,
            )
        })
        .collect()
}

#[test]
fn python_definitions_references_relationships_and_dependencies() {
    let root = support::fixture("python");
    let (index, report) = exported(&root);
    let tool = &index.metadata.tool_info;
    assert_eq!(
        (tool.name.as_str(), tool.version.as_str()),
        ("codegraph", env!("CARGO_PKG_VERSION"))
    );
    assert!(index.metadata.project_root.starts_with("file:///"));
    assert!(index.documents.iter().all(|document| {
        document.language == "Python"
            && document.position_encoding.enum_value()
                == Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart)
    }));
    assert_eq!(report.languages, [("Python".to_string(), 12)]);

    // No manifest: the package fields are empty. The module is the dotted path.
    let factorial = "codegraph . . . `shop.util.math`/factorial().";
    let defined = definitions(&index, factorial);
    assert_eq!(defined, [("shop/util/math.py".to_string(), vec![0, 4, 13])]);
    let occurrence = index
        .documents
        .iter()
        .flat_map(|document| &document.occurrences)
        .find(|occurrence| occurrence.symbol == factorial && is_definition(occurrence))
        .unwrap();
    assert_eq!(occurrence.enclosing_range, [0, 0, 1, 48]);
    // Its callers: `main` and itself (recursion), each range on the called name.
    let called = references(&index, factorial);
    assert_eq!(
        called,
        [
            ("shop/app/main.py".to_string(), vec![12, 47, 56]),
            ("shop/util/math.py".to_string(), vec![1, 32, 41]),
        ]
    );
    for (path, range) in &called {
        assert_eq!(text_at(&root, path, range), "factorial");
    }

    let service = "codegraph . . . `shop.auth.service`/AuthService#";
    let base = "codegraph . . . `shop.auth.service`/Authenticator#";
    let info = information(&index, service);
    assert_eq!(relationships(info), [(base.to_string(), true, false)]);
    assert_eq!(
        info.documentation,
        ["Authenticates users against their stored password hashes."]
    );
    assert_eq!(info.display_name, "AuthService");
    let method = information(&index, &format!("{service}authenticate()."));
    assert_eq!(
        relationships(method),
        [(format!("{base}authenticate()."), true, true)]
    );
    assert_eq!(method.enclosing_symbol, service);
    assert!(
        method
            .signature_documentation
            .text
            .starts_with("def authenticate(self, user: User, password: str) -> str"),
        "{}",
        method.signature_documentation.text
    );
    // `hashlib.sha256(...)` through `import hashlib`: a symbol of the `hashlib` package.
    assert_eq!(
        references(&index, "codegraph python hashlib . hashlib/sha256()."),
        [("shop/auth/service.py".to_string(), vec![29, 23, 29])]
    );
    // An import is an occurrence with the Import role.
    let imports: Vec<&Occurrence> = index
        .documents
        .iter()
        .filter(|document| document.relative_path == "shop/app/main.py")
        .flat_map(|document| &document.occurrences)
        .filter(|occurrence| occurrence.symbol_roles == SymbolRole::Import as i32)
        .collect();
    assert_eq!(
        imports
            .iter()
            .map(|occurrence| occurrence.symbol.as_str())
            .collect::<Vec<_>>(),
        [
            "codegraph . . . `shop.auth.service`/AuthService#",
            "codegraph . . . `shop.models`/Admin#",
            "codegraph . . . `shop.util.math`/",
            "codegraph . . . `shop.util.format`/format_name().",
        ]
    );
}

#[test]
fn packages_come_from_the_manifests_and_descriptors_follow_each_language() {
    // Rust: Cargo.toml's name and version, module paths in the crate, the root is `crate/`.
    let (index, _) = exported(&support::fixture("rust"));
    let authenticate = "codegraph cargo fixture 0.1.0 auth/service/AuthService#authenticate().";
    assert_eq!(
        definitions(&index, authenticate),
        [("src/auth/service.rs".to_string(), vec![28, 7, 19])]
    );
    assert_eq!(
        references(&index, authenticate),
        [("src/main.rs".to_string(), vec![14, 24, 36])]
    );
    assert_eq!(
        definitions(&index, "codegraph cargo fixture 0.1.0 crate/main()."),
        [("src/main.rs".to_string(), vec![12, 3, 7])]
    );
    assert_eq!(
        relationships(information(&index, authenticate)),
        [(
            "codegraph cargo fixture 0.1.0 auth/service/Authenticator#authenticate().".to_string(),
            true,
            true
        )]
    );

    // Go: go.mod's module, the package's import path, the standard library as `std`.
    let (index, _) = exported(&support::fixture("go"));
    let method = "codegraph gomod example.com/fixture . `example.com/fixture/auth`/AuthService#Authenticate().";
    assert_eq!(
        definitions(&index, method),
        [("auth/service.go".to_string(), vec![23, 22, 34])]
    );
    assert_eq!(
        references(&index, method),
        [("cmd/app/main.go".to_string(), vec![13, 22, 34])]
    );
    assert_eq!(
        references(&index, "codegraph gomod std . strings/HasPrefix()."),
        [("auth/tokens/tokens.go".to_string(), vec![12, 16, 25])]
    );

    // TypeScript: package.json's name and version, the file in its package.
    let (index, _) = exported(&support::fixture("typescript"));
    let factorial =
        "codegraph npm codegraph-fixture-typescript 1.0.0 `src/util/math.ts`/factorial().";
    assert_eq!(definitions(&index, factorial).len(), 1);
    assert_eq!(
        references(&index, factorial)
            .into_iter()
            .map(|(path, _)| path)
            .collect::<Vec<_>>(),
        // main.ts imports it and calls it; math.ts calls it (recursion).
        ["src/app/main.ts", "src/app/main.ts", "src/util/math.ts"]
    );
}

/// Every fixture language: one document per file, one definition per entity, every symbol well
/// formed, every occurrence inside its file.
#[test]
fn every_language_round_trips_against_the_graph() {
    for name in support::fixture_names() {
        let root = support::fixture(&name);
        let (_world, graph) = support::index(&root);
        let (index, report) = exported(&root);
        assert_eq!(index.documents.len(), graph.file_count(), "{name}");
        assert_eq!(report.documents, graph.file_count(), "{name}");
        let definitions: usize = index
            .documents
            .iter()
            .map(|document| {
                document
                    .occurrences
                    .iter()
                    .filter(|occurrence| is_definition(occurrence))
                    .count()
            })
            .sum();
        assert_eq!(definitions, graph.entity_count(), "{name}");
        assert_eq!(report.definitions, graph.entity_count(), "{name}");
        for document in &index.documents {
            let file = graph
                .file(&document.relative_path)
                .unwrap_or_else(|| panic!("{name}: {} is no file", document.relative_path));
            let lines = file.summary.line_count.max(1) as i32;
            for occurrence in &document.occurrences {
                scip::symbol::parse_symbol(&occurrence.symbol)
                    .unwrap_or_else(|error| panic!("{name}: {}: {error:?}", occurrence.symbol));
                assert!(
                    matches!(occurrence.range.len(), 3 | 4) && occurrence.range[0] < lines,
                    "{name}: {} {:?}",
                    document.relative_path,
                    occurrence.range
                );
            }
        }
    }
}

/// A call resolved only because one definition has that name is a guess: the graph keeps the
/// edge, labelled, and the index leaves it out.
#[test]
fn unique_name_guesses_and_ambiguous_references_are_left_out() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    std::fs::write(
        root.join("store.py"),
        "class Store:\n    def frobnicate(self):\n        pass\n",
    )
    .unwrap();
    std::fs::write(
        root.join("use.py"),
        "def run(thing):\n    thing.frobnicate()\n\n\ndef twice(a, b):\n    a.save()\n",
    )
    .unwrap();
    std::fs::write(
        root.join("models.py"),
        "class A:\n    def save(self):\n        pass\n\n\nclass B:\n    def save(self):\n        pass\n",
    )
    .unwrap();
    let (_world, graph) = support::index(root);
    let guessed: Vec<_> = graph
        .all_edges()
        .filter(|edge| edge.resolution == Resolution::UniqueName)
        .map(|edge| (edge.from.to_string(), edge.to.to_string()))
        .collect();
    assert_eq!(
        guessed,
        [(
            "use.py::run".to_string(),
            "store.py::Store.frobnicate".to_string()
        )]
    );
    let (index, report) = exported(root);
    assert_eq!(
        references(&index, "codegraph . . . store/Store#frobnicate()."),
        []
    );
    assert_eq!(report.guesses_left_out, 1);
    // `a.save()` could be either `save`: ambiguous, never an edge, never an occurrence.
    assert_eq!(report.ambiguous_left_out, 1);
    assert_eq!(references(&index, "codegraph . . . models/A#save()."), []);
    assert_eq!(references(&index, "codegraph . . . models/B#save()."), []);
}

#[test]
fn the_command_writes_the_index_and_reports_what_it_left_out() {
    let output = tempfile::tempdir().unwrap();
    let path = output.path().join("index.scip");
    let run = |arguments: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_codegraph"))
            .args(arguments)
            .output()
            .unwrap()
    };
    let fixture = support::fixture("go");
    let result = run(&[
        "scip",
        "--no-cache",
        "--json",
        "-r",
        fixture.to_str().unwrap(),
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    let index = Index::parse_from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        answer["exported"]["documents"].as_u64().unwrap() as usize,
        index.documents.len()
    );
    assert_eq!(answer["bytes"], std::fs::metadata(&path).unwrap().len());
    assert_eq!(
        answer["exported"]["languages"],
        serde_json::json!([["Go", 7]])
    );
    assert!(
        index
            .metadata
            .tool_info
            .arguments
            .contains(&"scip".to_string()),
        "{:?}",
        index.metadata.tool_info.arguments
    );
    // Nothing is left beside it.
    let left: Vec<_> = std::fs::read_dir(output.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(left, [std::ffi::OsString::from("index.scip")]);

    let result = run(&[
        "scip",
        "--no-cache",
        "-r",
        fixture.to_str().unwrap(),
        "-o",
        output.path().join("missing/index.scip").to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        stderr.contains("creating") && stderr.contains("missing"),
        "{stderr}"
    );
}
