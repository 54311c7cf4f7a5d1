//! The shared server's worktrees (`codegraph serve --shared`, started by `mcp::daemon`): the
//! root it was started for, and every other `git worktree` of the same repository a client asked
//! it to serve. Each worktree is a world of its own with its own socket and discovery entry, so
//! a client attaches to its worktree as to any root; every world after the first is derived from
//! the first (`World::derive`): its graph is the first one's plus its difference, sharing every
//! summary and index shard the difference leaves alone, and it writes no cache.
//!
//! The server exits once no root has had a session for its idle time, or when interrupted.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use super::CodegraphMcp;
use super::attach::{self, Attachment, Handlers, Kind, LspSessions};
use codegraph_world::World;

/// How the server sets up each worktree's MCP server (tools, shell).
pub type Setup = Arc<dyn Fn(CodegraphMcp) -> CodegraphMcp + Send + Sync>;

/// One served worktree. Dropped, it stops being served.
struct Served {
    world: Arc<World>,
    attachment: Attachment,
    _watcher: Option<codegraph_world::watch::Watcher>,
}

/// The worktrees a shared server serves.
pub struct Worktrees {
    /// The first, every other's base.
    base: Arc<World>,
    /// Git's common directory of the base's repository, when its root is a worktree's.
    repository: Option<PathBuf>,
    setup: Setup,
    lsp: Option<LspSessions>,
    served: Mutex<Vec<Served>>,
}

impl Worktrees {
    /// Serves `base` (indexed) on its socket. Must run inside a tokio runtime.
    pub fn start(
        base: Arc<World>,
        setup: Setup,
        lsp: Option<LspSessions>,
    ) -> anyhow::Result<Arc<Worktrees>> {
        let worktrees = Arc::new(Worktrees {
            repository: super::daemon::repository_of(base.root()),
            base: base.clone(),
            setup,
            lsp,
            served: Mutex::new(Vec::new()),
        });
        worktrees.serve(base)?;
        Ok(worktrees)
    }

    /// What every socket of the server serves besides MCP.
    fn handlers(self: &Arc<Self>) -> Handlers {
        let worktrees = self.clone();
        Handlers {
            lsp: self.lsp.clone(),
            worktrees: Some(Arc::new(move |root: PathBuf| {
                let worktrees = worktrees.clone();
                tokio::task::spawn_blocking(move || {
                    worktrees.add(&root).map_err(|error| format!("{error:#}"))
                })
            })),
        }
    }

    /// Publishes `world`, indexed, on a socket of its own, watching its root.
    fn serve(self: &Arc<Self>, world: Arc<World>) -> anyhow::Result<()> {
        {
            // Ready for the first change (it waits on the writer lock while this runs).
            let world = world.clone();
            std::thread::spawn(move || world.prepare_changes());
        }
        let watcher = codegraph_world::watch::watch(world.clone(), |_| {})
            .inspect_err(|error| tracing::warn!("not watching the file system: {error}"))
            .ok();
        let server = (self.setup)(CodegraphMcp::new(world.clone()));
        let attachment = attach::serve_world(world.clone(), server, Kind::Shared, self.handlers())?;
        self.served.lock().push(Served {
            world,
            attachment,
            _watcher: watcher,
        });
        Ok(())
    }

    /// Serves `root`, a worktree of the base's repository, from the base's graph plus its
    /// difference. Nothing to do when it is served already.
    fn add(self: &Arc<Self>, root: &Path) -> anyhow::Result<()> {
        let root = root.canonicalize()?;
        if self.serves(&root) {
            return Ok(());
        }
        let repository = super::daemon::repository_of(&root);
        if repository.is_none() || repository != self.repository {
            anyhow::bail!(
                "{} is not a worktree of the repository {} serves",
                root.display(),
                self.base.root().display()
            );
        }
        let world = World::derive(&root, self.base.config().clone(), &self.base)?;
        let report = world.index(false, &|_, _| {});
        tracing::warn!(
            "serving the worktree {} too: {} of its {} files differ from {}",
            root.display(),
            report.parsed + report.removed,
            report.files,
            self.base.root().display()
        );
        if self.serves(&root) {
            return Ok(());
        }
        self.serve(Arc::new(world))
    }

    fn serves(&self, root: &Path) -> bool {
        self.served
            .lock()
            .iter()
            .any(|served| served.world.root() == root)
    }

    /// How long no root has had a session (zero while one has).
    fn quiet_for(&self) -> Duration {
        self.served
            .lock()
            .iter()
            .map(|served| served.attachment.sessions().quiet_for())
            .min()
            .unwrap_or_default()
    }

    /// Serves until no root has had a session for `idle`, or until interrupted; then stops
    /// serving every root.
    pub async fn run(&self, idle: Duration) {
        tracing::warn!(
            "shared server (process {}) of {} ready; exits after {} s with no client",
            std::process::id(),
            self.base.root().display(),
            idle.as_secs()
        );
        let interrupted = CancellationToken::new();
        tokio::spawn(super::serve::cancel_when_interrupted(interrupted.clone()));
        let poll = idle.min(Duration::from_millis(250));
        loop {
            tokio::select! {
                _ = tokio::time::sleep(poll) => {}
                _ = interrupted.cancelled() => {
                    tracing::warn!("interrupted: exiting");
                    break;
                }
            }
            if self.quiet_for() >= idle {
                tracing::warn!("no client for {} s: exiting", idle.as_secs());
                break;
            }
        }
        // No new session from here; the discovery entries and sockets go.
        for served in self.served.lock().iter() {
            served.attachment.close();
        }
    }
}
