//! The architecture rules' violations (`.codegraph/rules.toml`), of the whole repository, of
//! some files, or of proposed contents that are written nowhere: `check_architecture`.

use std::path::Path;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Provenance, ToolResult, provenance, resolve_file};
use crate::{CodegraphMcp, tool_error};
use codegraph_analysis::rules::baseline::Entry;
use codegraph_analysis::rules::report::RuleStatus;
use codegraph_analysis::rules::{Checker, Status, Violation, display_path, proposal, report};
use codegraph_graph::{FilePath, Graph};
use codegraph_world::work::Weight;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ProposedFile {
    /// Relative to the repository root; it may not exist yet.
    #[serde(alias = "path")]
    pub file_path: String,
    /// Its whole new text; `null` to delete it.
    pub content: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckArchitectureParams {
    /// Only these files' violations. Default: all, or the proposed files.
    #[serde(default)]
    pub files: Vec<String>,
    /// Contents to check as if written.
    #[serde(default)]
    pub proposed: Vec<ProposedFile>,
    /// Violations per list. Default 100.
    #[serde(default = "default_limit")]
    pub limit: usize,
}

fn default_limit() -> usize {
    100
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ViolationEntry {
    /// The rule's name.
    pub rule: String,
    /// error, warning or info.
    pub severity: String,
    pub file: String,
    /// One-based.
    pub line: u32,
    pub column: u32,
    /// What makes the dependency: import, call, extends, implements or type_use.
    pub kind: String,
    /// The import or reference as written.
    pub reference: String,
    /// What it lands on: an entity id, or an external module.
    pub target: String,
    pub message: String,
    /// A suggested fix, e.g. "Remove the import (lines 3-3)".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl From<&Violation> for ViolationEntry {
    fn from(violation: &Violation) -> ViolationEntry {
        ViolationEntry {
            rule: violation.rule.to_string(),
            severity: violation.severity.as_str().to_string(),
            file: violation.file.to_string(),
            line: violation.line,
            column: violation.column,
            kind: violation.kind.as_str().to_string(),
            reference: violation.reference.clone(),
            target: violation.target.clone(),
            message: violation.message.clone(),
            fix: violation
                .fix
                .as_ref()
                .map(|fix| format!("{} (lines {}-{})", fix.title, fix.start_line, fix.end_line)),
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FixedEntry {
    pub rule: String,
    pub file: String,
    pub kind: String,
    pub reference: String,
    pub target: String,
}

impl From<&Entry> for FixedEntry {
    fn from(entry: &Entry) -> FixedEntry {
        FixedEntry {
            rule: entry.rule.clone(),
            file: entry.file.clone(),
            kind: entry.kind.as_str().to_string(),
            reference: entry.reference.clone(),
            target: entry.target.clone(),
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RuleEntry {
    pub name: String,
    /// layers, forbid, independent or cycles.
    pub kind: String,
    pub severity: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Violations now.
    pub violations: usize,
    /// In the baseline (`.codegraph/rules-baseline.json`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<usize>,
}

impl From<RuleStatus> for RuleEntry {
    fn from(rule: RuleStatus) -> RuleEntry {
        RuleEntry {
            name: rule.name,
            kind: rule.kind.to_string(),
            severity: rule.severity.as_str().to_string(),
            reason: rule.reason,
            violations: rule.count.now,
            baseline: rule.count.baseline,
            new: rule.count.new,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProposalResult {
    pub files: Vec<String>,
    /// Whether the proposal adds a violation of error severity.
    pub breaks_rules: bool,
    /// Violations the proposal adds, anywhere (a new import can close a cycle elsewhere).
    pub new_violations: Vec<ViolationEntry>,
    /// Violations the proposal removes.
    pub fixed_violations: Vec<FixedEntry>,
    /// Every violation of the proposed files once changed.
    pub violations: Vec<ViolationEntry>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckArchitectureResult {
    pub rules_file: String,
    pub rules: Vec<RuleEntry>,
    /// Problems of the rules file itself, as `line:column: message`.
    pub problems: Vec<String>,
    /// Violations today (of `files` when given), in file order.
    pub violations: Vec<ViolationEntry>,
    pub total_violations: usize,
    pub truncated: bool,
    /// What the proposed contents would do, when some were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposalResult>,
    pub provenance: Provenance,
}

#[tool_router(router = check_architecture_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Checks the rules of `.codegraph/rules.toml` (layers, forbidden dependencies, independent modules, cycles), unsaved edits included: each violation with its rule, place, target and fix. With `proposed` contents (written nowhere): the violations that change would add and remove. Call it before proposing an import across modules.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn check_architecture(
        &self,
        Parameters(params): Parameters<CheckArchitectureParams>,
        cancel: CancellationToken,
    ) -> Result<Json<CheckArchitectureResult>, CallToolResult> {
        // Proposed contents are extracted and resolved on a copy of the writer's indices.
        let weight = if params.proposed.is_empty() {
            Weight::Cheap
        } else {
            Weight::Heavy
        };
        let world = self.world.clone();
        self.work(weight, &cancel, move || check(&world, params))
            .await
    }
}

fn error(title: &str, message: String) -> rmcp::model::CallToolResult {
    tool_error(serde_json::json!({"error": title, "message": message}))
}

/// A check's question once its paths are admitted.
struct Question {
    /// The files whose violations are listed; every file when empty.
    files: Vec<FilePath>,
    /// The proposed files and the graph with their contents, when contents were proposed.
    proposal: Option<(Vec<FilePath>, Graph)>,
    /// At most this many violations in each list.
    limit: usize,
}

fn check(
    world: &codegraph_world::World,
    params: CheckArchitectureParams,
) -> ToolResult<CheckArchitectureResult> {
    let graph = world.snapshot();
    let root = world.root();
    let changes = admit_proposed(world, params.proposed)?;
    let proposed_files: Vec<FilePath> = changes
        .iter()
        .map(|(path, _)| FilePath::from(path.as_str()))
        .collect();
    let mut files: Vec<FilePath> = Vec::new();
    for text in &params.files {
        files.push(resolve_file(&graph, text)?);
    }
    if files.is_empty() {
        files = proposed_files.clone();
    }
    let question = Question {
        files,
        proposal: (!changes.is_empty()).then(|| (proposed_files, world.proposed(changes))),
        limit: params.limit.max(1),
    };
    world
        .analysis()
        .rules()
        .with(root, &graph, |status| match status {
            Status::NoRules { path } => Err(error(
                "No architecture rules",
                format!(
                    "no rules file at {}: write one (TOML: [[layers]], [[forbid]], [[independent]], [cycles]; see the README, \"Architecture rules\")",
                    display_path(root, &path)
                ),
            )),
            Status::Ready { path, checker } => {
                Ok(Json(answer(world, &graph, &path, checker, question)))
            }
        })
}

/// The answer of `checker` (up to date with `graph`), whose rules file is `rules_file`.
fn answer(
    world: &codegraph_world::World,
    graph: &Graph,
    rules_file: &Path,
    checker: &Checker,
    question: Question,
) -> CheckArchitectureResult {
    let Question {
        files,
        proposal,
        limit,
    } = question;
    let summary = report::report(checker, world.root(), rules_file, 0);
    let stamp = provenance(
        world,
        graph,
        violations_files(checker, &files).iter().map(|file| &**file),
    );
    let violations: Vec<Violation> = if files.is_empty() {
        checker.violations()
    } else {
        files
            .iter()
            .flat_map(|file| checker.file_violations(file))
            .collect()
    };
    let proposal = proposal.map(|(proposed_files, proposed_graph)| {
        let mut copy = checker.clone();
        let found = proposal::compare(checker, &mut copy, &proposed_graph, proposed_files);
        proposal_result(&found, limit)
    });
    CheckArchitectureResult {
        rules_file: summary.rules_file,
        rules: summary.rules.into_iter().map(RuleEntry::from).collect(),
        problems: summary
            .problems
            .iter()
            .map(|problem| format!("{}:{}: {}", problem.line, problem.column, problem.message))
            .collect(),
        total_violations: violations.len(),
        truncated: violations.len() > limit,
        violations: entries(&violations, limit),
        proposal,
        provenance: stamp,
    }
}

/// The proposed files as `(relative path, content)`: inside the workspace, in a language
/// codegraph parses, and under the file-size cap.
fn admit_proposed(
    world: &codegraph_world::World,
    proposed: Vec<ProposedFile>,
) -> Result<Vec<(String, Option<String>)>, CallToolResult> {
    let root = world.root();
    let cap = world.config().max_file_size;
    let mut changes = Vec::new();
    for proposed in proposed {
        let text = proposed.file_path.trim().trim_start_matches("./");
        let relative = match world.admit(&root.join(text)) {
            Ok(Some(relative)) => relative,
            Ok(None) => {
                return Err(error(
                    "Not a source file",
                    format!("{text}: not a language codegraph parses"),
                ));
            }
            Err(reason) => return Err(error("Path outside the repository", reason)),
        };
        if let Some(content) = &proposed.content
            && content.len() as u64 > cap
        {
            return Err(error(
                "Proposed content too large",
                format!(
                    "{relative}: {} bytes, over the {cap}-byte cap",
                    content.len()
                ),
            ));
        }
        changes.push((relative.to_string(), proposed.content));
    }
    Ok(changes)
}

/// The first `limit` of `violations`, as entries.
fn entries(violations: &[Violation], limit: usize) -> Vec<ViolationEntry> {
    violations
        .iter()
        .take(limit)
        .map(ViolationEntry::from)
        .collect()
}

/// What the proposed contents would do, each list cut at `limit`.
fn proposal_result(found: &proposal::Proposal, limit: usize) -> ProposalResult {
    ProposalResult {
        files: found.files.iter().map(|file| file.to_string()).collect(),
        breaks_rules: found.breaks_rules,
        new_violations: entries(&found.new, limit),
        fixed_violations: found
            .fixed
            .iter()
            .take(limit)
            .map(FixedEntry::from)
            .collect(),
        violations: entries(&found.violations, limit),
    }
}

/// The files an answer rests on: the given ones, else every file with a violation.
fn violations_files(checker: &Checker, files: &[FilePath]) -> Vec<FilePath> {
    if !files.is_empty() {
        return files.to_vec();
    }
    let mut found: Vec<FilePath> = checker
        .violations()
        .into_iter()
        .map(|violation| violation.file)
        .collect();
    found.dedup();
    found
}
