//! MCP over HTTP: Streamable HTTP at `/mcp` and the legacy HTTP+SSE transport (`/sse`,
//! `/messages`), with DNS-rebinding protection and optional bearer tokens.

use serde::{Deserialize, Serialize};

/// The bearer tokens of one run. `read_only` may call every tool but `execute_shell_command`;
/// `shell` may call that one too (present only when the shell is enabled).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tokens {
    pub read_only: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
}
