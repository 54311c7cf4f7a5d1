//! Rust `#[cfg(...)]` variants: which items the default build leaves out.
//!
//! A crate often defines one function twice, under `#[cfg(feature = "x")]` and
//! `#[cfg(not(feature = "x"))]`, or per platform. Resolution prefers the item of the default
//! build when both are candidates: features off (the graph cannot see which a build enables),
//! `test` and `debug_assertions` on, the host's platform (a 64-bit little-endian Unix), custom
//! cfgs off. An expression that does not parse leaves the item in.

use tree_sitter::Node;

/// The byte ranges of the items (and their bodies) that a `#[cfg]` leaves out of the default
/// build: the items of the file, of `mod`, `impl` and `trait` bodies included (an attribute
/// applies to the next item among its siblings). Found from each `#[cfg` in the text rather
/// than by walking every item (a 5,000-line file of documented methods has thousands of
/// siblings and a handful of attributes); a range inside another is left out.
pub fn disabled_ranges(root: Node<'_>, text: &str) -> Vec<std::ops::Range<u32>> {
    let mut ranges: Vec<std::ops::Range<u32>> = Vec::new();
    let mut cursor = root.walk();
    for (at, _) in text.match_indices("#[cfg") {
        // Not an attribute: another name that starts so (`cfg_attr`), or a line comment (doc
        // comments quote `#[cfg]`s; a third of arg.rs's): each descent costs a search of the
        // lists on the way down.
        if text[at + "#[cfg".len()..]
            .chars()
            .next()
            .is_some_and(|next| next.is_alphanumeric() || next == '_')
        {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
        if text[line_start..at].trim_start().starts_with("//") {
            continue;
        }
        // One descent with a cursor, which knows each node's parent: a node's `parent()` and
        // `next_named_sibling()` each search down from the root again, and a big `impl`'s
        // body has thousands of children.
        cursor.reset(root);
        let mut path = vec![root];
        while cursor.goto_first_child_for_byte(at).is_some() && cursor.node().start_byte() <= at {
            path.push(cursor.node());
        }
        let Some(depth) = path
            .iter()
            .rposition(|node| node.kind() == "attribute_item")
        else {
            continue;
        };
        let attribute = path[depth];
        if attribute.start_byte() != at || !in_item_list(&path[..=depth]) {
            continue;
        }
        let source = text.get(attribute.byte_range()).unwrap_or("");
        if cfg_predicate(source).is_none_or(|predicate| evaluate(predicate) != Some(false)) {
            continue;
        }
        // The item it applies to: the next sibling that is neither an attribute nor a comment.
        while cursor.node().id() != attribute.id() && cursor.goto_parent() {}
        let mut item = None;
        while cursor.goto_next_sibling() {
            let node = cursor.node();
            if node.is_named()
                && !matches!(
                    node.kind(),
                    "attribute_item" | "line_comment" | "block_comment"
                )
            {
                item = Some(node);
                break;
            }
        }
        if let Some(item) = item {
            ranges.push(item.start_byte() as u32..item.end_byte() as u32);
        }
    }
    ranges.sort_by_key(|range| (range.start, std::cmp::Reverse(range.end)));
    let mut outermost: Vec<std::ops::Range<u32>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if outermost.last().is_none_or(|last| last.end < range.end) {
            outermost.push(range);
        }
    }
    outermost
}

/// Whether the last node of `path` (from the root down to it) is among the items of the file
/// or of a `mod`, `impl` or `trait` body, those bodies themselves among such items.
fn in_item_list(path: &[Node<'_>]) -> bool {
    let mut at = path.len() - 1;
    loop {
        // The list holding `path[at]`, and the list's owner.
        if at == 1 {
            return true;
        }
        if at < 2 {
            return false;
        }
        let (list, owner) = (path[at - 1], path[at - 2]);
        let is_body = matches!(owner.kind(), "mod_item" | "impl_item" | "trait_item")
            && owner
                .child_by_field_name("body")
                .is_some_and(|body| body.id() == list.id());
        if !is_body {
            return false;
        }
        at -= 2;
    }
}

/// The predicate of `#[cfg(PREDICATE)]`.
fn cfg_predicate(attribute: &str) -> Option<&str> {
    let inner = attribute
        .trim()
        .strip_prefix("#[")?
        .strip_suffix(']')?
        .trim();
    let predicate = inner.strip_prefix("cfg")?.trim_start();
    predicate.strip_prefix('(')?.strip_suffix(')')
}

/// Whether the code at `byte` is left out of the build by a `#[cfg]` on an item or statement
/// around it, with the features `feature` says are on (the accuracy benchmark asks with a
/// crate's `default` features, as rust-analyzer builds it).
pub fn disabled_at(
    root: Node<'_>,
    text: &str,
    byte: usize,
    feature: &dyn Fn(&str) -> bool,
) -> bool {
    let Some(mut node) = root.descendant_for_byte_range(byte, byte) else {
        return false;
    };
    loop {
        let mut sibling = node.prev_sibling();
        while let Some(previous) = sibling {
            match previous.kind() {
                "attribute_item" => {
                    let attribute = text.get(previous.byte_range()).unwrap_or("");
                    if let Some(predicate) = cfg_predicate(attribute)
                        && evaluate_with(predicate, feature) == Some(false)
                    {
                        return true;
                    }
                }
                "line_comment" | "block_comment" => {}
                _ => break,
            }
            sibling = previous.prev_sibling();
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => return false,
        }
    }
}

/// Evaluates a cfg predicate with every feature off; `None` when it does not parse.
pub fn evaluate(predicate: &str) -> Option<bool> {
    evaluate_with(predicate, &|_| false)
}

/// Evaluates a cfg predicate, `feature` saying which features are on; `None` when it does not
/// parse.
pub fn evaluate_with(predicate: &str, feature: &dyn Fn(&str) -> bool) -> Option<bool> {
    let _step = codegraph_model::walk::enter()?;
    let predicate = predicate.trim();
    for (combinator, all) in [("all", true), ("any", false)] {
        if let Some(rest) = predicate.strip_prefix(combinator)
            && let Some(arguments) = rest.trim_start().strip_prefix('(')
        {
            let arguments = arguments.strip_suffix(')')?;
            let mut result = all;
            for argument in split_arguments(arguments) {
                if argument.trim().is_empty() {
                    continue;
                }
                let value = evaluate_with(argument, feature)?;
                result = if all {
                    result && value
                } else {
                    result || value
                };
            }
            return Some(result);
        }
    }
    if let Some(rest) = predicate.strip_prefix("not")
        && let Some(argument) = rest.trim_start().strip_prefix('(')
    {
        return Some(!evaluate_with(argument.strip_suffix(')')?, feature)?);
    }
    if let Some((key, value)) = predicate.split_once('=') {
        let value = value.trim().trim_matches('"');
        return Some(match key.trim() {
            "feature" => feature(value),
            "target_os" => value == "linux",
            "target_family" => value == "unix",
            "target_arch" => value == std::env::consts::ARCH,
            "target_pointer_width" => value == "64",
            "target_endian" => value == "little",
            "target_has_atomic" => true,
            "panic" => value == "unwind",
            "target_env" => value == "gnu",
            "target_vendor" => value == "unknown",
            _ => false,
        });
    }
    Some(matches!(predicate, "test" | "debug_assertions" | "unix"))
}

/// Splits at top-level commas.
fn split_arguments(text: &str) -> Vec<&str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    let mut in_string = false;
    for (offset, character) in text.char_indices() {
        match character {
            '"' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => depth -= 1,
            ',' if depth == 0 && !in_string => {
                parts.push(&text[start..offset]);
                start = offset + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_build_has_no_features_and_the_host_platform() {
        assert_eq!(evaluate("feature = \"std\""), Some(false));
        assert_eq!(
            evaluate("not(feature = \"arbitrary_precision\")"),
            Some(true)
        );
        assert_eq!(
            evaluate("all(unix, not(target_os = \"macos\"))"),
            Some(true)
        );
        assert_eq!(evaluate("any(windows, target_os = \"wasi\")"), Some(false));
        assert_eq!(evaluate("test"), Some(true));
        assert_eq!(
            evaluate("all(feature = \"a\", feature = \"b\")"),
            Some(false)
        );
        assert_eq!(evaluate("not("), None);
        assert_eq!(
            cfg_predicate("#[cfg(not(feature = \"std\"))]"),
            Some("not(feature = \"std\")")
        );
        assert_eq!(cfg_predicate("#[cfg_attr(test, derive(Debug))]"), None);
        let std = |feature: &str| feature == "std";
        assert_eq!(evaluate_with("feature = \"std\"", &std), Some(true));
        assert_eq!(evaluate_with("not(feature = \"std\")", &std), Some(false));
    }

    /// The walk over every item that `disabled_ranges` replaced by a search of the text: both
    /// must say the same, item for item.
    fn disabled_by_walking(root: Node<'_>, text: &str) -> Vec<std::ops::Range<u32>> {
        let mut ranges = Vec::new();
        let mut lists = vec![root];
        while let Some(list) = lists.pop() {
            let mut cursor = list.walk();
            let mut pending = false;
            for child in list.named_children(&mut cursor) {
                match child.kind() {
                    "attribute_item" => {
                        let attribute = text.get(child.byte_range()).unwrap_or("");
                        if let Some(predicate) = cfg_predicate(attribute)
                            && evaluate(predicate) == Some(false)
                        {
                            pending = true;
                        }
                    }
                    "line_comment" | "block_comment" => {}
                    _ => {
                        if pending {
                            ranges.push(child.start_byte() as u32..child.end_byte() as u32);
                        } else if matches!(child.kind(), "mod_item" | "impl_item" | "trait_item")
                            && let Some(body) = child.child_by_field_name("body")
                        {
                            lists.push(body);
                        }
                        pending = false;
                    }
                }
            }
        }
        ranges.sort_by_key(|range| range.start);
        ranges
    }

    #[test]
    fn searching_the_text_for_cfg_finds_what_walking_every_item_finds() {
        let crafted = "#[cfg(feature = \"a\")]\n/// doc\n#[inline]\nfn one() {}\n\
            mod m {\n    #[cfg(windows)]\n    #[cfg(feature = \"b\")]\n    pub fn two() {}\n\
            \x20   #[cfg(unix)]\n    pub fn three() {}\n}\n\
            impl T {\n    #[cfg(feature = \"c\")]\n    // a comment\n    fn four(&self) {\n\
            \x20       #[cfg(feature = \"d\")]\n        let x = 1;\n    }\n}\n\
            #[cfg(feature = \"e\")]\nmod off {\n    #[cfg(feature = \"f\")]\n    fn five() {}\n}\n\
            #[doc = \"#[cfg(feature = \\\"g\\\")]\"]\nfn six() {}\n#![cfg(feature = \"h\")]\n";
        let mut texts = vec![crafted.to_string()];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![src];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|extension| extension == "rs")
                    && let Ok(text) = std::fs::read_to_string(&path)
                    && text.contains("#[cfg")
                {
                    texts.push(text);
                }
            }
        }
        assert!(texts.len() > 5, "this crate's own sources have #[cfg]s");
        for text in &texts {
            let tree = crate::syntax::parse(crate::Language::Rust, text).expect("parses");
            let mut found = disabled_ranges(tree.root_node(), text);
            found.sort_by_key(|range| range.start);
            assert_eq!(found, disabled_by_walking(tree.root_node(), text), "{text}");
        }
        let tree = crate::syntax::parse(crate::Language::Rust, crafted).expect("parses");
        let names: Vec<&str> = disabled_ranges(tree.root_node(), crafted)
            .iter()
            .map(|range| {
                let item = &crafted[range.start as usize..range.end as usize];
                let mut words = item.split(['(', ' ', '\n']);
                words.find(|word| matches!(*word, "fn" | "mod"));
                words.next().unwrap_or("")
            })
            .collect();
        assert_eq!(names, ["one", "two", "four", "off"]);
    }

    #[test]
    fn code_under_a_cfg_that_does_not_hold_is_disabled() {
        let text = "fn is_u64(&self) -> bool {\n    #[cfg(not(feature = \"arbitrary_precision\"))]\n    match self.n { _ => true }\n    #[cfg(feature = \"arbitrary_precision\")]\n    self.as_u64().is_some()\n}\n\n#[cfg(feature = \"std\")]\nfn with_std() { g() }\n";
        let tree = crate::syntax::parse(crate::Language::Rust, text).expect("parses");
        let at = |needle: &str| text.find(needle).expect("in the text");
        let off = |_: &str| false;
        let std = |feature: &str| feature == "std";
        let root = tree.root_node();
        assert!(disabled_at(root, text, at("self.as_u64"), &off));
        assert!(!disabled_at(root, text, at("self.n"), &off));
        assert!(disabled_at(root, text, at("g()"), &off));
        assert!(!disabled_at(root, text, at("g()"), &std));
    }
}
