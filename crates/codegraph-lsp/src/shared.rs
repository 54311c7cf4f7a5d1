//! The editor's session on the repository's shared server (`codegraph lsp --shared`), so that
//! the editor, its AI assistants and every other session of the repository use one process and
//! one graph, whichever of them started first.
//!
//! The client side ([`run_relay`]) reads the editor's `initialize` request; when it names one
//! workspace folder whose shared server runs, it attaches to it and relays the session over the
//! server's socket, `initialize` included; with `--shared`, it starts that server when none
//! runs, as `codegraph mcp` does (`mcp::daemon`). Anything else (several folders, none, no
//! server running without `--shared`, a server that cannot start) is served in-process, and
//! that process is the server agents attach to.
//!
//! The server side ([`session`]) serves the LSP session on the server's world: the same
//! handlers, with the world given rather than opened. When the session ends, the buffers the
//! editor left open are closed, so the graph goes back to the files on disk.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, BufReader};
use tower_lsp_server::ls_types::InitializeParams;

use codegraph_mcp::{attach, daemon};
use codegraph_world::{World, WorldConfig};

use crate::framing::{self, MAX_MESSAGE_BYTES};

/// This door, as its messages name it.
const DOOR: &str = "codegraph lsp";

/// [`session`] as a task of the current runtime (on a blocking thread: the transport's future
/// is not `Send`).
pub fn spawn_session<R, W>(world: Arc<World>, reader: R, writer: W) -> tokio::task::JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || runtime.block_on(session(world, reader, writer)))
}

/// Serves one editor's LSP session on `world`, the shared server's, until `exit` or the end of
/// the input; then closes the buffers it left open.
pub async fn session<R, W>(world: Arc<World>, reader: R, writer: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The world is given: the config, for opening one, goes unused.
    let (service, socket) = crate::service_with(WorldConfig::default(), false, None, Some(world));
    let state = service.state.clone();
    framing::serve(reader, writer, service, socket).await;
    state.close_buffers();
}

/// `codegraph lsp`: relays the editor's session to the shared server of its one workspace
/// folder when one runs (with `settings`, `--shared`: started when none runs), or serves it
/// in-process with `config`. The exit status, as `run_stdio`'s.
pub fn run_relay(config: WorldConfig, settings: Option<&daemon::Settings>) -> anyhow::Result<i32> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(codegraph_model::walk::STACK_SIZE)
        .build()?;
    let mut stdin = BufReader::new(tokio::io::stdin());
    let (read, body) = runtime.block_on(read_frame(&mut stdin));
    let folder = body.as_deref().and_then(only_folder);
    let attached = folder.and_then(|folder| {
        runtime
            .block_on(attach::connect_shared(&folder))
            .or_else(|| {
                daemon::ensure_said(DOOR, &folder, settings?)
                    .then(|| runtime.block_on(attach::connect_shared(&folder)))
                    .flatten()
            })
    });
    let input = std::io::Cursor::new(read).chain(stdin);
    let Some((entry, stream)) = attached else {
        return crate::serve_in_process(runtime, config, true, None, input);
    };
    daemon::say_attached(DOOR, &entry);
    runtime.block_on(attach::relay_lsp_session(stream, input))?;
    runtime.shutdown_background();
    Ok(0)
}

/// The first message of the input: the bytes read, and the message's body when they are one
/// well-formed frame (else the caller serves in-process, whose framing answers them).
async fn read_frame<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut frame = Vec::new();
    let mut length = None;
    loop {
        let mut line = Vec::new();
        let read = (&mut *reader)
            .take(8 * 1024)
            .read_until(b'\n', &mut line)
            .await;
        frame.extend_from_slice(&line);
        if !matches!(read, Ok(count) if count > 0) || !line.ends_with(b"\n") {
            return (frame, None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<u64>().ok();
        }
    }
    let Some(length) = length.filter(|length| *length <= MAX_MESSAGE_BYTES) else {
        return (frame, None);
    };
    let mut body = Vec::new();
    let read = (&mut *reader).take(length).read_to_end(&mut body).await;
    frame.extend_from_slice(&body);
    match read {
        Ok(count) if count as u64 == length => (frame, Some(body)),
        _ => (frame, None),
    }
}

/// The one workspace folder an `initialize` request names, canonical.
fn only_folder(body: &[u8]) -> Option<PathBuf> {
    #[derive(serde::Deserialize)]
    struct Initialize {
        method: String,
        params: InitializeParams,
    }
    let request: Initialize = serde_json::from_slice(body).ok()?;
    if request.method != "initialize" {
        return None;
    }
    match crate::initialize::workspace_folders(&request.params).as_slice() {
        [folder] => folder.canonicalize().ok(),
        _ => None,
    }
}
