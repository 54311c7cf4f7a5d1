//! Newline-delimited JSON-RPC (MCP's stdio framing, also used on the attach socket) with the
//! answers rmcp does not give: a line that is not JSON gets `-32700 Parse error` with a null id
//! (rmcp's codec drops it silently); a request whose `params` is not an object (rmcp answers
//! -32600 without the id) or does not fit a standard MCP method (rmcp falls back to a custom
//! request and answers -32601, method not found) gets `-32602 Invalid params` with its id. A
//! line over [`MAX_LINE_BYTES`] is answered -32700 and skipped, not read into memory. The
//! other lines go to rmcp unchanged; rmcp's output and these answers share the writer a whole
//! line at a time.

use std::sync::Arc;

use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::Mutex;

/// The longest line read (the largest request is a few megabytes of a file's text).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The buffer between the filter and rmcp, each way.
const PIPE_BYTES: usize = 1 << 16;

/// The requests a client sends that MCP defines (rmcp 3.9's `ClientRequest`).
const CLIENT_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/directory/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "skills/list",
    "skills/get",
];

/// The error answer to a message that rmcp would not answer rightly, if it is one.
fn answer_for(content: &[u8]) -> Option<serde_json::Value> {
    let error = |id: serde_json::Value, code: i64, message: String| serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let value: serde_json::Value = match serde_json::from_slice(content) {
        Ok(value) => value,
        Err(parse_error) => {
            return Some(error(
                serde_json::Value::Null,
                -32700,
                format!("Parse error: {parse_error}"),
            ));
        }
    };
    let object = value.as_object()?;
    let method = object.get("method")?.as_str()?;
    let id = object.get("id")?.clone();
    if object
        .get("params")
        .is_some_and(|params| !params.is_object() && !params.is_null())
    {
        return Some(error(
            id,
            -32602,
            format!("Invalid params: the params of {method} must be an object"),
        ));
    }
    if CLIENT_METHODS.contains(&method) {
        let parsed = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value.clone());
        if let Ok(rmcp::model::ClientJsonRpcMessage::Request(request)) = parsed
            && matches!(
                request.request,
                rmcp::model::ClientRequest::CustomRequest(_)
            )
        {
            return Some(error(
                id,
                -32602,
                format!("Invalid params: the params do not fit {method}"),
            ));
        }
    }
    None
}

/// Reads up to the end of the current line; `false` at the end of the input.
async fn skip_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> bool {
    loop {
        let (consumed, found) = match reader.fill_buf().await {
            Ok([]) | Err(_) => return false,
            Ok(buffer) => match buffer.iter().position(|&byte| byte == b'\n') {
                Some(at) => (at + 1, true),
                None => (buffer.len(), false),
            },
        };
        reader.consume(consumed);
        if found {
            return true;
        }
    }
}

/// Wraps `reader`/`writer` for `rmcp::ServiceExt::serve`: returns the (input, output) pair that
/// rmcp should use. Two tasks move the lines; they end when either side closes.
pub fn answer_parse_errors<R, W>(reader: R, writer: W) -> (DuplexStream, DuplexStream)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_input, to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp, rmcp_output) = tokio::io::duplex(PIPE_BYTES);
    let writer = Arc::new(Mutex::new(writer));
    tokio::spawn(filter_input(reader, writer.clone(), to_rmcp));
    tokio::spawn(copy_output(from_rmcp, writer));
    (rmcp_input, rmcp_output)
}

/// Moves the client's lines to rmcp, answering on `answers` those rmcp would not answer
/// rightly; rmcp sees the end of its input when the client's ends.
async fn filter_input<R, W>(reader: R, answers: Arc<Mutex<W>>, mut to_rmcp: DuplexStream)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let answer = if line.len() > MAX_LINE_BYTES {
            if !line.ends_with(b"\n") && !skip_line(&mut reader).await {
                break;
            }
            line = Vec::new(); // not kept at its largest
            tracing::warn!("MCP input: a line over {MAX_LINE_BYTES} bytes, skipped");
            Some(
                serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                "message": format!("Parse error: a line over {MAX_LINE_BYTES} bytes")}}),
            )
        } else {
            let content = line.trim_ascii();
            if content.is_empty() {
                continue;
            }
            answer_for(content)
        };
        if let Some(answer) = answer {
            if write_answer(&answers, &answer).await.is_err() {
                break;
            }
            continue;
        }
        let content = line.trim_ascii();
        if to_rmcp.write_all(content).await.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Writes one answer of the filter's own, a whole line at a time.
async fn write_answer<W: AsyncWrite + Unpin>(
    writer: &Mutex<W>,
    answer: &serde_json::Value,
) -> std::io::Result<()> {
    tracing::debug!("answered for rmcp: {answer}");
    let mut writer = writer.lock().await;
    writer.write_all(format!("{answer}\n").as_bytes()).await?;
    writer.flush().await
}

/// Moves rmcp's lines to the client, a whole line at a time; closes the writer at their end.
async fn copy_output<W: AsyncWrite + Unpin>(from_rmcp: DuplexStream, writer: Arc<Mutex<W>>) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let mut writer = writer.lock().await;
        if writer.write_all(&line).await.is_err() || writer.flush().await.is_err() {
            break;
        }
    }
    let _ = writer.lock().await.shutdown().await;
}
