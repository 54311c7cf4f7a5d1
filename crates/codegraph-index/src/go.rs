//! What Go's syntax says that the queries alone cannot: the type a type switch's variable has
//! in each of its cases.

use codegraph_model::Name;
use tree_sitter::Node;

use crate::BindingKind;
use crate::text::{node_text, receiver_text, value_type};

/// The bindings of `v` in `switch v := x.(type) { ... }`, one per case, each with the case
/// clause as its region: in a case of one type, `v` has that type (`case *Square:`); in a case
/// of several types or `nil`, and in `default`, `v` has the type of `x` itself, written as the
/// expression `x`.
pub(super) fn type_switch_cases<'tree>(
    switch: Node<'tree>,
    value: Node<'tree>,
    text: &str,
) -> Vec<(Name, BindingKind, Node<'tree>)> {
    let switched = receiver_text(node_text(value, text));
    let mut cases = Vec::new();
    let mut cursor = switch.walk();
    for case in switch.named_children(&mut cursor) {
        match case.kind() {
            "type_case" => {
                let mut types = case.walk();
                let written: Vec<Node> = case.children_by_field_name("type", &mut types).collect();
                match written.as_slice() {
                    [only] if node_text(*only, text) != "nil" => {
                        cases.push((value_type(node_text(*only, text)), BindingKind::Type, case));
                    }
                    _ => cases.push((switched, BindingKind::Value, case)),
                }
            }
            "default_case" => cases.push((switched, BindingKind::Value, case)),
            _ => {}
        }
    }
    cases
}
