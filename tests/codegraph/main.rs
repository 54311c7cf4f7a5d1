//! The one integration-test binary: fixtures, the incremental property, the cache, the CLI.

mod cache;
mod cli;
mod fixtures;
mod incremental;
mod lsp;
mod support;
