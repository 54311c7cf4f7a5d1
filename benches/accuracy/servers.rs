//! The language servers of the accuracy benchmark: how each is started, its version, and the
//! LSP client over pipes that asks them and watches their readiness.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use codegraph_testkit::lsp::{LspConnection, LspError, Notifications};
use serde_json::{Value, json};

use crate::uri;

/// The longest wait for a server's initial index.
pub(crate) const INDEX_TIMEOUT: Duration = Duration::from_secs(900);

/// The longest wait for one answer. Reference servers compute call hierarchies on demand, some
/// of them over the whole project: generous.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(180);

/// A server counts as ready once no progress is under way and it has been silent this long.
pub(crate) const QUIET: Duration = Duration::from_secs(3);

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum ReferenceKind {
    Codegraph,
    Pyright,
    TypeScript,
    RustAnalyzer,
    Gopls,
    Clangd,
}

impl ReferenceKind {
    pub(crate) fn of(language: &str) -> ReferenceKind {
        match language {
            "python" => ReferenceKind::Pyright,
            "javascript" | "typescript" => ReferenceKind::TypeScript,
            "rust" => ReferenceKind::RustAnalyzer,
            "go" => ReferenceKind::Gopls,
            "c" | "cpp" => ReferenceKind::Clangd,
            other => panic!("no reference server for {other}"),
        }
    }

    pub(crate) fn language_id(self, file: &Path) -> &'static str {
        match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
            "py" => "python",
            "js" | "mjs" | "cjs" => "javascript",
            "ts" | "mts" | "cts" => "typescript",
            "tsx" => "typescriptreact",
            "rs" => "rust",
            "go" => "go",
            "c" | "h" => "c",
            "cc" | "cpp" | "cxx" | "hh" | "hpp" => "cpp",
            _ => "plaintext",
        }
    }

    pub(crate) fn initialization_options(self, corpus: &Path) -> Value {
        match self {
            ReferenceKind::TypeScript => json!({
                "tsserver": {"path": corpus.join(".servers/node_modules/typescript/lib").display().to_string()},
                "maxTsServerMemory": 8192,
            }),
            // No build scripts, no proc macros, no `cargo check`: what is left is name
            // resolution and type inference, which is what the call hierarchy needs. The cfgs
            // of a plain build: rust-analyzer's default also sets `miri`, which hides every
            // `#[cfg(not(miri))]` item (regex-automata's whole test suite) from its answers.
            ReferenceKind::RustAnalyzer => json!({
                "cargo": {"buildScripts": {"enable": false}, "cfgs": ["debug_assertions"]},
                "procMacro": {"enable": false},
                "checkOnSave": false,
                "cachePriming": {"enable": true, "numThreads": 2},
            }),
            _ => json!(null),
        }
    }
}

/// The reference server and its version, as its package says.
pub(crate) fn reference_version(kind: ReferenceKind, corpus: &Path) -> String {
    let npm_version = |package: &str| {
        std::fs::read_to_string(
            corpus
                .join(".servers/node_modules")
                .join(package)
                .join("package.json"),
        )
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|json| json["version"].as_str().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
    };
    let output = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .ok()
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
            .unwrap_or_else(|| "?".to_string())
    };
    match kind {
        ReferenceKind::Codegraph => "codegraph".to_string(),
        ReferenceKind::Pyright => format!("pyright {}", npm_version("pyright")),
        ReferenceKind::TypeScript => format!(
            "typescript-language-server {} (typescript {})",
            npm_version("typescript-language-server"),
            npm_version("typescript")
        ),
        ReferenceKind::RustAnalyzer => output("rust-analyzer", &["--version"]),
        ReferenceKind::Gopls => format!(
            "gopls {} (Debian), {}",
            output("dpkg-query", &["-W", "-f", "${Version}", "gopls"]),
            output("go", &["version"])
        ),
        ReferenceKind::Clangd => output(CLANGD, &["--version"])
            .lines()
            .next()
            .unwrap_or("?")
            .to_string(),
    }
}

/// The codegraph binary measured: this package's, or $ACCURACY_CODEGRAPH (to compare builds).
pub(crate) fn codegraph_binary() -> String {
    std::env::var("ACCURACY_CODEGRAPH")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_codegraph").to_string())
}

pub(crate) struct ServerCommand {
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
}

pub(crate) fn reference_command(kind: ReferenceKind, corpus: &Path) -> ServerCommand {
    let node_bin = |name: &str| {
        corpus
            .join(".servers/node_modules/.bin")
            .join(name)
            .display()
            .to_string()
    };
    let command = |program: String, args: &[&str]| ServerCommand {
        program,
        args: args.iter().map(|arg| arg.to_string()).collect(),
        env: Vec::new(),
    };
    match kind {
        ReferenceKind::Codegraph => command(
            codegraph_binary(),
            &["lsp", "--stdio", "--no-cache", "--no-mcp-socket"],
        ),
        ReferenceKind::Pyright => command(node_bin("pyright-langserver"), &["--stdio"]),
        ReferenceKind::TypeScript => command(node_bin("typescript-language-server"), &["--stdio"]),
        ReferenceKind::RustAnalyzer => command("rust-analyzer".to_string(), &[]),
        ReferenceKind::Gopls => {
            let mut gopls = command("gopls".to_string(), &["serve"]);
            // The Go projects live in a GOPATH (see accuracy-corpus.sh); nothing is fetched.
            gopls.env = vec![
                (
                    "GOPATH".to_string(),
                    corpus.join("go/gopath").display().to_string(),
                ),
                ("GO111MODULE".to_string(), "off".to_string()),
                ("GOPROXY".to_string(), "off".to_string()),
                ("GOFLAGS".to_string(), String::new()),
            ];
            gopls
        }
        // The background index is what incomingCalls reads; each project's
        // compile_commands.json is found above its files (see accuracy-corpus.sh).
        ReferenceKind::Clangd => command(
            CLANGD.to_string(),
            &[
                "--background-index",
                "-j=2",
                "--header-insertion=never",
                "--limit-references=0",
                "--limit-results=0",
                "--log=error",
            ],
        ),
    }
}

/// Debian 12's clangd 19 (its `clangd` is 14, without the background index's call hierarchy
/// this benchmark needs).
pub(crate) const CLANGD: &str = "clangd-19";

/// An LSP server over pipes (the tests' language-server client), and what its notifications
/// said about its readiness.
pub(crate) struct Server {
    pub(crate) program: String,
    pub(crate) connection: LspConnection,
    /// Progress tokens begun and not yet ended.
    pub(crate) progress: BTreeSet<String>,
    /// rust-analyzer's `experimental/serverStatus`: quiescent or not (None before the first).
    pub(crate) quiescent: Option<bool>,
    pub(crate) last_message: Instant,
    pub(crate) opened: HashSet<PathBuf>,
    /// Its output closed or its input broke: the process is gone.
    pub(crate) exited: bool,
    /// clangd's `textDocument/inactiveRegions` of each file it has published them for: first
    /// and last line (0-based) of each region an `#if` leaves out.
    pub(crate) inactive_regions: HashMap<String, Vec<(u32, u32)>>,
}

/// The client capabilities announced to every server.
pub(crate) fn client_capabilities() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-16"]},
        "window": {"workDoneProgress": true},
        "workspace": {"configuration": true, "workspaceFolders": true},
        "textDocument": {
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "callHierarchy": {"dynamicRegistration": false},
            "synchronization": {"didSave": false},
            // clangd's extension: the lines an `#if` leaves out of the build, per open file.
            "inactiveRegionsCapabilities": {"inactiveRegions": true},
        },
        "experimental": {"serverStatusNotification": true},
    })
}

impl Server {
    pub(crate) fn start(
        command: &ServerCommand,
        root: &Path,
        log: &Path,
        initialization_options: Value,
    ) -> Result<Server, String> {
        let stderr = File::create(log).map_err(|error| format!("{}: {error}", log.display()))?;
        let mut process = Command::new(&command.program);
        process
            .args(&command.args)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .current_dir(root)
            .stderr(stderr);
        let connection = LspConnection::spawn(&mut process, Notifications::Keep)
            .map_err(|error| format!("{} does not start: {error}", command.program))?;
        let program = Path::new(&command.program)
            .file_name()
            .map_or(command.program.clone(), |name| {
                name.to_string_lossy().to_string()
            });
        let mut server = Server {
            program,
            connection,
            progress: BTreeSet::new(),
            quiescent: None,
            last_message: Instant::now(),
            opened: HashSet::new(),
            exited: false,
            inactive_regions: HashMap::new(),
        };
        let root_uri = uri(root);
        server.request_with_timeout(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": root_uri,
                "rootPath": root.display().to_string(),
                "capabilities": client_capabilities(),
                "initializationOptions": initialization_options,
                "workspaceFolders": [{"uri": root_uri, "name": root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default()}],
            }),
            INDEX_TIMEOUT,
        )?;
        server.notify("initialized", json!({}));
        Ok(server)
    }

    /// Waits until no progress is under way (and rust-analyzer says it is quiescent) and the
    /// server has been silent for `QUIET`.
    pub(crate) fn wait_until_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + INDEX_TIMEOUT;
        // Some servers start their progress a moment after `initialized`.
        let earliest = Instant::now() + QUIET;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "not ready after {} s (progress under way: {:?})",
                    INDEX_TIMEOUT.as_secs(),
                    self.progress
                ));
            }
            let quiet_for = now.duration_since(self.last_message);
            if now >= earliest
                && self.progress.is_empty()
                && self.quiescent != Some(false)
                && quiet_for >= QUIET
            {
                return Ok(());
            }
            match self
                .connection
                .next_message(Instant::now() + Duration::from_millis(250))
            {
                Ok(message) => self.observe(&message),
                Err(LspError::Closed) => {
                    self.exited = true;
                    return Err(format!("{} exited", self.program));
                }
                Err(_) => {}
            }
        }
    }

    /// Keeps track of progress and status notifications.
    pub(crate) fn observe(&mut self, message: &Value) {
        self.last_message = Instant::now();
        match message["method"].as_str() {
            Some("$/progress") => {
                let token = message["params"]["token"].to_string();
                match message["params"]["value"]["kind"].as_str() {
                    Some("begin") => {
                        self.progress.insert(token);
                    }
                    Some("end") => {
                        self.progress.remove(&token);
                    }
                    _ => {}
                }
            }
            Some("experimental/serverStatus") => {
                self.quiescent = message["params"]["quiescent"].as_bool();
            }
            Some("textDocument/inactiveRegions") => {
                let params = &message["params"];
                let line = |position: &Value| position["line"].as_u64().unwrap_or(0) as u32;
                let regions = params["regions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|region| (line(&region["start"]), line(&region["end"])))
                    .collect();
                if let Some(uri) = params["textDocument"]["uri"].as_str() {
                    self.inactive_regions.insert(uri.to_string(), regions);
                }
            }
            _ => {}
        }
    }

    /// Observes the messages read while waiting for an answer, and lets them go.
    pub(crate) fn observe_stashed(&mut self) {
        for message in self.connection.take_stash() {
            self.observe(&message);
        }
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        let _ = self.connection.notify(method, params);
    }

    pub(crate) fn open(&mut self, file: &Path, language_id: &str) {
        if !self.opened.insert(file.to_path_buf()) {
            return;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(file), "languageId": language_id, "version": 1, "text": text}}),
        );
    }

    pub(crate) fn close(&mut self, file: &Path) {
        if self.opened.remove(file) {
            self.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri(file)}}),
            );
        }
    }

    /// The regions (first and last line) that the build leaves out of `file`, as clangd
    /// publishes them once it has parsed the file: the file is opened (and closed again) when
    /// it is not open, and a documentSymbol request waits for the parse. None when clangd does
    /// not say within a few seconds.
    pub(crate) fn inactive_lines(&mut self, file: &Path) -> Option<Vec<(u32, u32)>> {
        let key = uri(file);
        if let Some(regions) = self.inactive_regions.get(&key) {
            return Some(regions.clone());
        }
        let opened_here = !self.opened.contains(file);
        self.open(file, ReferenceKind::Clangd.language_id(file));
        let _ = self.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": key}}),
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.inactive_regions.contains_key(&key) && Instant::now() < deadline {
            match self
                .connection
                .next_message(Instant::now() + Duration::from_millis(250))
            {
                Ok(message) => self.observe(&message),
                Err(LspError::Closed) => break,
                Err(_) => {}
            }
        }
        if opened_here {
            self.close(file);
        }
        self.inactive_regions.get(&key).cloned()
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.request_with_timeout(method, params, REQUEST_TIMEOUT)
    }

    /// Sends a request and waits for its answer. ContentModified, RequestCancelled and
    /// ServerCancelled answers (the server was busy: rust-analyzer while it still loads) are
    /// asked again after two seconds while time remains; a request that times out is cancelled.
    pub(crate) fn request_with_timeout(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let answer = self
                .connection
                .send_request(method, params.clone())
                .map(|id| (id, self.connection.response(id, deadline)));
            self.observe_stashed();
            let message = match answer {
                Ok((_, Ok(message))) => message,
                Ok((id, Err(LspError::Timeout))) => {
                    // Tell the server to stop working on it.
                    self.notify("$/cancelRequest", json!({"id": id}));
                    return Err(format!("no answer within {} s", timeout.as_secs()));
                }
                Ok((_, Err(error))) | Err(error) => return Err(self.gone(error)),
            };
            self.observe(&message);
            let Some(error) = message.get("error") else {
                return Ok(message["result"].clone());
            };
            let code = error["code"].as_i64().unwrap_or(0);
            if (-32802..=-32800).contains(&code)
                && Instant::now() + Duration::from_secs(2) < deadline
            {
                std::thread::sleep(Duration::from_secs(2));
                continue;
            }
            return Err(format!("error {error}"));
        }
    }

    /// The server is gone (its output closed, or it does not read): noted, and said.
    pub(crate) fn gone(&mut self, error: LspError) -> String {
        self.exited = true;
        match error {
            LspError::Write(error) => format!("{} does not read: {error}", self.program),
            _ => format!("{} exited", self.program),
        }
    }

    pub(crate) fn shutdown(mut self) {
        let _ = self.request_with_timeout("shutdown", Value::Null, Duration::from_secs(20));
        self.notify("exit", Value::Null);
        // A server still running after ten seconds is killed when the connection drops.
        self.connection.exit_status(Duration::from_secs(10));
    }
}
