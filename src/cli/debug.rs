//! The hidden commands for writing language queries: `debug-extract`, `debug-tree`.

use std::path::Path;

use anyhow::Context;

use super::{print, print_json};
use crate::lang::Language;

/// What extraction finds in one file, as JSON.
pub fn extract(file: &Path) -> anyhow::Result<()> {
    let language = Language::from_path(file)
        .ok_or_else(|| anyhow::anyhow!("{}: not a language codegraph parses", file.display()))?;
    let bytes =
        std::fs::read(file).map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
    let text = crate::syntax::decode_lossy(bytes);
    let (summary, _) = crate::index::extract_text(language, &text);
    print_json(&summary)
}

/// A file's syntax tree as an S-expression.
pub fn tree(file: &Path) -> anyhow::Result<()> {
    let language = Language::from_path(file)
        .ok_or_else(|| anyhow::anyhow!("{}: not a language codegraph parses", file.display()))?;
    let text = crate::syntax::decode_lossy(
        std::fs::read(file).with_context(|| file.display().to_string())?,
    );
    let tree = crate::syntax::parse(language, &text).context("the grammar could not be loaded")?;
    print(&tree.root_node().to_sexp())
}
