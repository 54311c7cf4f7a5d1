//! Resource subscriptions: `resources/subscribe` and `resources/unsubscribe` per session, and
//! `notifications/resources/updated` when the graph changes, from an editor's edit (the path LSP
//! takes through `World::open_buffer` / `edit_buffer`) and from a change on disk (the file watcher
//! of the headless server).

use std::time::Duration;

use codegraph::world::buffer::{ColumnEncoding, TextEdit};
use rmcp::model::{ErrorCode, SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::ServiceError;

use crate::support::mcp::{McpSession, McpSetup};

const STATS: &str = "codegraph://stats";
const MATH: &str = "codegraph://files/shop/util/math.py";
const MODELS: &str = "codegraph://files/shop/models.py";
const FACTORIAL: &str = "codegraph://entities/shop/util/math.py::factorial";

async fn start() -> McpSession {
    McpSetup::copy_of("python").start().await
}

/// `resources/subscribe` and `resources/unsubscribe`, as these tests call them.
trait Subscriptions {
    async fn subscribe(&self, uri: &str) -> Result<(), ServiceError>;
    async fn unsubscribe(&self, uri: &str);
    /// The URIs notified (the first may take a while on a loaded machine), sorted, each once.
    async fn notified(&mut self) -> Vec<String>;
}

impl Subscriptions for McpSession {
    #[allow(deprecated)]
    async fn subscribe(&self, uri: &str) -> Result<(), ServiceError> {
        self.client
            .subscribe(SubscribeRequestParams::new(uri))
            .await
            .map(|_| ())
    }

    #[allow(deprecated)]
    async fn unsubscribe(&self, uri: &str) {
        self.client
            .unsubscribe(UnsubscribeRequestParams::new(uri))
            .await
            .unwrap();
    }

    async fn notified(&mut self) -> Vec<String> {
        self.updated(Duration::from_secs(20)).await
    }
}

const MATH_SOURCE: &str =
    "def factorial(n: int) -> int:\n    return 1 if n <= 1 else n * factorial(n - 1)\n";

/// An edit replacing the whole document, as an editor with full sync sends it.
fn whole_text(text: &str) -> TextEdit {
    TextEdit {
        range: None,
        text: text.to_string(),
        encoding: ColumnEncoding::default(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn subscribe_is_advertised_and_unknown_resources_are_refused() {
    let session = start().await;
    let info = session.client.peer_info().expect("initialized");
    let resources = info.capabilities.resources.as_ref().expect("resources");
    assert_eq!(resources.subscribe, Some(true));
    let error = session
        .subscribe("codegraph://nothing")
        .await
        .expect_err("an unknown resource is refused");
    match error {
        ServiceError::McpError(error) => assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND),
        other => panic!("expected -32002, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn editor_edits_notify_subscribed_resources() {
    let mut session = start().await;
    for uri in [STATS, MATH, MODELS, FACTORIAL] {
        session.subscribe(uri).await.unwrap();
    }
    // The editor opens math.py unchanged: a new graph (stats follow every new graph), but the
    // file and its entity render the same.
    session
        .world
        .open_buffer("shop/util/math.py", 1, MATH_SOURCE.to_string());
    assert_eq!(session.notified().await, [STATS]);
    // A function is added that calls factorial: the file, factorial (a new caller) and the stats
    // change; models.py does not.
    let added = format!("{MATH_SOURCE}\n\ndef added():\n    return factorial(3)\n");
    assert!(
        session
            .world
            .edit_buffer("shop/util/math.py", 2, &[whole_text(&added)])
    );
    assert_eq!(
        session.notified().await,
        [FACTORIAL, MATH, STATS],
        "factorial gained a caller"
    );

    // Unsubscribed from the file: only the others are told.
    session.unsubscribe(MATH).await;
    session.unsubscribe(FACTORIAL).await;
    let another = format!("{added}\n\ndef another():\n    pass\n");
    assert!(
        session
            .world
            .edit_buffer("shop/util/math.py", 3, &[whole_text(&another)])
    );
    assert_eq!(session.notified().await, [STATS]);
}

#[tokio::test(flavor = "multi_thread")]
async fn changes_on_disk_notify_subscribed_resources() {
    let mut session = start().await;
    let _watcher = codegraph::world::watch::watch(session.world.clone(), |_| {}).unwrap();
    session.subscribe(MODELS).await.unwrap();
    session
        .subscribe("codegraph://files/shop/extra.py")
        .await
        .unwrap();
    // A file that did not exist appears.
    std::fs::write(
        session.repo.join("shop/extra.py"),
        "def on_disk():\n    return 1\n",
    )
    .unwrap();
    assert_eq!(
        session.notified().await,
        ["codegraph://files/shop/extra.py"]
    );
    // models.py changes on disk.
    let models = session.repo.join("shop/models.py");
    let mut text = std::fs::read_to_string(&models).unwrap();
    text.push_str("\n\ndef from_disk():\n    pass\n");
    std::fs::write(&models, text).unwrap();
    assert_eq!(session.notified().await, [MODELS]);
}
