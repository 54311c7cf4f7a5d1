//! A language-server client over a child process's stdio: JSON-RPC messages framed with
//! `Content-Length`, requests numbered from 1, and a reader thread that answers the server's own
//! requests (so a server waiting on one never stalls) and hands every message to the client.
//!
//! Whatever arrives while the client waits for one answer (notifications, other answers) goes
//! to [`LspConnection::stash`], where later waits look first. Every wait has a deadline; the
//! errors say whether time ran out, the server went away, or it answered with an error.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Why a message did not come.
#[derive(Debug)]
pub enum LspError {
    /// The deadline passed first.
    Timeout,
    /// The server closed its output: it exited or crashed.
    Closed,
    /// The server does not read its input any more.
    Write(std::io::Error),
    /// The answer is an error: its `error` object.
    Answered(Value),
}

impl fmt::Display for LspError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LspError::Timeout => write!(formatter, "no message from the server in time"),
            LspError::Closed => write!(formatter, "the server closed its output"),
            LspError::Write(error) => write!(formatter, "the server does not read: {error}"),
            LspError::Answered(error) => write!(formatter, "error {error}"),
        }
    }
}

impl std::error::Error for LspError {}

/// What the connection does with the notifications and the server's requests it reads while
/// waiting for an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notifications {
    /// Keeps them in the stash, for the caller to look at or drain.
    Keep,
    /// Drops them (a benchmark that sends thousands of requests and reads no notification).
    Discard,
}

/// A language server started as a child process, spoken to over its stdin and stdout.
pub struct LspConnection {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    messages: Receiver<Value>,
    /// Messages read while waiting for something else, oldest first.
    pub stash: VecDeque<Value>,
    notifications: Notifications,
    next_id: i64,
}

/// Writes one framed message.
pub fn write_message(writer: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = message.to_string();
    write!(writer, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    writer.flush()
}

/// Reads one framed message; None at the end of the stream or on a body that is not JSON.
/// Blank lines before the headers are skipped.
pub fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The client's answer to a request from the server: `workspace/configuration` gets one null per
/// item (every setting at the server's default); everything else (progress tokens,
/// registrations, refreshes) a null result.
pub fn reply_to(request: &Value) -> Value {
    let result = if request["method"] == "workspace/configuration" {
        let items = request["params"]["items"].as_array().map_or(0, Vec::len);
        Value::Array(vec![Value::Null; items])
    } else {
        Value::Null
    };
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
}

/// Whether `message` is the answer to request `id`.
fn answers(message: &Value, id: i64) -> bool {
    message.get("method").is_none() && message.get("id") == Some(&json!(id))
}

impl LspConnection {
    /// Starts `command` with its stdin and stdout as the connection (its stderr as the command
    /// says) and the thread that reads it.
    pub fn spawn(command: &mut Command, notifications: Notifications) -> std::io::Result<Self> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = Arc::new(Mutex::new(child.stdin.take().expect("piped stdin")));
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, messages) = channel();
        let replies = stdin.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 20, stdout);
            while let Some(message) = read_message(&mut reader) {
                if message.get("method").is_some() && message.get("id").is_some() {
                    let _ = write_message(&mut *replies.lock().unwrap(), &reply_to(&message));
                }
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Ok(LspConnection {
            child,
            stdin,
            messages,
            stash: VecDeque::new(),
            notifications,
            next_id: 0,
        })
    }

    /// The server's process id.
    pub fn process_id(&self) -> u32 {
        self.child.id()
    }

    /// Sends one message as it is.
    pub fn send(&self, message: &Value) -> Result<(), LspError> {
        write_message(&mut *self.stdin.lock().unwrap(), message).map_err(LspError::Write)
    }

    /// Writes bytes as they are, framed or not (malformed input, on purpose).
    pub fn send_raw(&self, bytes: &[u8]) -> Result<(), LspError> {
        let mut stdin = self.stdin.lock().unwrap();
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(LspError::Write)
    }

    pub fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request without waiting for its answer; its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Result<i64, LspError> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    /// The next message from the server (the stash aside).
    pub fn next_message(&mut self, deadline: Instant) -> Result<Value, LspError> {
        match self
            .messages
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(message) => Ok(message),
            Err(RecvTimeoutError::Timeout) => Err(LspError::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(LspError::Closed),
        }
    }

    /// Keeps a message read while waiting for another (or drops it, if it is a notification
    /// and the connection discards them).
    fn set_aside(&mut self, message: Value) {
        let unsolicited = message.get("method").is_some();
        if !(unsolicited && self.notifications == Notifications::Discard) {
            self.stash.push_back(message);
        }
    }

    /// The first message, stashed or to come, that `wanted` accepts; the others are kept.
    pub fn wait_for(
        &mut self,
        deadline: Instant,
        wanted: impl Fn(&Value) -> bool,
    ) -> Result<Value, LspError> {
        if let Some(position) = self.stash.iter().position(&wanted) {
            return Ok(self.stash.remove(position).expect("a stashed message"));
        }
        loop {
            let message = self.next_message(deadline)?;
            if wanted(&message) {
                return Ok(message);
            }
            self.set_aside(message);
        }
    }

    /// The whole answer (`result` or `error`) to request `id`.
    pub fn response(&mut self, id: i64, deadline: Instant) -> Result<Value, LspError> {
        self.wait_for(deadline, |message| answers(message, id))
    }

    /// The `result` of request `id`; an error answer is [`LspError::Answered`].
    pub fn result(&mut self, id: i64, deadline: Instant) -> Result<Value, LspError> {
        let message = self.response(id, deadline)?;
        match message.get("error") {
            Some(error) => Err(LspError::Answered(error.clone())),
            None => Ok(message["result"].clone()),
        }
    }

    /// Sends a request and waits up to `timeout` for its result.
    pub fn request(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        let id = self.send_request(method, params)?;
        self.result(id, Instant::now() + timeout)
    }

    /// The params of the next notification `method` whose params `wanted` accepts.
    pub fn notification(
        &mut self,
        method: &str,
        deadline: Instant,
        wanted: impl Fn(&Value) -> bool,
    ) -> Result<Value, LspError> {
        let message = self.wait_for(deadline, |message| {
            message["method"] == method && wanted(&message["params"])
        })?;
        Ok(message["params"].clone())
    }

    /// The stashed messages, taken (the stash is left empty).
    pub fn take_stash(&mut self) -> VecDeque<Value> {
        std::mem::take(&mut self.stash)
    }

    /// The server's exit status once it has exited, waiting up to `timeout`; None if it is
    /// still running then.
    pub fn exit_status(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server process has exited (and been reaped).
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// `shutdown` (answered within `timeout`, or not), `exit`, and the exit status once the
    /// server has gone (None if it is still running after `timeout`; the drop then kills it).
    pub fn shutdown(&mut self, timeout: Duration) -> Result<Option<ExitStatus>, LspError> {
        let answer = self.request("shutdown", Value::Null, timeout);
        self.notify("exit", Value::Null)?;
        answer?;
        Ok(self.exit_status(timeout))
    }
}

impl Drop for LspConnection {
    fn drop(&mut self) {
        if !self.has_exited() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_reads_what_it_writes_and_skips_blank_lines_before_the_headers() {
        let mut bytes = b"\r\n".to_vec();
        write_message(&mut bytes, &json!({"id": 1})).unwrap();
        write_message(&mut bytes, &json!({"method": "名前"})).unwrap();
        let mut reader = &bytes[..];
        assert_eq!(read_message(&mut reader), Some(json!({"id": 1})));
        assert_eq!(read_message(&mut reader), Some(json!({"method": "名前"})));
        assert_eq!(read_message(&mut reader), None);
    }

    #[test]
    fn configuration_requests_get_one_null_per_item() {
        let request =
            json!({"id": 4, "method": "workspace/configuration", "params": {"items": [{}, {}]}});
        assert_eq!(
            reply_to(&request),
            json!({"jsonrpc": "2.0", "id": 4, "result": [null, null]})
        );
        let request = json!({"id": "a", "method": "window/workDoneProgress/create"});
        assert_eq!(
            reply_to(&request),
            json!({"jsonrpc": "2.0", "id": "a", "result": null})
        );
    }
}
