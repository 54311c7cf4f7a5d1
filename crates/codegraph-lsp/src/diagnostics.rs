//! Architecture rules in the editor: a file's violations (`analysis::rules`) as diagnostics,
//! pulled (`textDocument/diagnostic`) or published (`textDocument/publishDiagnostics`, for
//! clients without pull), and the quick fix "Remove the import".
//!
//! Every diagnostic has source `codegraph` and the rule's name as its code. The rules checker is
//! the world's (`analysis::Cache::rules`), updated incrementally from the snapshot the request
//! takes, so a diagnostic answers for the unsaved text the editor just sent.
//!
//! Publishing: after every text change (and index run, and watched-file change) the open
//! documents' diagnostics are computed again and the ones that changed are published, one
//! publication at a time so that an older state never overtakes a newer one. A pull client is
//! asked to pull again (`workspace/diagnostic/refresh`, when it supports it) when a change
//! altered the diagnostics of another open document (a cycle closed elsewhere).
//!
//! The rules file itself (`.codegraph/rules.toml`, or the configured path): its problems (not
//! TOML, an unknown key or severity, a pattern that matches no file) are diagnostics on it, with
//! code `rules-file`, at the key or pattern as written. While it is open they are those of the
//! editor's text, unsaved edits included, checked again on every change; the rules the other
//! documents are checked against are the file's on disk, read again when it is saved (the
//! server asks for `didSave`) or changes (watched files). A publishing client also gets the
//! problems of a rules file it has not opened.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::proto::{FileText, span_range};
use super::state::Root;
use codegraph_analysis::rules::{RuleProblem, Severity, Status, Violation};
use codegraph_graph::{FilePath, Graph};
use codegraph_model::LineTable;
use codegraph_model::{LineSpan, Position as CorePosition};
use codegraph_world::buffer::{ColumnEncoding, TextEdit as CoreTextEdit, byte_offset};

/// The code of a diagnostic about the rules file itself.
pub const RULES_FILE_CODE: &str = "rules-file";

/// The `source` of every diagnostic codegraph sends.
pub const SOURCE: &str = "codegraph";

/// What the editor door keeps for diagnostics.
#[derive(Default)]
pub(super) struct Diagnostics {
    /// The client pulls (`textDocument/diagnostic`); otherwise the server publishes.
    pull: AtomicBool,
    /// The client accepts `workspace/diagnostic/refresh`.
    refresh: AtomicBool,
    /// The open documents, by URI: the workspace folder (as the client named it) and the path.
    open: parking_lot::Mutex<HashMap<Uri, (std::path::PathBuf, FilePath)>>,
    /// The open rules files, by URI: the workspace folder and the editor's text.
    rules_open: parking_lot::Mutex<HashMap<Uri, (std::path::PathBuf, String)>>,
    /// The diagnostics last sent (published, or answered to a pull) per open document. The
    /// tokio mutex is held across the publication, which serialises them.
    sent: tokio::sync::Mutex<HashMap<Uri, Vec<Diagnostic>>>,
}

impl Diagnostics {
    /// Reads the client's capabilities: pull or publish, refresh or not.
    pub(super) fn configure(&self, capabilities: &ClientCapabilities) {
        let pull = capabilities
            .text_document
            .as_ref()
            .and_then(|text| text.diagnostic.as_ref())
            .is_some();
        let refresh = capabilities
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.diagnostics.as_ref())
            .and_then(|diagnostics| diagnostics.refresh_support)
            .unwrap_or(false);
        self.pull.store(pull, Ordering::SeqCst);
        self.refresh.store(refresh, Ordering::SeqCst);
    }

    /// A document was opened (applied in arrival order, with the text change).
    pub(super) fn opened(&self, uri: Uri, client_root: std::path::PathBuf, path: FilePath) {
        self.open.lock().insert(uri, (client_root, path));
    }

    /// Whether the editor has the document open (a source document, not a rules file).
    pub(super) fn is_open(&self, uri: &Uri) -> bool {
        self.open.lock().contains_key(uri)
    }

    /// Forgets every open document; their folders and paths.
    pub(super) fn take_open(&self) -> Vec<(std::path::PathBuf, FilePath)> {
        self.rules_open.lock().clear();
        std::mem::take(&mut *self.open.lock())
            .into_values()
            .collect()
    }

    pub(super) fn closed(&self, uri: &Uri) {
        self.open.lock().remove(uri);
        self.rules_open.lock().remove(uri);
    }

    /// A rules file was opened (applied in arrival order).
    pub(super) fn rules_opened(&self, uri: Uri, client_root: std::path::PathBuf, text: String) {
        self.rules_open.lock().insert(uri, (client_root, text));
    }

    pub(super) fn is_rules_document(&self, uri: &Uri) -> bool {
        self.rules_open.lock().contains_key(uri)
    }

    /// An edit of an open rules file (applied in arrival order).
    pub(super) fn rules_changed(&self, uri: &Uri, edits: &[CoreTextEdit]) {
        if let Some((_, text)) = self.rules_open.lock().get_mut(uri) {
            apply_edits(text, edits);
        }
    }

    /// The editor's text of an open rules file.
    pub(super) fn rules_document(&self, uri: &Uri) -> Option<(std::path::PathBuf, String)> {
        self.rules_open.lock().get(uri).cloned()
    }

    /// Remembers what a pull answered, so that a later change can tell whether the document's
    /// diagnostics moved. (A publishing client that also pulls keeps getting publications.)
    pub(super) async fn pulled(&self, uri: Uri, diagnostics: Vec<Diagnostic>) {
        let open = self.open.lock().contains_key(&uri) || self.is_rules_document(&uri);
        if self.pull.load(Ordering::SeqCst) && open {
            self.sent.lock().await.insert(uri, diagnostics);
        }
    }

    /// After a change: computes the open documents' diagnostics again and publishes those that
    /// changed (publishing clients), or asks a pull client to pull again when a document other
    /// than `edited` changed. A closed document's diagnostics are cleared.
    pub(super) async fn refresh(
        &self,
        client: &Client,
        roots: Vec<Arc<Root>>,
        encoding: ColumnEncoding,
        edited: Option<&Uri>,
    ) {
        let documents = self.open_documents();
        let pull = self.pull.load(Ordering::SeqCst);
        if pull && !self.refresh.load(Ordering::SeqCst) {
            return;
        }
        let mut sent = self.sent.lock().await;
        // The checker's update may evaluate many files (the first time after an index run):
        // off the async threads.
        let computed =
            tokio::task::spawn_blocking(move || compute(&roots, documents, encoding, pull))
                .await
                .unwrap_or_default();
        let (changed, shown_rules_files) = self.changes(computed, &sent, pull);
        self.clear_closed(client, &mut sent, &shown_rules_files, pull)
            .await;
        if pull {
            let others = changed.iter().any(|(uri, _)| Some(uri) != edited);
            for (uri, diagnostics) in changed {
                sent.insert(uri, diagnostics);
            }
            if others && let Err(error) = client.workspace_diagnostic_refresh().await {
                tracing::warn!("workspace/diagnostic/refresh failed: {error}");
            }
            return;
        }
        for (uri, diagnostics) in changed {
            sent.insert(uri.clone(), diagnostics.clone());
            client.publish_diagnostics(uri, diagnostics, None).await;
        }
    }

    /// The open documents and rules files, copied out of their locks.
    fn open_documents(&self) -> OpenDocuments {
        OpenDocuments {
            sources: self
                .open
                .lock()
                .iter()
                .map(|(uri, (root, path))| (uri.clone(), root.clone(), *path))
                .collect(),
            rules_files: self
                .rules_open
                .lock()
                .iter()
                .map(|(uri, (root, text))| (uri.clone(), root.clone(), text.clone()))
                .collect(),
        }
    }

    /// The computed diagnostics that differ from those sent (for a pull client, only of what it
    /// pulled), and the rules files among them that no editor has open.
    fn changes(
        &self,
        computed: Vec<(Uri, Vec<Diagnostic>)>,
        sent: &HashMap<Uri, Vec<Diagnostic>>,
        pull: bool,
    ) -> (Vec<(Uri, Vec<Diagnostic>)>, HashSet<Uri>) {
        let mut shown_rules_files = HashSet::new();
        let mut changed = Vec::new();
        for (uri, diagnostics) in computed {
            // A pull client is asked again only about what it pulled.
            if pull && !sent.contains_key(&uri) {
                continue;
            }
            if !self.open.lock().contains_key(&uri) {
                shown_rules_files.insert(uri.clone());
            }
            if sent.get(&uri) != Some(&diagnostics) {
                changed.push((uri, diagnostics));
            }
        }
        (changed, shown_rules_files)
    }

    /// Documents closed since: clears what was published for them.
    async fn clear_closed(
        &self,
        client: &Client,
        sent: &mut HashMap<Uri, Vec<Diagnostic>>,
        shown_rules_files: &HashSet<Uri>,
        pull: bool,
    ) {
        let still_open = self.open.lock().clone();
        let rules_still_open = self.rules_open.lock().clone();
        let closed: Vec<Uri> = sent
            .keys()
            .filter(|uri| {
                !still_open.contains_key(*uri)
                    && !rules_still_open.contains_key(*uri)
                    && !shown_rules_files.contains(*uri)
            })
            .cloned()
            .collect();
        for uri in closed {
            sent.remove(&uri);
            if !pull {
                client.publish_diagnostics(uri, Vec::new(), None).await;
            }
        }
    }
}

/// The open documents of [`Diagnostics::refresh`]: (uri, workspace folder, path) of each source
/// document, (uri, workspace folder, the editor's text) of each rules file.
struct OpenDocuments {
    sources: Vec<(Uri, std::path::PathBuf, FilePath)>,
    rules_files: Vec<(Uri, std::path::PathBuf, String)>,
}

/// The diagnostics of every open document and of each folder's rules file (the editor's text
/// when it is open; a publishing client also gets an unopened one's).
fn compute(
    roots: &[Arc<Root>],
    documents: OpenDocuments,
    encoding: ColumnEncoding,
    pull: bool,
) -> Vec<(Uri, Vec<Diagnostic>)> {
    let mut computed: Vec<(Uri, Vec<Diagnostic>)> = documents
        .sources
        .into_iter()
        .filter_map(|(uri, client_root, path)| {
            let root = roots.iter().find(|root| root.client_root == client_root)?;
            let graph = root.world.snapshot();
            let diagnostics = file_diagnostics(root, &graph, &path, encoding)?;
            Some((uri, diagnostics))
        })
        .collect();
    for root in roots {
        let graph = root.world.snapshot();
        let open_copy = documents
            .rules_files
            .iter()
            .find(|(_, client_root, _)| *client_root == root.client_root);
        if let Some((uri, _, text)) = open_copy {
            let diagnostics = rules_file_diagnostics(root, &graph, text, encoding);
            computed.push((uri.clone(), diagnostics));
        } else if !pull && let Some(found) = unopened_rules_file(root, &graph, encoding) {
            computed.push(found);
        }
    }
    computed
}

/// The diagnostics of one file of a workspace folder; `None` when the folder has no rules file.
pub(super) fn file_diagnostics(
    root: &Root,
    graph: &Graph,
    path: &str,
    encoding: ColumnEncoding,
) -> Option<Vec<Diagnostic>> {
    let violations = file_violations(root, graph, path)?;
    let text = graph.file(path)?.text().unwrap_or_default();
    Some(
        violations
            .iter()
            .map(|violation| diagnostic(&text, violation, encoding))
            .collect(),
    )
}

/// The problems of a rules file's text `text` (the editor's copy) as diagnostics on it.
pub(super) fn rules_file_diagnostics(
    root: &Root,
    graph: &Graph,
    text: &str,
    encoding: ColumnEncoding,
) -> Vec<Diagnostic> {
    let world = &root.world;
    world
        .analysis()
        .rules()
        .problems_of(world.root(), graph, text)
        .iter()
        .map(|problem| problem_diagnostic(text, problem, encoding))
        .collect()
}

/// The problems of a folder's rules file as read from disk, for a client that has not opened
/// it: its URI and diagnostics; `None` without a rules file.
fn unopened_rules_file(
    root: &Root,
    graph: &Graph,
    encoding: ColumnEncoding,
) -> Option<(Uri, Vec<Diagnostic>)> {
    let world = &root.world;
    let path = world.analysis().rules().path(world.root());
    let text = std::fs::read_to_string(&path).ok()?;
    // The client's spelling of the folder, so that the URI is the one its editor would open.
    let shown = match path.strip_prefix(world.root()) {
        Ok(rest) => root.client_root.join(rest),
        Err(_) => path.clone(),
    };
    let uri = super::proto::uri_of(&shown)?;
    Some((uri, rules_file_diagnostics(root, graph, &text, encoding)))
}

/// One problem of the rules file: at the key, value or pattern as written.
fn problem_diagnostic(text: &str, problem: &RuleProblem, encoding: ColumnEncoding) -> Diagnostic {
    let position = |line: u32, column: u32| CorePosition {
        line: line.saturating_sub(1),
        column: column.saturating_sub(1),
    };
    let start = position(problem.line, problem.column);
    let mut end = position(problem.end_line, problem.end_column);
    if (end.line, end.column) < (start.line, start.column) {
        end = start;
    }
    let span = LineSpan {
        start_byte: 0,
        end_byte: 0,
        start,
        end,
    };
    Diagnostic {
        range: FileText::new(text, encoding).range(span),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(RULES_FILE_CODE.to_string())),
        source: Some(SOURCE.to_string()),
        message: problem.message.clone(),
        ..Diagnostic::default()
    }
}

/// Applies an editor's edits to a plain text (an open rules file: no syntax tree to keep).
fn apply_edits(text: &mut String, edits: &[CoreTextEdit]) {
    for edit in edits {
        match edit.range {
            None => *text = edit.text.clone(),
            Some((start, end)) => {
                let lines = LineTable::new(text);
                let start = byte_offset(text, &lines, start, edit.encoding);
                let end = byte_offset(text, &lines, end, edit.encoding).max(start);
                text.replace_range(start..end, &edit.text);
            }
        }
    }
}

fn file_violations(root: &Root, graph: &Graph, path: &str) -> Option<Vec<Violation>> {
    let world = &root.world;
    world
        .analysis()
        .rules()
        .with(world.root(), graph, |status| match status {
            Status::NoRules { .. } => None,
            Status::Ready { checker, .. } => Some(checker.file_violations(path)),
        })
}

fn diagnostic(text: &str, violation: &Violation, encoding: ColumnEncoding) -> Diagnostic {
    let severity = match violation.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    };
    Diagnostic {
        range: span_range(text, violation.span, encoding),
        severity: Some(severity),
        code: Some(NumberOrString::String(violation.rule.to_string())),
        source: Some(SOURCE.to_string()),
        message: violation.message.clone(),
        data: Some(json!({
            "kind": violation.kind.as_str(),
            "target": violation.target,
        })),
        ..Diagnostic::default()
    }
}

/// The quick fixes for the violations of `path` under `range`: "Remove the import", once per
/// import however many rules it breaks.
pub(super) fn quick_fixes(
    root: &Root,
    graph: &Graph,
    uri: &Uri,
    path: &str,
    range: Range,
    encoding: ColumnEncoding,
) -> Vec<CodeActionOrCommand> {
    let Some(violations) = file_violations(root, graph, path) else {
        return Vec::new();
    };
    let Some(file) = graph.file(path) else {
        return Vec::new();
    };
    let text = file.text().unwrap_or_default();
    let overlaps = |other: Range| other.start <= range.end && range.start <= other.end;
    let mut actions: Vec<(LineSpan, CodeAction)> = Vec::new();
    for violation in &violations {
        let Some(fix) = &violation.fix else {
            continue;
        };
        let found = diagnostic(&text, violation, encoding);
        if !overlaps(found.range) {
            continue;
        }
        if let Some((_, action)) = actions.iter_mut().find(|(span, _)| *span == fix.delete) {
            action.diagnostics.get_or_insert_with(Vec::new).push(found);
            continue;
        }
        let edit = TextEdit {
            range: span_range(&text, fix.delete, encoding),
            new_text: String::new(),
        };
        let action = CodeAction {
            title: format!("{} ({})", fix.title, violation.reference),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![found]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(true),
            ..CodeAction::default()
        };
        actions.push((fix.delete, action));
    }
    actions
        .into_iter()
        .map(|(_, action)| CodeActionOrCommand::CodeAction(action))
        .collect()
}
