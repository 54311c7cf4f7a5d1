//! The editor door: `codegraph lsp` speaks the Language Server Protocol on stdio.
//!
//! Every handler is a thin adapter over `graph::query`, run on a snapshot; conversions between
//! core and protocol types live in `lsp/proto.rs` only.
//!
//! Requests: every handler that queries the graph or the analysis runs the query through the
//! runner the MCP door uses (`world::work`, by `Backend::query`): on a blocking thread, within a
//! deadline (answered `-32803` when it passes), a heavy one (a workspace symbol search) in its
//! turn of the pool the folders' MCP sessions share, so cheap requests are answered while heavy
//! ones run. A `$/cancelRequest` reaches its request at once (`lsp/framing.rs`), tower-lsp-server
//! answers it `-32800` and drops the handler's future, and the work stops at its next
//! checkpoint.
//!
//! Ordering: tower-lsp runs handlers concurrently, so a `didChange` handler could run after a
//! request that the client sent later. [`Ordered`] wraps the service and applies text
//! synchronisation (`didOpen`, `didChange`, `didClose`) inside `Service::call`, which the
//! transport invokes in the order messages arrive, before the next message is even read. Every
//! later request therefore takes its snapshot after the change. The World's writer lock
//! serialises the changes themselves, and `World::edit_buffer` refuses older versions.
//!
//! Editors start it as `codegraph lsp --stdio` (add `--no-cache` to keep `.codegraph/` out of
//! the folders). Neovim 0.11:
//! `vim.lsp.config('codegraph', { cmd = { 'codegraph', 'lsp', '--stdio' }, filetypes = { 'python',
//! 'typescript', 'rust', 'go' }, root_markers = { '.git' } }); vim.lsp.enable('codegraph')`.
//! Helix `languages.toml`: `[language-server.codegraph] command = "codegraph"`,
//! `args = ["lsp", "--stdio"]`, then add `codegraph` to a language's `language-servers`.
//! Each workspace folder's world is also served over MCP on a private unix socket
//! (`mcp::attach`), so `codegraph mcp` launched by an AI client attaches to this process and sees
//! the editor's unsaved edits; `--no-mcp-socket` turns that off, and `--allow-shell PROG,...`
//! enables `execute_shell_command` for those sessions (off by default).
//! Custom requests: `codegraph/status` (index runs in flight, heavy requests running and waiting
//! for a turn, files and entities per folder) and
//! `codegraph/bufferText` (`{uri}` → the server's text of an open document). The command
//! `codegraph.reindex` (`workspace/executeCommand`) re-reads every folder from disk and answers
//! once done, with one line per folder; `codegraph.affectedTests` answers what the changes since
//! a git revision (default HEAD; unsaved buffers included) affect and the tests to run
//! (`lsp/affected.rs`).
//! The architecture rules (`.codegraph/rules.toml`) show as diagnostics, pulled or published,
//! with a quick fix that removes a forbidden import (`lsp/diagnostics.rs`). Semantic tokens
//! (full, range, full/delta) colour a document by each language's highlight queries
//! (`lsp/semantic_tokens.rs` over `lang::highlight`).
//!
//! # Modules
//!
//! This file builds the service and holds the one registration table, `impl LanguageServer`,
//! whose handlers are thin: each runs a plain function of a feature module through
//! `Backend::query`.
//! - `state`: the workspace folders, the negotiated encoding, URI to folder, file and text.
//! - `ordered`: text synchronisation applied in arrival order ([`Ordered`]).
//! - `requests`: how a request's work runs (`world::work`) and the errors of stopped work.
//! - `initialize`: the client's capabilities read, the server's announced.
//! - `indexing`, `workspace`: index runs with progress and `codegraph.reindex`; folders and
//!   watched files changing at run time.
//! - `navigation`, `call_hierarchy`, `semantic_tokens`, `diagnostics`: the features.
//! - `custom`: `codegraph/bufferText` and `codegraph/status`; `affected`: the command
//!   `codegraph.affectedTests`.
//! - `proto`: every conversion between core and LSP types; `framing`: the transport.

mod affected;
mod call_hierarchy;
mod custom;
mod diagnostics;
pub mod framing;
mod indexing;
mod initialize;
mod navigation;
mod ordered;
mod proto;
mod requests;
mod semantic_tokens;
pub mod shared;
mod state;
mod workspace;

pub use custom::{BufferTextParams, Status, StatusRoot};
pub use ordered::Ordered;
pub use state::State;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use codegraph_world::WorldConfig;
use codegraph_world::work::Weight;
use state::{Located, Root};

/// The `workspace/executeCommand` that re-reads every workspace folder from disk.
pub const REINDEX_COMMAND: &str = "codegraph.reindex";

pub struct Backend {
    client: Client,
    state: Arc<State>,
}

/// Brings the open documents' diagnostics up to date after a change, aside (see
/// `lsp/diagnostics.rs`).
fn refresh_diagnostics(client: &Client, state: &Arc<State>, edited: Option<Uri>) {
    let client = client.clone();
    let state = state.clone();
    tokio::spawn(async move {
        let roots = state.roots.read().clone();
        state
            .diagnostics
            .refresh(&client, roots, state.encoding(), edited.as_ref())
            .await;
    });
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = self.state.configure(&params.capabilities);
        for folder in initialize::workspace_folders(&params) {
            self.state.add_root(folder);
        }
        Ok(initialize::result(encoding))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command == affected::AFFECTED_TESTS_COMMAND {
            return self.affected_tests(params).await;
        }
        self.reindex(params).await
    }

    async fn initialized(&self, _: InitializedParams) {
        let roots: Vec<Arc<Root>> = self.state.roots.read().clone();
        for root in roots {
            drop(self.spawn_index(root));
        }
        if self.state.watch_registration.load(Ordering::SeqCst) {
            // Awaiting the client's answer here would hold a handler slot; do it aside.
            let backend = Backend {
                client: self.client.clone(),
                state: self.state.clone(),
            };
            tokio::spawn(async move { backend.register_file_watcher().await });
        }
    }

    // `Ordered` notes the request as it is read.
    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    // Applied by `Ordered` before the message reaches these handlers.
    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        refresh_diagnostics(&self.client, &self.state, Some(document.uri.clone()));
        self.tell_if_over_the_cap(&document).await;
    }
    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        refresh_diagnostics(&self.client, &self.state, Some(params.text_document.uri));
    }
    async fn did_close(&self, _: DidCloseTextDocumentParams) {
        refresh_diagnostics(&self.client, &self.state, None);
    }

    /// The architecture rules' violations of a document, for the text the client last sent.
    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let uri = params.text_document.uri;
        let items = self
            .query(Weight::Cheap, {
                let uri = uri.clone();
                move |state| {
                    let encoding = state.encoding();
                    if let Some((root, text)) = state.rules_file_text(&uri) {
                        let graph = root.world.snapshot();
                        return diagnostics::rules_file_diagnostics(&root, &graph, &text, encoding);
                    }
                    let Some(Located { root, graph, path }) = state.locate(&uri) else {
                        return Vec::new();
                    };
                    diagnostics::file_diagnostics(&root, &graph, &path, encoding)
                        .unwrap_or_default()
                }
            })
            .await?;
        self.state.diagnostics.pulled(uri, items.clone()).await;
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: None,
                    items,
                },
            }),
        ))
    }

    /// The rules file itself was saved: the rules are read again, every open document's
    /// diagnostics follow.
    async fn did_save(&self, _: DidSaveTextDocumentParams) {
        refresh_diagnostics(&self.client, &self.state, None);
    }

    /// Quick fixes for the rules' violations under the range: remove the import.
    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        if let Some(only) = &params.context.only
            && !only
                .iter()
                .any(|kind| CodeActionKind::QUICKFIX.as_str().starts_with(kind.as_str()))
        {
            return Ok(None);
        }
        self.query(Weight::Cheap, move |state| {
            let located = state.locate(&params.text_document.uri)?;
            let actions = diagnostics::quick_fixes(
                &located.root,
                &located.graph,
                &params.text_document.uri,
                &located.path,
                params.range,
                state.encoding(),
            );
            (!actions.is_empty()).then_some(actions)
        })
        .await
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        self.change_folders(params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.refresh_watched_files(params).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.query(Weight::Cheap, move |state| {
            navigation::definition(state, params)
        })
        .await
    }

    async fn goto_implementation(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.query(Weight::Cheap, move |state| {
            navigation::implementation(state, params)
        })
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.query(Weight::Cheap, move |state| {
            navigation::references(state, params)
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        self.query(Weight::Cheap, move |state| navigation::hover(state, params))
            .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.query(Weight::Cheap, move |state| {
            navigation::document_symbols(state, params)
        })
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.query(Weight::Heavy, move |state| {
            navigation::workspace_symbols(state, params)
        })
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.query(Weight::Cheap, move |state| {
            navigation::code_lenses(state, params)
        })
        .await
    }

    /// The document's syntax highlighted (`lsp/semantic_tokens.rs`).
    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        self.query(Weight::Cheap, move |state| {
            let tokens = state.semantic_tokens_full(&params.text_document.uri)?;
            Some(SemanticTokensResult::Tokens(tokens))
        })
        .await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        self.query(Weight::Cheap, move |state| {
            let uri = &params.text_document.uri;
            Some(
                match state.semantic_tokens_delta(uri, &params.previous_result_id)? {
                    semantic_tokens::DeltaAnswer::Edits(delta) => {
                        SemanticTokensFullDeltaResult::TokensDelta(delta)
                    }
                    semantic_tokens::DeltaAnswer::Whole(tokens) => {
                        SemanticTokensFullDeltaResult::Tokens(tokens)
                    }
                },
            )
        })
        .await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        self.query(Weight::Cheap, move |state| {
            let tokens = state.semantic_tokens_range(&params.text_document.uri, params.range)?;
            Some(SemanticTokensRangeResult::Tokens(tokens))
        })
        .await
    }

    async fn prepare_call_hierarchy(
        &self,
        params: CallHierarchyPrepareParams,
    ) -> Result<Option<Vec<CallHierarchyItem>>> {
        self.query(Weight::Cheap, move |state| {
            call_hierarchy::prepare(state, params)
        })
        .await
    }

    async fn incoming_calls(
        &self,
        params: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        self.query(Weight::Cheap, move |state| {
            call_hierarchy::incoming(state, params)
        })
        .await
    }

    async fn outgoing_calls(
        &self,
        params: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        self.query(Weight::Cheap, move |state| {
            call_hierarchy::outgoing(state, params)
        })
        .await
    }
}

/// Builds the service: the `LspService` with codegraph's custom methods, wrapped in [`Ordered`].
pub fn service(
    config: WorldConfig,
    serve_mcp: bool,
    shell: Option<codegraph_mcp::shell::ShellPolicy>,
) -> (Ordered<LspService<Backend>>, tower_lsp_server::ClientSocket) {
    service_with(config, serve_mcp, shell, None)
}

/// [`service`], for a session of the shared server when `shared` is its world.
fn service_with(
    config: WorldConfig,
    serve_mcp: bool,
    shell: Option<codegraph_mcp::shell::ShellPolicy>,
    shared: Option<Arc<codegraph_world::World>>,
) -> (Ordered<LspService<Backend>>, tower_lsp_server::ClientSocket) {
    let mut state = State::new(config, serve_mcp, shell);
    state.shared = shared;
    let state = Arc::new(state);
    let backend_state = state.clone();
    let (service, socket) = LspService::build(move |client| Backend {
        client,
        state: backend_state.clone(),
    })
    .custom_method("codegraph/bufferText", Backend::buffer_text)
    .custom_method("codegraph/status", Backend::status)
    .finish();
    (
        Ordered {
            inner: service,
            state,
        },
        socket,
    )
}

/// Serves LSP on stdin/stdout until the client says `exit`; with `serve_mcp`, also MCP on a
/// unix socket per workspace folder (see `mcp::attach`), with `execute_shell_command` enabled
/// there for the programs of `shell`. Returns the exit status: 0 after `shutdown` then `exit`,
/// 1 when the client exits (or closes the stream) without `shutdown`, as the protocol says.
pub fn run_stdio(
    config: WorldConfig,
    serve_mcp: bool,
    shell: Option<codegraph_mcp::shell::ShellPolicy>,
) -> anyhow::Result<i32> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(codegraph_model::walk::STACK_SIZE)
        .build()?;
    serve_in_process(runtime, config, serve_mcp, shell, tokio::io::stdin())
}

/// Serves LSP on `input` and stdout from this process (see [`run_stdio`]).
fn serve_in_process(
    runtime: tokio::runtime::Runtime,
    config: WorldConfig,
    serve_mcp: bool,
    shell: Option<codegraph_mcp::shell::ShellPolicy>,
    input: impl tokio::io::AsyncRead + Unpin,
) -> anyhow::Result<i32> {
    let shut_down = runtime.block_on(async {
        let (service, socket) = service(config, serve_mcp, shell);
        let state = service.state.clone();
        // Malformed input is answered, and the session goes on (see `lsp/framing.rs`).
        framing::serve(input, tokio::io::stdout(), service, socket).await;
        state.close_attachments();
        state
            .shutdown_requested
            .load(std::sync::atomic::Ordering::SeqCst)
    });
    // Index threads may still run; do not wait for them.
    runtime.shutdown_background();
    Ok(if shut_down { 0 } else { 1 })
}
