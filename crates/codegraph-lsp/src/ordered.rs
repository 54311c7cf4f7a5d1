//! Text synchronisation in arrival order: [`Ordered`] wraps the service and applies `didOpen`,
//! `didChange` and `didClose` inside `Service::call`, which the transport invokes in the order
//! messages arrive, before the next message is even read (see the crate doc, "Ordering").

use std::sync::Arc;
use std::task::{Context, Poll};

use futures::FutureExt;
use futures::future::BoxFuture;
use tower_lsp_server::ExitedError;
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::ls_types::*;

use codegraph_world::buffer::{ColumnEncoding, TextEdit as CoreTextEdit};

use crate::state::State;
use crate::{Backend, proto};

impl State {
    // Text synchronisation, applied in arrival order by `Ordered`.

    pub(crate) fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        let Some(path) = proto::path_of(&document.uri) else {
            return;
        };
        if let Some(root) = self.rules_file_of(&path) {
            self.diagnostics
                .rules_opened(document.uri, root.client_root.clone(), document.text);
            return;
        }
        if let Some((root, relative)) = self.root_of(&path) {
            self.diagnostics
                .opened(document.uri, root.client_root.clone(), relative);
            root.world
                .open_buffer(&relative, document.version, document.text);
        }
    }

    pub(crate) fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(path) = proto::path_of(&params.text_document.uri) else {
            return;
        };
        let encoding = self.encoding();
        if self
            .diagnostics
            .is_rules_document(&params.text_document.uri)
        {
            let edits = core_edits(params.content_changes, encoding);
            self.diagnostics
                .rules_changed(&params.text_document.uri, &edits);
            return;
        }
        let Some((root, relative)) = self.root_of(&path) else {
            return;
        };
        let edits = core_edits(params.content_changes, encoding);
        root.world
            .edit_buffer(&relative, params.text_document.version, &edits);
    }

    pub(crate) fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.diagnostics.closed(&params.text_document.uri);
        self.semantic_tokens.forget(&params.text_document.uri);
        let Some(path) = proto::path_of(&params.text_document.uri) else {
            return;
        };
        if let Some((root, relative)) = self.root_of(&path) {
            root.world.close_buffer(&relative);
        }
    }
}

/// The client's content changes as the core's text edits.
fn core_edits(
    changes: Vec<TextDocumentContentChangeEvent>,
    encoding: ColumnEncoding,
) -> Vec<CoreTextEdit> {
    changes
        .into_iter()
        .map(|change| CoreTextEdit {
            range: change.range.map(|range| {
                (
                    proto::client_position(range.start),
                    proto::client_position(range.end),
                )
            }),
            text: change.text,
            encoding,
        })
        .collect()
}

/// Applies text synchronisation in the order messages arrive (see the module doc), then hands
/// every message to the `LspService`.
pub struct Ordered<S> {
    pub(crate) inner: S,
    pub(crate) state: Arc<State>,
}

impl<S> tower_service::Service<Request> for Ordered<S>
where
    S: tower_service::Service<
            Request,
            Response = Option<Response>,
            Error = ExitedError,
            Future = BoxFuture<'static, std::result::Result<Option<Response>, ExitedError>>,
        >,
{
    type Response = Option<Response>;
    type Error = ExitedError;
    type Future = BoxFuture<'static, std::result::Result<Option<Response>, ExitedError>>;

    fn poll_ready(
        &mut self,
        context: &mut Context<'_>,
    ) -> Poll<std::result::Result<(), ExitedError>> {
        self.inner.poll_ready(context)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        fn parse<T: serde::de::DeserializeOwned>(request: &Request) -> Option<T> {
            serde_json::from_value(request.params()?.clone())
                .inspect_err(|error| tracing::warn!("{}: bad params: {error}", request.method()))
                .ok()
        }
        // A panic while applying an edit is logged; the server keeps serving.
        let applied =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match request.method() {
                "textDocument/didOpen" => {
                    if let Some(params) = parse(&request) {
                        self.state.did_open(params);
                    }
                }
                "textDocument/didChange" => {
                    if let Some(params) = parse(&request) {
                        self.state.did_change(params);
                    }
                }
                "textDocument/didClose" => {
                    if let Some(params) = parse(&request) {
                        self.state.did_close(params);
                    }
                }
                // Noted as read, not when its answer runs: a client that sends `exit` right
                // after `shutdown`, without waiting for the answer, still asked for both (and
                // `exit` cancels the answer).
                "shutdown" if request.id().is_some() => self
                    .state
                    .shutdown_requested
                    .store(true, std::sync::atomic::Ordering::SeqCst),
                _ => {}
            }));
        if applied.is_err() {
            tracing::error!("{}: applying the change panicked", request.method());
        }
        // A panic in one request handler answers that request with an internal error instead
        // of taking the whole server down.
        let id = request.id().cloned();
        let method = request.method().to_string();
        let future = self.inner.call(request);
        Box::pin(async move {
            match std::panic::AssertUnwindSafe(future).catch_unwind().await {
                Ok(result) => result,
                Err(_) => {
                    tracing::error!(
                        "{method}: the handler panicked; answered with an internal error"
                    );
                    Ok(id.map(|id| {
                        Response::from_error(id, tower_lsp_server::jsonrpc::Error::internal_error())
                    }))
                }
            }
        })
    }
}

impl Backend {
    /// A document over the size cap was left out when `Ordered` applied its `didOpen`: the user
    /// hears why (as `window/showMessage`, since nothing else would show it).
    pub(crate) async fn tell_if_over_the_cap(&self, document: &TextDocumentItem) {
        let Some(path) = proto::path_of(&document.uri) else {
            return;
        };
        if let Some((root, relative)) = self.state.root_of(&path) {
            let cap = root.world.config().max_file_size;
            if document.text.len() as u64 > cap {
                self.client
                    .show_message(
                        MessageType::WARNING,
                        format!(
                            "codegraph: {relative} is {} bytes, over the {cap}-byte cap: its \
                             unsaved edits are not indexed (the graph keeps the file as on disk).",
                            document.text.len()
                        ),
                    )
                    .await;
            }
        }
    }
}
