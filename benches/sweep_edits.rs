//! The edit sweep over real code: files sampled from a corpus of packages (the one
//! `benches/sweep/corpus.sh` downloads), each typed through the editor's path
//! (`support/edit_sweep.rs`): every prefix at `--prefixes` cut points and `--random` single
//! characters deleted or inserted, and after each edit the incremental graph must equal a fresh
//! index of the same texts. The repository around a file is its directory (at most
//! `CONTEXT` source files of it), so that its imports and same-package names resolve.
//!
//! `cargo bench --bench sweep_edits -- CORPUS [--files N] [--prefixes N] [--random N] [--seed N]`
//!
//! Prints each file's edits and slowest edit, then files, edits, comparisons, mismatches (each
//! with the edit after which the graph was wrong) and the slowest edits. A mismatch or a panic
//! is a failure (exit status 1); a hang is caught by a watchdog (exit status 2).

#![allow(clippy::print_stdout)] // a benchmark prints its figures

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use codegraph::lang::Language;

#[path = "support/edit_sweep.rs"]
mod harness;

/// Source files of a sampled file's directory kept as its repository.
const CONTEXT: usize = 40;
/// Largest file swept: the sweep's cost grows with the text (each check indexes it afresh).
const MAX_BYTES: u64 = 60_000;
/// One file's sweep may take this long before it is called hung.
const HANG: Duration = Duration::from_secs(600);

struct Options {
    corpus: PathBuf,
    files: usize,
    plan: harness::Plan,
}

fn options() -> Options {
    let mut arguments = std::env::args()
        .skip(1)
        .filter(|argument| argument != "--bench");
    let mut options = Options {
        corpus: PathBuf::new(),
        files: 100,
        plan: harness::Plan {
            prefixes: 200,
            random: 200,
            seed: 7,
        },
    };
    while let Some(argument) = arguments.next() {
        let mut number = || {
            arguments
                .next()
                .and_then(|value| value.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{argument} takes a number"))
        };
        match argument.as_str() {
            "--files" => options.files = number(),
            "--prefixes" => options.plan.prefixes = number(),
            "--random" => options.plan.random = number(),
            "--seed" => options.plan.seed = number() as u64,
            _ => options.corpus = PathBuf::from(&argument),
        }
    }
    assert!(
        options.corpus.is_dir(),
        "usage: cargo bench --bench sweep_edits -- CORPUS [--files N] [--prefixes N] [--random N]"
    );
    options
}

/// Every source file of the corpus under the size limit, sorted.
fn sources(corpus: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = ignore::WalkBuilder::new(corpus)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .map(|entry| entry.into_path())
        .filter(|path| Language::from_path(path).is_some())
        .filter(|path| std::fs::metadata(path).is_ok_and(|metadata| metadata.len() <= MAX_BYTES))
        .collect();
    found.sort();
    found
}

/// `count` files spread evenly over `files` (the same every run for the same corpus).
fn sample(files: &[PathBuf], count: usize) -> Vec<PathBuf> {
    if files.len() <= count {
        return files.to_vec();
    }
    (0..count)
        .map(|index| files[index * files.len() / count].clone())
        .collect()
}

/// The file's directory as a repository: the file and up to `CONTEXT` source files beside it,
/// by relative path; `None` when the file is not UTF-8.
fn repository(file: &Path) -> Option<(BTreeMap<String, String>, String)> {
    let directory = file.parent()?;
    let target = file.file_name()?.to_string_lossy().to_string();
    let mut texts = BTreeMap::new();
    texts.insert(target.clone(), std::fs::read_to_string(file).ok()?);
    let mut siblings: Vec<PathBuf> = std::fs::read_dir(directory)
        .ok()?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_file() && path != file && Language::from_path(path).is_some())
        .collect();
    siblings.sort();
    for sibling in siblings.into_iter().take(CONTEXT) {
        if let (Some(name), Ok(text)) = (sibling.file_name(), std::fs::read_to_string(&sibling)) {
            texts.insert(name.to_string_lossy().to_string(), text);
        }
    }
    Some((texts, target))
}

/// Aborts the process when no edit finished for [`HANG`]: a hang must not look like a slow run.
fn watchdog(progress: Arc<AtomicU64>, current: Arc<parking_lot::Mutex<String>>) {
    std::thread::spawn(move || {
        let mut last = progress.load(Ordering::Relaxed);
        loop {
            std::thread::sleep(HANG);
            let now = progress.load(Ordering::Relaxed);
            if now == last {
                eprintln!("HANG: no progress for {HANG:?} on {}", current.lock());
                std::process::exit(2);
            }
            last = now;
        }
    });
}

fn main() {
    let options = options();
    let all = sources(&options.corpus);
    let files = sample(&all, options.files);
    println!(
        "edit sweep: {} files sampled of {} under {} bytes in {}; {} prefixes and {} characters each",
        files.len(),
        all.len(),
        MAX_BYTES,
        options.corpus.display(),
        options.plan.prefixes,
        options.plan.random
    );
    let progress = Arc::new(AtomicU64::new(0));
    let current = Arc::new(parking_lot::Mutex::new(String::new()));
    watchdog(progress.clone(), current.clone());
    let started = Instant::now();
    let (mut edits, mut compared, mut failures) = (0, 0, Vec::new());
    let mut slowest: Vec<(Duration, String)> = Vec::new();
    for file in &files {
        let Some((texts, target)) = repository(file) else {
            continue;
        };
        let shown = file
            .strip_prefix(&options.corpus)
            .unwrap_or(file)
            .display()
            .to_string();
        *current.lock() = shown.clone();
        let outcome =
            std::panic::catch_unwind(|| harness::sweep_file(&texts, &target, options.plan));
        progress.fetch_add(1, Ordering::Relaxed);
        match outcome {
            Ok(Ok(swept)) => {
                println!(
                    "  {shown}: {} edits, slowest {:.1} ms",
                    swept.edits,
                    swept.slowest.as_secs_f64() * 1e3
                );
                edits += swept.edits;
                compared += swept.compared;
                slowest.push((swept.slowest, shown));
            }
            Ok(Err(mismatch)) => {
                println!("  {shown}: MISMATCH {mismatch}");
                failures.push(format!("{shown}: {mismatch}"));
            }
            Err(_) => {
                println!("  {shown}: PANIC (see above)");
                failures.push(format!("{shown}: panic"));
            }
        }
    }
    slowest.sort();
    slowest.reverse();
    println!(
        "\nfiles {}  edits {edits}  compared {compared}  failures {}  in {:.0} s",
        files.len(),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    println!("slowest edits (edit to new snapshot):");
    for (took, file) in slowest.iter().take(10) {
        println!("  {:>8.1} ms  {file}", took.as_secs_f64() * 1e3);
    }
    for failure in &failures {
        println!("FAILURE {failure}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
