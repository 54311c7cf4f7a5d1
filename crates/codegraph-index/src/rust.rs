//! Rust-specific extraction: calls and functions written inside macro arguments.
//!
//! A macro's arguments are an unparsed token tree (`assert_eq!(parser(p).parse(), x)`), so the
//! query can only say "an identifier followed by a parenthesised group". This reads the tokens
//! around that identifier the way the expression would parse: `a.b.f(..)` is a method call on
//! `a.b`, `A::f(..)` a call on the path `A`, `fn f(..)` inside `quickcheck! { .. }` a definition
//! and `f!(..)` a nested macro (neither is a call), and anything inside a `macro_rules!` body is
//! a template, called only where the macro is expanded (rust-analyzer lists no caller for it).

use codegraph_model::Name;
use tree_sitter::Node;

use codegraph_model::Span;

/// A call found in a token tree: its receiver (as source text) and whether that receiver is a
/// path (`A::f`) rather than a value (`a.f`).
pub(super) struct TokenCall {
    pub receiver: Option<Name>,
    pub path: bool,
}

/// Whether `name` is inside a `macro_rules!` definition. Each `parent` walks down from the
/// root, so this costs the depth squared: callers ask only in a file whose text holds
/// `macro_rules` (`macro_rules` below).
fn in_macro_definition(name: Node<'_>) -> bool {
    let mut ancestor = name.parent();
    while let Some(node) = ancestor {
        if node.kind() == "macro_definition" {
            return true;
        }
        ancestor = node.parent();
    }
    false
}

/// What the identifier `name`, followed in its token tree by a group, calls; `None` when it is
/// no call. `macro_rules`: whether the file's text holds `macro_rules` anywhere (without it,
/// no token is inside a macro's definition).
pub(super) fn token_tree_call(name: Node<'_>, text: &str, macro_rules: bool) -> Option<TokenCall> {
    // `f (..)`: the group must follow at once, and be parenthesised (`f!(..)`, `if x { .. }`,
    // `x [..]` are no calls).
    let group = name.next_sibling()?;
    if group.kind() != "token_tree" || !text.get(group.byte_range())?.starts_with('(') {
        return None;
    }
    if macro_rules && in_macro_definition(name) {
        return None;
    }
    let Some(before) = name.prev_sibling() else {
        return Some(TokenCall {
            receiver: None,
            path: false,
        });
    };
    match before.kind() {
        "fn" | "struct" | "enum" | "trait" | "mod" | "macro_rules!" | "$" => None,
        "." => {
            let start = chain_start(before)?;
            let receiver =
                crate::text::receiver_text(text.get(start.start_byte()..before.start_byte())?);
            (!receiver.is_empty()).then_some(TokenCall {
                receiver: Some(receiver),
                path: false,
            })
        }
        "::" => {
            // The path's segments before the last `::`: identifiers joined by `::`.
            let mut start = before;
            let mut current = before.prev_sibling();
            while let Some(node) = current {
                match node.kind() {
                    "identifier" | "self" | "super" | "crate" => {
                        start = node;
                        match node.prev_sibling() {
                            Some(separator) if separator.kind() == "::" => {
                                current = separator.prev_sibling();
                            }
                            _ => break,
                        }
                    }
                    _ => break,
                }
            }
            if start.id() == before.id() {
                return None;
            }
            let receiver =
                crate::text::receiver_text(text.get(start.start_byte()..before.start_byte())?);
            Some(TokenCall {
                receiver: Some(receiver),
                path: true,
            })
        }
        _ => Some(TokenCall {
            receiver: None,
            path: false,
        }),
    }
}

/// The first token of the receiver chain that ends just before the `.` token `dot`: names,
/// paths, field and method steps, call arguments and index groups (`self.items[i].f`,
/// `parser(p).f`, `Foo::new(x).f`).
fn chain_start<'tree>(dot: Node<'tree>) -> Option<Node<'tree>> {
    let mut start = None;
    let mut current = dot.prev_sibling();
    while let Some(node) = current {
        match node.kind() {
            "identifier" | "self" | "integer_literal" | "super" | "crate" => {
                start = Some(node);
                match node.prev_sibling() {
                    Some(separator) if matches!(separator.kind(), "." | "::") => {
                        current = separator.prev_sibling();
                    }
                    _ => break,
                }
            }
            "token_tree" => {
                // Call arguments or an index (`f(x).g`, `v[0].g`): the callee or the indexed
                // value comes before; a group alone (`(a + b).g`) starts the chain.
                start = Some(node);
                match node.prev_sibling() {
                    Some(previous)
                        if matches!(
                            previous.kind(),
                            "identifier" | "self" | "token_tree" | "integer_literal"
                        ) =>
                    {
                        current = Some(previous);
                    }
                    _ => break,
                }
            }
            _ => break,
        }
    }
    start
}

/// A function written inside a macro's arguments, found by its name.
pub(super) struct MacroFunction {
    /// From `fn` to the end of the body.
    pub span: Span,
    /// `fn name(parameters) -> Type`, whitespace collapsed.
    pub signature: String,
}

/// `fn name(..) [-> T] { .. }` among a macro invocation's tokens, `name` being the identifier
/// after `fn`: its span and signature. `None` inside a `macro_rules!` template (a definition
/// there exists only where the macro is expanded) or without a braced body. `macro_rules` as in
/// [`token_tree_call`].
pub(super) fn macro_function(
    name: Node<'_>,
    text: &str,
    macro_rules: bool,
) -> Option<MacroFunction> {
    let keyword = name.prev_sibling().filter(|node| node.kind() == "fn")?;
    if macro_rules && in_macro_definition(name) {
        return None;
    }
    // The body: the first braced group after the parameters, before any `;` or `fn`.
    let mut current = name.next_sibling();
    let body = loop {
        let node = current?;
        match node.kind() {
            "token_tree" if text.get(node.byte_range())?.starts_with('{') => break node,
            ";" | "fn" => return None,
            _ => current = node.next_sibling(),
        }
    };
    let head = text.get(keyword.start_byte()..body.start_byte())?;
    let signature = head.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(MacroFunction {
        span: Span::new(keyword.start_byte() as u32, body.end_byte() as u32),
        signature: signature
            .chars()
            .take(crate::definition::MAX_SIGNATURE)
            .collect(),
    })
}

/// The methods of the `impl` block whose header holds `span` (a type parameter's bound), when
/// it is in one: the definitions directly in `scope` that the block contains.
pub(super) fn impl_methods(
    impls: &[crate::captures::RawImpl],
    defs: &[super::Def],
    scope: Option<u32>,
    span: codegraph_model::Span,
) -> Option<Vec<u32>> {
    let scope_start = scope.map_or(0, |index| defs[index as usize].span.start_byte);
    // The innermost scope holds the bound, so a block inside that scope holds it in its header.
    let block = impls
        .iter()
        .rev()
        .find(|block| block.span.contains(&span) && block.span.start_byte >= scope_start)?;
    Some(
        defs.iter()
            .enumerate()
            .filter(|(_, def)| def.parent == scope && block.span.contains(&def.span))
            .map(|(index, _)| index as u32)
            .collect(),
    )
}

/// Where a struct pattern binds `name`: `Path{field}` (`let Self { pool, .. } = self` binds
/// `pool` as `Self{pool}`, `Value::Object { map: m, .. }` binds `m` as `Value::Object{map}`).
pub(super) fn struct_pattern_site(path: Node<'_>, name: Node<'_>, text: &str) -> Option<Name> {
    let mut field = name;
    while field.kind() != "field_pattern" {
        field = field.parent()?;
    }
    let field_name = field.child_by_field_name("name")?;
    let path = crate::text::receiver_text(text.get(path.byte_range())?);
    let field_name = text.get(field_name.byte_range())?;
    Some(Name::new(format!("{path}{{{field_name}}}")))
}

/// Sequences and sets: their first type argument is the element.
const SEQUENCES: &[&str] = &[
    "Vec",
    "VecDeque",
    "LinkedList",
    "HashSet",
    "BTreeSet",
    "BinaryHeap",
    "IndexSet",
    "SmallVec",
    "ThinVec",
    "Iter",
    "IterMut",
    "IntoIter",
    "Peekable",
    "Rev",
];

/// Maps: their second type argument is the value an index or `get` yields.
const MAPS: &[&str] = &["HashMap", "BTreeMap", "IndexMap"];

/// Iterator traits, whose `Item = T` is the element.
const ITERATOR_TRAITS: &[&str] = &[
    "Iterator",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
];

/// Wrappers seen through on the way to a collection (`Option<Vec<T>>`, `Box<[T]>`).
const WRAPPERS: &[&str] = &[
    "Option", "Result", "Box", "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Cow",
];

/// A Rust type as written, for resolution: [`crate::text::value_type`]'s normal form, except that a
/// collection keeps its element (`&[ClassRange]`, `Option<Vec<Foo>>`, `impl Iterator<Item =
/// &Foo>` → `Vec<Foo>`), which indexing, `for` loops and closures' parameters read.
pub(super) fn declared_type(text: &str) -> Name {
    let Some(_step) = codegraph_model::walk::enter() else {
        return Name::default();
    };
    match element_type(text) {
        Some(element) => {
            let element = declared_type(element);
            if element.is_empty() {
                Name::new("Vec")
            } else {
                Name::new(format!("Vec<{element}>"))
            }
        }
        None => crate::text::value_type(text),
    }
}

/// The element type of a collection type: `Vec<T>`, `[T]`, `[T; N]`, `HashSet<T>`, a map's
/// value, an iterator's `Item`, through references and wrappers. `None` for anything else.
pub fn element_type(text: &str) -> Option<&str> {
    let _step = codegraph_model::walk::enter()?;
    let mut text = text.trim();
    for _ in 0..8 {
        let before = text;
        text = text.trim_start_matches(['&', '*']).trim_start();
        if let Some(rest) = text.strip_prefix('\'') {
            text = rest
                .split_once(' ')
                .map_or("", |(_, after)| after)
                .trim_start();
        }
        for keyword in ["mut ", "dyn ", "impl ", "const "] {
            text = text.strip_prefix(keyword).unwrap_or(text).trim_start();
        }
        if text == before {
            break;
        }
    }
    if let Some(inner) = text
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        let element = crate::text::top_level_split(inner, ';').next()?.trim();
        return (!element.is_empty()).then_some(element);
    }
    let open = text.find('<')?;
    let inner = text.strip_suffix('>')?.get(open + 1..)?;
    let head = text[..open].trim();
    let head = head.rsplit("::").next().unwrap_or(head);
    // Lifetimes are no type arguments (`Cow<'a, [T]>`, `Iter<'a, T>`).
    let arguments: Vec<&str> = crate::text::top_level_split(inner, ',')
        .map(str::trim)
        .filter(|argument| !argument.starts_with('\'') && !argument.is_empty())
        .collect();
    if WRAPPERS.contains(&head) {
        return element_type(arguments.first()?);
    }
    if SEQUENCES.contains(&head) {
        let first = *arguments.first()?;
        // `SmallVec<[T; 4]>`: the array's element.
        return Some(
            element_type(first)
                .filter(|_| head == "SmallVec")
                .unwrap_or(first),
        );
    }
    if MAPS.contains(&head) {
        return arguments.get(1).copied();
    }
    if ITERATOR_TRAITS.contains(&head) {
        return arguments.iter().find_map(|argument| {
            let (name, value) = argument.split_once('=')?;
            (name.trim() == "Item").then(|| value.trim())
        });
    }
    None
}

/// Where a name bound by the pattern `pattern` holds, when not in the whole function: its
/// `match` arm, or the body of its `if let`/`while let`. `None` in a `let`, a parameter or a
/// closure's parameters.
pub(super) fn pattern_region(pattern: Node<'_>) -> Option<Node<'_>> {
    let mut current = pattern.parent();
    while let Some(node) = current {
        match node.kind() {
            "match_arm" => return Some(node),
            "let_condition" | "let_chain" => {
                let mut above = node.parent();
                while let Some(expression) = above {
                    match expression.kind() {
                        "if_expression" => return expression.child_by_field_name("consequence"),
                        "while_expression" => return expression.child_by_field_name("body"),
                        "let_condition" | "let_chain" | "parenthesized_expression" => {
                            above = expression.parent();
                        }
                        _ => return None,
                    }
                }
                return None;
            }
            "let_declaration" | "parameter" | "closure_parameters" | "function_item"
            | "closure_expression" | "block" => return None,
            _ => current = node.parent(),
        }
    }
    None
}

/// Bindings are looked up by (scope, name), not by position: two closures of one function that
/// both name their parameter `x`, or two `let` patterns binding `v` from different variants,
/// would give every `x` the first one's type. Where such bindings disagree, none is kept (the
/// name stays a local of unknown type). Bindings of `match` arms and `if let` bodies hold in
/// their region only ([`pattern_region`]): those of different regions never conflict.
pub(super) fn drop_conflicting_bindings(bindings: &mut Vec<super::Binding>) {
    use super::BindingKind;
    use rustc_hash::FxHashMap;
    let positional =
        |kind: BindingKind| matches!(kind, BindingKind::Callback | BindingKind::Variant);
    type Key = (Option<u32>, Name, Option<(u32, u32)>);
    let mut first: FxHashMap<Key, Name> = FxHashMap::default();
    let mut conflicting: Vec<Key> = Vec::new();
    for binding in bindings.iter().filter(|binding| positional(binding.kind)) {
        let key = (binding.scope(), binding.name, binding.region());
        match first.get(&key) {
            Some(known) if *known != binding.type_name => conflicting.push(key),
            Some(_) => {}
            None => {
                first.insert(key, binding.type_name);
            }
        }
    }
    if conflicting.is_empty() {
        return;
    }
    bindings.retain(|binding| {
        !(positional(binding.kind)
            && conflicting.iter().any(|(scope, name, region)| {
                *scope == binding.scope() && *name == binding.name && *region == binding.region()
            }))
    });
}

/// The parent of `node`, found by walking down from `top`, an ancestor of it: `Node::parent`
/// walks down from the root, which costs the whole depth (and a binding's name is asked for
/// its parent once per binding).
fn parent_below<'tree>(top: Node<'tree>, node: Node<'tree>) -> Option<Node<'tree>> {
    if top.id() == node.id() {
        return node.parent();
    }
    let mut current = top;
    loop {
        let child = current.child_with_descendant(node)?;
        if child.id() == node.id() {
            return Some(current);
        }
        current = child;
    }
}

/// The position of a name bound by a tuple pattern (`let (tx, mut rx) = ..`: `tx` 0, `rx` 1),
/// when it is one of the pattern's elements. `top`: an ancestor of `name` (its binding).
pub(super) fn tuple_element<'tree>(name: Node<'tree>, top: Node<'tree>) -> Option<usize> {
    let mut element = name;
    let mut parent = parent_below(top, name)?;
    if parent.kind() == "mut_pattern" {
        element = parent;
        parent = parent_below(top, parent)?;
    }
    if parent.kind() != "tuple_pattern" {
        return None;
    }
    let mut cursor = parent.walk();
    parent
        .named_children(&mut cursor)
        .position(|child| child.id() == element.id())
}

/// Whether a `let`'s declared type is one the query's parameters and fields bind (a named,
/// generic, array, `impl`, `dyn` or primitive type, or a reference to one); the `let` pattern
/// leaves the kind to this check (`@binding.declared`).
pub(super) fn binding_type_kind(node: Node<'_>) -> bool {
    const NAMED: [&str; 7] = [
        "type_identifier",
        "scoped_type_identifier",
        "generic_type",
        "array_type",
        "abstract_type",
        "dynamic_type",
        "primitive_type",
    ];
    match node.kind() {
        "reference_type" => node
            .child_by_field_name("type")
            .is_some_and(|inner| NAMED.contains(&inner.kind())),
        kind => NAMED.contains(&kind),
    }
}

#[cfg(test)]
mod tests {
    use super::{declared_type, element_type};

    #[test]
    fn collections_keep_their_element_type() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("Vec<Foo>", Some("Foo"), "Vec<Foo>"),
            ("&'a [ClassRange]", Some("ClassRange"), "Vec<ClassRange>"),
            ("[u8; 4]", Some("u8"), "Vec<u8>"),
            (
                "Option<Vec<crate::a::Item>>",
                Some("crate::a::Item"),
                "Vec<crate::a::Item>",
            ),
            ("HashMap<String, Arg>", Some("Arg"), "Vec<Arg>"),
            (
                "impl Iterator<Item = &'a PossibleValue>",
                Some("&'a PossibleValue"),
                "Vec<PossibleValue>",
            ),
            ("std::slice::Iter<'a, I>", Some("I"), "Vec<I>"),
            ("Vec<Vec<Foo>>", Some("Vec<Foo>"), "Vec<Vec<Foo>>"),
            ("Option<Foo>", None, "Foo"),
            ("&mut Self", None, "Self"),
            ("Result<Store, Error>", None, "Store"),
        ];
        for (text, element, declared) in cases {
            assert_eq!(element_type(text), *element, "{text}");
            assert_eq!(declared_type(text), *declared, "{text}");
        }
    }
}
