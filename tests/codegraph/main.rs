//! The one integration-test binary: fixtures, the incremental property, the cache, the CLI, MCP.

mod attach;
mod cache;
mod cli;
mod e2e_mcp;
mod fixtures;
mod incremental;
mod lsp;
mod mcp;
mod serve;
mod shell;
mod subscribe;
mod support;
