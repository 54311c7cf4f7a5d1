//! `textDocument/semanticTokens` end to end: the tokens of small Rust and Python files decoded
//! with the legend `initialize` announced, a range, a delta after an edit, every language, the
//! size cap, cancellation, and the time of a 5,000-line file.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::lsp::{LspClient, uri};
use crate::support;

/// The tokens of an answer as `line:column length type modifiers...`, decoded with the legend.
fn decode(initialize: &Value, data: &Value) -> Vec<String> {
    let legend = &initialize["capabilities"]["semanticTokensProvider"]["legend"];
    let types = legend["tokenTypes"].as_array().unwrap();
    let modifiers = legend["tokenModifiers"].as_array().unwrap();
    let numbers: Vec<u64> = data
        .as_array()
        .unwrap()
        .iter()
        .map(|number| number.as_u64().unwrap())
        .collect();
    let (mut line, mut column) = (0, 0);
    numbers
        .chunks(5)
        .map(|token| {
            if token[0] > 0 {
                column = 0;
            }
            line += token[0];
            column += token[1];
            let mut shown = format!(
                "{line}:{column} {} {}",
                token[2],
                types[token[3] as usize].as_str().unwrap()
            );
            for (bit, name) in modifiers.iter().enumerate() {
                if token[4] & (1 << bit) != 0 {
                    shown.push(' ');
                    shown.push_str(name.as_str().unwrap());
                }
            }
            shown
        })
        .collect()
}

fn full(client: &mut LspClient, path: &Path) -> Value {
    client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri(path)}}),
    )
}

/// A workspace of the given files, and a server on it.
fn serve(files: &[(&str, &str)], arguments: &[&str]) -> (tempfile::TempDir, LspClient, Value) {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    let (client, initialize) = LspClient::start_with(&[&root], false, arguments);
    (directory, client, initialize)
}

fn root_of(directory: &tempfile::TempDir) -> std::path::PathBuf {
    directory.path().canonicalize().unwrap()
}

const RUST: &str =
    "/// Adds.\nfn add(left: i32) -> i32 {\n    let total = left + 1; // one\n    total\n}\n";

const PYTHON: &str = "import os\n\ndef greet(name):\n    \"\"\"Says hi.\n    twice\"\"\"\n    return print(\"hi\", name, None)\n";

/// The legend names only the standard types and modifiers codegraph emits.
#[test]
fn the_legend_is_announced_with_full_delta_and_range() {
    let (_directory, mut client, initialize) = serve(&[("a.rs", RUST)], &[]);
    let provider = &initialize["capabilities"]["semanticTokensProvider"];
    assert_eq!(
        provider["legend"],
        json!({
            "tokenTypes": [
                "namespace", "type", "class", "decorator", "parameter", "variable", "property",
                "function", "method", "macro", "keyword", "modifier", "comment", "string",
                "number", "regexp", "operator"
            ],
            "tokenModifiers": ["declaration", "readonly", "defaultLibrary", "documentation"]
        })
    );
    assert_eq!(provider["range"], true);
    assert_eq!(provider["full"], json!({"delta": true}));
    assert!(client.shutdown().success());
}

#[test]
fn rust_and_python_tokens() {
    let (directory, mut client, initialize) = serve(&[("a.rs", RUST), ("greet.py", PYTHON)], &[]);
    let root = root_of(&directory);
    let rust = full(&mut client, &root.join("a.rs"));
    // tree-sitter-rust's own queries: no token for plain variables, `1` is `constant.builtin`.
    assert_eq!(
        decode(&initialize, &rust["data"]),
        [
            "0:0 9 comment documentation",
            "1:0 2 keyword",
            "1:3 3 function",
            "1:7 4 parameter",
            "1:13 3 type defaultLibrary",
            "1:21 3 type defaultLibrary",
            "2:4 3 keyword",
            "2:23 1 variable readonly defaultLibrary",
            "2:26 6 comment",
        ]
    );
    let python = full(&mut client, &root.join("greet.py"));
    // A multi-line string is one token per line; `print` is a builtin, `None` a builtin constant.
    assert_eq!(
        decode(&initialize, &python["data"]),
        [
            "0:0 6 keyword",
            "0:7 2 variable",
            "2:0 3 keyword",
            "2:4 5 function",
            "2:10 4 variable",
            "3:4 11 string",
            "4:0 12 string",
            "5:4 6 keyword",
            "5:11 5 function defaultLibrary",
            "5:17 4 string",
            "5:23 4 variable",
            "5:29 4 variable readonly defaultLibrary",
        ]
    );
    assert!(client.shutdown().success());
}

/// `range` answers the tokens of the lines asked for only, relative to the range's first token.
#[test]
fn a_range_answers_its_tokens_only() {
    let (directory, mut client, initialize) = serve(&[("greet.py", PYTHON)], &[]);
    let root = root_of(&directory);
    let range = client.request(
        "textDocument/semanticTokens/range",
        json!({
            "textDocument": {"uri": uri(&root.join("greet.py"))},
            "range": {"start": {"line": 2, "character": 0}, "end": {"line": 3, "character": 0}},
        }),
    );
    assert_eq!(range.get("resultId"), None);
    assert_eq!(
        decode(&initialize, &range["data"]),
        ["2:0 3 keyword", "2:4 5 function", "2:10 4 variable"]
    );
    assert!(client.shutdown().success());
}

/// Applies a delta's edits to the flat token array they were computed against.
fn apply_edits(data: &Value, edits: &Value) -> Value {
    let mut numbers: Vec<Value> = data.as_array().unwrap().clone();
    let mut edits: Vec<&Value> = edits.as_array().unwrap().iter().collect();
    edits.sort_by_key(|edit| std::cmp::Reverse(edit["start"].as_u64().unwrap()));
    for edit in edits {
        let start = edit["start"].as_u64().unwrap() as usize;
        let delete = edit["deleteCount"].as_u64().unwrap() as usize;
        let inserted = edit["data"].as_array().cloned().unwrap_or_default();
        numbers.splice(start..start + delete, inserted);
    }
    Value::Array(numbers)
}

/// After an edit of the open document, `full/delta` answers the edit of the token array that
/// turns the last result into the new text's tokens; a result id the server no longer has gets
/// the whole result.
#[test]
fn a_delta_after_an_edit_is_the_changed_middle() {
    let (directory, mut client, initialize) = serve(&[("greet.py", PYTHON)], &[]);
    let path = root_of(&directory).join("greet.py");
    client.open(&path, PYTHON);
    let first = full(&mut client, &path);
    let first_id = first["resultId"].as_str().unwrap().to_string();
    // `import os` becomes `import os, sys` (unsaved).
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri(&path), "version": 2},
            "contentChanges": [{
                "range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 9}},
                "text": ", sys",
            }],
        }),
    );
    let delta = client.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri(&path)}, "previousResultId": first_id}),
    );
    assert_ne!(delta["resultId"], json!(first_id));
    // One token inserted after the first two: `sys`, four columns after `os`.
    assert_eq!(
        delta["edits"],
        json!([{"start": 10, "deleteCount": 0, "data": [0, 4, 3, 5, 0]}])
    );
    let after = apply_edits(&first["data"], &delta["edits"]);
    let fresh = full(&mut client, &path);
    assert_eq!(after, fresh["data"]);
    assert_eq!(
        decode(&initialize, &after)[..4],
        [
            "0:0 6 keyword",
            "0:7 2 variable",
            "0:11 3 variable",
            "2:0 3 keyword"
        ]
    );

    let stale = client.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri(&path)}, "previousResultId": "no such result"}),
    );
    assert_eq!(stale["data"], fresh["data"]);
    assert!(client.shutdown().success());
}

/// A small snippet of every language, with a keyword in it: each gets tokens, its keyword
/// among them.
const SNIPPETS: [(&str, &str, &str); 17] = [
    ("a.py", "def f():\n    return 1\n", "def"),
    ("a.js", "function f() { return 1; }\n", "function"),
    ("a.ts", "function f(): number { return 1; }\n", "function"),
    (
        "a.tsx",
        "function F() { return <div>{1}</div>; }\n",
        "function",
    ),
    ("a.rs", "fn f() -> i32 { 1 }\n", "fn"),
    ("a.go", "package a\n\nfunc f() int { return 1 }\n", "func"),
    ("A.java", "class A { int f() { return 1; } }\n", "class"),
    ("a.c", "int f(void) { return 1; }\n", "return"),
    (
        "a.cpp",
        "namespace a { int f() { return 1; } }\n",
        "namespace",
    ),
    ("A.cs", "class A { int F() { return 1; } }\n", "class"),
    ("a.rb", "def f\n  1\nend\n", "def"),
    ("a.php", "<?php\nfunction f() { return 1; }\n", "function"),
    ("a.kt", "fun f(): Int { return 1 }\n", "fun"),
    ("a.swift", "func f() -> Int { return 1 }\n", "func"),
    ("a.scala", "object A { def f(): Int = 1 }\n", "object"),
    ("a.lua", "local function f() return 1 end\n", "local"),
    ("a.sh", "f() { if true; then echo 1; fi; }\n", "if"),
];

#[test]
fn every_language_gets_tokens() {
    let (directory, mut client, initialize) =
        serve(&SNIPPETS.map(|(name, text, _)| (name, text)), &[]);
    let root = root_of(&directory);
    let mut missing = Vec::new();
    for (name, text, keyword) in SNIPPETS {
        let tokens = decode(&initialize, &full(&mut client, &root.join(name))["data"]);
        // The keyword's token: `line:column length keyword`.
        let (line, column) = text
            .lines()
            .enumerate()
            .find_map(|(line, content)| content.find(keyword).map(|column| (line, column)))
            .unwrap();
        let expected = format!("{line}:{column} {} keyword", keyword.len());
        if !tokens.contains(&expected) {
            missing.push(format!("{name}: no `{expected}` in {tokens:?}"));
        }
    }
    assert_eq!(missing, Vec::<String>::new());
    assert!(client.shutdown().success());
}

/// A file over the size cap the indexer applies gets no tokens (and costs nothing).
#[test]
fn a_file_over_the_size_cap_gets_no_tokens() {
    let big = "x = 1\n".repeat(100);
    let (directory, mut client, _) = serve(
        &[("big.py", &big), ("small.py", "x = 1\n")],
        &["--max-file-size", "300"],
    );
    let root = root_of(&directory);
    assert_eq!(full(&mut client, &root.join("big.py")), Value::Null);
    assert_ne!(full(&mut client, &root.join("small.py")), Value::Null);
    assert!(client.shutdown().success());
}

/// A `$/cancelRequest` stops a highlight that is running: answered `-32800`, at once. (The
/// test hook makes the highlight of a document whose text is the slow marker wait at its
/// checkpoints until it is stopped.)
#[test]
fn a_cancelled_highlight_stops() {
    let (directory, mut client, _) = serve(&[], &[]);
    let path = root_of(&directory).join("slow.py");
    client.open(&path, support::SLOW_QUERY);
    let started = Instant::now();
    let id = client.send_request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri(&path)}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    client.notify("$/cancelRequest", json!({"id": id}));
    let answer = client.response_message(id);
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(client.shutdown().success());
}

/// The time of `full` on a 5,000-line Rust file, printed (a figure, not a limit).
#[test]
fn the_time_of_a_five_thousand_line_file() {
    let function = "/// Adds one.\npub fn add_NUMBER(value: u64) -> u64 {\n    let next = value + 1; // one more\n    if next > 10 {\n        return next * 2;\n    }\n    println!(\"{next}\");\n    next\n}\n\n";
    let text: String = (0..500)
        .map(|number| function.replace("NUMBER", &number.to_string()))
        .collect();
    assert_eq!(text.lines().count(), 5_000);
    let (directory, mut client, _) = serve(&[("big.rs", &text)], &[]);
    let path = root_of(&directory).join("big.rs");
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let tokens = full(&mut client, &path);
        times.push(started.elapsed());
        assert!(tokens["data"].as_array().unwrap().len() > 5 * 5_000);
    }
    times.sort();
    eprintln!(
        "semanticTokens/full of a 5,000-line Rust file ({} bytes): median {:.1} ms, min {:.1} ms (5 runs)",
        text.len(),
        times[2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3
    );
    assert!(client.shutdown().success());
}
