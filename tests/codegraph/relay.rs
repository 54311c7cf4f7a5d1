//! The relay an attached `codegraph mcp` becomes: `codegraph-relay` where it is installed
//! beside the binary, the binary itself where it is not; either way the session's answers are
//! the server's, and the relay ends with its client.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::attach::{FACTORIAL, lines_of};
use crate::cache::copy_tree;
use crate::lsp::LspClient;
use crate::support;

/// A `codegraph mcp` client driven line by line.
struct Session {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    answers: std::sync::mpsc::Receiver<String>,
}

impl Session {
    fn start(binary: &Path, repo: &Path, runtime_dir: &Path) -> Session {
        let mut child = std::process::Command::new(binary)
            .args(["mcp", "--no-daemon", "--no-cache", "--repo"])
            .arg(repo)
            .env("XDG_RUNTIME_DIR", runtime_dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let answers = lines_of(child.stdout.take().unwrap());
        Session {
            stdin: child.stdin.take(),
            child,
            answers,
        }
    }

    /// Sends a request and returns its answer.
    fn ask(&mut self, id: u64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let answer = self
            .answers
            .recv_timeout(Duration::from_secs(60))
            .expect("an answer in time");
        serde_json::from_str(&answer).unwrap()
    }

    /// The file name of the program the client's process runs now.
    fn program(&self) -> String {
        std::fs::read_link(format!("/proc/{}/exe", self.child.id()))
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// Closes the client's stdin; the process's exit status once it ends by itself.
    fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the relay did not end with its client");
    }
}

/// The callers of factorial through a session of `binary`, the program its process runs once
/// attached, and how it exits when its client closes.
fn attached_session(binary: &Path, repo: &Path, runtime_dir: &Path) -> (Vec<String>, String, bool) {
    let mut session = Session::start(binary, repo, runtime_dir);
    let initialized = session.ask(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(initialized["result"]["serverInfo"]["name"], "codegraph");
    let program = session.program();
    let answer = session.ask(
        2,
        "tools/call",
        json!({"name": "find_callers", "arguments": {"entity_id": FACTORIAL}}),
    );
    let mut callers: Vec<String> = answer["result"]["structuredContent"]["callers"]
        .as_array()
        .unwrap_or_else(|| panic!("callers in {answer}"))
        .iter()
        .map(|caller| caller["id"].as_str().unwrap().to_string())
        .collect();
    callers.sort();
    (callers, program, session.close().success())
}

#[test]
fn an_attached_client_becomes_the_small_relay_or_relays_itself_when_it_is_not_installed() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let (lsp, _) = LspClient::start(&[&repo], false);
    let expected = ["shop/app/main.py::main", FACTORIAL];

    let installed = Path::new(env!("CARGO_BIN_EXE_codegraph"));
    assert!(installed.with_file_name("codegraph-relay").is_file());
    let (callers, program, ended) = attached_session(installed, &repo, lsp.runtime_dir());
    assert_eq!(callers, expected);
    assert_eq!(program, "codegraph-relay");
    assert!(ended, "the relay exits cleanly when its client closes");

    // The binary alone in a directory (a hard link: the same program, no relay beside it).
    let alone = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let binary = alone.path().join("codegraph");
    std::fs::hard_link(installed, &binary).unwrap();
    let (callers, program, ended) = attached_session(&binary, &repo, lsp.runtime_dir());
    assert_eq!(callers, expected);
    assert_eq!(program, "codegraph");
    assert!(
        ended,
        "the in-process relay exits cleanly when its client closes"
    );
}
