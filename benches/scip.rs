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
use rustc_hash::{FxHashMap, FxHashSet};

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
    if let Some(reference) = std::env::var_os("CODEGRAPH_SCIP_REFERENCE") {
        compare(&corpus, Path::new(&reference));
        return;
    }
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

// --- Against another indexer ------------------------------------------------------------------

/// A definition's place: (path, line, column of its name).
type Place = (String, i32, i32);

/// Every definition's place by symbol, and every reference as (path, line, column) → the place
/// of the definition it reaches (references to symbols defined outside the index are dropped).
fn places(index: &scip::types::Index) -> (FxHashSet<Place>, FxHashMap<Place, Place>) {
    let mut defined: FxHashMap<&str, Place> = FxHashMap::default();
    for document in &index.documents {
        for occurrence in &document.occurrences {
            if occurrence.symbol_roles & scip::types::SymbolRole::Definition as i32 != 0
                && !occurrence.symbol.starts_with("local ")
            {
                defined.entry(&occurrence.symbol).or_insert((
                    document.relative_path.clone(),
                    occurrence.range[0],
                    occurrence.range[1],
                ));
            }
        }
    }
    let mut references = FxHashMap::default();
    for document in &index.documents {
        for occurrence in &document.occurrences {
            if occurrence.symbol_roles
                & (scip::types::SymbolRole::Definition as i32
                    | scip::types::SymbolRole::Import as i32)
                != 0
            {
                continue;
            }
            if let Some(target) = defined.get(occurrence.symbol.as_str()) {
                references.insert(
                    (
                        document.relative_path.clone(),
                        occurrence.range[0],
                        occurrence.range[1],
                    ),
                    target.clone(),
                );
            }
        }
    }
    (defined.into_values().collect(), references)
}

/// `CODEGRAPH_SCIP_REFERENCE=other.scip cargo bench --bench scip -- DIR`: codegraph's index of
/// DIR against another indexer's (scip-typescript, see benches/scip-reference.sh). Only the
/// definitions both index count (codegraph has no entities for variables, parameters or
/// properties): of the other's references to those, how many codegraph lists with the same
/// target (recall); of codegraph's references, how many the other lists (precision). Imports
/// are left out of both (the indexers put them on different tokens).
fn compare(corpus: &Path, reference: &Path) {
    let other = scip::types::Index::parse_from_bytes(&std::fs::read(reference).expect("reads"))
        .expect("a SCIP index");
    let world = World::open(
        corpus,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .expect("the corpus opens");
    world.index(true, &|_, _| {});
    let (ours, _) = export(&world.snapshot(), corpus, Vec::new());
    let (our_definitions, our_references) = places(&ours);
    let (their_definitions, their_references) = places(&other);
    let shared: FxHashSet<&Place> = our_definitions.intersection(&their_definitions).collect();
    println!(
        "definitions: codegraph {}, other {}, at the same place {}",
        our_definitions.len(),
        their_definitions.len(),
        shared.len()
    );
    let theirs: FxHashMap<&Place, &Place> = their_references
        .iter()
        .filter(|(_, target)| shared.contains(target))
        .collect();
    let mine: FxHashMap<&Place, &Place> = our_references
        .iter()
        .filter(|(_, target)| shared.contains(target))
        .collect();
    let agreed = mine
        .iter()
        .filter(|(site, target)| theirs.get(*site) == Some(*target))
        .count();
    println!(
        "references to shared definitions: codegraph {}, other {}, agreed {}",
        mine.len(),
        theirs.len(),
        agreed
    );
    println!(
        "precision {:.2} (of codegraph's), recall {:.2} (of the other's)",
        agreed as f64 / mine.len().max(1) as f64,
        agreed as f64 / theirs.len().max(1) as f64
    );
    let mut extra: Vec<_> = mine
        .iter()
        .filter(|(site, target)| theirs.get(*site) != Some(*target))
        .collect();
    extra.sort();
    for (site, target) in extra.iter().take(20) {
        println!("  codegraph only: {site:?} -> {target:?}");
    }
    let mut missed: Vec<_> = theirs
        .iter()
        .filter(|(site, target)| mine.get(*site) != Some(*target))
        .collect();
    missed.sort();
    for (site, target) in missed.iter().take(20) {
        println!("  other only:     {site:?} -> {target:?}");
    }
}
