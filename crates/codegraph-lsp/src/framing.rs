//! The language server's transport. tower-lsp-server's own (`Server`) ends the session on the
//! first message it cannot frame or decode, where an editor's server should answer the error and
//! keep serving, and keeps a buffer the size of the largest message seen in each direction. So
//! the bytes from the client are framed here ([`serve`]): each malformed message is
//! answered (`-32700 Parse error` for bad framing, invalid JSON or UTF-8; `-32600 Invalid
//! Request` for a message that is not one JSON-RPC object, a batch included, or whose id is not
//! an integer or a string), and the reader resynchronises on the next `Content-Length:`
//! header, even one that follows garbage on the same line. A `Content-Length` over
//! [`MAX_MESSAGE_BYTES`] is answered (`-32600`) and its body neither read into memory nor
//! trusted to be that long: the input is discarded up to the next `Content-Length:` header
//! ([`skip_to_header`], a scan that holds nothing but the reader's buffer), where reading
//! resumes. Only well-formed messages reach tower-lsp-server's `LspService`, decoded from the
//! buffer they were read into; its answers, its own requests and these error answers share
//! stdout a whole message at a time.

use std::sync::Arc;
use std::task::Poll;

use serde_json::value::RawValue;

use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tower_lsp_server::ClientSocket;
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_service::Service;

/// The largest message accepted (a whole workspace's worth of text in one `didOpen` is far less).
pub const MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;
/// The longest header line read; a longer line is garbage.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// One header block's outcome.
enum Header {
    Length(u64),
    Invalid(String),
    End,
}

/// Reads one line (up to `\n`), at most [`MAX_HEADER_LINE`] bytes kept; `None` at the end.
async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let read = (&mut *reader)
        .take(MAX_HEADER_LINE as u64)
        .read_until(b'\n', &mut line)
        .await
        .ok()?;
    if read == 0 {
        return None;
    }
    if !line.ends_with(b"\n") && line.len() >= MAX_HEADER_LINE {
        // Too long: drop the rest of it.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let read = (&mut *reader)
                .take(MAX_HEADER_LINE as u64)
                .read_until(b'\n', &mut rest)
                .await
                .ok()?;
            if read == 0 || rest.ends_with(b"\n") {
                break;
            }
        }
        return Some(b"\x00 an overlong header line".to_vec());
    }
    Some(line)
}

/// The header that frames every message, as written; matched ignoring case.
const CONTENT_LENGTH: &[u8] = b"Content-Length:";

/// Where `Content-Length:` starts in `line`, ignoring case.
fn content_length_at(line: &[u8]) -> Option<usize> {
    line.windows(CONTENT_LENGTH.len())
        .position(|window| window.eq_ignore_ascii_case(CONTENT_LENGTH))
}

/// Discards the input up to and including the next `Content-Length:` (in any case, wherever it
/// is: at the start of a line, after garbage, or straight after a body without a newline),
/// keeping nothing but the reader's own buffer; `false` at the end of the input.
async fn skip_to_header<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> bool {
    // How much of the name the last bytes matched. The name's first letter appears nowhere else
    // in it, so a mismatch can only restart a match at that letter.
    let mut matched = 0;
    loop {
        let buffer = match reader.fill_buf().await {
            Ok(buffer) if !buffer.is_empty() => buffer,
            _ => return false,
        };
        let mut used = buffer.len();
        for (at, byte) in buffer.iter().enumerate() {
            matched = if byte.eq_ignore_ascii_case(&CONTENT_LENGTH[matched]) {
                matched + 1
            } else {
                usize::from(byte.eq_ignore_ascii_case(&CONTENT_LENGTH[0]))
            };
            if matched == CONTENT_LENGTH.len() {
                used = at + 1;
                break;
            }
        }
        reader.consume(used);
        if matched == CONTENT_LENGTH.len() {
            return true;
        }
    }
}

/// Reads a header block. Garbage before a `Content-Length:` (on its own lines or on the same
/// line) makes the block invalid only if no header follows: the block restarts at the header.
/// `resumed`: [`skip_to_header`] has just consumed a `Content-Length:`, which the block's
/// first line starts with.
async fn read_header<R: AsyncRead + Unpin>(reader: &mut BufReader<R>, resumed: bool) -> Header {
    let mut length: Option<Result<u64, String>> = None;
    let mut problem: Option<String> = None;
    let mut started = false;
    let mut resumed = resumed;
    loop {
        let Some(mut line) = read_line(reader).await else {
            return Header::End;
        };
        if std::mem::take(&mut resumed) {
            line.splice(..0, CONTENT_LENGTH.iter().copied());
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if let Some(at) = content_length_at(&line)
            && (at > 0 || problem.is_some())
        {
            // Resynchronise: what came before this header was garbage.
            line.drain(..at);
            length = None;
            problem = None;
            started = true;
        }
        if line.is_empty() {
            if !started {
                continue; // blank lines between messages
            }
            break;
        }
        started = true;
        let Some(colon) = line.iter().position(|&byte| byte == b':') else {
            problem.get_or_insert_with(|| "a header line without a colon".to_string());
            continue;
        };
        let (name, value) = line.split_at(colon);
        if name.eq_ignore_ascii_case(b"content-length") {
            let value = String::from_utf8_lossy(&value[1..]).trim().to_string();
            length = Some(
                value
                    .parse::<u64>()
                    .map_err(|_| format!("Content-Length {value:?} is not a byte count")),
            );
        }
    }
    match (problem, length) {
        (Some(problem), _) => Header::Invalid(problem),
        (None, None) => Header::Invalid("no Content-Length header".to_string()),
        (None, Some(Err(problem))) => Header::Invalid(problem),
        (None, Some(Ok(length))) => Header::Length(length),
    }
}

/// What [`check_body`] reads of a message that is one JSON object: its id and method as
/// written, every other member parsed (the syntax checked) but not kept. A `didOpen` of a big
/// file then costs no second copy of its text: its only copies are the framed body and the
/// server's own parse.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
}

/// A member that is present, `null` included (an `Option` field alone reads `null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// The error answer to a message that does not reach the server: its id is unknown, so `null`.
fn error(code: i64, message: String) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
}

/// Whether a well-framed body is a request or a notification (`true`: it has a method) or a
/// response (`false`), or the answer it needs instead of reaching the server.
fn check_body(body: &[u8]) -> Result<bool, serde_json::Value> {
    // An object, the usual case, is checked without building its value; anything else (a
    // batch, a scalar: answered as an invalid request, and a struct would accept an array)
    // takes the general path below.
    if body.trim_ascii_start().starts_with(b"{") {
        let envelope: Envelope = match serde_json::from_slice(body) {
            Ok(envelope) => envelope,
            Err(parse_error) if parse_error.is_data() => {
                return Err(error(-32600, format!("Invalid Request: {parse_error}")));
            }
            Err(parse_error) => return Err(error(-32700, format!("Parse error: {parse_error}"))),
        };
        // A response's id may be null: the client's error answer to a message it could not read.
        if let Some(id) = envelope.id.map(RawValue::get)
            && !id.starts_with('"')
            && id.parse::<i64>().is_err()
            && !(id == "null" && envelope.method.is_none())
        {
            return Err(error(
                -32600,
                format!("Invalid Request: the id {id} is not an integer or a string"),
            ));
        }
        if envelope
            .method
            .is_some_and(|method| !method.get().starts_with('"'))
        {
            return Err(error(
                -32600,
                "Invalid Request: the method is not a string".to_string(),
            ));
        }
        return Ok(envelope.method.is_some());
    }
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(parse_error) => return Err(error(-32700, format!("Parse error: {parse_error}"))),
    };
    let Some(object) = value.as_object() else {
        return Err(error(
            -32600,
            "Invalid Request: a message is one JSON object (no batches)".to_string(),
        ));
    };
    match object.get("id") {
        None | Some(serde_json::Value::String(_)) => {}
        Some(serde_json::Value::Number(number)) if number.is_i64() => {}
        Some(other) => {
            return Err(error(
                -32600,
                format!("Invalid Request: the id {other} is not an integer or a string"),
            ));
        }
    }
    if object
        .get("method")
        .is_some_and(|method| !method.is_string())
    {
        return Err(error(
            -32600,
            "Invalid Request: the method is not a string".to_string(),
        ));
    }
    Ok(object.contains_key("method"))
}

async fn write_framed<W: AsyncWrite + Unpin>(
    writer: &Mutex<W>,
    body: &[u8],
) -> std::io::Result<()> {
    let mut writer = writer.lock().await;
    writer
        .write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    writer.write_all(body).await?;
    writer.flush().await
}

/// Writes one message, serialised, as one frame. A message that does not serialise is logged
/// and skipped: only a failed write is an error (the client is gone).
async fn send<W: AsyncWrite + Unpin, M: serde::Serialize>(
    writer: &Mutex<W>,
    message: &M,
) -> std::io::Result<()> {
    match serde_json::to_vec(message) {
        Ok(body) => write_framed(writer, &body).await,
        Err(error) => {
            tracing::error!("LSP output: a message that does not serialise, skipped: {error}");
            Ok(())
        }
    }
}

/// A well-formed message from the client.
pub enum Incoming {
    /// A request or a notification: it has a method.
    Request(Request),
    /// An answer to one of the server's own requests.
    Response(Response),
}

/// The message a framed body holds, or the error answer it gets instead of reaching the server.
fn decode(body: &[u8]) -> Result<Incoming, serde_json::Value> {
    let has_method = check_body(body)?;
    let invalid = |problem: serde_json::Error| error(-32600, format!("Invalid Request: {problem}"));
    if has_method {
        serde_json::from_slice(body)
            .map(Incoming::Request)
            .map_err(invalid)
    } else {
        serde_json::from_slice(body)
            .map(Incoming::Response)
            .map_err(invalid)
    }
}

/// Reads the client's messages until the end of the input or `deliver` returning false: each
/// well-formed message goes to `deliver`, decoded, in order; each malformed one is answered on
/// `writer` (see the module doc).
pub async fn read_messages<R, W>(
    reader: R,
    writer: &Mutex<W>,
    mut deliver: impl AsyncFnMut(Incoming) -> bool,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(reader);
    // Whether the next header block starts after a `Content-Length:` already consumed.
    let mut resumed = false;
    loop {
        let answer = match read_header(&mut reader, std::mem::take(&mut resumed)).await {
            Header::End => break,
            Header::Invalid(problem) => {
                tracing::warn!("LSP input: {problem}");
                error(-32700, format!("Parse error: {problem}"))
            }
            Header::Length(length) if length > MAX_MESSAGE_BYTES => {
                tracing::warn!(
                    "LSP input: a Content-Length of {length} bytes is over the {MAX_MESSAGE_BYTES}-byte cap; skipped to the next Content-Length header"
                );
                let answer = error(
                    -32600,
                    format!(
                        "Invalid Request: a message of {length} bytes is over the {MAX_MESSAGE_BYTES}-byte cap"
                    ),
                );
                if send(writer, &answer).await.is_err() || !skip_to_header(&mut reader).await {
                    break;
                }
                resumed = true;
                continue;
            }
            Header::Length(length) => {
                // The body is read into a buffer of its own length, freed once decoded.
                let mut body = vec![0; length as usize];
                if reader.read_exact(&mut body).await.is_err() {
                    break;
                }
                let decoded = decode(&body);
                drop(body);
                match decoded {
                    Ok(incoming) => {
                        if deliver(incoming).await {
                            continue;
                        }
                        break;
                    }
                    Err(answer) => {
                        tracing::warn!("LSP input: {answer}");
                        answer
                    }
                }
            }
        };
        if send(writer, &answer).await.is_err() {
            break;
        }
    }
}

/// How many requests are answered at once (as tower-lsp-server's own transport does); a
/// `$/cancelRequest` is applied as it is read, never waiting for a place.
const CONCURRENT_REQUESTS: usize = 4;
/// How many read requests may wait for one of those places before the input is read further.
const QUEUED_REQUESTS: usize = 100;
/// How long the answers still running when the input ends (or after `exit`) are waited for.
const LAST_ANSWERS: std::time::Duration = std::time::Duration::from_secs(1);
/// How long the reader waits before asking a service that was not ready again.
const NOT_READY_PAUSE: std::time::Duration = std::time::Duration::from_millis(1);

/// Serves `service` over the client's streams until `exit` or the end of the input, in place of
/// tower-lsp-server's `Server` (see the module doc): the client's messages from
/// [`read_messages`], up to [`CONCURRENT_REQUESTS`] requests answered at once, the server's own
/// requests and notifications from `socket`, every message written as one frame.
pub async fn serve<R, W, S>(reader: R, writer: W, mut service: S, socket: ClientSocket)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    S: Service<Request, Response = Option<Response>>,
    S::Error: std::fmt::Display + Send,
    S::Future: Send + 'static,
{
    let writer = Arc::new(Mutex::new(writer));
    let (to_client, mut from_client) = socket.split();
    let (stop_requests, requests) = spawn_server_messages(writer.clone(), to_client);
    let (mut queue, queued) = futures::channel::mpsc::channel::<S::Future>(QUEUED_REQUESTS);
    let answers = spawn_answers(writer.clone(), queued);
    read_messages(reader, &writer, async |incoming| match incoming {
        Incoming::Response(response) => from_client.send(response).await.is_ok(),
        Incoming::Request(request) => deliver(&mut service, &mut queue, request).await,
    })
    .await;
    // The requests read are answered (for a while), then the server's own messages stop.
    drop(queue);
    let _ = tokio::time::timeout(LAST_ANSWERS, answers).await;
    let _ = stop_requests.send(());
    let _ = tokio::time::timeout(LAST_ANSWERS, requests).await;
}

/// Writes the server's own requests and notifications (diagnostics, messages, progress) until
/// the returned sender says stop: between two messages, never inside one's frame.
fn spawn_server_messages<W>(
    writer: Arc<Mutex<W>>,
    mut to_client: impl futures::Stream<Item = Request> + Unpin + Send + 'static,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        loop {
            let request = tokio::select! {
                biased;
                request = to_client.next() => request,
                _ = &mut stopped => None,
            };
            let Some(request) = request else { break };
            if send(&writer, &request).await.is_err() {
                break;
            }
        }
    });
    (stop, task)
}

/// Answers the queued requests, [`CONCURRENT_REQUESTS`] at once, each answer written as it
/// comes.
fn spawn_answers<W, F, E>(
    writer: Arc<Mutex<W>>,
    queued: futures::channel::mpsc::Receiver<F>,
) -> tokio::task::JoinHandle<()>
where
    W: AsyncWrite + Unpin + Send + 'static,
    F: std::future::Future<Output = Result<Option<Response>, E>> + Send + 'static,
    E: std::fmt::Display + Send,
{
    tokio::spawn(async move {
        let mut answered = queued.buffer_unordered(CONCURRENT_REQUESTS);
        while let Some(answer) = answered.next().await {
            match answer {
                Ok(Some(response)) => {
                    if send(&writer, &response).await.is_err() {
                        break;
                    }
                }
                Ok(None) => {}
                Err(error) => tracing::error!("LSP: {error}"),
            }
        }
    })
}

/// Hands a client request to the service: a `$/cancelRequest` at once, the others to the queue
/// of answers. `false` stops reading (`exit`, or the service gone).
async fn deliver<S>(
    service: &mut S,
    queue: &mut futures::channel::mpsc::Sender<S::Future>,
    request: Request,
) -> bool
where
    S: Service<Request, Response = Option<Response>>,
    S::Error: std::fmt::Display + Send,
    S::Future: Send + 'static,
{
    if !until_ready(service).await {
        return false;
    }
    // A cancellation reaches its request at once, even while every place is taken by running
    // requests (its handler only marks the request cancelled).
    if request.method() == "$/cancelRequest" {
        if let Err(error) = service.call(request).await {
            tracing::error!("LSP: {error}");
        }
        return true;
    }
    // The server exits at `exit`, whether or not the client closes its end.
    let exit = request.method() == "exit";
    queue.send(service.call(request)).await.is_ok() && !exit
}

/// Waits until the service is ready; `false` when it failed. Asked again after a pause while not
/// ready: a service may answer `Pending` without registering a waker, which its own transport
/// gets away with by polling the reader again whenever an answer progresses on the same task;
/// here answers run on another.
async fn until_ready<S>(service: &mut S) -> bool
where
    S: Service<Request>,
    S::Error: std::fmt::Display,
{
    loop {
        let ready =
            futures::future::poll_fn(|context| Poll::Ready(service.poll_ready(context))).await;
        match ready {
            Poll::Ready(Ok(())) => return true,
            Poll::Ready(Err(error)) => {
                tracing::error!("LSP: {error}");
                return false;
            }
            Poll::Pending => tokio::time::sleep(NOT_READY_PAUSE).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Incoming, check_body, read_messages};
    use tower_lsp_server::jsonrpc::Id;

    /// The error code and message `check_body` answers for a body, `None` when it passes.
    fn verdict(body: &str) -> Option<(i64, String)> {
        check_body(body.as_bytes()).err().map(|answer| {
            let error = &answer["error"];
            (
                error["code"].as_i64().unwrap(),
                error["message"].as_str().unwrap().to_string(),
            )
        })
    }

    #[test]
    fn a_message_is_checked_without_building_its_value() {
        let invalid = |message: &str| Some((-32600, format!("Invalid Request: {message}")));
        // Requests and notifications pass, whatever else they hold.
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/didOpen","params":{"textDocument":{"text":"def f():\n    \"\\u00e9\"\n"}}}"#,
            r#" {"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"abc","method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":-3,"result":null}"#,
            // A client's error answer to a message it could not read.
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        ] {
            assert_eq!(verdict(body), None, "{body}");
        }
        // Ids that are neither an integer nor a string, `null` included.
        assert_eq!(
            verdict(r#"{"id":null,"method":"m"}"#),
            invalid("the id null is not an integer or a string")
        );
        assert_eq!(
            verdict(r#"{"id":2.5,"method":"m"}"#),
            invalid("the id 2.5 is not an integer or a string")
        );
        assert_eq!(
            verdict(r#"{"id":{"a":1},"method":"m"}"#),
            invalid(r#"the id {"a":1} is not an integer or a string"#)
        );
        assert_eq!(
            verdict(r#"{"id":1,"method":["m"]}"#),
            invalid("the method is not a string")
        );
        // Not one object: a batch and a scalar are invalid requests, broken JSON a parse error.
        let not_one_object = invalid("a message is one JSON object (no batches)");
        assert_eq!(verdict(r#"[1,"m"]"#), not_one_object);
        assert_eq!(verdict("7"), not_one_object);
        for broken in [r#"{"id":1,"method":"m""#, r#"{"id":1} trailing"#, "{"] {
            let (code, message) = verdict(broken).expect(broken);
            assert_eq!(code, -32700, "{broken}");
            assert!(message.starts_with("Parse error: "), "{message}");
        }
    }

    /// Lengths over the cap, 2^40 and `u64::MAX`, followed by bodies that are not that long: each
    /// is answered, nothing of its size is read or allocated, and reading resumes at the next
    /// `Content-Length:` header (one on a line of its own after the body's lines, one straight
    /// after the body on its line, in another case), whose request is delivered.
    #[tokio::test]
    async fn a_length_over_the_cap_is_answered_and_skipped_to_the_next_header() {
        let request = |id: u32| {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        };
        let input = format!(
            "Content-Length: 1099511627776\r\n\r\n{{\"a\":\n[1,\n2]}}\r\n{}\
             Content-Length: 18446744073709551615\r\n\r\n{{\"id\":3,",
            request(1)
        ) + &request(2).replacen("Content-Length:", "content-length:", 1);
        let output = tokio::sync::Mutex::new(Vec::new());
        let mut delivered = Vec::new();
        read_messages(input.as_bytes(), &output, async |incoming| {
            if let Incoming::Request(request) = incoming {
                delivered.push(request.id().cloned());
            }
            true
        })
        .await;
        assert_eq!(delivered, [Some(Id::Number(1)), Some(Id::Number(2))]);
        let output = String::from_utf8(output.into_inner()).unwrap();
        let answers: Vec<serde_json::Value> = output
            .split("Content-Length: ")
            .skip(1)
            .map(|frame| serde_json::from_str(frame.split_once("\r\n\r\n").unwrap().1).unwrap())
            .collect();
        let over_the_cap = |length: &str| {
            serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message":
                format!("Invalid Request: a message of {length} bytes is over the 67108864-byte cap")}})
        };
        assert_eq!(
            answers,
            [
                over_the_cap("1099511627776"),
                over_the_cap("18446744073709551615")
            ]
        );
    }
}
