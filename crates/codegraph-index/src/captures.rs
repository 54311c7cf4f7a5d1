//! The captures of the language's query: each match read by role ([`MatchItem`]) and gathered
//! for the file ([`RawCaptures`]) before the summary is built (`build.rs`). One function per
//! capture family: definitions, `impl` blocks, references, packages and bases here, bindings in
//! `captures/bindings.rs`, imports in `captures/imports.rs`.

use codegraph_lang::Language;
use codegraph_model::{EntityKind, Name, Span};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCursor};

use crate::definition::{clean_doc, declared_return, definition_span, leading_comment, signature};
use crate::text::{
    node_text, receiver_text, strip_quotes, type_base_name, type_base_name_qualified,
};
use crate::{BindingKind, InheritKind, RefKind, javascript, rust};

mod bindings;
mod imports;

/// Matches start at most this deep in the syntax tree. Past about 2^15 levels tree-sitter's
/// query cursor slows down sharply (a `g(g(g(…)))` 45,000 deep would take seconds for one
/// 130 KiB file, an easy way for a hostile repository to stall indexing); real code is a few hundred
/// levels deep at most.
const MAX_START_DEPTH: u32 = 16_384;

pub(crate) fn run_query(
    query: &tree_sitter::Query,
    root: Node<'_>,
    text: &str,
    range: Option<std::ops::Range<usize>>,
    language: Language,
) -> RawCaptures {
    let capture_names = query.capture_names();
    let mut raw = RawCaptures {
        rust: language == Language::Rust,
        ..RawCaptures::default()
    };
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(MAX_START_DEPTH));
    if let Some(range) = range {
        cursor.set_byte_range(range);
    }
    let mut matches = cursor.matches(query, root, text.as_bytes());
    while let Some(found) = matches.next() {
        let mut item = MatchItem::default();
        for capture in found.captures() {
            let name = capture_names[capture.index as usize];
            item.assign(name, capture.node);
        }
        if !item.rejected {
            raw.add(&item, text);
        }
    }
    raw
}

/// The captures of one match, by role.
#[derive(Default)]
pub(crate) struct MatchItem<'tree> {
    definition: Option<(EntityKind, Node<'tree>)>,
    impl_scope: Option<Node<'tree>>,
    name: Option<Node<'tree>>,
    doc: Option<Node<'tree>>,
    owner: Option<Node<'tree>>,
    call: Option<Node<'tree>>,
    type_ref: Option<Node<'tree>>,
    receiver: Option<Node<'tree>>,
    binding: Option<Node<'tree>>,
    binding_name: Option<Node<'tree>>,
    binding_type: Option<Node<'tree>>,
    binding_value: Option<Node<'tree>>,
    binding_bound: Option<Node<'tree>>,
    binding_field: bool,
    binding_local: bool,
    binding_alias: bool,
    binding_entered: bool,
    binding_decorated: bool,
    binding_callback: Option<Node<'tree>>,
    binding_variant: Option<Node<'tree>>,
    binding_pattern: Option<Node<'tree>>,
    /// A Go type switch's value (`switch v := x.(type)`): `v` is bound once per case.
    binding_switch: Option<Node<'tree>>,
    import: Option<Node<'tree>>,
    import_tree: Option<Node<'tree>>,
    /// First and last capture: some grammars give a dotted path as sibling identifiers.
    import_path: Option<(Node<'tree>, Node<'tree>)>,
    import_name: Option<Node<'tree>>,
    import_alias: Option<Node<'tree>>,
    /// A JavaScript `export { a, b as c } from`'s clause: one import per specifier.
    import_specifiers: Option<Node<'tree>>,
    import_wildcard: bool,
    /// The default export: as an import, the name `default` (`import x from`), as a local
    /// alias, the name the module exports as `default`.
    import_default: bool,
    package: Option<Node<'tree>>,
    extends: Option<Node<'tree>>,
    implements: Option<Node<'tree>>,
    child: Option<Node<'tree>>,
    /// A capture failed a check the query leaves to the code: the match is no match.
    rejected: bool,
}

impl<'tree> MatchItem<'tree> {
    fn assign(&mut self, capture: &str, node: Node<'tree>) {
        match capture {
            "name" => self.name = Some(node),
            "doc" => self.doc = Some(node),
            "owner" => self.owner = Some(node),
            "scope.impl" => self.impl_scope = Some(node),
            "reference.call" => self.call = Some(node),
            "reference.type" => self.type_ref = Some(node),
            "receiver" => self.receiver = Some(node),
            "binding" => self.binding = Some(node),
            "binding.name" => self.binding_name = Some(node),
            "binding.type" => self.binding_type = Some(node),
            // A type the query leaves open (`type: (_)`: an alternation of kinds there kept a
            // state alive through every node of the `let`'s value, a sixth of Rust's query
            // time), checked here.
            "binding.declared" => {
                if rust::binding_type_kind(node) {
                    self.binding_type = Some(node);
                } else {
                    self.rejected = true;
                }
            }
            "binding.value" => self.binding_value = Some(node),
            "binding.bound" => self.binding_bound = Some(node),
            "binding.field" => self.binding_field = true,
            "binding.local" => self.binding_local = true,
            "binding.alias" => self.binding_alias = true,
            "binding.entered" => self.binding_entered = true,
            "binding.decorated" => self.binding_decorated = true,
            "binding.callback" => self.binding_callback = Some(node),
            "binding.variant" => self.binding_variant = Some(node),
            "binding.pattern" => self.binding_pattern = Some(node),
            "binding.switch" => self.binding_switch = Some(node),
            "import.tree" => self.import_tree = Some(node),
            "import" => self.import = Some(node),
            "import.path" => self.import_path = Some(widen(self.import_path, node)),
            "import.name" => self.import_name = Some(node),
            "import.alias" => self.import_alias = Some(node),
            "import.specifiers" => self.import_specifiers = Some(node),
            "import.wildcard" => self.import_wildcard = true,
            "import.default" => self.import_default = true,
            "package" => self.package = Some(node),
            "extends" => self.extends = Some(node),
            "implements" => self.implements = Some(node),
            "child" => self.child = Some(node),
            other => {
                if let Some(kind) = other
                    .strip_prefix("definition.")
                    .and_then(EntityKind::parse)
                {
                    self.definition = Some((kind, node));
                }
                // Other captures (helpers for predicates, `_`-prefixed) carry no role.
            }
        }
    }
}

/// The first and last of the nodes captured as one import path, with `node` added.
fn widen<'tree>(
    path: Option<(Node<'tree>, Node<'tree>)>,
    node: Node<'tree>,
) -> (Node<'tree>, Node<'tree>) {
    match path {
        Some((first, last)) => (
            if node.start_byte() < first.start_byte() {
                node
            } else {
                first
            },
            if node.end_byte() > last.end_byte() {
                node
            } else {
                last
            },
        ),
        None => (node, node),
    }
}

#[derive(Clone, PartialEq)]
pub(crate) struct RawDef {
    pub(crate) kind: EntityKind,
    pub(crate) span: Span,
    pub(crate) name_span: Span,
    pub(crate) name: Name,
    pub(crate) owner: Option<Name>,
    pub(crate) signature: String,
    pub(crate) doc: Option<String>,
    pub(crate) returns: Option<Name>,
    /// A function of a JavaScript/TypeScript object literal: a member of its owner wherever it
    /// is nested (see `javascript::object_literal_owner`); a method when the object is a
    /// prototype, a function otherwise.
    pub(crate) object_member: bool,
    pub(crate) prototype_member: bool,
    pub(crate) arrow: bool,
}

#[derive(Clone, PartialEq)]
pub(crate) struct RawImpl {
    pub(crate) span: Span,
    pub(crate) type_name: Name,
    /// The trait an `impl Trait for Type` block implements, as written.
    pub(crate) trait_name: Option<Name>,
}

/// An import as captured, before its scope is known.
#[derive(Clone, PartialEq)]
pub(crate) struct RawImport {
    pub(crate) path: Name,
    pub(crate) name: Option<Name>,
    pub(crate) alias: Option<Name>,
    pub(crate) wildcard: bool,
    pub(crate) span: Span,
}

/// A reference as captured, before its scope is known.
#[derive(Clone, PartialEq)]
pub(crate) struct RawRef {
    pub(crate) kind: RefKind,
    pub(crate) name: Name,
    pub(crate) receiver: Option<Name>,
    pub(crate) span: Span,
    /// The receiver is a path (`util::f()`), not a value.
    pub(crate) path: bool,
}

/// A base as captured, before the inheriting type is known.
#[derive(Clone, PartialEq)]
pub(crate) struct RawInherit {
    pub(crate) base: Name,
    pub(crate) kind: InheritKind,
    /// The inheriting type's name, when the syntax gives it (`impl Trait for Type`).
    pub(crate) child: Option<Name>,
    pub(crate) span: Span,
}

/// A binding as captured, before its scope is known.
#[derive(Clone, PartialEq)]
pub(crate) struct RawBinding {
    pub(crate) name: Name,
    /// The type or value expression.
    pub(crate) type_name: Name,
    pub(crate) kind: BindingKind,
    pub(crate) span: Span,
    /// The region where it holds, when not its whole scope (a `match` arm, a type switch's case).
    pub(crate) region: Option<Span>,
    /// For a type parameter's bound, the declaration that introduces the parameter: the bound
    /// holds there only.
    pub(crate) declared_in: Option<Span>,
}

impl RawBinding {
    pub(crate) fn new(name: Name, type_name: Name, kind: BindingKind, span: Span) -> RawBinding {
        RawBinding {
            name,
            type_name,
            kind,
            span,
            region: None,
            declared_in: None,
        }
    }

    pub(crate) fn within(mut self, region: Option<Span>) -> RawBinding {
        self.region = region;
        self
    }
}

#[derive(Clone, Default)]
pub(crate) struct RawCaptures {
    pub(crate) defs: Vec<RawDef>,
    pub(crate) impls: Vec<RawImpl>,
    pub(crate) refs: Vec<RawRef>,
    pub(crate) bindings: Vec<RawBinding>,
    pub(crate) imports: Vec<RawImport>,
    pub(crate) inherits: Vec<RawInherit>,
    /// Package declarations in match order; the first one counts.
    pub(crate) package: Vec<(Name, Span)>,
    /// Rust keeps a collection's element type in declared types (`Vec<Foo>`).
    pub(crate) rust: bool,
    /// Whether the file's text holds `macro_rules` (only there can a token be inside a macro's
    /// definition, `rust::token_tree_call`): looked for once, at the first Rust token tree
    /// that asks, so that a file (or an edit) without one scans nothing.
    pub(crate) macro_rules: std::cell::OnceCell<bool>,
}

impl RawCaptures {
    /// See [`RawCaptures::macro_rules`].
    fn defines_macros(&self, text: &str) -> bool {
        *self
            .macro_rules
            .get_or_init(|| text.contains("macro_rules"))
    }

    /// Adds one match's captures, by the family its captures say it is of.
    fn add(&mut self, item: &MatchItem<'_>, text: &str) {
        if let Some((kind, node)) = item.definition {
            self.add_definition(kind, node, item, text);
        } else if let Some(node) = item.impl_scope {
            self.add_impl(node, item, text);
        } else if item.call.is_some() || item.type_ref.is_some() {
            self.add_reference(item, text);
        } else if let Some(binding) = item.binding {
            self.add_binding(binding, item, text);
        } else if let Some(tree) = item.import_tree {
            self.add_use_tree(tree, item, text);
        } else if let Some(import) = item.import {
            self.add_import(import, item, text);
        } else if let Some(package) = item.package {
            self.package.push((
                Name::new(strip_quotes(node_text(package, text))),
                Span::from_node(package),
            ));
        } else if let Some((node, kind)) = item
            .extends
            .map(|node| (node, InheritKind::Extends))
            .or_else(|| item.implements.map(|node| (node, InheritKind::Implements)))
        {
            self.add_inherit(node, kind, item, text);
        }
    }

    fn add_definition(
        &mut self,
        kind: EntityKind,
        node: Node<'_>,
        item: &MatchItem<'_>,
        text: &str,
    ) {
        let Some(name_node) = item.name else { return };
        let name = node_text(name_node, text);
        if name.is_empty() {
            return;
        }
        // A function inside a macro's arguments: the query matched its name only.
        if node.kind() == "identifier" && self.rust {
            self.add_macro_function(kind, node, name_node, text);
            return;
        }
        let object_owner = match item.owner {
            None => javascript::object_literal_owner(node, text),
            Some(_) => None,
        };
        let prototype_member = object_owner.as_ref().is_some_and(|owner| owner.prototype);
        self.defs.push(RawDef {
            kind,
            span: definition_span(node),
            name_span: Span::from_node(name_node),
            name: Name::new(name),
            object_member: object_owner.is_some(),
            prototype_member,
            arrow: javascript::is_arrow_function(node),
            owner: item
                .owner
                .map(|owner| Name::new(type_base_name(node_text(owner, text))))
                .or(object_owner.map(|owner| owner.name)),
            signature: signature(node, text),
            doc: item
                .doc
                .map(|doc| clean_doc(node_text(doc, text)))
                .or_else(|| leading_comment(node, text)),
            returns: declared_return(node, text),
        });
    }

    /// A Rust function inside a macro's arguments, matched by its name (`node`).
    fn add_macro_function(
        &mut self,
        kind: EntityKind,
        node: Node<'_>,
        name_node: Node<'_>,
        text: &str,
    ) {
        let Some(function) = rust::macro_function(node, text, self.defines_macros(text)) else {
            return;
        };
        self.defs.push(RawDef {
            kind,
            span: function.span,
            name_span: Span::from_node(name_node),
            name: Name::new(node_text(name_node, text)),
            object_member: false,
            prototype_member: false,
            arrow: false,
            owner: None,
            signature: function.signature,
            doc: None,
            returns: None,
        });
    }

    fn add_impl(&mut self, node: Node<'_>, item: &MatchItem<'_>, text: &str) {
        let Some(name_node) = item.name else { return };
        self.impls.push(RawImpl {
            span: Span::from_node(node),
            type_name: Name::new(type_base_name(node_text(name_node, text))),
            trait_name: node
                .child_by_field_name("trait")
                .map(|trait_node| Name::new(node_text(trait_node, text))),
        });
    }

    fn add_reference(&mut self, item: &MatchItem<'_>, text: &str) {
        let Some(name_node) = item.name else { return };
        let kind = if item.call.is_some() {
            RefKind::Call
        } else {
            RefKind::Type
        };
        let name = node_text(name_node, text);
        if name.is_empty() {
            return;
        }
        let mut receiver = item
            .receiver
            .map(|receiver| receiver_text(node_text(receiver, text)));
        // What joins receiver and name: `::` (or PHP's `\`) makes the receiver a path.
        let mut path = item.receiver.is_some_and(|receiver| {
            text.get(receiver.end_byte()..name_node.start_byte())
                .is_some_and(|between| between.contains("::") || between.contains('\\'))
        });
        // A Rust macro's arguments: the tokens around the name say what it calls.
        if item.call.is_some_and(|call| call.kind() == "token_tree") {
            let Some(call) = rust::token_tree_call(name_node, text, self.defines_macros(text))
            else {
                return;
            };
            (receiver, path) = (call.receiver, call.path);
        }
        self.refs.push(RawRef {
            kind,
            name: Name::new(name),
            receiver,
            span: Span::from_node(name_node),
            path,
        });
    }

    fn add_inherit(&mut self, node: Node<'_>, kind: InheritKind, item: &MatchItem<'_>, text: &str) {
        let base = type_base_name_qualified(node_text(node, text));
        if base.is_empty() {
            return;
        }
        let child = item
            .child
            .map(|child| Name::new(type_base_name(node_text(child, text))));
        self.inherits.push(RawInherit {
            base: Name::new(base),
            kind,
            child,
            span: Span::from_node(node),
        });
    }
}
