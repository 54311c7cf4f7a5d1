//! MCP over HTTP on one axum router: Streamable HTTP at `/mcp` (rmcp's `StreamableHttpService`)
//! and the legacy HTTP+SSE transport of protocol 2024-11-05 (`GET /sse` opens an event stream
//! whose first `endpoint` event names `/messages?sessionId=...`; `POST /messages` answers 202
//! and the response arrives on the stream), built on rmcp's sink/stream transport because rmcp
//! 3.x no longer ships an SSE server.
//!
//! Every request, on every route, first passes [`guard`]: exactly one `Host` header, naming a
//! loopback host with the bound port (or a host the operator allowed), as must the authority of
//! a request target in absolute form (`POST http://host:port/mcp`), and at most one `Origin`,
//! which when present must be a loopback origin with that port (DNS-rebinding protection),
//! else 403; then, when the run has tokens, an `Authorization: Bearer` token (the
//! scheme in any case), else 401. The token's [`Scope`] travels in the request's extensions to
//! the tools (rmcp hands the HTTP request parts to every handler). `POST /messages` also wants
//! a JSON content type (415 otherwise), so that a web page cannot post to it without a CORS
//! preflight, which this server never grants. `DELETE /mcp` of a session that does not exist
//! (or no longer does) answers 404; a `POST /mcp` body over 4 MiB gets 413, one that is not
//! JSON 400. On shutdown the legacy event streams end, so open clients do not hold it up.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::{SinkExt, Stream, StreamExt};
use parking_lot::Mutex;
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::CodegraphMcp;

/// The largest request body accepted on `/messages` and `/mcp`.
const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The bearer tokens of one run. `read_only` may call every tool but `execute_shell_command`;
/// `shell` may call that one too (present only when the shell is enabled).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tokens {
    pub read_only: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
}

impl Tokens {
    /// Fresh random tokens up to the `widest` scope: a shell token only for [`Scope::Shell`]
    /// (when the shell is enabled).
    pub fn generate(widest: Scope) -> anyhow::Result<Tokens> {
        Ok(Tokens {
            read_only: random_hex(32)?,
            shell: match widest {
                Scope::Shell => Some(random_hex(32)?),
                Scope::ReadOnly => None,
            },
        })
    }
}

/// `bytes` random bytes from the operating system, as hex.
pub fn random_hex(bytes: usize) -> anyhow::Result<String> {
    use std::io::Read;
    let mut buffer = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buffer)?;
    Ok(buffer.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// What an HTTP caller may do, put in the request's extensions by [`guard`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every tool but `execute_shell_command`.
    ReadOnly,
    /// Every tool.
    Shell,
}

impl Scope {
    /// The scope of an MCP request that came over HTTP; `None` for other transports (stdio and
    /// the private unix socket, where the caller is the user).
    pub fn of_request(extensions: &rmcp::model::Extensions) -> Option<Scope> {
        let parts = extensions.get::<axum::http::request::Parts>()?;
        Some(
            parts
                .extensions
                .get::<Scope>()
                .copied()
                .unwrap_or(Scope::ReadOnly),
        )
    }
}

/// Where and how to serve.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to bind (127.0.0.1 by default).
    pub host: std::net::IpAddr,
    /// 0 picks a free port.
    pub port: u16,
    /// `None`: no token is asked for (only allowed on loopback).
    pub tokens: Option<Tokens>,
    /// Host names accepted in `Host` besides the loopback ones (for a server bound beyond
    /// loopback).
    pub extra_hosts: Vec<String>,
}

/// What the guard checks, fixed once the port is known.
struct Policy {
    hosts: Vec<String>,
    origins: Vec<String>,
    tokens: Option<Tokens>,
}

impl Policy {
    fn new(address: SocketAddr, options: &HttpOptions) -> Policy {
        let port = address.port();
        let mut names: Vec<String> = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "[::1]".to_string(),
        ];
        if !options.host.is_unspecified() && !options.host.is_loopback() {
            names.push(match options.host {
                std::net::IpAddr::V6(v6) => format!("[{v6}]"),
                std::net::IpAddr::V4(v4) => v4.to_string(),
            });
        }
        names.extend(options.extra_hosts.iter().cloned());
        let hosts = names.iter().map(|name| format!("{name}:{port}")).collect();
        let origins = names
            .iter()
            .flat_map(|name| {
                [
                    format!("http://{name}:{port}"),
                    format!("https://{name}:{port}"),
                ]
            })
            .collect();
        Policy {
            hosts,
            origins,
            tokens: options.tokens.clone(),
        }
    }

    fn host_allowed(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.hosts.contains(&host)
    }

    /// Whether every host the request names is allowed; `Err` with the first one that is not
    /// (`None`: it names none). A request target in absolute form names the host an origin
    /// server goes by (RFC 9112 §3.2.2), so its authority is checked as the `Host` header is,
    /// and the `Host` header too when both are there (a client sends the same in both). The
    /// authority is compared whole: one with user information never matches.
    fn hosts_allowed(&self, request: &Request) -> Result<(), Option<String>> {
        let header = request
            .headers()
            .get(header::HOST)
            .map(|value| value.to_str().map(str::to_string).ok());
        let target = request
            .uri()
            .authority()
            .map(|authority| Some(authority.as_str().to_string()));
        if header.is_none() && target.is_none() {
            return Err(None);
        }
        for host in [target, header].into_iter().flatten() {
            if !host.as_deref().is_some_and(|host| self.host_allowed(host)) {
                return Err(host);
            }
        }
        Ok(())
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.origins.contains(&origin)
    }

    /// The scope the request's token grants; `Err` with the status to answer.
    fn scope(&self, headers: &HeaderMap) -> Result<Scope, &'static str> {
        let Some(tokens) = &self.tokens else {
            return Ok(Scope::ReadOnly);
        };
        // The scheme is case-insensitive (RFC 9110 §11.1).
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim_start().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .ok_or("missing bearer token")?
            .1
            .trim();
        if let Some(shell) = &tokens.shell
            && same_secret(presented, shell)
        {
            return Ok(Scope::Shell);
        }
        if same_secret(presented, &tokens.read_only) {
            return Ok(Scope::ReadOnly);
        }
        Err("invalid bearer token")
    }
}

/// Compares secrets without stopping at the first difference.
fn same_secret(left: &str, right: &str) -> bool {
    left.len() == right.len()
        && left
            .bytes()
            .zip(right.bytes())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

fn refusal(status: StatusCode, message: &str) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::json!({ "error": message }).to_string(),
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// DNS-rebinding protection and authentication, before any route.
async fn guard(State(policy): State<Arc<Policy>>, mut request: Request, next: Next) -> Response {
    // Two of either would let one be checked and the other be used by whatever reads it next.
    for (name, what) in [(header::HOST, "Host"), (header::ORIGIN, "Origin")] {
        if request.headers().get_all(&name).iter().count() > 1 {
            tracing::warn!("refused a request with more than one {what} header");
            return refusal(
                StatusCode::FORBIDDEN,
                &format!("Forbidden: more than one {what} header"),
            );
        }
    }
    if let Err(host) = policy.hosts_allowed(&request) {
        tracing::warn!("refused a request for host {host:?}");
        return refusal(StatusCode::FORBIDDEN, "Forbidden: Host not allowed");
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|origin| policy.origin_allowed(origin));
        if !allowed {
            tracing::warn!("refused a request from origin {origin:?}");
            return refusal(StatusCode::FORBIDDEN, "Forbidden: Origin not allowed");
        }
    }
    match policy.scope(request.headers()) {
        Ok(scope) => {
            request.extensions_mut().insert(scope);
            next.run(request).await
        }
        Err(message) => refusal(StatusCode::UNAUTHORIZED, message),
    }
}

/// The legacy SSE sessions: session id → the channel into that session's MCP service.
#[derive(Default)]
struct SseSessions {
    senders: Mutex<HashMap<String, futures::channel::mpsc::Sender<ClientJsonRpcMessage>>>,
}

struct SseApp {
    server: CodegraphMcp,
    sessions: SseSessions,
    /// Cancelled on shutdown: every event stream ends, so the server does not wait for clients
    /// to disconnect.
    shutdown: CancellationToken,
}

/// Removes a session when its event stream goes away (the client disconnected).
struct SessionGuard {
    app: Arc<SseApp>,
    id: String,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.app.sessions.senders.lock().remove(&self.id);
    }
}

async fn sse_connect(
    State(app): State<Arc<SseApp>>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Response> {
    let id = random_hex(16)
        .map_err(|error| refusal(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()))?;
    let (to_server, from_client) = futures::channel::mpsc::channel::<ClientJsonRpcMessage>(64);
    let (to_client, from_server) = futures::channel::mpsc::channel::<ServerJsonRpcMessage>(64);
    app.sessions.senders.lock().insert(id.clone(), to_server);
    let server = app.server.session();
    tokio::spawn(async move {
        match server.serve((to_client, from_client)).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::debug!("SSE session ended early: {error}"),
        }
    });
    let endpoint = Event::default()
        .event("endpoint")
        .data(format!("/messages?sessionId={id}"));
    let shutdown = app.shutdown.clone();
    let session = SessionGuard { app, id };
    let messages = from_server
        .take_until(shutdown.cancelled_owned())
        .map(move |message| {
            let _alive = &session;
            Ok(Event::default()
                .event("message")
                .data(serde_json::to_string(&message).unwrap_or_default()))
        });
    Ok(
        Sse::new(futures::stream::once(async { Ok(endpoint) }).chain(messages))
            .keep_alive(KeepAlive::default()),
    )
}

#[derive(Deserialize)]
struct SessionQuery {
    #[serde(rename = "sessionId")]
    session_id: String,
}

async fn sse_message(
    State(app): State<Arc<SseApp>>,
    Query(query): Query<SessionQuery>,
    request: Request,
) -> Response {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        );
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => bytes,
        Err(error) => return refusal(StatusCode::BAD_REQUEST, &error.to_string()),
    };
    let mut message: ClientJsonRpcMessage = match serde_json::from_slice(&bytes) {
        Ok(message) => message,
        Err(error) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                &format!("not a JSON-RPC message: {error}"),
            );
        }
    };
    let Some(mut sender) = app.sessions.senders.lock().get(&query.session_id).cloned() else {
        return refusal(StatusCode::NOT_FOUND, "no such session");
    };
    // As the Streamable HTTP service does: the handlers see the HTTP request (and its scope).
    match &mut message {
        ClientJsonRpcMessage::Request(request) => {
            request.request.extensions_mut().insert(parts);
        }
        ClientJsonRpcMessage::Notification(notification) => {
            notification.notification.extensions_mut().insert(parts);
        }
        _ => {}
    }
    if sender.send(message).await.is_err() {
        return refusal(StatusCode::GONE, "the session has ended");
    }
    StatusCode::ACCEPTED.into_response()
}

/// In front of rmcp's service at `/mcp`: `DELETE` of a session that is not open answers 404
/// (rmcp answers 202 whatever the id); a `POST` body is read up to [`MAX_MESSAGE_BYTES`] (413
/// beyond) and must be JSON (400 with a JSON-RPC parse error otherwise; rmcp answered 415).
async fn mcp_edge(
    State(sessions): State<Arc<LocalSessionManager>>,
    request: Request,
    next: Next,
) -> Response {
    use rmcp::transport::streamable_http_server::session::SessionManager;
    if request.method() == axum::http::Method::POST {
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
            Ok(bytes) => bytes,
            Err(_) => {
                return refusal(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("the body is over {MAX_MESSAGE_BYTES} bytes"),
                );
            }
        };
        if let Err(error) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
            let answer = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32700, "message": format!("Parse error: {error}")},
            });
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                answer.to_string(),
            )
                .into_response();
        }
        return next
            .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
            .await;
    }
    if request.method() == axum::http::Method::DELETE
        && let Some(id) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        && !sessions
            .has_session(&Arc::<str>::from(id))
            .await
            .unwrap_or(false)
    {
        return refusal(StatusCode::NOT_FOUND, "no such session");
    }
    next.run(request).await
}

/// The router for a server bound at `address`.
pub fn router(
    server: CodegraphMcp,
    address: SocketAddr,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> axum::Router {
    let policy = Arc::new(Policy::new(address, options));
    let factory_server = server.clone();
    // The guard checks Host and Origin with the port; rmcp's own checks would only repeat it.
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_cancellation_token(shutdown.clone());
    let sessions = Arc::new(LocalSessionManager::default());
    let streamable = StreamableHttpService::new(
        move || Ok(factory_server.session()),
        sessions.clone(),
        config,
    );
    let streamable = axum::Router::new()
        .fallback_service(streamable)
        .layer(axum::middleware::from_fn_with_state(sessions, mcp_edge));
    let sse = Arc::new(SseApp {
        server,
        sessions: SseSessions::default(),
        shutdown: shutdown.clone(),
    });
    axum::Router::new()
        .route("/sse", get(sse_connect))
        .route("/messages", post(sse_message))
        .with_state(sse)
        .nest_service("/mcp", streamable)
        .layer(axum::middleware::from_fn_with_state(policy, guard))
}

/// Binds the listener first, so that the real port (for a port of 0) can be published before
/// serving.
pub async fn bind(options: &HttpOptions) -> anyhow::Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind((options.host, options.port)).await?;
    Ok(listener)
}

/// Serves until `shutdown` is cancelled.
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: CodegraphMcp,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let address = listener.local_addr()?;
    let app = router(server, address, options, shutdown.clone());
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await?;
    Ok(())
}
