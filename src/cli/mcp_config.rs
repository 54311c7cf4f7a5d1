//! `codegraph mcp-config`: the MCP configuration that makes an AI client launch `codegraph mcp`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::print;

#[derive(Args, Debug)]
pub struct McpConfigArgs {
    /// Only this client's configuration.
    #[arg(long, value_enum)]
    pub client: Option<McpClient>,
    /// The repository the AI client should see.
    #[arg(long, short = 'r', default_value = ".")]
    pub repo: PathBuf,
    #[command(flatten)]
    pub tools: super::ToolsArgs,
}

pub fn run(arguments: McpConfigArgs) -> anyhow::Result<()> {
    let McpConfigArgs {
        client,
        repo,
        tools: super::ToolsArgs { tools },
    } = arguments;
    let binary = std::env::current_exe().context("locating the codegraph binary")?;
    let repo = std::fs::canonicalize(&repo)
        .with_context(|| format!("{}: no such repository", repo.display()))?;
    match client {
        Some(client) => {
            let snippet = mcp_config(client, &binary, &repo, &tools);
            print(&snippet.text)?;
            eprintln!("{}", snippet.hint());
        }
        None => {
            let all: Vec<String> = McpClient::ALL
                .iter()
                .map(|client| {
                    let snippet = mcp_config(*client, &binary, &repo, &tools);
                    format!("{}\n{}", snippet.hint(), snippet.text)
                })
                .collect();
            print(&all.join("\n\n"))?;
        }
    }
    Ok(())
}

/// The AI clients `codegraph mcp-config` knows.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpClient {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    Vscode,
}

impl McpClient {
    pub const ALL: [McpClient; 4] = [
        McpClient::ClaudeCode,
        McpClient::ClaudeDesktop,
        McpClient::Cursor,
        McpClient::Vscode,
    ];
}

/// One client's MCP configuration: the file it reads and the JSON to put there.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSnippet {
    pub client: McpClient,
    /// Where the client reads it (a path, or a description for Claude Desktop).
    pub file: String,
    /// The file's content: pretty JSON, keys in the order the clients' documentation shows.
    pub text: String,
    /// A command that registers the server instead (Claude Code's `claude mcp add`).
    pub command: Option<String>,
}

impl McpSnippet {
    /// One comment line saying where the JSON goes (and the command, if any).
    pub fn hint(&self) -> String {
        let name = match self.client {
            McpClient::ClaudeCode => "Claude Code",
            McpClient::ClaudeDesktop => "Claude Desktop",
            McpClient::Cursor => "Cursor",
            McpClient::Vscode => "VS Code",
        };
        match &self.command {
            Some(command) => format!("# {name}: {}, or run: {command}", self.file),
            None => format!("# {name}: {}", self.file),
        }
    }
}

/// A stdio MCP server entry (typed so the keys keep this order in the output).
#[derive(serde::Serialize)]
struct StdioServer<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    command: &'a str,
    args: Vec<&'a str>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct McpServers<'a> {
    mcp_servers: std::collections::BTreeMap<&'static str, StdioServer<'a>>,
}

#[derive(serde::Serialize)]
struct VscodeServers<'a> {
    servers: std::collections::BTreeMap<&'static str, StdioServer<'a>>,
}

/// The MCP configuration making `client` launch `binary mcp --repo repo` (both paths absolute,
/// so it works whatever directory the client starts servers in), with `--tools` when `tools`
/// is not the default set. Every client but VS Code reads the `mcpServers` shape; VS Code's
/// `mcp.json` uses `servers` with an explicit `type`. The VS Code extension
/// (`editors/vscode/src/mcpConfig.ts`) writes the same shapes.
pub fn mcp_config(
    client: McpClient,
    binary: &std::path::Path,
    repo: &std::path::Path,
    tools: &crate::mcp::toolset::ToolSet,
) -> McpSnippet {
    let binary = binary.display().to_string();
    let repo = repo.display().to_string();
    let tools = tools.to_arg();
    let mut args = vec!["mcp", "--repo", &repo];
    if tools != "default" {
        args.extend(["--tools", &tools]);
    }
    let server = |kind| {
        std::collections::BTreeMap::from([(
            "codegraph",
            StdioServer {
                kind,
                command: &binary,
                args: args.clone(),
            },
        )])
    };
    let standard = pretty(&McpServers {
        mcp_servers: server(None),
    });
    let (file, text, command) = match client {
        McpClient::ClaudeCode => (
            format!("{repo}/.mcp.json"),
            standard,
            Some(format!(
                "claude mcp add codegraph -- {} {}",
                shell_quote(&binary),
                args.iter()
                    .map(|arg| shell_quote(arg))
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
        ),
        McpClient::ClaudeDesktop => (
            "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, \
             Windows: %APPDATA%\\Claude\\), merged into its mcpServers"
                .to_string(),
            standard,
            None,
        ),
        McpClient::Cursor => (format!("{repo}/.cursor/mcp.json"), standard, None),
        McpClient::Vscode => (
            format!("{repo}/.vscode/mcp.json"),
            pretty(&VscodeServers {
                servers: server(Some("stdio")),
            }),
            None,
        ),
    };
    McpSnippet {
        client,
        file,
        text,
        command,
    }
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).expect("configuration structs serialise")
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::toolset::ToolSet;
    use std::path::Path;

    fn json(snippet: &McpSnippet) -> serde_json::Value {
        serde_json::from_str(&snippet.text).unwrap()
    }

    fn snippet(client: McpClient) -> McpSnippet {
        mcp_config(
            client,
            Path::new("/opt/bin/codegraph"),
            Path::new("/home/me/shop"),
            &ToolSet::default(),
        )
    }

    #[test]
    fn a_set_other_than_the_default_is_passed_on() {
        let claude = mcp_config(
            McpClient::ClaudeCode,
            Path::new("/opt/bin/codegraph"),
            Path::new("/home/me/shop"),
            &ToolSet::parse("default,local_search").unwrap(),
        );
        assert_eq!(
            json(&claude)["mcpServers"]["codegraph"]["args"],
            serde_json::json!([
                "mcp",
                "--repo",
                "/home/me/shop",
                "--tools",
                "find_callers,find_callees,find_implementations,query_codebase,get_code_snippet,find_affected_tests,local_search"
            ])
        );
        assert_eq!(
            claude.command.as_deref(),
            Some(
                "claude mcp add codegraph -- /opt/bin/codegraph mcp --repo /home/me/shop --tools find_callers,find_callees,find_implementations,query_codebase,get_code_snippet,find_affected_tests,local_search"
            )
        );
    }

    #[test]
    fn claude_code_gets_mcp_servers_and_the_claude_command() {
        let claude = snippet(McpClient::ClaudeCode);
        assert_eq!(
            json(&claude),
            serde_json::json!({"mcpServers": {"codegraph": {
                "command": "/opt/bin/codegraph", "args": ["mcp", "--repo", "/home/me/shop"]}}})
        );
        assert_eq!(claude.file, "/home/me/shop/.mcp.json");
        assert_eq!(
            claude.command.as_deref(),
            Some("claude mcp add codegraph -- /opt/bin/codegraph mcp --repo /home/me/shop")
        );
    }

    #[test]
    fn cursor_and_claude_desktop_share_the_mcp_servers_shape() {
        let cursor = snippet(McpClient::Cursor);
        assert_eq!(cursor.file, "/home/me/shop/.cursor/mcp.json");
        assert_eq!(cursor.text, snippet(McpClient::ClaudeCode).text);
        assert_eq!(snippet(McpClient::ClaudeDesktop).text, cursor.text);
        assert_eq!(cursor.command, None);
    }

    #[test]
    fn vscode_gets_servers_with_a_stdio_type() {
        let vscode = snippet(McpClient::Vscode);
        assert_eq!(vscode.file, "/home/me/shop/.vscode/mcp.json");
        assert_eq!(
            vscode.text,
            r#"{
  "servers": {
    "codegraph": {
      "type": "stdio",
      "command": "/opt/bin/codegraph",
      "args": [
        "mcp",
        "--repo",
        "/home/me/shop"
      ]
    }
  }
}"#
        );
    }

    #[test]
    fn paths_with_spaces_are_quoted_in_the_command() {
        let claude = mcp_config(
            McpClient::ClaudeCode,
            Path::new("/Applications/My Tools/codegraph"),
            Path::new("/home/me/it's here"),
            &ToolSet::default(),
        );
        assert_eq!(
            claude.command.as_deref(),
            Some(
                r"claude mcp add codegraph -- '/Applications/My Tools/codegraph' mcp --repo '/home/me/it'\''s here'"
            )
        );
    }
}
