//! One keystroke in an open document, from the edit to the new snapshot ready: a program that
//! prints figures, never a test.
//!
//!   cargo bench -p codegraph-world --bench keystroke -- FILE [FILE...]
//!
//! Each file (a real one, say a 5,000-line C file) and a generated 10 MB Python file of small
//! functions is opened in a workspace of its own, then typed into 200 times: a character
//! inserted at a pseudo-random line and column (fixed seed), then deleted again, alternately.
//! Prints p50 and p99 of `World::edit_buffer` through `World::snapshot`, the CPU time per edit,
//! and what the open document costs in live allocations (a counting allocator) once opened and
//! once edited (text, rope, syntax tree, captures, summary, the graph's node).
#![allow(clippy::print_stdout)] // a benchmark prints its figures

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use codegraph_world::buffer::{ClientPosition, ColumnEncoding, TextEdit};
use codegraph_world::{CacheLocation, World, WorldConfig};

/// Counts the bytes the program has allocated and not freed.
struct Counting;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only a counter is added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
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

const EDITS: usize = 200;
const GENERATED_BYTES: usize = 10 * 1024 * 1024;

fn main() {
    let files: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|argument| !argument.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    for file in &files {
        match std::fs::read_to_string(file) {
            Ok(text) => measure(&file.display().to_string(), file_name(file), text),
            Err(error) => println!("{}: {error}", file.display()),
        }
    }
    measure(
        "generated Python, small functions",
        "generated.py",
        generated_python(GENERATED_BYTES),
    );
}

fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("file.c")
}

/// Functions of three lines, each calling the one before, to `bytes`.
fn generated_python(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 128);
    let mut number: u32 = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "def function_{number}(argument):\n    value = argument + {number}\n    return function_{}(value)\n\n",
            number.saturating_sub(1)
        ));
        number += 1;
    }
    text
}

fn measure(label: &str, name: &str, text: String) {
    let directory = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(directory.path().join(name), &text).expect("the file written");
    let config = WorldConfig {
        max_file_size: 64 * 1024 * 1024,
        cache: CacheLocation::Disabled,
    };
    let world = World::open(directory.path(), config).expect("the workspace opened");
    world.index(true, &|_, _| {});
    world.prepare_changes();
    let lines: Vec<usize> = text.split('\n').map(str::len).collect();
    let bytes = text.len();
    let before_open = LIVE_BYTES.load(Ordering::Relaxed);
    world.open_buffer(name, 1, text);
    let opened = LIVE_BYTES
        .load(Ordering::Relaxed)
        .saturating_sub(before_open);
    let (times, cpu) = type_and_delete(&world, name, &lines);
    let edited = LIVE_BYTES
        .load(Ordering::Relaxed)
        .saturating_sub(before_open);
    let millis = |duration: Duration| duration.as_secs_f64() * 1000.0;
    let megabytes = |bytes: usize| bytes as f64 / 1e6;
    println!(
        "KEYSTROKE {label}: {} lines, {:.2} MB; {EDITS} single-character edits, edit to new snapshot: p50 {:.2} ms, p99 {:.2} ms; CPU {:.2} ms per edit",
        lines.len(),
        megabytes(bytes),
        millis(times[times.len() / 2]),
        millis(times[times.len() * 99 / 100]),
        millis(cpu),
    );
    println!(
        "  open document, live allocations: opened +{:.2} MB ({:.2} x the text), after the edits +{:.2} MB ({:.2} x)",
        megabytes(opened),
        opened as f64 / bytes as f64,
        megabytes(edited),
        edited as f64 / bytes as f64,
    );
}

/// Types a character at a pseudo-random position and deletes it again, alternately; the
/// sorted times from the edit to the new snapshot, and the process's CPU time per edit.
fn type_and_delete(world: &World, name: &str, lines: &[usize]) -> (Vec<Duration>, Duration) {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound.max(1) as u64) as u32
    };
    let mut times = Vec::with_capacity(EDITS);
    let cpu_before = cpu_time();
    let mut at = ClientPosition { line: 0, column: 0 };
    for edit_number in 0..EDITS {
        let typing = edit_number % 2 == 0;
        if typing {
            let line = next(lines.len());
            let column = next(lines[line as usize] + 1);
            at = ClientPosition { line, column };
        }
        let end = ClientPosition {
            line: at.line,
            column: at.column + u32::from(!typing),
        };
        let edit = TextEdit {
            range: Some((at, end)),
            text: if typing { "x" } else { "" }.to_string(),
            encoding: ColumnEncoding::Utf16,
        };
        let started = Instant::now();
        world.edit_buffer(name, edit_number as i32 + 2, &[edit]);
        let _seen = world.snapshot();
        times.push(started.elapsed());
    }
    let cpu = cpu_time().saturating_sub(cpu_before) / EDITS as u32;
    times.sort();
    (times, cpu)
}

/// The process's CPU time so far (user and system, every thread), from /proc/self/stat.
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|field| field.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime: the 14th and 15th fields of the line, 12th and 13th after the name.
    let total = ticks(11) + ticks(12);
    Duration::from_millis(total * 10)
}
