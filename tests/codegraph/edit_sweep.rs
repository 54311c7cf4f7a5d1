//! The edit sweep over the repository's own fixtures, a resolution case and a real file
//! vendored as test data (the fast part of the crash sweep; the benchmark `sweep_edits` runs
//! it over real packages): every source file typed through the editor's path, prefix by
//! prefix and one character at a time, and after every edit the incremental graph equals a
//! fresh index of the same texts.

use std::collections::BTreeMap;

use codegraph::lang::Language;

#[path = "../../benches/support/edit_sweep.rs"]
mod harness;

use harness::{Plan, sweep_file};

/// The source files of a resolution case, by path (other files of the case, manifests, kept).
fn case(name: &str) -> BTreeMap<String, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/resolution")
        .join(name);
    crate::resolution::case_texts(&path)
}

fn sources(texts: &BTreeMap<String, String>) -> Vec<String> {
    texts
        .keys()
        .filter(|path| Language::from_path(std::path::Path::new(path)).is_some())
        .cloned()
        .collect()
}

fn sweep_case(name: &str, plan: Plan) {
    let texts = case(name);
    let targets = sources(&texts);
    assert!(!targets.is_empty(), "{name} has source files");
    for target in targets {
        let swept =
            sweep_file(&texts, &target, plan).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(
            swept.compared > plan.prefixes,
            "{name}: {target}: {swept:?}"
        );
    }
}

#[test]
fn typing_the_type_parameter_cases_keeps_the_graph_whole() {
    sweep_case(
        "type-parameter-scopes.txt",
        Plan {
            prefixes: 40,
            random: 40,
            seed: 1,
        },
    );
}

/// The source files of a fixture directory, by relative path.
fn fixture(name: &str) -> BTreeMap<String, String> {
    let root = crate::support::fixture(name);
    let mut texts = BTreeMap::new();
    let mut pending = vec![root.clone()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let relative = path.strip_prefix(&root).unwrap();
                texts.insert(relative.to_string_lossy().to_string(), text);
            }
        }
    }
    texts
}

#[test]
fn typing_every_fixture_file_keeps_the_graph_whole() {
    let plan = Plan {
        prefixes: 10,
        random: 10,
        seed: 3,
    };
    let mut swept = 0;
    for name in crate::support::fixture_names() {
        let texts = fixture(&name);
        for target in sources(&texts) {
            sweep_file(&texts, &target, plan).unwrap_or_else(|error| panic!("{name}: {error}"));
            swept += 1;
        }
    }
    assert!(swept > 150, "{swept} files swept");
}

#[test]
fn typing_a_real_generic_library_file_keeps_the_graph_whole() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/effect/SchemaGetter.ts");
    let texts = BTreeMap::from([(
        "src/SchemaGetter.ts".to_string(),
        std::fs::read_to_string(path).unwrap(),
    )]);
    let swept = sweep_file(
        &texts,
        "src/SchemaGetter.ts",
        Plan {
            prefixes: 60,
            random: 30,
            seed: 5,
        },
    )
    .unwrap();
    assert_eq!(swept.compared, 60 + 30 + 1);
}

#[test]
fn a_header_typed_into_cpp_and_back_is_the_language_its_text_says() {
    // C++ only from its last line on: every shorter prefix is a C header, as read from disk.
    let texts = BTreeMap::from([(
        "include/lib.h".to_string(),
        "int f(void);\nstatic int g(void) { return f(); }\nnamespace n { int h(); }\n".to_string(),
    )]);
    let plan = Plan {
        prefixes: 12,
        random: 12,
        seed: 9,
    };
    sweep_file(&texts, "include/lib.h", plan).unwrap();
}
