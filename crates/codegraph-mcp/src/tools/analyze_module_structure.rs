//! How a module fits in the codebase: `analyze_module_structure`.

use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Serialize;

use rmcp::model::CallToolResult;
use serde::Deserialize;

use super::get_file_structure::{StructureEntry, structure_entries};
use super::{MAX_LIST_LIMIT, Provenance, ToolResult, provenance, resolve_file};
use crate::CodegraphMcp;
use crate::convert::EntitySummary;
use codegraph_analysis::modules;
use codegraph_graph::FilePath;
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ModuleParams {
    /// A path relative to the repository root (a module's id or dotted name works too).
    #[serde(alias = "module_path", alias = "path")]
    pub file_path: String,
    /// Items per list. Default 50, at most 1000.
    #[serde(default = "super::default_list_limit", alias = "max_results")]
    pub limit: usize,
}

/// How many items each list has in all.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct ModuleTotals {
    pub entities: usize,
    pub imports: usize,
    pub exported_api: usize,
    pub unused_exports: usize,
    pub dependencies: usize,
    pub dependents: usize,
}

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
    /// The length of each list before `limit` cut it.
    pub totals: ModuleTotals,
    /// True when a list (or an export's `used_by`) was cut at `limit`.
    pub truncated: bool,
    /// How to get the rest, when anything was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub provenance: Provenance,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ExportEntry {
    #[serde(flatten)]
    pub entity: EntitySummary,
    /// Resolved references from other files to it or to anything inside it.
    pub references: usize,
    /// The files those references come from (at most `limit`).
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

impl ModuleStructureResult {
    /// Cuts every list at `limit`, saying how long each was.
    fn limit(&mut self, limit: usize) {
        self.totals = ModuleTotals {
            entities: self.entities.len(),
            imports: self.imports.len(),
            exported_api: self.exported_api.len(),
            unused_exports: self.unused_exports.len(),
            dependencies: self.dependencies.len(),
            dependents: self.dependents.len(),
        };
        let mut cut = false;
        let mut keep = |length: usize| {
            cut |= length > limit;
            length.min(limit)
        };
        self.entities.truncate(keep(self.entities.len()));
        self.imports.truncate(keep(self.imports.len()));
        self.exported_api.truncate(keep(self.exported_api.len()));
        for export in &mut self.exported_api {
            export.used_by.truncate(keep(export.used_by.len()));
        }
        self.unused_exports
            .truncate(keep(self.unused_exports.len()));
        self.dependencies.truncate(keep(self.dependencies.len()));
        self.dependents.truncate(keep(self.dependents.len()));
        self.truncated = cut;
        self.hint = cut.then(|| {
            format!(
                "lists were cut at {limit} (see totals): call again with a larger limit (at most {MAX_LIST_LIMIT}), page the definitions with get_file_structure, or follow dependents with find_dependencies"
            )
        });
    }

    /// The files this answer names.
    fn files(&self) -> Vec<&str> {
        let mut files = vec![self.file.as_str()];
        files.extend(self.dependencies.iter().map(String::as_str));
        files.extend(self.dependents.iter().map(String::as_str));
        for export in &self.exported_api {
            files.extend(export.used_by.iter().map(String::as_str));
        }
        files
    }
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
            totals: ModuleTotals::default(),
            truncated: false,
            hint: None,
            provenance: Provenance::default(),
        }
    }
}

#[tool_router(router = analyze_module_structure_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "How a file fits in: its definitions, imports, exported API (with its users; `unused_exports`), the files it depends on and that depend on it, and metrics (lines, complexity, fan-in/out, import cycles). Lists hold at most `limit` items; `totals` gives their lengths.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn analyze_module_structure(
        &self,
        Parameters(params): Parameters<ModuleParams>,
        cancel: CancellationToken,
    ) -> Result<Json<ModuleStructureResult>, CallToolResult> {
        let world = self.world.clone();
        let work = move || -> ToolResult<ModuleStructureResult> {
            let graph = world.snapshot();
            let path = resolve_file(&graph, &params.file_path)?;
            let module =
                modules::analyze_module_structure(&graph, &path).expect("resolved file exists");
            let mut result = ModuleStructureResult::from(module);
            result.limit(params.limit.clamp(1, MAX_LIST_LIMIT));
            result.provenance = provenance(&world, &graph, result.files());
            Ok(Json(result))
        };
        self.work(Weight::Cheap, &cancel, work).await
    }
}
