//! The workspace walk on hostile input: binary and oversized files, other encodings, broken
//! syntax, symlink loops and symlinks leading outside. Nothing fails the index; every skip says
//! why.

use codegraph::world::{CacheLocation, World, WorldConfig};

#[test]
fn bad_files_are_skipped_with_a_reason_and_good_code_in_them_still_indexes() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.py"),
        "def leaked():\n    pass\n",
    )
    .unwrap();
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::write(
        root.join("binary.py"),
        b"def f():\n    pass\n\0\0\0\x01\x02",
    )
    .unwrap();
    std::fs::write(
        root.join("huge.py"),
        format!("def big():\n    pass\n{}", "# padding\n".repeat(2000)),
    )
    .unwrap();
    // Latin-1: `é` is the single byte 0xE9, not valid UTF-8.
    std::fs::write(
        root.join("latin.py"),
        b"# caf\xe9\ndef latin_function():\n    return 'd\xe9j\xe0'\n",
    )
    .unwrap();
    std::fs::write(root.join("broken.py"), "def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass Fine:\n    def method(self):\n        good()\n").unwrap();
    std::fs::create_dir(root.join("loop")).unwrap();
    std::os::unix::fs::symlink(root.join("loop"), root.join("loop/again")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.py"), root.join("escape.py")).unwrap();

    let world = World::open(
        root,
        WorldConfig {
            max_file_size: 4096,
            cache: CacheLocation::Disabled,
        },
    )
    .unwrap();
    let report = world.index(false, &|_, _| {});
    let reason_of = |path: &str| {
        report
            .skipped
            .iter()
            .find(|skipped| skipped.path == path)
            .map(|skipped| skipped.reason.clone())
    };
    assert_eq!(reason_of("binary.py").as_deref(), Some("binary file"));
    assert!(
        reason_of("huge.py").is_some_and(|reason| reason.contains("over the 4096-byte cap")),
        "{:?}",
        report.skipped
    );
    assert_eq!(
        reason_of("escape.py").as_deref(),
        Some("symlink leads outside the workspace")
    );
    assert!(
        report
            .skipped
            .iter()
            .any(|skipped| skipped.reason.contains("loop")),
        "{:?}",
        report.skipped
    );

    let graph = world.snapshot();
    let mut files: Vec<String> = graph.files().map(|file| file.path.to_string()).collect();
    files.sort();
    assert_eq!(files, ["broken.py", "latin.py"]);
    assert!(graph.contains_entity("latin.py::latin_function"));
    assert!(
        graph.file("latin.py").unwrap().text.contains("caf\u{fffd}"),
        "decoded lossily"
    );
    // What parses in a broken file is indexed, and its problems are reported.
    assert!(graph.contains_entity("broken.py::good"));
    assert!(graph.contains_entity("broken.py::Fine.method"));
    assert!(!graph.file("broken.py").unwrap().summary.problems.is_empty());
    assert_eq!(report.files_with_problems, 1);
    let callers: Vec<String> = codegraph::graph::query::callers(&graph, "broken.py::good")
        .into_iter()
        .map(|call| call.entity.id.to_string())
        .collect();
    assert_eq!(callers, ["broken.py::Fine.method"]);
}

/// `.h` headers are C++ in a C++ workspace (C++ sources, no C sources) or when their text is
/// C++; otherwise C.
#[test]
fn headers_take_the_language_of_the_workspace_or_of_their_text() {
    use codegraph::lang::Language;
    let language_of = |files: &[(&str, &str)], path: &str| {
        let repo = tempfile::tempdir().unwrap();
        for (relative, text) in files {
            let absolute = repo.path().join(relative);
            std::fs::create_dir_all(absolute.parent().unwrap()).unwrap();
            std::fs::write(absolute, text).unwrap();
        }
        let world = World::open(
            repo.path(),
            WorldConfig {
                cache: CacheLocation::Disabled,
                ..WorldConfig::default()
            },
        )
        .unwrap();
        world.index(false, &|_, _| {});
        let graph = world.snapshot();
        let file = graph.file(path).expect("indexed");
        let ids: Vec<String> = graph
            .file_entities(path)
            .iter()
            .map(|entity| entity.id.to_string())
            .collect();
        (file.language, ids)
    };
    let plain = "#pragma once\nint area(int w, int h);\n";
    let cpp_main = "#include \"shape.h\"\nint main() { return area(1, 2); }\n";
    // A C++ project: the plain header is C++.
    let (language, _) = language_of(&[("shape.h", plain), ("main.cpp", cpp_main)], "shape.h");
    assert_eq!(language, Language::Cpp);
    // A C project, or C and C++ mixed: the plain header stays C.
    let (language, _) = language_of(&[("shape.h", plain), ("main.c", cpp_main)], "shape.h");
    assert_eq!(language, Language::C);
    let (language, _) = language_of(
        &[
            ("shape.h", plain),
            ("main.c", cpp_main),
            ("x.cpp", cpp_main),
        ],
        "shape.h",
    );
    assert_eq!(language, Language::C);
    // A header whose text is C++ is C++ anywhere; its namespace and class are read as such.
    let widget = "#pragma once\nnamespace ui {\nclass Widget {\npublic:\n  void draw() {}\n};\n}\n";
    let (language, ids) = language_of(&[("widget.h", widget), ("main.c", cpp_main)], "widget.h");
    assert_eq!(language, Language::Cpp);
    assert_eq!(
        ids,
        [
            "widget.h",
            "widget.h::ui",
            "widget.h::ui.Widget",
            "widget.h::ui.Widget.draw"
        ]
    );
}
