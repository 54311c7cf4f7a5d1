//! The MCP door in process: a workspace (a temp copy of a fixture, files added or an inline
//! fixture), indexed, served by `CodegraphMcp` to the tests' MCP client over an in-memory pipe.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use codegraph::mcp::CodegraphMcp;
use codegraph::mcp::toolset::ToolSet;
use codegraph::world::{CacheLocation, World, WorldConfig};
use codegraph_testkit::fixture::Fixture;
use codegraph_testkit::mcp::McpClient;
use rmcp::ServiceExt;
use rmcp::model::ClientConfig;

use crate::cache::copy_tree;
use crate::support::fixture;

/// A running session and what it serves.
pub struct McpSession {
    pub client: McpClient,
    pub world: Arc<World>,
    /// The workspace, `dir/repo`, canonical.
    pub repo: PathBuf,
    /// Holds `repo/` and whatever a test puts beside it.
    pub dir: tempfile::TempDir,
}

/// The session's client: `session.ok(tool, arguments)`, `session.read(uri)`, ...
impl std::ops::Deref for McpSession {
    type Target = McpClient;

    fn deref(&self) -> &McpClient {
        &self.client
    }
}

impl std::ops::DerefMut for McpSession {
    fn deref_mut(&mut self) -> &mut McpClient {
        &mut self.client
    }
}

/// How to start one: [`McpSetup::copy_of`] a fixture directory or [`McpSetup::inline`], then
/// the optional steps, then [`McpSetup::start`].
pub struct McpSetup {
    fixture: Option<String>,
    files: Vec<(String, String)>,
    server: Box<dyn FnOnce(CodegraphMcp) -> CodegraphMcp>,
    config: ClientConfig,
}

impl McpSetup {
    /// A temp copy of `fixtures/<name>`.
    pub fn copy_of(name: &str) -> McpSetup {
        McpSetup {
            fixture: Some(name.to_string()),
            files: Vec::new(),
            server: Box::new(|server| server),
            config: ClientConfig::default(),
        }
    }

    /// The files of an inline fixture, and nothing else.
    pub fn inline(fixture: &Fixture) -> McpSetup {
        McpSetup {
            fixture: None,
            ..McpSetup::copy_of("")
        }
        .files(
            fixture
                .files
                .iter()
                .map(|file| (file.path.clone(), file.text.clone())),
        )
    }

    /// More files (path from the root, text), written after the fixture's.
    pub fn files(mut self, files: impl IntoIterator<Item = (String, String)>) -> McpSetup {
        self.files.extend(files);
        self
    }

    /// Configures the server (a shell policy, limits) before it serves.
    pub fn server(
        mut self,
        configure: impl FnOnce(CodegraphMcp) -> CodegraphMcp + 'static,
    ) -> Self {
        self.server = Box::new(configure);
        self
    }

    /// What the client announces (a protocol version).
    pub fn client(mut self, config: ClientConfig) -> McpSetup {
        self.config = config;
        self
    }

    pub async fn start(self) -> McpSession {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        if let Some(name) = &self.fixture {
            copy_tree(&fixture(name), &repo);
        }
        for (path, text) in &self.files {
            let path = repo.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let world = Arc::new(indexed_world(&repo));
        let server = (self.server)(CodegraphMcp::new(world.clone()).with_tools(ToolSet::all()));
        let client = serve_in_memory(server, self.config).await;
        McpSession {
            client,
            world,
            repo: repo.canonicalize().unwrap(),
            dir,
        }
    }
}

/// `root` opened without a cache and indexed.
pub fn indexed_world(root: &Path) -> World {
    let world = World::open(
        root,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .unwrap();
    world.index(false, &|_, _| {});
    world
}

/// `server` serving one session over an in-memory pipe; the client side, handshake done.
pub async fn serve_in_memory(server: CodegraphMcp, config: ClientConfig) -> McpClient {
    let (server_side, client_side) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    McpClient::connect(client_side, config)
        .await
        .expect("the MCP handshake")
}
