//! Language-server answers written as text for snapshots: every field of the answer, paths
//! relative to the workspace root (so no temporary directory shows), positions 1-based
//! `line:column` as an editor shows them (columns in UTF-16 units, as the client asked), and
//! after each location the text it covers.

use std::path::Path;

use serde_json::{Map, Value};

/// Paths and texts of the files an answer names.
pub struct Workspace<'a> {
    pub root: &'a Path,
}

impl Workspace<'_> {
    fn relative(&self, uri: &str) -> String {
        let prefix = format!("file://{}/", self.root.display());
        uri.strip_prefix(&prefix).unwrap_or(uri).to_string()
    }

    /// The text a range covers (its first line only, with `…` if it goes on).
    fn covered(&self, relative: &str, range: &Value) -> String {
        let text = std::fs::read_to_string(self.root.join(relative)).unwrap_or_default();
        let (start_line, start) = point(&range["start"]);
        let (end_line, end) = point(&range["end"]);
        let Some(line) = text.lines().nth(start_line as usize) else {
            return String::new();
        };
        let units: Vec<u16> = line.encode_utf16().collect();
        let last = if end_line == start_line {
            (end as usize).min(units.len())
        } else {
            units.len()
        };
        let first = (start as usize).min(last);
        let mut covered = String::from_utf16_lossy(&units[first..last]);
        if end_line != start_line {
            covered.push('…');
        }
        covered
    }

    /// `path:line:column-line:column text` of a location.
    pub fn location(&self, location: &Value) -> String {
        let relative = self.relative(location["uri"].as_str().expect("a location's uri"));
        let range = &location["range"];
        format!(
            "{relative}:{} {}",
            span(range),
            self.covered(&relative, range)
        )
    }

    /// One location a line, sorted; `null` for a null answer.
    pub fn locations(&self, locations: &Value) -> String {
        let Some(list) = locations.as_array() else {
            return format!("{locations}\n");
        };
        let mut lines: Vec<String> = list
            .iter()
            .map(|location| self.location(location))
            .collect();
        lines.sort();
        lines.iter().map(|line| format!("{line}\n")).collect()
    }

    /// A call hierarchy item: name, kind, the name's place, then the rest of its fields.
    pub fn call_item(&self, item: &Value) -> String {
        let mut rest = item.as_object().expect("an item").clone();
        let name = take_str(&mut rest, "name");
        let kind = symbol_kind(&rest.remove("kind").unwrap_or_default());
        let relative = self.relative(&take_str(&mut rest, "uri"));
        let selection = rest.remove("selectionRange").unwrap_or_default();
        let range = rest.remove("range").unwrap_or_default();
        let mut shown = format!(
            "{name} ({kind}) {relative}:{}, range {}",
            span(&selection),
            span(&range)
        );
        if let Some(detail) = rest.remove("detail") {
            shown.push_str(&format!(", detail {detail}"));
        }
        if let Some(Value::Object(mut data)) = rest.remove("data") {
            // The root is the workspace folder's path: the same for every item of a test.
            data.remove("root");
            if let Some(id) = data.remove("id") {
                shown.push_str(&format!(", id {}", id.as_str().unwrap_or_default()));
            }
            rest.extend(data);
        }
        shown + &leftovers(&rest)
    }

    /// Incoming (`side` = `from`) or outgoing (`to`) calls: each item, then where it calls or is
    /// called from, in the answer's order.
    pub fn calls(&self, calls: &Value, side: &str) -> String {
        let mut shown = String::new();
        for call in calls.as_array().expect("calls") {
            let item = &call[side];
            shown.push_str(&format!("{}\n", self.call_item(item)));
            // `fromRanges` are in the caller's file (incoming) or the item's own (outgoing).
            for range in call["fromRanges"].as_array().expect("fromRanges") {
                shown.push_str(&format!("  at {}\n", span(range)));
            }
        }
        shown
    }

    /// Workspace symbols, one a line in the answer's order (the ranking is part of it).
    pub fn workspace_symbols(&self, symbols: &Value) -> String {
        let mut shown = String::new();
        for symbol in symbols.as_array().expect("symbols") {
            let mut rest = symbol.as_object().expect("a symbol").clone();
            let name = take_str(&mut rest, "name");
            let kind = symbol_kind(&rest.remove("kind").unwrap_or_default());
            let location = rest.remove("location").unwrap_or_default();
            let mut line = format!("{name} ({kind}) {}", self.location(&location));
            if let Some(container) = rest.remove("containerName") {
                line.push_str(&format!(", in {}", container.as_str().unwrap_or_default()));
            }
            shown.push_str(&format!("{line}{}\n", leftovers(&rest)));
        }
        shown
    }

    /// Document symbols as a tree, children indented under their parent.
    pub fn document_symbols(&self, symbols: &Value) -> String {
        let mut shown = String::new();
        document_symbol_lines(symbols, 0, &mut shown);
        shown
    }
}

fn document_symbol_lines(symbols: &Value, depth: usize, shown: &mut String) {
    for symbol in symbols.as_array().into_iter().flatten() {
        let mut rest = symbol.as_object().expect("a symbol").clone();
        let name = take_str(&mut rest, "name");
        let kind = symbol_kind(&rest.remove("kind").unwrap_or_default());
        let selection = rest.remove("selectionRange").unwrap_or_default();
        let range = rest.remove("range").unwrap_or_default();
        let children = rest.remove("children");
        let mut line = format!(
            "{}{name} ({kind}) {}, range {}",
            "  ".repeat(depth),
            span(&selection),
            span(&range)
        );
        if let Some(detail) = rest.remove("detail") {
            line.push_str(&format!(", detail {detail}"));
        }
        shown.push_str(&format!("{line}{}\n", leftovers(&rest)));
        if let Some(children) = children {
            document_symbol_lines(&children, depth + 1, shown);
        }
    }
}

/// A hover: its range if it has one, the contents' kind, then their text as it is.
pub fn hover(hover: &Value) -> String {
    let mut rest = hover.as_object().expect("a hover").clone();
    let mut contents = match rest.remove("contents") {
        Some(Value::Object(contents)) => contents,
        other => panic!("hover contents are MarkupContent, not {other:?}"),
    };
    let mut shown = String::new();
    if let Some(range) = rest.remove("range") {
        shown.push_str(&format!("range {}\n", span(&range)));
    }
    let kind = take_str(&mut contents, "kind");
    let value = take_str(&mut contents, "value");
    rest.extend(contents);
    format!("{shown}{kind}:{}\n{value}\n", leftovers(&rest))
}

/// A 0-based LSP position as (line, character).
fn point(position: &Value) -> (u64, u64) {
    (
        position["line"].as_u64().expect("a line"),
        position["character"].as_u64().expect("a character"),
    )
}

/// `line:column-line:column`, 1-based.
pub fn span(range: &Value) -> String {
    let (start_line, start) = point(&range["start"]);
    let (end_line, end) = point(&range["end"]);
    format!(
        "{}:{}-{}:{}",
        start_line + 1,
        start + 1,
        end_line + 1,
        end + 1
    )
}

fn take_str(object: &mut Map<String, Value>, key: &str) -> String {
    match object.remove(key) {
        Some(Value::String(text)) => text,
        other => panic!("{key} is not a string: {other:?}"),
    }
}

/// The fields not rendered otherwise, as `, key value`, so that nothing of an answer goes
/// unseen.
fn leftovers(rest: &Map<String, Value>) -> String {
    rest.iter()
        .map(|(key, value)| format!(", {key} {value}"))
        .collect()
}

/// LSP's `SymbolKind`, by name.
fn symbol_kind(kind: &Value) -> String {
    const NAMES: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum member",
        "struct",
        "event",
        "operator",
        "type parameter",
    ];
    kind.as_u64()
        .and_then(|number| NAMES.get((number as usize).checked_sub(1)?))
        .map_or_else(|| format!("kind {kind}"), |name| name.to_string())
}
