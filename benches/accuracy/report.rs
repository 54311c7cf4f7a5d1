//! What the benchmark prints after the runs: every disagreeing edge, the failed requests, the
//! figures per project and per language.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::compare::Counts;
use crate::{LANGUAGES, ProjectResult};

/// Line `line` (0-based) of `file` under `root`, trimmed and shortened.
pub(crate) fn source_line(
    cache: &mut HashMap<PathBuf, Vec<String>>,
    root: &Path,
    file: &str,
    line: u32,
) -> String {
    let path = root.join(file);
    let lines = cache.entry(path.clone()).or_insert_with(|| {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    });
    let text = lines
        .get(line as usize)
        .map_or("", |text| text.trim())
        .to_string();
    if text.chars().count() > 110 {
        format!("{}…", text.chars().take(110).collect::<String>())
    } else {
        text
    }
}

pub(crate) fn kind_name(kind: i64) -> &'static str {
    match kind {
        1 => "file",
        2 => "module",
        5 => "class",
        6 => "method",
        9 => "constructor",
        10 => "enum",
        11 => "interface",
        12 => "function",
        13 => "variable",
        14 => "constant",
        22 => "enum member",
        23 => "struct",
        _ => "item",
    }
}

pub(crate) fn print_disagreements(results: &[ProjectResult]) {
    let mut cache = HashMap::new();
    println!(
        "\nDISAGREEMENTS (missing = the reference server has it, codegraph not; extra = codegraph has it, the reference not)"
    );
    for result in results {
        if result.disagreements.is_empty() {
            continue;
        }
        println!(
            "\n== {} {} ({})",
            result.language,
            result.project,
            result.root.display()
        );
        for disagreement in &result.disagreements {
            let (file, line, name) = &disagreement.definition;
            println!(
                "  {} {file}:{} {name}   `{}`",
                disagreement.direction,
                line + 1,
                source_line(&mut cache, &result.root, file, *line)
            );
            for (label, edges) in [
                ("missing", &disagreement.missing),
                ("extra  ", &disagreement.extra),
            ] {
                for edge in edges {
                    let (site, site_text) = match &edge.site {
                        Some((site_file, site_line)) => (
                            format!("{site_file}:{}", site_line + 1),
                            source_line(&mut cache, &result.root, site_file, *site_line),
                        ),
                        None => ("?".to_string(), String::new()),
                    };
                    let convention = edge
                        .convention
                        .map_or(String::new(), |why| format!("   [convention: {why}]"));
                    println!(
                        "    {label} {} {} ({}) at {}:{}; call at {site}: `{site_text}`{convention}",
                        if disagreement.direction == "incoming" {
                            "from"
                        } else {
                            "to"
                        },
                        edge.raw_name,
                        kind_name(edge.kind),
                        edge.file,
                        edge.line + 1,
                    );
                }
            }
        }
    }
}

pub(crate) fn print_failures(results: &[ProjectResult]) {
    let failures: usize = results.iter().map(|result| result.failures.len()).sum();
    println!("\nFAILED REQUESTS ({failures}; those samples are left out of the figures)");
    for result in results {
        for failure in &result.failures {
            println!("  {} {}: {failure}", result.language, result.project);
        }
    }
}

pub(crate) fn ratio(numerator: usize, denominator: usize) -> String {
    if denominator == 0 {
        "   -".to_string()
    } else {
        format!("{:.2}", numerator as f64 / denominator as f64)
    }
}

/// One language's figures, summed over its projects.
struct LanguageTotals {
    language: String,
    samples: usize,
    incoming: Counts,
    outgoing: Counts,
    /// The reference servers' versions.
    versions: BTreeSet<String>,
}

/// The projects' figures summed per language, in the order of [`LANGUAGES`].
fn by_language(results: &[ProjectResult]) -> Vec<LanguageTotals> {
    let mut by_language: BTreeMap<usize, LanguageTotals> = BTreeMap::new();
    for result in results {
        let order = LANGUAGES
            .iter()
            .position(|l| *l == result.language)
            .unwrap_or(LANGUAGES.len());
        let entry = by_language.entry(order).or_insert_with(|| LanguageTotals {
            language: result.language.clone(),
            samples: 0,
            incoming: Counts::default(),
            outgoing: Counts::default(),
            versions: BTreeSet::new(),
        });
        entry.samples += result.samples;
        entry.incoming.add(result.incoming);
        entry.outgoing.add(result.outgoing);
        if !result.reference_version.is_empty() {
            entry.versions.insert(result.reference_version.clone());
        }
    }
    by_language.into_values().collect()
}

/// Precision / recall (edges agreed, the reference's, codegraph's).
fn figures(counts: &Counts) -> String {
    format!(
        "{} / {} ({}, {}, {})",
        ratio(counts.agreed, counts.codegraph),
        ratio(counts.agreed, counts.reference),
        counts.agreed,
        counts.reference,
        counts.codegraph,
    )
}

/// Precision / recall with the convention-labelled edges left out of both sides.
fn figures_without_conventions(counts: &Counts) -> String {
    format!(
        "{} / {}",
        ratio(counts.agreed, counts.codegraph - counts.convention_extra),
        ratio(counts.agreed, counts.reference - counts.convention),
    )
}

pub(crate) fn print_summary(results: &[ProjectResult]) {
    println!(
        "\nPER PROJECT (precision / recall; edges agreed, reference, codegraph; then without the convention-labelled edges)"
    );
    for result in results {
        println!(
            "  {:<11} {:<24} {:>3} sampled  incoming {}  outgoing {}  without conventions: incoming {}  outgoing {}",
            result.language,
            result.project,
            result.samples,
            figures(&result.incoming),
            figures(&result.outgoing),
            figures_without_conventions(&result.incoming),
            figures_without_conventions(&result.outgoing),
        );
    }
    let totals = by_language(results);
    println!(
        "\nSUMMARY (micro-averaged over sampled definitions; precision = agreed / codegraph's edges, recall = agreed / the reference's edges; in brackets: edges agreed, the reference's, codegraph's)"
    );
    println!(
        "| language | sampled | incoming precision / recall | outgoing precision / recall | reference server |"
    );
    println!("|---|---|---|---|---|");
    for total in &totals {
        println!(
            "| {} | {} | {} | {} | {} |",
            total.language,
            total.samples,
            figures(&total.incoming),
            figures(&total.outgoing),
            total
                .versions
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    println!(
        "\nWITHOUT THE CONVENTION-LABELLED EDGES (the edges marked [convention: ...] above left out of both sides' counts)"
    );
    println!(
        "| language | incoming precision / recall | outgoing precision / recall | left out: reference's, codegraph's edges (incoming; outgoing) |"
    );
    println!("|---|---|---|---|");
    for total in &totals {
        let (incoming, outgoing) = (&total.incoming, &total.outgoing);
        println!(
            "| {} | {} | {} | {}, {}; {}, {} |",
            total.language,
            figures_without_conventions(incoming),
            figures_without_conventions(outgoing),
            incoming.convention,
            incoming.convention_extra,
            outgoing.convention,
            outgoing.convention_extra,
        );
    }
}

/// Every disagreeing edge counted by its cause, per language: the convention a label names
/// (the reference lists or omits the edge by a rule of its own, checked against the reference
/// itself), or none, which is a miss of codegraph's own. What keeps the raw figures from the
/// labelled ones, cause by cause.
pub(crate) fn print_causes(results: &[ProjectResult]) {
    // language order → cause → [incoming missing, incoming extra, outgoing missing, outgoing extra]
    let mut causes: BTreeMap<usize, (String, BTreeMap<String, [usize; 4]>)> = BTreeMap::new();
    for result in results {
        let order = LANGUAGES
            .iter()
            .position(|language| *language == result.language)
            .unwrap_or(LANGUAGES.len());
        let (_, by_cause) = causes
            .entry(order)
            .or_insert_with(|| (result.language.clone(), BTreeMap::new()));
        for disagreement in &result.disagreements {
            let column = if disagreement.direction == "incoming" {
                0
            } else {
                2
            };
            let sides = [
                (&disagreement.missing, column),
                (&disagreement.extra, column + 1),
            ];
            for (edges, column) in sides {
                for edge in edges {
                    let cause = edge
                        .convention
                        .map_or_else(|| "(none: codegraph's own miss)".to_string(), short_cause);
                    by_cause.entry(cause).or_default()[column] += 1;
                }
            }
        }
    }
    println!(
        "\nDISAGREEMENTS BY CAUSE (edges: incoming missing / extra, outgoing missing / extra; missing = the reference's edge codegraph lacks, extra = codegraph's edge the reference lacks)"
    );
    for (language, by_cause) in causes.values() {
        println!("  {language}");
        let mut rows: Vec<(&String, &[usize; 4])> = by_cause.iter().collect();
        rows.sort_by_key(|(_, counts)| std::cmp::Reverse(counts.iter().sum::<usize>()));
        for (cause, [in_missing, in_extra, out_missing, out_extra]) in rows {
            println!(
                "    {in_missing:>4} / {in_extra:<4} {out_missing:>4} / {out_extra:<4} {cause}"
            );
        }
    }
}

/// A convention's label cut to its first clause.
fn short_cause(label: &str) -> String {
    let end = label.find([':', ';', '(']).unwrap_or(label.len()).min(
        label
            .char_indices()
            .nth(90)
            .map_or(label.len(), |(at, _)| at),
    );
    label[..end].trim_end_matches([' ', ',']).to_string()
}
