//! Resolution cases: small multi-file repositories written inline, one scenario per file under
//! `tests/resolution/`, with the truth written next to the code (rust-analyzer's `//- /path`
//! fixtures, stack-graphs' in-source assertions).
//!
//! A case file is a list of sections; a line `//- path/to/file.ext` starts a file (whatever
//! the language: the line itself is not part of the file). A comment on a line (after `//`, `#`
//! or `--`) may assert:
//! - `calls: ID [kind], ID` — the call edges whose call site is on this line go exactly to these
//!   entities (with this resolution kind, when one is given); `calls: nothing` — none does.
//!   `uses: ID [kind], ID` — the same for the edges of a use that is no call (a type, a class
//!   handed out by name).
//! - `callers: ID, ID` — the callers of the definition whose name is on this line are exactly
//!   these (`callers: nothing`); on a line that defines nothing (a TypeScript overload
//!   signature), of what a name there means, as an editor's call hierarchy asks at the cursor;
//!   `callees: ID, ID` — its callees (`graph::query::callees`).
//! - `target of TEXT: ID, ID` — what the last word of `TEXT`, found on this line, means to an
//!   editor's call hierarchy asking there (`graph::query::targets_at`).
//!
//! Failures print as `path:line: ...` of the case file, so that an editor can jump to them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use codegraph::graph::{FilePath, FileUpdate, Graph, GraphWriter, query};
use codegraph::lang::Language;
use codegraph::model::RelationKind;
use codegraph::world::content_of;

/// Every case file, sorted.
pub fn case_files() -> Vec<PathBuf> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/resolution");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("tests/resolution exists")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "txt"))
        .collect();
    files.sort();
    files
}

/// A case file's sections: relative path → (text, the case file's line of the text's first line).
pub fn sections(case: &str) -> BTreeMap<String, (String, usize)> {
    let mut sections: BTreeMap<String, (String, usize)> = BTreeMap::new();
    let mut current: Option<String> = None;
    for (number, line) in case.lines().enumerate() {
        if let Some(path) = line.strip_prefix("//- ") {
            let path = path.trim().trim_start_matches('/').to_string();
            sections.insert(path.clone(), (String::new(), number + 2));
            current = Some(path);
        } else if let Some(path) = &current {
            let text = &mut sections.get_mut(path).expect("section").0;
            text.push_str(line);
            text.push('\n');
        }
    }
    sections
}

/// The texts of a case, for the incremental property.
pub fn case_texts(case: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(case).expect("case file");
    sections(&text)
        .into_iter()
        .map(|(path, (text, _))| (path, text))
        .collect()
}

/// The module aliases of a case's manifest sections (`tsconfig.json`, `package.json`).
pub fn case_aliases<'a>(
    files: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> codegraph::graph::aliases::ModuleAliases {
    let manifests: Vec<(String, String)> = files
        .into_iter()
        .filter(|(path, _)| codegraph::world::manifests::is_manifest(path))
        .map(|(path, text)| (path.clone(), text.clone()))
        .collect();
    codegraph::world::manifests::aliases_from_texts(&manifests)
}

fn build(files: &BTreeMap<String, (String, usize)>) -> GraphWriter {
    let mut writer = GraphWriter::new();
    writer.set_aliases(case_aliases(
        files.iter().map(|(path, (text, _))| (path, text)),
    ));
    writer.apply(
        files
            .iter()
            .filter_map(|(path, (text, _))| {
                // Sections in no supported language (`go.mod`) are context for the reader.
                let language = Language::from_path(Path::new(path))?;
                Some(FileUpdate {
                    path: FilePath::from(path.as_str()),
                    content: Some(content_of(path, language, text.clone())),
                })
            })
            .collect(),
    );
    writer
}

/// `ID [kind], ID` → sorted (id, kind) pairs; `nothing` → empty.
fn expected_list(text: &str) -> Vec<(String, Option<String>)> {
    let text = text.trim();
    if text == "nothing" {
        return Vec::new();
    }
    let mut items: Vec<(String, Option<String>)> = text
        .split(", ")
        .map(|item| {
            let item = item.trim();
            match item.split_once(" [") {
                Some((id, kind)) => (
                    id.trim().to_string(),
                    Some(kind.trim_end_matches(']').to_string()),
                ),
                None => (item.to_string(), None),
            }
        })
        .collect();
    items.sort();
    items
}

fn render(items: &[(String, String)]) -> String {
    if items.is_empty() {
        return "nothing".to_string();
    }
    items
        .iter()
        .map(|(id, kind)| format!("{id} [{kind}]"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Compares actual (id, kind) pairs with expectations that may omit the kind.
fn matches(actual: &[(String, String)], expected: &[(String, Option<String>)]) -> bool {
    actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|((id, kind), (want_id, want_kind))| {
                id == want_id && want_kind.as_ref().is_none_or(|want| want == kind)
            })
}

/// A `target of TEXT: ID, ID` assertion on a line: (TEXT, the expectation).
fn target_assertion(line: &str) -> Option<(&str, &str)> {
    let position = line.find("// target of ")?;
    let rest = &line[position + "// target of ".len()..];
    let (text, expected) = rest.split_once(": ")?;
    Some((text.trim(), expected.trim()))
}

/// The assertion on a line: (what, the expectation).
fn assertion(line: &str) -> Option<(&'static str, &str)> {
    for marker in ["//", "#", "--"] {
        let Some(position) = line.find(marker) else {
            continue;
        };
        let comment = line[position + marker.len()..].trim();
        for (what, name) in [
            ("calls:", "calls"),
            ("uses:", "uses"),
            ("callers:", "callers"),
            ("callees:", "callees"),
        ] {
            if let Some(rest) = comment.strip_prefix(what) {
                return Some((name, rest));
            }
        }
    }
    None
}

fn check_case(case: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(case).expect("case file");
    let files = sections(&text);
    let writer = build(&files);
    let graph: &Graph = writer.graph();
    let mut failures = Vec::new();
    let mut assertions = 0;
    for (path, (source, first_line)) in &files {
        let Some(file) = graph.file(path) else {
            continue;
        };
        for (line_index, line) in source.lines().enumerate() {
            if let Some((text, expected)) = target_assertion(line) {
                assertions += 1;
                let where_ = format!("{}:{}", case.display(), first_line + line_index);
                let line_start: usize = source
                    .split_inclusive('\n')
                    .take(line_index)
                    .map(str::len)
                    .sum();
                let Some(found) = line.find(text) else {
                    failures.push(format!("{where_}: no `{text}` on this line"));
                    continue;
                };
                let last_word = text.rfind(' ').map_or(0, |space| space + 1);
                let byte = (line_start + found + last_word) as u32;
                let actual: Vec<String> = query::targets_at(graph, path, byte)
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                let expected: Vec<String> = expected_list(expected)
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect();
                if actual != expected {
                    failures.push(format!(
                        "{where_}: target of {text}: expected {expected:?}, got {actual:?}"
                    ));
                }
                continue;
            }
            let Some((what, expected)) = assertion(line) else {
                continue;
            };
            assertions += 1;
            let where_ = format!("{}:{}", case.display(), first_line + line_index);
            let expected = expected_list(expected);
            let mut actual: Vec<(String, String)> = match what {
                "calls" | "uses" => file
                    .resolved
                    .edges
                    .iter()
                    .filter(|edge| {
                        edge.kind
                            == if what == "calls" {
                                RelationKind::Calls
                            } else {
                                RelationKind::Uses
                            }
                            && file.site(edge).is_some_and(|site| {
                                file.summary.locate(site).start.line as usize == line_index
                            })
                    })
                    .map(|edge| (edge.to.to_string(), edge.resolution.to_string()))
                    .collect(),
                _ => {
                    let named_here = file
                        .summary
                        .defs
                        .iter()
                        .position(|def| {
                            file.summary.locate(def.name_span).start.line as usize == line_index
                        })
                        .map(|index| file.ids[index]);
                    let Some(id) =
                        named_here.or_else(|| target_on_line(graph, path, source, line_index))
                    else {
                        failures.push(format!("{where_}: no definition named on this line"));
                        continue;
                    };
                    let neighbours = if what == "callers" {
                        query::callers(graph, &id)
                    } else {
                        query::callees(graph, &id)
                    };
                    neighbours
                        .into_iter()
                        .map(|call| (call.entity.id.to_string(), call.resolution.to_string()))
                        .collect()
                }
            };
            actual.sort();
            actual.dedup();
            if !matches(&actual, &expected) {
                let ambiguous: Vec<String> = file
                    .resolved
                    .ambiguous
                    .iter()
                    .filter(|item| file.summary.locate(item.site).start.line as usize == line_index)
                    .map(|item| {
                        format!(
                            "{} (ambiguous: {} candidates)",
                            item.name,
                            item.candidates.len()
                        )
                    })
                    .collect();
                failures.push(format!(
                    "{where_}: {what}: expected {}, got {}{}",
                    expected
                        .iter()
                        .map(|(id, kind)| match kind {
                            Some(kind) => format!("{id} [{kind}]"),
                            None => id.clone(),
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    render(&actual),
                    if ambiguous.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", ambiguous.join(", "))
                    }
                ));
            }
        }
    }
    if assertions == 0 {
        failures.push(format!("{}: asserts nothing", case.display()));
    }
    failures
}

/// What a name on a line that defines nothing means (a TypeScript overload signature names the
/// function it declares): the first callable target of a word there, as an editor's call
/// hierarchy asks at the cursor.
fn target_on_line(
    graph: &Graph,
    path: &str,
    source: &str,
    line_index: usize,
) -> Option<codegraph::graph::EntityId> {
    let line_start: usize = source
        .split_inclusive('\n')
        .take(line_index)
        .map(str::len)
        .sum();
    let line = source.lines().nth(line_index)?;
    let code = line.split("//").next().unwrap_or(line);
    let mut previous_is_word = false;
    for (offset, character) in code.char_indices() {
        let is_word = character.is_alphanumeric() || character == '_';
        if is_word && !previous_is_word {
            let byte = (line_start + offset) as u32;
            let found = query::targets_at(graph, path, byte).into_iter().find(|id| {
                graph
                    .entity(id)
                    .is_some_and(|entity| entity.kind.is_callable())
            });
            if found.is_some() {
                return found;
            }
        }
        previous_is_word = is_word;
    }
    None
}

#[test]
fn every_resolution_case_holds() {
    let mut failures = Vec::new();
    let cases = case_files();
    assert!(!cases.is_empty(), "no case under tests/resolution");
    for case in &cases {
        failures.extend(check_case(case));
    }
    assert!(failures.is_empty(), "\n{}\n", failures.join("\n"));
}

#[test]
fn assertions_are_read_from_comments() {
    assert_eq!(
        assertion("    s.load()  // calls: a.rs::S.load [receiver_type]"),
        Some(("calls", " a.rs::S.load [receiver_type]"))
    );
    assert_eq!(
        assertion("x.m()  # callers: nothing"),
        Some(("callers", " nothing"))
    );
    assert_eq!(
        assertion("def f():  # callees: a.py::g"),
        Some(("callees", " a.py::g"))
    );
    assert_eq!(assertion("f() -- just a comment"), None);
    assert_eq!(
        expected_list(" b, a [dispatch]"),
        vec![
            ("a".to_string(), Some("dispatch".to_string())),
            ("b".to_string(), None)
        ]
    );
}
