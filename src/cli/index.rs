//! `codegraph index` and `codegraph stats`: build or refresh the index and say what it holds.

use std::path::PathBuf;

use clap::Args;

use super::{WorkspaceArgs, index_world, keep_until_exit, open_world, print, print_stamped};
use crate::world::IndexReport;

#[derive(Args, Debug)]
pub struct IndexArgs {
    /// The repository (default: the current directory).
    pub path: Option<PathBuf>,
    /// Re-parse every file, ignoring the cache.
    #[arg(long)]
    pub full: bool,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: IndexArgs) -> anyhow::Result<()> {
    let IndexArgs {
        path,
        full,
        mut workspace,
    } = arguments;
    if let Some(path) = path {
        workspace.repo = path;
    }
    index_and_report(&workspace, full)
}

/// `codegraph stats`: the same report, from the cache where it holds (no forced full index).
pub fn stats(arguments: &StatsArgs) -> anyhow::Result<()> {
    index_and_report(&arguments.workspace, false)
}

/// Opens the workspace, brings its index up to date (`full`: without the cache) and prints
/// the report, stamped under `--json`.
fn index_and_report(workspace: &WorkspaceArgs, full: bool) -> anyhow::Result<()> {
    let world = keep_until_exit(open_world(workspace)?);
    let report = index_world(world, full);
    if workspace.json {
        print_stamped(world, &world.snapshot(), [], serde_json::to_value(&report)?)?;
    } else {
        print(&format_report(&report))?;
    }
    Ok(())
}

/// The index report for humans.
pub fn format_report(report: &IndexReport) -> String {
    let mut out = String::new();
    push_counts(&mut out, report);
    push_problems(&mut out, report);
    out.trim_end().to_string()
}

/// What was indexed: files, entities and relations by kind, languages, classes of files.
fn push_counts(out: &mut String, report: &IndexReport) {
    let seconds = report.duration_ms / 1000.0;
    out.push_str(&format!(
        "Indexed {} files ({} lines) in {:.2} s: {} parsed, {} from cache ({} not read), {} removed\n",
        report.files,
        report.lines,
        seconds,
        report.parsed,
        report.from_cache,
        report.unread,
        report.removed
    ));
    out.push_str(&format!("Entities: {}\n", report.entities));
    for (kind, count) in &report.entities_by_type {
        if *count > 0 {
            out.push_str(&format!("  {kind:<10} {count}\n"));
        }
    }
    out.push_str(&format!("Relations: {}\n", report.relations));
    for (kind, count) in &report.relations_by_type {
        if *count > 0 {
            out.push_str(&format!("  {kind:<10} {count}\n"));
        }
    }
    out.push_str("Languages:");
    for (language, count) in &report.languages {
        out.push_str(&format!(" {language} {count}"));
    }
    out.push_str("\nFiles by class:");
    for (class, count) in &report.files_by_class {
        out.push_str(&format!(" {class} {count}"));
    }
    out.push('\n');
}

/// What was left unresolved, did not parse, failed or was skipped.
fn push_problems(out: &mut String, report: &IndexReport) {
    out.push_str(&format!(
        "Unresolved: {} ambiguous references (no edge made), {} external references\n",
        report.ambiguous_references, report.external_references
    ));
    if report.files_with_problems > 0 {
        out.push_str(&format!(
            "{} files have syntax errors (indexed what parses)\n",
            report.files_with_problems
        ));
    }
    if report.bounded_references > 0 {
        out.push_str(&format!(
            "{} references left aside at the bound of their walk (types or modules that name \
             each other without end)\n",
            report.bounded_references
        ));
    }
    if !report.failed.is_empty() {
        out.push_str(&format!(
            "Failed on {} files (an internal error of codegraph, contained to the file; \
             please report it):\n",
            report.failed.len()
        ));
        let failed = report
            .failed
            .iter()
            .map(|failed| format!("{}: {}", failed.path, failed.error));
        push_first_ten(out, failed);
    }
    if !report.skipped.is_empty() {
        out.push_str(&format!("Skipped {} files:\n", report.skipped.len()));
        let skipped = report
            .skipped
            .iter()
            .map(|skipped| format!("{} ({})", skipped.path, skipped.reason));
        push_first_ten(out, skipped);
    }
}

/// The first ten `lines`, indented, and how many more there are.
fn push_first_ten(out: &mut String, lines: impl ExactSizeIterator<Item = String>) {
    let total = lines.len();
    for line in lines.take(10) {
        out.push_str(&format!("  {line}\n"));
    }
    if total > 10 {
        out.push_str(&format!("  ... and {} more\n", total - 10));
    }
}
