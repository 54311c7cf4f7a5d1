//! The Claude Code plugin (`editors/claude-code/`, listed by `.claude-plugin/marketplace.json`):
//! its manifest holds only the fields Claude Code reads, names `codegraph lsp` for exactly the
//! file extensions codegraph parses and `codegraph mcp`, and both commands, started as the
//! manifest says, answer: the call hierarchy over LSP, the tools over MCP.

use std::path::{Path, PathBuf};

use codegraph::lang::LANGUAGES;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::attach::connect;
use crate::cache::copy_tree;
use crate::lsp::{LspClient, uri};
use crate::support;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn plugin() -> Value {
    read_json(&manifest_dir().join("editors/claude-code/.claude-plugin/plugin.json"))
}

/// The keys of an object, checked against those allowed (Claude Code rejects others).
fn keys_within(value: &Value, allowed: &[&str], what: &str) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object"));
    for key in object.keys() {
        assert!(
            allowed.contains(&key.as_str()),
            "{what}: unknown field `{key}`"
        );
    }
}

/// The LSP language id Claude Code should send for a file of codegraph language `name` with
/// this extension (the ids of the LSP specification's list).
fn language_id(name: &str, extension: &str) -> &'static str {
    match (name, extension) {
        (_, "jsx") => "javascriptreact",
        (_, "tsx") => "typescriptreact",
        ("python", _) => "python",
        ("javascript", _) => "javascript",
        ("typescript", _) => "typescript",
        ("rust", _) => "rust",
        ("go", _) => "go",
        ("java", _) => "java",
        ("c", _) => "c",
        ("cpp", _) => "cpp",
        ("csharp", _) => "csharp",
        ("ruby", _) => "ruby",
        ("php", _) => "php",
        ("kotlin", _) => "kotlin",
        ("swift", _) => "swift",
        ("scala", _) => "scala",
        ("lua", _) => "lua",
        ("bash", _) => "shellscript",
        (other, _) => panic!("no LSP language id for codegraph's `{other}`"),
    }
}

#[test]
fn the_manifest_names_codegraph_lsp_for_every_language_and_codegraph_mcp() {
    let plugin = plugin();
    keys_within(
        &plugin,
        &[
            "name",
            "version",
            "description",
            "author",
            "homepage",
            "repository",
            "license",
            "keywords",
            "mcpServers",
            "lspServers",
        ],
        "plugin.json",
    );
    assert_eq!(plugin["name"], "codegraph");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(plugin["license"], env!("CARGO_PKG_LICENSE"));
    assert!(!plugin["description"].as_str().unwrap().is_empty());
    assert!(!plugin["author"]["name"].as_str().unwrap().is_empty());

    let mcp = &plugin["mcpServers"]["codegraph"];
    keys_within(
        mcp,
        &["command", "args", "env", "cwd"],
        "mcpServers.codegraph",
    );
    assert_eq!(mcp["command"], "codegraph");
    assert_eq!(mcp["args"], json!(["mcp"]));

    let lsp = &plugin["lspServers"]["codegraph"];
    keys_within(
        lsp,
        &[
            "command",
            "args",
            "extensionToLanguage",
            "transport",
            "env",
            "initializationOptions",
            "settings",
            "workspaceFolder",
            "startupTimeout",
            "shutdownTimeout",
            "restartOnCrash",
            "maxRestarts",
        ],
        "lspServers.codegraph",
    );
    assert_eq!(lsp["command"], "codegraph");
    assert_eq!(lsp["args"], json!(["lsp", "--shared"]));
    assert_eq!(lsp["transport"], "stdio");
    let mapped = lsp["extensionToLanguage"].as_object().unwrap();
    let mut expected = serde_json::Map::new();
    for spec in &LANGUAGES {
        for extension in spec.extensions {
            expected.insert(
                format!(".{extension}"),
                json!(language_id(spec.name, extension)),
            );
        }
    }
    assert_eq!(
        mapped, &expected,
        "every extension codegraph parses, and no other"
    );

    // The marketplace at the repository root lists the plugin where it is.
    let marketplace = read_json(&manifest_dir().join(".claude-plugin/marketplace.json"));
    keys_within(
        &marketplace,
        &["name", "owner", "metadata", "plugins"],
        "marketplace.json",
    );
    assert!(!marketplace["owner"]["name"].as_str().unwrap().is_empty());
    let listed = &marketplace["plugins"][0];
    assert_eq!(listed["name"], plugin["name"]);
    let source = manifest_dir().join(listed["source"].as_str().unwrap());
    assert_eq!(
        read_json(&source.join(".claude-plugin/plugin.json")),
        plugin
    );
}

/// A command of the manifest with `codegraph` resolved to the binary under test.
fn command_of(server: &Value) -> (String, Vec<String>) {
    assert_eq!(server["command"], "codegraph");
    let arguments = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|argument| argument.as_str().unwrap().to_string())
        .collect();
    (env!("CARGO_BIN_EXE_codegraph").to_string(), arguments)
}

#[test]
fn the_manifest_commands_start_and_answer() {
    let plugin = plugin();
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let runtime_dir = directory.path().join("run");
    std::fs::create_dir(&runtime_dir).unwrap();

    // The language server, as Claude Code starts it: the workspace comes from `initialize`; it
    // starts the repository's shared server and is served by it.
    let (program, arguments) = command_of(&plugin["lspServers"]["codegraph"]);
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let (mut lsp, initialize) =
        LspClient::start_command_with_runtime(&program, &arguments, &[&repo], &runtime_dir);
    let capabilities = &initialize["capabilities"];
    assert_eq!(
        capabilities["callHierarchyProvider"], true,
        "{capabilities}"
    );
    assert_eq!(
        capabilities["implementationProvider"], true,
        "{capabilities}"
    );
    let math = repo.join("shop/util/math.py");
    let item = lsp.call_item(&math, 0, 4);
    let mut callers: Vec<String> = lsp
        .incoming(&item)
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["from"]["name"].as_str().unwrap().to_string())
        .collect();
    callers.sort();
    assert_eq!(callers, ["factorial", "main"], "{}", uri(&math));

    // The MCP server, started in the project directory with the manifest's arguments alone: it
    // attaches to the same shared server.
    let (program, arguments) = command_of(&plugin["mcpServers"]["codegraph"]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(program);
        command
            .args(arguments)
            .current_dir(&repo)
            .env("XDG_RUNTIME_DIR", &runtime_dir);
        let client = connect(TokioChildProcess::new(command).unwrap()).await;
        let entries = crate::attach::files_with(&runtime_dir.join("codegraph"), "json");
        assert_eq!(entries.len(), 1, "one server: {entries:?}");
        let entry = read_json(&entries[0]);
        assert_eq!(entry["kind"], "shared");
        assert_eq!(entry["clients"], 2);
        // The default set (`--tools`, or CODEGRAPH_TOOLS in Claude Code's environment).
        let mut tools: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect();
        tools.sort();
        assert_eq!(
            tools,
            [
                "find_affected_tests",
                "find_callees",
                "find_callers",
                "find_implementations",
                "get_code_snippet",
                "query_codebase"
            ]
        );
        let answer = client
            .ok(
                "find_callers",
                json!({"entity_id": "shop/util/math.py::factorial"}),
            )
            .await;
        let mut ids: Vec<&str> = answer["callers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|caller| caller["id"].as_str().unwrap())
            .collect();
        ids.sort();
        assert_eq!(
            ids,
            ["shop/app/main.py::main", "shop/util/math.py::factorial"]
        );
        client.cancel().await.unwrap();
    });
    assert!(lsp.shutdown().success());
    // `.codegraph/` is the shared server's cache: it serves the folder Claude Code opened.
    assert!(repo.join(".codegraph").is_dir());
    let stopped = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph"))
        .args(["stop", "--repo"])
        .arg(&repo)
        .env("XDG_RUNTIME_DIR", &runtime_dir)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&stopped.stdout).contains(": stopped process "),
        "{stopped:?}"
    );
}
