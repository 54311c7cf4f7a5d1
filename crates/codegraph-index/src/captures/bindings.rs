//! The binding family of captures: the type or value a name holds (`@binding` and its
//! `@binding.*` roles), read into [`RawBinding`]s before their scopes are known.

use codegraph_model::{Name, Span};
use tree_sitter::Node;

use super::{MatchItem, RawBinding, RawCaptures};
use crate::text::{MAX_RECEIVER, node_text, receiver_text, value_type, without_arguments};
use crate::{BindingKind, go, javascript, rust};

impl RawCaptures {
    /// One `@binding` match, by what it binds the name to: a type switch's cases, a declared
    /// type or bound, a variant pattern's field, a callback's parameter, nothing (a local) or a
    /// value.
    pub(super) fn add_binding(&mut self, binding: Node<'_>, item: &MatchItem<'_>, text: &str) {
        let Some(name) = item.binding_name else {
            return;
        };
        // A parameter of a signature without a body (`cb: (builder: Builder) => void`, an
        // interface's method) binds nothing where it is written.
        if javascript::parameter_of_signature(binding) {
            return;
        }
        let span = Span::from_node(name);
        if let Some(value) = item.binding_switch {
            self.add_switch_bindings(binding, value, name, text);
        } else if let Some(type_node) = item.binding_type.or(item.binding_bound) {
            self.add_typed_binding(type_node, name, item, text);
        } else if let Some(variant) = item.binding_pattern {
            self.add_pattern_binding(variant, name, text);
        } else if let Some(function) = item.binding_callback {
            if let Some(site) = javascript::callback_site(function, name, text) {
                let bound = receiver_text(node_text(name, text));
                self.bindings
                    .push(RawBinding::new(bound, site, BindingKind::Callback, span));
            }
        } else if item.binding_local {
            let bound = receiver_text(node_text(name, text));
            self.bindings.push(RawBinding::new(
                bound,
                Name::default(),
                BindingKind::Local,
                span,
            ));
        } else if let Some(value) = item.binding_value {
            self.add_value_binding(binding, value, name, item, text);
        }
    }

    /// Go's `switch v := x.(type)`: `v` once per case, each in its case.
    fn add_switch_bindings(
        &mut self,
        binding: Node<'_>,
        value: Node<'_>,
        name: Node<'_>,
        text: &str,
    ) {
        let bound = receiver_text(node_text(name, text));
        for (type_name, kind, region) in go::type_switch_cases(binding, value, text) {
            self.bindings.push(
                RawBinding::new(bound, type_name, kind, Span::from_node(name))
                    .within(Some(Span::from_node(region))),
            );
        }
    }

    /// A declared type (`x: Foo`, `Foo x`), an alias's type or a type parameter's bound.
    fn add_typed_binding(
        &mut self,
        type_node: Node<'_>,
        name: Node<'_>,
        item: &MatchItem<'_>,
        text: &str,
    ) {
        let type_name = if self.rust {
            rust::declared_type(node_text(type_node, text))
        } else if matches!(type_node.kind(), "slice_type" | "map_type")
            || (type_node.kind() == "array_type" && node_text(type_node, text).starts_with('['))
        {
            // Go's `[]*Item`, `[4]Item`, `map[string]Item`: kept whole, so that an element
            // (`items[0]`, `for _, item := range items`) has the element's type.
            receiver_text(node_text(type_node, text))
        } else if type_node.kind() == "union_type" {
            // TypeScript's `A | B | null`: each alternative (`A | B`), resolved apart.
            javascript::union_alternatives(node_text(type_node, text))
        } else {
            value_type(node_text(type_node, text))
        };
        if type_name.is_empty() {
            return;
        }
        let kind = if item.binding_bound.is_some() {
            BindingKind::Bound
        } else if item.binding_alias {
            BindingKind::Alias
        } else {
            BindingKind::Type
        };
        let Some(bound_name) = typed_binding_name(type_node, name, item, text) else {
            return;
        };
        let mut raw = RawBinding::new(bound_name, type_name, kind, Span::from_node(name));
        if kind == BindingKind::Bound {
            raw.declared_in = item
                .binding
                .and_then(type_parameter_declaration)
                .map(Span::from_node);
        }
        self.bindings.push(raw);
    }

    /// A Rust variant pattern's binding: `Value::Number(n)` binds `n` to `Value::Number(0)`, the
    /// variant's field, and `Self { pool, .. }` binds `pool` to `Self{pool}`, in the arm or body
    /// the pattern guards.
    fn add_pattern_binding(&mut self, variant: Node<'_>, name: Node<'_>, text: &str) {
        let Some(pattern) = variant.parent() else {
            return;
        };
        let site = if pattern.kind() == "struct_pattern" {
            rust::struct_pattern_site(variant, name, text).filter(|site| site.len() < MAX_RECEIVER)
        } else {
            tuple_pattern_site(pattern, variant, name, text)
        };
        if let Some(site) = site {
            self.bindings.push(
                RawBinding::new(
                    receiver_text(node_text(name, text)),
                    site,
                    BindingKind::Variant,
                    Span::from_node(name),
                )
                .within(rust::pattern_region(pattern).map(Span::from_node)),
            );
        }
    }

    /// `x = <expression>`: the expression (without its arguments when long), marked with what
    /// the binding does to it (`[..]` for a loop's element, `.__enter__()` for `with`, a tuple
    /// element, `()` for a decorator).
    fn add_value_binding(
        &mut self,
        binding: Node<'_>,
        value: Node<'_>,
        name: Node<'_>,
        item: &MatchItem<'_>,
        text: &str,
    ) {
        let mut expression = receiver_text(node_text(value, text));
        if expression.len() >= MAX_RECEIVER {
            // Its type does not depend on call arguments: `Palette([(0, 0, 0), ...])`
            // is kept as `Palette()`.
            expression = receiver_text(&without_arguments(node_text(value, text)));
        }
        // `for x in items`, Go's `for _, x := range items`: `x` is an element, `items[..]`.
        if matches!(binding.kind(), "for_expression" | "range_clause") {
            expression = Name::new(format!("{expression}[..]"));
        } else if item.binding_entered {
            // `with X as y`: what `__enter__` returns (see `graph::resolve::python`).
            expression = Name::new(format!("{expression}.__enter__()"));
        } else if let Some(element) = rust::tuple_element(name, binding) {
            // `let (tx, rx) = channel();`: `tx` is element 0 of what the call returns.
            expression = Name::new(format!("{expression}.{element}"));
        } else if item.binding_decorated && value.kind() != "call" {
            // `@group def cli()`: `cli` holds what `group(cli)` returns. (A decorator
            // factory's call, `@click.group()`, is taken as what its decorator returns.)
            expression = Name::new(format!("{expression}()"));
        }
        if !expression.is_empty() && expression.len() < MAX_RECEIVER {
            self.bindings.push(RawBinding::new(
                receiver_text(node_text(name, text)),
                expression,
                BindingKind::Value,
                Span::from_node(name),
            ));
        }
    }
}

/// The name a declared type binds: the name as written, or the field of a variant it is
/// (`Number(0)`), a trait's associated type (`Self::Bound`), a field declared by a constructor
/// parameter (`this.name`). `None` when the variant's field is not found.
fn typed_binding_name(
    type_node: Node<'_>,
    name: Node<'_>,
    item: &MatchItem<'_>,
    text: &str,
) -> Option<Name> {
    let mut bound_name = receiver_text(node_text(name, text));
    if let Some(list) = item.binding_variant {
        // The field's position in the variant: `Number(0)`.
        let mut cursor = list.walk();
        let position = list
            .children_by_field_name("type", &mut cursor)
            .position(|field| field.id() == type_node.id())?;
        bound_name = Name::new(format!("{bound_name}({position})"));
    }
    // A trait's `type Bound: Bound;` binds `Self::Bound`.
    if item
        .binding
        .is_some_and(|binding| binding.kind() == "associated_type")
    {
        bound_name = Name::new(format!("Self::{bound_name}"));
    }
    if item.binding_field {
        // A field declared by a constructor parameter: `this.name`, which
        // `build` binds for the whole class.
        bound_name = Name::new(format!("this.{bound_name}"));
    }
    Some(bound_name)
}

/// Where a tuple variant pattern binds `name`: `Value::Number(0)` for `n` in
/// `Value::Number(n)`. `None` after a `..` (the position is unknown) or for a long path.
fn tuple_pattern_site(
    pattern: Node<'_>,
    variant: Node<'_>,
    name: Node<'_>,
    text: &str,
) -> Option<Name> {
    let mut element = name;
    while let Some(parent) = element.parent() {
        if parent.id() == pattern.id() {
            break;
        }
        element = parent;
    }
    // Every element counts, `_` (an unnamed node) included; after a `..` the
    // position is unknown.
    let mut cursor = pattern.walk();
    let elements: Vec<Node> = pattern
        .children(&mut cursor)
        .filter(|child| {
            child.id() != variant.id() && !matches!(child.kind(), "(" | ")" | "," | "comment")
        })
        .collect();
    let position = elements
        .iter()
        .position(|child| child.id() == element.id())?;
    if elements[..position]
        .iter()
        .any(|child| child.kind() == "remaining_field_pattern")
    {
        return None;
    }
    let path = receiver_text(node_text(variant, text));
    (path.len() < MAX_RECEIVER).then(|| Name::new(format!("{path}({position})")))
}

/// The declaration that introduces a type parameter whose bound `binding` captures (`<T
/// extends E>`, `[T C]`, `where T: C`): the parent of its parameter list or `where` clause.
/// `None` for a bound that no parameter list holds (a Rust trait's associated type).
fn type_parameter_declaration(binding: Node<'_>) -> Option<Node<'_>> {
    let mut node = binding;
    // The list is at most two levels up (a `where` predicate's clause, a parameter's list).
    for _ in 0..3 {
        node = node.parent()?;
        if matches!(
            node.kind(),
            "type_parameters" | "type_parameter_list" | "where_clause"
        ) {
            return node.parent();
        }
    }
    None
}
