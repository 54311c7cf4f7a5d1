//! `codegraph mcp` attaching to a running `codegraph lsp` over its unix socket: an edit the
//! editor has not saved is visible to the AI client, several clients share the process, the
//! socket and discovery files are private, and stale entries are cleaned up.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use codegraph_testkit::mcp::McpClient;
use rmcp::model::ClientConfig;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::cache::copy_tree;
use crate::lsp::{LspClient, uri};
use crate::support;

/// The tests' MCP client, over whatever transport a test connects it with.
pub(crate) type Client = McpClient;

/// The handshake over `transport`, the client announcing rmcp's defaults.
pub(crate) async fn connect<T, E, A>(transport: T) -> Client
where
    T: rmcp::transport::IntoTransport<rmcp::service::RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    McpClient::connect(transport, ClientConfig::default())
        .await
        .expect("MCP handshake")
}

/// `codegraph mcp --repo <repo> --no-daemon` as a child process, driven by rmcp's client: it
/// attaches to a running server, else serves in-process (the shared server is `shared.rs`'s).
pub(crate) async fn mcp_child(repo: &Path, runtime_dir: &Path, extra: &[&str]) -> Client {
    let mut command = mcp_command(repo, runtime_dir, extra);
    command.arg("--no-daemon");
    let transport = TokioChildProcess::new(command).expect("codegraph mcp starts");
    connect(transport).await
}

/// The command line of `codegraph mcp --repo <repo> --no-cache` with this runtime directory.
pub(crate) fn mcp_command(
    repo: &Path,
    runtime_dir: &Path,
    extra: &[&str],
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_codegraph"));
    command
        .arg("mcp")
        .arg("--repo")
        .arg(repo)
        .arg("--no-cache")
        .args(extra)
        .env("XDG_RUNTIME_DIR", runtime_dir)
        .env_remove("CODEGRAPH_NO_DAEMON")
        .env_remove("CODEGRAPH_IDLE_EXIT");
    command
}

/// The ids of `entity`'s callers, sorted.
pub(crate) async fn callers(client: &Client, entity: &str) -> Vec<String> {
    let content = client
        .ok("find_callers", json!({ "entity_id": entity }))
        .await;
    let mut ids: Vec<String> = content["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|caller| caller["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The files of the runtime directory with this extension.
pub(crate) fn files_with(directory: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(directory)
        .map(|listing| {
            listing
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|found| found == extension))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

pub(crate) const FACTORIAL: &str = "shop/util/math.py::factorial";

#[test]
fn mcp_attaches_to_the_running_language_server_and_sees_unsaved_edits() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let (mut lsp, _) = LspClient::start(&[&repo], false);
    let runtime_dir = lsp.runtime_dir().to_path_buf();
    let sockets_dir = runtime_dir.join("codegraph");

    // Private directory, socket and discovery file.
    assert_eq!(mode(&sockets_dir), 0o700);
    let sockets = files_with(&sockets_dir, "sock");
    assert_eq!(sockets.len(), 1, "{sockets:?}");
    assert_eq!(mode(&sockets[0]), 0o600);
    let discoveries = files_with(&sockets_dir, "json");
    assert_eq!(discoveries.len(), 1, "{discoveries:?}");
    assert_eq!(mode(&discoveries[0]), 0o600);
    let entry: Value = serde_json::from_slice(&std::fs::read(&discoveries[0]).unwrap()).unwrap();
    assert_eq!(entry["root"], json!(repo));
    assert_eq!(entry["socket"], json!(sockets[0]));
    assert!(entry["pid"].as_u64().is_some());

    // An edit through LSP that is never saved: a new caller of factorial.
    let main = repo.join("shop/app/main.py");
    let text = std::fs::read_to_string(&main).unwrap();
    lsp.open(&main, &text);
    let edited = format!("{text}\n\ndef again() -> int:\n    return math.factorial(3)\n");
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&main), "version": 2},
               "contentChanges": [{"text": edited}]}),
    );
    // The server applies text changes before it reads the next message: once a later request
    // is answered, the change is in the graph.
    lsp.request("codegraph/status", Value::Null);

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // Two AI clients at once, both attached to the editor's process.
        let first = mcp_child(&repo, &runtime_dir, &[]).await;
        let second = mcp_child(&repo, &runtime_dir, &[]).await;
        // A recursive function is its own caller.
        let expected = [
            "shop/app/main.py::again",
            "shop/app/main.py::main",
            "shop/util/math.py::factorial",
        ];
        let (seen_first, seen_second) =
            tokio::join!(callers(&first, FACTORIAL), callers(&second, FACTORIAL));
        assert_eq!(seen_first, expected);
        assert_eq!(seen_second, expected);
        // Still attached: the next edit shows up in the next call.
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&main), "version": 3},
                   "contentChanges": [{"text": text}]}),
        );
        lsp.request("codegraph/status", Value::Null);
        assert_eq!(
            callers(&first, FACTORIAL).await,
            ["shop/app/main.py::main", FACTORIAL]
        );
        first.cancel().await.unwrap();
        second.cancel().await.unwrap();
    });

    // The server cleans up when it exits; `codegraph mcp` then serves in-process from disk.
    assert!(lsp.shutdown().success());
    assert!(files_with(&sockets_dir, "sock").is_empty());
    assert!(files_with(&sockets_dir, "json").is_empty());
    runtime.block_on(async {
        lsp_free_edit(&repo);
        let alone = mcp_child(&repo, &runtime_dir, &[]).await;
        assert_eq!(
            callers(&alone, FACTORIAL).await,
            [
                "shop/app/main.py::main",
                "shop/extra.py::on_disk",
                FACTORIAL
            ]
        );
        alone.cancel().await.unwrap();
    });
}

/// A change on disk only an in-process server (which reads the disk) sees.
fn lsp_free_edit(repo: &Path) {
    std::fs::write(
        repo.join("shop/extra.py"),
        "from shop.util.math import factorial\n\n\ndef on_disk():\n    return factorial(4)\n",
    )
    .unwrap();
}

#[test]
fn stale_discovery_entries_are_removed() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().canonicalize().unwrap();
    let discovery = directory.path().join("0123456789abcdef-4000000.json");
    let socket = directory.path().join("0123456789abcdef-4000000.sock");
    // A socket its dead process left behind.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    // pid 4000000 is above Linux's pid_max limit (2^22 = 4194304 is the ceiling, and the
    // default is far lower), so no process has it.
    let entry = json!({"root": repo, "socket": socket, "pid": 4_000_000u32});
    std::fs::write(&discovery, entry.to_string()).unwrap();
    let garbage = directory.path().join("garbage.json");
    std::fs::write(&garbage, "{not json").unwrap();
    assert!(codegraph::mcp::attach::find(directory.path(), &repo).is_none());
    assert!(!discovery.exists());
    assert!(!socket.exists());
    assert!(!garbage.exists());
}

/// The lines `output` gives, read on a thread of their own.
pub(crate) fn lines_of(
    output: impl std::io::Read + Send + 'static,
) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(output)
            .lines()
            .map_while(Result::ok)
        {
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    receiver
}

/// Sends `lines` to a `codegraph mcp` child and returns the first `count` lines it answers.
fn mcp_lines(
    arguments: &[&std::ffi::OsStr],
    runtime_dir: &Path,
    lines: &[&str],
    count: usize,
) -> Vec<Value> {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph"))
        .arg("mcp")
        .args(arguments)
        .env("XDG_RUNTIME_DIR", runtime_dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    let receiver = lines_of(child.stdout.take().unwrap());
    let mut answers = Vec::new();
    while answers.len() < count {
        let line = receiver
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("an answer in time");
        answers.push(serde_json::from_str(&line).expect("the server writes JSON"));
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answers
}

/// A line that is not JSON gets a `-32700 Parse error` answer with a null id,
/// and the server keeps serving: in-process over stdio, and attached to `codegraph lsp` over
/// its socket.
#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    .to_string();
    let lines = ["{not json", "\u{fffd}\u{0}", initialize.as_str()];
    let check = |answers: Vec<Value>, how: &str| {
        for answer in &answers[..2] {
            assert_eq!(answer["error"]["code"], -32700, "{how}: {answer}");
            assert_eq!(answer["id"], Value::Null, "{how}: {answer}");
        }
        assert_eq!(answers[2]["id"], 1, "{how}: {:?}", answers[2]);
        assert_eq!(
            answers[2]["result"]["serverInfo"]["name"], "codegraph",
            "{how}"
        );
    };

    let runtime_dir = tempfile::tempdir().unwrap();
    let in_process = mcp_lines(
        &[
            "--no-attach".as_ref(),
            "--no-cache".as_ref(),
            "--repo".as_ref(),
            repo.as_os_str(),
        ],
        runtime_dir.path(),
        &lines,
        3,
    );
    check(in_process, "in-process");

    let (lsp, _) = LspClient::start(&[&repo], false);
    let attached = mcp_lines(
        &["--repo".as_ref(), repo.as_os_str()],
        lsp.runtime_dir(),
        &lines,
        3,
    );
    check(attached, "attached");
}

/// Stale or forged discovery entries: one whose "socket" is a file elsewhere, one whose
/// "socket" is a plain file in the directory; and a symlink planted at the predictable
/// temporary name `<entry>.json.tmp`. No file but the stale entry itself is deleted or written through.
#[test]
fn forged_discovery_entries_delete_and_overwrite_nothing() {
    let directory = tempfile::tempdir().unwrap();
    let sockets = directory.path().join("run");
    std::fs::create_dir(&sockets).unwrap();
    let repo = directory.path().canonicalize().unwrap();
    let victim = directory.path().join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    let elsewhere = sockets.join("aaaaaaaaaaaaaaaa-4000000.json");
    std::fs::write(
        &elsewhere,
        json!({"root": repo, "socket": victim, "pid": 4_000_000u32}).to_string(),
    )
    .unwrap();
    let plain = sockets.join("bbbbbbbbbbbbbbbb-4000001.sock");
    std::fs::write(&plain, "not a socket\n").unwrap();
    let stale = sockets.join("bbbbbbbbbbbbbbbb-4000001.json");
    std::fs::write(
        &stale,
        json!({"root": repo, "socket": plain, "pid": 4_000_001u32}).to_string(),
    )
    .unwrap();
    assert!(codegraph::mcp::attach::find(&sockets, &repo).is_none());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(std::fs::read_to_string(&plain).unwrap(), "not a socket\n");
    assert!(!stale.exists(), "the stale entry itself goes");

    let target = sockets.join("cccccccccccccccc-1.json");
    std::os::unix::fs::symlink(&victim, target.with_extension("json.tmp")).unwrap();
    let entry = codegraph::mcp::attach::Entry {
        root: repo.clone(),
        socket: sockets.join("cccccccccccccccc-1.sock"),
        pid: 1,
        http: None,
        tokens: None,
        kind: codegraph::mcp::attach::Kind::Serve,
        started: 0,
        clients: 0,
        version: String::new(),
        repository: None,
    };
    codegraph::mcp::attach::write_entry(&target, &entry).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(mode(&target), 0o600);

    // A live entry (this process, a real socket in the directory) is found while it is ours,
    // and ignored once it belongs to another user (which only root can arrange here).
    let socket = sockets.join("dddddddddddddddd-2.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let live = sockets.join("dddddddddddddddd-2.json");
    let entry = codegraph::mcp::attach::Entry {
        root: repo.clone(),
        socket: socket.clone(),
        pid: std::process::id(),
        http: None,
        tokens: None,
        kind: codegraph::mcp::attach::Kind::Serve,
        started: 0,
        clients: 0,
        version: String::new(),
        repository: None,
    };
    codegraph::mcp::attach::write_entry(&live, &entry).unwrap();
    let found = codegraph::mcp::attach::find(&sockets, &repo).map(|(path, _)| path);
    assert_eq!(found, Some(live.clone()));
    if nix::unistd::geteuid().is_root() {
        std::os::unix::fs::chown(&live, Some(65534), Some(65534)).unwrap();
        let found = codegraph::mcp::attach::find(&sockets, &repo).map(|(path, _)| path);
        assert_eq!(found, None);
        assert!(live.exists(), "another user's entry is left alone");
    }
}

/// The runtime directory planted in our place: a symlink to a directory where a server is
/// published (an impostor's, in the attack; here a language server of ours, so that attaching
/// would be visible), or a directory of another user. `codegraph mcp` attaches to neither and
/// serves in-process instead.
#[test]
fn a_runtime_directory_that_is_a_symlink_or_foreign_is_not_used() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let (mut lsp, _) = LspClient::start(&[&repo], false);
    // An unsaved edit only the language server's graph has.
    let main = repo.join("shop/app/main.py");
    let text = std::fs::read_to_string(&main).unwrap();
    lsp.open(&main, &text);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&main), "version": 2},
               "contentChanges": [{"text": format!("{text}\n\ndef again() -> int:\n    return math.factorial(3)\n")}]}),
    );
    lsp.request("codegraph/status", Value::Null);

    let planted = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        lsp.runtime_dir().join("codegraph"),
        planted.path().join("codegraph"),
    )
    .unwrap();
    let refusal = codegraph::mcp::attach::make_private(&planted.path().join("codegraph"))
        .unwrap_err()
        .to_string();
    assert!(refusal.contains("is a symlink"), "{refusal}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = mcp_child(&repo, planted.path(), &[]).await;
        assert_eq!(
            callers(&client, FACTORIAL).await,
            ["shop/app/main.py::main", FACTORIAL],
            "attached through the symlinked runtime directory"
        );
        client.cancel().await.unwrap();
    });

    // Another user's directory: as root, one given away; as anyone else, `/` is not theirs.
    let foreign = if nix::unistd::geteuid().is_root() {
        let foreign = planted.path().join("foreign");
        std::fs::create_dir(&foreign).unwrap();
        std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
        foreign
    } else {
        PathBuf::from("/")
    };
    let refusal = codegraph::mcp::attach::make_private(&foreign)
        .unwrap_err()
        .to_string();
    assert!(refusal.contains("not by this user"), "{refusal}");
    assert!(lsp.shutdown().success());
}

/// `params` that is a string or an array, and params that do not fit a standard method, are
/// answered with `-32602 Invalid params` and the request's id (they got no reply, -32600
/// without the id, or -32601 "method not found").
#[test]
fn wrong_params_get_invalid_params_with_their_id() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    .to_string();
    let lines = [
        initialize.as_str(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"find_callers"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":["find_callers"]}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
    ];
    let runtime_dir = tempfile::tempdir().unwrap();
    let answers = mcp_lines(
        &[
            "--no-attach".as_ref(),
            "--no-cache".as_ref(),
            "--repo".as_ref(),
            repo.as_os_str(),
        ],
        runtime_dir.path(),
        &lines,
        5,
    );
    let by_id = |id: u64| {
        answers
            .iter()
            .find(|answer| answer["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id}: {answers:?}"))
            .clone()
    };
    for id in [2, 3] {
        assert_eq!(
            by_id(id)["error"],
            json!({"code": -32602, "message": "Invalid params: the params of tools/call must be an object"})
        );
    }
    assert_eq!(
        by_id(4)["error"],
        json!({"code": -32602, "message": "Invalid params: the params do not fit tools/call"})
    );
    assert_eq!(by_id(5)["result"], json!({}));
}
