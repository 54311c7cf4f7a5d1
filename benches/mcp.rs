//! The MCP benchmark: a program that prints figures, never a test that fails on timing.
//!
//!   benches/corpus.sh                    # once: assemble bench-corpus/ (about 1.8M lines)
//!   benches/tokenizer.sh                 # once, optional: token counts of the tool surface
//!   cargo bench --bench mcp [-- DIR]     # or CODEGRAPH_BENCH_CORPUS=DIR
//!   cargo bench --bench mcp -- --surface # the tool surface alone (no corpus needed)
//!
//! First, the TOOL SURFACE: for the default set, every tool, and every tool with the shell, the
//! bytes (and tokens) of `tools/list` and of the definitions clients hand the model.
//!
//! Then, on the indexed corpus (no cache: nothing is written into it):
//!
//! - SERVER-SIDE latency of the tools `find_callers` and `find_callees` (on entities that have
//!   callers, a deterministic sample) and `query_codebase` (names, prefixes, camelCase humps,
//!   word pairs, misspellings, misses), timed around the tool functions themselves: the snapshot,
//!   the lookup, the graph walk, the references left aside, the trust stamp (which reads the
//!   answer's files from disk) and the result structs, not JSON-RPC framing. p50, p99, max, and
//!   for callers/callees the floor of the same run: the graph query alone.
//!   The targets: p99 at most 2 ms for callers/callees, 20 ms for query_codebase.
//! - BOUNDED WORK, through the server's pool (as a client's call runs): unknown names (closest-
//!   name matching over every distinct name: misspellings, 256-byte names, a 32 KiB name that is
//!   refused), walks of 10 hops from the entities with the most callers, the first
//!   `global_search` after a change (the communities built), how long a cancelled one takes to
//!   stop and give its turn back, and cheap calls while two such builds hold the pool.
//! - HUBS: for the five entities with the most callers, the bytes of the default (paged) answer
//!   against every caller listed, as the tool answered before it paged.
//! - HTTP LOAD: 50 concurrent MCP clients (rmcp's Streamable HTTP client, one reqwest client
//!   each) against `/mcp` on 127.0.0.1, each making 200 `tools/call`s in turn over the same
//!   three tools, after their handshakes. Errors (transport failures, JSON-RPC errors, `isError`
//!   results) are counted and must be zero; throughput is calls per second over the call phase,
//!   with client-observed p50/p99. Clients and server share this machine's cores.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use codegraph::graph::query;
use codegraph::mcp::CodegraphMcp;
use codegraph::mcp::http::{self, HttpOptions};
use codegraph::mcp::toolset::ToolSet;
use codegraph::world::{CacheLocation, World, WorldConfig};
use rmcp::ServiceExt;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Entities sampled for callers/callees (each is called once per tool).
const SAMPLE: usize = 2000;
const CLIENTS: usize = 50;
const CALLS_PER_CLIENT: usize = 200;

fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_BENCH_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-corpus")
}

/// Sorted durations → (p50, p99, max) in milliseconds.
fn percentiles(mut durations: Vec<Duration>) -> (f64, f64, f64) {
    durations.sort();
    let at = |fraction: f64| {
        let index = ((durations.len() as f64 * fraction) as usize).min(durations.len() - 1);
        durations[index].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99), at(1.0))
}

fn print_latencies(name: &str, durations: Vec<Duration>, failures: usize, target_ms: f64) {
    let calls = durations.len();
    let (p50, p99, max) = percentiles(durations);
    let verdict = if p99 <= target_ms { "met" } else { "MISSED" };
    println!(
        "{name:<16} {calls:>6} calls  p50 {p50:>8.3} ms  p99 {p99:>8.3} ms  max {max:>8.3} ms  \
         failures {failures}  (target p99 <= {target_ms} ms: {verdict})"
    );
}

/// Entities that have callers: a deterministic stride over every callable entity.
fn entities_with_callers(world: &World) -> Vec<String> {
    let graph = world.snapshot();
    let mut callable: Vec<String> = Vec::new();
    for file in graph.files() {
        for entity in graph.file_entities(&file.path) {
            if entity.kind.is_callable() {
                callable.push(entity.id.to_string());
            }
        }
    }
    callable.sort();
    let with_callers: Vec<String> = callable
        .iter()
        .filter(|id| !query::callers(&graph, id).is_empty())
        .cloned()
        .collect();
    println!(
        "entities {} callable, {} with callers; sampling {}",
        callable.len(),
        with_callers.len(),
        SAMPLE.min(with_callers.len())
    );
    let stride = (with_callers.len() / SAMPLE).max(1);
    with_callers
        .into_iter()
        .step_by(stride)
        .take(SAMPLE)
        .collect()
}

/// Varied queries built from the sample's names, plus fixed words and misses.
fn queries(sample: &[String]) -> Vec<String> {
    let mut queries = Vec::new();
    for (index, id) in sample.iter().enumerate().take(400) {
        let name = id.rsplit(['.', ':']).next().unwrap_or(id).to_string();
        let query = match index % 5 {
            0 => name.clone(),
            1 => name.chars().take(3).collect(),
            // camelCase humps / snake_case word starts.
            2 => name
                .split('_')
                .filter_map(|word| word.chars().next())
                .collect::<String>(),
            // Two words.
            3 => format!("{name} handler"),
            // A misspelling: one letter dropped.
            _ => {
                let mut chars: Vec<char> = name.chars().collect();
                if chars.len() > 3 {
                    chars.remove(chars.len() / 2);
                }
                chars.into_iter().collect()
            }
        };
        queries.push(query);
    }
    for fixed in [
        "parse",
        "config",
        "http request",
        "get",
        "init",
        "test",
        "read file",
        "serialize",
        "UserService",
        "zzqxv_nothing",
    ] {
        queries.push(fixed.to_string());
    }
    queries
}

fn parameters<T: serde::de::DeserializeOwned>(value: Value) -> Parameters<T> {
    Parameters(serde_json::from_value(value).expect("valid tool arguments"))
}

async fn server_side(server: &CodegraphMcp, sample: &[String], queries: &[String]) {
    println!("\nSERVER-SIDE (around the tool functions, one at a time)");
    let graph = server.world().snapshot();
    for tool in ["find_callers", "find_callees"] {
        let mut durations = Vec::with_capacity(sample.len());
        let mut floor = Vec::with_capacity(sample.len());
        let mut failures = 0;
        for id in sample {
            // The floor: the graph query alone, without lookup, paging, references left aside,
            // the stamp (which reads the answer's files from disk) and the result structs.
            let started = Instant::now();
            let calls = if tool == "find_callers" {
                query::callers(&graph, id)
            } else {
                query::callees(&graph, id)
            };
            floor.push(started.elapsed());
            std::hint::black_box(calls);
            let arguments = parameters(json!({ "entity_id": id }));
            let started = Instant::now();
            let ok = if tool == "find_callers" {
                server
                    .find_callers(arguments, CancellationToken::new())
                    .await
                    .is_ok()
            } else {
                server
                    .find_callees(arguments, CancellationToken::new())
                    .await
                    .is_ok()
            };
            durations.push(started.elapsed());
            failures += usize::from(!ok);
        }
        let (floor_p50, floor_p99, _) = percentiles(floor);
        let (p50, p99, _) = percentiles(durations.clone());
        print_latencies(tool, durations, failures, 2.0);
        println!(
            "{:<16} floor (query::{} alone) p50 {floor_p50:.3} ms  p99 {floor_p99:.3} ms; tool/floor p50 {:.1}x  p99 {:.1}x",
            "",
            &tool[5..],
            p50 / floor_p50.max(1e-6),
            p99 / floor_p99.max(1e-6)
        );
    }
    hubs(server, &graph).await;
    let mut durations = Vec::with_capacity(queries.len());
    let mut failures = 0;
    for text in queries {
        let arguments = parameters(json!({ "query": text }));
        let started = Instant::now();
        let ok = server
            .query_codebase(arguments, CancellationToken::new())
            .await
            .is_ok();
        durations.push(started.elapsed());
        failures += usize::from(!ok);
    }
    print_latencies("query_codebase", durations, failures, 20.0);
}

/// p50 / p99 / max of `durations`, one line.
fn print_spread(name: &str, durations: Vec<Duration>, note: &str) {
    let calls = durations.len();
    let (p50, p99, max) = percentiles(durations);
    println!(
        "{name:<34} {calls:>4} calls  p50 {p50:>9.3} ms  p99 {p99:>9.3} ms  max {max:>9.3} ms  {note}"
    );
}

/// A new revision (one file's text changed), so the next analysis starts cold.
fn touch(world: &World) {
    let graph = world.snapshot();
    let file = graph.files().next().expect("a file");
    let text = format!("{}\n", file.text().expect("the corpus does not change"));
    world.apply_texts(vec![(file.path.to_string(), Some(text))]);
}

async fn bounded_work(server: &CodegraphMcp, sample: &[String]) {
    let limits = server.pool().limits();
    println!(
        "\nBOUNDED WORK (through the pool: {} heavy turn(s), deadline {} s)",
        limits.heavy,
        limits.deadline.as_secs()
    );
    let world = server.world().clone();
    let callers = |id: String| {
        let server = server.clone();
        async move {
            let started = Instant::now();
            let result = server
                .find_callers(
                    parameters(json!({ "entity_id": id })),
                    CancellationToken::new(),
                )
                .await;
            (started.elapsed(), result.is_ok())
        }
    };
    // Unknown names: every one goes through closest-name matching (or is refused).
    let misspelled: Vec<String> = sample
        .iter()
        .take(50)
        .map(|id| {
            let name = id.rsplit(['.', ':']).next().unwrap_or(id);
            let mut chars: Vec<char> = name.chars().collect();
            chars.insert(chars.len() / 2, 'q');
            chars.into_iter().collect()
        })
        .collect();
    let long: Vec<String> = (0..20)
        .map(|seed| {
            (0..256)
                .map(|at| (b'a' + ((at * 7 + seed * 13) % 26) as u8) as char)
                .collect()
        })
        .collect();
    for (name, names, note) in [
        (
            "unknown: misspelled names",
            misspelled,
            "closest names compared",
        ),
        ("unknown: 256-byte names", long, "the longest matched"),
        (
            "unknown: one 32 KiB name",
            vec!["x".repeat(32 * 1024)],
            "refused before matching",
        ),
    ] {
        let mut durations = Vec::new();
        for text in names {
            let (elapsed, found) = callers(text).await;
            assert!(!found, "an unknown name was found");
            durations.push(elapsed);
        }
        print_spread(name, durations, note);
    }
    // Deep walks from the entities with the most callers.
    let graph = world.snapshot();
    let mut hubs: Vec<(usize, String)> = sample
        .iter()
        .map(|id| (query::callers(&graph, id).len(), id.clone()))
        .collect();
    hubs.sort_by(|left, right| right.cmp(left));
    let mut walks = Vec::new();
    let mut dependencies = Vec::new();
    let mut reached = 0;
    for (_, id) in hubs.iter().take(5) {
        let started = Instant::now();
        let result = server
            .find_callers(
                parameters(json!({ "entity_id": id, "max_depth": 10 })),
                CancellationToken::new(),
            )
            .await;
        walks.push(started.elapsed());
        reached = reached.max(result.map(|found| found.0.callers.len()).unwrap_or(0));
        let started = Instant::now();
        let _ = server
            .find_dependencies(
                parameters(json!({ "entity_id": id, "depth": 10, "direction": "both" })),
                CancellationToken::new(),
            )
            .await;
        dependencies.push(started.elapsed());
    }
    print_spread(
        "find_callers, 10 hops from hubs",
        walks,
        &format!("(up to {reached} callers reached)"),
    );
    print_spread("find_dependencies, 10 hops, both", dependencies, "");
    // The first global_search after a change builds the communities.
    let search = |level: u8| {
        let server = server.clone();
        async move {
            let started = Instant::now();
            let result = server
                .global_search(
                    parameters(json!({ "query": "parse configuration", "community_level": level })),
                    CancellationToken::new(),
                )
                .await;
            (started.elapsed(), result.is_ok())
        }
    };
    let _ = search(0).await; // the search index, once
    let mut cold = Vec::new();
    for _ in 0..3 {
        touch(&world);
        let (elapsed, ok) = search(0).await;
        assert!(ok, "global_search failed");
        cold.push(elapsed);
    }
    print_spread(
        "global_search after a change",
        cold,
        "(communities rebuilt)",
    );
    // Cancelled while building: how long until the work stops and its turn is free.
    let mut stops = Vec::new();
    for _ in 0..5 {
        touch(&world);
        let cancel = CancellationToken::new();
        let request = {
            let (server, cancel) = (server.clone(), cancel.clone());
            tokio::spawn(async move {
                server
                    .global_search(parameters(json!({ "query": "parse" })), cancel)
                    .await
                    .is_ok()
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = Instant::now();
        cancel.cancel();
        while server.pool().free_heavy_turns() < limits.heavy {
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        stops.push(started.elapsed());
        assert!(
            !request.await.unwrap(),
            "a cancelled global_search answered"
        );
    }
    print_spread(
        "cancelled 200 ms into a rebuild",
        stops,
        "until the turn is free",
    );
    // Cheap calls while two rebuilds hold (and wait for) the heavy turns.
    let mut idle = Vec::new();
    for id in sample.iter().take(100) {
        idle.push(callers(id.clone()).await.0);
    }
    touch(&world);
    let heavy: Vec<_> = [0u8, 1]
        .into_iter()
        .map(|level| tokio::spawn(search(level)))
        .collect();
    while server.pool().free_heavy_turns() > 0 {
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    let mut busy = Vec::new();
    let mut while_busy = 0;
    for id in sample.iter().take(100) {
        busy.push(callers(id.clone()).await.0);
        while_busy += usize::from(server.pool().free_heavy_turns() == 0);
    }
    for request in heavy {
        let _ = request.await;
    }
    print_spread("find_callers, pool idle", idle, "");
    print_spread(
        "find_callers, two rebuilds running",
        busy,
        &format!("({while_busy} of 100 answered while every heavy turn was taken)"),
    );
}

/// The answer sizes of the five entities with the most direct callers: the default answer
/// (a page of 25 with `total` and a hint) against every caller listed, as the tool answered
/// before it paged (the sum of the `callers` lists of all pages of 500).
async fn hubs(server: &CodegraphMcp, graph: &codegraph::graph::Graph) {
    let mut counts: Vec<(usize, String)> = Vec::new();
    for file in graph.files() {
        for entity in graph.file_entities(&file.path) {
            if entity.kind.is_callable() {
                let count = graph
                    .incoming(&entity.id)
                    .filter(|edge| edge.kind == codegraph::model::RelationKind::Calls)
                    .count();
                counts.push((count, entity.id.to_string()));
            }
        }
    }
    counts.sort_by(|left, right| right.0.cmp(&left.0).then_with(|| left.1.cmp(&right.1)));
    println!("\nHUBS (answer bytes of find_callers: the default page vs every caller listed)");
    for (_, id) in counts.into_iter().take(5) {
        let answer = |value: Value| async move {
            let Ok(result) = server
                .find_callers(parameters(value), CancellationToken::new())
                .await
            else {
                panic!("find_callers failed");
            };
            serde_json::to_value(&result.0).expect("serialises")
        };
        let started = Instant::now();
        let first = answer(json!({ "entity_id": id })).await;
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        let default_bytes = first.to_string().len();
        let total = first["total"].as_u64().unwrap_or_default();
        let mut all_bytes = 0;
        let mut offset = 0;
        loop {
            let page = answer(json!({ "entity_id": id, "limit": 500, "offset": offset })).await;
            all_bytes += page["callers"].to_string().len();
            match page["next_offset"].as_u64() {
                Some(next) => offset = next,
                None => break,
            }
        }
        println!(
            "{id}: {total} callers; default answer {default_bytes} bytes ({elapsed:.2} ms), all callers {all_bytes} bytes ({:.0}x)",
            all_bytes as f64 / default_bytes as f64
        );
    }
}

/// The arguments of the `call`th call of a client.
fn call_of(client: usize, call: usize, sample: &[String], queries: &[String]) -> (String, Value) {
    let index = client * CALLS_PER_CLIENT + call;
    match call % 3 {
        0 => (
            "find_callers".to_string(),
            json!({ "entity_id": sample[index % sample.len()] }),
        ),
        1 => (
            "find_callees".to_string(),
            json!({ "entity_id": sample[index % sample.len()] }),
        ),
        _ => (
            "query_codebase".to_string(),
            json!({ "query": queries[index % queries.len()] }),
        ),
    }
}

async fn http_load(server: CodegraphMcp, sample: Arc<Vec<String>>, queries: Arc<Vec<String>>) {
    let options = HttpOptions {
        host: std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        port: 0,
        tokens: None,
        extra_hosts: Vec::new(),
    };
    let listener = http::bind(&options).await.expect("bind 127.0.0.1");
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    let serving = tokio::spawn(async move { http::serve(listener, server, &options, stop).await });

    let errors = Arc::new(AtomicUsize::new(0));
    let ready = Arc::new(tokio::sync::Barrier::new(CLIENTS + 1));
    let mut clients = Vec::new();
    for client_index in 0..CLIENTS {
        let (url, sample, queries, errors, ready) = (
            url.clone(),
            sample.clone(),
            queries.clone(),
            errors.clone(),
            ready.clone(),
        );
        clients.push(tokio::spawn(async move {
            let transport = StreamableHttpClientTransport::with_client(
                reqwest::Client::new(),
                StreamableHttpClientTransportConfig::with_uri(url),
            );
            let client = match ().serve(transport).await {
                Ok(client) => Some(client),
                Err(error) => {
                    eprintln!("client {client_index}: handshake failed: {error}");
                    None
                }
            };
            ready.wait().await;
            let mut latencies = Vec::with_capacity(CALLS_PER_CLIENT);
            let Some(client) = client else {
                errors.fetch_add(CALLS_PER_CLIENT, Ordering::Relaxed);
                return latencies;
            };
            for call in 0..CALLS_PER_CLIENT {
                let (tool, arguments) = call_of(client_index, call, &sample, &queries);
                let request = CallToolRequestParams::new(tool)
                    .with_arguments(arguments.as_object().unwrap().clone());
                let started = Instant::now();
                let result = client.call_tool(request).await;
                latencies.push(started.elapsed());
                match result {
                    Ok(result) if result.is_error != Some(true) => {}
                    Ok(result) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                        eprintln!("client {client_index}: isError {:?}", result.content);
                    }
                    Err(error) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                        eprintln!("client {client_index}: {error}");
                    }
                }
            }
            let _ = client.cancel().await;
            latencies
        }));
    }
    ready.wait().await;
    let started = Instant::now();
    let mut latencies = Vec::new();
    for client in clients {
        latencies.extend(client.await.unwrap_or_default());
    }
    let elapsed = started.elapsed();
    shutdown.cancel();
    let _ = serving.await;
    let calls = CLIENTS * CALLS_PER_CLIENT;
    let (p50, p99, max) = percentiles(latencies);
    println!(
        "\nHTTP LOAD ({CLIENTS} clients x {CALLS_PER_CLIENT} tools/call, Streamable HTTP on 127.0.0.1)"
    );
    println!(
        "calls {calls}  errors {}  wall {:.2} s  throughput {:.0} calls/s  client-observed p50 {p50:.2} ms  p99 {p99:.2} ms  max {max:.2} ms",
        errors.load(Ordering::Relaxed),
        elapsed.as_secs_f64(),
        calls as f64 / elapsed.as_secs_f64(),
    );
}

#[path = "support/tool_surface.rs"]
mod tool_surface;

/// A world of an empty directory: enough to list tools.
fn empty_world() -> (tempfile::TempDir, Arc<World>) {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let config = WorldConfig {
        cache: CacheLocation::Disabled,
        ..WorldConfig::default()
    };
    let world = World::open(directory.path(), config).expect("an empty world opens");
    (directory, Arc::new(world))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let (_directory, empty) = empty_world();
    runtime.block_on(tool_surface::print(empty));
    if std::env::args().any(|arg| arg == "--surface") {
        return;
    }
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!(
            "no corpus at {}: run benches/corpus.sh, or pass a directory (cargo bench --bench mcp -- DIR, or CODEGRAPH_BENCH_CORPUS=DIR)",
            corpus.display()
        );
        std::process::exit(2);
    }
    println!("corpus   {}", corpus.display());
    let world = World::open(
        &corpus,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .expect("the corpus opens");
    let report = world.index(false, &|_, _| {});
    println!(
        "indexed  {} files, {} lines, {} entities, {} relations in {:.1} s",
        report.files,
        report.lines,
        report.entities,
        report.relations,
        report.duration_ms / 1000.0
    );
    let world = Arc::new(world);
    let sample = entities_with_callers(&world);
    let queries = queries(&sample);
    let server = CodegraphMcp::new(world).with_tools(ToolSet::all());
    runtime.block_on(async {
        server_side(&server, &sample, &queries).await;
        bounded_work(&server, &sample).await;
        http_load(server, Arc::new(sample), Arc::new(queries)).await;
    });
}
