//! `initialize`: what the client offers (position encodings, progress, file watching, the
//! workspace folders) and what the server announces.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use tower_lsp_server::ls_types::*;

use codegraph_world::buffer::ColumnEncoding;

use crate::state::State;
use crate::{REINDEX_COMMAND, diagnostics, proto, semantic_tokens, workspace};

impl State {
    /// Reads the client's capabilities: UTF-8 columns when offered (else UTF-16), pull or
    /// published diagnostics, progress reports, dynamic registration of the file watcher.
    pub(crate) fn configure(&self, capabilities: &ClientCapabilities) -> ColumnEncoding {
        let offers_utf8 = capabilities
            .general
            .as_ref()
            .and_then(|general| general.position_encodings.as_ref())
            .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
        let encoding = if offers_utf8 {
            ColumnEncoding::Utf8
        } else {
            ColumnEncoding::Utf16
        };
        *self.encoding.write() = encoding;
        self.diagnostics.configure(capabilities);
        let work_done_progress = capabilities
            .window
            .as_ref()
            .and_then(|window| window.work_done_progress)
            .unwrap_or(false);
        self.work_done_progress
            .store(work_done_progress, Ordering::SeqCst);
        let watch_registration = capabilities
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.did_change_watched_files.as_ref())
            .and_then(|watched| watched.dynamic_registration)
            .unwrap_or(false);
        self.watch_registration
            .store(watch_registration, Ordering::SeqCst);
        encoding
    }
}

/// The workspace folders the client names: its `workspaceFolders`, else its `rootUri`.
pub(crate) fn workspace_folders(params: &InitializeParams) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(workspace::folder_path)
        .collect();
    #[allow(deprecated)]
    if folders.is_empty()
        && let Some(path) = params.root_uri.as_ref().and_then(proto::path_of)
    {
        folders.push(path);
    }
    folders
}

/// What `initialize` answers: the server, and its capabilities for the negotiated encoding.
pub(crate) fn result(encoding: ColumnEncoding) -> InitializeResult {
    InitializeResult {
        server_info: Some(ServerInfo {
            name: "codegraph".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
        capabilities: capabilities(encoding),
        ..InitializeResult::default()
    }
}

fn capabilities(encoding: ColumnEncoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            ColumnEncoding::Utf8 => PositionEncodingKind::UTF8,
            ColumnEncoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                // A saved rules file changes every document's diagnostics.
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        implementation_provider: Some(ImplementationProviderCapability::Simple(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        call_hierarchy_provider: Some(CallHierarchyServerCapability::Simple(true)),
        semantic_tokens_provider: Some(semantic_tokens::capability()),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some(diagnostics::SOURCE.to_string()),
            // A cycle closed in one file shows in the others.
            inter_file_dependencies: true,
            workspace_diagnostics: false,
            ..DiagnosticOptions::default()
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![
                REINDEX_COMMAND.to_string(),
                crate::affected::AFFECTED_TESTS_COMMAND.to_string(),
            ],
            ..ExecuteCommandOptions::default()
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}
