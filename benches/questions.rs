//! The question benchmark: everyday questions about three real repositories
//! (`benches/questions.txt`, each with the files that answer it), asked of `query_codebase`,
//! `global_search` and `local_search`. A program that prints figures, never a test that fails.
//!
//!   benches/questions-corpus.sh                        # fetches the repositories, pinned
//!   cargo bench --bench questions [-- DIR]             # or CODEGRAPH_QUESTIONS_CORPUS=DIR
//!   CODEGRAPH_QUESTIONS_FIRST=N                        # list the first N results of a miss (3)
//!
//! For each tool: how many questions are answered within the first five results, the mean
//! reciprocal rank of the first answering result (within 20), and the misses with what came
//! first instead. Then the effect of each ranking signal, measured by turning it off (and, for
//! the index-time field weights, rebuilding the index without the field), and the latencies
//! of `query_codebase` and `global_search` on each repository.
#![allow(clippy::print_stdout)]

#[path = "support/cpu_time.rs"]
mod cpu_time;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codegraph::analysis::communities::{self, Communities};
use codegraph::analysis::filter::FileFilter;
use codegraph::analysis::rag::{self, GlobalOptions, LocalOptions};
use codegraph::analysis::search::{FieldWeights, Ranking, SearchIndex, SearchOptions, SearchScope};
use codegraph::graph::query::{self, Lookup};
use codegraph::graph::{EntityId, Graph};
use codegraph::model::FileClass;
use codegraph::world::{World, WorldConfig};

/// One question of `benches/questions.txt`.
#[derive(Debug, Clone)]
struct Question {
    repository: String,
    /// The start entity of a `local_search` question.
    start: Option<String>,
    text: String,
    answers: Vec<String>,
    line: usize,
}

fn parse_questions(text: &str) -> Result<Vec<Question>, String> {
    let mut questions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |what: &str| format!("questions.txt:{}: {what}: {line}", number + 1);
        let (head, rest) = line.split_once(": ").ok_or_else(|| fail("no `REPO:`"))?;
        let (question, answers) = rest.split_once(" => ").ok_or_else(|| fail("no ` => `"))?;
        let (repository, start) = match head.split_once(" @") {
            Some((repository, start)) => (repository, Some(start.trim().to_string())),
            None => (head, None),
        };
        let answers: Vec<String> = answers
            .split(',')
            .map(|answer| answer.trim().to_string())
            .filter(|answer| !answer.is_empty())
            .collect();
        if answers.is_empty() {
            return Err(fail("no answer files"));
        }
        questions.push(Question {
            repository: repository.trim().to_string(),
            start,
            text: question.trim().to_string(),
            answers,
            line: number + 1,
        });
    }
    Ok(questions)
}

fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_QUESTIONS_CORPUS") {
        return PathBuf::from(dir);
    }
    PathBuf::from("/work/bench-questions")
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index]
}

fn file_of(id: &str) -> &str {
    id.split("::").next().unwrap_or(id)
}

/// The rank (1-based) of the first result in an answer file.
fn first_answer(results: &[EntityId], answers: &[String]) -> Option<usize> {
    results
        .iter()
        .position(|id| answers.iter().any(|answer| answer == file_of(id)))
        .map(|position| position + 1)
}

/// How a tool did on a set of questions.
#[derive(Default)]
struct Score {
    asked: usize,
    answered: usize,
    reciprocal_rank: f64,
    misses: Vec<String>,
    /// Each question (`repository:line`) and whether it was answered.
    outcomes: Vec<(String, bool)>,
}

impl Score {
    fn record(&mut self, question: &Question, results: &[EntityId]) {
        self.asked += 1;
        let rank = first_answer(results, &question.answers);
        if let Some(rank) = rank {
            self.reciprocal_rank += 1.0 / rank as f64;
        }
        let answered = rank.is_some_and(|rank| rank <= 5);
        self.outcomes.push((
            format!("{}:{}", question.repository, question.line),
            answered,
        ));
        if answered {
            self.answered += 1;
        } else {
            let shown = std::env::var("CODEGRAPH_QUESTIONS_FIRST")
                .ok()
                .and_then(|value| value.parse().ok())
                .unwrap_or(3);
            let got: Vec<&str> = results.iter().take(shown).map(|id| &**id).collect();
            self.misses.push(format!(
                "    {}:{} {:?} (answer {}) ranked {}; first: {}",
                question.repository,
                question.line,
                question.text,
                question.answers.join(", "),
                rank.map_or("beyond 20".to_string(), |rank| format!("#{rank}")),
                got.join(", ")
            ));
        }
    }

    fn merge(&mut self, other: Score) {
        self.asked += other.asked;
        self.answered += other.answered;
        self.reciprocal_rank += other.reciprocal_rank;
        self.misses.extend(other.misses);
    }

    /// The questions this score answers and `reference` does not (`+`), and the reverse (`-`).
    fn flips(&self, reference: &Score) -> String {
        let mut flips = Vec::new();
        for ((question, answered), (_, reference_answered)) in
            self.outcomes.iter().zip(&reference.outcomes)
        {
            match (answered, reference_answered) {
                (true, false) => flips.push(format!("+{question}")),
                (false, true) => flips.push(format!("-{question}")),
                _ => {}
            }
        }
        flips.join(" ")
    }

    fn line(&self) -> String {
        format!(
            "{}/{} in the top 5, MRR {:.2}",
            self.answered,
            self.asked,
            if self.asked == 0 {
                0.0
            } else {
                self.reciprocal_rank / self.asked as f64
            }
        )
    }
}

/// One indexed repository with its derived structures.
struct Repository {
    name: String,
    graph: std::sync::Arc<Graph>,
    index: SearchIndex,
    communities: Communities,
}

fn open(corpus: &Path, name: &str) -> Option<Repository> {
    let root = corpus.join(name);
    if !root.is_dir() {
        eprintln!(
            "no repository at {} (run benches/questions-corpus.sh)",
            root.display()
        );
        return None;
    }
    // The on-disk cache (`<repository>/.codegraph`) spares re-parsing on later runs: indexing
    // is not what this benchmark measures.
    let world = World::open(&root, WorldConfig::default()).expect("repository opens");
    let started = Instant::now();
    let report = world.index(false, &|_, _| {});
    let indexed = started.elapsed();
    let graph = world.snapshot();
    let started = Instant::now();
    let index = SearchIndex::build(&graph);
    let index_time = started.elapsed();
    let started = Instant::now();
    let communities = communities::compute(&graph);
    let communities_time = started.elapsed();
    let classes: Vec<String> = report
        .files_by_class
        .iter()
        .map(|(class, count)| format!("{class} {count}"))
        .collect();
    println!(
        "{name}: {} files ({}), {} entities; indexed in {} ({} from the cache), search index {}, \
         communities {}",
        report.files,
        classes.join(", "),
        report.entities,
        ms(indexed),
        report.from_cache,
        ms(index_time),
        ms(communities_time),
    );
    Some(Repository {
        name: name.to_string(),
        graph,
        index,
        communities,
    })
}

fn search_ids(
    repository: &Repository,
    index: &SearchIndex,
    question: &str,
    ranking: Ranking,
    filter: FileFilter,
) -> Vec<EntityId> {
    let options = SearchOptions {
        ranking,
        filter,
        ..SearchOptions::new(&repository.graph, SearchScope::All, 20)
    };
    index
        .search_with(question, &options)
        .hits
        .into_iter()
        .map(|hit| hit.id)
        .collect()
}

fn global_ids(repository: &Repository, question: &str, options: &GlobalOptions) -> Vec<EntityId> {
    rag::global_search(
        &repository.graph,
        &repository.index,
        &repository.communities,
        question,
        options,
    )
    .supporting_entities
    .into_iter()
    .map(|support| support.entity.id)
    .collect()
}

fn local_ids(repository: &Repository, question: &Question) -> Result<Vec<EntityId>, String> {
    let start = question.start.as_deref().unwrap_or_default();
    let entity = match query::lookup(&repository.graph, start) {
        Lookup::Found(entity) => entity,
        other => return Err(format!("start {start}: {other:?}")),
    };
    let answer = rag::local_search(
        &repository.graph,
        &repository.index,
        &question.text,
        &[entity],
        &LocalOptions {
            limit: 20,
            ..LocalOptions::default()
        },
    );
    Ok(answer
        .relevant_entities
        .into_iter()
        .map(|relevant| relevant.entity.id)
        .collect())
}

/// The variants of the search ranking the benchmark compares: each signal turned off.
fn ranking_variants() -> Vec<(&'static str, Ranking, FileFilter)> {
    let full = Ranking::default();
    vec![
        ("all signals (default)", full, FileFilter::default()),
        (
            "without name match",
            Ranking {
                name_match: 0.0,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "without exact phrase",
            Ranking {
                phrase: 0.0,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "without graph prior",
            Ranking {
                graph_prior: 0.0,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "name match weight 2 (not 1)",
            Ranking {
                name_match: 2.0,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "phrase weight 0.6",
            Ranking {
                phrase: 0.6,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "graph prior weight 0.6",
            Ranking {
                graph_prior: 0.6,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "with coverage (off by default)",
            Ranking {
                coverage: 1.0,
                ..full
            },
            FileFilter::default(),
        ),
        (
            "without exact-name boost",
            Ranking {
                exact_name: false,
                ..full
            },
            FileFilter::default(),
        ),
        ("without production first", full, FileFilter::ALL),
        (
            "examples weighted 0.8 (not 0.6)",
            full,
            FileFilter::default().with_weight(FileClass::Example, 0.8),
        ),
        (
            "examples weighted 0.4 (not 0.6)",
            full,
            FileFilter::default().with_weight(FileClass::Example, 0.4),
        ),
        (
            "tests weighted 0.25 (not 0.45)",
            full,
            FileFilter::default().with_weight(FileClass::Test, 0.25),
        ),
        (
            "tests weighted 0.7 (not 0.45)",
            full,
            FileFilter::default().with_weight(FileClass::Test, 0.7),
        ),
        (
            "BM25 only (no signals, all classes)",
            Ranking::BM25_ONLY,
            FileFilter::ALL,
        ),
    ]
}

/// Index-time variants: a field's words left out of the index.
fn field_variants() -> Vec<(&'static str, FieldWeights)> {
    let full = FieldWeights::default();
    vec![
        ("without docstring words", FieldWeights { doc: 0.0, ..full }),
        (
            "without path words",
            FieldWeights {
                path: 0.0,
                module_path: 0.0,
                ..full
            },
        ),
        (
            "without signature words",
            FieldWeights {
                signature: 0.0,
                ..full
            },
        ),
        (
            "with body words (off by default)",
            FieldWeights { body: 0.25, ..full },
        ),
    ]
}

fn main() {
    let corpus = corpus_dir();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/questions.txt"),
    )
    .expect("benches/questions.txt");
    let questions = match parse_questions(&text) {
        Ok(questions) => questions,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(2);
        }
    };
    println!("corpus   {}", corpus.display());
    println!("threads  {} (rayon)", rayon::current_num_threads());
    let mut names: Vec<&str> = questions.iter().map(|q| q.repository.as_str()).collect();
    names.dedup();
    names.sort();
    names.dedup();
    let repositories: Vec<Repository> = names
        .iter()
        .filter_map(|name| open(&corpus, name))
        .collect();
    if repositories.is_empty() {
        std::process::exit(2);
    }
    println!();

    let mut search = Score::default();
    let mut global = Score::default();
    let mut local = Score::default();
    let mut by_repository: BTreeMap<String, [Score; 3]> = BTreeMap::new();
    let mut ablations: Vec<Score> = ranking_variants()
        .iter()
        .map(|_| Score::default())
        .collect();
    let mut field_ablations: Vec<Score> =
        field_variants().iter().map(|_| Score::default()).collect();
    let mut global_fixed: [Score; 2] = Default::default();
    let mut search_times: Vec<Duration> = Vec::new();
    let mut floor_times: Vec<Duration> = Vec::new();
    let mut search_cpu: Vec<Duration> = Vec::new();
    let mut floor_cpu: Vec<Duration> = Vec::new();
    let mut global_cpu: Vec<Duration> = Vec::new();
    let mut global_times: Vec<Duration> = Vec::new();

    for repository in &repositories {
        let mine: Vec<&Question> = questions
            .iter()
            .filter(|question| question.repository == repository.name)
            .collect();
        let scores = by_repository.entry(repository.name.clone()).or_default();
        for question in mine.iter().filter(|question| question.start.is_none()) {
            let found = search_ids(
                repository,
                &repository.index,
                &question.text,
                Ranking::default(),
                FileFilter::default(),
            );
            scores[0].record(question, &found);
            search.record(question, &found);
            let found = global_ids(repository, &question.text, &GlobalOptions::default());
            scores[1].record(question, &found);
            global.record(question, &found);
            for (level, score) in global_fixed.iter_mut().enumerate() {
                let options = GlobalOptions {
                    level: Some(level),
                    ..GlobalOptions::default()
                };
                score.record(question, &global_ids(repository, &question.text, &options));
            }
            for ((_, ranking, filter), score) in ranking_variants().iter().zip(&mut ablations) {
                let found = search_ids(
                    repository,
                    &repository.index,
                    &question.text,
                    *ranking,
                    *filter,
                );
                score.record(question, &found);
            }
            // Latencies: each question five times, with every signal and with BM25 alone (the
            // floor: the same index, no re-ranking, no filter).
            for _ in 0..5 {
                let options = SearchOptions::new(&repository.graph, SearchScope::All, 20);
                let (_, wall, cpu) = cpu_time::measure(|| {
                    std::hint::black_box(repository.index.search_with(&question.text, &options))
                });
                search_times.push(wall);
                search_cpu.extend(cpu);
                let options = SearchOptions {
                    ranking: Ranking::BM25_ONLY,
                    filter: FileFilter::ALL,
                    ..options
                };
                let (_, wall, cpu) = cpu_time::measure(|| {
                    std::hint::black_box(repository.index.search_with(&question.text, &options))
                });
                floor_times.push(wall);
                floor_cpu.extend(cpu);
            }
            let (_, wall, cpu) = cpu_time::measure(|| {
                std::hint::black_box(global_ids(
                    repository,
                    &question.text,
                    &GlobalOptions::default(),
                ))
            });
            global_times.push(wall);
            global_cpu.extend(cpu);
        }
        for ((_, weights), score) in field_variants().iter().zip(&mut field_ablations) {
            let index = SearchIndex::build_with(&repository.graph, *weights);
            for question in mine.iter().filter(|question| question.start.is_none()) {
                let found = search_ids(
                    repository,
                    &index,
                    &question.text,
                    Ranking::default(),
                    FileFilter::default(),
                );
                score.record(question, &found);
            }
        }
        for question in mine.iter().filter(|question| question.start.is_some()) {
            match local_ids(repository, question) {
                Ok(found) => {
                    scores[2].record(question, &found);
                    local.record(question, &found);
                }
                Err(error) => {
                    local.merge(Score {
                        asked: 1,
                        misses: vec![format!(
                            "    {}:{} {error}",
                            question.repository, question.line
                        )],
                        ..Score::default()
                    });
                }
            }
        }
    }

    println!("ANSWERED (a file that answers among the first 5 results)");
    for (name, result) in [
        ("query_codebase", &search),
        ("global_search", &global),
        ("local_search", &local),
    ] {
        println!("  {name:<15} {}", result.line());
        for (repository, scores) in &by_repository {
            let index = match name {
                "query_codebase" => 0,
                "global_search" => 1,
                _ => 2,
            };
            if scores[index].asked > 0 {
                println!("    {repository:<13} {}", scores[index].line());
            }
        }
        for miss in &result.misses {
            println!("{miss}");
        }
    }
    println!(
        "\nSIGNALS (query_codebase with one signal off; +q answered only without it, -q only with it)"
    );
    for ((name, _, _), score) in ranking_variants().iter().zip(&ablations) {
        println!(
            "  {name:<38} {}  {}",
            score.line(),
            score.flips(&ablations[0])
        );
    }
    for ((name, _), score) in field_variants().iter().zip(&field_ablations) {
        println!(
            "  {name:<38} {}  {}",
            score.line(),
            score.flips(&ablations[0])
        );
    }
    println!("\nGLOBAL SEARCH LEVEL");
    println!("  chosen from the question (default)     {}", global.line());
    for (level, score) in global_fixed.iter().enumerate() {
        println!(
            "  always level {level}                         {}",
            score.line()
        );
    }
    println!(
        "\nLATENCY (all repositories together; wall time, then the thread's CPU time, which the \
         machine's other load inflates less)"
    );
    let line = |name: &str, times: &mut Vec<Duration>| {
        times.sort();
        if times.is_empty() {
            return;
        }
        println!(
            "  {name:<34} p50 {}, p99 {}, max {} ({})",
            ms(percentile(times, 0.5)),
            ms(percentile(times, 0.99)),
            ms(*times.last().unwrap()),
            times.len()
        );
    };
    line("query_codebase, wall", &mut search_times);
    line("query_codebase, CPU", &mut search_cpu);
    line("floor: BM25 alone, wall", &mut floor_times);
    line("floor: BM25 alone, CPU", &mut floor_cpu);
    line("global_search, wall", &mut global_times);
    line("global_search, CPU", &mut global_cpu);
    if !search_cpu.is_empty() && !floor_cpu.is_empty() {
        println!(
            "  query_codebase / floor (CPU p50)   {:.2}×",
            percentile(&search_cpu, 0.5).as_secs_f64() / percentile(&floor_cpu, 0.5).as_secs_f64()
        );
    }
}
