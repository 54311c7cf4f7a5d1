//! The LSP door, end to end: the real binary (`codegraph lsp --stdio`) driven over JSON-RPC with
//! Content-Length framing by the tests' language-server client (`codegraph_testkit::lsp`).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codegraph_testkit::fixture::Cursor;
use codegraph_testkit::lsp::{LspConnection, Notifications};
use serde_json::{Value, json};

use crate::cache::copy_tree;
use crate::support;

const TIMEOUT: Duration = Duration::from_secs(60);

/// Where `AuthService.authenticate` (not the abstract one) is named in fixtures/python.
pub(crate) const AUTHENTICATE_METHOD: &str =
    "    def $0authenticate(self, user: User, password: str) -> str:\n        if";

/// `codegraph lsp` (or another command line that starts it), with the test hooks set, spoken to
/// over its stdio: every answer is awaited up to [`TIMEOUT`], and a missing one fails the test.
pub(crate) struct LspClient {
    connection: LspConnection,
    /// The server's `XDG_RUNTIME_DIR`, where it publishes its MCP socket.
    runtime_dir: PathBuf,
    /// The runtime directory, when this client made it.
    _made: Option<tempfile::TempDir>,
}

pub(crate) fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Fails the test with what went wrong on the connection.
fn expect<T>(outcome: Result<T, codegraph_testkit::lsp::LspError>) -> T {
    outcome.unwrap_or_else(|error| panic!("{error}"))
}

/// The client capabilities announced: `capabilities` merged, key by key, into the ones every
/// test announces.
fn announced_capabilities(offer_utf8: bool, capabilities: Value) -> Value {
    let encodings = if offer_utf8 {
        json!(["utf-8", "utf-16"])
    } else {
        json!(["utf-16"])
    };
    let mut announced = json!({
        "general": {"positionEncodings": encodings},
        "window": {"workDoneProgress": true},
        "workspace": {
            "workspaceFolders": true,
            "didChangeWatchedFiles": {"dynamicRegistration": true}
        }
    });
    for (key, value) in capabilities.as_object().into_iter().flatten() {
        match (announced.get_mut(key), value) {
            (Some(Value::Object(existing)), Value::Object(more)) => {
                existing.extend(more.clone());
            }
            _ => announced[key] = value.clone(),
        }
    }
    announced
}

impl LspClient {
    /// Starts the server on these workspace folders and waits for the initial index.
    pub(crate) fn start(roots: &[&Path], offer_utf8: bool) -> (LspClient, Value) {
        LspClient::start_with(roots, offer_utf8, &[])
    }

    /// [`LspClient::start`] with more command-line arguments for `codegraph lsp`.
    pub(crate) fn start_with(
        roots: &[&Path],
        offer_utf8: bool,
        arguments: &[&str],
    ) -> (LspClient, Value) {
        LspClient::start_announcing(roots, offer_utf8, arguments, json!({}))
    }

    /// [`LspClient::start_with`] announcing more client capabilities (`textDocument`, more
    /// `workspace` keys).
    pub(crate) fn start_announcing(
        roots: &[&Path],
        offer_utf8: bool,
        arguments: &[&str],
        capabilities: Value,
    ) -> (LspClient, Value) {
        let mut command = vec!["lsp", "--stdio"];
        // No cache unless the test chooses where it goes.
        if !arguments.contains(&"--cache-dir") {
            command.push("--no-cache");
        }
        command.extend(arguments);
        LspClient::start_command_announcing(
            env!("CARGO_BIN_EXE_codegraph"),
            &command,
            roots,
            announced_capabilities(offer_utf8, capabilities),
        )
    }

    fn start_command_announcing(
        program: &str,
        arguments: &[&str],
        roots: &[&Path],
        capabilities: Value,
    ) -> (LspClient, Value) {
        LspClient::start_command_in(program, arguments, roots, capabilities, None)
    }

    /// `codegraph lsp ARGUMENTS` (with `--no-cache`) on these folders, with this runtime
    /// directory (where it finds the servers to attach to).
    pub(crate) fn start_in(
        roots: &[&Path],
        arguments: &[&str],
        runtime_dir: &Path,
    ) -> (LspClient, Value) {
        let command: Vec<&str> = ["lsp", "--no-cache"]
            .iter()
            .chain(arguments)
            .copied()
            .collect();
        let capabilities = announced_capabilities(false, json!({}));
        let program = env!("CARGO_BIN_EXE_codegraph");
        LspClient::start_command_in(program, &command, roots, capabilities, Some(runtime_dir))
    }

    /// [`LspClient::start`] with the server's whole command line given (as an editor's or a
    /// plugin's configuration names it), and this runtime directory.
    pub(crate) fn start_command_with_runtime(
        program: &str,
        arguments: &[&str],
        roots: &[&Path],
        runtime_dir: &Path,
    ) -> (LspClient, Value) {
        let capabilities = announced_capabilities(false, json!({}));
        LspClient::start_command_in(program, arguments, roots, capabilities, Some(runtime_dir))
    }

    fn start_command_in(
        program: &str,
        arguments: &[&str],
        roots: &[&Path],
        capabilities: Value,
        runtime_dir: Option<&Path>,
    ) -> (LspClient, Value) {
        let (runtime_dir, made) = match runtime_dir {
            Some(given) => (given.to_path_buf(), None),
            None => {
                let made = tempfile::tempdir().unwrap();
                (made.path().to_path_buf(), Some(made))
            }
        };
        let mut command = Command::new(program);
        command
            .args(arguments)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env(codegraph::contain::INJECT_PANIC, support::INJECTED_PANIC)
            .env(codegraph::world::work::SLOW_WORK, support::SLOW_QUERY)
            .stderr(Stdio::inherit());
        let connection =
            LspConnection::spawn(&mut command, Notifications::Keep).expect("codegraph lsp starts");
        let mut client = LspClient {
            connection,
            runtime_dir,
            _made: made,
        };
        let folders: Vec<Value> = roots
            .iter()
            .map(|root| json!({"uri": uri(root), "name": root.file_name().unwrap().to_string_lossy()}))
            .collect();
        let initialize = client.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": capabilities,
                "workspaceFolders": folders,
            }),
        );
        client.notify("initialized", json!({}));
        client.wait_for_index_ends(roots.len());
        (client, initialize)
    }

    pub(crate) fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }

    /// Writes bytes as they are, framing or not.
    fn send_raw(&self, bytes: &[u8]) {
        expect(self.connection.send_raw(bytes));
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        expect(self.connection.notify(method, params));
    }

    /// Sends a request without waiting for its answer; its id.
    pub(crate) fn send_request(&mut self, method: &str, params: Value) -> i64 {
        expect(self.connection.send_request(method, params))
    }

    /// Notifications and answers read while waiting for something else, oldest first.
    pub(crate) fn stash(&mut self) -> &mut VecDeque<Value> {
        &mut self.connection.stash
    }

    /// The result of request `id`; the test fails on an error answer.
    fn response(&mut self, id: i64) -> Value {
        expect(self.connection.result(id, Instant::now() + TIMEOUT))
    }

    /// The whole response message (`result` or `error`) to request `id`.
    pub(crate) fn response_message(&mut self, id: i64) -> Value {
        expect(self.connection.response(id, Instant::now() + TIMEOUT))
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// A request whose answer may be an error: the whole response message.
    pub(crate) fn request_message(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response_message(id)
    }

    /// Waits for `count` `$/progress` ends (one per index run).
    fn wait_for_index_ends(&mut self, count: usize) {
        let deadline = Instant::now() + TIMEOUT;
        for _ in 0..count {
            expect(
                self.connection
                    .notification("$/progress", deadline, |params| {
                        params["value"]["kind"] == "end"
                    }),
            );
        }
    }

    /// The next notification `method` whose params satisfy `wanted` (stashed ones first);
    /// the others are kept.
    pub(crate) fn notification(&mut self, method: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        expect(
            self.connection
                .notification(method, Instant::now() + TIMEOUT, wanted),
        )
    }

    pub(crate) fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "", "version": 1, "text": text}}),
        );
    }

    pub(crate) fn at(&mut self, method: &str, path: &Path, line: u32, character: u32) -> Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}}),
        )
    }

    /// Prepares the call hierarchy at a position and returns the one item there.
    pub(crate) fn call_item(&mut self, path: &Path, line: u32, character: u32) -> Value {
        let items = self.at("textDocument/prepareCallHierarchy", path, line, character);
        let items = items.as_array().expect("call hierarchy items");
        assert_eq!(items.len(), 1, "{items:?}");
        items[0].clone()
    }

    pub(crate) fn incoming(&mut self, item: &Value) -> Value {
        self.request("callHierarchy/incomingCalls", json!({"item": item}))
    }

    pub(crate) fn outgoing(&mut self, item: &Value) -> Value {
        self.request("callHierarchy/outgoingCalls", json!({"item": item}))
    }

    pub(crate) fn shutdown(&mut self) -> std::process::ExitStatus {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null);
        self.exit_status()
    }

    /// The server's exit status, waited for (the test fails if it does not exit in time).
    fn exit_status(&mut self) -> std::process::ExitStatus {
        self.connection
            .exit_status(TIMEOUT)
            .expect("the server exits")
    }
}

/// `exit` without `shutdown` first: the server exits with status 1, as the protocol says.
#[test]
fn exit_without_shutdown_exits_with_status_one() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    std::fs::write(root.join("app.py"), "def app():\n    pass\n").unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    client.notify("exit", Value::Null);
    let status = client.exit_status();
    assert_eq!(status.code(), Some(1));
}

/// `shutdown` and `exit` written at once, the first's answer not awaited: the client asked to
/// shut down before it exited, so the status is 0 (`exit` must not cancel the `shutdown` whose
/// handler notes it).
#[test]
fn exit_right_after_shutdown_exits_with_status_zero() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    std::fs::write(root.join("app.py"), "def app():\n    pass\n").unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    client.send_request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    let status = client.exit_status();
    assert_eq!(status.code(), Some(0));
}

/// Malformed input, as a fuzzer or a broken client sends it: each message is answered with the
/// JSON-RPC error it deserves and the server keeps serving, a `Content-Length` over the cap
/// (2^40, `u64::MAX`) included.
#[test]
fn malformed_messages_are_answered_and_the_server_keeps_serving() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    std::fs::write(root.join("app.py"), "def app():\n    pass\n").unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    let framed = |body: &[u8]| {
        let mut message = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        message.extend_from_slice(body);
        message
    };
    client.send_raw(b"Content-Length: abc\r\n\r\n");
    client.send_raw(b"Content-Length: -5\r\n\r\n");
    client.send_raw(b"Content-Length: \r\n\r\n");
    client.send_raw(b"Nonsense header\r\n\r\n");
    // No length: its body runs into the next header, where the reader finds its feet again.
    client.send_raw(b"Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":90,\"method\":\"shutdown\"}");
    client.send_raw(&framed(b"{not json"));
    client.send_raw(&framed(
        b"[{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}]",
    ));
    client.send_raw(&framed(b"\"a string\""));
    client.send_raw(&framed(
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\xfe\"}",
    ));
    client.send_raw(&framed(
        br#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"workspace/symbol","params":{"query":"app"}}"#,
    ));
    client.send_raw(b"garbage before a header ");
    let symbols = client.request("workspace/symbol", json!({"query": "app"}));
    assert_eq!(symbols[0]["name"], "app", "{symbols}");
    let errors: Vec<(i64, String)> = client
        .stash()
        .iter()
        .filter(|message| message.get("error").is_some())
        .map(|message| {
            assert_eq!(message["id"], Value::Null, "{message}");
            let message_text = message["error"]["message"].as_str().unwrap();
            // serde's wording after the first colon is not ours to pin.
            let ours = match message_text.split_once(": ") {
                Some((kind, rest)) if kind == "Parse error" && rest.contains("at line") => {
                    "Parse error: (serde)".to_string()
                }
                _ => message_text.to_string(),
            };
            (message["error"]["code"].as_i64().unwrap(), ours)
        })
        .collect();
    let expected: Vec<(i64, String)> = [
        (
            -32700,
            r#"Parse error: Content-Length "abc" is not a byte count"#,
        ),
        (
            -32700,
            r#"Parse error: Content-Length "-5" is not a byte count"#,
        ),
        (
            -32700,
            r#"Parse error: Content-Length "" is not a byte count"#,
        ),
        (-32700, "Parse error: a header line without a colon"),
        (-32700, "Parse error: no Content-Length header"),
        (-32700, "Parse error: (serde)"),
        (
            -32600,
            "Invalid Request: a message is one JSON object (no batches)",
        ),
        (
            -32600,
            "Invalid Request: a message is one JSON object (no batches)",
        ),
        (-32700, "Parse error: (serde)"),
        (
            -32600,
            "Invalid Request: the id 1180591620717411303424 is not an integer or a string",
        ),
    ]
    .into_iter()
    .map(|(code, text)| (code, text.to_string()))
    .collect();
    assert_eq!(errors, expected);

    client.stash().clear();

    // Lengths over the cap are answered and skipped without being read or allocated: the
    // reader finds its feet again at the next `Content-Length:` header, and the request there
    // is answered. What follows an announced length up to that header is dropped, whether it
    // sits on the header's line or on lines of its own.
    client.send_raw(b"Content-Length: 1099511627776\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":91,");
    let symbols = client.request("workspace/symbol", json!({"query": "app"}));
    assert_eq!(symbols[0]["name"], "app", "{symbols}");
    client.send_raw(b"Content-Length: 18446744073709551615\r\n\r\n{\n\"a\": [1,\n2]}\n\r\n");
    let symbols = client.request("workspace/symbol", json!({"query": "app"}));
    assert_eq!(symbols[0]["name"], "app", "{symbols}");
    let errors: Vec<Value> = client
        .stash()
        .iter()
        .filter(|message| message.get("error").is_some())
        .cloned()
        .collect();
    let over_the_cap = |length: &str| {
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": format!(
            "Invalid Request: a message of {length} bytes is over the 67108864-byte cap"
        )}})
    };
    assert_eq!(
        errors,
        [
            over_the_cap("1099511627776"),
            over_the_cap("18446744073709551615")
        ]
    );
    assert!(
        !client.connection.has_exited(),
        "the server is still running"
    );
    assert!(client.shutdown().success());
}

/// (line, UTF-16 column) of the `$0` in `snippet`, a piece of the file at `path` that occurs
/// in it once.
pub(crate) fn find(path: &Path, snippet: &str) -> (u32, u32) {
    let text = std::fs::read_to_string(path).expect("the cursor's file");
    position_in(&text, snippet)
}

fn position_in(text: &str, snippet: &str) -> (u32, u32) {
    let cursor = Cursor::in_text("the text", text, snippet);
    (cursor.line, cursor.character)
}

/// `path:line:col-line:col` of a location or a range in a file, root-relative.
fn show_range(root: &Path, uri_value: &Value, range: &Value) -> String {
    let full = uri_value.as_str().unwrap();
    let relative = full
        .strip_prefix(&format!("{}/", uri(root)))
        .unwrap_or(full);
    format!(
        "{relative}:{}:{}-{}:{}",
        range["start"]["line"],
        range["start"]["character"],
        range["end"]["line"],
        range["end"]["character"]
    )
}

pub(crate) fn show_locations(root: &Path, locations: &Value) -> Vec<String> {
    let mut shown: Vec<String> = locations
        .as_array()
        .map(|locations| {
            locations
                .iter()
                .map(|location| show_range(root, &location["uri"], &location["range"]))
                .collect()
        })
        .unwrap_or_default();
    shown.sort();
    shown
}

/// Incoming calls as `name @ file:range, range...`, sorted.
pub(crate) fn show_calls(calls: &Value, side: &str) -> Vec<String> {
    let mut shown: Vec<String> = calls
        .as_array()
        .expect("calls")
        .iter()
        .map(|call| {
            let item = &call[side];
            let ranges: Vec<String> = call["fromRanges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|range| {
                    format!(
                        "{}:{}-{}:{}",
                        range["start"]["line"],
                        range["start"]["character"],
                        range["end"]["line"],
                        range["end"]["character"]
                    )
                })
                .collect();
            format!("{} @ {}", item["name"].as_str().unwrap(), ranges.join(", "))
        })
        .collect();
    shown.sort();
    shown
}

/// `codegraph lsp --cache-dir DIR`: each workspace folder's cache in `DIR/<name>-<hash>/` (with
/// its `.gitignore`), nothing in the folders; two folders of the same name do not share one.
#[test]
fn cache_dir_keeps_each_folders_cache_outside_it() {
    let directory = tempfile::tempdir().unwrap();
    let first = directory.path().join("one/shop");
    let second = directory.path().join("two/shop");
    for root in [&first, &second] {
        std::fs::create_dir_all(root).unwrap();
        copy_tree(&support::fixture("python"), root);
    }
    let caches = directory.path().join("caches");
    let (mut client, _) = LspClient::start_with(
        &[&first, &second],
        false,
        &["--cache-dir", caches.to_str().unwrap()],
    );
    assert!(client.shutdown().success());
    let mut names: Vec<String> = std::fs::read_dir(&caches)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected = vec![
        codegraph::world::per_folder_cache_name(&first.canonicalize().unwrap()),
        codegraph::world::per_folder_cache_name(&second.canonicalize().unwrap()),
    ];
    expected.sort();
    assert_eq!(names, expected);
    for name in &names {
        assert!(
            name.starts_with("shop-") && name.len() == "shop-".len() + 16,
            "{name}"
        );
        assert!(caches.join(name).join("index.bin").is_file(), "{name}");
        assert!(caches.join(name).join(".gitignore").is_file(), "{name}");
    }
    assert!(!first.join(".codegraph").exists() && !second.join(".codegraph").exists());
}

/// Applies an LSP change (UTF-16 columns) to the client's copy of a text.
fn apply_change(text: &mut String, start: (u32, u32), end: (u32, u32), new_text: &str) {
    let offset = |(line, column): (u32, u32)| -> usize {
        let line_start: usize = text
            .split_inclusive('\n')
            .take(line as usize)
            .map(str::len)
            .sum();
        let rest = &text[line_start..];
        let mut units = 0;
        for (byte, character) in rest.char_indices() {
            if units >= column as usize || character == '\n' {
                return line_start + byte;
            }
            units += character.len_utf16();
        }
        text.len()
    };
    let (start, end) = (offset(start), offset(end));
    text.replace_range(start..end, new_text);
}

/// One incremental change: start (line, UTF-16 column), end, new text.
type Change<'a> = ((u32, u32), (u32, u32), &'a str);

fn change(path: &Path, version: i32, changes: &[Change<'_>]) -> Value {
    let content: Vec<Value> = changes
        .iter()
        .map(|(start, end, text)| {
            json!({"range": {"start": {"line": start.0, "character": start.1},
                             "end": {"line": end.0, "character": end.1}}, "text": text})
        })
        .collect();
    json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": content})
}

#[test]
fn a_thousand_rapid_edits_interleaved_with_requests_end_in_the_clients_text() {
    let root = support::fixture("python");
    let (mut client, _) = LspClient::start(&[&root], false);
    let main = root.join("shop/app/main.py");
    let service = root.join("shop/auth/service.py");
    let mut text = std::fs::read_to_string(&main).unwrap();
    client.open(&main, &text);
    let mut pending = Vec::new();
    let mut version = 1;
    for step in 0..1000u32 {
        version += 1;
        // Grow and shrink a comment line, sometimes with two changes in one notification.
        let changes: Vec<Change<'_>> = if step % 2 == 0 {
            vec![((1, 0), (1, 0), "# edit\n"), ((1, 2), (1, 6), "名前😀")]
        } else {
            vec![((1, 0), (2, 0), "")]
        };
        for (start, end, new_text) in &changes {
            apply_change(&mut text, *start, *end, new_text);
        }
        client.notify("textDocument/didChange", change(&main, version, &changes));
        if step % 25 == 0 {
            pending.push(client.send_request(
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": uri(&main)}}),
            ));
        }
    }
    // Rename `main` (its definition and its call) and ask at once.
    // Both `main`s, each four characters long.
    let (def_line, def_column) = position_in(&text, "def $0main");
    let (call_line, call_column) = position_in(&text, "    $0main()");
    let rename = [
        (
            (call_line, call_column),
            (call_line, call_column + 4),
            "start",
        ),
        ((def_line, def_column), (def_line, def_column + 4), "start"),
    ];
    for (start, end, new_text) in &rename {
        apply_change(&mut text, *start, *end, new_text);
    }
    version += 1;
    client.notify("textDocument/didChange", change(&main, version, &rename));
    // An older version is refused.
    client.notify(
        "textDocument/didChange",
        change(&main, version - 5, &[((0, 0), (0, 0), "garbage")]),
    );
    let (line, column) = find(&service, AUTHENTICATE_METHOD);
    let item = client.call_item(&service, line, column);
    let incoming = client.incoming(&item);
    let callers: Vec<&str> = incoming
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["from"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(callers, ["start"]);
    let server_text = client.request("codegraph/bufferText", json!({"uri": uri(&main)}));
    assert_eq!(server_text.as_str().unwrap(), text);
    for id in pending {
        assert!(client.response(id).is_array());
    }
    // Closing returns the file to its contents on disk: `main` calls again.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&main)}}),
    );
    let incoming = client.incoming(&item);
    assert_eq!(incoming[0]["from"]["name"], "main");
    assert_eq!(
        client.request("codegraph/bufferText", json!({"uri": uri(&main)})),
        Value::Null
    );
    assert!(client.shutdown().success());
}

const CJK_SOURCE: &str =
    "def greet():\n    return 1\n\n\ndef main():\n    label = \"名前😀\"; greet()\n";

#[test]
fn utf16_and_utf8_positions_on_a_line_with_cjk_and_emoji() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    let file = root.join("app.py");
    std::fs::write(&file, CJK_SOURCE).unwrap();
    for (offer_utf8, call_column) in [(false, 20u32), (true, 26u32)] {
        let (mut client, initialize) = LspClient::start(&[&root], offer_utf8);
        let encoding = if offer_utf8 { "utf-8" } else { "utf-16" };
        assert_eq!(initialize["capabilities"]["positionEncoding"], encoding);
        let definition = client.at("textDocument/definition", &file, 5, call_column + 1);
        assert_eq!(
            show_locations(&root, &definition),
            ["app.py:0:4-0:9"],
            "{encoding}"
        );
        let item = client.call_item(&file, 0, 5);
        let incoming = client.incoming(&item);
        assert_eq!(
            show_calls(&incoming, "from"),
            [format!("main @ 5:{call_column}-5:{}", call_column + 5)],
            "{encoding}"
        );
        // An edit after the emoji lands on the call, in the client's units.
        client.open(&file, CJK_SOURCE);
        client.notify(
            "textDocument/didChange",
            change(
                &file,
                2,
                &[((5, call_column), (5, call_column + 5), "hello")],
            ),
        );
        let text = client.request("codegraph/bufferText", json!({"uri": uri(&file)}));
        assert_eq!(
            text.as_str().unwrap(),
            CJK_SOURCE.replace("; greet()", "; hello()")
        );
        assert!(client.shutdown().success());
    }
}

fn symbol_files(symbols: &Value) -> Vec<String> {
    let mut files: Vec<String> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|symbol| {
            let found = symbol["location"]["uri"].as_str().unwrap();
            let fixtures = format!("{}/", uri(&support::fixtures_dir()));
            found.strip_prefix(&fixtures).unwrap_or(found).to_string()
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn workspace_folders_fan_out_and_change_at_run_time() {
    let python = support::fixture("python");
    let go = support::fixture("go");
    let typescript = support::fixture("typescript");
    let (mut client, _) = LspClient::start(&[&python, &go], false);
    let query = json!({"query": "factorial"});
    let found = client.request("workspace/symbol", query.clone());
    assert_eq!(
        symbol_files(&found),
        ["go/util/math.go", "python/shop/util/math.py"]
    );
    // Requests in one folder stay in that folder.
    let main = python.join("shop/app/main.py");
    let (line, column) = find(&main, "math.$0factorial(5)");
    let definition = client.at("textDocument/definition", &main, line, column);
    assert_eq!(
        show_locations(&python, &definition),
        ["shop/util/math.py:0:4-0:13"]
    );

    client.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {
            "added": [{"uri": uri(&typescript), "name": "typescript"}],
            "removed": [{"uri": uri(&python), "name": "python"}],
        }}),
    );
    client.wait_for_index_ends(1);
    let found = client.request("workspace/symbol", query);
    assert_eq!(
        symbol_files(&found),
        ["go/util/math.go", "typescript/src/util/math.ts"]
    );
    assert!(client.shutdown().success());
}

#[test]
fn unknown_files_positions_and_languages_answer_empty() {
    let root = support::fixture("python");
    let (mut client, _) = LspClient::start(&[&root], false);
    let main = root.join("shop/app/main.py");
    let unknown = root.join("shop/nowhere.py");
    let outside = PathBuf::from("/definitely/not/a/workspace/file.py");
    let text_file = root.join("expected.txt");
    for path in [&unknown, &outside, &text_file] {
        for method in [
            "textDocument/definition",
            "textDocument/hover",
            "textDocument/implementation",
            "textDocument/prepareCallHierarchy",
        ] {
            assert_eq!(
                client.at(method, path, 0, 0),
                Value::Null,
                "{method} {path:?}"
            );
        }
        let symbols = client.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri(path)}}),
        );
        assert_eq!(symbols, Value::Null);
    }
    assert_eq!(
        client.at("textDocument/definition", &main, 9999, 0),
        Value::Null
    );
    // A column past the line's end is clamped, not an error.
    let hover = client.at("textDocument/hover", &main, 8, 9999);
    assert!(hover.is_null() || hover["contents"].is_object());
    // A stale call hierarchy item answers empty.
    let stale = json!({"name": "x", "kind": 12, "uri": uri(&main),
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "selectionRange": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "data": {"root": root, "id": "shop/app/main.py::gone"}});
    assert_eq!(client.incoming(&stale), json!([]));
    assert!(client.shutdown().success());
}

#[test]
fn watched_file_changes_refresh_the_graph() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    copy_tree(&support::fixture("python"), &root);
    let (mut client, _) = LspClient::start(&[&root], false);
    let added = root.join("shop/extra.py");
    std::fs::write(
        &added,
        "from shop.util.math import factorial\n\n\ndef twice():\n    return factorial(2)\n",
    )
    .unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&added), "type": 1}]}),
    );
    let math = root.join("shop/util/math.py");
    let (line, column) = find(&math, "def $0factorial");
    let callers = |client: &mut LspClient| -> Vec<String> {
        let item = client.call_item(&math, line, column);
        let incoming = client.incoming(&item);
        let mut names: Vec<String> = incoming
            .as_array()
            .unwrap()
            .iter()
            .map(|call| call["from"]["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    let deadline = Instant::now() + TIMEOUT;
    while !callers(&mut client).contains(&"twice".to_string()) {
        assert!(
            Instant::now() < deadline,
            "the created file never showed up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_file(&added).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&added), "type": 3}]}),
    );
    while callers(&mut client).contains(&"twice".to_string()) {
        assert!(
            Instant::now() < deadline,
            "the deleted file never went away"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(client.shutdown().success());
}

/// `codegraph/status` counts files and entities; `workspace/executeCommand codegraph.reindex`
/// re-reads the folder from disk (no watcher notification needed) and answers once done.
#[test]
fn status_counts_entities_and_the_reindex_command_reads_the_disk() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    copy_tree(&support::fixture("python"), &root);
    let (mut client, initialize) = LspClient::start(&[&root], false);
    assert_eq!(
        initialize["capabilities"]["executeCommandProvider"]["commands"],
        json!(["codegraph.reindex", "codegraph.affectedTests"])
    );
    let status = client.request("codegraph/status", Value::Null);
    assert_eq!(status["indexing"], 0);
    assert_eq!(status["roots"][0]["root"], json!(root));
    assert_eq!(status["roots"][0]["files"], 12);
    let entities = status["roots"][0]["entities"].as_u64().unwrap();

    std::fs::write(root.join("shop/extra.py"), "def twice():\n    return 2\n").unwrap();
    let answer = client.request(
        "workspace/executeCommand",
        json!({"command": "codegraph.reindex", "arguments": []}),
    );
    let summary = answer[0].as_str().unwrap();
    assert!(
        summary.starts_with(&format!(
            "{}: 13 files, {} entities",
            root.display(),
            entities + 2
        )),
        "{summary}"
    );
    let status = client.request("codegraph/status", Value::Null);
    assert_eq!(status["roots"][0]["files"], 13);
    assert_eq!(status["roots"][0]["entities"], entities + 2);

    assert!(client.shutdown().success());
}

/// Document URIs that name files outside the workspace folder, by `..` or through a directory
/// symlink planted in the repository: `didOpen`, `didChange`, `didClose`,
/// `didChangeWatchedFiles` and `codegraph/bufferText` never bring them into the graph.
#[test]
fn document_uris_outside_the_workspace_never_enter_the_graph() {
    let directory = tempfile::tempdir().unwrap();
    let parent = directory.path().canonicalize().unwrap();
    let root = parent.join("repo");
    let sibling = parent.join("sibling");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&sibling).unwrap();
    std::fs::write(root.join("app.py"), "def app():\n    pass\n").unwrap();
    std::fs::write(sibling.join("x.py"), "def leaked_from_disk():\n    pass\n").unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    // Planted after the index, as a watcher or an editor would meet it.
    std::os::unix::fs::symlink(&sibling, root.join("vendor")).unwrap();

    let dotdot = format!("{}/../sibling/x.py", uri(&root));
    let through_link = uri(&root.join("vendor/x.py"));
    for document in [&dotdot, &through_link] {
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": document, "languageId": "python", "version": 1,
                   "text": "def leaked_from_buffer():\n    pass\n"}}),
        );
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": document, "version": 2},
                   "contentChanges": [{"text": "def leaked_from_change():\n    pass\n"}]}),
        );
        let refused = client.request_message("codegraph/bufferText", json!({"uri": document}));
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|message| message.contains("outside the workspace")),
            "{refused}"
        );
        client.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": document}}),
        );
        client.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": document, "type": 1}, {"uri": document, "type": 2}]}),
        );
    }
    // A file inside, announced after the others: once it is in, they were all handled.
    std::fs::write(root.join("late.py"), "def late():\n    pass\n").unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&root.join("late.py")), "type": 1}]}),
    );
    let deadline = Instant::now() + TIMEOUT;
    while client.request("workspace/symbol", json!({"query": "late"})) == json!([]) {
        assert!(Instant::now() < deadline, "late.py never entered the graph");
        std::thread::sleep(Duration::from_millis(20));
    }
    let symbols = client.request("workspace/symbol", json!({"query": "leaked"}));
    assert_eq!(symbols, json!([]), "{symbols}");
    assert!(client.shutdown().success());
}

/// A document over the size cap (`didOpen` of 2 MB) is not parsed from the editor: the user
/// hears why, the graph keeps the file as on disk, and the next request is answered at once.
#[test]
fn a_document_over_the_size_cap_is_refused_with_a_message_and_blocks_nothing() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    let path = root.join("big.py");
    std::fs::write(&path, "def on_disk():\n    pass\n").unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    let huge = format!(
        "def only_in_the_editor():\n    pass\n{}",
        "# padding\n".repeat(210_000)
    );
    let started = Instant::now();
    client.open(&path, &huge);
    let symbols = |client: &mut LspClient, query: &str| -> Vec<String> {
        let found = client.request("workspace/symbol", json!({"query": query}));
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|symbol| symbol["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(symbols(&mut client, "on_disk"), ["on_disk"]);
    assert!(symbols(&mut client, "only_in_the_editor").is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "answered after {:?}",
        started.elapsed()
    );
    let message = client.notification("window/showMessage", |_| true);
    let text = message["message"].as_str().unwrap();
    assert!(
        text.contains("big.py") && text.contains("over the 1048576-byte cap"),
        "{text}"
    );
}
