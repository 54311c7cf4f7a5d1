//! Rust items written inside an item-level macro invocation, parsed as the items they are.
//!
//! tokio, and many crates like it, wrap whole groups of items in macros that only add an
//! attribute to each (`cfg_rt! { pub use spawn::spawn; mod spawn; }`, defined as
//! `($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* }`). tree-sitter reads the braces
//! as a token tree, so the `use`, the functions and the `impl` blocks inside are tokens: the
//! re-export does not exist, the functions have no body to resolve. Here such a wrapper's
//! header (`cfg_rt! {`) and closing brace are blanked, length for length, and the text parsed
//! again: the items parse where they are written, at the same offsets, lines and columns.
//!
//! A wrapper is an invocation at item level (in a file, a `mod`, an `impl` or a `trait` body)
//! whose braces open on an item: after attributes, a visibility or item keyword, or another
//! such invocation. If its content does not parse as items without errors (`bitflags!`'s
//! `pub struct Flags: u32 { .. }`, `lazy_static!`'s `static ref`), it stays a token tree.
//!
//! Invariant: [`RustTree::tree`] is the tree of the text with [`RustTree::masks`] blanked;
//! the plain tree (the text as written) is what the next edit reparses incrementally, and the
//! masked one is reparsed incrementally too when the edit left every mask where it was.

use std::ops::Range;

use tree_sitter::{InputEdit, Node, Parser, Tree};

/// Tokens that start an item inside a wrapper's braces.
const ITEM_STARTS: &[&str] = &[
    "pub", "fn", "mod", "use", "struct", "enum", "impl", "trait", "type", "const", "static",
    "unsafe", "async", "extern",
];

/// An item-level invocation that wraps items: its blanked header (`cfg_rt! {`) and closing
/// brace.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Wrapper {
    head: Range<usize>,
    close: Range<usize>,
}

/// A Rust syntax tree, with the plain tree it was derived from when wrappers were unwrapped.
pub struct RustTree {
    /// What extraction reads.
    pub tree: Tree,
    /// The tree of the text as written, when `tree` parsed masked text.
    plain: Option<Tree>,
    /// The unwrapped wrappers, by header start (outer before inner). After an edit, those it
    /// did not touch are shifted with the text; the masked tree is reused only when a fresh
    /// search finds exactly these (a touched one is left where it was, and the edit's range
    /// is reparsed anyway).
    wrappers: Vec<Wrapper>,
}

impl RustTree {
    /// The blanked byte ranges, sorted (empty when no wrapper was unwrapped).
    #[cfg(test)]
    fn masks(&self) -> Vec<Range<usize>> {
        let mut masks: Vec<Range<usize>> = self
            .wrappers
            .iter()
            .flat_map(|wrapper| [wrapper.head.clone(), wrapper.close.clone()])
            .collect();
        masks.sort_by_key(|mask| mask.start);
        masks
    }

    /// Edits the trees and the masks as `edit` edits the text.
    pub fn edit(&mut self, edit: &InputEdit) {
        self.tree.edit(edit);
        if let Some(plain) = &mut self.plain {
            plain.edit(edit);
        }
        let shift = |mask: &mut Range<usize>| {
            if mask.start >= edit.old_end_byte {
                mask.start = mask.start + edit.new_end_byte - edit.old_end_byte;
                mask.end = mask.end + edit.new_end_byte - edit.old_end_byte;
            }
        };
        for wrapper in &mut self.wrappers {
            shift(&mut wrapper.head);
            shift(&mut wrapper.close);
        }
    }

    /// Parses `text`, reusing `old` (edited to match) where it can. Returns the tree and
    /// whether its extraction tree was parsed incrementally from `old`'s (so that
    /// `changed_ranges` between the two means something).
    pub fn parse(
        parser: &mut Parser,
        text: &str,
        old: Option<&RustTree>,
    ) -> Option<(RustTree, bool)> {
        let old_plain = old.map(|old| old.plain.as_ref().unwrap_or(&old.tree));
        let plain = parser.parse(text, old_plain)?;
        let mut wrappers = Vec::new();
        item_wrappers(&plain, text, &mut wrappers);
        // At most two tries: a wrapper whose content is no items stays a token tree.
        for _ in 0..2 {
            if wrappers.is_empty() {
                break;
            }
            wrappers.sort_by_key(|wrapper: &Wrapper| wrapper.head.start);
            let masked = masked_text(text, &wrappers);
            let reusable = old.filter(|old| old.plain.is_some() && old.wrappers == wrappers);
            let tree = parser.parse(&masked, reusable.map(|old| &old.tree))?;
            let broken = broken_wrappers(&tree, &wrappers);
            if broken.is_empty() {
                return Some((
                    RustTree {
                        tree,
                        plain: Some(plain),
                        wrappers,
                    },
                    reusable.is_some(),
                ));
            }
            // Drop the broken wrappers and those inside them.
            wrappers.retain(|wrapper| {
                !broken.iter().any(|outer| {
                    wrapper.head.start >= outer.head.start && wrapper.close.end <= outer.close.end
                })
            });
        }
        if !wrappers.is_empty() {
            // Still broken after one retry: parse the text as written.
            wrappers.clear();
        }
        let incremental = old.is_some_and(|old| old.plain.is_none());
        Some((
            RustTree {
                tree: plain,
                plain: None,
                wrappers,
            },
            incremental,
        ))
    }
}

/// Whether `text` holds `name! {` anywhere (whitespace allowed around the `!`): without one
/// there is no wrapper, and the walk over every item (a 5,000-line `impl` with its doc
/// comments has thousands of children: 0.15 ms) is skipped.
fn may_hold_wrappers(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices('!').any(|(bang, _)| {
        let named = bang > 0 && {
            let mut at = bang;
            while at > 0 && bytes[at - 1].is_ascii_whitespace() {
                at -= 1;
            }
            at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
        };
        named
            && bytes[bang + 1..]
                .iter()
                .find(|byte| !byte.is_ascii_whitespace())
                == Some(&b'{')
    })
}

/// Adds the wrappers at item level in `tree`, and those at item level inside them.
fn item_wrappers(tree: &Tree, text: &str, wrappers: &mut Vec<Wrapper>) {
    if !may_hold_wrappers(text) {
        return;
    }
    let mut bodies = vec![tree.root_node()];
    while let Some(body) = bodies.pop() {
        let mut cursor = body.walk();
        for child in body.named_children(&mut cursor) {
            match child.kind() {
                "macro_invocation" => {
                    let Some(name) = child.child_by_field_name("macro") else {
                        continue;
                    };
                    if name.kind() != "identifier"
                        || text.get(name.byte_range()) == Some("macro_rules")
                    {
                        continue;
                    }
                    let Some(group) = child
                        .named_child(child.named_child_count().saturating_sub(1) as u32)
                        .filter(|group| group.kind() == "token_tree")
                    else {
                        continue;
                    };
                    wrapper_at(child.start_byte(), group, text, wrappers);
                }
                "mod_item" | "impl_item" | "trait_item" => {
                    if let Some(inner) = child.child_by_field_name("body") {
                        bodies.push(inner);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The tokens of a token tree, comments left out: `{`, its content, `}`.
fn tokens(group: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = group.walk();
    group
        .children(&mut cursor)
        .filter(|node| !node.kind().ends_with("comment"))
        .collect()
}

/// Adds the wrapper whose header starts at `start` and whose braces are `group` when `group`
/// holds items, then the wrappers at item level among its tokens.
fn wrapper_at(start: usize, group: Node<'_>, text: &str, wrappers: &mut Vec<Wrapper>) {
    let Some(_step) = codegraph_model::walk::enter() else {
        return;
    };
    if !text
        .get(group.byte_range())
        .is_some_and(|group| group.starts_with('{'))
    {
        return;
    }
    let tokens = tokens(group);
    let is_invocation = |at: usize| {
        tokens
            .get(at)
            .is_some_and(|node| node.kind() == "identifier")
            && tokens.get(at + 1).is_some_and(|node| node.kind() == "!")
            && tokens.get(at + 2).is_some_and(|node| {
                node.kind() == "token_tree"
                    && text
                        .get(node.byte_range())
                        .is_some_and(|inner| inner.starts_with('{'))
            })
    };
    // The first token after `{` and any `#[..]` attributes.
    let mut at = 1;
    while tokens.get(at).is_some_and(|node| node.kind() == "#") {
        at += 2;
    }
    let Some(first) = tokens.get(at) else {
        return;
    };
    if !ITEM_STARTS.contains(&first.kind()) && !is_invocation(at) {
        return;
    }
    wrappers.push(Wrapper {
        head: start..group.start_byte() + 1,
        close: group.end_byte() - 1..group.end_byte(),
    });
    // Wrappers inside: an invocation where an item starts (first, or after `;`, a braced
    // group or an attribute).
    let mut item_start = true;
    let mut index = 1;
    while index + 1 < tokens.len() {
        let node = tokens[index];
        if item_start && is_invocation(index) {
            wrapper_at(node.start_byte(), tokens[index + 2], text, wrappers);
            index += 3;
            item_start = true;
            continue;
        }
        item_start = match node.kind() {
            ";" => true,
            "token_tree" => text
                .get(node.byte_range())
                .is_some_and(|group| group.starts_with('{') || group.starts_with('[')),
            "#" => item_start,
            _ => false,
        };
        index += 1;
    }
}

/// `text` with the wrappers' headers and closing braces blanked (every byte but a line break a
/// space: offsets, lines and columns stay where they were).
fn masked_text(text: &str, wrappers: &[Wrapper]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for wrapper in wrappers {
        for mask in [&wrapper.head, &wrapper.close] {
            for byte in &mut bytes[mask.clone()] {
                if *byte != b'\n' {
                    *byte = b' ';
                }
            }
        }
    }
    // A mask starts and ends at a node's edges; a comment in a header may hold a non-ASCII
    // character, whose every byte becomes a space: the text stays UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// The wrappers whose content has a syntax error at item level (an error inside a function
/// body is an edit in progress, not a sign that the content is no items).
fn broken_wrappers(tree: &Tree, wrappers: &[Wrapper]) -> Vec<Wrapper> {
    let root = tree.root_node();
    if !root.has_error() {
        return Vec::new();
    }
    let mut errors = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            if at_item_level(node) {
                errors.push(node.start_byte());
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor).filter(|child| child.has_error()));
    }
    wrappers
        .iter()
        .filter(|wrapper| {
            errors
                .iter()
                .any(|&error| error >= wrapper.head.start && error < wrapper.close.end)
        })
        .cloned()
        .collect()
}

/// Whether an error node sits outside any function body (in a body it is an edit in
/// progress; among items, or in an item's header, it says the content is no items).
fn at_item_level(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(parent) = current {
        match parent.kind() {
            "block" => return false,
            "source_file" | "declaration_list" => return true,
            _ => current = parent.parent(),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parser() -> Parser {
        let mut parser = Parser::new();
        parser
            .set_language(&(crate::Language::Rust.spec().grammar)())
            .unwrap();
        parser
    }

    #[test]
    fn items_inside_an_attribute_wrapper_parse_as_items_in_place() {
        let text = "cfg_rt! {\n    #[doc = \"x\"]\n    pub use spawn::spawn;\n    cfg_unstable! {\n        mod x;\n    }\n}\nimpl Foo {\n    cfg_rt! { pub fn a(&self) {} }\n}\n";
        let (parsed, _) = RustTree::parse(&mut parser(), text, None).unwrap();
        let sexp = parsed.tree.root_node().to_sexp();
        assert!(sexp.contains("(use_declaration"), "{sexp}");
        assert!(sexp.contains("(mod_item"), "{sexp}");
        assert!(sexp.contains("(function_item"), "{sexp}");
        assert!(!sexp.contains("macro_invocation"), "{sexp}");
        assert_eq!(parsed.tree.root_node().end_byte(), text.len());
        // Each wrapper's header and closing brace, nested ones found in the second pass.
        let masked: Vec<&str> = parsed.masks().into_iter().map(|mask| &text[mask]).collect();
        assert_eq!(
            masked,
            ["cfg_rt! {", "cfg_unstable! {", "}", "}", "cfg_rt! {", "}"]
        );
    }

    #[test]
    fn only_text_with_a_braced_invocation_is_walked() {
        assert!(may_hold_wrappers("cfg_rt! {"));
        assert!(may_hold_wrappers("cfg_rt!\n{"));
        assert!(may_hold_wrappers("x !{"));
        assert!(!may_hold_wrappers("(!{ x })"));
        assert!(!may_hold_wrappers("m!(a); n![b]; a != b; !"));
    }

    #[test]
    fn a_macro_whose_braces_hold_no_items_stays_a_token_tree() {
        for text in [
            // Not items after all: the content does not parse.
            "bitflags! {\n    pub struct Flags: u32 {\n        const A = 1;\n    }\n}\n",
            // Not an item keyword first.
            "cfg_if! {\n    if #[cfg(unix)] { fn a() {} } else { fn b() {} }\n}\n",
            "quickcheck! {}\n",
            // Parenthesised, or a macro definition.
            "thread_local!(static X: u32 = 1);\n",
            "macro_rules! m {\n    () => { fn a() {} };\n}\n",
        ] {
            let (parsed, _) = RustTree::parse(&mut parser(), text, None).unwrap();
            assert!(parsed.masks().is_empty(), "{text}");
            assert!(parsed.plain.is_none(), "{text}");
        }
        // The grammar reads `static ref` as a static item: `lazy_static!`'s statics are items.
        let text = "lazy_static! {\n    static ref X: u32 = 1;\n}\n";
        let (parsed, _) = RustTree::parse(&mut parser(), text, None).unwrap();
        assert!(
            parsed
                .tree
                .root_node()
                .to_sexp()
                .starts_with("(source_file (static_item")
        );
    }

    #[test]
    fn an_edit_away_from_the_masks_reparses_incrementally() {
        let text = "cfg_rt! {\n    pub fn a() { b(); }\n}\nfn b() {}\n";
        let mut parser = parser();
        let (mut parsed, _) = RustTree::parse(&mut parser, text, None).unwrap();
        let edited = text.replace("b(); }", "b(); c(); }");
        let at = text.find(" }").unwrap();
        let edit = InputEdit {
            start_byte: at,
            old_end_byte: at,
            new_end_byte: at + 5,
            start_position: tree_sitter::Point::new(1, at - 10),
            old_end_position: tree_sitter::Point::new(1, at - 10),
            new_end_position: tree_sitter::Point::new(1, at - 5),
        };
        parsed.edit(&edit);
        let (again, incremental) = RustTree::parse(&mut parser, &edited, Some(&parsed)).unwrap();
        assert!(incremental);
        let fresh = RustTree::parse(&mut parser, &edited, None).unwrap().0;
        assert_eq!(
            again.tree.root_node().to_sexp(),
            fresh.tree.root_node().to_sexp()
        );
        assert_eq!(again.masks(), fresh.masks());
        // An edit of a header parses the masked text from scratch.
        let mut touched = fresh;
        touched.edit(&InputEdit {
            start_byte: 0,
            old_end_byte: 3,
            new_end_byte: 0,
            start_position: tree_sitter::Point::new(0, 0),
            old_end_position: tree_sitter::Point::new(0, 3),
            new_end_position: tree_sitter::Point::new(0, 0),
        });
        let (_, incremental) = RustTree::parse(&mut parser, &edited[3..], Some(&touched)).unwrap();
        assert!(!incremental);
    }
}
