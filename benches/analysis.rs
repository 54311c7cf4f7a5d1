//! The analysis benchmark: a program that prints figures, never a test that fails on timing.
//!
//!   cargo bench --bench analysis [-- DIR]     # or CODEGRAPH_BENCH_CORPUS=DIR
//!
//! Indexes the corpus (no cache), then measures on that one snapshot:
//! - the search index: full build, memory, and the update after one file changes;
//! - `query_codebase` (a search for 20 hits, default ranking and filter: production first,
//!   every signal): p50 and p99 over a fixed list of queries, each run several times;
//! - communities (Leiden at three levels, names, summaries, PageRank): median of 3 runs;
//! - `global_search` (level chosen from each question): median and max over the queries, with
//!   the index and communities built;
//! - one real answer, printed in full.
#![allow(clippy::print_stdout)]

#[path = "support/cpu_time.rs"]
mod cpu_time;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codegraph::analysis::rag::GlobalOptions;
use codegraph::analysis::search::{SearchIndex, SearchOptions, SearchScope};
use codegraph::analysis::{communities, rag, refactor};
use codegraph::world::{CacheLocation, World, WorldConfig};

const QUERIES: &[&str] = &[
    "how does authentication work",
    "parse command line arguments",
    "serialize to json",
    "http request handler",
    "thread pool worker",
    "regular expression matching",
    "date time formatting",
    "read file from disk",
    "error handling",
    "hash map insert",
    "deserialize struct",
    "async runtime spawn task",
    "utf8 decode",
    "connection timeout",
    "configuration options",
    "test fixtures",
    "Parser",
    "Deserializer",
    "from_str",
    "visit_map",
    "iterator adapter",
    "lock free queue",
    "compile pattern",
    "render template",
    "validate input",
];

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
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index]
}

fn main() {
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!("no corpus at {}", corpus.display());
        std::process::exit(2);
    }
    println!("corpus   {}", corpus.display());
    println!("threads  {} (rayon)\n", rayon::current_num_threads());
    let world = World::open(
        &corpus,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .expect("corpus opens");
    let started = Instant::now();
    let report = world.index(false, &|_, _| {});
    let graph = world.snapshot();
    println!(
        "indexed  {} files, {} lines, {} entities, {} relations in {}\n",
        report.files,
        report.lines,
        report.entities,
        report.relations,
        ms(started.elapsed())
    );

    let started = Instant::now();
    let index = SearchIndex::build(&graph);
    let build = started.elapsed();
    println!("SEARCH INDEX");
    println!("  build              {}", ms(build));
    println!(
        "  memory             {:.1} MiB ({} documents, {} terms)",
        index.memory_bytes() as f64 / (1024.0 * 1024.0),
        index.document_count(),
        index.term_count()
    );
    // One file changes: only its postings are rebuilt.
    if let Some(file) = graph.files().max_by_key(|file| file.summary.defs.len()) {
        let path = file.path.to_string();
        let text = format!(
            "{}\nfn added_by_the_benchmark() {{}}\n",
            file.text().unwrap_or_default()
        );
        world.apply_texts(vec![(path.clone(), Some(text))]);
        let changed = world.snapshot();
        let started = Instant::now();
        let updated = index.update(&changed);
        println!(
            "  update, 1 file     {} ({path}, {} definitions)",
            ms(started.elapsed()),
            file.summary.defs.len()
        );
        drop(updated);
    }

    let mut times: Vec<Duration> = Vec::new();
    let mut cpu_times: Vec<Duration> = Vec::new();
    for _ in 0..8 {
        for query in QUERIES {
            let options = SearchOptions::new(&graph, SearchScope::All, 20);
            let (results, wall, cpu) = cpu_time::measure(|| index.search_with(query, &options));
            times.push(wall);
            cpu_times.extend(cpu);
            std::hint::black_box(results);
        }
    }
    times.sort();
    cpu_times.sort();
    println!(
        "  query_codebase     p50 {}, p99 {}, max {} ({} searches; wall time)",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().unwrap()),
        times.len()
    );
    if !cpu_times.is_empty() {
        println!(
            "                     p50 {}, p99 {}, max {} (the thread's CPU time)\n",
            ms(percentile(&cpu_times, 0.5)),
            ms(percentile(&cpu_times, 0.99)),
            ms(*cpu_times.last().unwrap()),
        );
    }

    println!("COMMUNITIES");
    let mut runs: Vec<(Duration, communities::Communities)> = (0..3)
        .map(|_| {
            let started = Instant::now();
            let found = communities::compute(&graph);
            (started.elapsed(), found)
        })
        .collect();
    runs.sort_by_key(|(duration, _)| *duration);
    let (median, found) = runs.swap_remove(1);
    println!("  compute (median/3) {}", ms(median));
    for level in &found.levels {
        println!(
            "  level {}            {} communities ({} with 2+ members), modularity {:.3}, resolution {}",
            level.level,
            level.community_count,
            level.nontrivial_count,
            level.modularity,
            level.resolution
        );
    }
    let mut global: Vec<Duration> = Vec::new();
    let mut global_cpu: Vec<Duration> = Vec::new();
    let mut chosen_levels = [0usize; communities::LEVELS];
    for query in QUERIES {
        let (answer, wall, cpu) = cpu_time::measure(|| {
            rag::global_search(&graph, &index, &found, query, &GlobalOptions::default())
        });
        global.push(wall);
        global_cpu.extend(cpu);
        chosen_levels[answer.community_level as usize] += 1;
        std::hint::black_box(answer);
    }
    global.sort();
    global_cpu.sort();
    println!(
        "  global_search      median {}, max {} ({} questions, wall time; level chosen from each: \
         {:?})",
        ms(percentile(&global, 0.5)),
        ms(*global.last().unwrap()),
        global.len(),
        chosen_levels
    );
    if !global_cpu.is_empty() {
        println!(
            "                     median {}, max {} (the thread's CPU time)\n",
            ms(percentile(&global_cpu, 0.5)),
            ms(*global_cpu.last().unwrap()),
        );
    }

    let started = Instant::now();
    let facts = refactor::repo_facts(&graph);
    println!("REFACTORING FACTS");
    println!(
        "  repo facts         {} ({} import cycles, {} entities with a duplicated body)\n",
        ms(started.elapsed()),
        facts.import_cycles.len(),
        facts.duplicates.len()
    );

    let question = "parse command line arguments";
    let answer = rag::global_search(&graph, &index, &found, question, &GlobalOptions::default());
    println!(
        "ANSWER global_search {{query: {question:?}}} (level {} chosen)",
        answer.community_level
    );
    println!("{}", answer.answer);
    println!(
        "confidence {:.2}, {} communities searched",
        answer.confidence, answer.communities_searched
    );
}
