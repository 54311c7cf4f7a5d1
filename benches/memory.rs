//! Where a graph's memory goes: a program that prints figures, never a test.
//!
//!   cargo bench --bench memory [-- DIR]     # or CODEGRAPH_BENCH_CORPUS=DIR; default bench-corpus
//!
//! Indexes the corpus as `codegraph index --no-cache` does, then prints the process's resident
//! memory (now and at its peak) and, per kind of record the graph keeps per file (definitions,
//! references, bindings, imports, inheritance, resolved edges, ambiguous and external
//! references, ...), how many there are and their inline size (`size_of` times the count; the
//! bytes their lists hold, not the lists' spare room or the allocator's overhead). Before them,
//! what the rest is: resident memory split into the heap and the binary's pages (the grammars'
//! parse tables), the program's live allocations as a counting allocator sees them (the
//! interned strings' table among them), glibc's
//! heap in use and freed, and the interned strings (`CODEGRAPH_MEMORY_STRINGS=1`: by shape).
//! What none of these explains is the graph's indices. The memory target is in MB per million
//! lines: the figure the first line prints. Last, it opens 100 documents as an editor
//! would (the selection `benches/lsp.rs` opens) and prints what that added, live and resident.
#![allow(clippy::print_stdout)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::mem::size_of;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use codegraph::graph::{AmbiguousRef, Edge, ExternalRef, FileNode, NameEntry, Resolved};
use codegraph::index::{Binding, Def, FileSummary, Import, Inherit, Ref};
use codegraph::world::{CacheLocation, World, WorldConfig};

/// Counts the program's live allocations and the bytes it asked for: against glibc's figure,
/// what each allocation costs beyond its bytes (header, rounding).
struct Counting;

static LIVE_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only counters are added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        LIVE_ALLOCATIONS.fetch_sub(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(pointer, layout) }
    }
    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A field of this process's `/proc/self/status`, in KiB (0 when absent).
fn status_kib(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// `VmRSS` and `VmHWM` of this process, in KiB.
fn resident() -> (u64, u64) {
    (status_kib("VmRSS:"), status_kib("VmHWM:"))
}

/// glibc's own account of its heap: bytes in use by the program, bytes free in its arenas.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn heap() -> Option<(usize, usize)> {
    // SAFETY: `mallinfo2` takes nothing and returns a plain struct by value (glibc 2.33+).
    let info = unsafe { libc::mallinfo2() };
    Some((info.uordblks + info.hblkhd, info.fordblks))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap() -> Option<(usize, usize)> {
    None
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

    // Resident memory is the heap (anonymous pages) and the pages of the binary it touched
    // (file-backed: the grammars' parse tables are most of those).
    println!(
        "  resident: {:.1} MB anonymous, {:.1} MB of files (the binary's pages)",
        mb(status_kib("RssAnon:")),
        mb(status_kib("RssFile:")),
    );
    println!(
        "  live allocations: {} ({:.1} MB asked for; {:.0} bytes on average)",
        LIVE_ALLOCATIONS.load(Ordering::Relaxed),
        LIVE_BYTES.load(Ordering::Relaxed) as f64 / 1e6,
        LIVE_BYTES.load(Ordering::Relaxed) as f64
            / LIVE_ALLOCATIONS.load(Ordering::Relaxed).max(1) as f64,
    );
    if let Some((used, free)) = heap() {
        println!(
            "  heap (glibc): {:.1} MB in use, {:.1} MB freed and kept by the allocator",
            used as f64 / 1e6,
            free as f64 / 1e6
        );
    }
    let (strings, table) = codegraph::model::names_footprint();
    println!(
        "  interned strings (names, ids, paths): {strings} strings, {:.1} MB with their table",
        table as f64 / 1e6,
    );
    if std::env::var_os("CODEGRAPH_MEMORY_STRINGS").is_some() {
        // What the interned strings are, by shape: ids (`path::name`), paths, other names.
        let mut shapes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for text in codegraph::model::interned_texts() {
            let shape = if text.contains("::") && text.contains('/') {
                "entity ids"
            } else if text.contains('/') {
                "paths"
            } else if text.contains('(') || text.contains(' ') {
                "code (signatures, expressions)"
            } else {
                "names"
            };
            let entry = shapes.entry(shape).or_default();
            entry.0 += 1;
            entry.1 += text.len();
        }
        for (shape, (count, bytes)) in shapes {
            println!(
                "    {shape:40} {count:>10} strings {:>8.1} MB of text",
                bytes as f64 / 1e6
            );
        }
    }
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
            .map(|def| def.signature().len() + def.doc().map_or(0, str::len))
            .sum();
        add("definitions' signatures and docs (bytes)", text, 1);
        add("references", summary.refs.len(), size_of::<Ref>());
        add("bindings", summary.bindings.len(), size_of::<Binding>());
        add("imports", summary.imports.len(), size_of::<Import>());
        add("inheritance", summary.inherits.len(), size_of::<Inherit>());
        add("line tables (bytes)", summary.lines.heap_bytes(), 1);
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
    // A one-shot command stops here; a server first builds what edits need (the mention
    // indices, `GraphWriter::prepare_changes`) and holds it from then on.
    let live = LIVE_BYTES.load(Ordering::Relaxed);
    world.prepare_changes();
    let (ready, peak) = resident();
    println!(
        "ready for edits (a server): resident {:.1} MB, peak {:.1} MB = {:.0} MB per million lines; live allocations +{:.1} MB",
        mb(ready),
        mb(peak),
        mb(peak) / (lines as f64 / 1e6),
        (LIVE_BYTES.load(Ordering::Relaxed) as f64 - live as f64) / 1e6,
    );
    open_documents(&world, &corpus);
}

/// What 100 documents opened in an editor add (the selection `benches/lsp.rs` opens): the live
/// allocations' growth against the resident memory's, once freed memory went back to the
/// system, and the text's size. The live growth is what the graph keeps per open document; the
/// rest of the resident growth is the allocator's (pages holding both live and freed memory).
fn open_documents(world: &World, corpus: &std::path::Path) {
    world.prepare_changes();
    let files = codegraph::world::walk::walk(corpus, 1024 * 1024).files;
    let step = (files.len() / 100).max(1);
    let opened: Vec<(String, String)> = files
        .iter()
        .step_by(step)
        .take(100)
        .map(|file| {
            let text = std::fs::read_to_string(&file.absolute).unwrap_or_default();
            (file.relative.clone(), text)
        })
        .collect();
    let text: usize = opened.iter().map(|(_, text)| text.len()).sum();
    trim();
    let (live_before, rss_before) = (LIVE_BYTES.load(Ordering::Relaxed), resident().0);
    for (relative, text) in &opened {
        world.open_buffer(relative, 1, text.clone());
    }
    trim();
    let (live_after, rss_after) = (LIVE_BYTES.load(Ordering::Relaxed), resident().0);
    println!(
        "open documents: {} documents, {:.2} MB of text: live allocations +{:.2} MB ({:.2} x the text), resident +{:.2} MB ({:.2} x)",
        opened.len(),
        text as f64 / 1e6,
        live_after.saturating_sub(live_before) as f64 / 1e6,
        live_after.saturating_sub(live_before) as f64 / text as f64,
        rss_after.saturating_sub(rss_before) as f64 * 1024.0 / 1e6,
        rss_after.saturating_sub(rss_before) as f64 * 1024.0 / text as f64,
    );
}

/// Gives freed memory back to the system, as the server does once it is quiet.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn trim() {
    // SAFETY: `malloc_trim` only returns free memory of glibc's arenas to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
