//! The SCIP export benchmark: a program that prints figures, never a test that fails on timing.
//!
//!   benches/corpus.sh                    # once: assemble bench-corpus/ (about 1.8M lines)
//!   cargo bench --bench scip [-- DIR]    # or CODEGRAPH_BENCH_CORPUS=DIR
//!
//! Indexes the corpus (no cache), then, each the median of `RUNS` passes:
//! - the FLOOR: what any export must do, read every entity (materialised) and every edge of the
//!   graph once;
//! - the EXPORT: `export::scip::export` (symbols, occurrences, relationships, manifests), and
//!   the protobuf encoding, timed apart.
//!
//! It prints the times, the ratio export/floor, the extra memory of an export (peak RSS during
//! it minus the RSS before it), and the index's size and counts.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codegraph::export::scip::export;
use codegraph::world::{CacheLocation, World, WorldConfig};
use protobuf::Message;

const RUNS: usize = 3;

fn main() {
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!(
            "no corpus at {}: run benches/corpus.sh, or pass a directory (cargo bench --bench scip -- DIR, or CODEGRAPH_BENCH_CORPUS=DIR)",
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
    let started = Instant::now();
    world.index(true, &|_, _| {});
    let graph = world.snapshot();
    let lines: u64 = graph
        .files()
        .map(|file| u64::from(file.summary.line_count))
        .sum();
    println!(
        "indexed  {} files, {} lines, {} entities in {:.1} s\n",
        graph.file_count(),
        lines,
        graph.entity_count(),
        started.elapsed().as_secs_f64()
    );

    let floor = median(|| {
        let started = Instant::now();
        let mut touched = 0usize;
        for file in graph.files() {
            touched += graph.file_entities(&file.path).len();
            touched += file.resolved.edges.len();
        }
        std::hint::black_box(touched);
        started.elapsed()
    });

    let mut sizes = (0usize, 0u64);
    let mut extra_kib = Vec::new();
    let mut encode_times = Vec::new();
    let exported = median(|| {
        let before = rss_kib("VmRSS:");
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let started = Instant::now();
        let (index, report) = export(&graph, &corpus, Vec::new());
        let elapsed = started.elapsed();
        let encoding = Instant::now();
        let bytes = index.write_to_bytes().expect("encodes");
        encode_times.push(encoding.elapsed());
        if let (Some(before), Some(peak), true) = (before, rss_kib("VmHWM:"), reset) {
            extra_kib.push(peak.saturating_sub(before));
        }
        sizes = (report.references, bytes.len() as u64);
        println!(
            "  pass: export {:.2} s; {} documents, {} definitions, {} references, {} into dependencies, {} relationships; left out {} guesses, {} ambiguous",
            elapsed.as_secs_f64(),
            report.documents,
            report.definitions,
            report.references,
            report.external_references,
            report.relationships,
            report.guesses_left_out,
            report.ambiguous_left_out
        );
        drop(bytes);
        drop(index);
        elapsed
    });
    encode_times.sort();
    extra_kib.sort();
    println!(
        "\nFLOOR (every entity and edge read once)  {:.3} s",
        floor.as_secs_f64()
    );
    println!(
        "EXPORT (symbols, occurrences, relationships)  {:.3} s   ratio export/floor {:.1}x",
        exported.as_secs_f64(),
        exported.as_secs_f64() / floor.as_secs_f64()
    );
    println!(
        "ENCODE (protobuf)  {:.3} s; index {:.1} MiB",
        encode_times[encode_times.len() / 2].as_secs_f64(),
        sizes.1 as f64 / (1024.0 * 1024.0)
    );
    match extra_kib.get(extra_kib.len() / 2) {
        Some(kib) => println!(
            "extra memory of an export and its encoding (peak RSS minus RSS before): {:.0} MiB",
            *kib as f64 / 1024.0
        ),
        None => println!("extra memory: not measured (the kernel refused to reset the peak RSS)"),
    }
    println!(
        "per million lines: export {:.2} s",
        exported.as_secs_f64() / (lines as f64 / 1e6)
    );
}

fn median(mut pass: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS).map(|_| pass()).collect();
    times.sort();
    times[RUNS / 2]
}

/// A field of /proc/self/status, in KiB.
fn rss_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The first argument that is not a flag, else $CODEGRAPH_BENCH_CORPUS, else `bench-corpus/`.
fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_BENCH_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-corpus")
}
