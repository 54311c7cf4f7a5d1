//! The MCP door, driven by an rmcp client over an in-memory pipe, on a temp copy of
//! fixtures/python (so the fixture is never written and escape targets can sit next to it).

use std::path::PathBuf;
use std::sync::Arc;

use codegraph::mcp::CodegraphMcp;
use codegraph::mcp::toolset::ToolSet;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::service::ServiceError;
use serde_json::{Value, json};

use crate::cache::copy_tree;
use crate::support::fixture;
use crate::support::mcp::{McpSession, McpSetup, indexed_world};

/// A session on a temp copy of fixtures/python.
async fn start() -> McpSession {
    McpSetup::copy_of("python").start().await
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_string())
        .collect()
}

const AUTHENTICATE: &str = "shop/auth/service.py::AuthService.authenticate";
const AUTHENTICATOR: &str = "shop/auth/service.py::Authenticator";

fn authenticate_source(session: &McpSession) -> String {
    let text =
        std::fs::read_to_string(session.dir.path().join("repo/shop/auth/service.py")).unwrap();
    let class = text.find("class AuthService").unwrap();
    let start = class + text[class..].find("    def authenticate").unwrap() + 4;
    let rest = &text[start..];
    // The method ends where the next definition at its indentation starts (or the file ends).
    let end = rest[1..]
        .find("\n    def ")
        .map_or(rest.len(), |offset| offset + 1);
    rest[..end].trim_end().to_string()
}

#[tokio::test]
async fn ambiguous_and_unknown_names_fail_with_candidates() {
    let session = start().await;
    let error = session
        .error("find_callers", json!({ "entity_id": "format_name" }))
        .await;
    assert_eq!(
        ids(&error["candidates"]),
        [
            "shop/report/format.py::format_name",
            "shop/util/format.py::format_name"
        ]
    );
    let error = session
        .error("get_code_snippet", json!({ "entity_id": "authentcate" }))
        .await;
    assert_eq!(error["error"], "Entity not found");
    assert!(
        error["closest"]
            .as_array()
            .unwrap()
            .contains(&json!("authenticate"))
    );
}

#[tokio::test]
async fn code_snippet_is_exactly_the_source() {
    let session = start().await;
    let result = session
        .ok(
            "get_code_snippet",
            json!({ "entity_id": AUTHENTICATE, "include_context": true, "context_lines": 2 }),
        )
        .await;
    let expected = authenticate_source(&session);
    assert_eq!(result["source"].as_str().unwrap().trim_end(), expected);
    assert!(
        result["context"]["text"]
            .as_str()
            .unwrap()
            .contains(&expected)
    );
}

#[tokio::test]
async fn read_file_content_stays_inside_the_workspace() {
    let session = start().await;
    let outside = session.dir.path().join("repo-evil");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        outside.join("secret.txt"),
        session.dir.path().join("repo/link.txt"),
    )
    .unwrap();

    let result = session
        .ok(
            "read_file_content",
            json!({ "file_path": "shop/util/math.py", "start_line": 1, "end_line": 2 }),
        )
        .await;
    let text = std::fs::read_to_string(session.dir.path().join("repo/shop/util/math.py")).unwrap();
    let first_two: String = text.split_inclusive('\n').take(2).collect();
    assert_eq!(result["content"], first_two);
    assert_eq!(result["lines"], "1-2");
    assert_eq!(result["truncated"], false);

    let sibling = outside.join("secret.txt").display().to_string();
    let through_root = format!(
        "{}/../repo-evil/secret.txt",
        session.dir.path().join("repo").display()
    );
    for path in [
        "../x",
        "../repo-evil/secret.txt",
        "/etc/passwd",
        &sibling,
        &through_root,
        "link.txt",
    ] {
        let error = session
            .error("read_file_content", json!({ "file_path": path }))
            .await;
        assert_eq!(error["error"], "Access denied", "{path}: {error}");
    }
}

#[tokio::test]
async fn other_tools_answer_from_the_graph() {
    let session = start().await;
    let structure = session
        .ok(
            "get_file_structure",
            json!({ "file_path": "shop/auth/service.py" }),
        )
        .await;
    let names: Vec<String> = ids(&structure["entities"]);
    assert!(names.contains(&AUTHENTICATE.to_string()));
    let module = session
        .ok(
            "analyze_module_structure",
            json!({ "module_path": "shop/auth/service.py" }),
        )
        .await;
    assert!(
        module["dependents"]
            .as_array()
            .unwrap()
            .contains(&json!("shop/app/main.py"))
    );
    assert_eq!(
        module["exported_api"],
        json!([{
            "id": "shop/auth/service.py::AuthService",
            "name": "AuthService",
            "type": "class",
            "qualified_name": "shop.auth.service.AuthService",
            "file_path": "shop/auth/service.py",
            "start_line": 18,
            "end_line": 30,
            "signature": "class AuthService(Authenticator):",
            "references": 3,
            "used_by": ["shop/app/main.py"],
        }])
    );
    assert_eq!(
        ids(&module["unused_exports"]),
        ["shop/auth/service.py::Authenticator"]
    );
    assert_eq!(module["metrics"]["fan_out"], 2);
    assert_eq!(module["metrics"]["in_import_cycle"], false);
    assert_eq!(
        module["metrics"]["most_complex"],
        "shop/auth/service.py::AuthService.authenticate"
    );
    let dependencies = session
        .ok(
            "find_dependencies",
            json!({ "entity_name": AUTHENTICATE, "direction": "downstream", "depth": 1 }),
        )
        .await;
    let reached = ids(&dependencies["entities"]);
    assert!(reached.contains(&"shop/models.py::User".to_string()));
    assert!(reached.contains(&"shop/auth/tokens.py::issue_token".to_string()));
    let found = session
        .ok(
            "query_codebase",
            json!({ "query": "AuthService", "scope": "classes" }),
        )
        .await;
    assert_eq!(
        found["entities"][0]["id"],
        "shop/auth/service.py::AuthService"
    );
    let reindexed = session
        .ok("reindex_repository", json!({ "incremental": false }))
        .await;
    assert!(reindexed["files"].as_u64().unwrap() > 0);
    // Without `--allow-shell` the shell tool is not listed, and a call of it is refused.
    let tools = session.client.list_all_tools().await.unwrap();
    assert!(
        tools
            .iter()
            .all(|tool| tool.name != "execute_shell_command")
    );
    let refused = session
        .client
        .call_tool(
            CallToolRequestParams::new("execute_shell_command")
                .with_arguments(json!({ "command": "ls" }).as_object().unwrap().clone()),
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
}

#[tokio::test]
async fn analysis_tools_answer_from_search_and_communities() {
    let session = start().await;
    let found = session
        .ok(
            "query_codebase",
            json!({ "query": "authentication handler", "max_results": 3 }),
        )
        .await;
    // The name that says "authentication" and nothing more (see `plain_words_find_entities`).
    assert_eq!(found["entities"][0]["id"], AUTHENTICATOR);
    assert_eq!(found["entities"][0]["relevance"], 1.0);

    let global = session
        .ok(
            "global_search",
            json!({ "query": "how does authentication work" }),
        )
        .await;
    assert_eq!(global["supporting_entities"][0]["id"], AUTHENTICATOR);
    let community = global["relevant_communities"][0]["id"].as_u64().unwrap();
    assert!(
        global["answer"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Most relevant: community #{community}"))
    );
    let resource: Value = serde_json::from_str(
        session
            .read(&format!("codegraph://communities/{community}"))
            .await
            .unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(resource["community"]["id"], community);
    assert!(ids(&resource["members"]).contains(&AUTHENTICATE.to_string()));
    assert!(session.read("codegraph://communities/99999").await.is_err());

    let local = session
        .ok(
            "local_search",
            json!({ "query": "token", "entity_name": AUTHENTICATE, "depth": 1 }),
        )
        .await;
    assert_eq!(local["start_entity"], AUTHENTICATE);
    assert_eq!(
        local["relevant_entities"][0]["id"],
        "shop/auth/tokens.py::issue_token"
    );
    assert_eq!(local["relevant_entities"][0]["relation"], "calls");

    let refactoring = session
        .ok(
            "suggest_refactoring",
            json!({ "entity_name": "shop/report/format.py::format_name", "type": "remove" }),
        )
        .await;
    assert_eq!(refactoring["suggestions"][0]["type"], "remove");
    let unknown = session
        .error(
            "suggest_refactoring",
            json!({ "entity_id": AUTHENTICATE, "type": "rewrite" }),
        )
        .await;
    assert_eq!(unknown["error"], "Unknown refactoring type");
}

#[tokio::test]
async fn protocol_errors_for_unknown_tools_bad_arguments_and_unknown_resources() {
    let session = start().await;
    let code_of = |error: ServiceError| match error {
        ServiceError::McpError(data) => data.code,
        other => panic!("not an MCP error: {other}"),
    };
    // rmcp reports arguments that do not deserialize as an isError result (so the model can
    // correct itself, as the MCP spec now recommends), not as -32602.
    let bad = session
        .call(
            "find_callers",
            json!({ "entity_id": "main", "max_depth": "deep" }),
        )
        .await;
    assert_eq!(bad.is_error, Some(true));
    assert!(
        bad.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("failed to deserialize parameters")
    );
    let unknown = session
        .client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(unknown.is_err() || unknown.unwrap().is_error == Some(true));
    let missing = session.read("codegraph://nothing").await.unwrap_err();
    assert_eq!(code_of(missing), ErrorCode::RESOURCE_NOT_FOUND);
}

#[tokio::test]
async fn resources_list_and_read() {
    let session = start().await;
    let listed: Vec<String> = session
        .client
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|resource| resource.uri.clone())
        .collect();
    assert_eq!(
        listed,
        [
            "codegraph://stats",
            "codegraph://guide",
            "codegraph://rules"
        ]
    );
    let templates: Vec<String> = session
        .client
        .list_all_resource_templates()
        .await
        .unwrap()
        .into_iter()
        .map(|template| template.uri_template.clone())
        .collect();
    assert_eq!(
        templates,
        [
            "codegraph://entities/{entity_id}",
            "codegraph://communities/{community_id}",
            "codegraph://files/{file_path}",
        ]
    );

    let stats: Value = serde_json::from_str(
        session.read("codegraph://stats").await.unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(stats["statistics"]["languages"], json!(["python"]));
    assert!(stats["relations_by_type"]["calls"].as_u64().unwrap() > 0);

    let entity: Value = serde_json::from_str(
        session
            .read(&format!("codegraph://entities/{AUTHENTICATE}"))
            .await
            .unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        entity["entity"]["source_code"].as_str().unwrap().trim_end(),
        authenticate_source(&session)
    );
    assert_eq!(
        ids(&entity["relations"]["callers"]),
        ["shop/app/main.py::main"]
    );

    let file: Value = serde_json::from_str(
        session
            .read("codegraph://files/shop%2Fauth%2Fservice.py")
            .await
            .unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert!(ids(&file["entities"]).contains(&AUTHENTICATE.to_string()));

    let guide = session.read("codegraph://guide").await.unwrap();
    assert!(
        guide["text"]
            .as_str()
            .unwrap()
            .contains("path/to/file.ext::Nested.name")
    );
}

#[tokio::test]
async fn prompts_carry_source_and_callers() {
    let session = start().await;
    let source = authenticate_source(&session);
    for (name, arguments) in [
        (
            "code_review",
            json!({ "entity_id": AUTHENTICATE, "focus": "security" }),
        ),
        ("refactor_guidance", json!({ "entity_id": AUTHENTICATE })),
        ("test_generation", json!({ "entity_id": AUTHENTICATE })),
        (
            "implement_feature",
            json!({ "description": "two-factor login", "related_entities": AUTHENTICATE }),
        ),
        (
            "debug_issue",
            json!({ "error_message": "KeyError in AuthService.authenticate" }),
        ),
    ] {
        let text = session.prompt(name, arguments).await;
        assert!(text.contains(&source), "{name} lacks the source:\n{text}");
        assert!(
            text.contains("shop/app/main.py::main"),
            "{name} lacks the caller:\n{text}"
        );
    }
    let tests = session
        .prompt("test_generation", json!({ "entity_id": AUTHENTICATE }))
        .await;
    assert!(tests.contains("pytest"));
    let overview = session.prompt("explain_codebase", json!({})).await;
    assert!(overview.contains("shop/auth/service.py"));
}

/// An unknown entity id of 32 KiB (closest-name matching would cost time quadratic in it) is
/// refused for its length, with a message saying the limit; a name at the limit is still
/// matched.
#[tokio::test]
async fn an_overlong_entity_name_is_refused_before_any_matching() {
    let session = start().await;
    let long = "a".repeat(32 * 1024);
    for tool in ["find_callers", "get_code_snippet", "find_callees"] {
        let error = session.error(tool, json!({ "entity_id": long })).await;
        assert_eq!(error["error"], "Entity name too long", "{tool}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("32768 bytes is not an entity id, and names are matched up to 256 bytes"),
            "{error}"
        );
    }
    let at_limit = format!("authenticate{}", "x".repeat(256 - "authenticate".len()));
    let error = session
        .error("get_code_snippet", json!({ "entity_id": at_limit }))
        .await;
    assert_eq!(error["error"], "Entity not found");
}

/// A 1 GiB sparse file in the repository: `read_file_content` decides it is binary from its
/// first 8 KiB, and a text file larger than the read limit is cut, not read whole.
#[tokio::test]
async fn binary_detection_and_disk_reads_are_bounded() {
    let session = start().await;
    let repo = session.dir.path().join("repo");
    let sparse = std::fs::File::create(repo.join("huge.dat")).unwrap();
    sparse.set_len(1 << 30).unwrap();
    let error = session
        .error("read_file_content", json!({ "file_path": "huge.dat" }))
        .await;
    assert_eq!(error["error"], "Binary file");

    let line = "# a line of text, repeated\n";
    let text = line.repeat((17 * 1024 * 1024) / line.len());
    std::fs::write(repo.join("big.txt"), &text).unwrap();
    let (bytes, cut) =
        codegraph::world::walk::read_prefix(&repo.join("big.txt"), 1024 * 1024).unwrap();
    assert!(cut);
    assert_eq!(bytes, text.as_bytes()[..1024 * 1024]);
    let refusal = codegraph::world::walk::read_prefix(&repo.join("huge.dat"), 1024)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(refusal.to_string(), "binary file");
    // A FIFO would block a reader until someone writes to it.
    nix::unistd::mkfifo(&repo.join("pipe.py"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let refusal = codegraph::world::walk::read_prefix(&repo.join("pipe.py"), 1024)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(refusal.to_string(), "not a regular file");
    let error = session
        .error("read_file_content", json!({ "file_path": "pipe.py" }))
        .await;
    assert_eq!(error["error"], "File not found", "{error}");
}

/// Two spellings of one argument agree or are refused by name; `direction` speaks
/// incoming/outgoing too; line numbers out of range are errors; every tool is annotated.
#[tokio::test]
async fn forgiving_precise_arguments_and_tool_annotations() {
    let session = start().await;
    let both = session
        .ok(
            "query_codebase",
            json!({ "query": "authenticate", "max_results": 2, "limit": 2 }),
        )
        .await;
    let plain = session
        .ok(
            "query_codebase",
            json!({ "query": "authenticate", "limit": 2 }),
        )
        .await;
    assert_eq!(both, plain);
    let conflict = session
        .error(
            "query_codebase",
            json!({ "query": "authenticate", "max_results": 2, "limit": 5 }),
        )
        .await;
    assert_eq!(conflict["error"], "Conflicting arguments");
    assert_eq!(
        conflict["message"],
        "`limit` and `max_results` name the same argument and differ (5 vs 2): give one"
    );

    for (alias, canonical) in [("outgoing", "downstream"), ("incoming", "upstream")] {
        let by_alias = session
            .ok(
                "find_dependencies",
                json!({ "entity_id": AUTHENTICATE, "direction": alias }),
            )
            .await;
        let by_name = session
            .ok(
                "find_dependencies",
                json!({ "entity_id": AUTHENTICATE, "direction": canonical }),
            )
            .await;
        assert_eq!(by_alias, by_name, "{alias}");
        assert!(
            !by_alias["entities"].as_array().unwrap().is_empty(),
            "{alias}"
        );
    }

    let file = "shop/auth/service.py";
    let past = session
        .error(
            "read_file_content",
            json!({ "file_path": file, "start_line": 100000 }),
        )
        .await;
    assert_eq!(past["error"], "Line out of range");
    let reversed = session
        .error(
            "read_file_content",
            json!({ "file_path": file, "start_line": 5, "end_line": 2 }),
        )
        .await;
    assert_eq!(reversed["message"], "start_line 5 is after end_line 2");
    let clamped = session
        .ok(
            "read_file_content",
            json!({ "file_path": file, "start_line": 1, "end_line": 100000 }),
        )
        .await;
    let total = clamped["total_lines"].as_u64().unwrap();
    assert_eq!(clamped["lines"], format!("1-{total}"));

    let tools = session.client.list_all_tools().await.unwrap();
    for tool in &tools {
        let annotations = tool
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{}", tool.name));
        let writes = matches!(&*tool.name, "reindex_repository" | "execute_shell_command");
        assert_eq!(annotations.read_only_hint, Some(!writes), "{}", tool.name);
        assert_eq!(
            annotations.open_world_hint,
            Some(tool.name == "execute_shell_command"),
            "{}",
            tool.name
        );
    }
    // Every tool but the shell's, not enabled here.
    assert_eq!(tools.len(), 15);
}

/// Callers and callees carry their provenance: the graph revision, each edge's resolution,
/// the files with unsaved editor edits, and the ambiguous references left aside ("none proven"
/// reads differently from "none").
#[tokio::test]
async fn callers_and_callees_say_what_they_rest_on() {
    let files = [
        ("a.py", "class A:\n    def process(self):\n        pass\n"),
        ("b.py", "class B:\n    def process(self):\n        pass\n"),
        ("run.py", "def run(thing):\n    thing.process()\n"),
    ];
    let session = McpSetup::copy_of("python")
        .files(files.map(|(name, text)| (format!("shop/extra/{name}"), text.to_string())))
        .start()
        .await;

    let callers = session
        .ok(
            "find_callers",
            json!({ "entity_id": "shop/extra/a.py::A.process" }),
        )
        .await;
    assert_eq!(callers["callers"], json!([]));
    assert_eq!(
        callers["provenance"]["possible"],
        json!([{
            "from": "shop/extra/run.py::run",
            "file_path": "shop/extra/run.py",
            "line": 2,
            "name": "process",
            "candidates": ["shop/extra/a.py::A.process", "shop/extra/b.py::B.process"],
            "candidates_total": 2,
            "reason": "ambiguous",
        }])
    );
    assert_eq!(callers["provenance"]["possible_total"], 1);
    assert_eq!(callers["provenance"]["unsaved_files"], json!([]));
    assert_eq!(callers["provenance"]["stale_files"], json!([]));
    let revision = callers["provenance"]["revision"].as_u64().unwrap();

    let callees = session
        .ok(
            "find_callees",
            json!({ "entity_id": "shop/extra/run.py::run" }),
        )
        .await;
    assert_eq!(callees["callees"], json!([]));
    assert_eq!(callees["provenance"]["possible"][0]["name"], "process");

    // An unsaved edit in the editor: `run` now builds an A, so the call is proven.
    session.world.open_buffer(
        "shop/extra/run.py",
        1,
        "from shop.extra.a import A\n\ndef run(thing):\n    A().process()\n".to_string(),
    );
    let callers = session
        .ok(
            "find_callers",
            json!({ "entity_id": "shop/extra/a.py::A.process" }),
        )
        .await;
    let found: Vec<(String, String)> = callers["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|caller| {
            (
                caller["id"].as_str().unwrap().to_string(),
                caller["resolution"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "shop/extra/run.py::run".to_string(),
            "receiver_type".to_string()
        )]
    );
    assert_eq!(callers["provenance"]["possible"], json!([]));
    assert_eq!(
        callers["provenance"]["unsaved_files"],
        json!(["shop/extra/run.py"])
    );
    assert!(callers["provenance"]["revision"].as_u64().unwrap() > revision);
}

/// One request written by hand on a fresh connection (`Connection: close`): the status and
/// the body of the answer, which is read to the end. `target` is the request line's target,
/// in origin form (`/mcp`) or absolute form (`http://host:port/mcp`).
fn raw_http(port: u16, target: &str, host: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    .to_string();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "POST {target} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    // A stream that stays open (an event stream) ends the read by the timeout: what came is kept.
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).to_string();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_string());
    (status, body)
}

/// A request in absolute form (RFC 9112 §3.2.2) names its host in the request target, which an
/// origin server uses instead of `Host`: that authority passes the same allow-list as `Host`
/// (DNS-rebinding protection), so an allowed `Host` does not carry a foreign target through,
/// and a target whose authority is allowed is served as in origin form.
#[tokio::test(flavor = "multi_thread")]
async fn an_absolute_form_target_must_name_an_allowed_host() {
    use codegraph::mcp::http::{HttpOptions, bind, serve};
    let dir = tempfile::tempdir().unwrap();
    let repo: PathBuf = dir.path().join("repo");
    copy_tree(&fixture("python"), &repo);
    let world = indexed_world(&repo);
    let options = HttpOptions {
        host: std::net::Ipv4Addr::LOCALHOST.into(),
        port: 0,
        tokens: None,
        extra_hosts: Vec::new(),
    };
    let listener = bind(&options).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn({
        let shutdown = shutdown.clone();
        let server = CodegraphMcp::new(Arc::new(world)).with_tools(ToolSet::all());
        async move { serve(listener, server, &options, shutdown).await }
    });
    let ask = move |target: String, host: String| {
        tokio::task::spawn_blocking(move || raw_http(port, &target, &host))
    };
    let allowed = format!("127.0.0.1:{port}");

    for target in [
        "http://evil.example/mcp".to_string(),
        format!("http://evil.example:{port}/mcp"),
        format!("http://user@127.0.0.1:{port}/mcp"),
        "http://127.0.0.1/mcp".to_string(),
    ] {
        let (status, body) = ask(target.clone(), allowed.clone()).await.unwrap();
        assert_eq!(status, 403, "{target}: {body}");
        assert_eq!(
            serde_json::from_str::<Value>(&body).unwrap(),
            json!({"error": "Forbidden: Host not allowed"}),
            "{target}"
        );
    }
    for target in [
        "/mcp".to_string(),
        format!("http://127.0.0.1:{port}/mcp"),
        format!("http://LOCALHOST:{port}/mcp"),
    ] {
        let (status, body) = ask(target.clone(), allowed.clone()).await.unwrap();
        assert_eq!(status, 200, "{target}: {body}");
        assert!(body.contains("\"serverInfo\""), "{target}: {body}");
    }
    shutdown.cancel();
    server.await.unwrap().unwrap();
}

/// The default set: six tools whose definitions the model sees in under 6 KB, instructions
/// that name only those, and the other tools refused.
#[tokio::test]
async fn the_default_set_is_six_tools_in_a_few_kilobytes() {
    let session = McpSetup::copy_of("python")
        .server(|server| server.with_tools(ToolSet::default()))
        .start()
        .await;
    let tools = session.client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "find_affected_tests",
            "find_callees",
            "find_callers",
            "find_implementations",
            "get_code_snippet",
            "query_codebase"
        ]
    );
    let visible: Vec<Value> = tools
        .iter()
        .map(|tool| json!([tool.name, tool.description, tool.input_schema]))
        .collect();
    let bytes = serde_json::to_string(&visible).unwrap().len();
    assert!(bytes <= 6 * 1024, "{bytes} bytes");
    let instructions = session
        .client
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap();
    assert!(instructions.contains("`find_callers`"), "{instructions}");
    assert!(!instructions.contains("`global_search`"), "{instructions}");
    let refused = session
        .client
        .call_tool(
            CallToolRequestParams::new("global_search")
                .with_arguments(json!({"query": "auth"}).as_object().unwrap().clone()),
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
}

/// A method calling through an interface-typed field: its callees are the interface's method
/// and, as `dispatch`, the implementations that call may run; each implementation's callers
/// include the method, through the interface.
#[tokio::test]
async fn callees_through_an_interface_typed_field_include_its_implementations() {
    let files = [
        (
            "repo.ts",
            "export interface Repository {\n  save(item: string): void;\n}\n\n\
             export class SqlRepository implements Repository {\n  save(item: string): void {}\n}\n\n\
             export class MemoryRepository implements Repository {\n  save(item: string): void {}\n}\n",
        ),
        (
            "service.ts",
            "import { Repository } from \"./repo\";\n\nexport class Service {\n  \
             private repo: Repository;\n\n  constructor(repo: Repository) {\n    this.repo = repo;\n  }\n\n  \
             store(item: string): void {\n    this.repo.save(item);\n  }\n}\n",
        ),
    ];
    let session = McpSetup::copy_of("python")
        .files(files.map(|(name, text)| (format!("web/{name}"), text.to_string())))
        .start()
        .await;
    let callees = session
        .ok(
            "find_callees",
            json!({"entity_id": "web/service.ts::Service.store"}),
        )
        .await;
    let mut found: Vec<(String, String)> = callees["callees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|callee| {
            let text = |field: &str| callee[field].as_str().unwrap().to_string();
            (text("id"), text("resolution"))
        })
        .collect();
    found.sort();
    let dispatch = |id: &str| (id.to_string(), "dispatch".to_string());
    assert_eq!(
        found,
        [
            dispatch("web/repo.ts::MemoryRepository.save"),
            dispatch("web/repo.ts::Repository.save"),
            dispatch("web/repo.ts::SqlRepository.save"),
        ]
    );
    let callers = session
        .ok(
            "find_callers",
            json!({"entity_id": "web/repo.ts::SqlRepository.save"}),
        )
        .await;
    assert_eq!(ids(&callers["callers"]), ["web/service.ts::Service.store"]);
}

/// `context_lines` lines before and after the entity, in `context`; `source` is the entity's.
#[tokio::test]
async fn a_snippet_has_the_context_lines_asked_for() {
    let session = start().await;
    let entity = "shop/auth/service.py::AuthService.authenticate";
    for around in [0u64, 1, 3] {
        let snippet = session
            .ok(
                "get_code_snippet",
                json!({"entity_id": entity, "context_lines": around}),
            )
            .await;
        let start = snippet["start_line"].as_u64().unwrap();
        let end = snippet["end_line"].as_u64().unwrap();
        let context = &snippet["context"];
        assert_eq!(context["start_line"].as_u64(), Some(start - around));
        assert_eq!(context["end_line"].as_u64(), Some(end + around));
        let lines = context["text"].as_str().unwrap().lines().count() as u64;
        assert_eq!(lines, end - start + 1 + 2 * around, "{context}");
        let source = snippet["source"].as_str().unwrap().lines().count() as u64;
        assert_eq!(source, end - start + 1);
    }
}
