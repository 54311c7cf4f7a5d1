//! What extraction's query costs beside the parse, per language, and what each of a language's
//! patterns costs (the target: extraction close to the parse).
//!
//! `cargo bench --bench query_cost -- CORPUS` parses every file of the corpus once (one thread)
//! and runs each language's combined query over the trees (twice; the faster run is printed),
//! so the query's time is measured apart from parsing, reading and building the summary.
//! `cargo bench --bench query_cost -- CORPUS rust` also runs the query again with each pattern
//! disabled in turn and prints the 25 patterns whose absence saves the most: a pattern whose
//! alternation keeps a state alive through a large subtree shows up there (Rust's typed `let`
//! did: `index::rust::binding_type_kind`).

#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use codegraph::lang::Language;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Query, QueryCursor, Tree};

/// The query's time over every tree (the faster of two runs), and the captures it made.
fn run(query: &Query, files: &[(String, Tree)]) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut captures = 0;
    for _ in 0..2 {
        let start = Instant::now();
        captures = 0;
        for (text, tree) in files {
            let mut cursor = QueryCursor::new();
            // As extraction runs it (`index::run_query`).
            cursor.set_max_start_depth(Some(16_384));
            let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
            while let Some(found) = matches.next() {
                captures += found.captures().len();
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, captures)
}

/// A language's parsed files: the time their parse took, and each text with its tree.
type Parsed = (f64, Vec<(String, Tree)>);

fn compile(language: Language) -> Query {
    let spec = language.spec();
    Query::new(&(spec.grammar)(), &spec.query_source.concat()).expect("the shipped queries compile")
}

fn main() {
    let arguments: Vec<String> = std::env::args()
        .skip(1)
        .filter(|argument| !argument.starts_with('-'))
        .collect();
    let Some(corpus) = arguments.first() else {
        println!("usage: cargo bench --bench query_cost -- CORPUS [LANGUAGE]");
        return;
    };
    let wanted = arguments.get(1).map(String::as_str);
    let files = codegraph::world::walk::walk(Path::new(corpus), 1024 * 1024).files;
    let mut trees: BTreeMap<&'static str, Parsed> = BTreeMap::new();
    for file in &files {
        let Some(language) = Language::from_path(Path::new(&file.relative)) else {
            continue;
        };
        if wanted.is_some_and(|wanted| wanted != language.name()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file.absolute) else {
            continue;
        };
        let start = Instant::now();
        let Some(tree) = codegraph::syntax::parse(language, &text) else {
            continue;
        };
        let entry = trees.entry(language.name()).or_default();
        entry.0 += start.elapsed().as_secs_f64();
        entry.1.push((text, tree));
    }
    println!("one thread; query = the combined query over the parsed trees, faster of two runs");
    let (mut parse_total, mut query_total, mut compile_total) = (0.0, 0.0, 0.0);
    for (name, (parse, files)) in &trees {
        let language = Language::from_name(name).expect("a registered language");
        let start = Instant::now();
        let query = compile(language);
        let compiled = start.elapsed().as_secs_f64();
        let (time, captures) = run(&query, files);
        parse_total += parse;
        query_total += time;
        compile_total += compiled;
        println!(
            "{name:12} {:>5} files: parse {parse:.3} s, query {time:.3} s = {:.2} x the parse ({captures} captures, {} patterns, compiled in {compiled:.3} s)",
            files.len(),
            time / parse.max(1e-9),
            query.pattern_count()
        );
        if wanted.is_none() {
            continue;
        }
        let source = language.spec().query_source.concat();
        let mut costs: Vec<(f64, usize)> = (0..query.pattern_count())
            .map(|pattern| {
                let mut without = compile(language);
                without.disable_pattern(pattern);
                (time - run(&without, files).0, pattern)
            })
            .collect();
        costs.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("  the patterns whose absence saves most:");
        for (saved, pattern) in costs.iter().take(25) {
            let start = query.start_byte_for_pattern(*pattern);
            let text: String = source[start..]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(100)
                .collect();
            println!("  {saved:+.3} s  #{pattern:<3} {text}");
        }
    }
    if wanted.is_none() {
        println!(
            "all: parse {parse_total:.3} s, query {query_total:.3} s = {:.2} x the parse; the queries compiled in {compile_total:.3} s",
            query_total / parse_total.max(1e-9)
        );
    }
}
