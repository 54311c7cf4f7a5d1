//! Core types → the JSON shapes of the MCP API, in one place (`to_proto` style).

use schemars::JsonSchema;
use serde::Serialize;

use codegraph_graph::{Entity, Graph};

/// An entity as tools return it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntitySummary {
    /// Stable id: `path/to/file.ext::Nested.name` (a module's id is its path).
    pub id: String,
    pub name: String,
    /// module, class, function, method, interface, enum, struct or trait.
    #[serde(rename = "type")]
    pub kind: String,
    pub qualified_name: String,
    pub file_path: String,
    /// One-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl From<&Entity> for EntitySummary {
    fn from(entity: &Entity) -> EntitySummary {
        EntitySummary {
            id: entity.id.to_string(),
            name: entity.name.to_string(),
            kind: entity.kind.to_string(),
            qualified_name: entity.qualified_name.clone(),
            file_path: entity.file_path.to_string(),
            start_line: entity.start_line,
            end_line: entity.end_line,
            signature: entity.signature.clone().filter(|text| !text.is_empty()),
        }
    }
}

/// The entity's source text, sliced from the file the graph was built from.
pub fn entity_source(graph: &Graph, entity: &Entity) -> String {
    let Some(file) = graph.file(&entity.file_path) else {
        return String::new();
    };
    let Some(text) = file.text() else {
        return String::new();
    };
    let start = entity.span.start_byte as usize;
    let end = (entity.span.end_byte as usize).min(text.len());
    text.get(start..end).unwrap_or_default().to_string()
}

/// Lines `first..=last` (one-based) of `text`, clamped to the text; with the range actually
/// returned.
pub fn line_range(text: &str, first: u32, last: u32) -> (String, u32, u32) {
    let total = text.lines().count() as u32;
    let first = first.max(1);
    let last = last.min(total);
    if first > last {
        return (String::new(), first, first.saturating_sub(1));
    }
    let mut selected = String::new();
    for line in text
        .split_inclusive('\n')
        .skip(first as usize - 1)
        .take((last - first + 1) as usize)
    {
        selected.push_str(line);
    }
    (selected, first, last)
}

/// `"12-40"`.
pub fn lines_label(first: u32, last: u32) -> String {
    format!("{first}-{last}")
}

/// The `filter` parameter of the search and analysis tools: `production_first` (the default),
/// `all`, or a comma-separated list of file classes; an unknown word is a tool error.
pub fn file_filter(
    text: Option<&str>,
) -> Result<codegraph_analysis::filter::FileFilter, rmcp::model::CallToolResult> {
    codegraph_analysis::filter::FileFilter::parse(text.unwrap_or_default()).map_err(|message| {
        super::tool_error(serde_json::json!({
            "error": "Unknown filter",
            "message": message,
            "known": ["production_first", "all", "production", "test", "fixture", "example", "generated", "vendored"],
        }))
    })
}
