//! The language-server benchmark: a program that prints figures, never a test that fails on
//! timing.
//!
//!   benches/corpus.sh                    # once: assemble bench-corpus/ (about 1.8M lines)
//!   cargo bench --bench lsp [-- DIR]     # or CODEGRAPH_BENCH_CORPUS=DIR
//!
//! It starts the real server (`codegraph lsp --stdio --no-cache`, the binary of this package)
//! on the corpus, over pipes, as an editor would, waits for the end of the initial index (the
//! `$/progress` end), then measures, each as p50 and p99 of the client's wall time from the
//! first byte sent to the last byte of the answer received (JSON and pipes included):
//!
//! (a) EDIT → NEXT REQUEST: on the source file closest to 5,000 lines (Python, Rust, JavaScript,
//!     TypeScript or Go), a few small functions are appended once; then, 200 times each, a
//!     one-word `didChange` and the next request, which must show the edit: a definition renamed
//!     then `prepareCallHierarchy` at it; the same then `documentSymbol` of the whole file; a call
//!     inside a body switched to another callee then `outgoingCalls` of the caller. An answer
//!     that does not show the edit aborts the benchmark.
//! (b) `workspace/symbol` with varied queries (exact names, prefixes, camel humps, nonsense).
//! (c) `prepareCallHierarchy` + `incomingCalls` on functions that have callers (found through
//!     workspace symbols), the two round trips together.
//! (d) MEMORY of 100 open documents: the server's VmRSS (/proc/<pid>/status) before and after
//!     `didOpen` of 100 files spread over the corpus, against their total text size, each read
//!     once the server has been quiet long enough to return freed memory (`world::trim`).
#![allow(clippy::print_stdout)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codegraph::lang::Language;
use codegraph_testkit::lsp::{LspConnection, Notifications};
use serde_json::{Value, json};

const ITERATIONS: usize = 200;
const INDEX_TIMEOUT: Duration = Duration::from_secs(600);
const TIMEOUT: Duration = Duration::from_secs(60);

fn main() {
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!(
            "no corpus at {}: run benches/corpus.sh, or pass a directory (cargo bench --bench lsp -- DIR, or CODEGRAPH_BENCH_CORPUS=DIR)",
            corpus.display()
        );
        std::process::exit(2);
    }
    let corpus = corpus.canonicalize().expect("corpus path");
    let files = codegraph::world::walk::walk(&corpus, 1024 * 1024).files;
    println!(
        "corpus   {} ({} source files)",
        corpus.display(),
        files.len()
    );

    let started = Instant::now();
    let mut server = Server::start(&corpus);
    println!(
        "server   {} (pid {}), initial index {:.1} s, VmRSS {} MiB\n",
        env!("CARGO_BIN_EXE_codegraph"),
        server.connection.process_id(),
        started.elapsed().as_secs_f64(),
        server.rss_kib() / 1024
    );

    // Memory first, while the server holds nothing but the index.
    let edited = closest_to_5000_lines(&files);
    let opened: Vec<&PathBuf> = {
        let candidates: Vec<&PathBuf> = files
            .iter()
            .map(|file| &file.absolute)
            .filter(|path| Some(*path) != edited.as_ref().map(|(path, _)| path))
            .collect();
        let step = (candidates.len() / 100).max(1);
        candidates.into_iter().step_by(step).take(100).collect()
    };
    memory(&mut server, &opened);

    match &edited {
        Some((path, language)) => edit_then_request(&mut server, path, *language),
        None => println!("(a) EDIT → NEXT REQUEST: absent (no Python, Rust, JS, TS or Go file)\n"),
    }
    workspace_symbols(&mut server);
    call_hierarchy(&mut server);

    let status = server.shutdown();
    println!("server exited: {status}");
}

/// The first argument that is not a flag (`cargo bench` passes `--bench`), else
/// $CODEGRAPH_BENCH_CORPUS, else `bench-corpus/` at the repository root.
fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_BENCH_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-corpus")
}

// --- The measurements --------------------------------------------------------------------------

/// A top-level function of `language` named `name` whose body is `call` (a call of another
/// function) or empty.
fn function_source(language: Language, name: &str, call: Option<&str>) -> Option<String> {
    Some(match language {
        Language::Python => match call {
            Some(callee) => format!("def {name}():\n    {callee}()\n"),
            None => format!("def {name}():\n    pass\n"),
        },
        Language::Rust | Language::JavaScript | Language::TypeScript | Language::Go => {
            let keyword = match language {
                Language::Rust => "fn",
                Language::Go => "func",
                _ => "function",
            };
            match call {
                Some(callee) => format!("{keyword} {name}() {{\n    {callee}();\n}}\n"),
                None => format!("{keyword} {name}() {{}}\n"),
            }
        }
        _ => return None,
    })
}

/// The source file closest to 5,000 lines among the languages `function_source` knows.
fn closest_to_5000_lines(
    files: &[codegraph::world::walk::SourceFile],
) -> Option<(PathBuf, Language)> {
    files
        .iter()
        .filter(|file| function_source(file.language, "f", None).is_some())
        .filter_map(|file| {
            let text = std::fs::read_to_string(&file.absolute).ok()?;
            let lines = text.lines().count() as i64;
            Some(((lines - 5000).abs(), file.absolute.clone(), file.language))
        })
        .min_by_key(|(distance, path, _)| (*distance, path.clone()))
        .map(|(_, path, language)| (path, language))
}

/// (line, byte column) of `needle` in `text`, the first line being `first_line`.
fn position_in(text: &str, needle: &str, first_line: usize) -> (usize, usize) {
    let offset = text.find(needle).expect("needle in text");
    let line_start = text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
    (
        first_line + text[..offset].matches('\n').count(),
        offset - line_start,
    )
}

fn edit_then_request(server: &mut Server, path: &Path, language: Language) {
    let mut text = std::fs::read_to_string(path).expect("edited file");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let lines = text.lines().count();
    let uri = uri(path);
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "", "version": 1, "text": text}}),
    );
    // Appended once (version 2): a function whose name the first loop changes, two callees, and
    // a caller whose call the second loop switches between them.
    let renamed = "codegraph_renamed_2";
    let appended = [
        function_source(language, renamed, None),
        function_source(language, "codegraph_callee_a", None),
        function_source(language, "codegraph_callee_b", None),
        function_source(language, "codegraph_caller", Some("codegraph_callee_a")),
    ]
    .map(|source| format!("\n{}", source.expect("a known language")))
    .concat();
    let end_line = text.matches('\n').count();
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": end_line, "character": 0}, "end": {"line": end_line, "character": 0}},
            "text": appended,
        }]}),
    );
    // Untimed: an answer after the append, so that the first timed edit does not also wait for
    // the append's own full parse of the file (messages are handled in order).
    server.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let mut version = 2;
    let mut change = |server: &Server, line: usize, column: usize, old: &str, new: &str| {
        version += 1;
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{
                "range": {"start": {"line": line, "character": column},
                          "end": {"line": line, "character": column + old.len()}},
                "text": new,
            }]}),
        );
    };

    // 1. A definition renamed (its file's exports change), then prepareCallHierarchy at it.
    let (line, column) = position_in(&appended, renamed, end_line);
    let mut current = renamed.to_string();
    let mut rename_times = Vec::with_capacity(ITERATIONS);
    for iteration in 0..ITERATIONS {
        let next = format!("codegraph_renamed_{}", iteration + 3);
        let start = Instant::now();
        change(server, line, column, &current, &next);
        let items = server.request(
            "textDocument/prepareCallHierarchy",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": column + 1}}),
        );
        rename_times.push(start.elapsed());
        current = next;
        assert_eq!(
            items[0]["name"], current,
            "prepareCallHierarchy did not see the edit: {items}"
        );
    }

    // 2. The same rename, then documentSymbol of the whole file.
    let mut symbol_times = Vec::with_capacity(ITERATIONS);
    let mut symbols = 0;
    for iteration in 0..ITERATIONS {
        let next = format!("codegraph_renamed_{}", ITERATIONS + iteration + 3);
        let start = Instant::now();
        change(server, line, column, &current, &next);
        let document = server.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        symbol_times.push(start.elapsed());
        current = next;
        let names: Vec<&str> = document
            .as_array()
            .expect("document symbols")
            .iter()
            .filter_map(|symbol| symbol["name"].as_str())
            .collect();
        assert!(
            names.contains(&current.as_str()),
            "documentSymbol did not see the edit"
        );
        symbols = names.len();
    }

    // 2b. documentSymbol with no edit before it: what the answer itself costs, the floor of 2.
    let mut floor_times = Vec::with_capacity(ITERATIONS);
    for _ in 0..ITERATIONS {
        let start = Instant::now();
        let document = server.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        floor_times.push(start.elapsed());
        assert!(
            document
                .as_array()
                .is_some_and(|symbols| !symbols.is_empty())
        );
    }

    // 3. A call inside a body switched between two callees (one character, the exports stay),
    //    then outgoingCalls of the caller.
    let (caller_line, caller_column) = position_in(&appended, "codegraph_caller", end_line);
    let items = server.request(
        "textDocument/prepareCallHierarchy",
        json!({"textDocument": {"uri": uri}, "position": {"line": caller_line, "character": caller_column}}),
    );
    let caller = items[0].clone();
    // The call, not the definition: the indented occurrence.
    let (call_line, call_column) = position_in(&appended, "    codegraph_callee_a()", end_line);
    let last_letter = call_column + "    codegraph_callee_".len();
    let mut callee = 'a';
    let mut call_times = Vec::with_capacity(ITERATIONS);
    for _ in 0..ITERATIONS {
        let next = if callee == 'a' { 'b' } else { 'a' };
        let start = Instant::now();
        change(
            server,
            call_line,
            last_letter,
            &callee.to_string(),
            &next.to_string(),
        );
        let outgoing = server.request("callHierarchy/outgoingCalls", json!({"item": caller}));
        call_times.push(start.elapsed());
        callee = next;
        assert_eq!(
            outgoing[0]["to"]["name"],
            format!("codegraph_callee_{callee}"),
            "outgoingCalls did not see the edit: {outgoing}"
        );
    }

    let relative = path.display().to_string();
    println!("(a) EDIT → NEXT REQUEST on {relative} ({lines} lines), {ITERATIONS} edits each");
    print_latency(
        "    a definition renamed → prepareCallHierarchy at it",
        &mut rename_times,
        5.0,
    );
    print_latency(
        &format!("    a definition renamed → documentSymbol ({symbols} top-level symbols)"),
        &mut symbol_times,
        5.0,
    );
    print_latency(
        "    documentSymbol alone, no edit (the floor of the line above)",
        &mut floor_times,
        5.0,
    );
    print_latency(
        "    a call in a body changed → outgoingCalls of the caller",
        &mut call_times,
        5.0,
    );
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    println!();
}

fn workspace_symbols(server: &mut Server) {
    // Exact names, prefixes, camel humps, snake-case parts, one letter, and no match at all.
    let queries = [
        "QuerySet",
        "HttpResponse",
        "get",
        "spawn",
        "Observable",
        "mergeMap",
        "from_str",
        "Serialize",
        "deserialize_any",
        "hrsp",
        "qsf",
        "AsyncRead",
        "parse_args",
        "Vector3",
        "clean_fields",
        "render_to_string",
        "io",
        "a",
        "xyzzyqwv",
        "ObjectLoader",
    ];
    let mut times = Vec::with_capacity(ITERATIONS);
    let mut by_query: HashMap<&str, (Vec<Duration>, usize)> = HashMap::new();
    for iteration in 0..ITERATIONS {
        let query = queries[iteration % queries.len()];
        let start = Instant::now();
        let symbols = server.request("workspace/symbol", json!({"query": query}));
        let elapsed = start.elapsed();
        times.push(elapsed);
        let entry = by_query.entry(query).or_default();
        entry.0.push(elapsed);
        entry.1 = symbols.as_array().map_or(0, Vec::len);
    }
    println!(
        "(b) workspace/symbol, {ITERATIONS} requests over {} queries",
        queries.len()
    );
    print_latency("    all queries", &mut times, 10.0);
    let mut slowest: Vec<(&str, Duration, usize)> = by_query
        .iter_mut()
        .map(|(query, (times, results))| {
            times.sort();
            (*query, times[times.len() / 2], *results)
        })
        .collect();
    slowest.sort_by_key(|(_, median, _)| std::cmp::Reverse(*median));
    let shown: Vec<String> = slowest
        .iter()
        .take(4)
        .map(|(query, median, results)| format!("{query:?} {} ({results} results)", ms(*median)))
        .collect();
    println!("    slowest queries (median): {}\n", shown.join(", "));
}

fn call_hierarchy(server: &mut Server) {
    // Functions with callers, found as an editor user would: by name.
    let queries = [
        "save",
        "clean",
        "render",
        "get_queryset",
        "spawn",
        "parse",
        "subscribe",
        "validate",
        "resolve",
        "merge",
        "format",
        "encode",
        "build",
        "serialize",
        "compile",
        "dispatch",
    ];
    let mut targets: Vec<(Value, Value, usize)> = Vec::new();
    for query in queries {
        let symbols = server.request("workspace/symbol", json!({"query": query}));
        for symbol in symbols.as_array().into_iter().flatten().take(20) {
            // Function, method, constructor.
            if ![12, 6, 9].contains(&symbol["kind"].as_i64().unwrap_or(0)) {
                continue;
            }
            let location = &symbol["location"];
            let position = location["range"]["start"].clone();
            let items = server.request(
                "textDocument/prepareCallHierarchy",
                json!({"textDocument": {"uri": location["uri"]}, "position": position}),
            );
            let Some(item) = items.as_array().and_then(|items| items.first()) else {
                continue;
            };
            let incoming = server.request("callHierarchy/incomingCalls", json!({"item": item}));
            let callers = incoming.as_array().map_or(0, Vec::len);
            if callers > 0 {
                targets.push((location["uri"].clone(), position, callers));
                break;
            }
        }
        if targets.len() >= 50 {
            break;
        }
    }
    if targets.is_empty() {
        println!("(c) CALL HIERARCHY: absent (no function with callers found)\n");
        return;
    }
    let mut times = Vec::with_capacity(ITERATIONS);
    for iteration in 0..ITERATIONS {
        let (uri, position, callers) = &targets[iteration % targets.len()];
        let start = Instant::now();
        let items = server.request(
            "textDocument/prepareCallHierarchy",
            json!({"textDocument": {"uri": uri}, "position": position}),
        );
        let incoming = server.request("callHierarchy/incomingCalls", json!({"item": items[0]}));
        times.push(start.elapsed());
        assert_eq!(incoming.as_array().map_or(0, Vec::len), *callers);
    }
    let callers: Vec<usize> = targets.iter().map(|(_, _, callers)| *callers).collect();
    println!(
        "(c) prepareCallHierarchy + incomingCalls, {ITERATIONS} pairs over {} functions with 1..{} callers",
        targets.len(),
        callers.iter().max().unwrap()
    );
    print_latency("    both round trips", &mut times, 2.0);
    println!();
}

fn memory(server: &mut Server, paths: &[&PathBuf]) {
    // Each figure is read once the server has been quiet long enough to return what it freed to
    // the system (`world::trim`), as it does between an editor's bursts of changes.
    let settle = codegraph::world::trim::QUIET + Duration::from_millis(500);
    std::thread::sleep(settle);
    let before = server.rss_kib();
    let binary_before = server.status_kib("RssFile:");
    let texts: Vec<String> = paths
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap_or_default())
        .collect();
    let text_bytes: u64 = texts.iter().map(|text| text.len() as u64).sum();
    for (path, text) in paths.iter().zip(&texts) {
        server.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "", "version": 1, "text": text}}),
        );
    }
    // Opens are applied in arrival order before the next message is read: this answer comes
    // after all of them.
    server.request("codegraph/status", Value::Null);
    std::thread::sleep(settle);
    let after = server.rss_kib();
    // Pages of the binary the opening touched for the first time (code, the grammars' tables)
    // are resident too, counted once per process, not per document.
    let binary_after = server.status_kib("RssFile:");
    // One edit each (a blank line appended): an edited document keeps its syntax tree.
    for (path, text) in paths.iter().zip(&texts) {
        let end_line = text.matches('\n').count();
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": 2}, "contentChanges": [{
                "range": {"start": {"line": end_line, "character": 0}, "end": {"line": end_line, "character": 0}},
                "text": "\n",
            }]}),
        );
    }
    server.request("codegraph/status", Value::Null);
    std::thread::sleep(settle);
    let edited = server.rss_kib();
    for path in paths {
        server.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri(path)}}),
        );
    }
    server.request("codegraph/status", Value::Null);
    std::thread::sleep(settle);
    let closed = server.rss_kib();
    let grown = |rss: u64| rss.saturating_sub(before) * 1024;
    println!(
        "(d) MEMORY of {} open documents, {:.2} MiB of text (server VmRSS {:.1} MiB before)",
        paths.len(),
        mib(text_bytes),
        mib(before * 1024),
    );
    let verdict = if grown(after) <= 2 * text_bytes {
        "met"
    } else {
        "MISSED"
    };
    println!(
        "    opened:             +{:.2} MiB = {:.2}x the text   [target <= 2x: {verdict}]",
        mib(grown(after)),
        grown(after) as f64 / text_bytes as f64,
    );
    println!(
        "      of which the binary's pages: +{:.2} MiB; the heap's: +{:.2} MiB = {:.2}x the text",
        mib(binary_after.saturating_sub(binary_before) * 1024),
        mib(grown(after).saturating_sub(binary_after.saturating_sub(binary_before) * 1024)),
        grown(after).saturating_sub(binary_after.saturating_sub(binary_before) * 1024) as f64
            / text_bytes as f64,
    );
    println!(
        "    then one edit each: +{:.2} MiB = {:.2}x the text (edited documents keep a syntax tree)",
        mib(grown(edited)),
        grown(edited) as f64 / text_bytes as f64,
    );
    println!(
        "    all closed:         +{:.2} MiB (freed memory the allocator keeps is still counted)\n",
        mib(grown(closed))
    );
}

fn print_latency(title: &str, times: &mut [Duration], target_ms: f64) {
    times.sort();
    let p50 = times[times.len() / 2];
    let p99 = times[times.len() * 99 / 100];
    let verdict = if p99.as_secs_f64() * 1000.0 <= target_ms {
        "met"
    } else {
        "MISSED"
    };
    println!(
        "{title}: p50 {}, p99 {}, max {}   [target p99 <= {target_ms} ms: {verdict}]",
        ms(p50),
        ms(p99),
        ms(*times.last().unwrap())
    );
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

// --- The server, through the tests' language-server client ----------------------------------

/// `codegraph lsp` over pipes. Notifications are dropped as they are read: the benchmark sends
/// thousands of requests and reads none of them.
struct Server {
    connection: LspConnection,
}

impl Server {
    fn start(corpus: &Path) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_codegraph"));
        command
            .args(["lsp", "--stdio", "--no-cache"])
            .stderr(Stdio::inherit());
        let connection = LspConnection::spawn(&mut command, Notifications::Discard)
            .expect("codegraph lsp starts");
        let mut server = Server { connection };
        server.request(
            "initialize",
            json!({
                "processId": null,
                "capabilities": {
                    "general": {"positionEncodings": ["utf-8", "utf-16"]},
                    "window": {"workDoneProgress": true},
                    "textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": true}},
                },
                "workspaceFolders": [{"uri": uri(corpus), "name": "corpus"}],
            }),
        );
        server.notify("initialized", json!({}));
        server
            .connection
            .notification("$/progress", Instant::now() + INDEX_TIMEOUT, |params| {
                params["value"]["kind"] == "end"
            })
            .expect("the initial index ends");
        server
    }

    fn notify(&self, method: &str, params: Value) {
        self.connection
            .notify(method, params)
            .expect("the server reads");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.connection
            .request(method, params, TIMEOUT)
            .unwrap_or_else(|error| panic!("{method} failed: {error}"))
    }

    /// The server's resident set size, in KiB.
    fn rss_kib(&self) -> u64 {
        self.status_kib("VmRSS:")
    }

    /// A field of the server's `/proc/PID/status`, in KiB (0 when absent).
    fn status_kib(&self, field: &str) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.connection.process_id()))
                .unwrap_or_default();
        status
            .lines()
            .find(|line| line.starts_with(field))
            .and_then(|line| line.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    }

    fn shutdown(mut self) -> std::process::ExitStatus {
        self.connection
            .shutdown(TIMEOUT)
            .expect("the server shuts down")
            .expect("the server exits")
    }
}
