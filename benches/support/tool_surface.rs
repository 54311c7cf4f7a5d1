//! What the tool definitions cost a client: for each tool set (`--tools`), the bytes of the
//! `tools/list` result and of what clients hand the model on every turn (each tool's name,
//! description and input schema), and those in tokens when a tokenizer is installed
//! (`benches/tokenizer.sh`: `gpt-tokenizer`'s `o200k_base`, run with node).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use codegraph::mcp::CodegraphMcp;
use codegraph::mcp::shell::ShellPolicy;
use codegraph::mcp::toolset::ToolSet;
use codegraph::world::World;
use rmcp::ServiceExt;
use rmcp::model::Tool;
use serde_json::{Value, json};

/// The targets: the default set's model-visible definitions, and the whole list of every tool.
const DEFAULT_VISIBLE_TARGET: usize = 6 * 1024;
const FULL_LIST_TARGET: usize = 25 * 1024;

/// The tools a server with `set` (and the shell when `shell`) lists, through a client.
async fn listed(world: Arc<World>, set: ToolSet, shell: bool) -> Vec<Tool> {
    let mut server = CodegraphMcp::new(world).with_tools(set);
    if shell {
        server = server.with_shell(ShellPolicy {
            programs: vec!["git".to_string()],
            supervisor: None,
        });
    }
    let (server_side, client_side) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_side).await.expect("the MCP handshake");
    let tools = client.list_all_tools().await.expect("tools/list");
    let _ = client.cancel().await;
    tools
}

/// What the model sees of a tool.
fn visible(tool: &Tool) -> Value {
    json!({"name": tool.name, "description": tool.description, "input_schema": tool.input_schema})
}

/// Token counts of `texts` with `o200k_base`, if node and the tokenizer are installed.
fn tokens(texts: &[String]) -> Option<Vec<usize>> {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/.tokenizer/node_modules");
    if !modules.join("gpt-tokenizer").is_dir() {
        return None;
    }
    let script = "const {encode} = require('gpt-tokenizer/encoding/o200k_base');\
        let input = ''; process.stdin.on('data', (d) => input += d);\
        process.stdin.on('end', () => console.log(JSON.stringify(JSON.parse(input).map((t) => encode(t).length))));";
    let mut child = Command::new("node")
        .args(["-e", script])
        .env("NODE_PATH", &modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let input = serde_json::to_vec(texts).ok()?;
    child.stdin.take()?.write_all(&input).ok()?;
    let output = child.wait_with_output().ok()?;
    serde_json::from_slice(&output.stdout).ok()
}

/// Prints the table; the world is only what the server needs to start (definitions do not
/// depend on the repository).
pub async fn print(world: Arc<World>) {
    println!("\nTOOL SURFACE (bytes of compact JSON; tokens: o200k_base)");
    println!(
        "{:<20} {:>5} {:>14} {:>14} {:>16} {:>16}",
        "set", "tools", "tools/list B", "visible B", "tools/list tok", "visible tok"
    );
    let sets = [
        ("default", ToolSet::default(), false),
        ("all", ToolSet::all(), false),
        ("all + shell", ToolSet::all(), true),
    ];
    let mut figures = Vec::new();
    for (name, set, shell) in sets {
        let tools = listed(world.clone(), set, shell).await;
        let list = serde_json::to_string(&json!({"tools": tools})).unwrap_or_default();
        let seen: Vec<Value> = tools.iter().map(visible).collect();
        let seen = serde_json::to_string(&seen).unwrap_or_default();
        figures.push((name, tools.len(), list, seen));
    }
    let texts: Vec<String> = figures
        .iter()
        .flat_map(|(_, _, list, seen)| [list.clone(), seen.clone()])
        .collect();
    let counted = tokens(&texts);
    for (index, (name, count, list, seen)) in figures.iter().enumerate() {
        let token = |at: usize| {
            counted
                .as_ref()
                .map_or("n/a".to_string(), |counts| counts[at].to_string())
        };
        println!(
            "{name:<20} {count:>5} {:>14} {:>14} {:>16} {:>16}",
            list.len(),
            seen.len(),
            token(2 * index),
            token(2 * index + 1)
        );
    }
    let verdict = |value: usize, target: usize| if value <= target { "met" } else { "MISSED" };
    println!(
        "targets: default visible <= {DEFAULT_VISIBLE_TARGET} B: {}; every tool's tools/list <= {FULL_LIST_TARGET} B: {}",
        verdict(figures[0].3.len(), DEFAULT_VISIBLE_TARGET),
        verdict(figures[2].2.len(), FULL_LIST_TARGET),
    );
    if counted.is_none() {
        println!("(tokens: run benches/tokenizer.sh to install the tokenizer)");
    }
}
