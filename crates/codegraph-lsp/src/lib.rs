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
//! once done, with one line per folder.
//! The architecture rules (`.codegraph/rules.toml`) show as diagnostics, pulled or published,
//! with a quick fix that removes a forbidden import (`lsp/diagnostics.rs`).

mod diagnostics;
pub mod framing;
mod proto;
mod semantic_tokens;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures::FutureExt;
use futures::future::BoxFuture;
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::{Request, Response, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, ExitedError, LanguageServer, LspService};

use codegraph_graph::query;
use codegraph_graph::{Entity, FilePath, Graph};
use codegraph_world::buffer::{ColumnEncoding, TextEdit as CoreTextEdit};
use codegraph_world::work::{self, Weight};
use codegraph_world::{World, WorldConfig};
use proto::{Converter, FileText};

/// The `workspace/executeCommand` that re-reads every workspace folder from disk.
pub const REINDEX_COMMAND: &str = "codegraph.reindex";

/// How many workspace symbols to return.
const SYMBOL_LIMIT: usize = 100;

/// One workspace folder: the folder as the client named it and its World.
struct Root {
    client_root: PathBuf,
    world: Arc<World>,
    /// The MCP socket serving this folder's world to `codegraph mcp` (see `mcp::attach`).
    attachment: Option<codegraph_mcp::attach::Attachment>,
}

/// What every handler shares.
pub struct State {
    config: WorldConfig,
    /// Serve every folder's world over MCP on a unix socket too.
    serve_mcp: bool,
    /// `execute_shell_command` on those sockets (`--allow-shell`); off when `None`.
    shell: Option<codegraph_mcp::shell::ShellPolicy>,
    roots: RwLock<Vec<Arc<Root>>>,
    encoding: RwLock<ColumnEncoding>,
    /// Index runs in flight.
    indexing: AtomicUsize,
    work_done_progress: std::sync::atomic::AtomicBool,
    watch_registration: std::sync::atomic::AtomicBool,
    progress_tokens: AtomicUsize,
    /// The client sent `shutdown`; the exit status after `exit` is 0 only then.
    shutdown_requested: std::sync::atomic::AtomicBool,
    /// Architecture-rule diagnostics: open documents, what was sent (see `lsp/diagnostics.rs`).
    diagnostics: diagnostics::Diagnostics,
    /// The last semantic tokens sent per document, for `full/delta` (`lsp/semantic_tokens.rs`).
    semantic_tokens: semantic_tokens::SentTokens,
    /// Where requests' queries run (`world::work`), shared with the folders' MCP sessions.
    pool: Arc<work::Pool>,
}

/// A file of a workspace folder, in a snapshot.
struct Located {
    root: Arc<Root>,
    graph: Arc<Graph>,
    path: FilePath,
}

impl State {
    pub fn new(
        config: WorldConfig,
        serve_mcp: bool,
        shell: Option<codegraph_mcp::shell::ShellPolicy>,
    ) -> State {
        State {
            config,
            serve_mcp,
            shell,
            roots: RwLock::new(Vec::new()),
            encoding: RwLock::new(ColumnEncoding::Utf16),
            indexing: AtomicUsize::new(0),
            work_done_progress: Default::default(),
            watch_registration: Default::default(),
            shutdown_requested: Default::default(),
            progress_tokens: AtomicUsize::new(0),
            diagnostics: Default::default(),
            semantic_tokens: Default::default(),
            pool: Arc::new(work::Pool::new(work::Limits::default())),
        }
    }

    fn encoding(&self) -> ColumnEncoding {
        *self.encoding.read()
    }

    /// The workspace folder holding `path` (the innermost one) and the file's relative path;
    /// `None` when no folder holds it, or when it is refused by the containment rule (logged).
    fn root_of(&self, path: &Path) -> Option<(Arc<Root>, FilePath)> {
        match self.admitted(path) {
            Ok(found) => found,
            Err(reason) => {
                tracing::warn!("refused: {reason}");
                None
            }
        }
    }

    /// The root and relative path of a manifest (`tsconfig.json`, `package.json`, ...) under a
    /// workspace folder; the world applies the containment rule when it reads it.
    fn manifest_of(&self, path: &Path) -> Option<(Arc<Root>, String)> {
        let roots = self.roots.read();
        roots.iter().find_map(|root| {
            let inside = match path.strip_prefix(&root.client_root) {
                Ok(rest) => root.world.root().join(rest),
                Err(_) => path.to_path_buf(),
            };
            let relative = codegraph_world::walk::relative_path(root.world.root(), &inside)?;
            codegraph_world::manifests::is_manifest(&relative).then(|| (root.clone(), relative))
        })
    }

    /// The workspace folder whose rules file (`.codegraph/rules.toml`, or the configured one) is
    /// `path`.
    fn rules_file_of(&self, path: &Path) -> Option<Arc<Root>> {
        let roots = self.roots.read();
        roots
            .iter()
            .find(|root| {
                let rules = root.world.analysis().rules().path(root.world.root());
                let inside = match path.strip_prefix(&root.client_root) {
                    Ok(rest) => root.world.root().join(rest),
                    Err(_) => path.to_path_buf(),
                };
                inside == rules
            })
            .cloned()
    }

    /// [`State::root_of`] with the refusal: `Err` when `path` names a place under a workspace
    /// folder that the containment rule refuses (`..`, or a symlink leading outside).
    fn admitted(&self, path: &Path) -> std::result::Result<Option<(Arc<Root>, FilePath)>, String> {
        let roots = self.roots.read();
        let find = |path: &Path| {
            let Some(root) = roots
                .iter()
                .filter(|root| {
                    path.starts_with(&root.client_root) || path.starts_with(root.world.root())
                })
                .max_by_key(|root| root.client_root.components().count())
            else {
                return Ok(None);
            };
            let inside = match path.strip_prefix(&root.client_root) {
                Ok(rest) => root.world.root().join(rest),
                Err(_) => path.to_path_buf(),
            };
            Ok(root
                .world
                .admit(&inside)?
                .map(|relative| (root.clone(), relative)))
        };
        match find(path)? {
            Some(found) => Ok(Some(found)),
            // A path through a symlink to a folder (the client's spelling of the root).
            None => match path.canonicalize() {
                Ok(canonical) if canonical != path => find(&canonical),
                _ => Ok(None),
            },
        }
    }

    fn locate(&self, uri: &Uri) -> Option<Located> {
        let (root, path) = self.root_of(&proto::path_of(uri)?)?;
        let graph = root.world.snapshot();
        graph.file(&path)?;
        Some(Located { root, graph, path })
    }

    /// The file and the byte offset of a position in it; `None` when either is unknown.
    fn locate_position(&self, uri: &Uri, position: Position) -> Option<(Located, u32)> {
        let located = self.locate(uri)?;
        let file = located.graph.file(&located.path)?;
        let text = file.text()?;
        let byte = FileText::new(&text, self.encoding()).byte_of(position)?;
        Some((located, byte))
    }

    fn root_by_client_path(&self, client_root: &str) -> Option<Arc<Root>> {
        self.roots
            .read()
            .iter()
            .find(|root| root.client_root == Path::new(client_root))
            .cloned()
    }

    fn add_root(&self, client_root: PathBuf) -> Option<Arc<Root>> {
        let world = match World::open(&client_root, self.config.clone()) {
            Ok(world) => world,
            Err(error) => {
                tracing::warn!("workspace folder {}: {error:#}", client_root.display());
                return None;
            }
        };
        if self
            .roots
            .read()
            .iter()
            .any(|existing| existing.client_root == client_root)
        {
            return None;
        }
        let world = Arc::new(world);
        let attachment = if self.serve_mcp {
            let mut server =
                codegraph_mcp::CodegraphMcp::new(world.clone()).with_pool(self.pool.clone());
            if let Some(policy) = &self.shell {
                server = server.with_shell(policy.clone());
            }
            codegraph_mcp::attach::serve_world(world.clone(), server)
                .inspect_err(|error| {
                    tracing::warn!("no MCP socket for {}: {error:#}", client_root.display())
                })
                .ok()
        } else {
            None
        };
        let root = Arc::new(Root {
            client_root,
            world,
            attachment,
        });
        let mut roots = self.roots.write();
        if roots
            .iter()
            .any(|existing| existing.client_root == root.client_root)
        {
            return None;
        }
        roots.push(root.clone());
        Some(root)
    }

    fn remove_root(&self, client_root: &Path) {
        self.roots.write().retain(|root| {
            let keep = root.client_root != client_root;
            if !keep && let Some(attachment) = &root.attachment {
                attachment.close();
            }
            keep
        });
    }

    /// Stops serving MCP for every folder (the process is about to exit).
    fn close_attachments(&self) {
        for root in self.roots.read().iter() {
            if let Some(attachment) = &root.attachment {
                attachment.close();
            }
        }
    }

    // Text synchronisation, applied in arrival order by `Ordered`.

    fn did_open(&self, params: DidOpenTextDocumentParams) {
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

    fn did_change(&self, params: DidChangeTextDocumentParams) {
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

    fn did_close(&self, params: DidCloseTextDocumentParams) {
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
    inner: S,
    state: Arc<State>,
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

pub struct Backend {
    client: Client,
    state: Arc<State>,
}

/// Parameters of `codegraph/bufferText`.
#[derive(Debug, Deserialize)]
pub struct BufferTextParams {
    pub uri: Uri,
}

#[derive(Debug, Serialize)]
pub struct StatusRoot {
    pub root: PathBuf,
    pub files: usize,
    pub entities: usize,
    pub revision: u64,
}

/// The answer of `codegraph/status`.
#[derive(Debug, Serialize)]
pub struct Status {
    pub indexing: usize,
    /// Heavy requests whose work holds a turn of the pool now (work still winding down after a
    /// cancellation included), and those waiting for one.
    pub heavy_running: usize,
    pub heavy_waiting: usize,
    pub roots: Vec<StatusRoot>,
}

impl Backend {
    /// `codegraph/bufferText`: the server's text of an open document (tests, diagnostics).
    async fn buffer_text(&self, params: BufferTextParams) -> Result<Option<String>> {
        let Some(path) = proto::path_of(&params.uri) else {
            return Ok(None);
        };
        let found = self
            .state
            .admitted(&path)
            .map_err(tower_lsp_server::jsonrpc::Error::invalid_params)?;
        Ok(found.and_then(|(root, relative)| root.world.buffer_text(&relative)))
    }

    /// `codegraph/status`: index runs in flight and what each workspace folder holds.
    async fn status(&self) -> Result<Status> {
        let roots = self
            .state
            .roots
            .read()
            .iter()
            .map(|root| {
                let graph = root.world.snapshot();
                StatusRoot {
                    root: root.client_root.clone(),
                    files: graph.file_count(),
                    entities: graph.entity_count(),
                    revision: graph.revision(),
                }
            })
            .collect();
        let pool = &self.state.pool;
        Ok(Status {
            indexing: self.state.indexing.load(Ordering::SeqCst),
            heavy_running: pool.limits().heavy.max(1) - pool.free_heavy_turns(),
            heavy_waiting: pool.waiting_for_a_turn(),
            roots,
        })
    }

    /// Indexes one workspace folder on a blocking thread, reporting progress to the client; the
    /// task ends with a one-line summary.
    fn spawn_index(&self, root: Arc<Root>) -> tokio::task::JoinHandle<String> {
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
            let message = match indexing.await {
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
            };
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

    async fn register_file_watcher(&self) {
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*".to_string()),
                kind: None,
            }],
        };
        let registration = Registration {
            id: "codegraph/watched-files".to_string(),
            method: "workspace/didChangeWatchedFiles".to_string(),
            register_options: serde_json::to_value(options).ok(),
        };
        if let Err(error) = self.client.register_capability(vec![registration]).await {
            tracing::warn!("registering the file watcher failed: {error}");
        }
    }

    /// Runs a request's query through the runner (`world::work`): on a blocking thread, within
    /// the deadline, a heavy one in its turn of the pool. tower-lsp-server drops this future
    /// when the client cancels the request (`$/cancelRequest`, answered `-32800`), which stops
    /// the work at its next checkpoint; a deadline passed or a failure answers an error.
    async fn query<T: Send + 'static>(
        &self,
        weight: Weight,
        work: impl FnOnce(&State) -> T + Send + 'static,
    ) -> Result<T> {
        run_query(&self.state, weight, work).await
    }
}

/// [`Backend::query`].
async fn run_query<T: Send + 'static>(
    state: &Arc<State>,
    weight: Weight,
    work: impl FnOnce(&State) -> T + Send + 'static,
) -> Result<T> {
    let shared = state.clone();
    state
        .pool
        .run_until_dropped(weight, move || work(&shared))
        .await
        .map_err(stopped_error)
}

/// The error a request whose work was stopped answers: `-32800` when cancelled, `-32803`
/// (request failed) when its deadline passed, `-32603` when the work panicked.
fn stopped_error(stopped: work::Stopped) -> tower_lsp_server::jsonrpc::Error {
    use tower_lsp_server::jsonrpc::{Error, ErrorCode};
    let data = stopped.to_json();
    let message = data["message"].as_str().unwrap_or_default().to_string();
    let code = match stopped {
        work::Stopped::Cancelled => ErrorCode::RequestCancelled,
        work::Stopped::DeadlineExceeded(_) => ErrorCode::ServerError(-32803),
        work::Stopped::Failed(_) => ErrorCode::InternalError,
    };
    Error {
        code,
        message: message.into(),
        data: Some(data),
    }
}

impl State {
    fn converter<'a>(&self, root: &'a Root, graph: &'a Graph) -> Converter<'a> {
        Converter {
            graph,
            client_root: &root.client_root,
            encoding: self.encoding(),
        }
    }

    /// The targets of the name at a position (a reference's targets or the definition there).
    fn targets(&self, uri: &Uri, position: Position) -> Option<(Located, Vec<Entity>)> {
        let (located, byte) = self.locate_position(uri, position)?;
        let targets = query::targets_at(&located.graph, &located.path, byte)
            .iter()
            .filter_map(|id| located.graph.entity(id))
            .collect();
        Some((located, targets))
    }

    fn root_of_item(&self, item: &CallHierarchyItem) -> Option<(Arc<Root>, Arc<Graph>, String)> {
        let data = item.data.as_ref()?;
        let root = self.root_by_client_path(data.get("root")?.as_str()?)?;
        let id = data.get("id")?.as_str()?.to_string();
        let graph = root.world.snapshot();
        Some((root, graph, id))
    }
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

fn folder_path(folder: &WorkspaceFolder) -> Option<PathBuf> {
    proto::path_of(&folder.uri)
}

impl State {
    /// The folder and text of the rules file `uri` names: the editor's copy when it is open,
    /// else the file on disk; `None` when `uri` is no folder's rules file.
    fn rules_file_text(&self, uri: &Uri) -> Option<(Arc<Root>, String)> {
        if let Some((client_root, text)) = self.diagnostics.rules_document(uri) {
            let root = self
                .roots
                .read()
                .iter()
                .find(|root| root.client_root == client_root)
                .cloned()?;
            return Some((root, text));
        }
        let root = self.rules_file_of(&proto::path_of(uri)?)?;
        let text = std::fs::read_to_string(proto::path_of(uri)?).ok()?;
        Some((root, text))
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let offers_utf8 = params
            .capabilities
            .general
            .as_ref()
            .and_then(|general| general.position_encodings.as_ref())
            .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
        let encoding = if offers_utf8 {
            ColumnEncoding::Utf8
        } else {
            ColumnEncoding::Utf16
        };
        *self.state.encoding.write() = encoding;
        self.state.diagnostics.configure(&params.capabilities);
        self.state.work_done_progress.store(
            params
                .capabilities
                .window
                .as_ref()
                .and_then(|window| window.work_done_progress)
                .unwrap_or(false),
            Ordering::SeqCst,
        );
        self.state.watch_registration.store(
            params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|workspace| workspace.did_change_watched_files.as_ref())
                .and_then(|watched| watched.dynamic_registration)
                .unwrap_or(false),
            Ordering::SeqCst,
        );
        let mut folders: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(folder_path)
            .collect();
        #[allow(deprecated)]
        if folders.is_empty()
            && let Some(path) = params.root_uri.as_ref().and_then(proto::path_of)
        {
            folders.push(path);
        }
        for folder in folders {
            self.state.add_root(folder);
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "codegraph".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            capabilities: ServerCapabilities {
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
                diagnostic_provider: Some(DiagnosticServerCapabilities::Options(
                    DiagnosticOptions {
                        identifier: Some(diagnostics::SOURCE.to_string()),
                        // A cycle closed in one file shows in the others.
                        inter_file_dependencies: true,
                        workspace_diagnostics: false,
                        ..DiagnosticOptions::default()
                    },
                )),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..CodeActionOptions::default()
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![REINDEX_COMMAND.to_string()],
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
            },
            ..InitializeResult::default()
        })
    }

    /// `codegraph.reindex`: re-read every folder from disk (changed files only), answering with
    /// one summary line per folder once all are done.
    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
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
        // `Ordered` applied it; a document over the size cap was left out, and the user hears
        // why (as `window/showMessage`, since nothing else would show it).
        let document = params.text_document;
        refresh_diagnostics(&self.client, &self.state, Some(document.uri.clone()));
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
        for removed in &params.event.removed {
            if let Some(path) = folder_path(removed) {
                self.state.remove_root(&path);
            }
        }
        for added in &params.event.added {
            if let Some(path) = folder_path(added)
                && let Some(root) = self.state.add_root(path)
            {
                drop(self.spawn_index(root));
            }
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let state = self.state.clone();
        let work = move || {
            for change in params.changes {
                let Some(path) = proto::path_of(&change.uri) else {
                    continue;
                };
                if let Some((root, relative)) = state.manifest_of(&path) {
                    root.world.refresh_from_disk(&relative);
                    continue;
                }
                if let Some((root, relative)) = state.root_of(&path) {
                    root.world.refresh_from_disk(&relative);
                    continue;
                }
                // A deleted directory: refresh every file the graph has under it.
                if change.typ == FileChangeType::DELETED {
                    let roots = state.roots.read().clone();
                    for root in roots {
                        let Ok(inside) = path.strip_prefix(&root.client_root) else {
                            continue;
                        };
                        let prefix = format!("{}/", inside.to_string_lossy());
                        let graph = root.world.snapshot();
                        for file in graph.files().filter(|file| file.path.starts_with(&prefix)) {
                            root.world.refresh_from_disk(&file.path);
                        }
                    }
                }
            }
        };
        if let Err(error) = tokio::task::spawn_blocking(work).await {
            tracing::error!("refreshing watched files failed: {error}");
        }
        // The rules file may be among them (it is read again when it changed).
        refresh_diagnostics(&self.client, &self.state, None);
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let position = params.text_document_position_params;
        self.query(Weight::Cheap, move |state| {
            let (located, targets) =
                state.targets(&position.text_document.uri, position.position)?;
            let convert = state.converter(&located.root, &located.graph);
            let locations: Vec<Location> = targets
                .iter()
                .filter_map(|entity| convert.entity_location(entity))
                .collect();
            (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
        })
        .await
    }

    async fn goto_implementation(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let position = params.text_document_position_params;
        self.query(Weight::Cheap, move |state| {
            let (located, targets) =
                state.targets(&position.text_document.uri, position.position)?;
            let convert = state.converter(&located.root, &located.graph);
            let graph = &located.graph;
            let locations: Vec<Location> = targets
                .iter()
                .flat_map(|target| {
                    let mut found = query::implementations(graph, &target.id);
                    // Go's interfaces are implicit: from a concrete type or method, gopls goes
                    // the other way, to the interfaces it satisfies.
                    if found.is_empty() && target.language == codegraph_lang::Language::Go {
                        if target.kind == codegraph_model::EntityKind::Method {
                            found.extend(
                                query::overridden_members(graph, &target.id)
                                    .iter()
                                    .filter_map(|id| graph.entity(id)),
                            );
                        } else if target.kind.is_type() {
                            found.extend(
                                query::supertypes(graph, &target.id)
                                    .into_iter()
                                    .map(|(base, _)| base),
                            );
                        }
                    }
                    found
                })
                .filter_map(|entity| convert.entity_location(&entity))
                .collect();
            (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
        })
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let position = params.text_document_position;
        let include_declaration = params.context.include_declaration;
        self.query(Weight::Cheap, move |state| {
            let (located, targets) =
                state.targets(&position.text_document.uri, position.position)?;
            let graph = &located.graph;
            let convert = state.converter(&located.root, graph);
            let mut locations = Vec::new();
            for target in &targets {
                if include_declaration && let Some(location) = convert.entity_location(target) {
                    locations.push(location);
                }
                for (file, site) in query::references(graph, &target.id) {
                    locations.extend(convert.location(&file, site));
                }
            }
            Some(locations)
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let position = params.text_document_position_params;
        self.query(Weight::Cheap, move |state| {
            let (_, targets) = state.targets(&position.text_document.uri, position.position)?;
            if targets.is_empty() {
                return None;
            }
            let sections: Vec<String> = targets.iter().map(hover_text).collect();
            Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: sections.join("\n\n---\n\n"),
                }),
                range: None,
            })
        })
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.query(Weight::Cheap, move |state| {
            let located = state.locate(&params.text_document.uri)?;
            let convert = state.converter(&located.root, &located.graph);
            Some(DocumentSymbolResponse::Nested(
                convert.document_symbols(&located.path),
            ))
        })
        .await
    }

    /// Heavy work: every name of every folder is scanned, on every core.
    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.query(Weight::Heavy, move |state| {
            work::slow_for_tests(&params.query);
            let roots: Vec<Arc<Root>> = state.roots.read().clone();
            let mut scored: Vec<(f64, WorkspaceSymbol)> = Vec::new();
            for root in &roots {
                let graph = root.world.snapshot();
                let convert = state.converter(root, &graph);
                for found in query::symbols(&graph, &params.query, SYMBOL_LIMIT) {
                    let entity = &found.entity;
                    let Some(location) = convert.entity_location(entity) else {
                        continue;
                    };
                    let container = entity
                        .qualified_name
                        .rsplit_once('.')
                        .map(|(container, _)| container.to_string());
                    scored.push((
                        found.score,
                        WorkspaceSymbol {
                            name: entity.name.to_string(),
                            kind: proto::symbol_kind(entity.kind),
                            tags: None,
                            container_name: container,
                            location: OneOf::Left(location),
                            data: None,
                        },
                    ));
                }
            }
            // Stable: each root's own order (by score, then name length) survives the merge.
            scored.sort_by(|left, right| right.0.total_cmp(&left.0));
            scored.truncate(SYMBOL_LIMIT);
            Some(WorkspaceSymbolResponse::Nested(
                scored.into_iter().map(|(_, symbol)| symbol).collect(),
            ))
        })
        .await
    }

    /// "N callers" above every function, method and type of the file.
    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.query(Weight::Cheap, move |state| {
            let located = state.locate(&params.text_document.uri)?;
            let convert = state.converter(&located.root, &located.graph);
            // "3 callers, 2 possible": the possible ones are ambiguous references left aside.
            let possible = query::possible_caller_counts(&located.graph, &located.path);
            let lenses = located
                .graph
                .file_entities(&located.path)
                .into_iter()
                .filter(|entity| entity.kind.is_callable())
                .filter_map(|entity| {
                    let callers = query::callers(&located.graph, &entity.id).len();
                    let mut title = match callers {
                        1 => "1 caller".to_string(),
                        count => format!("{count} callers"),
                    };
                    if let Some(count) = possible.get(&entity.id) {
                        title.push_str(&format!(", {count} possible"));
                    }
                    Some(CodeLens {
                        range: convert.range(&located.path, entity.name_span)?,
                        command: Some(Command {
                            title,
                            command: String::new(),
                            arguments: None,
                        }),
                        data: None,
                    })
                })
                .collect();
            Some(lenses)
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
        let position = params.text_document_position_params;
        self.query(Weight::Cheap, move |state| {
            let (located, targets) =
                state.targets(&position.text_document.uri, position.position)?;
            let convert = state.converter(&located.root, &located.graph);
            let items: Vec<CallHierarchyItem> = targets
                .iter()
                .filter(|entity| entity.kind.is_callable())
                .filter_map(|entity| convert.call_hierarchy_item(entity))
                .collect();
            (!items.is_empty()).then_some(items)
        })
        .await
    }

    async fn incoming_calls(
        &self,
        params: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        self.query(Weight::Cheap, move |state| {
            let (root, graph, id) = state.root_of_item(&params.item)?;
            let convert = state.converter(&root, &graph);
            let calls = query::callers(&graph, &id)
                .into_iter()
                .filter_map(|call| {
                    let from = convert.call_hierarchy_item(&call.entity)?;
                    // The call sites are in the caller's file.
                    let from_ranges = call
                        .sites
                        .iter()
                        .filter_map(|site| convert.range(&call.entity.file_path, *site))
                        .collect();
                    Some(CallHierarchyIncomingCall { from, from_ranges })
                })
                .collect();
            Some(calls)
        })
        .await
    }

    async fn outgoing_calls(
        &self,
        params: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        self.query(Weight::Cheap, move |state| {
            let (root, graph, id) = state.root_of_item(&params.item)?;
            let caller = graph.entity(&id)?;
            let convert = state.converter(&root, &graph);
            let calls = query::callees(&graph, &id)
                .into_iter()
                .filter_map(|call| {
                    let to = convert.call_hierarchy_item(&call.entity)?;
                    // The call sites are in the caller's (the item's) file.
                    let from_ranges = call
                        .sites
                        .iter()
                        .filter_map(|site| convert.range(&caller.file_path, *site))
                        .collect();
                    Some(CallHierarchyOutgoingCall { to, from_ranges })
                })
                .collect();
            Some(calls)
        })
        .await
    }
}

fn hover_text(entity: &Entity) -> String {
    let mut text = String::new();
    let signature = entity
        .signature
        .clone()
        .unwrap_or_else(|| entity.name.to_string());
    text.push_str(&format!(
        "```{}\n{}\n```\n\n*{}* `{}`",
        entity.language.name(),
        signature.trim(),
        entity.kind,
        entity.qualified_name
    ));
    if let Some(doc) = entity
        .docstring
        .as_deref()
        .filter(|doc| !doc.trim().is_empty())
    {
        text.push_str("\n\n");
        text.push_str(doc.trim());
    }
    text
}

/// Builds the service: the `LspService` with codegraph's custom methods, wrapped in [`Ordered`].
pub fn service(
    config: WorldConfig,
    serve_mcp: bool,
    shell: Option<codegraph_mcp::shell::ShellPolicy>,
) -> (Ordered<LspService<Backend>>, tower_lsp_server::ClientSocket) {
    let state = Arc::new(State::new(config, serve_mcp, shell));
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
    let shut_down = runtime.block_on(async {
        let (service, socket) = service(config, serve_mcp, shell);
        let state = service.state.clone();
        // Malformed input is answered, and the session goes on (see `lsp/framing.rs`).
        framing::serve(tokio::io::stdin(), tokio::io::stdout(), service, socket).await;
        state.close_attachments();
        state
            .shutdown_requested
            .load(std::sync::atomic::Ordering::SeqCst)
    });
    // Index threads may still run; do not wait for them.
    runtime.shutdown_background();
    Ok(if shut_down { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};
    use tower_lsp_server::jsonrpc::ErrorCode;

    /// A query that runs past its deadline answers an error (`-32803`, with the runner's
    /// message), not a hang; one that panics answers an internal error; the others answer.
    #[tokio::test]
    async fn a_stopped_query_answers_an_error() {
        let with_deadline = |deadline| {
            let mut state = State::new(WorldConfig::default(), false, None);
            state.pool = Arc::new(work::Pool::new(work::Limits { heavy: 1, deadline }));
            Arc::new(state)
        };
        let state = with_deadline(Duration::from_millis(100));
        let started = Instant::now();
        let error = run_query(&state, Weight::Heavy, move |_| {
            while started.elapsed() < Duration::from_secs(30) {
                codegraph_model::cancel::checkpoint();
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .await
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(error.code, ErrorCode::ServerError(-32803));
        assert!(
            error
                .message
                .starts_with("the request took longer than 0.1 s"),
            "{}",
            error.message
        );
        assert_eq!(error.data.unwrap()["error"], "Deadline exceeded");
        // The stopped work gives its turn back.
        while state.pool.free_heavy_turns() == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the work went on"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }

        let state = with_deadline(work::DEFAULT_DEADLINE);
        let error = run_query(&state, Weight::Cheap, |_| -> u32 { panic!("a bug") })
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::InternalError);
        assert_eq!(error.data.unwrap()["error"], "Analysis failed");
        let answer = run_query(&state, Weight::Heavy, |state| state.encoding()).await;
        assert_eq!(answer, Ok(ColumnEncoding::Utf16));
        assert_eq!(
            stopped_error(work::Stopped::Cancelled).code,
            ErrorCode::RequestCancelled
        );
    }
}
