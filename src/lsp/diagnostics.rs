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

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::Root;
use super::proto::span_range;
use crate::analysis::rules::{Severity, Status, Violation};
use crate::graph::{FilePath, Graph};
use crate::world::buffer::ColumnEncoding;

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

    pub(super) fn closed(&self, uri: &Uri) {
        self.open.lock().remove(uri);
    }

    /// Remembers what a pull answered, so that a later change can tell whether the document's
    /// diagnostics moved. (A publishing client that also pulls keeps getting publications.)
    pub(super) async fn pulled(&self, uri: Uri, diagnostics: Vec<Diagnostic>) {
        if self.pull.load(Ordering::SeqCst) && self.open.lock().contains_key(&uri) {
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
        let open: Vec<(Uri, std::path::PathBuf, FilePath)> = self
            .open
            .lock()
            .iter()
            .map(|(uri, (root, path))| (uri.clone(), root.clone(), path.clone()))
            .collect();
        let pull = self.pull.load(Ordering::SeqCst);
        if pull && !self.refresh.load(Ordering::SeqCst) {
            return;
        }
        let mut sent = self.sent.lock().await;
        // The checker's update may evaluate many files (the first time after an index run):
        // off the async threads.
        let computed = tokio::task::spawn_blocking(move || {
            open.into_iter()
                .filter_map(|(uri, client_root, path)| {
                    let root = roots.iter().find(|root| root.client_root == client_root)?;
                    let graph = root.world.snapshot();
                    let diagnostics = file_diagnostics(root, &graph, &path, encoding)?;
                    Some((uri, diagnostics))
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let mut changed = Vec::new();
        for (uri, diagnostics) in computed {
            // A pull client is asked again only about what it pulled.
            if pull && !sent.contains_key(&uri) {
                continue;
            }
            if sent.get(&uri) != Some(&diagnostics) {
                changed.push((uri, diagnostics));
            }
        }
        // Documents closed since: clear what was published for them.
        let still_open = self.open.lock().clone();
        let closed: Vec<Uri> = sent
            .keys()
            .filter(|uri| !still_open.contains_key(*uri))
            .cloned()
            .collect();
        for uri in closed {
            sent.remove(&uri);
            if !pull {
                client.publish_diagnostics(uri, Vec::new(), None).await;
            }
        }
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
    let mut actions: Vec<(crate::model::Span, CodeAction)> = Vec::new();
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
