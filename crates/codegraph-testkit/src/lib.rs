//! The clients the root crate's tests and benchmarks speak through, one per protocol, and the
//! inline fixtures its tests are written in.
//!
//! - `lsp`      a language-server client over a child process's stdio: `Content-Length`
//!   framing, requests with ids, waiting for an answer while keeping the notifications read on
//!   the way, deadlines, and the replies a client owes the server's own requests. It knows no
//!   server: the tests drive `codegraph lsp` with it, the accuracy benchmark drives pyright,
//!   typescript-language-server, gopls and rust-analyzer with it too.
//! - `mcp`      an MCP client (rmcp's) over any transport: tool calls, resources, prompts, and
//!   the resource updates the server sends.
//! - `fixture`  inline multi-file fixtures: `//- /path` lines start files, one `$0` marks the
//!   cursor (rust-analyzer's `test-fixture` format), written into a temporary directory.
//!
//! A crate rather than a module the targets include: the integration tests and each benchmark
//! are separate targets, and as a library this code is compiled and linted once, without a
//! target's unused parts reading as dead code.
//!
//! Architecture invariant: nothing here knows codegraph. What is particular to it (its binary,
//! its test hooks, the shape of its answers) stays with the tests that use it.

pub mod fixture;
pub mod lsp;
pub mod mcp;
