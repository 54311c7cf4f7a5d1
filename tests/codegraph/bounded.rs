//! Bounded work per request, over MCP: a heavy request (the first `global_search` builds the
//! search index and the communities) stops when the client cancels it or its deadline passes,
//! leaving nothing half-built and giving its turn back; a request whose client went away never
//! runs; cheap requests are answered while heavy ones hold every turn of the pool.
//!
//! The repository is generated: 400 Python modules of 25 functions, each calling three
//! functions of other modules (10,000 functions, 30,000 resolved calls), large enough that
//! its communities take far longer than a cancellation takes to arrive.

use std::sync::Arc;
use std::time::{Duration, Instant};

use codegraph::mcp::CodegraphMcp;
use codegraph::world::work::Limits;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest,
};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

use crate::attach::Client;
use crate::support::mcp::{indexed_world, serve_in_memory};

const MODULES: usize = 400;
const FUNCTIONS: usize = 25;

/// Writes the generated repository (the same every time: a fixed linear congruential sequence).
fn generate(root: &std::path::Path) {
    let package = root.join("pkg");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(package.join("__init__.py"), "").unwrap();
    let mut state: u64 = 1;
    let mut next = |below: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % below
    };
    for module in 0..MODULES {
        let mut imports = std::collections::BTreeSet::new();
        let mut body = String::new();
        for function in 0..FUNCTIONS {
            body.push_str(&format!("\ndef f{module}_{function}():\n"));
            for _ in 0..3 {
                let (target, callee) = (next(MODULES), next(FUNCTIONS));
                if target != module {
                    imports.insert((target, callee));
                }
                body.push_str(&format!("    f{target}_{callee}()\n"));
            }
        }
        let header: String = imports
            .iter()
            .map(|(target, callee)| format!("from pkg.m{target} import f{target}_{callee}\n"))
            .collect();
        std::fs::write(package.join(format!("m{module}.py")), header + &body).unwrap();
    }
}

/// The generated repository served in process with `limits`; the server is kept to look at
/// its pool and its analysis cache.
async fn serve(limits: Limits) -> (Client, CodegraphMcp, tempfile::TempDir) {
    let directory = tempfile::tempdir().unwrap();
    generate(directory.path());
    let world = indexed_world(directory.path());
    assert_eq!(
        world.snapshot().entity_count(),
        MODULES * (FUNCTIONS + 1) + 1
    );
    let server = CodegraphMcp::new(Arc::new(world))
        .with_tools(codegraph::mcp::toolset::ToolSet::all())
        .with_limits(limits);
    let client = serve_in_memory(server.clone(), ClientConfig::default()).await;
    (client, server, directory)
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

async fn call(client: &Client, tool: &'static str, value: Value) -> CallToolResult {
    client.call(tool, value).await
}

fn error_of(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap()
}

fn has_communities(server: &CodegraphMcp) -> bool {
    let world = server.world();
    world.analysis().has_communities(&world.snapshot())
}

/// Waits (up to ten seconds) for every heavy turn of the server's pool to be free again: the
/// stopped work has really stopped.
async fn turns_come_back(server: &CodegraphMcp) {
    let started = Instant::now();
    while server.pool().free_heavy_turns() < server.pool().limits().heavy {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the stopped work still holds its turn"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

const QUESTION: &str = "how are the functions of pkg called";

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_heavy_request_stops_and_leaves_nothing_half_built() {
    let (client, server, _directory) = serve(Limits {
        heavy: 1,
        deadline: Duration::from_secs(300),
    })
    .await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("global_search")
            .with_arguments(arguments(json!({"query": QUESTION}))),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // `notifications/cancelled` once the work runs (it holds the only turn).
    let started = Instant::now();
    while server.pool().free_heavy_turns() > 0 {
        assert!(started.elapsed() < Duration::from_secs(30));
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    handle
        .cancel(Some("changed my mind".to_string()))
        .await
        .unwrap();
    turns_come_back(&server).await;
    assert!(
        !has_communities(&server),
        "the communities were built to the end"
    );
    // The same request, not cancelled, builds them and answers.
    let answered = call(&client, "global_search", json!({"query": QUESTION})).await;
    assert_ne!(answered.is_error, Some(true), "{answered:?}");
    assert!(has_communities(&server));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_past_its_deadline_is_stopped_and_says_so() {
    let (client, server, _directory) = serve(Limits {
        heavy: 1,
        // Far less than the first global_search takes here: over two seconds in a debug build,
        // a few hundred milliseconds in a release build on a fast machine.
        deadline: Duration::from_millis(20),
    })
    .await;
    let result = call(&client, "global_search", json!({"query": QUESTION})).await;
    let error = error_of(&result);
    assert_eq!(error["error"], "Deadline exceeded", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("the request took longer than 0.02 s"),
        "{error}"
    );
    turns_come_back(&server).await;
    assert!(!has_communities(&server));
}

/// The attack: heavy requests holding every turn must not make a cheap one wait.
#[tokio::test(flavor = "multi_thread")]
async fn cheap_requests_are_answered_while_heavy_ones_hold_the_pool() {
    let (client, server, _directory) = serve(Limits {
        heavy: 1,
        deadline: Duration::from_secs(300),
    })
    .await;
    let client = Arc::new(client);
    let heavy: Vec<_> = [0, 1]
        .into_iter()
        .map(|level| {
            let client = client.clone();
            tokio::spawn(async move {
                call(
                    &client,
                    "global_search",
                    json!({"query": QUESTION, "community_level": level}),
                )
                .await
            })
        })
        .collect();
    let started = Instant::now();
    while server.pool().free_heavy_turns() > 0 {
        assert!(started.elapsed() < Duration::from_secs(30));
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let callers = call(&client, "find_callers", json!({"entity_id": "f7_3"})).await;
    assert_ne!(callers.is_error, Some(true), "{callers:?}");
    // Answered while the heavy work still held the pool.
    assert_eq!(server.pool().free_heavy_turns(), 0);
    assert!(!heavy.iter().all(|request| request.is_finished()));
    let unknown = call(
        &client,
        "find_callers",
        json!({"entity_id": "no_such_function_anywhere"}),
    )
    .await;
    assert_eq!(error_of(&unknown)["error"], "Entity not found");
    assert_eq!(server.pool().free_heavy_turns(), 0);
    for request in heavy {
        let answered = request.await.unwrap();
        assert_ne!(answered.is_error, Some(true), "{answered:?}");
    }
}

/// Waits (up to `seconds`) for `condition`, saying what was awaited if it never holds.
async fn until(seconds: u64, what: &str, condition: impl Fn() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < Duration::from_secs(seconds),
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The attack: a request whose client went away must not go on to run. Here it waits
/// for the pool's only heavy turn, which the test holds; once its client is gone (and rmcp's
/// drain of answers in flight, at most 5 s, is over) it stops waiting, and when the turn is
/// free again it never runs: the repository facts it would have built are not built.
#[tokio::test(flavor = "multi_thread")]
async fn a_request_whose_client_went_away_never_runs() {
    let (client, server, _directory) = serve(Limits {
        heavy: 1,
        deadline: Duration::from_secs(300),
    })
    .await;
    let held = server.pool().take_heavy_turn().await;
    // Heavy: the first suggest_refactoring builds the repository facts.
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("suggest_refactoring")
            .with_arguments(arguments(json!({"entity_id": "f7_3"}))),
    ));
    let _abandoned = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    until(30, "the request waits for the heavy turn", || {
        server.pool().waiting_for_a_turn() == 1
    })
    .await;
    client.cancel().await.unwrap();
    until(30, "the abandoned request stops waiting", || {
        server.pool().waiting_for_a_turn() == 0
    })
    .await;
    drop(held);
    turns_come_back(&server).await;
    let world = server.world();
    assert!(
        !world.analysis().has_repo_facts(&world.snapshot()),
        "the abandoned request ran"
    );
    assert_eq!(server.pool().free_heavy_turns(), 1);
}

/// Every long computation a request can start stops at a checkpoint when its flag is set (and
/// runs to the end when it is not): the search index, the communities, the repository facts,
/// the deep walks, closest-name matching and symbol search.
#[test]
fn every_long_computation_has_checkpoints() {
    use codegraph::analysis::{communities, modules, refactor, search};
    use codegraph::cancel::{self, Cancelled, Flag};
    use codegraph::graph::query;
    let (_world, graph) = crate::support::index(&crate::support::fixture("python"));
    let entity = match query::lookup(&graph, "factorial") {
        query::Lookup::Found(entity) => entity,
        _ => panic!("factorial is in fixtures/python"),
    };
    type Computation<'a> = (&'static str, Box<dyn Fn() + 'a>);
    let computations: Vec<Computation> = vec![
        (
            "search index",
            Box::new(|| drop(search::SearchIndex::build(&graph))),
        ),
        (
            "communities",
            Box::new(|| drop(communities::compute(&graph))),
        ),
        (
            "repository facts",
            Box::new(|| drop(refactor::repo_facts(&graph))),
        ),
        (
            "dependencies",
            Box::new(|| {
                drop(modules::find_dependencies(
                    &graph,
                    &entity,
                    modules::Direction::Both,
                    10,
                ))
            }),
        ),
        (
            "callers of callers",
            Box::new(|| {
                drop(query::call_closure(
                    &graph,
                    &entity.id,
                    query::CallDirection::Callers,
                    10,
                ))
            }),
        ),
        (
            "closest names",
            Box::new(|| drop(query::closest_names(&graph, "factorail", 5))),
        ),
        (
            "symbols",
            Box::new(|| drop(query::symbols(&graph, "fact", 20))),
        ),
    ];
    let stopped = Flag::new();
    stopped.cancel();
    for (name, computation) in &computations {
        assert_eq!(cancel::run(&stopped, computation), Err(Cancelled), "{name}");
        assert_eq!(cancel::run(&Flag::new(), computation), Ok(()), "{name}");
    }
}
