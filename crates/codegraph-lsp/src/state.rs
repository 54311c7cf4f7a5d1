//! The server's state: the workspace folders (each a World, with its MCP socket), the
//! negotiated encoding, what the diagnostics and semantic tokens keep, and how a client's URI
//! finds its folder, file and text.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use parking_lot::RwLock;
use tower_lsp_server::ls_types::{CallHierarchyItem, Position, Uri};

use codegraph_graph::query;
use codegraph_graph::{Entity, FilePath, Graph};
use codegraph_world::buffer::ColumnEncoding;
use codegraph_world::work;
use codegraph_world::{World, WorldConfig};

use crate::proto::{self, Converter, FileText};
use crate::{diagnostics, semantic_tokens};

/// One workspace folder: the folder as the client named it and its World.
pub(crate) struct Root {
    pub(crate) client_root: PathBuf,
    pub(crate) world: Arc<World>,
    /// The MCP socket serving this folder's world to `codegraph mcp` (see `mcp::attach`).
    pub(crate) attachment: Option<codegraph_mcp::attach::Attachment>,
}

/// What every handler shares.
pub struct State {
    pub(crate) config: WorldConfig,
    /// Serve every folder's world over MCP on a unix socket too.
    pub(crate) serve_mcp: bool,
    /// `execute_shell_command` on those sockets (`--allow-shell`); off when `None`.
    pub(crate) shell: Option<codegraph_mcp::shell::ShellPolicy>,
    pub(crate) roots: RwLock<Vec<Arc<Root>>>,
    pub(crate) encoding: RwLock<ColumnEncoding>,
    /// Index runs in flight.
    pub(crate) indexing: AtomicUsize,
    pub(crate) work_done_progress: AtomicBool,
    pub(crate) watch_registration: AtomicBool,
    pub(crate) progress_tokens: AtomicUsize,
    /// The client sent `shutdown`; the exit status after `exit` is 0 only then.
    pub(crate) shutdown_requested: AtomicBool,
    /// Architecture-rule diagnostics: open documents, what was sent (see `lsp/diagnostics.rs`).
    pub(crate) diagnostics: diagnostics::Diagnostics,
    /// The last semantic tokens sent per document, for `full/delta` (`lsp/semantic_tokens.rs`).
    pub(crate) semantic_tokens: semantic_tokens::SentTokens,
    /// Where requests' queries run (`world::work`), shared with the folders' MCP sessions.
    pub(crate) pool: Arc<work::Pool>,
    /// In a session of the shared server (`lsp/shared.rs`): the server's world, the only
    /// folder the session serves. The process already serves it over MCP, and the session's
    /// unsaved buffers are closed when it ends.
    pub(crate) shared: Option<Arc<World>>,
}

/// A file of a workspace folder, in a snapshot.
pub(crate) struct Located {
    pub(crate) root: Arc<Root>,
    pub(crate) graph: Arc<Graph>,
    pub(crate) path: FilePath,
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
            shared: None,
        }
    }

    pub(crate) fn encoding(&self) -> ColumnEncoding {
        *self.encoding.read()
    }

    /// The workspace folder holding `path` (the innermost one) and the file's relative path;
    /// `None` when no folder holds it, or when it is refused by the containment rule (logged).
    pub(crate) fn root_of(&self, path: &Path) -> Option<(Arc<Root>, FilePath)> {
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
    pub(crate) fn manifest_of(&self, path: &Path) -> Option<(Arc<Root>, String)> {
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
    pub(crate) fn rules_file_of(&self, path: &Path) -> Option<Arc<Root>> {
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
    pub(crate) fn admitted(
        &self,
        path: &Path,
    ) -> std::result::Result<Option<(Arc<Root>, FilePath)>, String> {
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

    pub(crate) fn locate(&self, uri: &Uri) -> Option<Located> {
        let (root, path) = self.root_of(&proto::path_of(uri)?)?;
        let graph = root.world.snapshot();
        graph.file(&path)?;
        Some(Located { root, graph, path })
    }

    /// The file and the byte offset of a position in it; `None` when either is unknown.
    pub(crate) fn locate_position(&self, uri: &Uri, position: Position) -> Option<(Located, u32)> {
        let located = self.locate(uri)?;
        let file = located.graph.file(&located.path)?;
        let text = file.text()?;
        let byte = FileText::new(&text, self.encoding()).byte_of(position)?;
        Some((located, byte))
    }

    pub(crate) fn root_by_client_path(&self, client_root: &str) -> Option<Arc<Root>> {
        self.roots
            .read()
            .iter()
            .find(|root| root.client_root == Path::new(client_root))
            .cloned()
    }

    pub(crate) fn add_root(&self, client_root: PathBuf) -> Option<Arc<Root>> {
        let world = match &self.shared {
            // A session of the shared server: its world is the one folder it serves.
            Some(world) => {
                if client_root.canonicalize().ok().as_deref() != Some(world.root()) {
                    tracing::warn!(
                        "workspace folder {}: this session serves {} only",
                        client_root.display(),
                        world.root().display()
                    );
                    return None;
                }
                world.clone()
            }
            None => match World::open(&client_root, self.config.clone()) {
                Ok(world) => Arc::new(world),
                Err(error) => {
                    tracing::warn!("workspace folder {}: {error:#}", client_root.display());
                    return None;
                }
            },
        };
        if self
            .roots
            .read()
            .iter()
            .any(|existing| existing.client_root == client_root)
        {
            return None;
        }
        let attachment = if self.serve_mcp {
            let mut server =
                codegraph_mcp::CodegraphMcp::new(world.clone()).with_pool(self.pool.clone());
            if let Some(policy) = &self.shell {
                server = server.with_shell(policy.clone());
            }
            codegraph_mcp::attach::serve_world(
                world.clone(),
                server,
                codegraph_mcp::attach::Kind::Lsp,
                Default::default(),
            )
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

    pub(crate) fn remove_root(&self, client_root: &Path) {
        self.roots.write().retain(|root| {
            let keep = root.client_root != client_root;
            if !keep && let Some(attachment) = &root.attachment {
                attachment.close();
            }
            keep
        });
    }

    /// Closes every buffer the client left open: the editor's unsaved text leaves the graph,
    /// which reads the files from disk again (the session of a shared server ended).
    pub(crate) fn close_buffers(&self) {
        let open = self.diagnostics.take_open();
        let roots = self.roots.read().clone();
        for (client_root, path) in open {
            if let Some(root) = roots.iter().find(|root| root.client_root == client_root) {
                root.world.close_buffer(path.as_str());
            }
        }
    }

    /// Stops serving MCP for every folder (the process is about to exit).
    pub(crate) fn close_attachments(&self) {
        for root in self.roots.read().iter() {
            if let Some(attachment) = &root.attachment {
                attachment.close();
            }
        }
    }
}

impl State {
    pub(crate) fn converter<'a>(&self, root: &'a Root, graph: &'a Graph) -> Converter<'a> {
        Converter {
            graph,
            client_root: &root.client_root,
            encoding: self.encoding(),
        }
    }

    /// The targets of the name at a position (a reference's targets or the definition there).
    pub(crate) fn targets(&self, uri: &Uri, position: Position) -> Option<(Located, Vec<Entity>)> {
        let (located, byte) = self.locate_position(uri, position)?;
        let targets = query::targets_at(&located.graph, &located.path, byte)
            .iter()
            .filter_map(|id| located.graph.entity(id))
            .collect();
        Some((located, targets))
    }

    pub(crate) fn root_of_item(
        &self,
        item: &CallHierarchyItem,
    ) -> Option<(Arc<Root>, Arc<Graph>, String)> {
        let data = item.data.as_ref()?;
        let root = self.root_by_client_path(data.get("root")?.as_str()?)?;
        let id = data.get("id")?.as_str()?.to_string();
        let graph = root.world.snapshot();
        Some((root, graph, id))
    }
}

impl State {
    /// The folder and text of the rules file `uri` names: the editor's copy when it is open,
    /// else the file on disk; `None` when `uri` is no folder's rules file.
    pub(crate) fn rules_file_text(&self, uri: &Uri) -> Option<(Arc<Root>, String)> {
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
