//! Architecture rules, checked live: how the code may depend on itself, written down in
//! `.codegraph/rules.toml`, and the dependencies of the graph that break them.
//!
//! One checker, three doors: the LSP shows a file's violations as diagnostics while it is typed,
//! the MCP tool `check_architecture` answers for the whole repository or for proposed contents,
//! and `codegraph check` fails CI on new violations. They all go through [`Live`] (the rules of a
//! world, reloaded when the file changes, and an incremental [`Checker`]) or [`Checker`] itself.
//!
//! - `rules/config.rs`    the rules file → a [`RuleSet`], every problem with its line.
//! - `rules/deps.rs`      what counts as a dependency of a file: its imports (external modules
//!   included), and its resolved calls, inheritance and type uses that land in another file.
//! - `rules/checker.rs`   the evaluation, kept per file and redone only for the files a change
//!   touched (a file's verdict is a function of its node in the graph).
//! - `rules/cycles.rs`    the dependency graph between files (or directories) and its cycles,
//!   kept up to date edge by edge: a change recomputes the components only within the reach
//!   of the nodes whose successors changed.
//! - `rules/baseline.rs`  today's violations frozen to a file, what is new against it, and the
//!   drift of a rule grouped by module pair.
//! - `rules/placement.rs` where a new shared module should live (lowest common ancestor of its
//!   users, moved down the layers until every user may depend on it).
//! - `rules/proposal.rs`  "would this change break a rule?": proposed contents against now.
//! - `rules/report.rs`    the rules with their status (counts now and against the baseline).
//!
//! Architecture invariant: no protocol types here; the doors convert [`Violation`]s.

pub mod baseline;
pub mod checker;
pub mod config;
mod cycles;
pub mod deps;
pub mod placement;
pub mod proposal;
pub mod report;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use codegraph_graph::{FilePath, Graph};
use codegraph_model::LineSpan;

pub use checker::Checker;
pub use config::{Rule, RuleBody, RuleSet};

/// Where the rules live, relative to the workspace root, unless configured otherwise.
pub const DEFAULT_RULES_PATH: &str = ".codegraph/rules.toml";
/// Where `codegraph check --write-baseline` records today's violations by default.
pub const DEFAULT_BASELINE_PATH: &str = ".codegraph/rules-baseline.json";

/// How bad breaking a rule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" | "hint" => Some(Severity::Info),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What makes one file depend on another (or on an external module).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DependencyKind {
    Import,
    Call,
    Extends,
    Implements,
    TypeUse,
}

impl DependencyKind {
    pub const ALL: [DependencyKind; 5] = [
        DependencyKind::Import,
        DependencyKind::Call,
        DependencyKind::Extends,
        DependencyKind::Implements,
        DependencyKind::TypeUse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DependencyKind::Import => "import",
            DependencyKind::Call => "call",
            DependencyKind::Extends => "extends",
            DependencyKind::Implements => "implements",
            DependencyKind::TypeUse => "type_use",
        }
    }

    pub fn parse(text: &str) -> Option<DependencyKind> {
        match text {
            "import" | "imports" => Some(DependencyKind::Import),
            "call" | "calls" => Some(DependencyKind::Call),
            "extends" => Some(DependencyKind::Extends),
            "implements" => Some(DependencyKind::Implements),
            "type_use" | "type" | "uses" | "type_uses" => Some(DependencyKind::TypeUse),
            _ => None,
        }
    }

    /// The verb of a message: `a.py imports b.py`.
    pub fn verb(self) -> &'static str {
        match self {
            DependencyKind::Import => "imports",
            DependencyKind::Call => "calls",
            DependencyKind::Extends => "extends",
            DependencyKind::Implements => "implements",
            DependencyKind::TypeUse => "uses the type",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of dependency kinds (which ones a rule counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KindSet(u8);

impl KindSet {
    pub const ALL: KindSet = KindSet(0b11111);
    pub const IMPORTS: KindSet = KindSet(1);

    pub fn of(kinds: impl IntoIterator<Item = DependencyKind>) -> KindSet {
        KindSet(kinds.into_iter().fold(0, |bits, kind| bits | kind.bit()))
    }

    pub fn contains(self, kind: DependencyKind) -> bool {
        self.0 & kind.bit() != 0
    }

    pub fn kinds(self) -> Vec<DependencyKind> {
        DependencyKind::ALL
            .into_iter()
            .filter(|kind| self.contains(*kind))
            .collect()
    }
}

/// A suggested edit that removes the violation: delete `delete` (whole lines of the import
/// statement when it stands alone on them).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Fix {
    pub title: String,
    /// One-based, inclusive: the lines the edit deletes (or edits, when the import shares them).
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip)]
    pub delete: LineSpan,
}

/// One dependency that breaks one rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Violation {
    /// The rule's name (the diagnostic code).
    pub rule: Arc<str>,
    pub severity: Severity,
    /// The file that depends, relative to the workspace root.
    pub file: FilePath,
    /// One-based line and column (UTF-8 bytes) of the import or reference.
    pub line: u32,
    pub column: u32,
    #[serde(skip)]
    pub span: LineSpan,
    /// Which dependency: an import, a call, inheritance, a type use.
    pub kind: DependencyKind,
    /// The import or reference as written (its first line).
    pub reference: String,
    /// What it lands on: an entity id in the workspace, or an external module.
    pub target: String,
    /// The file it lands in; `None` for an external module.
    pub target_file: Option<FilePath>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

impl Violation {
    /// `path:line:col: severity rule: message`, the form compilers and CI annotations use.
    pub fn to_line(&self) -> String {
        format!(
            "{}:{}:{}: {} {}: {}",
            self.file,
            self.line,
            self.column,
            self.severity.as_str(),
            self.rule,
            self.message
        )
    }

    /// The order every door lists violations in: by file, position, rule.
    pub fn sort_key(&self) -> (&str, u32, u32, &str, &str) {
        (&self.file, self.line, self.column, &self.rule, &self.target)
    }
}

/// Something wrong with the rules file itself, with its one-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct RuleProblem {
    pub line: u32,
    pub column: u32,
    /// Where what is wrong ends (one-based, exclusive column): the pattern or value as written.
    pub end_line: u32,
    pub end_column: u32,
    /// The rule it belongs to, when it belongs to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    pub message: String,
}

impl RuleProblem {
    pub fn to_line(&self, rules_file: &str) -> String {
        format!(
            "{rules_file}:{}:{}: error rules-file: {}",
            self.line, self.column, self.message
        )
    }
}

/// Sorts violations into the order every door shows them.
pub fn sort(violations: &mut [Violation]) {
    violations.sort_by(|left, right| left.sort_key().cmp(&right.sort_key()));
}

/// The rules of one workspace, kept current: the file is read again when its size or
/// modification time changes, and the checker follows the graph incrementally. Shared by the
/// doors of one world (through `analysis::Cache`), so an editor's keystroke and the AI's question
/// reuse the same per-file verdicts.
#[derive(Default)]
pub struct Live {
    /// The rules file when it is not `<root>/.codegraph/rules.toml`.
    path: Mutex<Option<PathBuf>>,
    state: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    /// The path, size and modification time of the rules file last read.
    stamp: Option<(PathBuf, u64, Option<std::time::SystemTime>)>,
    /// Its text as read (to tell an editor's copy that equals it from one that does not).
    text: String,
    checker: Option<Checker>,
    /// The problems of the last rules text that was not the file's (an editor's unsaved copy),
    /// with the number of files they were checked against.
    unsaved: Option<(String, usize, Arc<Vec<RuleProblem>>)>,
}

/// What [`Live::with`] hands its closure.
pub enum Status<'a> {
    /// No rules file: nothing to check.
    NoRules { path: PathBuf },
    /// The rules, evaluated on the graph.
    Ready { path: PathBuf, checker: &'a Checker },
}

impl Live {
    /// Reads the rules from `path` (absolute, or relative to the workspace root) from now on.
    pub fn set_path(&self, path: PathBuf) {
        *self.path.lock() = Some(path);
    }

    /// The rules file of a workspace.
    pub fn path(&self, root: &Path) -> PathBuf {
        match &*self.path.lock() {
            Some(path) => root.join(path),
            None => root.join(DEFAULT_RULES_PATH),
        }
    }

    /// Brings the rules and the checker up to date with the file and `graph`, then calls `work`.
    /// The lock is held during `work`: keep it short (copy what you need out).
    pub fn with<R>(&self, root: &Path, graph: &Graph, work: impl FnOnce(Status<'_>) -> R) -> R {
        let path = self.path(root);
        let metadata = std::fs::metadata(&path).ok().filter(|meta| meta.is_file());
        let mut state = self.state.lock();
        let Some(metadata) = metadata else {
            state.stamp = None;
            state.checker = None;
            return work(Status::NoRules { path });
        };
        let stamp = (path.clone(), metadata.len(), metadata.modified().ok());
        if state.stamp.as_ref() != Some(&stamp) || state.checker.is_none() {
            let rules = match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let rules = RuleSet::parse(&text);
                    state.text = text;
                    rules
                }
                Err(error) => {
                    state.text.clear();
                    RuleSet::unreadable(&error.to_string())
                }
            };
            for problem in &rules.problems {
                tracing::warn!("{}", problem.to_line(&path.display().to_string()));
            }
            state.checker = Some(Checker::new(Arc::new(rules)));
            state.stamp = Some(stamp);
        }
        let checker = state.checker.as_mut().expect("set above");
        checker.update(graph);
        work(Status::Ready { path, checker })
    }

    /// The problems of a rules file's text, `text` (an editor's copy, saved or not), against the
    /// files of `graph`: as written, and the patterns that match no file. The live checker's
    /// when `text` is the file as read; otherwise computed (and kept for the next call).
    pub fn problems_of(&self, root: &Path, graph: &Graph, text: &str) -> Vec<RuleProblem> {
        let live = self.with(root, graph, |status| match status {
            Status::Ready { checker, .. } => Some(checker.problems().to_vec()),
            Status::NoRules { .. } => None,
        });
        let mut state = self.state.lock();
        if let Some(problems) = live
            && state.checker.is_some()
            && state.text == text
        {
            return problems;
        }
        if let Some((unsaved, files, problems)) = &state.unsaved
            && unsaved == text
            && *files == graph.file_count()
        {
            return problems.to_vec();
        }
        let problems = Arc::new(problems_of(text, graph));
        state.unsaved = Some((text.to_string(), graph.file_count(), problems.clone()));
        problems.to_vec()
    }

    /// A copy of the current checker brought up to date with `graph` (for proposed contents:
    /// the copy follows a graph that is never stored, and the live one is left alone).
    pub fn fork(&self, root: &Path, current: &Graph) -> Option<Checker> {
        self.with(root, current, |status| match status {
            Status::NoRules { .. } => None,
            Status::Ready { checker, .. } => Some(checker.clone()),
        })
    }
}

/// The problems of the rules file text `text` against the files of `graph`: as written, and the
/// patterns that match no file.
pub fn problems_of(text: &str, graph: &Graph) -> Vec<RuleProblem> {
    let rules = RuleSet::parse(text);
    let classes: Vec<(&str, config::PathClass)> = graph
        .files()
        .map(|file| (&*file.path, rules.classify(&file.path)))
        .collect();
    checker::pattern_problems(&rules, classes.iter().map(|(path, class)| (*path, class)))
}

/// The rules file's path as the doors print it: relative to the root when inside it.
pub fn display_path(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|_| path.display().to_string())
}
