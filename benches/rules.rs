//! The architecture-rules benchmark: a program that prints figures, never a test that fails on
//! timing.
//!
//!   cargo bench --bench rules [-- DIR]     # or CODEGRAPH_BENCH_CORPUS=DIR
//!
//! Ten rules over the corpus's own layout (written to a temporary rules file; the corpus is
//! never written), then:
//!
//! (a) FULL CHECK, CLI: `codegraph check --rules TMP/rules.toml --cache-dir TMP/cache -r DIR`,
//!     the process's wall time on a warm cache (a first run writes it), median and min of 5.
//!     Floor: `codegraph stats` with the same cache (starting, loading the index, printing).
//! (b) FULL CHECK, in process: a fresh checker evaluating every file of the indexed snapshot,
//!     median of 5. Floor: reading every file's dependencies (imports and resolved references),
//!     which any check must do.
//! (c) EDIT → DIAGNOSTIC: an unsaved edit of a Django ORM file adds a forbidden import
//!     (`from django.http import HttpResponse as CodegraphBenchResponse`), then a second edit
//!     removes it; each time the
//!     time from the edit (`World::edit_buffer`, the editor door's didChange) to the file's
//!     violations as the diagnostic handler computes them (`Live::with` → `file_violations`),
//!     checked to show (then not show) the violation; p50 and p99 of 200 each. Floor: the same
//!     edits without asking for diagnostics (the edit applied and the snapshot stored). JSON and
//!     pipes are not included (the LSP benchmark measures those for other requests: tens of µs).
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use codegraph::analysis::rules::{Checker, RuleSet, Status, deps};
use codegraph::world::buffer::{ClientPosition, ColumnEncoding, TextEdit};
use codegraph::world::{CacheLocation, World, WorldConfig};

const ITERATIONS: usize = 200;

/// Ten rules over the corpus layout (`crates/`, `npm/`, `pypi/`).
const RULES: &str = r#"
[[layers]]
name = "clap-layers"
layers = ["crates/clap-*/**", "crates/clap_builder-*/**", "crates/clap_lex-*/**"]

[[layers]]
name = "regex-layers"
layers = ["crates/regex-1*/**", "crates/regex-automata-*/**", "crates/regex-syntax-*/**"]

[[forbid]]
name = "orm-knows-no-http"
from = "pypi/Django-*/django/db/**"
to = ["pypi/Django-*/django/http/**", "pypi/Django-*/django/views/**", "requests"]
reason = "The ORM is usable without the web layer."

[[forbid]]
name = "futures-without-tokio"
from = "crates/futures-*/**"
to = ["crates/tokio-*/**", "tokio"]

[[forbid]]
name = "serde-without-json"
from = "crates/serde-*/**"
to = "crates/serde_json-*/**"

[[forbid]]
name = "no-subprocess-in-django"
from = "pypi/Django-*/django/**"
to = ["subprocess", "os.system"]
severity = "warning"
kinds = ["import"]

[[forbid]]
name = "sources-do-not-import-tests"
from = ["crates/*/src/**", "npm/*/src/**"]
to = ["crates/*/tests/**", "npm/*/test/**"]
severity = "warning"

[[independent]]
name = "npm-packages"
modules = ["npm/rxjs-*/**", "npm/effect-*/**", "npm/lodash-*/**", "npm/three-*/**"]

[[independent]]
name = "django-contrib-apps"
modules = ["pypi/Django-*/django/contrib/admin/**", "pypi/Django-*/django/contrib/gis/**", "pypi/Django-*/django/contrib/postgres/**"]
severity = "info"

[cycles]
forbid = true
"#;

fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_BENCH_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-corpus")
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!(
            "no corpus at {}: run benches/corpus.sh, or pass a directory (cargo bench --bench rules -- DIR, or CODEGRAPH_BENCH_CORPUS=DIR)",
            corpus.display()
        );
        std::process::exit(2);
    }
    let corpus = corpus.canonicalize().expect("corpus path");
    let scratch = tempfile::tempdir().expect("temporary directory");
    let rules_path = scratch.path().join("rules.toml");
    std::fs::write(&rules_path, RULES).expect("rules file");
    let rules = Arc::new(RuleSet::parse(RULES));
    assert!(rules.problems.is_empty(), "{:?}", rules.problems);
    println!("corpus   {}", corpus.display());
    println!(
        "rules    {} rules (layers, forbid, independent, cycles)\n",
        rules.rules.len()
    );

    // CODEGRAPH_BENCH_ONLY=edit skips the full checks (a and b).
    let only_edit = std::env::var("CODEGRAPH_BENCH_ONLY").is_ok_and(|only| only == "edit");
    if !only_edit {
        cli_check(&corpus, scratch.path(), &rules_path);
    }

    let started = Instant::now();
    let world = World::open(
        &corpus,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .expect("world");
    let report = world.index(false, &|_, _| {});
    println!(
        "indexed  {} files, {} entities in {:.1} s (in process, no cache)\n",
        report.files,
        report.entities,
        started.elapsed().as_secs_f64()
    );
    if !only_edit {
        in_process_check(&world, &rules);
    }
    world.analysis().rules().set_path(rules_path.clone());
    edit_to_diagnostic(&world);
}

fn run(command: &mut Command) -> (Duration, std::process::Output) {
    let started = Instant::now();
    let output = command.output().expect("codegraph runs");
    (started.elapsed(), output)
}

fn cli_check(corpus: &Path, scratch: &Path, rules: &Path) {
    let cache = scratch.join("cache");
    let binary = env!("CARGO_BIN_EXE_codegraph");
    let check = || {
        let mut command = Command::new(binary);
        command
            .args(["check", "--rules"])
            .arg(rules)
            .arg("--cache-dir")
            .arg(&cache)
            .arg("-r")
            .arg(corpus);
        command
    };
    let stats = || {
        let mut command = Command::new(binary);
        command
            .args(["stats", "--cache-dir"])
            .arg(&cache)
            .arg("-r")
            .arg(corpus);
        command
    };
    let (cold, output) = run(&mut check());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    println!(
        "(a) FULL CHECK, CLI (`codegraph check`, exit {}): {summary}",
        output.status.code().unwrap_or(-1)
    );
    let problems: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains("error rules-file:"))
        .collect();
    for problem in &problems {
        println!("    {problem}");
    }
    println!(
        "    first run (builds the cache): {:.2} s",
        cold.as_secs_f64()
    );
    let mut checks = Vec::new();
    let mut floors = Vec::new();
    for _ in 0..5 {
        checks.push(run(&mut check()).0);
        floors.push(run(&mut stats()).0);
    }
    let (check_min, floor_min) = (*checks.iter().min().unwrap(), *floors.iter().min().unwrap());
    let (check_median, floor_median) = (median(checks), median(floors));
    println!(
        "    warm cache: median {}, min {}; floor `codegraph stats` median {}, min {} (ratio {:.2})\n",
        ms(check_median),
        ms(check_min),
        ms(floor_median),
        ms(floor_min),
        check_median.as_secs_f64() / floor_median.as_secs_f64()
    );
}

fn in_process_check(world: &World, rules: &Arc<RuleSet>) {
    let graph = world.snapshot();
    let mut checks = Vec::new();
    let mut floors = Vec::new();
    let mut violations = 0;
    for _ in 0..5 {
        let started = Instant::now();
        let mut checker = Checker::new(rules.clone());
        checker.update(&graph);
        violations = checker.violations().len();
        checks.push(started.elapsed());
        let started = Instant::now();
        let dependencies: usize = graph
            .files()
            .map(|file| deps::dependencies(&graph, file).len())
            .sum();
        floors.push(started.elapsed());
        std::hint::black_box(dependencies);
    }
    let (check, floor) = (median(checks), median(floors));
    println!(
        "(b) FULL CHECK, in process: {violations} violations; median {} over {} files; floor (every file's dependencies) {} (ratio {:.2})\n",
        ms(check),
        graph.file_count(),
        ms(floor),
        check.as_secs_f64() / floor.as_secs_f64()
    );
}

/// The Django ORM file closest to 2,000 lines.
fn orm_file(world: &World) -> Option<String> {
    let graph = world.snapshot();
    graph
        .files()
        .filter(|file| file.path.contains("/django/db/") && file.path.ends_with(".py"))
        .map(|file| {
            let lines = file.text().unwrap_or_default().lines().count() as i64;
            ((lines - 2000).abs(), file.path.to_string())
        })
        .min()
        .map(|(_, path)| path)
}

fn edit_to_diagnostic(world: &World) {
    let Some(path) = orm_file(world) else {
        println!("(c) EDIT → DIAGNOSTIC: absent (no Django ORM file in the corpus)");
        return;
    };
    let graph = world.snapshot();
    let text = graph
        .file(&path)
        .expect("file")
        .text()
        .expect("the text")
        .to_string();
    let lines = text.lines().count();
    drop(graph);
    world.open_buffer(&path, 1, text);
    // Under an alias no other file mentions: a plain `HttpResponse` binding would make the
    // writer re-resolve every file that mentions the name (hundreds in Django), which is the
    // writer's cost, not the rules'.
    let import = "from django.http import HttpResponse as CodegraphBenchResponse\n";
    let at_top = |text: &str, end: u32| TextEdit {
        range: Some((
            ClientPosition { line: 0, column: 0 },
            ClientPosition {
                line: end,
                column: 0,
            },
        )),
        text: text.to_string(),
        encoding: ColumnEncoding::Utf16,
    };
    // Per edit: how many files the checker evaluated again, and over how many nodes of the
    // cycles' graph it recomputed components (the reach of what the edit moved).
    let work = std::cell::RefCell::new(Vec::<(usize, usize)>::new());
    let diagnostics = |world: &World| -> Vec<String> {
        let graph = world.snapshot();
        world
            .analysis()
            .rules()
            .with(world.root(), &graph, |status| match status {
                Status::NoRules { path } => panic!("no rules at {}", path.display()),
                Status::Ready { checker, .. } => {
                    work.borrow_mut()
                        .push((checker.last_evaluated(), checker.last_cycle_nodes()));
                    checker
                        .file_violations(&path)
                        .into_iter()
                        .filter(|violation| violation.line == 1)
                        .map(|violation| violation.rule.to_string())
                        .collect()
                }
            })
    };
    // Warm: the first check evaluates every file.
    let started = Instant::now();
    let before = diagnostics(world);
    println!(
        "(c) EDIT → DIAGNOSTIC on {path} ({lines} lines); the first check after indexing took {}",
        ms(started.elapsed())
    );
    assert!(
        !before.contains(&"orm-knows-no-http".to_string()),
        "{before:?}"
    );
    let mut version = 1;
    let mut added = Vec::with_capacity(ITERATIONS);
    let mut removed = Vec::with_capacity(ITERATIONS);
    let mut floor = Vec::with_capacity(2 * ITERATIONS);
    for round in 0..2 * ITERATIONS {
        let with_diagnostics = round % 2 == 0;
        if round % 100 == 99 {
            let last = added.last().copied().unwrap_or_default();
            println!(
                "    ... {} rounds, the last import added → diagnostic in {}",
                round + 1,
                ms(last)
            );
        }
        // Add the import.
        version += 1;
        let started = Instant::now();
        world.edit_buffer(&path, version, &[at_top(import, 0)]);
        if with_diagnostics {
            let found = diagnostics(world);
            added.push(started.elapsed());
            assert!(
                found.contains(&"orm-knows-no-http".to_string()),
                "the forbidden import shows no diagnostic: {found:?}"
            );
        } else {
            std::hint::black_box(world.snapshot());
            floor.push(started.elapsed());
        }
        // Remove it.
        version += 1;
        let started = Instant::now();
        world.edit_buffer(&path, version, &[at_top("", 1)]);
        if with_diagnostics {
            let found = diagnostics(world);
            removed.push(started.elapsed());
            assert_eq!(found, before, "removing the import clears its diagnostic");
        } else {
            std::hint::black_box(world.snapshot());
            floor.push(started.elapsed());
        }
    }
    added.sort();
    removed.sort();
    floor.sort();
    let mut work = work.into_inner();
    let (first_evaluated, first_cycle_nodes) = work.remove(0);
    let median_of = |values: Vec<usize>| -> usize {
        let mut values = values;
        values.sort();
        values[values.len() / 2]
    };
    println!(
        "    checker work per edit (median): {} files evaluated again, cycles recomputed over {} nodes (max {}); the first check: {} files, {} nodes",
        median_of(work.iter().map(|(files, _)| *files).collect()),
        median_of(work.iter().map(|(_, nodes)| *nodes).collect()),
        work.iter().map(|(_, nodes)| *nodes).max().unwrap_or(0),
        first_evaluated,
        first_cycle_nodes
    );
    println!(
        "    import added → diagnostic shown:     p50 {}, p99 {}",
        ms(percentile(&added, 0.5)),
        ms(percentile(&added, 0.99))
    );
    println!(
        "    import removed → diagnostic cleared: p50 {}, p99 {}",
        ms(percentile(&removed, 0.5)),
        ms(percentile(&removed, 0.99))
    );
    println!(
        "    floor (the edit alone):              p50 {}, p99 {} (ratio of p50s {:.2})",
        ms(percentile(&floor, 0.5)),
        ms(percentile(&floor, 0.99)),
        percentile(&added, 0.5).as_secs_f64() / percentile(&floor, 0.5).as_secs_f64()
    );
}
