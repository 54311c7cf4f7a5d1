//! Resource subscriptions: a client names resources it wants to hear about and gets
//! `notifications/resources/updated` when the graph changes them, whichever writer changed it
//! (an editor's unsaved edit, the file watcher, `reindex_repository`).
//!
//! Two protocol shapes, one mechanism. Sessions that began with `initialize` (protocol 2025-11-25
//! and older) use `resources/subscribe` / `resources/unsubscribe`: the URIs are kept per session
//! in [`Session`] and one task per session follows the graph. Protocol 2026-07-28 clients open a
//! `subscriptions/listen` stream naming the URIs; the same follower runs for the stream's life.
//!
//! The follower waits on [`World::changes`] (a counter the writer bumps after storing a snapshot,
//! never waiting for anyone), lets a burst of changes settle, then compares a fingerprint of each
//! subscribed resource with the one last seen: `codegraph://stats` changes with every new graph;
//! an entity or a file resource changes when its rendered JSON does (its callers may live in
//! other files); `codegraph://guide` never changes.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, SubscriptionSink};
use rmcp::{ErrorData, RoleServer};
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::resources::{self, COMMUNITY_PREFIX, ENTITY_PREFIX, FILE_PREFIX, GUIDE_URI, STATS_URI};
use codegraph_graph::Graph;
use codegraph_world::World;

/// How long the graph must be quiet before subscribers are told (typing makes a change per key).
pub const SETTLE: Duration = Duration::from_millis(50);

/// Subscribed URI → the fingerprint last reported.
type Fingerprints = Arc<Mutex<BTreeMap<String, u64>>>;

/// Whether `uri` names a resource one can subscribe to (it may not exist yet: a file about to
/// be created).
pub fn subscribable(uri: &str) -> bool {
    uri == STATS_URI
        || uri == GUIDE_URI
        || uri == super::rules::RULES_URI
        || uri
            .strip_prefix(ENTITY_PREFIX)
            .is_some_and(|rest| !rest.is_empty())
        || uri
            .strip_prefix(FILE_PREFIX)
            .is_some_and(|rest| !rest.is_empty())
        || uri
            .strip_prefix(COMMUNITY_PREFIX)
            .is_some_and(|rest| !rest.is_empty())
}

/// What a resource looks like in `graph` (at `revision`), reduced to a number that changes when
/// the resource does.
fn fingerprint(world: &World, graph: &Graph, revision: u64, uri: &str) -> u64 {
    // Communities are recomputed lazily per revision; comparing them would force that work on
    // every change, so a subscribed community is notified whenever the graph changes.
    if uri == STATS_URI || uri.starts_with(COMMUNITY_PREFIX) {
        return revision;
    }
    if uri == GUIDE_URI {
        return 0;
    }
    let mut hasher = rustc_hash::FxHasher::default();
    if uri == super::rules::RULES_URI {
        // The rules' status: changes when a violation (or a count, or the rules) does.
        super::rules::read(world, graph)
            .to_string()
            .hash(&mut hasher);
        return hasher.finish();
    }
    match resources::read(graph, uri) {
        Ok(result) => serde_json::to_string(&result)
            .unwrap_or_default()
            .hash(&mut hasher),
        Err(error) => error.message.hash(&mut hasher),
    }
    hasher.finish()
}

/// The current revision and snapshot, the revision read first so that the snapshot is at least
/// that new.
fn current(world: &World) -> (u64, Arc<Graph>) {
    let revision = world.revision();
    (revision, world.snapshot())
}

/// Where a follower sends its notifications.
enum Target {
    /// A session that subscribed with `resources/subscribe`.
    Peer(Peer<RoleServer>),
    /// A `subscriptions/listen` stream.
    Stream(SubscriptionSink),
}

impl Target {
    /// `false` once the client is gone.
    async fn send(&self, uri: String) -> bool {
        match self {
            Target::Peer(peer) => {
                !peer.is_transport_closed()
                    && peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await
                        .is_ok()
            }
            Target::Stream(sink) => sink.notify_resource_updated(uri).await.is_ok(),
        }
    }
}

/// Tells `target` about every subscribed resource that changes, until the world or the client
/// goes away. `changes` must have been taken before the fingerprints in `subscribed` were.
async fn follow(
    world: Arc<World>,
    mut changes: watch::Receiver<u64>,
    subscribed: Fingerprints,
    target: Target,
) {
    loop {
        if changes.changed().await.is_err() {
            return;
        }
        tokio::time::sleep(SETTLE).await;
        changes.borrow_and_update();
        let world_for_check = world.clone();
        let subscribed_for_check = subscribed.clone();
        // Rendering resources is CPU work on a snapshot: off the async workers.
        let updated = tokio::task::spawn_blocking(move || {
            let (revision, graph) = current(&world_for_check);
            let mut subscribed = subscribed_for_check.lock();
            let mut updated = Vec::new();
            for (uri, last) in subscribed.iter_mut() {
                let now = fingerprint(&world_for_check, &graph, revision, uri);
                if now != *last {
                    *last = now;
                    updated.push(uri.clone());
                }
            }
            updated
        })
        .await
        .unwrap_or_default();
        for uri in updated {
            tracing::debug!("resource updated: {uri}");
            if !target.send(uri).await {
                return;
            }
        }
    }
}

/// The subscriptions of one MCP session (`resources/subscribe`). Dropping it (the session
/// ended) stops its follower.
#[derive(Default)]
pub struct Session {
    subscribed: Fingerprints,
    follower: Mutex<Option<DropGuard>>,
}

impl Session {
    /// Adds `uri`; the first subscription starts the session's follower, which notifies `peer`.
    pub fn subscribe(
        &self,
        world: &Arc<World>,
        uri: &str,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !subscribable(uri) {
            return Err(ErrorData::resource_not_found(
                format!("cannot subscribe to unknown resource {uri}"),
                Some(serde_json::json!({ "uri": uri })),
            ));
        }
        let mut follower = self.follower.lock();
        // Taken before the fingerprint, so a change right after it is not missed.
        let changes = world.changes();
        let (revision, graph) = current(world);
        self.subscribed
            .lock()
            .insert(uri.to_string(), fingerprint(world, &graph, revision, uri));
        if follower.is_none() {
            let stop = CancellationToken::new();
            let stopped = stop.clone();
            let following = follow(
                world.clone(),
                changes,
                self.subscribed.clone(),
                Target::Peer(peer),
            );
            tokio::spawn(async move {
                tokio::select! {
                    _ = following => {}
                    _ = stopped.cancelled() => {}
                }
            });
            *follower = Some(stop.drop_guard());
        }
        Ok(())
    }

    /// Removes `uri` (unknown URIs are not an error: the client is simply not subscribed).
    pub fn unsubscribe(&self, uri: &str) {
        self.subscribed.lock().remove(uri);
    }

    /// The URIs this session is subscribed to.
    pub fn subscribed(&self) -> Vec<String> {
        self.subscribed.lock().keys().cloned().collect()
    }
}

/// Serves one `subscriptions/listen` stream for `uris` until `cancelled` fires.
pub async fn listen(
    world: Arc<World>,
    uris: Vec<String>,
    sink: SubscriptionSink,
    cancelled: impl std::future::Future<Output = ()>,
) {
    let changes = world.changes();
    let (revision, graph) = current(&world);
    let subscribed: BTreeMap<String, u64> = uris
        .into_iter()
        .map(|uri| {
            let now = fingerprint(&world, &graph, revision, &uri);
            (uri, now)
        })
        .collect();
    drop(graph);
    tokio::select! {
        _ = follow(world, changes, Arc::new(Mutex::new(subscribed)), Target::Stream(sink)) => {}
        _ = cancelled => {}
    }
}
