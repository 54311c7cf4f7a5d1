//! What a file is for — production, test, fixture, example, generated or vendored — from the
//! conventions of its language and ecosystem: its directories, its name, and for generated
//! files a marker in its first lines. Computed when a file is indexed, from the file alone, so
//! it costs nothing to keep incremental. One exception is applied by the graph writer, which
//! holds the workspace's manifests: a JavaScript/TypeScript file that a workspace package
//! publishes through its `package.json` `exports` is production even under `examples/`
//! (`graph::build::published_class`).
//!
//! The rules are data (the tables below). The first class whose rules match wins, in this
//! order: vendored, generated, fixture, test, example; anything else is production. So
//! `node_modules/x/test/a.js` is vendored and `tests/fixtures/data.py` a fixture.
//!
//! One convention differs between ecosystems: a directory named `test` holds tests in Java's
//! `src/test/`, in JavaScript, Ruby, C and most others, but inside a Python package it is
//! usually a testing library the package ships (`django/test/`, with `TestCase` and the test
//! client), so for Python only `tests/` and test file names count.

use crate::Language;
use codegraph_model::FileClass;

/// Directories whose contents are someone else's code.
const VENDORED_DIRECTORIES: &[&str] = &[
    "vendor",
    "vendors",
    "vendored",
    "_vendor",
    "node_modules",
    "bower_components",
    "jspm_packages",
    "third_party",
    "third-party",
    "thirdparty",
    "3rdparty",
    "site-packages",
    "dist-packages",
    "godeps",
    "pods",
    "carthage",
];

/// Directories whose contents a tool wrote.
const GENERATED_DIRECTORIES: &[&str] = &["generated", "__generated__", "autogen", "gen-src"];

/// Directories of build output, generated only for the JavaScript family (bundles): a Rust or
/// Python `build/` directory is more often hand-written build code.
const BUNDLE_DIRECTORIES: &[&str] = &["dist", "build", "out", "bundle", "bundles", "umd", "cjs"];

/// File name endings of generated sources.
const GENERATED_SUFFIXES: &[&str] = &[
    ".min.js",
    ".min.mjs",
    ".min.cjs",
    "-min.js",
    ".bundle.js",
    "_pb2.py",
    "_pb2_grpc.py",
    "_pb2.pyi",
    ".pb.go",
    ".pb.gw.go",
    ".pb.cc",
    ".pb.h",
    ".pb.rs",
    ".g.dart",
    ".freezed.dart",
    ".g.cs",
    ".g.i.cs",
    ".designer.cs",
    "_generated.go",
    "_generated.rs",
    "_generated.h",
    "_generated.cc",
    "_generated.ts",
    "_generated.py",
];

/// Parts of a file name that say a tool wrote it (`api.generated.ts`, `parser.gen.h`).
const GENERATED_INFIXES: &[&str] = &[".generated.", ".gen.", "zz_generated"];

/// Directories of data and sample code that tests read.
const FIXTURE_DIRECTORIES: &[&str] = &[
    "fixtures",
    "fixture",
    "__fixtures__",
    "testdata",
    "test_data",
    "test-data",
    "testfiles",
    "__snapshots__",
    "snapshots",
];

/// Directories of tests in every ecosystem (and benchmarks, which are tests of speed).
const TEST_DIRECTORIES: &[&str] = &[
    "tests",
    "__tests__",
    "spec",
    "specs",
    "e2e",
    "integration_tests",
    "integration-tests",
    "unit_tests",
    "testutil",
    "testutils",
    "test_utils",
    "test-utils",
    "testing_utils",
    "test_helpers",
    "testhelpers",
    "__mocks__",
    "mocks",
    "benches",
    "benchmarks",
    "benchmark",
];

/// Directories of examples and of documentation's code.
const EXAMPLE_DIRECTORIES: &[&str] = &[
    "examples",
    "example",
    "samples",
    "sample",
    "demo",
    "demos",
    "docs",
    "doc",
    "tutorial",
    "tutorials",
    "cookbook",
];

/// The class of the file at `path` (relative to the workspace, `/`-separated) in `language`,
/// whose text starts with `text`.
pub fn classify(path: &str, language: Language, text: &str) -> FileClass {
    let lowered = path.to_ascii_lowercase();
    let mut components: Vec<&str> = lowered.split('/').collect();
    let file_name = components.pop().unwrap_or_default();
    let directories = components;
    let in_any = |names: &[&str]| {
        directories
            .iter()
            .any(|directory| names.contains(directory))
    };

    if in_any(VENDORED_DIRECTORIES) {
        return FileClass::Vendored;
    }
    if is_generated(&directories, file_name, language, text) {
        return FileClass::Generated;
    }
    if in_any(FIXTURE_DIRECTORIES) {
        return FileClass::Fixture;
    }
    let test_directory =
        in_any(TEST_DIRECTORIES) || (language != Language::Python && directories.contains(&"test"));
    let original_name = path.rsplit('/').next().unwrap_or(path);
    if test_directory
        || is_test_file_name(file_name, original_name, language)
        || is_mock_file_name(file_name)
    {
        return FileClass::Test;
    }
    if in_any(EXAMPLE_DIRECTORIES) {
        return FileClass::Example;
    }
    FileClass::Production
}

/// A line this long is no line a person wrote.
const MINIFIED_LINE: usize = 1000;
/// Below this size a file is cheap to index whatever its shape.
const MINIFIED_SIZE: usize = 32 * 1024;

/// Why a file is not indexed although its name says it is source: its text is minified
/// ([`minified`]), or it is an XML document under a source extension (Qt Linguist's
/// translations are `.ts` files: `<?xml ...?><!DOCTYPE TS>`; parsed as TypeScript, 350 KB of
/// XML costs seconds and yields nothing). PHP is left alone: a PHP template may open with an
/// XML declaration. `None` for source.
pub fn not_indexed(language: Language, text: &str) -> Option<String> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if language != Language::Php && (start.starts_with("<?xml") || start.starts_with("<!DOCTYPE")) {
        return Some(format!("an XML document, not {}", language.spec().name));
    }
    minified(text)
}

/// Why a text is not indexed although it parses: it is minified (a bundle such as
/// `three.module.min.js`, or a file of one enormous line), so that most of its bytes are in
/// lines longer than a person writes. Such a file holds no code anyone navigates, its
/// definitions are one-letter names that would pollute search and guesses, and tree-sitter's
/// query matching over one 800 KB line costs seconds (three.js's three minified bundles were
/// nine tenths of its index time). `None` for any other text.
pub fn minified(text: &str) -> Option<String> {
    if text.len() < MINIFIED_SIZE {
        return None;
    }
    let mut lines = 0usize;
    let mut in_long_lines = 0usize;
    for line in text.split('\n') {
        lines += 1;
        if line.len() > MINIFIED_LINE {
            in_long_lines += line.len();
        }
    }
    // Four fifths of the text in lines over the limit.
    (in_long_lines * 5 >= text.len() * 4).then(|| {
        format!(
            "minified: {} bytes on {lines} line{}, mostly in lines over {MINIFIED_LINE} bytes",
            text.len(),
            if lines == 1 { "" } else { "s" }
        )
    })
}

fn is_generated(directories: &[&str], file_name: &str, language: Language, text: &str) -> bool {
    if directories
        .iter()
        .any(|directory| GENERATED_DIRECTORIES.contains(directory))
    {
        return true;
    }
    let javascript_family = matches!(
        language,
        Language::JavaScript | Language::TypeScript | Language::Tsx
    );
    if javascript_family
        && directories
            .iter()
            .any(|directory| BUNDLE_DIRECTORIES.contains(directory))
    {
        return true;
    }
    if GENERATED_SUFFIXES
        .iter()
        .any(|suffix| file_name.ends_with(suffix))
        || GENERATED_INFIXES
            .iter()
            .any(|infix| file_name.contains(infix))
    {
        return true;
    }
    // Django and Alembic migrations: numbered files written by `makemigrations`.
    if language == Language::Python
        && directories.last() == Some(&"migrations")
        && file_name.starts_with(|character: char| character.is_ascii_digit())
    {
        return true;
    }
    has_generated_marker(text)
}

/// A marker in the first lines (Go's `// Code generated ... DO NOT EDIT.`, `@generated`,
/// `<auto-generated>`), or a minified first line.
fn has_generated_marker(text: &str) -> bool {
    let mut end = text.len().min(2048);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    if head.lines().take(3).any(|line| line.len() >= 1000) {
        return true;
    }
    let lowered = head.to_ascii_lowercase();
    let lines: Vec<&str> = lowered.lines().take(12).collect();
    lines.iter().any(|line| {
        line.contains("@generated")
            || line.contains("<auto-generated")
            || line.contains("autogenerated by")
            || line.contains("automatically generated by")
            || (line.contains("generated") && line.contains("do not edit"))
            || line.contains("generated by the protocol buffer compiler")
    })
}

/// Test doubles, in every language: `mocks.rs`, `mock_server.go`, `http_mock.py`.
fn is_mock_file_name(file_name: &str) -> bool {
    let stem = file_name.split('.').next().unwrap_or(file_name);
    matches!(stem, "mock" | "mocks" | "fakes" | "stubs")
        || stem.starts_with("mock_")
        || stem.ends_with("_mock")
        || stem.ends_with("_mocks")
}

/// Test file names of each language.
fn is_test_file_name(file_name: &str, original_name: &str, language: Language) -> bool {
    let stem = file_name
        .rsplit_once('.')
        .map_or(file_name, |(stem, _)| stem);
    match language {
        Language::Python => {
            stem.starts_with("test_")
                || stem.ends_with("_test")
                || stem.ends_with("_tests")
                || stem == "tests"
                || stem == "conftest"
        }
        Language::Go => stem.ends_with("_test"),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            stem.ends_with(".test")
                || stem.ends_with(".spec")
                || stem.ends_with("-test")
                || stem.ends_with("_test")
                || stem.ends_with(".e2e")
                || stem.ends_with(".stories")
        }
        Language::Rust => stem == "tests" || stem.ends_with("_tests"),
        Language::Java
        | Language::Kotlin
        | Language::Scala
        | Language::CSharp
        | Language::Php
        | Language::Swift => {
            // Case matters: `UserServiceTest`, `ParserTests`, `AppSpec`, `ApiIT`, but not
            // `Latest` or `Manifest`.
            let original = &original_name[..stem.len().min(original_name.len())];
            ["Test", "Tests", "Spec", "Suite", "IT"]
                .iter()
                .any(|suffix| original.ends_with(suffix) && original.len() > suffix.len())
        }
        Language::Ruby | Language::Lua => {
            stem.ends_with("_spec") || stem.ends_with("_test") || stem.starts_with("test_")
        }
        Language::C | Language::Cpp => {
            stem.ends_with("_test")
                || stem.ends_with("_tests")
                || stem.ends_with("_unittest")
                || stem.starts_with("test_")
        }
        Language::Bash => {
            stem.ends_with("_test") || stem.starts_with("test_") || file_name.ends_with(".bats")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(path, language, class)`: the conventions of each ecosystem, and the near misses that
    /// must stay production.
    const CASES: &[(&str, Language, FileClass)] = &[
        // Python: `tests/`, `test_*.py`, `*_test.py`, `tests.py`, `conftest.py`.
        (
            "tests/auth_tests/test_hashers.py",
            Language::Python,
            FileClass::Test,
        ),
        ("pkg/test_models.py", Language::Python, FileClass::Test),
        ("pkg/models_test.py", Language::Python, FileClass::Test),
        ("app/tests.py", Language::Python, FileClass::Test),
        ("conftest.py", Language::Python, FileClass::Test),
        // A testing library a Python package ships is production.
        (
            "django/test/client.py",
            Language::Python,
            FileClass::Production,
        ),
        (
            "django/contrib/auth/hashers.py",
            Language::Python,
            FileClass::Production,
        ),
        (
            "django/contrib/auth/migrations/0001_initial.py",
            Language::Python,
            FileClass::Generated,
        ),
        (
            "django/db/migrations/executor.py",
            Language::Python,
            FileClass::Production,
        ),
        (
            "tests/fixtures/models.py",
            Language::Python,
            FileClass::Fixture,
        ),
        (
            "docs/_ext/djangodocs.py",
            Language::Python,
            FileClass::Example,
        ),
        ("api/service_pb2.py", Language::Python, FileClass::Generated),
        // JavaScript and TypeScript.
        (
            "src/__tests__/app.js",
            Language::JavaScript,
            FileClass::Test,
        ),
        ("src/button.spec.ts", Language::TypeScript, FileClass::Test),
        ("src/button.test.tsx", Language::Tsx, FileClass::Test),
        ("test/index.js", Language::JavaScript, FileClass::Test),
        (
            "build/three.module.js",
            Language::JavaScript,
            FileClass::Generated,
        ),
        (
            "dist/index.min.js",
            Language::JavaScript,
            FileClass::Generated,
        ),
        (
            "node_modules/lodash/map.js",
            Language::JavaScript,
            FileClass::Vendored,
        ),
        (
            "node_modules/lodash/test/map.js",
            Language::JavaScript,
            FileClass::Vendored,
        ),
        (
            "examples/jsm/loaders/GLTFLoader.js",
            Language::JavaScript,
            FileClass::Example,
        ),
        (
            "src/loaders/TextureLoader.js",
            Language::JavaScript,
            FileClass::Production,
        ),
        (
            "src/api.generated.ts",
            Language::TypeScript,
            FileClass::Generated,
        ),
        (
            "src/contest.js",
            Language::JavaScript,
            FileClass::Production,
        ),
        // Go.
        ("server/handler_test.go", Language::Go, FileClass::Test),
        ("server/testdata/input.go", Language::Go, FileClass::Fixture),
        (
            "vendor/github.com/pkg/errors/errors.go",
            Language::Go,
            FileClass::Vendored,
        ),
        (
            "api/v1/zz_generated.deepcopy.go",
            Language::Go,
            FileClass::Generated,
        ),
        ("api/service.pb.go", Language::Go, FileClass::Generated),
        ("server/latest.go", Language::Go, FileClass::Production),
        // Rust: integration tests, benches, `tests.rs` test modules; `build/` is not output.
        ("tests/rt_common.rs", Language::Rust, FileClass::Test),
        (
            "src/runtime/tests/loom_pool.rs",
            Language::Rust,
            FileClass::Test,
        ),
        ("src/parser/tests.rs", Language::Rust, FileClass::Test),
        ("benches/parse.rs", Language::Rust, FileClass::Test),
        ("src/build/mod.rs", Language::Rust, FileClass::Production),
        (
            "src/runtime/task/harness.rs",
            Language::Rust,
            FileClass::Production,
        ),
        // Java, Kotlin, C#: Maven's `src/test/`, `*Test`, `*Tests`, `*Spec`.
        (
            "src/test/java/com/acme/Helper.java",
            Language::Java,
            FileClass::Test,
        ),
        (
            "src/main/java/com/acme/UserServiceTest.java",
            Language::Java,
            FileClass::Test,
        ),
        (
            "src/main/java/com/acme/UserService.java",
            Language::Java,
            FileClass::Production,
        ),
        (
            "src/main/java/com/acme/Latest.java",
            Language::Java,
            FileClass::Production,
        ),
        (
            "app/src/test/kotlin/AppSpec.kt",
            Language::Kotlin,
            FileClass::Test,
        ),
        (
            "Acme.Tests/ParserTests.cs",
            Language::CSharp,
            FileClass::Test,
        ),
        (
            "Acme/Form1.Designer.cs",
            Language::CSharp,
            FileClass::Generated,
        ),
        // Ruby, C and C++, shell.
        ("spec/models/user_spec.rb", Language::Ruby, FileClass::Test),
        ("lib/acme/user.rb", Language::Ruby, FileClass::Production),
        ("src/parser_unittest.cc", Language::Cpp, FileClass::Test),
        (
            "third_party/zlib/inflate.c",
            Language::C,
            FileClass::Vendored,
        ),
        ("src/parser.gen.h", Language::C, FileClass::Generated),
        ("scripts/test_install.sh", Language::Bash, FileClass::Test),
    ];

    #[test]
    fn paths_are_classified_by_their_ecosystem_conventions() {
        let wrong: Vec<String> = CASES
            .iter()
            .filter_map(|&(path, language, expected)| {
                let found = classify(path, language, "");
                (found != expected).then(|| format!("{path}: {found}, expected {expected}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn markers_in_the_first_lines_say_a_tool_wrote_the_file() {
        let go = "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n";
        assert_eq!(classify("api/x.go", Language::Go, go), FileClass::Generated);
        let rust = "// @generated by build.rs\npub const TABLE: [u8; 2] = [0, 1];\n";
        assert_eq!(
            classify("src/t.rs", Language::Rust, rust),
            FileClass::Generated
        );
        let minified = format!("!function(){{{}}}();\n", "var a=1;".repeat(200));
        assert_eq!(
            classify("static/app.js", Language::JavaScript, &minified),
            FileClass::Generated
        );
        // A marker further down (a docstring quoting one) does not count.
        let quoted = format!("{}# generated, do not edit\n", "x = 1\n".repeat(20));
        assert_eq!(
            classify("pkg/tool.py", Language::Python, &quoted),
            FileClass::Production
        );
    }

    #[test]
    fn minified_texts_are_told_from_written_ones() {
        let bundle = format!("!function(e,t){{{}}}\n", "var a=1;".repeat(10_000));
        let reason = super::minified(&bundle).expect("a bundle is minified");
        assert!(
            reason.starts_with("minified: 80017 bytes on 2 lines"),
            "{reason}"
        );
        // Written code, however long the file.
        let written = "function f(a, b) {\n  return a + b;\n}\n".repeat(2_000);
        assert_eq!(super::minified(&written), None);
        // A small file of one long line, and a written file with one long data line.
        assert_eq!(super::minified(&"x".repeat(5_000)), None);
        let with_data = format!("{}const DATA = \"{}\";\n", written, "A".repeat(20_000));
        assert_eq!(super::minified(&with_data), None);
    }

    #[test]
    fn xml_under_a_source_extension_is_not_indexed() {
        let translation = "<?xml version=\"1.0\" ?><!DOCTYPE TS><TS version=\"2.1\">\n<context/>";
        assert_eq!(
            super::not_indexed(Language::TypeScript, translation).as_deref(),
            Some("an XML document, not typescript")
        );
        assert_eq!(
            super::not_indexed(Language::TypeScript, "\u{feff}  <!DOCTYPE TS>").as_deref(),
            Some("an XML document, not typescript")
        );
        assert_eq!(
            super::not_indexed(Language::TypeScript, "const a = 1 < 2;"),
            None
        );
        assert_eq!(
            super::not_indexed(Language::Php, "<?xml version=\"1.0\"?>\n<?php echo 1; ?>"),
            None
        );
    }
}
