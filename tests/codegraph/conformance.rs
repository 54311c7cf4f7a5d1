//! The conformance table: every language's fixture through the doors. What the graph holds
//! (checked by `fixtures.rs` against `expected.txt`) must come out of the LSP door and the CLI
//! unchanged: a door must not drop a definition, a container, a caller or an implementation.
//!
//! For each fixture, with the real binary:
//! - `textDocument/documentSymbol` of every file lists exactly the graph's definitions of that
//!   file, each nested under its parent (namespaces, modules, classes, impl blocks included);
//! - every `calls A -> B` line of `expected.txt` whose ends are callable: the call hierarchy
//!   prepared on B's name lists A among the incoming calls, prepared on A lists B among the
//!   outgoing calls; a `!calls A -> B` line: B is not among A's outgoing calls (A may be among
//!   B's incoming calls only as a dispatch: a call of an override or implementation of B);
//! - every `extends`/`implements A -> B` line: `textDocument/implementation` on B's name
//!   includes A; every `implementations X = A B ...` line: it shows exactly A, B, ...;
//! - `workspace/symbol` on each definition's name finds it at its place;
//! - `codegraph callers B --json` lists A for every positive `calls` line;
//! - over MCP (an rmcp client in process): `find_callers` of B lists A, `find_callees` of A
//!   lists B (for a `!calls` line: `find_callees` of A does not list B, and `find_callers` of B
//!   lists A only with the resolution `dispatch`), `find_implementations` of X lists exactly
//!   what `implementations X = ...` says.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use codegraph::graph::{Entity, Graph};
use codegraph::model::EntityKind;
use serde_json::{Value, json};

use crate::lsp::{LspClient, uri};
use crate::support;

/// One `kind A -> B` line of `expected.txt`.
struct Expectation {
    negated: bool,
    kind: String,
    from: String,
    to: String,
}

fn expectations(root: &Path) -> Vec<Expectation> {
    let text = std::fs::read_to_string(root.join("expected.txt")).expect("expected.txt");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let (negated, rest) = match line.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.as_slice() {
                [kind, from, "->", to] => Some(Expectation {
                    negated,
                    kind: kind.to_string(),
                    from: from.to_string(),
                    to: to.to_string(),
                }),
                _ => None,
            }
        })
        .collect()
}

/// The `implementations X = A B ...` lines: X and exactly what implements it.
fn implementation_lines(root: &Path) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(root.join("expected.txt")).expect("expected.txt");
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("implementations "))
        .map(|rest| {
            let (target, listed) = rest.split_once(" = ").unwrap_or((rest, ""));
            (
                target.trim().to_string(),
                listed.split_whitespace().map(str::to_string).collect(),
            )
        })
        .collect()
}

/// A definition as a door shows it: the names of its containers and its own, and its line.
fn outline_key(names: &[String], line: u64) -> String {
    format!("{} @{}", names.join("/"), line + 1)
}

fn graph_outline(graph: &Graph, path: &str) -> BTreeSet<String> {
    let entities = graph.file_entities(path);
    let by_id: BTreeMap<&str, &Entity> = entities
        .iter()
        .map(|entity| (&*entity.id, entity))
        .collect();
    let file_module = &entities[0].id;
    entities
        .iter()
        .filter(|entity| entity.id != *file_module)
        .map(|entity| {
            let mut names = vec![entity.name.to_string()];
            let mut parent = entity.parent.as_deref();
            while let Some(id) = parent.filter(|id| *id != &**file_module) {
                let Some(container) = by_id.get(id) else {
                    break;
                };
                names.insert(0, container.name.to_string());
                parent = container.parent.as_deref();
            }
            outline_key(&names, entity.name_span.start.line as u64)
        })
        .collect()
}

fn lsp_outline(symbols: &Value, containers: &[String], into: &mut BTreeSet<String>) {
    for symbol in symbols.as_array().into_iter().flatten() {
        let mut names = containers.to_vec();
        names.push(symbol["name"].as_str().unwrap_or("?").to_string());
        let line = symbol["selectionRange"]["start"]["line"]
            .as_u64()
            .unwrap_or(u64::MAX);
        into.insert(outline_key(&names, line));
        lsp_outline(&symbol["children"], &names, into);
    }
}

fn entity(graph: &Graph, id: &str) -> Entity {
    let (path, _) = id.split_once("::").unwrap_or((id, ""));
    graph
        .file_entities(path)
        .into_iter()
        .find(|entity| &*entity.id == id)
        .unwrap_or_else(|| panic!("{id} is not in the graph"))
}

fn ids(calls: &Value, side: &str) -> BTreeSet<String> {
    calls
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|call| call[side]["data"]["id"].as_str().map(str::to_string))
        .collect()
}

/// The call hierarchy item of `target`, prepared at its name.
fn call_item(client: &mut LspClient, root: &Path, target: &Entity) -> Option<Value> {
    let items = client.at(
        "textDocument/prepareCallHierarchy",
        &root.join(&*target.file_path),
        target.name_span.start.line,
        target.name_span.start.column,
    );
    items
        .as_array()?
        .iter()
        .find(|item| item["data"]["id"].as_str() == Some(&*target.id))
        .cloned()
}

fn check_fixture(name: &str) -> Vec<String> {
    let root = support::fixture(name);
    let (world, graph) = support::index(&root);
    let world = std::sync::Arc::new(world);
    let (mut client, _) = LspClient::start(&[&root], true);
    let mut failures = Vec::new();

    let paths: Vec<String> = graph.files().map(|file| file.path.to_string()).collect();
    for path in &paths {
        let expected = graph_outline(&graph, path);
        let symbols = client.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri(&root.join(path))}}),
        );
        let mut shown = BTreeSet::new();
        lsp_outline(&symbols, &[], &mut shown);
        for missing in expected.difference(&shown) {
            failures.push(format!("{name}: documentSymbol of {path} lacks {missing}"));
        }
        for extra in shown.difference(&expected) {
            failures.push(format!("{name}: documentSymbol of {path} adds {extra}"));
        }
        for definition in graph.file_entities(path).iter().skip(1) {
            let found = client.request("workspace/symbol", json!({"query": &*definition.name}));
            let at_place = found.as_array().into_iter().flatten().any(|symbol| {
                symbol["name"] == json!(&*definition.name)
                    && symbol["location"]["uri"] == json!(uri(&root.join(path)))
                    && symbol["location"]["range"]["start"]["line"]
                        == json!(definition.name_span.start.line)
            });
            if !at_place {
                failures.push(format!(
                    "{name}: workspace/symbol {:?} does not find {}",
                    &*definition.name, definition.id
                ));
            }
        }
    }

    for (target, expected) in implementation_lines(&root) {
        let target = entity(&graph, &target);
        let found = client.at(
            "textDocument/implementation",
            &root.join(&*target.file_path),
            target.name_span.start.line,
            target.name_span.start.column,
        );
        let mut shown: Vec<String> = found
            .as_array()
            .into_iter()
            .flatten()
            .map(|location| {
                format!(
                    "{}:{}",
                    location["uri"].as_str().unwrap_or("?"),
                    location["range"]["start"]["line"]
                )
            })
            .collect();
        shown.sort();
        let mut wanted: Vec<String> = expected
            .iter()
            .map(|id| {
                let implementation = entity(&graph, id);
                format!(
                    "{}:{}",
                    uri(&root.join(&*implementation.file_path)),
                    implementation.name_span.start.line
                )
            })
            .collect();
        wanted.sort();
        if shown != wanted {
            failures.push(format!(
                "{name}: implementation of {} shows {shown:?}, expected {wanted:?}",
                target.id
            ));
        }
    }

    for expectation in expectations(&root) {
        let from = entity(&graph, &expectation.from);
        let to = entity(&graph, &expectation.to);
        let line = format!(
            "{}{} {} -> {}",
            if expectation.negated { "!" } else { "" },
            expectation.kind,
            expectation.from,
            expectation.to
        );
        match expectation.kind.as_str() {
            "calls" if from.kind.is_callable() && to.kind.is_callable() => {
                let Some(item) = call_item(&mut client, &root, &to) else {
                    failures.push(format!(
                        "{name}: {line}: no call hierarchy item at the callee"
                    ));
                    continue;
                };
                let incoming_calls = client.incoming(&item);
                // Each caller's detail is where it is, `path:line`, after its container
                // (a class, a function) unless that is the file.
                for call in incoming_calls.as_array().into_iter().flatten() {
                    let caller = call["from"]["data"]["id"].as_str().unwrap_or("?");
                    if let Some(found) = graph.entity(caller) {
                        let place = format!("{}:{}", found.file_path, found.start_line);
                        let container = found
                            .parent
                            .as_deref()
                            .and_then(|parent| graph.entity(parent))
                            .filter(|parent| {
                                parent.kind != EntityKind::Module || parent.parent.is_some()
                            });
                        let want = match container {
                            Some(container) => format!("{} · {place}", container.name),
                            None => place,
                        };
                        if call["from"]["detail"] != json!(want) {
                            failures.push(format!(
                                "{name}: {line}: caller {caller} has detail {}",
                                call["from"]["detail"]
                            ));
                        }
                    }
                }
                // `!calls A -> B`: A does not call B, so B is not among A's outgoing calls.
                // A may still be among B's incoming calls through dispatch (a call of an
                // override or implementation of B, as typescript-language-server lists them).
                let incoming = ids(&incoming_calls, "from");
                if !expectation.negated && !incoming.contains(&expectation.from) {
                    failures.push(format!("{name}: {line}: incoming calls are {incoming:?}"));
                }
                let Some(item) = call_item(&mut client, &root, &from) else {
                    failures.push(format!(
                        "{name}: {line}: no call hierarchy item at the caller"
                    ));
                    continue;
                };
                let outgoing = ids(&client.outgoing(&item), "to");
                if outgoing.contains(&expectation.to) == expectation.negated {
                    failures.push(format!("{name}: {line}: outgoing calls are {outgoing:?}"));
                }
            }
            "extends" | "implements" if !expectation.negated => {
                let found = client.at(
                    "textDocument/implementation",
                    &root.join(&*to.file_path),
                    to.name_span.start.line,
                    to.name_span.start.column,
                );
                let hit = found.as_array().into_iter().flatten().any(|location| {
                    location["uri"] == json!(uri(&root.join(&*from.file_path)))
                        && location["range"]["start"]["line"] == json!(from.name_span.start.line)
                });
                if !hit {
                    failures.push(format!("{name}: {line}: implementations are {found}"));
                }
            }
            _ => {}
        }
    }
    client.shutdown();

    for expectation in expectations(&root) {
        if expectation.kind != "calls" || expectation.negated {
            continue;
        }
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph"))
            .args(["callers", &expectation.to, "--json", "--no-cache", "--repo"])
            .arg(&root)
            .output()
            .expect("codegraph callers runs");
        // The `callers` list, not the references left aside (`possible`) that name ids too.
        let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
        let listed = answer["callers"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|caller| caller["id"] == expectation.from.as_str());
        if !listed {
            failures.push(format!(
                "{name}: codegraph callers {} does not list {}",
                expectation.to, expectation.from
            ));
        }
    }
    failures.extend(check_mcp(name, &root, world));
    failures
}

/// The MCP door: the same expectations through the tools an AI client calls.
fn check_mcp(
    name: &str,
    root: &Path,
    world: std::sync::Arc<codegraph::world::World>,
) -> Vec<String> {
    use rmcp::model::{CallToolRequestParams, ClientConfig};
    use rmcp::{ClientHandler, ServiceExt};

    #[derive(Clone, Default)]
    struct Client;
    impl ClientHandler for Client {
        fn get_info(&self) -> ClientConfig {
            ClientConfig::default()
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (server_side, client_side) = tokio::io::duplex(1 << 20);
        let server = codegraph::mcp::CodegraphMcp::new(world)
            .with_tools(codegraph::mcp::toolset::ToolSet::all());
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let client = Client.serve(client_side).await.expect("MCP session");
        let call = |tool: &'static str, id: String| {
            let client = &client;
            async move {
                let arguments = json!({"entity_id": id});
                let result = client
                    .call_tool(
                        CallToolRequestParams::new(tool.to_string())
                            .with_arguments(arguments.as_object().unwrap().clone()),
                    )
                    .await
                    .expect("tool call");
                result.structured_content.unwrap_or(Value::Null)
            }
        };
        let listed = |value: &Value, field: &str| -> BTreeSet<String> {
            value[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|item| item["id"].as_str().map(str::to_string))
                .collect()
        };
        let mut failures = Vec::new();
        for expectation in expectations(root) {
            if expectation.kind != "calls" {
                continue;
            }
            // A negated expectation allows the caller only as a dispatch (a call of an
            // override or implementation), which the answer must say.
            let answer = call("find_callers", expectation.to.clone()).await;
            let callers = listed(&answer, "callers");
            let direct = answer["callers"].as_array().into_iter().flatten().any(|caller| {
                caller["id"] == expectation.from.as_str() && caller["resolution"] != "dispatch"
            });
            let wrong = if expectation.negated {
                direct
            } else {
                !callers.contains(&expectation.from)
            };
            if wrong {
                failures.push(format!(
                    "{name}: MCP find_callers {} gives {callers:?} ({} expected {}there)",
                    expectation.to,
                    expectation.from,
                    if expectation.negated {
                        "not, or as a dispatch, "
                    } else {
                        ""
                    }
                ));
            }
            let callees = listed(&call("find_callees", expectation.from.clone()).await, "callees");
            if callees.contains(&expectation.to) == expectation.negated {
                failures.push(format!(
                    "{name}: MCP find_callees {} gives {callees:?}",
                    expectation.from
                ));
            }
        }
        for (target, expected) in implementation_lines(root) {
            let found = listed(
                &call("find_implementations", target.clone()).await,
                "implementations",
            );
            let expected: BTreeSet<String> = expected.into_iter().collect();
            if found != expected {
                failures.push(format!(
                    "{name}: MCP find_implementations {target} gives {found:?}, expected {expected:?}"
                ));
            }
        }
        failures
    })
}

#[test]
fn every_fixture_through_the_lsp_door_mcp_and_the_cli() {
    let mut failures = Vec::new();
    for name in support::fixture_names() {
        failures.extend(check_fixture(&name));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
