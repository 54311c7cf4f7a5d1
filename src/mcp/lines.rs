//! Newline-delimited JSON-RPC (MCP's stdio framing, also used on the attach socket) with an
//! answer for a line that is not JSON: rmcp's codec drops such a line silently, and JSON-RPC
//! 2.0 wants a `-32700 Parse error` response with a null id. The lines that parse go to rmcp
//! unchanged; rmcp's output and these answers share the writer a whole line at a time.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::Mutex;

/// The buffer between the filter and rmcp, each way.
const PIPE_BYTES: usize = 1 << 16;

/// Wraps `reader`/`writer` for `rmcp::ServiceExt::serve`: returns the (input, output) pair that
/// rmcp should use. Two tasks move the lines; they end when either side closes.
pub fn answer_parse_errors<R, W>(reader: R, writer: W) -> (DuplexStream, DuplexStream)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_input, mut to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp, rmcp_output) = tokio::io::duplex(PIPE_BYTES);
    let writer = Arc::new(Mutex::new(writer));

    let answers = writer.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let content = line.trim_ascii();
            if content.is_empty() {
                continue;
            }
            if let Err(error) = serde_json::from_slice::<serde::de::IgnoredAny>(content) {
                tracing::debug!("a line that is not JSON: {error}");
                let answer = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": null,
                    "error": {"code": -32700, "message": format!("Parse error: {error}")},
                });
                let mut writer = answers.lock().await;
                let written = async {
                    writer.write_all(format!("{answer}\n").as_bytes()).await?;
                    writer.flush().await
                };
                if written.await.is_err() {
                    break;
                }
                continue;
            }
            if to_rmcp.write_all(content).await.is_err() || to_rmcp.write_all(b"\n").await.is_err()
            {
                break;
            }
        }
        // rmcp sees the end of its input.
        let _ = to_rmcp.shutdown().await;
    });

    tokio::spawn(async move {
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
    });

    (rmcp_input, rmcp_output)
}
