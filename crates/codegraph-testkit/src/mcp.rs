//! An MCP client: rmcp's, over any transport it takes (an in-memory pipe, a child process,
//! Streamable HTTP), with the calls the tests and benchmarks make written once: a tool call and
//! its structured answer or its error, a resource's contents, a prompt's text, and the
//! `notifications/resources/updated` the server sends.

use std::ops::Deref;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, GetPromptRequestParams,
    ReadResourceRequestParams, ResourceContents, ResourceUpdatedNotificationParam,
};
use rmcp::service::{
    ClientInitializeError, NotificationContext, QuitReason, RoleClient, RunningService,
    ServiceError,
};
use rmcp::transport::IntoTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;

/// The client side of a session: announces `config`, forwards every resource update.
#[derive(Clone)]
pub struct Listener {
    config: ClientConfig,
    updated: mpsc::UnboundedSender<String>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updated.send(params.uri);
    }
}

/// A running MCP session, client side. It derefs to rmcp's `RunningService` for whatever the
/// methods below do not cover (listing tools, completions, subscriptions, `peer_info`).
pub struct McpClient {
    service: RunningService<RoleClient, Listener>,
    updated: mpsc::UnboundedReceiver<String>,
}

impl Deref for McpClient {
    type Target = RunningService<RoleClient, Listener>;

    fn deref(&self) -> &Self::Target {
        &self.service
    }
}

impl McpClient {
    /// The handshake over `transport`, announcing `config` (`ClientConfig::default()`: rmcp's
    /// latest protocol version).
    pub async fn connect<T, E, A>(
        transport: T,
        config: ClientConfig,
    ) -> Result<McpClient, ClientInitializeError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let (sender, updated) = mpsc::unbounded_channel();
        let listener = Listener {
            config,
            updated: sender,
        };
        let service = listener.serve(transport).await?;
        Ok(McpClient { service, updated })
    }

    /// Ends the session (rmcp's `cancel`, which takes the service by value).
    pub async fn cancel(self) -> Result<QuitReason, tokio::task::JoinError> {
        self.service.cancel().await
    }

    /// Calls `tool` with `arguments` (a JSON object).
    pub async fn try_call(
        &self,
        tool: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ServiceError> {
        let arguments = match arguments {
            Value::Object(map) => map,
            other => panic!("tool arguments are an object, not {other}"),
        };
        self.service
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
            .await
    }

    /// [`McpClient::try_call`] for a call that reaches the tool (its result may be an error).
    pub async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        self.try_call(tool, arguments)
            .await
            .unwrap_or_else(|error| panic!("{tool}: {error}"))
    }

    /// A successful call's structured content.
    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments).await;
        assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
        result.structured_content.expect("structured content")
    }

    /// A failed call's text, parsed as the JSON object it is.
    pub async fn error(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments).await;
        assert_eq!(
            result.is_error,
            Some(true),
            "{tool} should fail: {result:?}"
        );
        let text = &result.content[0].as_text().expect("text").text;
        serde_json::from_str(text).expect("error text is JSON")
    }

    /// The first contents of a resource, as JSON (`uri`, `mimeType`, `text` or `blob`).
    pub async fn read(&self, uri: &str) -> Result<Value, ServiceError> {
        let result = self
            .service
            .read_resource(ReadResourceRequestParams::new(uri))
            .await?;
        let contents = serde_json::to_value(&result.contents).expect("contents serialize");
        Ok(contents[0].clone())
    }

    /// The text of a resource's first contents.
    pub async fn read_text(&self, uri: &str) -> String {
        let result = self
            .service
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_or_else(|error| panic!("{uri}: {error}"));
        match &result.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("{uri} is not text: {other:?}"),
        }
    }

    /// A prompt's messages, their texts joined.
    pub async fn prompt(&self, name: &str, arguments: Value) -> String {
        let arguments = match arguments {
            Value::Object(map) => map,
            other => panic!("prompt arguments are an object, not {other}"),
        };
        let result = self
            .service
            .get_prompt(GetPromptRequestParams::new(name).with_arguments(arguments))
            .await
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let messages = serde_json::to_value(&result.messages).expect("messages serialize");
        messages
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|message| message["content"]["text"].as_str())
            .collect()
    }

    /// The resource URIs updated: the first within `first`, then each until none comes for half
    /// a second; sorted, each once.
    pub async fn updated(&mut self, first: Duration) -> Vec<String> {
        let mut seen = Vec::new();
        let mut wait = first;
        while let Ok(Some(uri)) = tokio::time::timeout(wait, self.updated.recv()).await {
            seen.push(uri);
            wait = Duration::from_millis(500);
        }
        seen.sort();
        seen.dedup();
        seen
    }
}
