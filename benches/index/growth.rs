//! The growth series: how the cost grows with the size of the repository.
//!
//!   CODEGRAPH_BENCH_ONLY=growth cargo bench --bench index
//!
//! For each corpus (the mix of `benches/corpus.sh`, and the Linux kernel of `benches/corpus.sh
//! --kernel` when $CODEGRAPH_BENCH_KERNEL or `<repo>/bench-kernel` holds it) and each size in
//! $CODEGRAPH_BENCH_SIZES (lines; default 1000000,5000000 and the whole corpus), the first files
//! of the corpus in path order up to that many lines are hard-linked into a scratch directory
//! (under the corpus's hidden `.cache/`), and a fresh process of this benchmark measures them:
//!
//! - the full index as a user's first `codegraph index` does it (walk, read, parse, extract,
//!   resolve, write the cache), wall and CPU time (user + system, all threads), and its peak RSS
//!   (VmHWM of that process: nothing else ran in it before);
//! - the cache's size on disk, and a warm start from it (a new `World`: every file stat-ed,
//!   nothing parsed, and no file read whose stamp is the settled one the cache recorded; the
//!   measurement starts three seconds after the files were linked, so that their stamps are
//!   settled as a user's files are, and the table says how many were not read);
//! - `workspace/symbol` (20 queries: names of the graph, prefixes, humps, a miss) and callers
//!   (200 entities that have callers) on that graph, p50 and p99, through the same functions
//!   the LSP and MCP handlers call;
//! - the floor: every file read and parsed by tree-sitter on all cores, in the same process
//!   after the index, and the ratio of the index to it (wall and CPU).
//!
//! One run per size (the largest take minutes); the table says so.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codegraph::world::{CacheLocation, World, WorldConfig};
use rayon::prelude::*;
use serde_json::{Value, json};

const CHILD_ENV: &str = "CODEGRAPH_BENCH_GROWTH_CHILD";

/// Runs the series and prints the table; `corpus` is the mix.
pub fn run(corpus: &Path) {
    let mut corpora: Vec<(&str, PathBuf)> = vec![("mix", corpus.to_path_buf())];
    let kernel = std::env::var_os("CODEGRAPH_BENCH_KERNEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-kernel"));
    if kernel.join(".complete").exists() {
        corpora.push(("kernel", kernel));
    } else {
        println!(
            "(no kernel at {}: `benches/corpus.sh --kernel` fetches it)",
            kernel.display()
        );
    }
    let sizes: Vec<u64> = std::env::var("CODEGRAPH_BENCH_SIZES")
        .ok()
        .map(|sizes| {
            sizes
                .split(',')
                .filter_map(|size| size.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|| vec![1_000_000, 5_000_000]);
    println!("GROWTH SERIES (one run per size; the machine may be shared: compare CPU time)");
    println!(
        "  {:<7} {:>11} {:>8} {:>9} {:>8} {:>8} {:>10} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "corpus",
        "lines",
        "index s",
        "index cpu",
        "floor s",
        "ratio",
        "cpu ratio",
        "peak MiB",
        "MB/Mline",
        "cache MB",
        "warm s",
        "not read",
        "sym p99",
        "call p50",
        "call p99"
    );
    for (name, root) in &corpora {
        let files = listing(root);
        let total: u64 = files.iter().map(|(_, lines)| lines).sum();
        let mut targets: Vec<u64> = sizes.iter().copied().filter(|size| *size < total).collect();
        targets.push(total);
        for target in targets {
            let directory = if target >= total {
                root.clone()
            } else {
                match subset(root, &files, target) {
                    Ok(directory) => directory,
                    Err(error) => {
                        println!("  {name:<7} {target:>11}  (subset not made: {error})");
                        continue;
                    }
                }
            };
            match measure_in_child(&directory) {
                Some(row) => {
                    print_row(name, &row);
                    if *name == "kernel" && target >= total {
                        print_kernel_targets(&row);
                    }
                }
                None => println!("  {name:<7} {target:>11}  (the measuring process failed)"),
            }
        }
    }
}

/// In the child process (`CHILD_ENV` set): measures one directory, prints one JSON line.
/// Returns false when this is not the child.
pub fn child() -> bool {
    let Some(directory) = std::env::var_os(CHILD_ENV) else {
        return false;
    };
    let row = measure(Path::new(&directory));
    println!("{row}");
    true
}

fn measure_in_child(directory: &Path) -> Option<Value> {
    let output = std::process::Command::new(std::env::current_exe().ok()?)
        .env(CHILD_ENV, directory)
        .stderr(std::process::Stdio::inherit())
        .output()
        .ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
}

/// Every file the index would read, with its line count, in path order.
fn listing(root: &Path) -> Vec<(codegraph::world::walk::SourceFile, u64)> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut files = codegraph::world::walk::walk(&root, 1024 * 1024).files;
    files.sort_by(|left, right| left.relative.cmp(&right.relative));
    files
        .into_par_iter()
        .map(|file| {
            let lines = std::fs::read(&file.absolute)
                .map(|bytes| bytes.iter().filter(|byte| **byte == b'\n').count() as u64)
                .unwrap_or(0);
            (file, lines)
        })
        .collect()
}

/// The first files in path order holding `target` lines, hard-linked (copied where links are
/// refused) into `<root>/.cache/growth/<target>/`.
fn subset(
    root: &Path,
    files: &[(codegraph::world::walk::SourceFile, u64)],
    target: u64,
) -> std::io::Result<PathBuf> {
    let directory = root.join(".cache/growth").join(target.to_string());
    let marker = directory.join(".complete");
    if marker.exists() {
        return Ok(directory);
    }
    if directory.exists() {
        std::fs::remove_dir_all(&directory)?;
    }
    let mut lines = 0;
    for (file, count) in files {
        if lines >= target {
            break;
        }
        lines += count;
        let destination = directory.join(&file.relative);
        if let Some(parent) = destination.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if std::fs::hard_link(&file.absolute, &destination).is_err() {
            std::fs::copy(&file.absolute, &destination)?;
        }
    }
    std::fs::write(&marker, b"")?;
    Ok(directory)
}

/// User plus system time of this process, all threads.
pub fn cpu_time() -> Duration {
    // utime and stime are fields 14 and 15 of the whole line.
    stat_time(14)
}

/// User plus system time of this process's children that were waited for.
pub fn children_cpu_time() -> Duration {
    // cutime and cstime are fields 16 and 17 of the whole line.
    stat_time(16)
}

/// The time in two consecutive fields of `/proc/self/stat`, the first at `field` (one-based,
/// over the whole line, as `proc(5)` numbers them).
fn stat_time(field: usize) -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (field 2, in parentheses and maybe holding spaces): field
    // 3 is the first of them.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |field: usize| {
        fields
            .get(field - 3)
            .and_then(|value| value.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // USER_HZ is 100 on Linux.
    Duration::from_millis((ticks(field) + ticks(field + 1)) * 10)
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmHWM:"))
                .and_then(|line| line.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn measure(directory: &Path) -> Value {
    // Files linked a moment ago have stamps too fresh to vouch for their content; a user's
    // files, unchanged for longer, do not.
    std::thread::sleep(Duration::from_millis(3100));
    let cache = tempfile::tempdir().expect("temporary directory");
    let config = WorldConfig {
        cache: CacheLocation::Directory(cache.path().to_path_buf()),
        ..WorldConfig::default()
    };
    // The index, as a user's first run does it.
    let (cpu_before, started) = (cpu_time(), Instant::now());
    let world = World::open(directory, config.clone()).expect("corpus opens");
    let report = world.index(false, &|_, _| {});
    let index_wall = started.elapsed();
    let index_cpu = cpu_time() - cpu_before;
    let peak_kib = peak_rss_kib();
    let cache_bytes = std::fs::read_dir(cache.path())
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.metadata().ok())
                .map(|metadata| metadata.len())
                .sum::<u64>()
        })
        .unwrap_or(0);

    // Queries on that graph.
    let graph = world.snapshot();
    let (symbol_p50, symbol_p99) = latencies(symbol_queries(&graph), |query| {
        std::hint::black_box(codegraph::graph::query::symbols(&graph, query, 100));
    });
    let with_callers = entities_with_callers(&graph, 200);
    let (callers_p50, callers_p99) = latencies(with_callers, |id| {
        std::hint::black_box(codegraph::graph::query::callers(&graph, id));
    });
    drop(graph);
    drop(world);

    // A warm start from the cache just written.
    let started = Instant::now();
    let warm = World::open(directory, config).expect("corpus opens");
    let warm_report = warm.index(false, &|_, _| {});
    let warm_wall = started.elapsed();
    drop(warm);

    // The floor: read and parse every file, on all cores.
    let files = codegraph::world::walk::walk(
        &directory
            .canonicalize()
            .unwrap_or_else(|_| directory.to_path_buf()),
        1024 * 1024,
    )
    .files;
    let (cpu_before, started) = (cpu_time(), Instant::now());
    files.par_iter().for_each(|file| {
        if let Ok(bytes) = std::fs::read(&file.absolute) {
            if codegraph::syntax::looks_binary(&bytes) {
                return;
            }
            let text = codegraph::syntax::decode_lossy(bytes);
            std::hint::black_box(codegraph::syntax::parse_plain(file.language, &text));
        }
    });
    let floor_wall = started.elapsed();
    let floor_cpu = cpu_time() - cpu_before;

    json!({
        "lines": report.lines,
        "files": report.files,
        "index_s": index_wall.as_secs_f64(),
        "index_cpu_s": index_cpu.as_secs_f64(),
        "floor_s": floor_wall.as_secs_f64(),
        "floor_cpu_s": floor_cpu.as_secs_f64(),
        "peak_kib": peak_kib,
        "cache_bytes": cache_bytes,
        "warm_s": warm_wall.as_secs_f64(),
        "warm_parsed": warm_report.parsed,
        "warm_unread": warm_report.unread,
        "symbols_p50_ms": symbol_p50,
        "symbols_p99_ms": symbol_p99,
        "callers_p50_ms": callers_p50,
        "callers_p99_ms": callers_p99,
    })
}

/// The query latencies alone on `directory`'s graph, loaded from its cache in the workspace
/// (indexed and cached first if it has none), with the slowest inputs: what to look at when a
/// p99 misses.
pub fn queries(directory: &Path) {
    let started = Instant::now();
    let world = World::open(directory, WorldConfig::default()).expect("corpus opens");
    let report = world.index(false, &|_, _| {});
    let graph = world.snapshot();
    println!(
        "graph: {} files ({} parsed, {} from the cache) in {:.1} s",
        report.files,
        report.parsed,
        report.from_cache,
        started.elapsed().as_secs_f64()
    );
    let slowest = |mut timed: Vec<(Duration, String, usize)>| {
        timed.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        timed
            .iter()
            .take(3)
            .map(|(time, input, count)| {
                format!(
                    "{input} ({count} results, {:.2} ms)",
                    time.as_secs_f64() * 1000.0
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    // Twice each: the first symbol search of a revision builds its name list.
    for round in ["first", "again"] {
        let mut timed = Vec::new();
        for query in symbol_queries(&graph) {
            let started = Instant::now();
            let found = codegraph::graph::query::symbols(&graph, &query, 100).len();
            timed.push((started.elapsed(), query, found));
        }
        let (p50, p99) = percentiles(timed.iter().map(|(time, ..)| *time).collect());
        println!(
            "workspace/symbol ({round}): p50 {p50:.2} ms, p99 {p99:.2} ms; slowest {}",
            slowest(timed)
        );
    }
    for round in ["first", "again"] {
        let mut timed = Vec::new();
        for id in entities_with_callers(&graph, 200) {
            let started = Instant::now();
            let found = codegraph::graph::query::callers(&graph, &id).len();
            timed.push((started.elapsed(), id, found));
        }
        let (p50, p99) = percentiles(timed.iter().map(|(time, ..)| *time).collect());
        println!(
            "callers ({round}): p50 {p50:.2} ms, p99 {p99:.2} ms; slowest {}",
            slowest(timed)
        );
    }
}

/// 20 varied queries: names of the graph, their prefixes and humps, a nonsense word.
fn symbol_queries(graph: &codegraph::graph::Graph) -> Vec<String> {
    let names = graph.names();
    let mut queries = Vec::new();
    if names.is_empty() {
        return queries;
    }
    let step = (names.len() / 6).max(1);
    for name in names.iter().step_by(step).take(6) {
        queries.push(name.to_string());
        queries.push(name.chars().take(3).collect());
        let humps: String = name
            .split('_')
            .filter_map(|part| part.chars().next())
            .collect();
        queries.push(humps);
    }
    queries.push("zzqxv".to_string());
    queries.push("get".to_string());
    queries
}

fn entities_with_callers(graph: &codegraph::graph::Graph, count: usize) -> Vec<String> {
    // Interned ids, not a `String` per edge: freeing millions of small strings just before the
    // measurement made glibc consolidate its free lists inside the first query timed (60 ms
    // of `malloc_consolidate` in one call on the kernel), a cost of the benchmark, not of the
    // query.
    let mut targets: Vec<codegraph::graph::EntityId> = graph
        .all_edges()
        .filter(|edge| edge.kind == codegraph::model::RelationKind::Calls)
        .map(|edge| edge.to)
        .collect();
    targets.sort();
    targets.dedup();
    let step = (targets.len() / count).max(1);
    targets
        .into_iter()
        .step_by(step)
        .take(count)
        .map(|id| id.to_string())
        .collect()
}

/// p50 and p99 of `work` over `inputs`, in milliseconds.
fn latencies(inputs: Vec<String>, work: impl Fn(&str)) -> (f64, f64) {
    percentiles(
        inputs
            .iter()
            .map(|input| {
                let started = Instant::now();
                work(input);
                started.elapsed()
            })
            .collect(),
    )
}

/// p50 and p99 of some durations, in milliseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0);
    }
    times.sort();
    let at = |fraction: f64| {
        let index = ((times.len() as f64 * fraction) as usize).min(times.len() - 1);
        times[index].as_secs_f64() * 1000.0
    };
    (at(0.5), at(0.99))
}

fn print_row(corpus: &str, row: &Value) {
    let number = |key: &str| row[key].as_f64().unwrap_or(0.0);
    let lines = number("lines");
    let peak_mib = number("peak_kib") / 1024.0;
    let peak_mb = number("peak_kib") * 1024.0 / 1e6;
    println!(
        "  {:<7} {:>11} {:>8.2} {:>9.2} {:>8.2} {:>7.2}x {:>9.2}x {:>9.0} {:>8.0} {:>8.1} {:>9.2} {:>9} {:>8.2}ms {:>7.3}ms {:>7.3}ms",
        corpus,
        lines as u64,
        number("index_s"),
        number("index_cpu_s"),
        number("floor_s"),
        number("index_s") / number("floor_s").max(f64::EPSILON),
        number("index_cpu_s") / number("floor_cpu_s").max(f64::EPSILON),
        peak_mib,
        peak_mb / (lines / 1e6).max(f64::EPSILON),
        number("cache_bytes") / 1e6,
        number("warm_s"),
        number("warm_unread") as u64,
        number("symbols_p99_ms"),
        number("callers_p50_ms"),
        number("callers_p99_ms"),
    );
}

/// The whole kernel's figures against their targets (universal-ctags's time, the other half of
/// "≤ 2 × ctags", is not measured here).
fn print_kernel_targets(row: &Value) {
    let number = |key: &str| row[key].as_f64().unwrap_or(0.0);
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    let peak_gb = number("peak_kib") * 1024.0 / 1e9;
    println!(
        "  kernel targets: full index {:.0} s [<= 180 s: {}], peak RSS {peak_gb:.2} GB [<= 3 GB: {}], warm start {:.1} s [<= 15 s: {}], workspace/symbol p99 {:.2} ms [<= 30 ms: {}], callers p99 {:.3} ms [<= 2 ms: {}]",
        number("index_s"),
        verdict(number("index_s") <= 180.0),
        verdict(peak_gb <= 3.0),
        number("warm_s"),
        verdict(number("warm_s") <= 15.0),
        number("symbols_p99_ms"),
        verdict(number("symbols_p99_ms") <= 30.0),
        number("callers_p99_ms"),
        verdict(number("callers_p99_ms") <= 2.0),
    );
}
