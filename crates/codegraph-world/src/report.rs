//! What an index run did ([`IndexReport`]) and the counts of a graph it reports.

use std::collections::BTreeMap;

use serde::Serialize;

use codegraph_graph::Graph;
use codegraph_index::FileSummary;
use codegraph_model::{EntityKind, RelationKind};

use crate::walk;

/// What an index run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    pub root: String,
    pub files: usize,
    pub parsed: usize,
    pub from_cache: usize,
    /// Of `from_cache`, the files not even read: their stamp was the one the cache recorded.
    pub unread: usize,
    pub removed: usize,
    pub lines: u64,
    pub entities: usize,
    pub relations: usize,
    pub entities_by_type: BTreeMap<String, usize>,
    pub relations_by_type: BTreeMap<String, usize>,
    pub languages: BTreeMap<String, usize>,
    /// Files by what they are for: production, test, fixture, example, generated, vendored
    /// (`lang::file_class`).
    pub files_by_class: BTreeMap<String, usize>,
    pub ambiguous_references: usize,
    pub external_references: usize,
    pub files_with_problems: usize,
    /// The files codegraph failed on (an internal error, contained to the file: `contain`),
    /// with the error.
    pub failed: Vec<FailedFile>,
    /// References whose resolution was stopped at the bound every walk has (`walk`).
    pub bounded_references: usize,
    pub skipped: Vec<walk::Skipped>,
    pub duration_ms: f64,
}

/// A file codegraph failed on, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedFile {
    pub path: String,
    pub error: String,
}

/// Summary counts of a graph, shared by the index report and the stats queries.
pub fn fill_counts(report: &mut IndexReport, graph: &Graph) {
    report.files = graph.file_count();
    report.entities = graph.entity_count();
    // Counted by each kind's position (a kind is a plain enum), named once at the end: counted
    // in a map of names, each definition and edge cost string comparisons (the whole kernel's
    // 6 million edges, about 0.1 s of its warm start on one thread).
    let mut entities_by_type = [0usize; EntityKind::ALL.len()];
    let mut relations_by_type = [0usize; RelationKind::ALL.len()];
    let mut languages: BTreeMap<String, usize> = BTreeMap::new();
    let mut files_by_class: BTreeMap<String, usize> = BTreeMap::new();
    report.lines = 0;
    report.files_with_problems = 0;
    report.failed.clear();
    report.bounded_references = 0;
    report.ambiguous_references = 0;
    report.external_references = 0;
    for file in graph.files() {
        let summary: &FileSummary = &file.summary;
        *languages
            .entry(file.language.name().to_string())
            .or_default() += 1;
        *files_by_class
            .entry(file.class.as_str().to_string())
            .or_default() += 1;
        report.lines += u64::from(summary.line_count);
        entities_by_type[EntityKind::Module as usize] += 1;
        for def in &summary.defs {
            entities_by_type[def.kind as usize] += 1;
        }
        for edge in &file.resolved.edges {
            relations_by_type[edge.kind as usize] += 1;
        }
        if let Some(error) = file.failure() {
            report.failed.push(FailedFile {
                path: file.path.to_string(),
                error: error.to_string(),
            });
        }
        report.bounded_references += file.resolved.bounded.len();
        if !summary.problems.is_empty() {
            report.files_with_problems += 1;
        }
        report.ambiguous_references += file.resolved.ambiguous.len();
        report.external_references += file.resolved.external.len();
    }
    let entities_by_type: BTreeMap<String, usize> = EntityKind::ALL
        .iter()
        .map(|kind| (kind.as_str().to_string(), entities_by_type[*kind as usize]))
        .collect();
    let relations_by_type: BTreeMap<String, usize> = RelationKind::ALL
        .iter()
        .map(|kind| (kind.as_str().to_string(), relations_by_type[*kind as usize]))
        .collect();
    report.relations = relations_by_type.values().sum();
    report.entities_by_type = entities_by_type;
    report.relations_by_type = relations_by_type;
    report.languages = languages;
    report.files_by_class = files_by_class;
}
