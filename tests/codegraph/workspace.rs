//! The workspace walk on hostile input: binary, oversized and minified files, other encodings, broken
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
        graph
            .file("latin.py")
            .unwrap()
            .text()
            .unwrap()
            .contains("caf\u{fffd}"),
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

fn open_world(root: &std::path::Path) -> World {
    World::open(
        root,
        WorldConfig {
            max_file_size: 1024 * 1024,
            cache: CacheLocation::Disabled,
        },
    )
    .unwrap()
}

fn graph_files(world: &World) -> Vec<String> {
    let mut files: Vec<String> = world
        .snapshot()
        .files()
        .map(|file| file.path.to_string())
        .collect();
    files.sort();
    files
}

/// A repository that plants directory symlinks to a sibling directory and to an ancestor, and a
/// file symlink inside: the sibling's files never enter the graph, the loop does not index the
/// tree again, and each symlink not followed is reported with its reason.
#[test]
fn directory_symlinks_out_of_the_workspace_and_loops_are_not_followed() {
    let parent = tempfile::tempdir().unwrap();
    let parent = parent.path().canonicalize().unwrap();
    let sibling = parent.join("sibling");
    std::fs::create_dir(&sibling).unwrap();
    std::fs::write(sibling.join("secret.py"), "def leaked():\n    pass\n").unwrap();
    let root = parent.join("repo");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/app.py"), "def app():\n    pass\n").unwrap();
    std::os::unix::fs::symlink(&sibling, root.join("vendor")).unwrap();
    std::os::unix::fs::symlink("..", root.join("pkg/loop")).unwrap();
    std::os::unix::fs::symlink("app.py", root.join("pkg/alias.py")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();

    let world = open_world(&root);
    let report = world.index(false, &|_, _| {});
    assert_eq!(graph_files(&world), ["pkg/alias.py", "pkg/app.py"]);
    assert!(!world.snapshot().contains_entity("vendor/secret.py::leaked"));
    let reason_of = |path: &str| {
        report
            .skipped
            .iter()
            .find(|skipped| skipped.path == path)
            .map(|skipped| skipped.reason.clone())
            .unwrap_or_default()
    };
    assert_eq!(reason_of("vendor"), "symlink leads outside the workspace");
    assert_eq!(reason_of("etc"), "symlink leads outside the workspace");
    assert_eq!(
        reason_of("pkg/loop"),
        "symlink loop: leads to a directory that contains it; not followed"
    );

    // The writer itself refuses what the walk would: a path through the symlink, or with `..`.
    world.refresh_from_disk("vendor/secret.py");
    world.refresh_from_disk("../sibling/secret.py");
    world.refresh_from_disk("/etc/hostname.py");
    assert_eq!(graph_files(&world), ["pkg/alias.py", "pkg/app.py"]);
}

/// The headless watcher, while serving: a loop `ln -s .. pkg/loop`, a directory symlink and a
/// file symlink out of the workspace appear; none is followed. A plain file created after them
/// shows the watcher has seen the batch.
#[test]
fn the_watcher_follows_no_symlink_out_of_the_workspace_and_no_loop() {
    let parent = tempfile::tempdir().unwrap();
    let parent = parent.path().canonicalize().unwrap();
    let sibling = parent.join("sibling");
    std::fs::create_dir(&sibling).unwrap();
    std::fs::write(sibling.join("secret.py"), "def leaked():\n    pass\n").unwrap();
    let root = parent.join("repo");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/app.py"), "def app():\n    pass\n").unwrap();
    let world = std::sync::Arc::new(open_world(&root));
    world.index(false, &|_, _| {});
    let (sender, receiver) = std::sync::mpsc::channel::<Vec<String>>();
    let _watcher = codegraph::world::watch::watch(world.clone(), move |changed| {
        let _ = sender.send(changed.to_vec());
    })
    .unwrap();

    std::os::unix::fs::symlink("..", root.join("pkg/loop")).unwrap();
    std::os::unix::fs::symlink(&sibling, root.join("vendor")).unwrap();
    std::os::unix::fs::symlink(sibling.join("secret.py"), root.join("pkg/escape.py")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(root.join("pkg/late.py"), "def late():\n    app()\n").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !graph_files(&world).contains(&"pkg/late.py".to_string()) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(
            receiver.recv_timeout(left).is_ok(),
            "the watcher never saw pkg/late.py"
        );
    }
    assert_eq!(graph_files(&world), ["pkg/app.py", "pkg/late.py"]);
    // A file symlink that leads outside, made by renaming it over a file the graph has.
    std::fs::write(root.join("pkg/swap.py"), "def swap():\n    pass\n").unwrap();
    while !graph_files(&world).contains(&"pkg/swap.py".to_string()) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(
            receiver.recv_timeout(left).is_ok(),
            "pkg/swap.py never seen"
        );
    }
    std::fs::rename(root.join("pkg/escape.py"), root.join("pkg/swap.py")).unwrap();
    while graph_files(&world).contains(&"pkg/swap.py".to_string()) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(
            receiver.recv_timeout(left).is_ok(),
            "pkg/swap.py stayed in the graph after it became a symlink out of the workspace"
        );
    }
    assert_eq!(graph_files(&world), ["pkg/app.py", "pkg/late.py"]);
    assert!(!world.snapshot().contains_entity("pkg/swap.py::leaked"));
}

fn callers_of(world: &World, id: &str) -> Vec<String> {
    codegraph::graph::query::callers(&world.snapshot(), id)
        .into_iter()
        .map(|site| site.entity.id.to_string())
        .collect()
}

/// A project that imports itself by name through tsconfig `paths`: the callers follow the
/// tsconfig as it is on disk, when it changes while serving (the watcher's refresh), and on a
/// warm start whose cache was written under other paths.
#[test]
fn tsconfig_paths_are_followed_live_and_across_warm_starts() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    let with_paths = r#"{
  // comments and trailing commas, as tsc accepts them
  "compilerOptions": { "paths": { "@acme/lib": ["./src/lib.ts"], }, },
}"#;
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("tsconfig.json"), with_paths).unwrap();
    std::fs::write(
        root.join("src/lib.ts"),
        "export function helper(): number {\n  return 1;\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/app.ts"),
        "import { helper } from '@acme/lib';\n\nexport function main(): number {\n  return helper();\n}\n",
    )
    .unwrap();
    let config = || WorldConfig {
        max_file_size: 1024 * 1024,
        cache: CacheLocation::InWorkspace,
    };
    let world = World::open(root, config()).unwrap();
    world.index(false, &|_, _| {});
    assert_eq!(
        callers_of(&world, "src/lib.ts::helper"),
        ["src/app.ts::main"]
    );

    // The tsconfig loses its paths while serving: the import is external again.
    std::fs::write(root.join("tsconfig.json"), "{ \"compilerOptions\": {} }").unwrap();
    world.refresh_from_disk("tsconfig.json");
    assert!(callers_of(&world, "src/lib.ts::helper").is_empty());
    drop(world);

    // A warm start from the cache written without paths, after they came back on disk.
    std::fs::write(root.join("tsconfig.json"), with_paths).unwrap();
    let world = World::open(root, config()).unwrap();
    let report = world.index(false, &|_, _| {});
    assert_eq!(report.from_cache, 2, "{report:?}");
    assert_eq!(
        callers_of(&world, "src/lib.ts::helper"),
        ["src/app.ts::main"]
    );

    // Deleted: gone again.
    std::fs::remove_file(root.join("tsconfig.json")).unwrap();
    world.refresh_from_disk("tsconfig.json");
    assert!(callers_of(&world, "src/lib.ts::helper").is_empty());
}

/// A hostile file: one expression nested 45,000 calls deep (180 KiB), a call a line. It is
/// indexed (in about 0.1 s; before the start-depth bound, 12 s) and its outer calls are edges.
/// (Written on one line, the same expression is a minified file, skipped with that reason.)
#[test]
fn a_deeply_nested_expression_is_indexed() {
    let repo = tempfile::tempdir().unwrap();
    let depth = 45_000;
    std::fs::write(
        repo.path().join("deep.py"),
        format!(
            "def g(x):\n    return x\n\ny = {}1{}\n",
            "g(\n".repeat(depth),
            ")".repeat(depth)
        ),
    )
    .unwrap();
    let world = open_world(repo.path());
    let report = world.index(false, &|_, _| {});
    assert_eq!(report.files, 1, "{report:?}");
    let callers = codegraph::graph::query::callers(&world.snapshot(), "deep.py::g");
    let names: Vec<String> = callers
        .iter()
        .map(|site| site.entity.id.to_string())
        .collect();
    assert_eq!(names, ["deep.py"]);
    assert_eq!(callers[0].call_lines.first(), Some(&4));
}

/// Hostile files: 20,000 comment lines in Python (tree-sitter-python's scanner is quadratic in
/// them: 32 s before) and 30,000 in JavaScript (walking back over them for docs: 5 s). Each
/// indexes in a fraction of a second, with its calls and its doc.
#[test]
fn long_runs_of_comments_are_indexed() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(
        repo.path().join("notes.py"),
        format!(
            "def f():\n    pass\n{}# The caller.\ndef h():\n    f()\n",
            "# a comment line\n".repeat(20_000)
        ),
    )
    .unwrap();
    std::fs::write(
        repo.path().join("notes.js"),
        format!(
            "function g() {{}}\n{}// The other caller.\nfunction k() {{ g() }}\n",
            "/* a comment */\n".repeat(30_000)
        ),
    )
    .unwrap();
    let world = open_world(repo.path());
    world.index(false, &|_, _| {});
    let graph = world.snapshot();
    let callers = |id: &str| -> Vec<String> {
        codegraph::graph::query::callers(&graph, id)
            .into_iter()
            .map(|site| site.entity.id.to_string())
            .collect()
    };
    assert_eq!(callers("notes.py::f"), ["notes.py::h"]);
    assert_eq!(callers("notes.js::g"), ["notes.js::k"]);
    // The comments directly above are its doc: the nearest 64 of them.
    let doc = graph.entity("notes.js::k").unwrap().docstring.unwrap();
    assert!(doc.ends_with("a comment\nThe other caller."), "{doc}");
    assert_eq!(doc.lines().count(), 64);
}

#[test]
fn minified_bundles_are_skipped_with_a_reason_from_disk_and_from_the_editor() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join("dist")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    let bundle = format!(
        "!function(e){{{}}}();\n",
        "function a(b){return b+1};".repeat(2_000)
    );
    std::fs::write(root.join("dist/app.min.js"), &bundle).unwrap();
    std::fs::write(root.join("dist/vendor.js"), &bundle).unwrap();
    std::fs::write(
        root.join("src/app.js"),
        "export function start() {\n  return 1;\n}\n",
    )
    .unwrap();
    let world = World::open(
        root,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .unwrap();
    let report = world.index(false, &|_, _| {});
    let mut skipped: Vec<(String, String)> = report
        .skipped
        .iter()
        .map(|skipped| (skipped.path.to_string(), skipped.reason.clone()))
        .collect();
    skipped.sort();
    assert_eq!(
        skipped,
        [
            (
                "dist/app.min.js".to_string(),
                "minified: 52018 bytes on 2 lines, mostly in lines over 1000 bytes".to_string()
            ),
            (
                "dist/vendor.js".to_string(),
                "minified: 52018 bytes on 2 lines, mostly in lines over 1000 bytes".to_string()
            ),
        ]
    );
    let graph = world.snapshot();
    let files: Vec<String> = graph.files().map(|file| file.path.to_string()).collect();
    assert_eq!(files, ["src/app.js"]);
    // Opened in the editor, it is not indexed either (every keystroke would parse it again).
    assert!(!world.open_buffer("dist/app.min.js", 1, bundle.clone()));
    assert!(world.snapshot().file("dist/app.min.js").is_none());
    // A written file is, whatever its size.
    assert!(world.open_buffer(
        "src/app.js",
        1,
        "export function start() {}\n".repeat(2_000)
    ));
}
