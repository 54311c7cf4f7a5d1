//! The MCP door driven by a third-party client: the official MCP Python SDK (`mcp` on PyPI)
//! runs `tests/e2e/mcp/client.py` against the real binary, over stdio (`codegraph mcp`, alone
//! and attached to a `codegraph lsp` holding an unsaved edit) and over Streamable HTTP
//! (`codegraph serve --mcp-only --http`). Besides the tools, resources and prompts it checks
//! what answers promise an AI: the trust stamp, a hub's truncated page, annotations and an
//! output schema on every tool (each answer validated against it), completions, the argument
//! fixes, the payload sent once, -32700 for a line that is not JSON.
//!
//! The test installs the SDK itself, pinned (`tests/e2e/mcp/requirements.txt`), into a venv
//! under the cargo target directory, once: a later run reuses the venv while the requirements
//! are unchanged. It needs `python3` (3.10 or later; `CODEGRAPH_PYTHON` names another) and, for
//! the first run, access to PyPI. Without them it fails and says so; it never passes silently.
//!
//! What the SDK (2.3.0) does first: in its default `auto` mode it sends `server/discover`,
//! which rmcp answers, and adopts protocol 2026-07-28 (the stateless per-request envelope)
//! instead of `initialize`; the test asserts that version.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cache::copy_tree;
use crate::lsp::{LspClient, uri};
use crate::support;

use crate::python::{self, manifest_dir, shown};

const REQUIREMENTS: &str = include_str!("../e2e/mcp/requirements.txt");

/// The venv holding the client, created and filled on first use.
fn sdk_venv() -> PathBuf {
    python::venv(
        "e2e-mcp-venv",
        "tests/e2e/mcp/requirements.txt",
        REQUIREMENTS,
        "the `mcp` Python SDK",
    )
}

/// Runs the SDK's client script; its last stdout line is a JSON report.
fn sdk_client(venv: &Path, mode: &str, target: &str, repo: &Path, runtime_dir: &Path) -> Value {
    let output = Command::new(venv.join("bin/python"))
        .arg(manifest_dir().join("tests/e2e/mcp/client.py"))
        .args([mode, target])
        .arg(repo)
        .env("XDG_RUNTIME_DIR", runtime_dir)
        // `stdio` is the in-process server; `shared` starts the shared one, gone soon after.
        .env(
            "CODEGRAPH_NO_DAEMON",
            if mode == "stdio" { "1" } else { "0" },
        )
        .env("CODEGRAPH_IDLE_EXIT", "2")
        // No `__pycache__` in the source tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("the venv's python runs");
    assert!(
        output.status.success(),
        "the MCP SDK client failed over {mode}\n{}",
        shown(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|error| {
        panic!("no JSON report ({error})\n{}", shown(&output));
    })
}

/// Kills the server when the test ends, however it ends.
pub(crate) struct Server(pub(crate) std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The HTTP URL the server published in its discovery file.
pub(crate) fn published_url(runtime_dir: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let published = std::fs::read_dir(runtime_dir.join("codegraph"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                entry
                    .path()
                    .extension()
                    .is_some_and(|found| found == "json")
            })
            .filter_map(|entry| std::fs::read(entry.path()).ok())
            .filter_map(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .find_map(|entry| entry["http"].as_str().map(str::to_string));
        if let Some(url) = published {
            return url;
        }
        assert!(Instant::now() < deadline, "the server published no URL");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every tool but the shell's, which is listed only when enabled.
const TOOLS: [&str; 15] = [
    "analyze_module_structure",
    "check_architecture",
    "find_affected_tests",
    "find_callees",
    "find_callers",
    "find_dependencies",
    "find_implementations",
    "get_code_snippet",
    "get_file_structure",
    "global_search",
    "local_search",
    "query_codebase",
    "read_file_content",
    "reindex_repository",
    "suggest_refactoring",
];

fn assert_common(report: &Value) {
    assert_eq!(report["server"], "codegraph");
    // Negotiated through `server/discover`, not `initialize`.
    assert_eq!(report["protocol_version"], "2026-07-28");
    assert_eq!(report["tools"], json!(TOOLS));
    assert_eq!(report["escape_refused"], "Access denied");
    let trust = &report["trust"];
    assert_eq!(trust["annotated_tools_with_output_schema"], 15);
    assert_eq!(
        trust["hub"],
        json!({"total": 300, "truncated": true, "next_offset": 25, "returned": 25})
    );
    // Every tool but `reindex_repository` (it writes) was called and its answer validated by the SDK's
    // jsonschema against the tool's outputSchema.
    let validated: Vec<&str> = TOOLS
        .into_iter()
        .filter(|tool| *tool != "reindex_repository")
        .collect();
    assert_eq!(trust["validated_tools"], json!(validated));
    assert_eq!(
        trust["completions"],
        json!({"entity_id": ["shop/left/a.py::A.process"],
               "file_path": ["shop/left/a.py", "shop/left/b.py", "shop/left/run.py"]})
    );
    assert_eq!(
        trust["argument_fixes"],
        json!(["two spellings", "incoming/outgoing", "line ranges"])
    );
}

/// The fixture plus what the trust checks need: a hub called from 300 functions, and a call
/// that could mean either of two methods.
fn add_trust_fixtures(repo: &Path) {
    let write = |path: &str, text: &str| {
        let path = repo.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("shop/hub.py", "def hub(value):\n    return value\n");
    for file in 0..30 {
        let mut text = String::from("from shop.hub import hub\n");
        for function in 0..10 {
            text.push_str(&format!(
                "\n\ndef caller_{file:02}_{function}():\n    return hub({function})\n"
            ));
        }
        write(&format!("shop/callers/c{file:02}.py"), &text);
    }
    write(
        "shop/left/a.py",
        "class A:\n    def process(self):\n        pass\n",
    );
    write(
        "shop/left/b.py",
        "class B:\n    def process(self):\n        pass\n",
    );
    write("shop/left/run.py", "def run(thing):\n    thing.process()\n");
    write(
        "tests/test_run.py",
        "from shop.left.run import run\n\n\ndef test_run():\n    run(None)\n",
    );
    // Architecture rules for `check_architecture`: utilities know nothing of authentication.
    write(
        ".codegraph/rules.toml",
        "[[forbid]]\nname = \"util-is-a-leaf\"\nfrom = \"shop/util/**\"\nto = \"shop/auth/**\"\n",
    );
}

/// The editor's unsaved text of `shop/left/run.py`: one call proven, one still ambiguous.
const EDITED_RUN: &str =
    "from shop.left.a import A\n\ndef run(thing):\n    A().process()\n    thing.process()\n";

#[test]
fn the_python_sdk_drives_codegraph_over_stdio_and_streamable_http() {
    let venv = sdk_venv();
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    add_trust_fixtures(&repo);
    let repo = repo.canonicalize().unwrap();
    // Committed, so that `find_affected_tests` has a base to compare with.
    support::commit_all(&repo);
    // A private runtime directory: `codegraph mcp` must not attach to a server of the machine.
    let runtime_dir = directory.path().join("run");
    std::fs::create_dir(&runtime_dir).unwrap();

    let binary = env!("CARGO_BIN_EXE_codegraph");
    let over_stdio = sdk_client(&venv, "stdio", binary, &repo, &runtime_dir);
    assert_common(&over_stdio);
    let stamp = &over_stdio["trust"]["stamp"];
    assert_eq!(stamp["unsaved_files"], json!([]));
    assert_eq!(
        stamp["possible"],
        json!(["shop/left/run.py::run:2 ambiguous"])
    );
    assert_eq!(
        over_stdio["trust"]["affected"],
        json!({"changed": [], "tests": [], "unsaved": []})
    );
    assert_eq!(
        over_stdio["malformed_json"],
        json!({"parse_error": -32700, "then_answered": "2025-06-18"})
    );

    // An editor holds an unsaved edit; `codegraph mcp` attaches to it and says so.
    let (mut lsp, _) = LspClient::start(&[&repo], false);
    let run = repo.join("shop/left/run.py");
    lsp.open(&run, &std::fs::read_to_string(&run).unwrap());
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&run), "version": 2},
               "contentChanges": [{"text": EDITED_RUN}]}),
    );
    lsp.request("codegraph/status", Value::Null);
    let attached = sdk_client(&venv, "attached", binary, &repo, lsp.runtime_dir());
    assert_common(&attached);
    let stamp = &attached["trust"]["stamp"];
    assert_eq!(stamp["unsaved_files"], json!(["shop/left/run.py"]));
    assert_eq!(stamp["resolutions"], json!(["receiver_type"]));
    assert_eq!(
        stamp["possible"],
        json!(["shop/left/run.py::run:5 ambiguous"])
    );
    assert!(stamp["revision"].is_u64(), "{stamp}");
    assert_eq!(
        attached["trust"]["affected"],
        json!({"changed": ["shop/left/run.py::run body"],
               "tests": ["tests/test_run.py::test_run"],
               "unsaved": ["shop/left/run.py"]})
    );
    assert!(lsp.shutdown().success());

    let server = Server(
        Command::new(binary)
            .args([
                "serve",
                "--mcp-only",
                "--no-cache",
                "--tools",
                "all",
                "--http",
                "0",
                "--repo",
            ])
            .arg(&repo)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            // Its one line of interest (the URL) is in the discovery file.
            .stderr(Stdio::null())
            .spawn()
            .expect("codegraph serve starts"),
    );
    let url = published_url(&runtime_dir);
    let over_http = sdk_client(&venv, "http", &url, &repo, &runtime_dir);
    assert_common(&over_http);
    // A `subscriptions/listen` stream heard of a file created on disk.
    assert_eq!(
        over_http["resource_updated"],
        "codegraph://files/shop/extra.py"
    );
    drop(server);
}

#[test]
fn python_sdk_clients_at_once_share_the_server_the_first_one_starts() {
    let venv = sdk_venv();
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let runtime_dir = directory.path().join("run");
    std::fs::create_dir(&runtime_dir).unwrap();
    let report = sdk_client(
        &venv,
        "shared",
        env!("CARGO_BIN_EXE_codegraph"),
        &repo,
        &runtime_dir,
    );
    let main = ["shop/app/main.py::main"];
    assert_eq!(report["callers"], json!([main, main, main]));
    assert_eq!(report["entries"], json!([{"kind": "shared", "clients": 3}]));
}
