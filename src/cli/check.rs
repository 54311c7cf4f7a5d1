//! `codegraph check`: the architecture rules of `.codegraph/rules.toml`, for CI.
//!
//! Prints every violation as `path:line:col: severity rule: message` and exits 1 when an
//! error-severity violation is new against the baseline (every one is new without a baseline) or
//! the rules file has problems; 2 when there is nothing to check with (no rules file, a baseline
//! that cannot be read). `--write-baseline` freezes today's violations; `--explain RULE` shows
//! the edges behind one rule grouped by module pair, now against the baseline.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use serde_json::json;

use super::{WorkspaceArgs, load, print, print_json};
use crate::analysis::rules::baseline::{self, Baseline, ModulePair};
use crate::analysis::rules::{
    Checker, DEFAULT_BASELINE_PATH, DEFAULT_RULES_PATH, RuleSet, Severity, Violation, display_path,
};
use crate::graph::Graph;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The rules file [default: <repo>/.codegraph/rules.toml].
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// Only violations not in this baseline fail the check [default:
    /// <repo>/.codegraph/rules-baseline.json, when it exists].
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record today's violations as the baseline (in --baseline's file or the default) and
    /// exit 0: an existing codebase adopts the rules without fixing everything first.
    #[arg(long)]
    pub write_baseline: bool,
    /// List the edges behind RULE's violations, grouped by module pair (drift), with how many
    /// are new against the baseline.
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

/// Exit status when the check cannot run at all.
const CANNOT_CHECK: i32 = 2;

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|directory| directory.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

pub fn run(arguments: &CheckArgs) -> anyhow::Result<i32> {
    let (world, graph) = load(&arguments.workspace)?;
    check(arguments, world.root(), &graph)
}

fn check(arguments: &CheckArgs, root: &Path, graph: &Graph) -> anyhow::Result<i32> {
    let root = root.to_path_buf();
    let rules_path = match &arguments.rules {
        Some(path) => absolute(path),
        None => root.join(DEFAULT_RULES_PATH),
    };
    let shown_rules = display_path(&root, &rules_path);
    let Some(checker) = read_checker(&rules_path, &shown_rules, graph) else {
        return Ok(CANNOT_CHECK);
    };
    let violations = checker.violations();

    let explicit_baseline = arguments.baseline.as_deref().map(absolute);
    let baseline_path = explicit_baseline
        .clone()
        .unwrap_or_else(|| root.join(DEFAULT_BASELINE_PATH));
    let shown_baseline = display_path(&root, &baseline_path);
    if arguments.write_baseline {
        Baseline::of(&violations).write(&baseline_path)?;
        print(&format!(
            "wrote {} violations to {shown_baseline}",
            violations.len()
        ))?;
        return Ok(0);
    }
    // Read when named on the command line, or when the default one exists.
    let wanted = explicit_baseline.is_some() || baseline_path.is_file();
    let baseline = match wanted.then(|| Baseline::read(&baseline_path)).transpose() {
        Ok(baseline) => baseline,
        Err(error) => {
            eprintln!("codegraph: {error:#}");
            return Ok(CANNOT_CHECK);
        }
    };
    if let Some(rule) = &arguments.explain {
        return explain(
            &checker,
            rule,
            &violations,
            baseline.as_ref(),
            arguments.workspace.json,
        );
    }
    let checked = Checked::new(
        &checker,
        &violations,
        baseline.as_ref(),
        Shown {
            rules: shown_rules,
            baseline: shown_baseline,
        },
    );
    if arguments.workspace.json {
        checked.print_json()?;
    } else {
        checked.print_text()?;
    }
    Ok(checked.status)
}

/// The checker of the rules at `path`, up to date with `graph`; `None`, said on stderr, when
/// the file cannot be read.
fn read_checker(path: &Path, shown: &str, graph: &Graph) -> Option<Checker> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!(
                "codegraph: no rules to check: {shown}: {error} (write one: see the README, \"Architecture rules\")"
            );
            return None;
        }
    };
    let mut checker = Checker::new(Arc::new(RuleSet::parse(&text)));
    checker.update(graph);
    Some(checker)
}

/// The rules file and the baseline file as the output names them.
struct Shown {
    rules: String,
    baseline: String,
}

/// A finished check: the violations, those new against the baseline, and the exit status.
struct Checked<'a> {
    checker: &'a Checker,
    violations: &'a [Violation],
    baseline: Option<&'a Baseline>,
    /// The violations split against the baseline, when there is one.
    split: Option<baseline::Split<'a>>,
    /// The violations new against the baseline (all of them without one).
    new: Vec<&'a Violation>,
    /// How many of `new` are errors.
    failing_violations: usize,
    status: i32,
    shown: Shown,
}

impl<'a> Checked<'a> {
    fn new(
        checker: &'a Checker,
        violations: &'a [Violation],
        baseline: Option<&'a Baseline>,
        shown: Shown,
    ) -> Checked<'a> {
        let split = baseline.map(|baseline| baseline::split(violations, baseline));
        let new: Vec<&Violation> = match &split {
            Some(split) => split.new.clone(),
            None => violations.iter().collect(),
        };
        let failing_violations = new
            .iter()
            .filter(|violation| violation.severity == Severity::Error)
            .count();
        let status = if failing_violations > 0 || !checker.problems().is_empty() {
            1
        } else {
            0
        };
        Checked {
            checker,
            violations,
            baseline,
            split,
            new,
            failing_violations,
            status,
            shown,
        }
    }

    fn print_json(&self) -> anyhow::Result<()> {
        let new_set: std::collections::HashSet<*const Violation> = self
            .new
            .iter()
            .map(|violation| *violation as *const Violation)
            .collect();
        let listed: Vec<serde_json::Value> = self
            .violations
            .iter()
            .map(|violation| {
                let mut value = serde_json::to_value(violation).unwrap_or_default();
                value["new"] = json!(new_set.contains(&(violation as *const Violation)));
                value
            })
            .collect();
        print_json(&json!({
            "rules_file": self.shown.rules,
            "baseline": self.baseline.map(|_| self.shown.baseline.clone()),
            "problems": self.checker.problems(),
            "violations": listed,
            "rules": baseline::per_rule(self.checker.rules(), self.violations, self.baseline),
            "new_errors": self.failing_violations,
            "fixed": self.split.as_ref().map(|split| split.fixed.clone()),
            "exit_status": self.status,
        }))
    }

    /// The problems and the new violations, one a line, then a summary.
    fn print_text(&self) -> anyhow::Result<()> {
        // One write for thousands of lines, not one per line (stdout is line-buffered).
        let mut lines = String::new();
        for problem in self.checker.problems() {
            lines.push_str(&problem.to_line(&self.shown.rules));
            lines.push('\n');
        }
        for violation in &self.new {
            lines.push_str(&violation.to_line());
            lines.push('\n');
        }
        if let Some(text) = lines.strip_suffix('\n') {
            print(text)?;
        }
        print(&self.summary())
    }

    /// `N violations of M rules (...)`, against the baseline, with the problems of the rules.
    fn summary(&self) -> String {
        let count = |severity: Severity| {
            self.violations
                .iter()
                .filter(|violation| violation.severity == severity)
                .count()
        };
        let mut summary = format!(
            "{} violations of {} rules ({} errors, {} warnings, {} info)",
            self.violations.len(),
            self.checker.rules().rules.len(),
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
        );
        if let Some(split) = &self.split {
            summary.push_str(&format!(
                "; {} new, {} known, {} fixed against {}",
                split.new.len(),
                split.known.len(),
                split.fixed.len(),
                self.shown.baseline
            ));
        }
        let problems = self.checker.problems();
        if !problems.is_empty() {
            summary.push_str(&format!(
                "; {} problems in {}",
                problems.len(),
                self.shown.rules
            ));
        }
        summary
    }
}

fn explain(
    checker: &Checker,
    rule: &str,
    violations: &[Violation],
    baseline: Option<&Baseline>,
    json: bool,
) -> anyhow::Result<i32> {
    let Some(found) = checker.rules().rule(rule) else {
        let names: Vec<&str> = checker
            .rules()
            .rules
            .iter()
            .map(|rule| &*rule.name)
            .collect();
        eprintln!(
            "codegraph: no rule named `{rule}`; the rules are: {}",
            names.join(", ")
        );
        return Ok(CANNOT_CHECK);
    };
    let pairs = baseline::explain(rule, violations, baseline);
    let counts = baseline::per_rule(checker.rules(), violations, baseline);
    let count = counts
        .iter()
        .find(|count| count.rule == rule)
        .context("every rule is counted")?;
    if json {
        print_json(&json!({
            "rule": rule,
            "kind": found.kind_name(),
            "severity": found.severity,
            "reason": found.reason,
            "now": count.now,
            "baseline": count.baseline,
            "new": count.new,
            "fixed": count.fixed,
            "module_pairs": pairs,
        }))?;
        return Ok(0);
    }
    let mut heading = format!(
        "rule {rule} ({}, {}): {} violations now",
        found.kind_name(),
        found.severity.as_str(),
        count.now
    );
    if let (Some(then), Some(new), Some(fixed)) = (count.baseline, count.new, count.fixed) {
        heading.push_str(&format!(
            ", {then} in the baseline ({new} new, {fixed} fixed)"
        ));
    }
    print(&heading)?;
    for pair in &pairs {
        print_pair(pair)?;
    }
    Ok(0)
}

/// One module pair of `--explain`: its edges by kind, then each edge, `[new]` when new.
fn print_pair(pair: &ModulePair) -> anyhow::Result<()> {
    let kinds: Vec<String> = pair
        .by_kind
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect();
    let new = pair
        .new
        .map(|new| format!(", {new} new"))
        .unwrap_or_default();
    print(&format!(
        "\n{} -> {}  {} edges ({}){new}",
        pair.from,
        pair.to,
        pair.count,
        kinds.join(", ")
    ))?;
    for edge in &pair.edges {
        let marker = if edge.new == Some(true) {
            "  [new]"
        } else {
            ""
        };
        print(&format!(
            "  {}:{}:{}: {} `{}` -> {}{marker}",
            edge.file,
            edge.line,
            edge.column,
            edge.kind.as_str(),
            edge.reference,
            edge.target
        ))?;
    }
    Ok(())
}
