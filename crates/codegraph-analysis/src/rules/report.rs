//! The rules with their status, as every door shows them at a glance: each rule with its
//! violations now and against the baseline (drift), the problems of the rules file, and the
//! violations themselves (the MCP resource `codegraph://rules`).

use std::path::Path;

use serde::Serialize;

use super::baseline::{self, Baseline, RuleCount};
use super::{Checker, DEFAULT_BASELINE_PATH, RuleProblem, Severity, Violation, display_path};

/// One rule as written, with its counts.
#[derive(Debug, Clone, Serialize)]
pub struct RuleStatus {
    pub name: String,
    /// `layers`, `forbid`, `independent` or `cycles`.
    pub kind: &'static str,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The line of the rule in the rules file.
    pub line: u32,
    #[serde(flatten)]
    pub count: RuleCount,
}

#[derive(Debug, Clone, Serialize)]
pub struct RulesReport {
    pub rules_file: String,
    /// The baseline compared with, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    pub rules: Vec<RuleStatus>,
    pub problems: Vec<RuleProblem>,
    pub total_violations: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// The first `limit` violations, in file order.
    pub violations: Vec<Violation>,
    pub truncated: bool,
}

/// The report of `checker` (up to date) for the workspace at `root`, whose rules file is
/// `rules_file`; the baseline is the default one when it exists and reads.
pub fn report(checker: &Checker, root: &Path, rules_file: &Path, limit: usize) -> RulesReport {
    let violations = checker.violations();
    let baseline_path = root.join(DEFAULT_BASELINE_PATH);
    let baseline = baseline_path
        .is_file()
        .then(|| Baseline::read(&baseline_path))
        .and_then(|read| read.inspect_err(|error| tracing::warn!("{error:#}")).ok());
    let counts = baseline::per_rule(checker.rules(), &violations, baseline.as_ref());
    let rules = checker
        .rules()
        .rules
        .iter()
        .zip(counts)
        .map(|(rule, count)| RuleStatus {
            name: rule.name.to_string(),
            kind: rule.kind_name(),
            severity: rule.severity,
            reason: rule.reason.clone(),
            line: rule.line,
            count,
        })
        .collect();
    let count = |severity: Severity| {
        violations
            .iter()
            .filter(|violation| violation.severity == severity)
            .count()
    };
    RulesReport {
        rules_file: display_path(root, rules_file),
        baseline: baseline.map(|_| display_path(root, &baseline_path)),
        rules,
        problems: checker.problems().to_vec(),
        total_violations: violations.len(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        infos: count(Severity::Info),
        truncated: violations.len() > limit,
        violations: violations.into_iter().take(limit).collect(),
    }
}
