//! The one integration-test binary: fixtures, the incremental property, the cache, the CLI, LSP
//! (the binary with a small client of ours, and with pytest-lsp), MCP.

mod analysis;
mod attach;
mod bounded;
mod cache;
mod cli;
mod conformance;
mod contain;
mod e2e_lsp;
mod e2e_mcp;
mod e2e_nvim;
mod edit_sweep;
mod fixtures;
mod fuzz;
mod incremental;
mod lsp;
mod lsp_work;
mod mcp;
mod mcp_tools;
mod navigation;
mod plugin;
mod python;
mod questions;
mod resolution;
mod rules;
mod rules_lsp;
mod rules_mcp;
mod scip;
mod serve;
mod shell;
mod subscribe;
mod support;
mod texts;
mod trust;
mod walks;
mod workspace;
