//! The shared server: `codegraph mcp` with no server running starts one (`codegraph serve
//! --shared`) and attaches; every later client attaches to the same process; clients racing to
//! start end on one server; a client that dies frees its session; a killed server is replaced
//! by the next client; the server exits after its idle time, or on `codegraph stop`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::attach::{Client, FACTORIAL, callers, connect, files_with, mcp_command};
use crate::cache::copy_tree;
use crate::lsp::{LspClient, uri};
use crate::support;

/// The callers of `factorial` in the fixture as it is on disk.
const CALLERS: [&str; 2] = ["shop/app/main.py::main", FACTORIAL];

struct Setup {
    _directory: tempfile::TempDir,
    repo: PathBuf,
    runtime_dir: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let directory = tempfile::tempdir().unwrap();
        let repo = directory.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        copy_tree(&support::fixture("python"), &repo);
        let runtime_dir = directory.path().join("run");
        std::fs::create_dir(&runtime_dir).unwrap();
        Setup {
            repo: repo.canonicalize().unwrap(),
            runtime_dir,
            _directory: directory,
        }
    }

    /// `codegraph mcp` with the shared server's idle time set to `idle` seconds.
    async fn client(&self, idle: u64) -> Client {
        self.client_of(&self.repo, idle).await
    }

    /// [`Setup::client`] of another root.
    async fn client_of(&self, root: &Path, idle: u64) -> Client {
        let idle = idle.to_string();
        let command = mcp_command(root, &self.runtime_dir, &["--idle-exit", &idle]);
        connect(TokioChildProcess::new(command).expect("codegraph mcp starts")).await
    }

    fn sockets_dir(&self) -> PathBuf {
        self.runtime_dir.join("codegraph")
    }

    /// The discovery entries published now.
    fn entries(&self) -> Vec<Value> {
        files_with(&self.sockets_dir(), "json")
            .iter()
            .filter_map(|path| serde_json::from_slice(&std::fs::read(path).ok()?).ok())
            .collect()
    }

    /// `codegraph ARGUMENTS` with this runtime directory; its stdout.
    fn codegraph(&self, arguments: &[&str]) -> String {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph"))
            .args(arguments)
            .current_dir(&self.repo)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    }

    /// `codegraph status --json`.
    fn status(&self) -> Vec<Value> {
        serde_json::from_str(&self.codegraph(&["status", "--json"])).unwrap()
    }
}

/// Waits up to `limit` for `condition`.
fn eventually(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let began = Instant::now();
    while began.elapsed() < limit {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    condition()
}

fn alive(pid: u64) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.contains(") Z "))
}

/// The one published entry: the shared server's.
fn only_entry(setup: &Setup) -> Value {
    let entries = setup.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = entries.into_iter().next().unwrap();
    assert_eq!(entry["kind"], "shared", "{entry}");
    assert_eq!(entry["root"], json!(setup.repo));
    entry
}

#[test]
fn clients_share_the_server_the_first_one_started_which_exits_when_idle() {
    let setup = Setup::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pid = runtime.block_on(async {
        let first = setup.client(2).await;
        let entry = only_entry(&setup);
        let second = setup.client(2).await;
        let (seen_first, seen_second) =
            tokio::join!(callers(&first, FACTORIAL), callers(&second, FACTORIAL));
        assert_eq!(seen_first, CALLERS);
        assert_eq!(seen_second, CALLERS);
        // Still the one server, now with two sessions.
        assert_eq!(only_entry(&setup)["pid"], entry["pid"]);
        assert!(eventually(
            Duration::from_secs(5),
            || only_entry(&setup)["clients"] == 2
        ));
        let status = setup.status();
        assert_eq!(status.len(), 1, "{status:?}");
        assert_eq!(status[0]["pid"], entry["pid"]);
        assert_eq!(status[0]["kind"], "shared");
        assert_eq!(status[0]["clients"], 2);
        assert_eq!(status[0]["root"], json!(setup.repo));
        first.cancel().await.unwrap();
        second.cancel().await.unwrap();
        entry["pid"].as_u64().unwrap()
    });
    // No client: gone after its idle time, its entry and socket with it.
    assert!(
        eventually(Duration::from_secs(20), || !alive(pid)),
        "the shared server {pid} still runs"
    );
    assert!(setup.entries().is_empty());
    assert!(files_with(&setup.sockets_dir(), "sock").is_empty());
    assert_eq!(setup.status(), Vec::<Value>::new());
}

#[test]
fn clients_racing_to_start_end_on_one_server() {
    let setup = Setup::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (a, b, c, d) = tokio::join!(
            setup.client(2),
            setup.client(2),
            setup.client(2),
            setup.client(2)
        );
        for client in [&a, &b, &c, &d] {
            assert_eq!(callers(client, FACTORIAL).await, CALLERS);
        }
        only_entry(&setup);
        assert_eq!(files_with(&setup.sockets_dir(), "sock").len(), 1);
        assert!(eventually(
            Duration::from_secs(5),
            || only_entry(&setup)["clients"] == 4
        ));
        for client in [a, b, c, d] {
            client.cancel().await.unwrap();
        }
    });
}

#[test]
fn a_killed_client_frees_its_session_and_a_killed_server_is_replaced() {
    let setup = Setup::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let first = setup.client(30).await;
        let server = only_entry(&setup)["pid"].as_u64().unwrap();

        // A client killed with a request in flight.
        let mut doomed = mcp_command(&setup.repo, &setup.runtime_dir, &["--idle-exit", "30"]);
        doomed
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut doomed = doomed.spawn().unwrap();
        let mut input = doomed.stdin.take().unwrap();
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "doomed", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "find_callers", "arguments": {"entity_id": FACTORIAL}}}),
        ];
        for line in lines {
            tokio::io::AsyncWriteExt::write_all(&mut input, format!("{line}\n").as_bytes())
                .await
                .unwrap();
        }
        assert!(eventually(
            Duration::from_secs(10),
            || only_entry(&setup)["clients"] == 2
        ));
        doomed.kill().await.unwrap();
        assert!(
            eventually(Duration::from_secs(10), || only_entry(&setup)["clients"]
                == 1),
            "{:?}",
            setup.entries()
        );
        // The other session is untouched.
        assert_eq!(callers(&first, FACTORIAL).await, CALLERS);

        // The server killed: the next client starts another.
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(server as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        assert!(eventually(Duration::from_secs(10), || !alive(server)));
        let _ = first.cancel().await;
        let next = setup.client(2).await;
        assert_eq!(callers(&next, FACTORIAL).await, CALLERS);
        let replacement = only_entry(&setup)["pid"].as_u64().unwrap();
        assert_ne!(replacement, server);
        next.cancel().await.unwrap();
    });
}

#[test]
fn stop_stops_the_shared_server_of_the_repository() {
    let setup = Setup::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pid = runtime.block_on(async {
        let client = setup.client(300).await;
        assert_eq!(callers(&client, FACTORIAL).await, CALLERS);
        let pid = only_entry(&setup)["pid"].as_u64().unwrap();
        let stopped = setup.codegraph(&["stop"]);
        assert_eq!(
            stopped.trim(),
            format!("{}: stopped process {pid}", setup.repo.display())
        );
        let _ = client.cancel().await;
        pid
    });
    assert!(!alive(pid));
    assert!(setup.entries().is_empty());
    assert_eq!(
        setup.codegraph(&["stop"]).trim(),
        format!("no codegraph server of {} is running", setup.repo.display())
    );
}

/// The ids `query_codebase` finds for `query` among functions.
async fn search(client: &Client, query: &str) -> Vec<String> {
    let found = client
        .ok(
            "query_codebase",
            json!({ "query": query, "scope": "functions" }),
        )
        .await;
    found["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entity| entity["id"].as_str().unwrap().to_string())
        .filter(|id| id.ends_with(query))
        .collect()
}

/// The editor's unsaved text of `shop/app/main.py`: one more caller of `factorial`.
fn edit_main(lsp: &mut LspClient, repo: &Path) {
    let main = repo.join("shop/app/main.py");
    let text = std::fs::read_to_string(&main).unwrap();
    lsp.open(&main, &text);
    let edited = format!("{text}\n\ndef again() -> int:\n    return math.factorial(3)\n");
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&main), "version": 2},
               "contentChanges": [{"text": edited}]}),
    );
    // Text changes are applied before the next message is read: once a later request is
    // answered, the change is in the graph.
    lsp.request("codegraph/status", Value::Null);
}

const EDITED_CALLERS: [&str; 3] = [
    "shop/app/main.py::again",
    "shop/app/main.py::main",
    FACTORIAL,
];

#[test]
fn an_editor_joins_the_shared_server_an_ai_session_started_and_its_unsaved_edits_are_shared() {
    editor_joins_the_server_of_an_ai_session(&Setup::new(), &["--shared", "--idle-exit", "30"]);
}

#[test]
fn an_editor_without_shared_joins_a_running_shared_server_and_starts_none() {
    let setup = Setup::new();
    // No shared server runs: the editor's process serves the folder itself.
    let (mut alone, _) = LspClient::start_in(&[&setup.repo], &[], &setup.runtime_dir);
    let entries = setup.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["kind"], "lsp");
    assert!(alone.shutdown().success());
    assert!(setup.entries().is_empty());
    // One runs (an AI session started it): the editor joins it.
    editor_joins_the_server_of_an_ai_session(&setup, &[]);
}

/// An AI session starts the shared server; an editor started with `arguments` joins it, and
/// its unsaved text is in the graph the AI session reads until the editor goes.
fn editor_joins_the_server_of_an_ai_session(setup: &Setup, arguments: &[&str]) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ai = runtime.block_on(setup.client(30));
    let pid = only_entry(setup)["pid"].clone();

    let (mut lsp, _) = LspClient::start_in(&[&setup.repo], arguments, &setup.runtime_dir);
    // One server: the editor's session is its second.
    assert_eq!(only_entry(setup)["pid"], pid);
    assert!(eventually(
        Duration::from_secs(5),
        || only_entry(setup)["clients"] == 2
    ));
    edit_main(&mut lsp, &setup.repo);
    assert_eq!(runtime.block_on(callers(&ai, FACTORIAL)), EDITED_CALLERS);

    // The editor goes: its unsaved text leaves the graph; the server stays for the AI session.
    assert!(lsp.shutdown().success());
    assert!(eventually(
        Duration::from_secs(10),
        || only_entry(setup)["clients"] == 1
    ));
    assert_eq!(runtime.block_on(callers(&ai, FACTORIAL)), CALLERS);
    assert_eq!(only_entry(setup)["pid"], pid);
    runtime.block_on(ai.cancel()).unwrap();
}

#[test]
fn an_ai_session_joins_the_shared_server_an_editor_started() {
    let setup = Setup::new();
    let (mut lsp, _) = LspClient::start_in(
        &[&setup.repo],
        &["--shared", "--idle-exit", "2"],
        &setup.runtime_dir,
    );
    let pid = only_entry(&setup)["pid"].as_u64().unwrap();
    edit_main(&mut lsp, &setup.repo);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let ai = setup.client(2).await;
        assert_eq!(callers(&ai, FACTORIAL).await, EDITED_CALLERS);
        assert_eq!(only_entry(&setup)["pid"], pid);
        ai.cancel().await.unwrap();
    });
    assert!(lsp.shutdown().success());
    assert!(
        eventually(Duration::from_secs(20), || !alive(pid)),
        "the shared server {pid} still runs"
    );
}

#[test]
fn a_shared_server_of_another_version_is_left_to_its_clients() {
    let setup = Setup::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let first = setup.client(30).await;
        let old = only_entry(&setup);
        // The server, as a codegraph of another version would have published it.
        let path = files_with(&setup.sockets_dir(), "json").remove(0);
        let mut entry = old.clone();
        entry["version"] = json!("0.0.0-older");
        std::fs::write(&path, entry.to_string()).unwrap();

        let second = setup.client(2).await;
        assert_eq!(callers(&second, FACTORIAL).await, CALLERS);
        let entries = setup.entries();
        assert_eq!(entries.len(), 2, "{entries:?}");
        let new = entries
            .iter()
            .find(|entry| entry["version"] == env!("CARGO_PKG_VERSION"))
            .expect("a server of this version");
        assert_ne!(new["pid"], old["pid"]);
        assert_eq!(new["clients"], 1);
        first.cancel().await.unwrap();
        second.cancel().await.unwrap();
    });
}

#[test]
fn an_editor_with_the_shell_tool_is_served_in_process_even_with_shared() {
    let setup = Setup::new();
    let (mut lsp, _) = LspClient::start_in(
        &[&setup.repo],
        &["--shared", "--allow-shell", "git"],
        &setup.runtime_dir,
    );
    let entries = setup.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["kind"], "lsp");
    assert!(lsp.shutdown().success());
    assert!(setup.entries().is_empty());
}

/// The repository committed, and a worktree of it on a new branch `name`, beside it.
fn add_worktree(setup: &Setup, name: &str) -> PathBuf {
    support::commit_all(&setup.repo);
    let worktree = setup.repo.parent().unwrap().join(name);
    let added = std::process::Command::new("git")
        .arg("-C")
        .arg(&setup.repo)
        .args(["worktree", "add", "-q", "-b", name])
        .arg(&worktree)
        .status()
        .unwrap();
    assert!(added.success());
    worktree.canonicalize().unwrap()
}

#[test]
fn stop_all_stops_a_server_of_several_worktrees_once() {
    let setup = Setup::new();
    let worktree = add_worktree(&setup, "feature");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pid = runtime.block_on(async {
        let on_main = setup.client(60).await;
        let on_feature = setup.client_of(&worktree, 60).await;
        assert_eq!(callers(&on_feature, FACTORIAL).await, CALLERS);
        let pid = setup.entries()[0]["pid"].as_u64().unwrap();
        // In path order: `feature` before `repo`, stopped once.
        assert_eq!(
            setup.codegraph(&["stop", "--all"]),
            format!(
                "{}: stopped process {pid}\n{}: stopped with process {pid}, which served it too\n",
                worktree.display(),
                setup.repo.display()
            )
        );
        drop((on_main, on_feature));
        pid
    });
    assert!(
        eventually(Duration::from_secs(20), || !alive(pid)),
        "the shared server {pid} still runs"
    );
    assert!(setup.entries().is_empty());
}

#[test]
fn a_worktree_is_served_by_the_shared_server_of_its_repository() {
    let setup = Setup::new();
    let worktree = add_worktree(&setup, "feature");
    // The feature branch's working tree: one more caller of factorial.
    let main = worktree.join("shop/app/main.py");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        format!("{text}\n\ndef again() -> int:\n    return math.factorial(3)\n"),
    )
    .unwrap();

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pid = runtime.block_on(async {
        let on_main = setup.client(2).await;
        // Searched first on main: the feature worktree's index starts from main's.
        assert_eq!(search(&on_main, "again").await, Vec::<String>::new());
        let on_feature = setup.client_of(&worktree, 2).await;
        assert_eq!(
            search(&on_feature, "again").await,
            ["shop/app/main.py::again"]
        );
        assert_eq!(search(&on_main, "again").await, Vec::<String>::new());
        // Each worktree its own graph...
        assert_eq!(callers(&on_main, FACTORIAL).await, CALLERS);
        assert_eq!(callers(&on_feature, FACTORIAL).await, EDITED_CALLERS);
        // ...in one process, an entry per worktree.
        let mut entries = setup.entries();
        entries.sort_by_key(|entry| entry["root"].as_str().unwrap().to_string());
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(entries[0]["pid"], entries[1]["pid"]);
        let roots: Vec<&Value> = entries.iter().map(|entry| &entry["root"]).collect();
        assert_eq!(roots, [&json!(worktree), &json!(setup.repo)]);
        assert_eq!(entries[0]["repository"], entries[1]["repository"]);
        assert_eq!(setup.status().len(), 2);
        on_main.cancel().await.unwrap();
        on_feature.cancel().await.unwrap();
        entries[0]["pid"].as_u64().unwrap()
    });
    assert!(
        eventually(Duration::from_secs(20), || !alive(pid)),
        "the shared server {pid} still runs"
    );
    assert!(setup.entries().is_empty());
}

#[test]
fn a_server_whose_starter_died_before_it_was_ready_is_waited_for_not_doubled() {
    let setup = Setup::new();
    // Enough files that the server is still indexing when its starter is killed.
    let many = setup.repo.join("many");
    std::fs::create_dir(&many).unwrap();
    for file in 0..4000 {
        let body: String = (0..10)
            .map(|function| format!("def f{function}(x):\n    return x + {function}\n\n"))
            .collect();
        std::fs::write(many.join(format!("m{file}.py")), body).unwrap();
    }
    let mut starter = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph"))
        .args(["mcp", "--no-cache", "--idle-exit", "5", "--repo"])
        .arg(&setup.repo)
        .env("XDG_RUNTIME_DIR", &setup.runtime_dir)
        .env_remove("CODEGRAPH_NO_DAEMON")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let marker = || {
        files_with(&setup.sockets_dir(), "starting")
            .first()
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|pid| pid.trim().parse::<u64>().ok())
    };
    assert!(eventually(Duration::from_secs(20), || marker().is_some()));
    let server = marker().unwrap();
    starter.kill().unwrap();
    starter.wait().unwrap();
    // The race this is about: the server is not ready when its starter goes.
    assert!(setup.entries().is_empty(), "{:?}", setup.entries());
    assert!(alive(server));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = setup.client(5).await;
        assert_eq!(callers(&client, FACTORIAL).await, CALLERS);
        assert_eq!(only_entry(&setup)["pid"], server);
        client.cancel().await.unwrap();
    });
}
