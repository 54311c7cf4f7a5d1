//! `codegraph affected`: what the change since a git revision affects, and the tests to run.

use clap::{Args, ValueEnum};

use super::{WorkspaceArgs, load, print, print_json};
use crate::analysis::affected::{Format, tests};

#[derive(Args, Debug)]
pub struct AffectedArgs {
    /// The revision to compare the working tree with (untracked files included): `HEAD` for
    /// uncommitted work, `origin/main` for a branch's pull request.
    #[arg(long, default_value = "HEAD")]
    pub base: String,
    /// What to print: a list for people, or the selection as a runner takes it (pytest node
    /// ids, Rust test paths, `go test` package and `-run` expression lines, JavaScript test
    /// files for Jest, Vitest or Mocha).
    #[arg(long, value_enum, default_value = "list")]
    pub format: FormatArg,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatArg {
    List,
    Pytest,
    #[value(alias = "nextest")]
    Cargo,
    Go,
    #[value(alias = "vitest", alias = "mocha")]
    Jest,
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Format {
        match format {
            FormatArg::List => Format::List,
            FormatArg::Pytest => Format::Pytest,
            FormatArg::Cargo => Format::Cargo,
            FormatArg::Go => Format::Go,
            FormatArg::Jest => Format::Jest,
        }
    }
}

pub fn run(arguments: &AffectedArgs) -> anyhow::Result<()> {
    let (world, _) = load(&arguments.workspace)?;
    let (graph, answer) = world.affected(&arguments.base)?;
    if arguments.workspace.json {
        let mut value = serde_json::to_value(&answer)?;
        let files = answer.impact.changed.iter().map(|changed| &*changed.file);
        let stamp = serde_json::to_value(world.stamp(&graph, files))?;
        if let (Some(provenance), Some(stamp)) = (
            value
                .get_mut("provenance")
                .and_then(|value| value.as_object_mut()),
            stamp.as_object(),
        ) {
            for (key, field) in stamp {
                provenance
                    .entry(key.clone())
                    .or_insert_with(|| field.clone());
            }
        }
        return print_json(&value);
    }
    let impact = &answer.impact;
    let format = Format::from(arguments.format);
    let selection = tests::render(&impact.tests, &impact.test_files, &graph, format);
    if format != Format::List {
        if !selection.is_empty() {
            print(&selection)?;
        }
        return Ok(());
    }
    let changed = impact.changed.len();
    let proven = impact
        .affected
        .iter()
        .filter(|affected| affected.confidence == crate::analysis::affected::Confidence::Proven)
        .count();
    print(&format!(
        "{changed} changed, {} affected ({proven} proven), {} tests in {} test files, against {} ({})",
        impact.affected.len(),
        impact.tests.len(),
        impact.test_files.len(),
        answer.provenance.base,
        &answer.provenance.commit[..answer.provenance.commit.len().min(12)],
    ))?;
    for changed in &impact.changed {
        print(&format!(
            "changed {:<9} {}  {}:{}",
            changed.change.as_str(),
            changed.id,
            changed.file,
            changed.line
        ))?;
    }
    if !selection.is_empty() {
        print(&selection)?;
    }
    for path in &impact.unmodelled {
        print(&format!("unmodelled {path}"))?;
    }
    if impact.truncated {
        print("the walk stopped at its limit: the selection is not complete")?;
    }
    Ok(())
}
