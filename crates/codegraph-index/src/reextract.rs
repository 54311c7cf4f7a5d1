//! Re-extraction after an edit, for an editor buffer: the captures outside the edited region
//! are kept ([`Captures`], moved by [`Captures::shift`]), the query runs again over the
//! top-level nodes around the edit only ([`reread_region`]), and the two are spliced in the
//! order a full extraction would give, before the summary is built again.

use std::ops::Range;

use codegraph_lang::Language;
use codegraph_model::Span;
use tree_sitter::{Node, Tree};

use crate::FileSummary;
use crate::captures::{RawCaptures, RawInherit, run_query};
use crate::extract::{contained, extract_keeping, summarise};

/// What extraction found before building the summary, kept by an editor buffer so that the next
/// edit re-runs the query only over the part of the file it touched ([`reextract`]).
#[derive(Clone, Default)]
pub struct Captures {
    raw: RawCaptures,
    /// The extraction these would have come from failed: the next one starts afresh.
    failed: bool,
}

impl Captures {
    /// Captures kept from an extraction, for the next edit's [`reextract`].
    pub(crate) fn kept(raw: RawCaptures) -> Captures {
        Captures { raw, failed: false }
    }

    /// The captures of an extraction that failed: the next edit extracts afresh.
    pub(crate) fn failed() -> Captures {
        Captures {
            raw: RawCaptures::default(),
            failed: true,
        }
    }

    /// Moves every capture after an edit to where its text now is, and drops the captures the
    /// edit cuts into ([`reextract`] reads the edited region again).
    pub fn shift(&mut self, edit: &tree_sitter::InputEdit) {
        // A capture the edit cuts into is gone; [`reextract`] reads that region again.
        // A capture that strictly contains the edit (a container whose member is edited)
        // stretches with it; [`reextract`] keeps it when it re-reads only inside.
        let untouched = |span: &Span| {
            let (start, end) = (span.start_byte as usize, span.end_byte as usize);
            end <= edit.start_byte
                || start >= edit.old_end_byte.max(edit.start_byte + 1)
                || (start < edit.start_byte && edit.old_end_byte < end)
        };
        let shift = |span: &mut Span| {
            shift_byte(edit, &mut span.start_byte);
            shift_byte(edit, &mut span.end_byte);
        };
        let raw = &mut self.raw;
        raw.defs.retain(|def| untouched(&def.span));
        raw.impls.retain(|item| untouched(&item.span));
        raw.refs.retain(|item| untouched(&item.span));
        raw.bindings.retain(|item| untouched(&item.span));
        raw.imports.retain(|item| untouched(&item.span));
        raw.inherits.retain(|item| untouched(&item.span));
        raw.package.retain(|item| untouched(&item.1));
        for def in &mut raw.defs {
            shift(&mut def.span);
            shift(&mut def.name_span);
        }
        raw.impls.iter_mut().for_each(|item| shift(&mut item.span));
        raw.refs.iter_mut().for_each(|item| shift(&mut item.span));
        raw.bindings.iter_mut().for_each(|item| {
            shift(&mut item.span);
            if let Some(region) = &mut item.region {
                shift(region);
            }
            if let Some(declaration) = &mut item.declared_in {
                shift(declaration);
            }
        });
        raw.imports
            .iter_mut()
            .for_each(|item| shift(&mut item.span));
        raw.inherits
            .iter_mut()
            .for_each(|item| shift(&mut item.span));
        raw.package.iter_mut().for_each(|item| shift(&mut item.1));
    }
}

/// Tree-sitter's own rule for moving a byte past an edit.
fn shift_byte(edit: &tree_sitter::InputEdit, byte: &mut u32) {
    let offset = *byte as usize;
    if offset >= edit.old_end_byte {
        *byte = (offset + edit.new_end_byte - edit.old_end_byte) as u32;
    } else if offset > edit.start_byte {
        *byte = edit.new_end_byte as u32;
    }
}

/// Re-extracts after edits: the query runs only over the top-level nodes around `dirty` (the
/// edited bytes, in the new text), the captures elsewhere are reused (already [`Captures::shift`]ed).
/// Falls back to a full extraction when a capture reaches outside the re-read region.
pub fn reextract(
    language: Language,
    text: &str,
    tree: &Tree,
    captures: &mut Captures,
    dirty: Range<usize>,
) -> FileSummary {
    if captures.failed {
        let (summary, fresh) = extract_keeping(language, text, tree);
        *captures = fresh;
        return summary;
    }
    let (summary, fresh) = contained(language, text, || {
        let summary = reextract_unguarded(language, text, tree, captures, dirty);
        (summary, std::mem::take(captures))
    });
    *captures = fresh;
    summary
}

fn reextract_unguarded(
    language: Language,
    text: &str,
    tree: &Tree,
    captures: &mut Captures,
    dirty: Range<usize>,
) -> FileSummary {
    let spec = language.spec();
    let Ok(query) = spec.query() else {
        return extract_afresh(language, text, tree, captures);
    };
    let root = tree.root_node();
    let region = Region {
        bytes: reread_region(root, dirty, text.len()),
        text_len: text.len(),
    };
    let fresh = run_query(query, root, text, Some(region.bytes.clone()), language);
    if !region.all_usable(&fresh, &captures.raw) {
        return extract_afresh(language, text, tree, captures);
    }
    let old = std::mem::take(&mut captures.raw);
    let merged = region.merge(old, fresh);
    let summary = summarise(language, text, root, merged.clone(), spec.self_receivers);
    captures.raw = merged;
    summary
}

/// A full extraction, its captures kept in place of the old ones.
fn extract_afresh(
    language: Language,
    text: &str,
    tree: &Tree,
    captures: &mut Captures,
) -> FileSummary {
    let (summary, fresh) = extract_keeping(language, text, tree);
    *captures = fresh;
    summary
}

/// The bytes the query re-read, and where each capture lies from them.
struct Region {
    bytes: Range<usize>,
    text_len: usize,
}

impl Region {
    fn inside(&self, span: &Span) -> bool {
        self.bytes.start <= span.start_byte as usize && span.end_byte as usize <= self.bytes.end
    }

    /// A container around the region (the `impl` whose method is re-read): its old capture,
    /// stretched by `shift`, stays; the query finds it again, and that copy is dropped.
    fn around(&self, span: &Span) -> bool {
        (span.start_byte as usize) <= self.bytes.start
            && self.bytes.end <= span.end_byte as usize
            && !self.inside(span)
    }

    // At the file's edges the region covers everything: a zero-width capture there (a MISSING
    // node of error recovery) is not "outside" the re-read region, whatever its offset.
    fn before(&self, span: &Span) -> bool {
        self.bytes.start > 0 && (span.end_byte as usize) <= self.bytes.start
    }

    fn after(&self, span: &Span) -> bool {
        self.bytes.end < self.text_len && (span.start_byte as usize) >= self.bytes.end
    }

    /// Each fresh capture is inside the region, or around it with its old copy, as it is,
    /// still there: a container's capture may read what the edit changed (a function's return
    /// type from its body), and then the file is extracted afresh.
    fn usable<T: PartialEq>(&self, fresh: &[T], old: &[T], span: impl Fn(&T) -> Span) -> bool {
        fresh.iter().all(|item| {
            self.inside(&span(item)) || (self.around(&span(item)) && old.contains(item))
        })
    }

    fn all_usable(&self, fresh: &RawCaptures, old: &RawCaptures) -> bool {
        self.usable(&fresh.defs, &old.defs, |def| def.span)
            && self.usable(&fresh.impls, &old.impls, |item| item.span)
            && self.usable(&fresh.refs, &old.refs, |item| item.span)
            && self.usable(&fresh.bindings, &old.bindings, |item| item.span)
            && self.usable(&fresh.imports, &old.imports, |item| item.span)
            && self.usable_bases(&fresh.inherits, &old.inherits)
            && self.usable(&fresh.package, &old.package, |item| item.1)
    }

    /// As [`Region::usable`], and a base outside the region that the query found again because
    /// its class reaches into the region (a Python class whose method is re-read: its
    /// `(Base)` list is before the region) is usable when the old captures hold it as it is.
    fn usable_bases(&self, fresh: &[RawInherit], old: &[RawInherit]) -> bool {
        fresh.iter().all(|item| {
            self.inside(&item.span)
                || ((self.around(&item.span) || self.before(&item.span) || self.after(&item.span))
                    && old.contains(item))
        })
    }

    /// Old captures before the region and around it, then the region's, then those after: the
    /// order of a full extraction (matches come by their start).
    fn splice<T>(&self, old: Vec<T>, fresh: Vec<T>, span: impl Fn(&T) -> Span) -> Vec<T> {
        let mut head = Vec::with_capacity(old.len() + fresh.len());
        let mut tail = Vec::new();
        for item in old {
            let item_span = span(&item);
            if self.before(&item_span) || self.around(&item_span) {
                head.push(item);
            } else if self.after(&item_span) {
                tail.push(item);
            }
        }
        head.extend(fresh.into_iter().filter(|item| self.inside(&span(item))));
        head.extend(tail);
        head
    }

    fn merge(&self, old: RawCaptures, fresh: RawCaptures) -> RawCaptures {
        RawCaptures {
            rust: fresh.rust,
            macro_rules: fresh.macro_rules,
            defs: self.splice(old.defs, fresh.defs, |def| def.span),
            impls: self.splice(old.impls, fresh.impls, |item| item.span),
            refs: self.splice(old.refs, fresh.refs, |item| item.span),
            bindings: self.splice(old.bindings, fresh.bindings, |item| item.span),
            imports: self.splice(old.imports, fresh.imports, |item| item.span),
            inherits: self.splice(old.inherits, fresh.inherits, |item| item.span),
            package: self.splice(old.package, fresh.package, |item| item.1),
        }
    }
}

/// The bytes to re-read for an edit of `dirty`: the top-level nodes it touches, widened by the
/// comments next to them and one more node on each side (a definition's doc comment, patterns
/// that look at a neighbouring statement; before it, not a container, whose captures an edit
/// after it cannot change), from the end of the node before to the start of the node after.
/// An edit strictly inside the body of one container (an `impl`, a class, a module:
/// a `body` that is a declaration list) narrows to the members of that body it touches, and so
/// on down: typing in one method of a 5,000-line `impl` re-reads that method, not the `impl`.
/// The containers around the region keep their captures ([`Captures::shift`] stretches them).
fn reread_region(root: Node<'_>, dirty: Range<usize>, text_len: usize) -> Range<usize> {
    let mut list = root;
    let (mut list_start, mut list_end) = (0, text_len);
    loop {
        let mut cursor = list.walk();
        let children: Vec<Node<'_>> = list.children(&mut cursor).collect();
        if children.is_empty() {
            return list_start.min(dirty.start)..list_end.max(dirty.end).min(text_len);
        }
        let first = children
            .iter()
            .position(|child| child.end_byte() >= dirty.start)
            .unwrap_or(children.len() - 1);
        let last = children
            .iter()
            .rposition(|child| child.start_byte() <= dirty.end)
            .unwrap_or(0)
            .max(first);
        if first == last
            && let Some(body) = container_body(children[first])
                .or_else(|| python_class_members(children[first], &dirty))
                .or_else(|| ecma_function_body(children[first], &dirty))
            && body.start_byte() < dirty.start
            && dirty.end < body.end_byte()
        {
            list = body;
            (list_start, list_end) = (body.start_byte(), body.end_byte());
            continue;
        }
        let mut first = first;
        while first > 0 && children[first - 1].kind().contains("comment") {
            first -= 1;
        }
        // One more node before, unless it is a container (an `impl`, a class, a module): the
        // captures of what comes after do not depend on it, and a container before a small
        // edited item (a function after a 4,000-line `impl`) is most of the file.
        if first > 0 && container_body(children[first - 1]).is_none() {
            first -= 1;
        }
        let mut last = last;
        while last + 1 < children.len() && children[last + 1].kind().contains("comment") {
            last += 1;
        }
        last = (last + 1).min(children.len() - 1);
        let start = if first == 0 {
            list_start
        } else {
            children[first - 1].end_byte()
        };
        let end = if last + 1 >= children.len() {
            list_end
        } else {
            children[last + 1].start_byte()
        };
        return start.min(dirty.start)..end.max(dirty.end).min(text_len);
    }
}

/// A Python class's body, as a member list for an edit after its first statement: typing in
/// one method of a 5,000-line test class re-reads that method and its neighbours, not the
/// class. An edit that reaches the first statement (the class's docstring, which its capture
/// reads) re-reads the whole class, as does one in its header or decorators: `None`.
fn python_class_members<'t>(node: Node<'t>, dirty: &Range<usize>) -> Option<Node<'t>> {
    // A decorated class: its decorators come before its body.
    let node = match node.kind() {
        "decorated_definition" => node.child_by_field_name("definition")?,
        _ => node,
    };
    if node.kind() != "class_definition" {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    (body.kind() == "block" && first.end_byte() < dirty.start).then_some(body)
}

/// The JavaScript/TypeScript functions whose body is a block of statements.
const ECMA_FUNCTIONS: [&str; 6] = [
    "function_declaration",
    "function_expression",
    "generator_function_declaration",
    "generator_function",
    "arrow_function",
    "method_definition",
];

/// The innermost JavaScript/TypeScript function body in `node` that holds the edit strictly
/// inside its braces, as a statement list: typing in one module of a bundle (a 6,000-line
/// file that is one expression, its modules functions in an object literal) re-reads the
/// statements around the edit, not the file. The captures of what lies around it (the
/// functions it is written in, the calls that take them) are kept only as the query finds them
/// again, unchanged ([`Region::usable`]). Walked down from `node`, one child a level.
fn ecma_function_body<'t>(node: Node<'t>, dirty: &Range<usize>) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let mut found = None;
    loop {
        let parent = cursor.node();
        if cursor.goto_first_child_for_byte(dirty.start).is_none() {
            return found;
        }
        let child = cursor.node();
        if child.start_byte() > dirty.start || child.end_byte() < dirty.end {
            return found;
        }
        if child.kind() == "statement_block"
            && child.start_byte() < dirty.start
            && dirty.end < child.end_byte()
            && ECMA_FUNCTIONS.contains(&parent.kind())
        {
            found = Some(child);
        }
    }
}

/// The member list of a container whose captures do not depend on its members: an `impl`,
/// trait or inline module, a class, a namespace (`body` fields that are declaration lists; a
/// Python class body is a block whose first statement is the class's docstring: one only for
/// an edit past that statement, [`python_class_members`]). A JavaScript/TypeScript `export`
/// is seen through to the class it exports.
fn container_body(node: Node<'_>) -> Option<Node<'_>> {
    let node = match node.kind() {
        "export_statement" => node.child_by_field_name("declaration")?,
        _ => node,
    };
    let body = node.child_by_field_name("body")?;
    matches!(body.kind(), "declaration_list" | "class_body").then_some(body)
}

#[cfg(test)]
mod tests {
    /// An edit re-reads its item and the nodes next to it, but not a container before it (a
    /// function after a long `impl`), and re-reads a container after it (an attribute edited
    /// above an `impl` may change it).
    #[test]
    fn the_reread_region_skips_a_container_before_the_edit() {
        let text =
            "struct S;\nimpl S {\n    fn a() {}\n    fn b() {}\n}\nfn f() { g(); }\nfn h() {}\n";
        let tree =
            codegraph_lang::syntax::parse(codegraph_lang::Language::Rust, text).expect("parses");
        let at = |needle: &str| text.find(needle).expect("in the text");
        let region = super::reread_region(tree.root_node(), at("g()")..at("g()") + 1, text.len());
        assert_eq!(&text[region], "\nfn f() { g(); }\nfn h() {}\n");
        let before = "struct S;\nfn f() { g(); }\nimpl S {\n    fn a() {}\n}\n";
        let tree =
            codegraph_lang::syntax::parse(codegraph_lang::Language::Rust, before).expect("parses");
        let g = before.find("g()").expect("in the text");
        let region = super::reread_region(tree.root_node(), g..g + 1, before.len());
        assert_eq!(&before[region], before);
    }

    /// An edit in a method of a Python class, past the class's first statement (its
    /// docstring), re-reads that method and its neighbours, not the class; an edit of the first
    /// statement re-reads the whole class, whose docstring it may change, and the node before.
    #[test]
    fn an_edit_in_a_python_class_re_reads_its_method_unless_it_reaches_the_docstring() {
        let text = "import os\n\n\n@dataclass\nclass Tests(Base):\n    \"\"\"Doc.\"\"\"\n\n    def a(self):\n        return 1\n\n    def b(self):\n        return g()\n\n    def c(self):\n        return 3\n\n    def d(self):\n        return 4\n";
        let tree =
            codegraph_lang::syntax::parse(codegraph_lang::Language::Python, text).expect("parses");
        let at = |needle: &str| text.find(needle).expect("in the text");
        let region = super::reread_region(tree.root_node(), at("g()")..at("g()") + 1, text.len());
        assert_eq!(
            &text[region],
            "\n\n    def a(self):\n        return 1\n\n    def b(self):\n        return g()\n\n    def c(self):\n        return 3\n\n    "
        );
        // The class, and the import before it.
        let region = super::reread_region(tree.root_node(), at("Doc")..at("Doc") + 1, text.len());
        assert_eq!(&text[region], text);
    }

    /// An edit in a method of an exported TypeScript class (a method renamed) re-reads that
    /// method and its neighbours, not the class, nor an exported class before it.
    #[test]
    fn an_edit_in_a_method_of_an_exported_class_re_reads_the_method_and_its_neighbours() {
        let text = "export class A {\n  a() {}\n}\nexport class B extends A {\n  b() { return 1; }\n  c() { return 2; }\n  d() { return 3; }\n  e() { return 4; }\n}\n";
        let tree = codegraph_lang::syntax::parse(codegraph_lang::Language::TypeScript, text)
            .expect("parses");
        let at = |needle: &str| text.find(needle).expect("in the text");
        let region = super::reread_region(tree.root_node(), at("d()")..at("d()") + 1, text.len());
        assert_eq!(
            &text[region],
            "\n  c() { return 2; }\n  d() { return 3; }\n  e() { return 4; }\n"
        );
        // The class's header: the class, with the one before it skipped as a container.
        let region = super::reread_region(tree.root_node(), at("B ")..at("B ") + 1, text.len());
        assert_eq!(&text[region], &text[at("\nexport class B")..]);
    }

    /// An edit in a function of a bundle (one expression; its modules are functions in an
    /// object literal) re-reads the statements around it in the innermost function body that
    /// holds it, not the file; an edit in a function's parameters re-reads the whole statement.
    #[test]
    fn an_edit_in_a_javascript_function_re_reads_the_statements_around_it() {
        let text = "(function (f) { f(); })({1: [function (require, module, exports) {\n  var a = require(\"a\");\n  function g() {\n    return h();\n  }\n  function k() {}\n  exports.g = g;\n}, {}]});\n";
        let tree = codegraph_lang::syntax::parse(codegraph_lang::Language::JavaScript, text)
            .expect("parses");
        let at = |needle: &str| text.find(needle).expect("in the text");
        let region = super::reread_region(tree.root_node(), at("h()")..at("h()") + 1, text.len());
        assert_eq!(&text[region], "{\n    return h();\n  }");
        let region = super::reread_region(tree.root_node(), at("k()")..at("k()") + 1, text.len());
        assert_eq!(
            &text[region],
            "\n  function g() {\n    return h();\n  }\n  function k() {}\n  exports.g = g;\n"
        );
        let region = super::reread_region(
            tree.root_node(),
            at("require,")..at("require,") + 1,
            text.len(),
        );
        assert_eq!(&text[region], text);
    }
}
