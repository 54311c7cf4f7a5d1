//! `codegraph module`: how a file fits in the codebase.

use anyhow::Context;
use clap::Args;

use super::{WorkspaceArgs, load, print, print_stamped};
use crate::analysis::modules::{self, ModuleMetrics, ModuleStructure};

#[derive(Args, Debug)]
pub struct ModuleArgs {
    pub file: String,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
}

pub fn run(arguments: &ModuleArgs) -> anyhow::Result<()> {
    let (file, workspace) = (&arguments.file, &arguments.workspace);
    let (world, graph) = load(workspace)?;
    let path = modules::find_file(&graph, file).map_err(|closest| {
        if closest.is_empty() {
            anyhow::anyhow!("'{file}' is not an indexed file")
        } else {
            anyhow::anyhow!(
                "'{file}' is not an indexed file; closest: {}",
                closest.join(", ")
            )
        }
    })?;
    let module = modules::analyze_module_structure(&graph, &path)
        .context("the file left the graph while it was read")?;
    if workspace.json {
        let mut files: Vec<&str> = vec![&*module.file];
        files.extend(module.dependencies.iter().map(|file| &**file));
        files.extend(module.dependents.iter().map(|file| &**file));
        return print_stamped(world, &graph, files, serde_json::to_value(&module)?);
    }
    print(&text(&module))
}

/// The file's outline, imports, exported API, unused definitions, dependencies and metrics.
fn text(module: &ModuleStructure) -> String {
    let mut out = format!(
        "{} ({}, {} lines)\n",
        module.file,
        module.language.name(),
        module.metrics.lines
    );
    let entities = module.entities.iter().map(|entry| {
        format!(
            "{}{} {} {}-{}",
            "  ".repeat(entry.depth as usize),
            entry.entity.kind,
            entry.entity.name,
            entry.entity.start_line,
            entry.entity.end_line
        )
    });
    section(&mut out, "Entities", entities);
    let imports = module.imports.iter().map(|import| {
        let mut text = import.module.to_string();
        if let Some(name) = &import.name {
            text.push_str(&format!(" {name}"));
        }
        if let Some(alias) = &import.alias {
            text.push_str(&format!(" as {alias}"));
        }
        format!("{text} (line {})", import.line)
    });
    section(&mut out, "Imports", imports);
    let exports = module.exported_api.iter().map(|export| {
        let users: Vec<&str> = export.used_by.iter().map(|file| &**file).collect();
        format!(
            "{} {}  {} references from {}",
            export.entity.kind,
            export.entity.id,
            export.references,
            users.join(", ")
        )
    });
    section(&mut out, "Exported API", exports);
    let unused = module
        .unused_exports
        .iter()
        .map(|entity| format!("{} {}", entity.kind, entity.id));
    section(&mut out, "Unused public definitions", unused);
    section(&mut out, "Depends on", module.dependencies.iter());
    section(&mut out, "Depended on by", module.dependents.iter());
    out.push_str(&metrics_line(&module.metrics));
    out
}

/// `Metrics: ...`: entities by kind, complexity, fan-in and fan-out, the import cycle.
fn metrics_line(metrics: &ModuleMetrics) -> String {
    let kinds: Vec<String> = metrics
        .entities_by_kind
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect();
    format!(
        "Metrics: {}; cyclomatic complexity total {} over {} functions, max {}{}; file fan-in {}, fan-out {}; {}",
        kinds.join(", "),
        metrics.total_complexity,
        metrics.functions,
        metrics.max_complexity,
        metrics
            .most_complex
            .as_ref()
            .map_or(String::new(), |id| format!(" ({id})")),
        metrics.fan_in,
        metrics.fan_out,
        if metrics.in_import_cycle {
            let cycle: Vec<&str> = metrics.import_cycle.iter().map(|file| &**file).collect();
            format!("import cycle: {}", cycle.join(" -> "))
        } else {
            "in no import cycle".to_string()
        }
    )
}

/// `Header:` and its items indented, or `(none)`.
fn section(out: &mut String, header: &str, items: impl Iterator<Item = impl std::fmt::Display>) {
    out.push_str(header);
    out.push_str(":\n");
    let before = out.len();
    for item in items {
        out.push_str(&format!("  {item}\n"));
    }
    if out.len() == before {
        out.push_str("  (none)\n");
    }
}
