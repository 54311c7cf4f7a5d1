//! How a module fits in the codebase: `analyze_module_structure`.

use std::collections::BTreeMap;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Serialize;

use super::get_file_structure::{FileParams, StructureEntry, structure_entries};
use super::{ToolResult, blocking, resolve_file};
use crate::analysis::modules;
use crate::graph::FilePath;
use crate::mcp::CodegraphMcp;
use crate::mcp::convert::EntitySummary;

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportEntry {
    /// The module or file specifier as written.
    pub module: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    pub line: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ModuleStructureResult {
    pub file: String,
    pub language: String,
    pub line_count: u32,
    pub entities: Vec<StructureEntry>,
    /// Import statements as written.
    pub imports: Vec<ImportEntry>,
    /// Top-level definitions other files use, most referenced first.
    pub exported_api: Vec<ExportEntry>,
    /// The other public top-level definitions: no other file references them (public: exported
    /// by the language's module rules and not `_private`; visibility keywords are not read).
    pub unused_exports: Vec<EntitySummary>,
    /// Files this file depends on (resolved calls, imports, uses, inheritance).
    pub dependencies: Vec<String>,
    /// Files that depend on this one.
    pub dependents: Vec<String>,
    pub metrics: ModuleMetricsEntry,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ExportEntry {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// Resolved references from other files to it or to anything inside it.
    pub references: usize,
    /// The files those references come from.
    pub used_by: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ModuleMetricsEntry {
    pub lines: u32,
    /// Definitions by kind (function, class, method, ...).
    pub entities_by_kind: BTreeMap<String, usize>,
    /// Functions and methods measured.
    pub functions: usize,
    /// Cyclomatic complexity summed over the functions and methods.
    pub total_complexity: u32,
    pub max_complexity: u32,
    /// The id of the function or method with max_complexity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub most_complex: Option<String>,
    /// Other files that depend on this one.
    pub fan_in: usize,
    /// Other files this one depends on.
    pub fan_out: usize,
    pub in_import_cycle: bool,
    /// A shortest import cycle through the file (the file at both ends); empty when none.
    pub import_cycle: Vec<String>,
}

fn paths(files: &[FilePath]) -> Vec<String> {
    files.iter().map(|file| file.to_string()).collect()
}

impl From<modules::ModuleStructure> for ModuleStructureResult {
    fn from(module: modules::ModuleStructure) -> ModuleStructureResult {
        let metrics = &module.metrics;
        ModuleStructureResult {
            file: module.file.to_string(),
            language: module.language.name().to_string(),
            line_count: metrics.lines,
            entities: structure_entries(&module.entities),
            imports: module
                .imports
                .iter()
                .map(|import| ImportEntry {
                    module: import.module.to_string(),
                    name: import.name.as_ref().map(ToString::to_string),
                    alias: import.alias.as_ref().map(ToString::to_string),
                    line: import.line,
                })
                .collect(),
            exported_api: module
                .exported_api
                .iter()
                .map(|export| ExportEntry {
                    entity: EntitySummary::from(&export.entity),
                    references: export.references,
                    used_by: paths(&export.used_by),
                })
                .collect(),
            unused_exports: module
                .unused_exports
                .iter()
                .map(EntitySummary::from)
                .collect(),
            dependencies: paths(&module.dependencies),
            dependents: paths(&module.dependents),
            metrics: ModuleMetricsEntry {
                lines: metrics.lines,
                entities_by_kind: metrics.entities_by_kind.clone(),
                functions: metrics.functions,
                total_complexity: metrics.total_complexity,
                max_complexity: metrics.max_complexity,
                most_complex: metrics.most_complex.as_ref().map(ToString::to_string),
                fan_in: metrics.fan_in,
                fan_out: metrics.fan_out,
                in_import_cycle: metrics.in_import_cycle,
                import_cycle: paths(&metrics.import_cycle),
            },
        }
    }
}

#[tool_router(router = analyze_module_structure_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "How a module (file) fits in the codebase: what it defines (with lines), what it imports, its exported API (top-level definitions other files use, with reference counts and the using files; `unused_exports` lists public ones nobody outside uses), which files it depends on and which depend on it (resolved calls, imports, uses, inheritance), and metrics (lines, definitions by kind, total and maximum cyclomatic complexity, file fan-in and fan-out, whether it is in an import cycle). Use it before changing a module's interface.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn analyze_module_structure(
        &self,
        Parameters(params): Parameters<FileParams>,
    ) -> ToolResult<ModuleStructureResult> {
        let world = self.world.clone();
        blocking(move || {
            let graph = world.snapshot();
            let path = resolve_file(&graph, &params.file_path)?;
            let module =
                modules::analyze_module_structure(&graph, &path).expect("resolved file exists");
            Ok(Json(ModuleStructureResult::from(module)))
        })
        .await
    }
}
