//! The official MCP conformance suite against `codegraph serve --http`: the requirement sets
//! of the revisions 2025-11-25 (the `initialize` handshake) and 2026-07-28 (stateless, with
//! per-request metadata), each run at its own wire version. The suite
//! (`@modelcontextprotocol/conformance`) and the Node.js it needs are pinned in
//! `tests/mcp-conformance/package-lock.json` and installed from npm on first use. The checks
//! that do not apply to codegraph are listed, each with why, in
//! `tests/mcp-conformance/baseline.yml`; the suite fails the run on any other failing check and
//! on any listed check that passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::e2e_mcp::{Server, published_url};
use crate::python::{manifest_dir, shown};
use crate::support;

/// The suite installed in the test's temporary directory (`npm ci`, once per lock file).
fn suite() -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-conformance");
    let source = manifest_dir().join("tests/mcp-conformance");
    let lock = std::fs::read_to_string(source.join("package-lock.json")).expect("the lock file");
    let marker = directory.join("installed-lock.json");
    if std::fs::read_to_string(&marker).is_ok_and(|installed| installed == lock) {
        return directory;
    }
    std::fs::create_dir_all(&directory).expect("the suite's directory");
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(source.join(file), directory.join(file)).expect("copying the manifest");
    }
    let output = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&directory)
        .output()
        .expect("npm runs (node and npm are needed, and the npm registry once)");
    assert!(
        output.status.success(),
        "installing the conformance suite\n{}",
        shown(&output)
    );
    std::fs::write(&marker, lock).expect("the marker");
    directory
}

/// `codegraph serve --http 0` on a copy of the Python fixture in `directory`, and its URL.
fn serve(directory: &Path) -> (Server, String) {
    let repo = directory.join("repo");
    std::fs::create_dir(&repo).unwrap();
    crate::cache::copy_tree(&support::fixture("python"), &repo);
    let runtime_dir = directory.join("run");
    std::fs::create_dir(&runtime_dir).unwrap();
    let server = Server(
        Command::new(env!("CARGO_BIN_EXE_codegraph"))
            .args(["serve", "--mcp-only", "--no-cache", "--tools", "all"])
            .args(["--http", "0", "--repo"])
            .arg(&repo)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("codegraph serve starts"),
    );
    let url = published_url(&runtime_dir);
    (server, url)
}

#[test]
fn the_official_conformance_suite_passes_every_check_that_applies() {
    let suite = suite();
    let directory = tempfile::tempdir().unwrap();
    let (_server, url) = serve(directory.path());
    // `node` on the PATH is the suite's own (22 or later), whatever the machine has.
    let path = format!(
        "{}:{}",
        suite.join("node_modules/.bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for revision in ["2025-11-25", "2026-07-28"] {
        let output = Command::new(suite.join("node_modules/.bin/conformance"))
            .args(["server", "--url", &url, "--requirements", revision])
            .arg("--expected-failures")
            .arg(manifest_dir().join("tests/mcp-conformance/baseline.yml"))
            .arg("--output-dir")
            .arg(directory.path().join(revision))
            .env("PATH", &path)
            .output()
            .expect("the suite runs");
        assert!(
            output.status.success(),
            "conformance {revision}: a check failed that should pass, or a listed one passes\n{}",
            shown(&output)
        );
    }
}

/// The JSON-RPC messages of a Streamable HTTP response body (JSON, or server-sent events).
fn messages(body: &str) -> Vec<Value> {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        return vec![value];
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter(|data| !data.trim().is_empty())
        .map(|data| serde_json::from_str(data.trim()).expect("a JSON-RPC message"))
        .collect()
}

/// What the suite can only check through its own diagnostic tools (see the baseline), checked
/// on codegraph's: a stateless request's response stream carries its result and nothing else
/// (no request to the client, no log message for a request that set no log level), and the
/// server declares no capability it would need to send those.
#[tokio::test(flavor = "multi_thread")]
async fn a_stateless_response_stream_carries_the_result_alone() {
    let directory = tempfile::tempdir().unwrap();
    let (_server, url) = serve(directory.path());
    let http = reqwest::Client::new();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let post = |id: u32, method: &'static str, name: Option<&'static str>, params: Value| {
        let mut request = http
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method);
        if let Some(name) = name {
            request = request.header("Mcp-Name", name);
        }
        request
            .body(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
            )
            .send()
    };
    let discovered = post(1, "server/discover", None, json!({"_meta": meta}))
        .await
        .unwrap();
    assert_eq!(discovered.status(), 200);
    let discovered = messages(&discovered.text().await.unwrap());
    let capabilities = &discovered[0]["result"]["capabilities"];
    assert!(capabilities["tools"].is_object(), "{capabilities}");
    assert_eq!(capabilities.get("logging"), None, "{capabilities}");

    let arguments = json!({"entity_id": "shop/util/math.py::factorial"});
    let call = post(
        2,
        "tools/call",
        Some("find_callers"),
        json!({"name": "find_callers", "arguments": arguments, "_meta": meta}),
    )
    .await
    .unwrap();
    assert_eq!(call.status(), 200);
    let sent = messages(&call.text().await.unwrap());
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["id"], 2);
    assert_eq!(sent[0].get("method"), None, "{sent:?}");
    assert_eq!(
        sent[0]["result"]["structuredContent"]["entity"]["id"],
        "shop/util/math.py::factorial"
    );
}
