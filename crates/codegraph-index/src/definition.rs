//! What a definition node says of itself: its signature (the head up to its body), its doc (a
//! docstring or the comments above it), its extent and its declared return type.

use codegraph_model::{Name, Span};
use tree_sitter::Node;

use crate::javascript;
use crate::rust;
use crate::text::{node_text, value_type};

/// The longest signature kept; a longer one is cut and ends with `…`.
pub(crate) const MAX_SIGNATURE: usize = 240;
/// Comment nodes read back from a definition for its doc.
const MAX_DOC_COMMENTS: usize = 64;
/// The longest doc kept; a longer one is cut and ends with `…`.
const MAX_DOC: usize = 2000;

/// The declared return type of a definition node, normalised by [`value_type`]: the grammars
/// name it `return_type` (Rust, Python, TypeScript, ...) or `result` (Go); a variable holding a
/// function (`const f = (): Foo => ...`) has it on its value.
pub(crate) fn declared_return(node: Node<'_>, text: &str) -> Option<Name> {
    // `const make = (): Store => ...`: the function is the declarator's value (maybe cast).
    let function = match node.kind() {
        "lexical_declaration" | "variable_declaration" => javascript::declared_function(node),
        _ => None,
    };
    let returned = node
        .child_by_field_name("return_type")
        .or_else(|| node.child_by_field_name("result"))
        .or_else(|| {
            node.child_by_field_name("value")
                .and_then(|value| value.child_by_field_name("return_type"))
        })
        .or_else(|| function.and_then(|function| function.child_by_field_name("return_type")))?;
    let normalised = if matches!(node.kind(), "function_item" | "function_signature_item") {
        if returned.kind() == "tuple_type" {
            // `-> (Sender<T>, Receiver<T>)`: each element, for `let (tx, rx) = channel()`.
            let mut cursor = returned.walk();
            let elements: Vec<Name> = returned
                .named_children(&mut cursor)
                .map(|element| rust::declared_type(node_text(element, text)))
                .collect();
            Name::new(format!("({})", elements.join(", ")))
        } else {
            rust::declared_type(node_text(returned, text))
        }
    } else {
        value_type(node_text(returned, text))
    };
    (!normalised.is_empty()).then_some(normalised)
}

/// The definition's head: its text up to its body, whitespace collapsed; comments between the
/// head and the body (Python's after the `:`) are left out.
pub(crate) fn signature(node: Node<'_>, text: &str) -> String {
    let end = node
        .child_by_field_name("body")
        .map(|body| {
            let mut cursor = node.walk();
            node.children(&mut cursor)
                .take_while(|child| child.id() != body.id())
                .filter(|child| !child.kind().contains("comment"))
                .map(|child| child.end_byte())
                .max()
                .unwrap_or(body.start_byte())
        })
        .unwrap_or_else(|| {
            let node_text = node_text(node, text);
            node.start_byte() + node_text.find('\n').unwrap_or(node_text.len())
        });
    let head = text
        .get(node.start_byte()..end.max(node.start_byte()))
        .unwrap_or("");
    let mut collapsed = String::with_capacity(head.len().min(MAX_SIGNATURE + 4));
    for word in head.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
        if collapsed.len() > MAX_SIGNATURE {
            let cut = codegraph_lang::syntax::floor_char_boundary(&collapsed, MAX_SIGNATURE);
            collapsed.truncate(cut);
            collapsed.push('…');
            break;
        }
    }
    collapsed
}

/// A docstring literal without its quotes and indentation.
pub(crate) fn clean_doc(raw: &str) -> String {
    let trimmed = raw.trim();
    let without_prefix = trimmed.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let unquoted = without_prefix
        .strip_prefix("\"\"\"")
        .and_then(|rest| rest.strip_suffix("\"\"\""))
        .or_else(|| {
            without_prefix
                .strip_prefix("'''")
                .and_then(|rest| rest.strip_suffix("'''"))
        })
        .or_else(|| {
            without_prefix
                .strip_prefix('"')
                .and_then(|rest| rest.strip_suffix('"'))
        })
        .or_else(|| {
            without_prefix
                .strip_prefix('\'')
                .and_then(|rest| rest.strip_suffix('\''))
        })
        .unwrap_or(trimmed);
    truncate_doc(dedent(unquoted))
}

fn dedent(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let start = lines
        .iter()
        .position(|line| !line.is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|line| !line.is_empty())
        .map_or(start, |index| index + 1);
    lines[start..end].join("\n")
}

fn truncate_doc(mut doc: String) -> String {
    if doc.len() > MAX_DOC {
        let cut = codegraph_lang::syntax::floor_char_boundary(&doc, MAX_DOC);
        doc.truncate(cut);
        doc.push('…');
    }
    doc
}

/// A definition's extent. A Python function's decorators are part of it, as in pyright's
/// ranges; the calls in them are still made by the scope around it (see `build`). A class's
/// decorators stay outside, as in pyright.
pub(crate) fn definition_span(node: Node<'_>) -> Span {
    let mut span = Span::from_node(node);
    if node.kind() == "function_definition"
        && let Some(parent) = node.parent()
        && parent.kind() == "decorated_definition"
    {
        let outer = Span::from_node(parent);
        span.start_byte = outer.start_byte;
    }
    span
}

/// Whether a comment can end right above `start` (or before it on its line): the text from two
/// lines above to `start` holds a comment marker of one of the languages. Without one, the
/// walk back over the siblings (each step a walk from the parent's first child) is skipped.
fn may_follow_comment(text: &str, start: usize) -> bool {
    const MARKERS: [&str; 7] = ["//", "/*", "*/", "#", "--", "]]", "=end"];
    let before = text.get(..start).unwrap_or(text);
    let mut from = before.len();
    for _ in 0..3 {
        from = before[..from].rfind('\n').unwrap_or(0);
    }
    let region = &before[from..];
    MARKERS.iter().any(|marker| region.contains(marker))
}

/// Comments directly above a definition (or above the export or decorator that wraps it).
pub(crate) fn leading_comment(node: Node<'_>, text: &str) -> Option<String> {
    let mut anchor = node;
    if let Some(parent) = node.parent()
        && matches!(
            parent.kind(),
            "export_statement"
                | "decorated_definition"
                | "template_declaration"
                | "attributed_declaration"
        )
    {
        anchor = parent;
    }
    if !may_follow_comment(text, anchor.start_byte()) {
        return None;
    }
    let comments = comments_above(anchor, text);
    if comments.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    for comment in comments {
        lines.extend(comment.lines().map(without_comment_markers));
    }
    let doc = dedent(&lines.join("\n"));
    if doc.is_empty() {
        None
    } else {
        Some(truncate_doc(doc))
    }
}

/// The comments that end on the line above `anchor`, or above each other, in document order.
fn comments_above<'text>(anchor: Node<'_>, text: &'text str) -> Vec<&'text str> {
    let mut comments: Vec<&str> = Vec::new();
    let mut expected_row = anchor.start_position().row;
    let mut sibling = anchor.prev_sibling();
    // Each step back costs tree-sitter a walk from the parent's first child: a doc is the
    // last few comments (30,000 comment lines above a function would take seconds to walk
    // whole).
    while let Some(previous) = sibling
        && comments.len() < MAX_DOC_COMMENTS
    {
        let kind = previous.kind();
        if !(kind.contains("comment")) || previous.end_position().row + 1 < expected_row {
            break;
        }
        comments.push(node_text(previous, text));
        expected_row = previous.start_position().row;
        sibling = previous.prev_sibling();
    }
    comments.reverse();
    comments
}

/// A comment's line without its markers (`/**`, `*/`, `///`, `//`, `--`, `#`, a leading `*`).
fn without_comment_markers(line: &str) -> &str {
    line.trim()
        .trim_start_matches("/**")
        .trim_start_matches("/*")
        .trim_end_matches("*/")
        .trim_start_matches("///")
        .trim_start_matches("//!")
        .trim_start_matches("//")
        .trim_start_matches("--")
        .trim_start_matches('#')
        .trim_start_matches('*')
        .trim()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_signature_stops_before_the_comments_that_open_the_body() {
        let text = "class A:\n    def get(cls):  # why\n        # Avoids a circular import.\n        return A\n";
        let (summary, _) = crate::extract_text(codegraph_lang::Language::Python, text);
        let signatures: Vec<&str> = summary.defs.iter().map(crate::Def::signature).collect();
        assert_eq!(signatures, ["class A:", "def get(cls):"]);
    }
}
