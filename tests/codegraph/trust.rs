//! Answers an AI can trust and afford, through an rmcp client over an in-memory
//! pipe: every tool's answer carries the trust stamp and matches the tool's `outputSchema`;
//! unsaved and stale files are told apart; a hub's callers come back as a small page that says
//! how to get the rest; large bodies come back as links; completions; older clients get the
//! JSON text instead of structured content.

use std::path::Path;

use codegraph::mcp::shell::ShellPolicy;
use rmcp::model::{ClientConfig, Implementation, ProtocolVersion, Tool};
use serde_json::{Value, json};

use crate::cache::copy_tree;
use crate::support::fixture;
use crate::support::mcp::{McpSession, McpSetup};

/// A temp copy of fixtures/python plus `extra` files, indexed, served (with `echo` allowed to
/// the shell tool) to a client that speaks `version` (`None`: rmcp's default).
async fn start(extra: &[(&str, String)], version: Option<ProtocolVersion>) -> McpSession {
    let mut config = ClientConfig::default();
    if let Some(version) = version {
        config = config.with_protocol_version(version);
    }
    start_as(extra, config).await
}

/// [`start`] for a client configured as `config`.
async fn start_as(extra: &[(&str, String)], config: ClientConfig) -> McpSession {
    McpSetup::copy_of("python")
        .files(
            extra
                .iter()
                .map(|(path, text)| (path.to_string(), text.clone())),
        )
        .server(|server| {
            server.with_shell(ShellPolicy {
                programs: vec!["echo".to_string()],
                supervisor: Some(env!("CARGO_BIN_EXE_codegraph").into()),
            })
        })
        .client(config)
        .start()
        .await
}

const AUTHENTICATE: &str = "shop/auth/service.py::AuthService.authenticate";
const SERVICE: &str = "shop/auth/service.py";

/// One call of every tool, and whether its answer reads `shop/auth/service.py` (`None`: it may).
fn every_tool() -> Vec<(&'static str, Value, Option<bool>)> {
    vec![
        (
            "find_callers",
            json!({"entity_id": AUTHENTICATE}),
            Some(true),
        ),
        (
            "find_callees",
            json!({"entity_id": "shop/app/main.py::main"}),
            Some(true),
        ),
        (
            "find_implementations",
            json!({"entity_id": "shop/auth/service.py::Authenticator"}),
            Some(true),
        ),
        (
            "find_dependencies",
            json!({"entity_id": AUTHENTICATE}),
            Some(true),
        ),
        (
            "get_code_snippet",
            json!({"entity_id": "shop/util/math.py::factorial"}),
            Some(false),
        ),
        (
            "read_file_content",
            json!({"file_path": "shop/util/math.py"}),
            Some(false),
        ),
        (
            "get_file_structure",
            json!({"file_path": SERVICE}),
            Some(true),
        ),
        (
            "analyze_module_structure",
            json!({"file_path": SERVICE}),
            Some(true),
        ),
        (
            "query_codebase",
            json!({"query": "authenticate"}),
            Some(true),
        ),
        ("global_search", json!({"query": "authentication"}), None),
        (
            "local_search",
            json!({"query": "token", "entity_id": AUTHENTICATE}),
            Some(true),
        ),
        (
            "suggest_refactoring",
            json!({"entity_id": AUTHENTICATE}),
            Some(true),
        ),
        (
            "check_architecture",
            json!({"files": [SERVICE]}),
            Some(true),
        ),
        (
            "execute_shell_command",
            json!({"command": "echo hi"}),
            Some(true),
        ),
        ("reindex_repository", json!({}), Some(true)),
        ("find_affected_tests", json!({}), Some(true)),
    ]
}

/// Checks `value` against the JSON Schema `schema` (the subset schemars writes: `type`,
/// `properties`, `required`, `items`, `$ref` into `$defs`, `anyOf`/`oneOf`, `true`); returns
/// the first mismatch as a path.
fn conforms(value: &Value, schema: &Value, root: &Value, path: &str) -> Result<(), String> {
    if schema == &Value::Bool(true) || schema.as_object().is_some_and(|object| object.is_empty()) {
        return Ok(());
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap();
        let target = root["$defs"]
            .get(name)
            .ok_or(format!("{path}: no {reference}"))?;
        return conforms(value, target, root, path);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(choices) = schema.get(key).and_then(Value::as_array) {
            return if choices
                .iter()
                .any(|choice| conforms(value, choice, root, path).is_ok())
            {
                Ok(())
            } else {
                Err(format!("{path}: matches none of {key}"))
            };
        }
    }
    if let Some(kind) = schema.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let fits = kinds.iter().any(|kind| match *kind {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => false,
        });
        if !fits {
            return Err(format!("{path}: {value} is not {kinds:?}"));
        }
    }
    if let Some(object) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let required = required.as_str().unwrap();
            if !object.contains_key(required) {
                return Err(format!("{path}: `{required}` missing"));
            }
        }
        if let Some(properties) = properties {
            for (key, field) in object {
                let Some(field_schema) = properties.get(key) else {
                    return Err(format!("{path}: `{key}` is not in the schema"));
                };
                conforms(field, field_schema, root, &format!("{path}.{key}"))?;
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (index, item) in list.iter().enumerate() {
            conforms(item, items, root, &format!("{path}[{index}]"))?;
        }
    }
    Ok(())
}

fn output_schema(tool: &Tool) -> Value {
    Value::Object(
        tool.output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no outputSchema", tool.name))
            .as_ref()
            .clone(),
    )
}

#[tokio::test]
async fn every_tool_answers_with_the_stamp_in_the_shape_its_output_schema_declares() {
    // Architecture rules, so that `check_architecture` has something to check.
    let rules =
        "[[forbid]]\nname = \"util-is-a-leaf\"\nfrom = \"shop/util/**\"\nto = \"shop/auth/**\"\n";
    let session = start(&[(".codegraph/rules.toml", rules.to_string())], None).await;
    // Committed, so that `find_affected_tests` has a base to compare the editor's text with.
    crate::support::commit_all(&session.repo);
    // An edit in the editor, not saved: every answer that reads the file says so.
    let service = session.repo.join(SERVICE);
    let on_disk = std::fs::read_to_string(&service).unwrap();
    session.world.open_buffer(
        SERVICE,
        1,
        format!("{on_disk}\n\ndef added_in_the_editor():\n    return 1\n"),
    );

    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools/list is in a stable (name) order");
    let calls = every_tool();
    let called: Vec<&str> = calls.iter().map(|(tool, _, _)| *tool).collect();
    assert_eq!(sorted.len(), called.len(), "{sorted:?} vs {called:?}");

    for (tool, arguments, reads_service) in calls {
        let definition = tools.iter().find(|found| found.name == tool).unwrap();
        assert!(definition.annotations.is_some(), "{tool}: no annotations");
        let schema = output_schema(definition);
        let result = session.call(tool, arguments).await;
        assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
        let answer = result
            .structured_content
            .clone()
            .expect("structured content");
        conforms(&answer, &schema, &schema, tool).unwrap_or_else(|error| panic!("{error}"));
        let provenance = &answer["provenance"];
        assert_eq!(
            provenance["revision"].as_u64(),
            Some(session.world.revision()),
            "{tool}"
        );
        let unsaved = &provenance["unsaved_files"];
        match reads_service {
            Some(true) => assert_eq!(unsaved, &json!([SERVICE]), "{tool}"),
            Some(false) => assert_eq!(unsaved, &json!([]), "{tool}"),
            None => assert!(
                unsaved == &json!([]) || unsaved == &json!([SERVICE]),
                "{tool}: {unsaved}"
            ),
        }
        assert_eq!(provenance["stale_files"], json!([]), "{tool}");
        // A client not known to hand the model `structuredContent` gets the whole answer as
        // text too.
        let text = &result.content[0].as_text().expect("a text block").text;
        assert_eq!(
            serde_json::from_str::<Value>(text).ok().as_ref(),
            Some(&answer),
            "{tool}"
        );
    }
}

#[tokio::test]
async fn a_change_on_disk_since_indexing_makes_the_answer_stale_until_a_reindex() {
    let session = start(&[], None).await;
    let math = session.repo.join("shop/util/math.py");
    let text = std::fs::read_to_string(&math).unwrap();
    std::fs::write(
        &math,
        format!("{text}\n\ndef added_on_disk():\n    return 2\n"),
    )
    .unwrap();
    let factorial = json!({"entity_id": "shop/util/math.py::factorial"});
    let callers = session.ok("find_callers", factorial.clone()).await;
    assert_eq!(
        callers["provenance"]["stale_files"],
        json!(["shop/util/math.py"])
    );
    assert_eq!(callers["provenance"]["unsaved_files"], json!([]));
    let snippet = session.ok("get_code_snippet", factorial.clone()).await;
    assert_eq!(
        snippet["provenance"]["stale_files"],
        json!(["shop/util/math.py"])
    );
    // An answer that does not read the file is not stale.
    let elsewhere = session
        .ok("get_file_structure", json!({"file_path": SERVICE}))
        .await;
    assert_eq!(elsewhere["provenance"]["stale_files"], json!([]));

    session.ok("reindex_repository", json!({})).await;
    let callers = session.ok("find_callers", factorial).await;
    assert_eq!(callers["provenance"]["stale_files"], json!([]));
}

/// `shop/hub.py::hub` called from 300 functions in 30 files.
fn hub_files() -> Vec<(&'static str, String)> {
    let mut files = vec![(
        "shop/hub.py",
        "def hub(value):\n    return value\n".to_string(),
    )];
    for file in 0..30 {
        let mut text = String::from("from shop.hub import hub\n");
        for function in 0..10 {
            text.push_str(&format!(
                "\n\ndef caller_{file:02}_{function}():\n    return hub({function})\n"
            ));
        }
        let path: &'static str = Box::leak(format!("shop/callers/c{file:02}.py").into_boxed_str());
        files.push((path, text));
    }
    files
}

#[tokio::test]
async fn a_hub_answers_with_a_small_page_that_says_how_to_get_the_rest() {
    // Claude Code hands the model `structuredContent`: the text is a one-line summary.
    let mut config = ClientConfig::default();
    config.client_info = Implementation::new("claude-code", "2.1.0");
    let session = start_as(&hub_files(), config).await;
    let first = session
        .call("find_callers", json!({"entity_id": "shop/hub.py::hub"}))
        .await;
    let answer = first.structured_content.clone().unwrap();
    let callers = answer["callers"].as_array().unwrap();
    assert_eq!(callers.len(), 25);
    assert_eq!(answer["total"], 300);
    assert_eq!(answer["truncated"], true);
    assert_eq!(answer["next_offset"], 25);
    assert_eq!(
        answer["hint"],
        "showing callers 1-25 of 300; call again with offset 25 for the next 25, or a larger limit (at most 500)"
    );
    // Small: the default answer of a hub stays a few thousand tokens.
    let size = serde_json::to_string(&answer).unwrap().len();
    assert!(size < 16 * 1024, "{size} bytes");
    assert_eq!(
        first.content[0].as_text().unwrap().text,
        format!(
            "find_callers: 25 callers; total 300; truncated, next_offset 25; revision {}; possible 0. The whole answer is in structuredContent.",
            session.world.revision()
        )
    );
    assert_eq!(callers[0]["id"], "shop/callers/c00.py::caller_00_0");
    assert_eq!(callers[0]["resolution"], "import");
    assert_eq!(callers[0]["call_lines"], json!([5]));

    // Every page, in order, gives each caller once.
    let mut seen: Vec<String> = Vec::new();
    let mut offset = 0;
    loop {
        let page = session
            .ok(
                "find_callers",
                json!({"entity_id": "shop/hub.py::hub", "limit": 120, "offset": offset}),
            )
            .await;
        seen.extend(
            page["callers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|caller| caller["id"].as_str().unwrap().to_string()),
        );
        match page["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => {
                assert_eq!(page["truncated"], false);
                break;
            }
        }
    }
    let mut expected: Vec<String> = (0..30)
        .flat_map(|file| {
            (0..10).map(move |function| {
                format!("shop/callers/c{file:02}.py::caller_{file:02}_{function}")
            })
        })
        .collect();
    expected.sort();
    assert_eq!(seen, expected);

    // The other listing tools page the same way.
    let dependencies = session
        .ok(
            "find_dependencies",
            json!({"entity_id": "shop/hub.py::hub", "direction": "incoming", "limit": 7}),
        )
        .await;
    assert_eq!(dependencies["entities"].as_array().unwrap().len(), 7);
    assert_eq!(dependencies["total"], 330);
    assert_eq!(dependencies["next_offset"], 7);
    let module = session
        .ok(
            "analyze_module_structure",
            json!({"file_path": "shop/hub.py", "limit": 4}),
        )
        .await;
    assert_eq!(module["dependents"].as_array().unwrap().len(), 4);
    assert_eq!(module["totals"]["dependents"], 30);
    assert_eq!(module["truncated"], true);
}

#[tokio::test]
async fn a_large_body_comes_back_as_a_link_unless_asked_for() {
    let mut body = String::from("def long_function():\n    total = 0\n");
    for line in 0..400 {
        body.push_str(&format!("    total += {line}\n"));
    }
    body.push_str("    return total\n");
    let mut big_file = String::new();
    for line in 0..2500 {
        big_file.push_str(&format!("# line {}\n", line + 1));
    }
    let session = start(
        &[
            ("shop/long.py", body.clone()),
            ("shop/big.py", big_file.clone()),
        ],
        None,
    )
    .await;
    let entity = json!({"entity_id": "shop/long.py::long_function"});
    let result = session.call("get_code_snippet", entity.clone()).await;
    let answer = result.structured_content.clone().unwrap();
    assert_eq!(answer.get("source"), None);
    let uri = "codegraph://files/shop/long.py#L1-L403";
    assert_eq!(answer["source_uri"], uri);
    assert!(answer["omitted"].as_str().unwrap().contains("403 lines"));
    let link = result.content[1]
        .as_resource_link()
        .expect("a resource link");
    assert_eq!(link.uri, uri);
    assert_eq!(session.read_text(uri).await, body);
    assert_eq!(
        session
            .read_text("codegraph://files/shop/long.py#L2-L3")
            .await,
        "    total = 0\n    total += 0\n"
    );
    let full = session
        .ok(
            "get_code_snippet",
            json!({"entity_id": "shop/long.py::long_function", "full": true}),
        )
        .await;
    assert_eq!(full["source"], body.trim_end());

    let read = session
        .ok("read_file_content", json!({"file_path": "shop/big.py"}))
        .await;
    assert_eq!(read["lines"], "1-1000");
    assert_eq!(read["truncated"], true);
    assert_eq!(read["next_start_line"], 1001);
    assert_eq!(
        read["rest_uri"],
        "codegraph://files/shop/big.py#L1001-L2500"
    );
    let rest = session
        .read_text("codegraph://files/shop/big.py#L1001-L2500")
        .await;
    assert!(rest.starts_with("# line 1001\n") && rest.ends_with("# line 2500\n"));
    let asked = session
        .ok(
            "read_file_content",
            json!({"file_path": "shop/big.py", "start_line": 1, "end_line": 2500}),
        )
        .await;
    assert_eq!(asked["content"], big_file);
    assert_eq!(asked["truncated"], false);
}

#[tokio::test]
async fn left_aside_references_say_why_none_were_proven() {
    let session = start(
        &[
            (
                "shop/cache.py",
                "class Cache:\n    def get(self, key):\n        return key\n".to_string(),
            ),
            (
                "shop/use_cache.py",
                "def lookup(store, key):\n    return store.get(key)\n".to_string(),
            ),
            ("shop/a/base.py", "class Base:\n    pass\n".to_string()),
            ("shop/b/base.py", "class Base:\n    pass\n".to_string()),
            (
                "shop/child.py",
                "class Child(Base):\n    pass\n".to_string(),
            ),
        ],
        None,
    )
    .await;
    // `store.get(key)`: a receiver of unknown type, and `get` is too common to guess.
    let callers = session
        .ok(
            "find_callers",
            json!({"entity_id": "shop/cache.py::Cache.get"}),
        )
        .await;
    assert_eq!(callers["callers"], json!([]));
    assert_eq!(
        callers["provenance"]["possible"],
        json!([{
            "from": "shop/use_cache.py::lookup",
            "file_path": "shop/use_cache.py",
            "line": 2,
            "name": "get",
            "receiver": "store",
            "candidates": ["shop/cache.py::Cache.get"],
            "candidates_total": 1,
            "reason": "unresolved",
        }])
    );
    let callees = session
        .ok(
            "find_callees",
            json!({"entity_id": "shop/use_cache.py::lookup"}),
        )
        .await;
    assert_eq!(callees["provenance"]["possible"][0]["reason"], "unresolved");
    // `class Child(Base)` with two `Base` classes and no import: no edge to either.
    let implementations = session
        .ok(
            "find_implementations",
            json!({"entity_id": "shop/a/base.py::Base"}),
        )
        .await;
    assert_eq!(implementations["implementations"], json!([]));
    assert_eq!(
        implementations["provenance"]["possible"],
        json!([{
            "from": "shop/child.py::Child",
            "file_path": "shop/child.py",
            "line": 1,
            "name": "Base",
            "candidates": ["shop/a/base.py::Base", "shop/b/base.py::Base"],
            "candidates_total": 2,
            "reason": "ambiguous",
        }])
    );
    assert_eq!(implementations["provenance"]["possible_total"], 1);
}

#[tokio::test]
async fn completions_for_prompt_arguments_and_resource_templates() {
    let session = start(&[], None).await;
    let complete_prompt = |prompt: &'static str, argument: &'static str, value: &'static str| {
        session
            .client
            .complete_prompt_argument(prompt, argument, value, None)
    };
    let ids = complete_prompt(
        "code_review",
        "entity_id",
        "shop/auth/service.py::AuthService.",
    )
    .await
    .unwrap();
    assert_eq!(
        ids.values,
        [
            "shop/auth/service.py::AuthService.__init__",
            AUTHENTICATE,
            "shop/auth/service.py::AuthService.hash_password",
        ]
    );
    assert_eq!(ids.total, Some(3));
    assert_eq!(ids.has_more, Some(false));
    let by_name = complete_prompt("test_generation", "entity_id", "hash_pass")
        .await
        .unwrap();
    assert_eq!(
        by_name.values,
        ["shop/auth/service.py::AuthService.hash_password"]
    );
    let depth = complete_prompt("explain_codebase", "depth", "d")
        .await
        .unwrap();
    assert_eq!(depth.values, ["detailed"]);
    let related = complete_prompt(
        "implement_feature",
        "related_entities",
        "shop/models.py, shop/auth/tok",
    )
    .await
    .unwrap();
    assert_eq!(related.values, ["shop/models.py, shop/auth/tokens.py"]);

    let files = session
        .client
        .complete_resource_argument(
            "codegraph://files/{file_path}",
            "file_path",
            "shop/auth/",
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        files.values,
        [
            "shop/auth/__init__.py",
            "shop/auth/service.py",
            "shop/auth/tokens.py"
        ]
    );
    let entities = session
        .client
        .complete_resource_argument(
            "codegraph://entities/{entity_id}",
            "entity_id",
            "shop/util/math.py::",
            None,
        )
        .await
        .unwrap();
    assert_eq!(entities.values, ["shop/util/math.py::factorial"]);
    let communities = session
        .client
        .complete_resource_argument(
            "codegraph://communities/{community_id}",
            "community_id",
            "",
            None,
        )
        .await
        .unwrap();
    let graph = session.world.snapshot();
    let known = session.world.analysis().communities(&graph);
    assert!(!communities.values.is_empty());
    for id in &communities.values {
        let community = known.get(id.parse().unwrap()).unwrap();
        assert!(community.member_count > 1, "{id}");
    }
}

#[tokio::test]
async fn a_client_older_than_structured_content_gets_the_json_text() {
    let session = start(&[], Some(ProtocolVersion::V_2025_03_26)).await;
    let result = session
        .call("find_callers", json!({"entity_id": AUTHENTICATE}))
        .await;
    assert_eq!(result.structured_content, None);
    assert_eq!(result.content.len(), 1);
    let answer: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(answer["callers"][0]["id"], "shop/app/main.py::main");
    assert_eq!(answer["provenance"]["revision"], session.world.revision());
}

/// The paths in a stamp are graph paths, relative to the repository: never absolute.
#[test]
fn stamps_name_files_relative_to_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture("python"), dir.path());
    let (world, graph) = crate::support::index(dir.path());
    std::fs::write(dir.path().join("shop/models.py"), "").unwrap();
    let stamp = world.stamp(&graph, ["shop/models.py"]);
    assert_eq!(
        stamp
            .stale_files
            .iter()
            .map(|file| &**file)
            .collect::<Vec<_>>(),
        ["shop/models.py"]
    );
    assert!(!Path::new(&*stamp.stale_files[0]).is_absolute());
}
