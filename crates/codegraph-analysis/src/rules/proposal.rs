//! "Would this change break a rule?": the violations of a graph with proposed contents (never
//! stored, never written) against those of the current graph.
//!
//! The checker for the proposal is a copy of the live one (`Live::fork`), so only the files the
//! proposal touches, and those it re-resolves, are evaluated again. Violations are compared
//! without their positions (as a baseline does), so an edit above an old violation does not make
//! it new.

use serde::Serialize;

use super::baseline::{self, Baseline, Entry};
use super::{Checker, Severity, Violation};
use codegraph_graph::{FilePath, Graph};

/// What a proposal does to the rules.
#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    /// The proposed files (workspace-relative).
    pub files: Vec<FilePath>,
    /// Whether the proposal adds a violation of error severity.
    pub breaks_rules: bool,
    /// Violations the proposal adds, anywhere (a new import can close a cycle elsewhere).
    pub new: Vec<Violation>,
    /// Violations the proposal removes.
    pub fixed: Vec<Entry>,
    /// Every violation of the proposed files once changed, old and new.
    pub violations: Vec<Violation>,
}

/// Compares `current` (the live checker, up to date with the current graph) with `proposed`
/// (a copy brought up to date with the proposed graph) for the proposed `files`.
pub fn compare(
    current: &Checker,
    proposed: &mut Checker,
    proposed_graph: &Graph,
    files: Vec<FilePath>,
) -> Proposal {
    let before = current.violations();
    proposed.update(proposed_graph);
    let after = proposed.violations();
    let split = baseline::split(&after, &Baseline::of(&before));
    let new: Vec<Violation> = split.new.into_iter().cloned().collect();
    let violations = files
        .iter()
        .flat_map(|file| proposed.file_violations(file))
        .collect();
    Proposal {
        breaks_rules: new
            .iter()
            .any(|violation| violation.severity == Severity::Error),
        files,
        new,
        fixed: split.fixed,
        violations,
    }
}
