//! Indexing a workspace folder with progress reported to the client, and the
//! `codegraph.reindex` command that does it again for every folder.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::state::Root;
use crate::{Backend, REINDEX_COMMAND, refresh_diagnostics};

impl Backend {
    /// Indexes one workspace folder on a blocking thread, reporting progress to the client; the
    /// task ends with a one-line summary.
    pub(crate) fn spawn_index(&self, root: Arc<Root>) -> tokio::task::JoinHandle<String> {
        let client = self.client.clone();
        let state = self.state.clone();
        state.indexing.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(async move {
            let title = format!("Indexing {}", root.client_root.display());
            let mut progress = None;
            if state.work_done_progress.load(Ordering::SeqCst) {
                let number = state.progress_tokens.fetch_add(1, Ordering::SeqCst);
                let token = NumberOrString::String(format!("codegraph/index/{number}"));
                if client
                    .create_work_done_progress(token.clone())
                    .await
                    .is_ok()
                {
                    progress = Some(
                        client
                            .progress(token, title)
                            .with_percentage(0)
                            .begin()
                            .await,
                    );
                }
            }
            let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<(usize, usize)>();
            let world = root.world.clone();
            let indexing = tokio::task::spawn_blocking(move || {
                world.index(false, &move |done, total| {
                    let _ = sender.send((done, total));
                })
            });
            while let Some((done, total)) = receiver.recv().await {
                if let Some(progress) = &progress {
                    let percentage = (done * 100).checked_div(total).unwrap_or(100) as u32;
                    progress
                        .report_with_message(format!("{done}/{total} files"), percentage)
                        .await;
                }
            }
            let message = summary(&client, &root, indexing.await).await;
            tracing::info!("{}: {message}", root.client_root.display());
            let world = root.world.clone();
            // Ready for the first edit (it waits on the writer lock while this runs).
            tokio::task::spawn_blocking(move || world.prepare_changes());
            state.indexing.fetch_sub(1, Ordering::SeqCst);
            refresh_diagnostics(&client, &state, None);
            if let Some(progress) = progress {
                progress.finish_with_message(message.clone()).await;
            }
            format!("{}: {message}", root.client_root.display())
        })
    }
}

/// The one-line summary of an index run; the files codegraph failed on are shown to the user.
async fn summary(
    client: &Client,
    root: &Root,
    outcome: std::result::Result<codegraph_world::IndexReport, tokio::task::JoinError>,
) -> String {
    match outcome {
        Ok(report) => {
            if !report.failed.is_empty() {
                client
                    .show_message(MessageType::WARNING, failed_message(&report.failed))
                    .await;
            }
            format!(
                "{} files, {} entities, {} relations in {:.0} ms",
                report.files, report.entities, report.relations, report.duration_ms
            )
        }
        Err(error) => {
            tracing::error!("indexing {} failed: {error}", root.client_root.display());
            "indexing failed".to_string()
        }
    }
}

/// What the editor is told, once, of the files codegraph failed on (`contain`).
fn failed_message(failed: &[codegraph_world::FailedFile]) -> String {
    let names: Vec<&str> = failed
        .iter()
        .take(3)
        .map(|file| file.path.as_str())
        .collect();
    let more = failed.len().saturating_sub(names.len());
    format!(
        "codegraph failed on {} file(s) (an internal error, contained to the file: everything \
         else is indexed): {}{}. The log has the error; please report it.",
        failed.len(),
        names.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

impl Backend {
    /// `codegraph.reindex`: re-read every folder from disk (changed files only), answering with
    /// one summary line per folder once all are done.
    pub(crate) async fn reindex(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command != REINDEX_COMMAND {
            return Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!(
                "unknown command '{}'",
                params.command
            )));
        }
        let roots: Vec<Arc<Root>> = self.state.roots.read().clone();
        let tasks: Vec<_> = roots
            .into_iter()
            .map(|root| self.spawn_index(root))
            .collect();
        let mut summaries = Vec::new();
        for task in tasks {
            summaries.push(
                task.await
                    .unwrap_or_else(|error| format!("indexing failed: {error}")),
            );
        }
        Ok(Some(serde_json::json!(summaries)))
    }
}
