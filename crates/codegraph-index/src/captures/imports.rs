//! The import family of captures: `@import` and its roles (a path, a name, an alias, a
//! wildcard, a default export, an `export { .. } from` clause), and Rust's `use` trees,
//! flattened into one import per leaf.

use codegraph_model::{Name, Span};
use tree_sitter::Node;

use super::{MatchItem, RawCaptures, RawImport};
use crate::text::{node_text, strip_quotes};

impl RawCaptures {
    /// A Rust `use` tree: one import per leaf, at any depth.
    pub(super) fn add_use_tree(&mut self, tree: Node<'_>, item: &MatchItem<'_>, text: &str) {
        let span = Span::from_node(item.import.unwrap_or(tree));
        let mut leaves = Vec::new();
        use_tree_leaves(tree, text, "", &mut leaves);
        for (path, name, alias, wildcard) in leaves {
            self.imports.push(RawImport {
                path,
                name,
                alias,
                wildcard,
                span,
            });
        }
    }

    pub(super) fn add_import(&mut self, import: Node<'_>, item: &MatchItem<'_>, text: &str) {
        let path = import_path(item, text);
        let mut name = item
            .import_name
            .map(|name| Name::new(node_text(name, text).trim()));
        let mut alias = item
            .import_alias
            .map(|alias| Name::new(node_text(alias, text).trim()));
        if item.import_default {
            if item.import_path.is_some() {
                // `import x from './x'`: the default export, bound to x.
                name = Some(Name::new("default"));
            } else {
                // `export default origin`: origin, exported as `default`.
                alias = Some(Name::new("default"));
            }
        }
        if let Some(clause) = item.import_specifiers {
            self.add_export_specifiers(clause, &path, Span::from_node(import), text);
            return;
        }
        if path.is_empty() && name.is_none() {
            return;
        }
        self.imports.push(RawImport {
            path: Name::new(path),
            name,
            alias,
            wildcard: item.import_wildcard,
            span: Span::from_node(import),
        });
    }

    /// A JavaScript `export { a, b as c } from './m'`: one import per specifier.
    fn add_export_specifiers(&mut self, clause: Node<'_>, path: &str, span: Span, text: &str) {
        let mut cursor = clause.walk();
        for specifier in clause.named_children(&mut cursor) {
            let part = |field| {
                specifier
                    .child_by_field_name(field)
                    .map(|node| Name::new(node_text(node, text).trim()))
            };
            if specifier.kind() == "export_specifier"
                && let Some(name) = part("name")
            {
                self.imports.push(RawImport {
                    path: Name::new(path),
                    name: Some(name),
                    alias: part("alias"),
                    wildcard: false,
                    span,
                });
            }
        }
    }
}

/// The text of the import's path, quotes stripped; empty when it has none.
fn import_path(item: &MatchItem<'_>, text: &str) -> String {
    item.import_path
        .map(|(mut first, last)| {
            // Grammars that keep a dotted path as flat siblings (Scala): extend it back.
            while let Some(previous) = first.prev_named_sibling() {
                if previous.kind() != first.kind() || previous.end_byte() + 1 < first.start_byte() {
                    break;
                }
                first = previous;
            }
            strip_quotes(text.get(first.start_byte()..last.end_byte()).unwrap_or(""))
        })
        .unwrap_or_default()
}

/// The leaves of a Rust `use` tree below `prefix`: `(path, name, alias, wildcard)`, with `name`
/// the last segment (`use a::{b::{self, C as D}, e::*}` gives `a::b`, `a` + `b`, `a::b` + `C`
/// as `D`, `a::e` + `*`).
fn use_tree_leaves(
    node: Node<'_>,
    text: &str,
    prefix: &str,
    leaves: &mut Vec<(Name, Option<Name>, Option<Name>, bool)>,
) {
    let Some(_step) = codegraph_model::walk::enter() else {
        return;
    };
    match node.kind() {
        "identifier" | "scoped_identifier" | "crate" | "super" | "self" | "metavariable" => {
            // `use a::b::{self}` is the module `a::b` itself.
            let full = if node.kind() == "self" && !prefix.is_empty() {
                prefix.to_string()
            } else {
                join(prefix, node_text(node, text))
            };
            let (path, name) = split_last(full);
            leaves.push((path, name, None, false));
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (
                node.child_by_field_name("path"),
                node.child_by_field_name("alias"),
            ) else {
                return;
            };
            let full = if path.kind() == "self" {
                prefix.to_string()
            } else {
                join(prefix, node_text(path, text))
            };
            let (path, name) = split_last(full);
            leaves.push((path, name, Some(Name::new(node_text(alias, text))), false));
        }
        "use_wildcard" => {
            let mut cursor = node.walk();
            let inner = node
                .named_children(&mut cursor)
                .next()
                .map_or(String::new(), |path| node_text(path, text).to_string());
            leaves.push((Name::new(join(prefix, &inner)), None, None, true));
        }
        "scoped_use_list" => {
            let path = node
                .child_by_field_name("path")
                .map_or(String::new(), |path| node_text(path, text).to_string());
            let next_prefix = join(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                use_tree_leaves(list, text, &next_prefix, leaves);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                use_tree_leaves(child, text, prefix, leaves);
            }
        }
        _ => {}
    }
}

/// `prefix::path`, either of them maybe empty.
fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{path}"),
    }
}

/// `a::b::c` as the path `a::b` and the name `c`.
fn split_last(full: String) -> (Name, Option<Name>) {
    match full.rsplit_once("::") {
        Some((path, name)) => (Name::new(path), Some(Name::new(name))),
        None => (Name::default(), Some(Name::new(full))),
    }
}
