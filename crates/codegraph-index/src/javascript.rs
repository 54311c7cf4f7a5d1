//! What extraction needs to know of JavaScript and TypeScript syntax beyond the queries: whose
//! member a function of an object literal is, which parameters bind nothing (those of
//! signatures without a body), and where a callback's untyped parameter sits.
//!
//! `const traps = { get() {}, has() {} }` defines `traps.get` and `traps.has`: members of the
//! object, not names in scope (a bare `has()` next to them calls whatever `has` is imported),
//! and not exports of the file. The object is named after what holds it: the variable
//! (`const traps = ...`, `let x: T = ... as T`), the property or field it is assigned to
//! (`this.handlers = {...}`, `reducers: {...}`), or the constructor whose prototype it is
//! (`Foo.prototype = {...}`, `Object.assign(Foo.prototype, {...})`). An object that holds no
//! name (an argument, a returned value) is named `{}`. The object assigned to `module.exports`
//! or exported as the default is the module itself: its functions stay the file's own.

use codegraph_model::Name;
use tree_sitter::Node;

use crate::text::{MAX_RECEIVER, node_text, receiver_text};

/// Who holds a function defined in an object literal.
pub(super) struct ObjectOwner {
    pub(super) name: Name,
    /// The object is a constructor's prototype (`Foo.prototype = {...}`): its functions are
    /// methods of `Foo`, like `Foo.prototype.m = function`.
    pub(super) prototype: bool,
}

impl ObjectOwner {
    fn named(name: &str) -> Option<ObjectOwner> {
        Some(ObjectOwner {
            name: Name::new(if is_identifier(name) { name } else { "{}" }),
            prototype: false,
        })
    }
}

/// The owner of a function defined in an object literal (`definition` is a `method_definition`
/// or `pair` node); `None` when it is no member of an object literal, or a member of the
/// module's own export object.
pub(super) fn object_literal_owner(definition: Node<'_>, text: &str) -> Option<ObjectOwner> {
    if !matches!(definition.kind(), "method_definition" | "pair") {
        return None;
    }
    let object = definition.parent()?;
    if object.kind() != "object" {
        return None;
    }
    let node_text = |node: Node<'_>| text.get(node.byte_range()).unwrap_or("");
    let mut node = object;
    loop {
        let Some(parent) = node.parent() else {
            return ObjectOwner::named("{}");
        };
        match parent.kind() {
            // Wrappers that keep the object: `({...})`, `{...} as T`, `{...} satisfies T`.
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => node = parent,
            "variable_declarator" => {
                let name = parent.child_by_field_name("name").map_or("", node_text);
                return ObjectOwner::named(name);
            }
            "assignment_expression" => {
                return assignment_owner(parent.child_by_field_name("left")?, text);
            }
            "pair" => {
                let key = parent.child_by_field_name("key").map_or("", node_text);
                return ObjectOwner::named(key.trim_matches(['"', '\'', '`']));
            }
            "public_field_definition" | "field_definition" => {
                let name = parent
                    .child_by_field_name("name")
                    .or_else(|| parent.child_by_field_name("property"))
                    .map_or("", node_text);
                return ObjectOwner::named(name);
            }
            "export_statement" => return None,
            "arguments" => {
                // `Object.assign(Foo.prototype, {...})`, `extend(Foo.prototype, {...})`: the
                // members of the first argument.
                let callee = parent
                    .parent()
                    .and_then(|call| call.child_by_field_name("function"))
                    .map_or("", node_text);
                let last = callee.rsplit('.').next().unwrap_or(callee);
                if matches!(last, "assign" | "extend" | "mixin")
                    && let Some(first) = parent.named_child(0)
                    && first.id() != node.id()
                {
                    return assignment_owner(first, text);
                }
                return ObjectOwner::named("{}");
            }
            _ => return ObjectOwner::named("{}"),
        }
    }
}

/// The owner an object takes from where it is stored: `x` for `x = ...`, `Foo` (a prototype)
/// for `Foo.prototype = ...`, `handlers` for `this.handlers = ...`; `None` for `module.exports`
/// and `exports` (the module itself).
fn assignment_owner(target: Node<'_>, text: &str) -> Option<ObjectOwner> {
    let node_text = |node: Node<'_>| text.get(node.byte_range()).unwrap_or("");
    match target.kind() {
        "identifier" => {
            let name = node_text(target);
            if name == "exports" {
                return None;
            }
            ObjectOwner::named(name)
        }
        "member_expression" => {
            let object = target.child_by_field_name("object")?;
            let property = node_text(target.child_by_field_name("property")?);
            if node_text(object) == "module" && property == "exports" {
                return None;
            }
            if property == "prototype" && object.kind() == "identifier" {
                return Some(ObjectOwner {
                    name: Name::new(node_text(object)),
                    prototype: true,
                });
            }
            ObjectOwner::named(property)
        }
        _ => ObjectOwner::named("{}"),
    }
}

/// Whether a definition's function is an arrow function (`pair`, declarator or field whose
/// value is one): its `this` is not its owner.
pub(super) fn is_arrow_function(definition: Node<'_>) -> bool {
    let value = match definition.kind() {
        "pair" | "public_field_definition" | "field_definition" => {
            definition.child_by_field_name("value").map(uncast)
        }
        "lexical_declaration" | "variable_declaration" => declared_function(definition),
        _ => None,
    };
    value.is_some_and(|value| value.kind() == "arrow_function")
}

/// The function a `const f = ...` definition declares: its first declarator's value, seen
/// through a cast (`function computed() {} as any`, `... satisfies Handler`).
pub(super) fn declared_function(definition: Node<'_>) -> Option<Node<'_>> {
    definition
        .named_child(0)
        .and_then(|declarator| declarator.child_by_field_name("value"))
        .map(uncast)
}

/// `x as T`, `x satisfies T`: `x`.
fn uncast(node: Node<'_>) -> Node<'_> {
    match node.kind() {
        "as_expression" | "satisfies_expression" => node.named_child(0).unwrap_or(node),
        _ => node,
    }
}

/// Whether a parameter (`binding`, a `required_parameter` or `optional_parameter` node) belongs
/// to a signature without a body: a function type (`cb: (builder: Builder) => void`), an
/// interface's or abstract method, an overload. Its name is bound nowhere in the code around.
pub(super) fn parameter_of_signature(binding: Node<'_>) -> bool {
    if !matches!(binding.kind(), "required_parameter" | "optional_parameter") {
        return false;
    }
    binding
        .parent()
        .filter(|parameters| parameters.kind() == "formal_parameters")
        .and_then(|parameters| parameters.parent())
        .is_some_and(|signature| {
            matches!(
                signature.kind(),
                "function_type"
                    | "constructor_type"
                    | "method_signature"
                    | "abstract_method_signature"
                    | "function_signature"
                    | "call_signature"
                    | "construct_signature"
            )
        })
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with(|character: char| character.is_ascii_digit())
        && text
            .chars()
            .all(|character| character.is_alphanumeric() || character == '_' || character == '$')
}

/// A TypeScript union type's alternatives that name a type, each as [`crate::text::value_type`]
/// reads it, joined by ` | ` (`Subject<T> | null` → `Subject`, `IObservableValue<any> |
/// IComputedValue<any>` → `IObservableValue | IComputedValue`).
pub(super) fn union_alternatives(text: &str) -> Name {
    let alternatives: Vec<Name> = crate::text::top_level_split(text, '|')
        .map(str::trim)
        .filter(|alternative| !matches!(*alternative, "null" | "undefined" | "void" | ""))
        .map(crate::text::value_type)
        .filter(|alternative| !alternative.is_empty())
        .collect();
    Name::new(alternatives.join(" | "))
}

/// Where a callback's untyped parameter sits (`operate((source, subscriber) => ...)`): the
/// callee's text (`new C` for a constructor), the callback's argument position and the
/// parameter's position, as `callee\u{1}argument\u{1}parameter` for resolution to read the
/// callee's declared parameter type.
pub(super) fn callback_site(function: Node, name: Node, text: &str) -> Option<Name> {
    let position = |parent: Node, child: Node| {
        let mut cursor = parent.walk();
        parent
            .named_children(&mut cursor)
            .filter(|node| node.kind() != "comment")
            .position(|node| node.id() == child.id())
    };
    let arguments = function.parent()?;
    if arguments.kind() != "arguments" {
        return None;
    }
    let argument = position(arguments, function)?;
    let call = arguments.parent()?;
    let callee = match call.kind() {
        "call_expression" => receiver_text(node_text(call.child_by_field_name("function")?, text)),
        "new_expression" => Name::new(format!(
            "new {}",
            receiver_text(node_text(call.child_by_field_name("constructor")?, text))
        )),
        _ => return None,
    };
    let parameter = if function
        .child_by_field_name("parameter")
        .is_some_and(|parameter| parameter.id() == name.id())
    {
        0
    } else {
        let parameters = function.child_by_field_name("parameters")?;
        // The parameter that holds `name` (walking down: `parent` walks down from the root).
        let node = parameters
            .child_with_descendant(name)
            .filter(|node| node.id() != parameters.id())?;
        position(parameters, node)?
    };
    (!callee.is_empty() && callee.len() < MAX_RECEIVER)
        .then(|| Name::new(format!("{callee}\u{1}{argument}\u{1}{parameter}")))
}
