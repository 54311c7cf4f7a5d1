//! The headless server: `codegraph --mcp-only` keeping the graph current from file-system
//! events, and `codegraph serve --http` over Streamable HTTP and legacy SSE with a real HTTP
//! client, its Host/Origin checks and its bearer tokens.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use crate::attach::{Client, callers, connect};
use crate::cache::copy_tree;
use crate::support;

const TIMEOUT: Duration = Duration::from_secs(60);
const FACTORIAL: &str = "shop/util/math.py::factorial";

/// A temp copy of fixtures/python (canonical path) and a private runtime directory.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let runtime_dir = directory.path().join("run");
    std::fs::create_dir(&runtime_dir).unwrap();
    (directory, repo.canonicalize().unwrap(), runtime_dir)
}

/// Polls `callers` until `check` holds.
async fn wait_for_callers(client: &Client, check: impl Fn(&[String]) -> bool, what: &str) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let seen = callers(client, FACTORIAL).await;
        if check(&seen) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: still {seen:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_only_follows_changes_on_disk() {
    let (_directory, repo, runtime_dir) = workspace();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_codegraph"));
    command
        .args(["--mcp-only", "--no-cache", "--repo"])
        .arg(&repo)
        .env("XDG_RUNTIME_DIR", &runtime_dir);
    let client = connect(TokioChildProcess::new(command).unwrap()).await;
    assert_eq!(
        callers(&client, FACTORIAL).await,
        ["shop/app/main.py::main", "shop/util/math.py::factorial"]
    );

    // A new file.
    let extra = repo.join("shop/extra.py");
    std::fs::write(
        &extra,
        "from shop.util.math import factorial\n\n\ndef on_disk():\n    return factorial(4)\n",
    )
    .unwrap();
    wait_for_callers(
        &client,
        |seen| {
            seen == [
                "shop/app/main.py::main",
                "shop/extra.py::on_disk",
                FACTORIAL,
            ]
        },
        "the new file",
    )
    .await;
    // A changed file: the caller renamed.
    std::fs::write(
        &extra,
        "from shop.util.math import factorial\n\n\ndef renamed():\n    return factorial(4)\n",
    )
    .unwrap();
    wait_for_callers(
        &client,
        |seen| {
            seen == [
                "shop/app/main.py::main",
                "shop/extra.py::renamed",
                FACTORIAL,
            ]
        },
        "the changed file",
    )
    .await;
    std::fs::remove_file(&extra).unwrap();
    // A directory moved in whole, then deleted whole.
    let outside = repo.parent().unwrap().join("more");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(
        outside.join("deep.py"),
        "from shop.util.math import factorial\n\n\ndef deep():\n    return factorial(6)\n",
    )
    .unwrap();
    std::fs::rename(&outside, repo.join("shop/more")).unwrap();
    wait_for_callers(
        &client,
        |seen| {
            seen == [
                "shop/app/main.py::main",
                "shop/more/deep.py::deep",
                FACTORIAL,
            ]
        },
        "the moved-in directory",
    )
    .await;
    std::fs::remove_dir_all(repo.join("shop/more")).unwrap();
    wait_for_callers(
        &client,
        |seen| seen == ["shop/app/main.py::main", FACTORIAL],
        "the deleted directory",
    )
    .await;
    client.cancel().await.unwrap();
}

/// `codegraph serve --http 0 ...` as a child process, killed on drop.
struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    base: String,
    entry: Value,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_http(repo: &Path, runtime_dir: &Path, extra: &[&str]) -> HttpServer {
    let mut server = HttpServer {
        child: Command::new(env!("CARGO_BIN_EXE_codegraph"))
            .args(["serve", "--no-cache", "--http", "0", "--repo"])
            .arg(repo)
            .args(extra)
            .env("XDG_RUNTIME_DIR", runtime_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
        base: String::new(),
        entry: Value::Null,
    };
    let sockets = runtime_dir.join("codegraph");
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let published = std::fs::read_dir(&sockets)
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
            .find(|entry| entry["http"].is_string());
        if let Some(entry) = published {
            let url = entry["http"].as_str().unwrap();
            server.base = url.strip_suffix("/mcp").unwrap().to_string();
            server.entry = entry;
            return server;
        }
        assert!(Instant::now() < deadline, "the HTTP server never published");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn initialize_body(id: u32, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn streamable_http_with_tokens_and_rebinding_protection() {
    let (_directory, repo, runtime_dir) = workspace();
    let server = start_http(&repo, &runtime_dir, &["--auth"]);
    let token = server.entry["tokens"]["read_only"]
        .as_str()
        .expect("a token in the discovery file")
        .to_string();
    assert_eq!(server.entry["root"], json!(repo));

    // A real MCP client over Streamable HTTP.
    let transport = StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.base))
            .auth_header(token.clone()),
    );
    let client = connect(transport).await;
    assert_eq!(
        callers(&client, FACTORIAL).await,
        ["shop/app/main.py::main", "shop/util/math.py::factorial"]
    );
    client.cancel().await.unwrap();

    let http = reqwest::Client::new();
    let post = |headers: &[(&str, &str)]| {
        let mut request = http
            .post(format!("{}/mcp", server.base))
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(initialize_body(1, "2025-06-18").to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send()
    };
    let bearer = format!("Bearer {token}");
    let port = server.base.rsplit(':').next().unwrap().to_string();
    // Authenticated and from an allowed origin: accepted.
    let origin = format!("http://localhost:{port}");
    let accepted = post(&[("Authorization", &bearer), ("Origin", &origin)])
        .await
        .unwrap();
    assert_eq!(accepted.status(), 200);
    // No token, a wrong token.
    assert_eq!(post(&[]).await.unwrap().status(), 401);
    let wrong = post(&[("Authorization", "Bearer 0123")]).await.unwrap();
    assert_eq!(wrong.status(), 401);
    assert_eq!(wrong.headers()["www-authenticate"], "Bearer");
    // A rebinding attempt: another Host, another Origin, the right port but another host.
    for headers in [
        [
            ("Authorization", bearer.as_str()),
            ("Host", "evil.example:80"),
        ],
        [
            ("Authorization", bearer.as_str()),
            ("Origin", "http://evil.example"),
        ],
        [
            ("Authorization", bearer.as_str()),
            ("Origin", &format!("http://evil.example:{port}")),
        ],
    ] {
        assert_eq!(post(&headers).await.unwrap().status(), 403, "{headers:?}");
    }
    // The host check comes first: no token needed to be refused.
    assert_eq!(
        post(&[("Host", "evil.example")]).await.unwrap().status(),
        403
    );
}

/// Reads server-sent events from a response body.
struct Events {
    body: futures::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: String,
}

impl Events {
    /// The next event as (event name, data).
    async fn next(&mut self) -> (String, String) {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut name = "message".to_string();
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        name = value.trim().to_string();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push(value.strip_prefix(' ').unwrap_or(value).to_string());
                    }
                }
                if data.is_empty() {
                    continue; // keep-alive comment
                }
                return (name, data.join("\n"));
            }
            let chunk = tokio::time::timeout(TIMEOUT, self.body.next())
                .await
                .expect("an event in time")
                .expect("the stream is open")
                .unwrap();
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The JSON-RPC response with this id.
    async fn response(&mut self, id: u32) -> Value {
        loop {
            let (name, data) = self.next().await;
            if name != "message" {
                continue;
            }
            let message: Value = serde_json::from_str(&data).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_sse_endpoint_flow() {
    let (_directory, repo, runtime_dir) = workspace();
    let server = start_http(&repo, &runtime_dir, &[]);
    let http = reqwest::Client::new();
    let stream = http
        .get(format!("{}/sse", server.base))
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut events = Events {
        body: stream.bytes_stream().boxed(),
        buffer: String::new(),
    };
    let (name, endpoint) = events.next().await;
    assert_eq!(name, "endpoint");
    assert!(endpoint.starts_with("/messages?sessionId="), "{endpoint}");
    let post = |body: Value| {
        http.post(format!("{}{endpoint}", server.base))
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
    };
    assert_eq!(
        post(initialize_body(1, "2024-11-05"))
            .await
            .unwrap()
            .status(),
        202
    );
    let initialized = events.response(1).await;
    assert_eq!(initialized["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(initialized["result"]["serverInfo"]["name"], "codegraph");
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(notification).await.unwrap().status(), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "find_callers", "arguments": {"entity_id": FACTORIAL}}});
    assert_eq!(post(call).await.unwrap().status(), 202);
    let answer = events.response(2).await;
    // A 2024-11-05 client knows no `structuredContent`: the answer is the JSON text alone.
    assert_eq!(answer["result"].get("structuredContent"), None, "{answer}");
    let text: Value =
        serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let callers: Vec<&str> = text["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|caller| caller["id"].as_str().unwrap())
        .collect();
    // `factorial` is recursive: its own caller.
    assert_eq!(
        callers,
        ["shop/app/main.py::main", "shop/util/math.py::factorial"]
    );
    // Unknown methods answer at once.
    let unknown = json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"});
    assert_eq!(post(unknown).await.unwrap().status(), 202);
    assert_eq!(events.response(3).await["error"]["code"], -32601);
    // A session that does not exist, a body that is not JSON-RPC.
    let missing = http
        .post(format!("{}/messages?sessionId=nope", server.base))
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let garbage = http
        .post(format!("{}{endpoint}", server.base))
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status(), 400);
    // The same rebinding protection as /mcp.
    let forbidden = http
        .get(format!("{}/sse", server.base))
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(forbidden.status(), 403);
}

/// HTTP attacks the guard must refuse: two Host headers (one allowed, one not), a
/// web page posting `text/plain` to the legacy `/messages` route (from its own origin, or with
/// no Origin at all), and deleting a session that is gone. A lower-case `bearer` scheme is a
/// valid credential.
#[tokio::test(flavor = "multi_thread")]
async fn http_refuses_duplicate_hosts_simple_posts_to_messages_and_gone_sessions() {
    let (_directory, repo, runtime_dir) = workspace();
    let server = start_http(&repo, &runtime_dir, &["--auth"]);
    let token = server.entry["tokens"]["read_only"].as_str().unwrap();
    let bearer = format!("Bearer {token}");
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let http = reqwest::Client::new();
    let initialize = |authorization: String, extra: Vec<(&'static str, String)>| {
        let mut request = http
            .post(format!("{}/mcp", server.base))
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("Authorization", authorization)
            .body(initialize_body(1, "2025-06-18").to_string());
        for (name, value) in extra {
            request = request.header(name, value);
        }
        request.send()
    };

    let lower_case = initialize(format!("bearer {token}"), vec![]).await.unwrap();
    assert_eq!(lower_case.status(), 200);

    // reqwest appends: both Host headers go out.
    let two_hosts = initialize(
        bearer.clone(),
        vec![
            ("Host", format!("127.0.0.1:{port}")),
            ("Host", format!("evil.example:{port}")),
        ],
    )
    .await
    .unwrap();
    assert_eq!(two_hosts.status(), 403);
    assert_eq!(
        two_hosts.json::<Value>().await.unwrap()["error"],
        "Forbidden: more than one Host header"
    );

    let stream = http
        .get(format!("{}/sse", server.base))
        .header("Accept", "text/event-stream")
        .header("Authorization", &bearer)
        .send()
        .await
        .unwrap();
    let mut events = Events {
        body: stream.bytes_stream().boxed(),
        buffer: String::new(),
    };
    let (_, endpoint) = events.next().await;
    let simple_post = |origin: Option<&str>| {
        let mut request = http
            .post(format!("{}{endpoint}", server.base))
            .header("Content-Type", "text/plain")
            .header("Authorization", &bearer)
            .body(initialize_body(1, "2024-11-05").to_string());
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        request.send()
    };
    let from_page = simple_post(Some("http://evil.example")).await.unwrap();
    assert_eq!(from_page.status(), 403);
    let without_origin = simple_post(None).await.unwrap();
    assert_eq!(without_origin.status(), 415);

    let opened = initialize(bearer.clone(), vec![]).await.unwrap();
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let delete = |id: String| {
        http.delete(format!("{}/mcp", server.base))
            .header("Authorization", &bearer)
            .header("Mcp-Session-Id", id)
            .send()
    };
    assert_eq!(delete(session.clone()).await.unwrap().status(), 202);
    assert_eq!(delete(session).await.unwrap().status(), 404);
    assert_eq!(delete("nope".to_string()).await.unwrap().status(), 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn shell_over_http_needs_the_shell_scoped_token() {
    let (_directory, repo, runtime_dir) = workspace();
    // `--allow-shell` makes the HTTP server ask for tokens even on loopback.
    let server = start_http(&repo, &runtime_dir, &["--allow-shell", "echo"]);
    let call = |token: String| {
        let url = format!("{}/mcp", server.base);
        async move {
            let transport = StreamableHttpClientTransport::with_client(
                reqwest::Client::new(),
                StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
            );
            let client = connect(transport).await;
            let result = client
                .call("execute_shell_command", json!({"command": "echo hi"}))
                .await;
            client.cancel().await.unwrap();
            result
        }
    };
    let read_only = call(
        server.entry["tokens"]["read_only"]
            .as_str()
            .unwrap()
            .to_string(),
    )
    .await;
    assert_eq!(read_only.is_error, Some(true));
    assert!(
        read_only.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("shell scope")
    );
    let shell = call(
        server.entry["tokens"]["shell"]
            .as_str()
            .unwrap()
            .to_string(),
    )
    .await;
    assert_eq!(shell.structured_content.unwrap()["stdout"], "hi\n");
}

/// `POST /mcp` with a body that is not JSON gets 400 and a JSON-RPC parse error (it got 415), a
/// body over the limit 413; and SIGTERM stops the server although a legacy SSE stream is open
/// (it waited for the client to disconnect).
#[tokio::test(flavor = "multi_thread")]
async fn malformed_bodies_are_answered_and_sigterm_ends_open_streams() {
    let (_directory, repo, runtime_dir) = workspace();
    let mut server = start_http(&repo, &runtime_dir, &[]);
    let http = reqwest::Client::new();
    let post = |body: String| {
        http.post(format!("{}/mcp", server.base))
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body)
            .send()
    };
    let garbage = post("{not json".to_string()).await.unwrap();
    assert_eq!(garbage.status(), 400);
    let answer: Value = garbage.json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    // On a client of its own: the server closes that connection after refusing the body.
    let huge = reqwest::Client::new()
        .post(format!("{}/mcp", server.base))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(format!("\"{}\"", "x".repeat(5 * 1024 * 1024)))
        .send()
        .await;
    // The server answers 413 and closes the connection without reading the rest of the body;
    // a client still sending when it closes sees the connection end instead of the answer.
    match huge {
        Ok(huge) => assert_eq!(huge.status(), 413),
        Err(error) => assert!(error.is_request() || error.is_body(), "{error}"),
    }
    assert_eq!(
        post(initialize_body(1, "2025-06-18").to_string())
            .await
            .unwrap()
            .status(),
        200
    );

    let stream = http
        .get(format!("{}/sse", server.base))
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let mut events = Events {
        body: stream.bytes_stream().boxed(),
        buffer: String::new(),
    };
    assert_eq!(events.next().await.0, "endpoint");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "still serving with an SSE stream open"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
}

/// Runs `command` as the unprivileged user `nobody` when this test runs as root (root reads
/// any directory, so an unreadable one would not be unreadable to it): `setpriv` in front, the
/// workspace handed over to that user. Not root: the command as it is.
fn unprivileged(command: &str, owned: &Path) -> tokio::process::Command {
    const NOBODY: u32 = 65534;
    if !nix::unistd::geteuid().is_root() {
        return tokio::process::Command::new(command);
    }
    fn chown_tree(path: &Path) {
        std::os::unix::fs::lchown(path, Some(NOBODY), Some(NOBODY)).unwrap();
        if path.is_dir() && !path.is_symlink() {
            for entry in std::fs::read_dir(path).unwrap() {
                chown_tree(&entry.unwrap().path());
            }
        }
    }
    chown_tree(owned);
    let mut command_line = tokio::process::Command::new("setpriv");
    command_line
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(command);
    command_line
}

/// One unreadable directory and a symlink loop in the tree: the watcher watches the rest (a
/// new file, a new directory and a file in it are all seen) and says once of each why it is
/// not watched. Run as `nobody` when the test runs as root, since root can read anything.
#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_survives_an_unreadable_directory_and_a_symlink_loop() {
    use std::os::unix::fs::PermissionsExt;
    let (directory, repo, runtime_dir) = workspace();
    std::fs::set_permissions(directory.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir(repo.join("locked")).unwrap();
    std::fs::write(repo.join("locked/hidden.py"), "def hidden():\n    pass\n").unwrap();
    std::os::unix::fs::symlink("..", repo.join("shop/loop")).unwrap();
    let mut command = unprivileged(env!("CARGO_BIN_EXE_codegraph"), directory.path());
    std::fs::set_permissions(repo.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    command
        .args(["--mcp-only", "--no-cache", "--repo"])
        .arg(&repo)
        .env("XDG_RUNTIME_DIR", &runtime_dir)
        .env("HOME", &runtime_dir)
        .env("CODEGRAPH_LOG", "warn");
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = tokio::spawn(async move {
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stderr.unwrap(), &mut text)
            .await
            .unwrap();
        text
    });
    let client = connect(transport).await;
    assert_eq!(
        callers(&client, FACTORIAL).await,
        ["shop/app/main.py::main", FACTORIAL]
    );

    let write = |path: &str, function: &str| {
        std::fs::write(
            repo.join(path),
            format!("from shop.util.math import factorial\n\n\ndef {function}():\n    return factorial(4)\n"),
        )
        .unwrap();
        if nix::unistd::geteuid().is_root() {
            std::os::unix::fs::chown(repo.join(path), Some(65534), Some(65534)).unwrap();
        }
    };
    write("shop/extra.py", "on_disk");
    wait_for_callers(
        &client,
        |seen| {
            seen == [
                "shop/app/main.py::main",
                "shop/extra.py::on_disk",
                FACTORIAL,
            ]
        },
        "a new file next to an unreadable directory",
    )
    .await;
    // A directory made while serving is watched too: a file written into it later is seen.
    std::fs::create_dir(repo.join("shop/later")).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    write("shop/later/late.py", "late");
    wait_for_callers(
        &client,
        |seen| {
            seen == [
                "shop/app/main.py::main",
                "shop/extra.py::on_disk",
                "shop/later/late.py::late",
                FACTORIAL,
            ]
        },
        "a file in a directory made while serving",
    )
    .await;
    // Events at the loop and the locked directory are logged once each, however many come.
    for _ in 0..3 {
        let _ =
            std::fs::set_permissions(repo.join("locked"), std::fs::Permissions::from_mode(0o000));
        let _ = std::fs::remove_file(repo.join("shop/loop"));
        std::os::unix::fs::symlink("..", repo.join("shop/loop")).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    client.cancel().await.unwrap();
    std::fs::set_permissions(repo.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let stderr = stderr.await.unwrap();
    let lines = |needles: &[&str]| {
        stderr
            .lines()
            .filter(|line| needles.iter().all(|needle| line.contains(needle)))
            .count()
    };
    assert_eq!(lines(&["not watching the file system"]), 0, "{stderr}");
    assert_eq!(lines(&["file watcher", "locked"]), 1, "{stderr}");
    assert_eq!(lines(&["file watcher", "shop/loop"]), 1, "{stderr}");
}
