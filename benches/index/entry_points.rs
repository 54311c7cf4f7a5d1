//! Every entry point as a user starts it: the built `codegraph` binary as a process, timed from
//! its start to what the user waits for, next to ctags over the same tree and to the
//! in-process figures of the same run.
//!
//!   CODEGRAPH_BENCH_ONLY=entry cargo bench --bench index -- DIR
//!
//! - `codegraph index --full` (no cache beforehand; writes one), `--full --no-cache` (neither
//!   reads nor writes it: the difference is the cache's write), and `codegraph index` on the
//!   cache the first wrote (a warm start);
//! - `codegraph lsp` to its first call-hierarchy answer (`prepareCallHierarchy` on the
//!   function with the most callers in other files, its document open, then `incomingCalls`
//!   until it holds a caller in another file: asked again every 20 ms until the index is
//!   there), cold (no cache) and warm;
//! - `codegraph serve` (MCP on stdio) to its first `find_callers` answer that holds a caller
//!   in another file, cold and warm;
//! - `ctags -R` over the corpus (universal-ctags, one thread), when installed;
//! - `codegraph index --full --no-cache` with `RAYON_NUM_THREADS` from 1 to the machine's cores:
//!   the speed-up by thread count.
//!
//! Each figure is the median of [`runs`] runs (3, or `CODEGRAPH_BENCH_RUNS`): wall time, and
//! CPU time (user + system, all the process's threads, as the kernel counts a child once it is
//! waited for). The servers run with a runtime directory of their own, so that none attaches
//! to a server already running.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use codegraph::world::{World, WorldConfig};
use codegraph_testkit::lsp::{LspConnection, Notifications};
use serde_json::{Value, json};

/// The binary measured: the one `cargo bench` built beside this benchmark.
const BINARY: &str = env!("CARGO_BIN_EXE_codegraph");

/// Runs per figure, the median reported: 3, or `CODEGRAPH_BENCH_RUNS` (1 for the whole kernel,
/// whose cold runs take minutes each).
fn runs() -> usize {
    std::env::var("CODEGRAPH_BENCH_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .filter(|runs| *runs > 0)
        .unwrap_or(3)
}

/// How long a server may take to its first answer before the run gives up.
const PATIENCE: Duration = Duration::from_secs(1800);

/// A process's run: wall time from its start to what was waited for, and CPU time.
#[derive(Clone, Copy)]
pub struct Timing {
    pub wall: Duration,
    pub cpu: Duration,
}

/// What a server is asked for: a function with callers in other files.
struct Target {
    path: PathBuf,
    /// The path in the graph.
    relative: String,
    uri: String,
    text: String,
    /// Zero-based, of its name (an ASCII line: byte and UTF-16 columns agree).
    line: u32,
    column: u32,
    id: String,
}

/// Measures every entry point on `corpus` and prints the table; `in_process` are the same run's
/// floor and full index (wall, CPU), for the ratios.
pub fn run(corpus: &Path, floor: Timing, in_process: Option<Timing>) {
    let runtime = tempfile::tempdir().expect("a scratch runtime directory");
    let cache = corpus.join(".codegraph");
    let remove_cache = || {
        let _ = std::fs::remove_dir_all(&cache);
    };
    println!(
        "\nENTRY POINTS as processes ({BINARY}), median of {} runs: wall / CPU",
        runs()
    );
    let row = |what: &str, timing: Option<Timing>| print_row(what, timing, floor);
    row("raw parse floor (in-process, this run)", Some(floor));
    if let Some(index) = in_process {
        row("full index (in-process, this run)", Some(index));
    }
    let ctags = median(|| ctags(corpus));
    row("ctags -R (universal-ctags, one thread)", ctags);
    let index = |arguments: &[&str]| {
        let mut command = codegraph(runtime.path());
        command
            .arg("index")
            .args(arguments)
            .arg("--repo")
            .arg(corpus);
        command
    };
    let full = median(|| {
        remove_cache();
        process(index(&["--full"]))
    });
    row("codegraph index --full (writes the cache)", full);
    let no_cache = median(|| process(index(&["--full", "--no-cache"])));
    row("codegraph index --full --no-cache", no_cache);
    remove_cache();
    process(index(&[]));
    let warm = median(|| process(index(&[])));
    row("codegraph index (warm cache)", warm);
    let Some(target) = target(corpus) else {
        println!("  (no function with callers in another file: no server measured)");
        return;
    };
    println!(
        "  servers asked for the callers of {} ({}:{})",
        target.id,
        target.path.display(),
        target.line + 1
    );
    type FirstAnswer = fn(&Path, &Path, &Target) -> Option<Timing>;
    let servers: [(&str, FirstAnswer); 2] = [
        ("codegraph lsp, first call hierarchy", lsp_first_answer),
        ("codegraph serve, first find_callers", serve_first_answer),
    ];
    for (what, warm) in [("cold", false), ("warm", true)] {
        for (server, first_answer) in servers {
            let timing = median(|| {
                if !warm {
                    remove_cache();
                }
                first_answer(runtime.path(), corpus, &target)
            });
            row(&format!("{server} ({what})"), timing);
        }
    }
    if let (Some(full), Some(ctags)) = (full, ctags) {
        let ratio = full.wall.as_secs_f64() / ctags.wall.as_secs_f64();
        println!(
            "  codegraph index --full / ctags: {ratio:.2}x wall   [target <= 2.5x on the mixed corpus, <= 1x on the kernel]"
        );
    }
    threads(corpus, runtime.path(), floor);
}

/// `codegraph index --full --no-cache` with 1, 2, ... threads up to the machine's cores.
fn threads(corpus: &Path, runtime: &Path, floor: Timing) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut one = None;
    for count in (1..=cores).filter(|count| count.is_power_of_two() || *count == cores) {
        let timing = median(|| {
            let mut command = codegraph(runtime);
            command
                .env("RAYON_NUM_THREADS", count.to_string())
                .args(["index", "--full", "--no-cache", "--repo"])
                .arg(corpus);
            process(command)
        });
        let one = *one.get_or_insert(timing);
        let speedup = match (one, timing) {
            (Some(one), Some(timing)) => {
                format!("{:.2}x", one.wall.as_secs_f64() / timing.wall.as_secs_f64())
            }
            _ => "-".to_string(),
        };
        print_row(
            &format!("index --full --no-cache, {count} thread(s), speed-up {speedup}"),
            timing,
            floor,
        );
    }
}

/// `codegraph` with a runtime directory of the benchmark's own, its output discarded.
fn codegraph(runtime: &Path) -> Command {
    let mut command = Command::new(BINARY);
    command
        .env("XDG_RUNTIME_DIR", runtime)
        .env("CODEGRAPH_NO_DAEMON", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Runs `command` to its end: its timing, `None` when it failed.
fn process(mut command: Command) -> Option<Timing> {
    let cpu = crate::growth::children_cpu_time();
    let started = Instant::now();
    let status = command.status().ok()?;
    let wall = started.elapsed();
    status.success().then(|| Timing {
        wall,
        cpu: crate::growth::children_cpu_time().saturating_sub(cpu),
    })
}

/// universal-ctags over the corpus, its tags file in a scratch directory.
fn ctags(corpus: &Path) -> Option<Timing> {
    let scratch = tempfile::tempdir().ok()?;
    let mut command = Command::new("ctags");
    command
        .args(["-R", "--exclude=.git", "--exclude=.codegraph", "-f"])
        .arg(scratch.path().join("tags"))
        .arg(corpus)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    process(command)
}

/// The median of [`runs`] timings (by wall time); `None` when a run failed.
fn median(mut run: impl FnMut() -> Option<Timing>) -> Option<Timing> {
    let runs = runs();
    let mut timings = Vec::with_capacity(runs);
    for _ in 0..runs {
        timings.push(run()?);
    }
    timings.sort_by_key(|timing| timing.wall);
    Some(timings[runs / 2])
}

/// The function with the most callers in other files (the first by id among equals), from the
/// corpus's cache (the runs before wrote it).
fn target(corpus: &Path) -> Option<Target> {
    let world = World::open(corpus, WorldConfig::default()).ok()?;
    world.index(false, &|_, _| {});
    let graph = world.snapshot();
    let mut best: Option<(usize, codegraph::graph::Entity)> = None;
    for file in graph.files() {
        for entity in graph.file_entities(&file.path) {
            if !entity.kind.is_callable() {
                continue;
            }
            let id = entity.id.to_string();
            let callers = codegraph::graph::query::callers(&graph, &id)
                .iter()
                .filter(|call| call.entity.file_path != entity.file_path)
                .count();
            if callers > best.as_ref().map_or(0, |(most, _)| *most) {
                best = Some((callers, entity));
            }
        }
    }
    let (_, entity) = best?;
    let path = corpus.join(entity.file_path.as_str());
    let text = std::fs::read_to_string(&path).ok()?;
    let line = entity.name_span.start.line;
    text.lines()
        .nth(line as usize)
        .filter(|line| line.is_ascii())?;
    Some(Target {
        relative: entity.file_path.to_string(),
        uri: format!("file://{}", path.display()),
        path,
        text,
        line,
        column: entity.name_span.start.column,
        id: entity.id.to_string(),
    })
}

/// `codegraph lsp` on the corpus, from its start to the first `incomingCalls` answer that holds
/// a caller in another file (asked again every 20 ms while the index runs); then it is shut
/// down.
fn lsp_first_answer(runtime: &Path, corpus: &Path, target: &Target) -> Option<Timing> {
    let cpu = crate::growth::children_cpu_time();
    let started = Instant::now();
    let mut command = codegraph(runtime);
    command.arg("lsp").stdout(Stdio::piped());
    let mut server = LspConnection::spawn(&mut command, Notifications::Discard).ok()?;
    let deadline = started + PATIENCE;
    let root = format!("file://{}", corpus.display());
    server
        .request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {},
                   "workspaceFolders": [{"uri": root, "name": "corpus"}]}),
            PATIENCE,
        )
        .ok()?;
    server.notify("initialized", json!({})).ok()?;
    server
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": target.uri, "languageId": "", "version": 1, "text": target.text}}),
        )
        .ok()?;
    let position = json!({"textDocument": {"uri": target.uri},
                          "position": {"line": target.line, "character": target.column}});
    let answered = loop {
        let items = server
            .request(
                "textDocument/prepareCallHierarchy",
                position.clone(),
                PATIENCE,
            )
            .ok()?;
        if let Some(item) = items.as_array().and_then(|items| items.first()) {
            let incoming = server
                .request(
                    "callHierarchy/incomingCalls",
                    json!({"item": item}),
                    PATIENCE,
                )
                .ok()?;
            // A caller in another file: the index is there (the open document's own callers
            // are known before it).
            let elsewhere = |call: &Value| call["from"]["uri"].as_str() != Some(&target.uri);
            if incoming
                .as_array()
                .is_some_and(|calls| calls.iter().any(elsewhere))
            {
                break started.elapsed();
            }
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    server.shutdown(Duration::from_secs(30)).ok()?;
    Some(Timing {
        wall: answered,
        cpu: crate::growth::children_cpu_time().saturating_sub(cpu),
    })
}

/// `codegraph serve` (MCP on stdio) on the corpus, from its start to the first `find_callers`
/// answer that holds a caller in another file (asked again every 20 ms while the index runs);
/// then its input is closed and it is waited for.
fn serve_first_answer(runtime: &Path, corpus: &Path, target: &Target) -> Option<Timing> {
    let cpu = crate::growth::children_cpu_time();
    let started = Instant::now();
    let mut command = codegraph(runtime);
    command
        .arg("serve")
        .arg("--repo")
        .arg(corpus)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = command.spawn().ok()?;
    let answered = mcp_session(&mut child, target, started);
    drop(child.stdin.take());
    let ended = child.wait().ok()?;
    Some(Timing {
        wall: answered?,
        cpu: crate::growth::children_cpu_time().saturating_sub(cpu),
    })
    .filter(|_| ended.success())
}

/// The MCP handshake, then `find_callers` until its answer holds a caller in another file: the
/// time from `started` to that answer.
fn mcp_session(child: &mut Child, target: &Target, started: Instant) -> Option<Duration> {
    let mut session = Session {
        input: child.stdin.take()?,
        output: BufReader::new(child.stdout.take()?),
        next: 0,
    };
    session.call(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "0"}}),
    )?;
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let deadline = started + PATIENCE;
    loop {
        let result = session.call(
            "tools/call",
            json!({"name": "find_callers", "arguments": {"entity_id": target.id}}),
        )?;
        let elsewhere =
            |caller: &Value| caller["file_path"].as_str() != Some(target.relative.as_str());
        let callers = &result["structuredContent"]["callers"];
        if callers
            .as_array()
            .is_some_and(|callers| callers.iter().any(elsewhere))
        {
            return Some(started.elapsed());
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An MCP session over a child's stdin and stdout: newline-delimited JSON-RPC.
struct Session {
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
    next: i64,
}

impl Session {
    fn send(&mut self, message: &Value) -> Option<()> {
        writeln!(self.input, "{message}").ok()?;
        self.input.flush().ok()
    }

    /// The result of a request; `None` when the server answered an error or went away.
    fn call(&mut self, method: &str, params: Value) -> Option<Value> {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.output.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let message: Value = serde_json::from_str(&line).ok()?;
            if message["id"] == json!(id) {
                return message.get("result").cloned();
            }
        }
    }
}

fn print_row(what: &str, timing: Option<Timing>, floor: Timing) {
    match timing {
        Some(timing) => println!(
            "  {what:<58} {:>8.2} s / {:>8.2} s   ({:.2}x / {:.2}x the floor)",
            timing.wall.as_secs_f64(),
            timing.cpu.as_secs_f64(),
            timing.wall.as_secs_f64() / floor.wall.as_secs_f64(),
            timing.cpu.as_secs_f64() / floor.cpu.as_secs_f64().max(1e-9),
        ),
        None => println!("  {what:<58}        - (failed or absent)"),
    }
}
