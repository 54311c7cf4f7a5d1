//! Where a graph's memory goes: a program that prints figures, never a test.
//!
//!   cargo bench --bench memory [-- DIR]     # or CODEGRAPH_BENCH_CORPUS=DIR; default bench-corpus
//!
//! Indexes the corpus as `codegraph index --no-cache` does, then prints the process's resident
//! memory (now and at its peak) and, per kind of record the graph keeps per file (definitions,
//! references, bindings, imports, inheritance, resolved edges, ambiguous and external
//! references, ...), how many there are and their inline size (`size_of` times the count; the
//! bytes their lists hold, not the lists' spare room or the allocator's overhead). What the
//! records do not explain is the graph's indices, the parser's grammars (the binary's pages),
//! the interned names' table and the allocator's overhead. Issue 12's memory target is in MB per
//! million lines: the figure the first line prints.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::mem::size_of;
use std::path::PathBuf;

use codegraph::graph::{AmbiguousRef, Edge, ExternalRef, FileNode, NameEntry, Resolved};
use codegraph::index::{Binding, Def, FileSummary, Import, Inherit, Ref};
use codegraph::world::{CacheLocation, World, WorldConfig};

/// `VmRSS` and `VmHWM` of this process, in KiB.
fn resident() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn main() {
    let corpus: PathBuf = std::env::args()
        .skip(1)
        .find(|argument| !argument.starts_with('-'))
        .or_else(|| std::env::var("CODEGRAPH_BENCH_CORPUS").ok())
        .unwrap_or_else(|| "bench-corpus".into())
        .into();
    let config = WorldConfig {
        cache: CacheLocation::Disabled,
        ..WorldConfig::default()
    };
    let world = match World::open(&corpus, config) {
        Ok(world) => world,
        Err(error) => {
            println!("cannot open {}: {error}", corpus.display());
            return;
        }
    };
    let (before, _) = resident();
    let report = world.index(true, &|_, _| {});
    let graph = world.snapshot();
    let (now, peak) = resident();
    let lines: u64 = graph
        .files()
        .map(|file| u64::from(file.summary.line_count))
        .sum();
    let mb = |kib: u64| kib as f64 * 1024.0 / 1e6;
    println!(
        "{} files, {lines} lines: resident {:.1} MB before the index, {:.1} MB now, peak {:.1} MB = {:.0} MB per million lines",
        report.files,
        mb(before),
        mb(now),
        mb(peak),
        mb(peak) / (lines as f64 / 1e6)
    );

    let mut records: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut add = |kind: &'static str, count: usize, size: usize| {
        let entry = records.entry(kind).or_default();
        entry.0 += count;
        entry.1 += count * size;
    };
    for file in graph.files() {
        let summary = &file.summary;
        add("definitions", summary.defs.len(), size_of::<Def>());
        let text: usize = summary
            .defs
            .iter()
            .map(|def| def.signature.len() + def.doc.as_ref().map_or(0, String::len))
            .sum();
        add("definitions' signatures and docs (bytes)", text, 1);
        add("references", summary.refs.len(), size_of::<Ref>());
        add("bindings", summary.bindings.len(), size_of::<Binding>());
        add("imports", summary.imports.len(), size_of::<Import>());
        add("inheritance", summary.inherits.len(), size_of::<Inherit>());
        add(
            "entity ids",
            file.ids.len(),
            size_of::<codegraph::graph::EntityId>(),
        );
        add(
            "files (node, summary, resolution)",
            1,
            size_of::<FileNode>() + size_of::<FileSummary>() + size_of::<Resolved>(),
        );
        let resolved = &file.resolved;
        add("resolved edges", resolved.edges.len(), size_of::<Edge>());
        add(
            "ambiguous references",
            resolved.ambiguous.len(),
            size_of::<AmbiguousRef>(),
        );
        add(
            "ambiguous candidates",
            resolved.ambiguous.iter().map(|a| a.candidates.len()).sum(),
            size_of::<codegraph::graph::EntityId>(),
        );
        add(
            "external references",
            resolved.external.len(),
            size_of::<ExternalRef>(),
        );
    }
    add(
        "name index entries",
        graph.entity_count(),
        size_of::<NameEntry>(),
    );
    let mut total = 0;
    for (kind, (count, bytes)) in &records {
        total += bytes;
        println!("  {kind:42} {count:>10}  {:>8.1} MB", *bytes as f64 / 1e6);
    }
    println!(
        "  {:42} {:>10}  {:>8.1} MB of {:.1} MB resident",
        "records in all",
        "",
        total as f64 / 1e6,
        mb(now)
    );
}
