//! Receiver types: what the expression before `.method()` holds, inferred in one step from what
//! the source states.
//!
//! A receiver is kept as text (`self.a.b`, `Foo::new()?`, `c.fd`, `NewServer(cfg).Handler()`),
//! parsed here into a chain: a head (a name, a call, `new T(...)`, a literal `T{...}`) and steps
//! (a field, a method call, a Go type assertion). The head's value comes from the enclosing type
//! (`self`, `this`), a binding in scope (a declared type, or the expression the name was
//! assigned, evaluated again), a module alias, or a type name; a call's value is its target's
//! declared return type (or the type itself, for a constructor), resolved in the scope of the
//! file that declares it; a field's value is the field's declared type, looked up along the bases.
//!
//! The answer is [`Value::External`] when the type is known to come from outside the workspace
//! (a builtin, the standard library, a dependency): a method call on such a receiver never falls
//! back to a same-named workspace method. It is [`Value::Unknown`] when nothing says.
//!
//! Foreign files are read through resolvers of their own (cached per resolver), which share
//! this one's record of lookups: a change to anything inference read re-resolves this file.

use std::rc::Rc;

use codegraph_model::Name;

use super::{Found, KindFilter, Resolver};
use crate::semantics::{self, ImportForm};
use crate::{EntityId, FilePath};
use codegraph_index::BindingKind;
use codegraph_model::EntityKind;

/// How deep evaluation may nest (a binding's value naming another binding, a chain's head).
const MAX_DEPTH: u32 = 6;

/// Methods that hand back the value they are called on, as far as calling methods on the
/// result goes: unwrapping, borrowing, cloning, locking (wrappers are unwrapped in type text).
const TRANSPARENT_METHODS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or_default",
    "unwrap_or",
    "unwrap_or_else",
    "unwrap_unchecked",
    "clone",
    "to_owned",
    "as_ref",
    "as_mut",
    "as_deref",
    "as_deref_mut",
    "borrow",
    "borrow_mut",
    "lock",
    "read",
    "write",
    "get_mut",
    "deref",
    "deref_mut",
    "cloned",
    "copied",
];

/// What a receiver holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// An instance of one of these types.
    Instance(Vec<EntityId>),
    /// The types themselves: static methods, associated functions, constructors.
    Static(Vec<EntityId>),
    /// A module (its files): `util.f()`, `pkg.F()`.
    Module(Vec<FilePath>),
    /// A value of a type defined outside the workspace.
    External,
    /// A collection or iterator (defined outside the workspace: `Vec<Foo>`, `&[Foo]`, `impl
    /// Iterator<Item = Foo>`) whose elements are instances of these types (none: unknown).
    Elements(Vec<EntityId>),
    /// Nothing says.
    Unknown,
}

impl Value {
    pub(super) fn merge(values: Vec<Value>) -> Value {
        let mut instances: Vec<EntityId> = Vec::new();
        let mut modules: Vec<crate::FilePath> = Vec::new();
        let mut elements: Vec<EntityId> = Vec::new();
        let mut all_external = !values.is_empty();
        let mut all_modules = !values.is_empty();
        let mut all_elements = !values.is_empty();
        for value in values {
            if let Value::Elements(types) = value {
                elements.extend(types);
                all_external = false;
                all_modules = false;
                continue;
            }
            all_elements = false;
            match value {
                Value::Instance(types) => instances.extend(types),
                Value::External => continue,
                Value::Module(files) => {
                    modules.extend(files);
                    all_external = false;
                    continue;
                }
                _ => {}
            }
            all_external = false;
            all_modules = false;
        }
        if !instances.is_empty() {
            instances.sort();
            instances.dedup();
            Value::Instance(instances)
        } else if all_modules && !modules.is_empty() {
            modules.sort();
            modules.dedup();
            Value::Module(modules)
        } else if all_external {
            Value::External
        } else if all_elements {
            elements.sort();
            elements.dedup();
            Value::Elements(elements)
        } else {
            Value::Unknown
        }
    }
}

/// One link of a receiver chain.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Part<'t> {
    /// A name or path (`a`, `a::b`), called when `call` is set.
    Name { text: &'t str, call: bool },
    /// `new T(...)`, `T{...}`: an instance of `T`.
    Construct(&'t str),
    /// Go's `.(T)`.
    Assert(&'t str),
    /// `[i]`: an element of the collection before it.
    Index,
    /// `(expression)`, maybe `(x as T)`.
    Group(&'t str),
}

/// Splits a receiver into its chain; `None` when it is not one (a literal, an operator).
fn parse_chain(text: &str) -> Option<Vec<Part<'_>>> {
    let mut text = text.trim();
    for prefix in ["&mut ", "&", "*", "await ", "yield ", "mut ", "..."] {
        while let Some(rest) = text.strip_prefix(prefix) {
            text = rest.trim_start();
        }
    }
    let mut parts = Vec::new();
    if let Some(rest) = text.strip_prefix("new ") {
        // `new Foo(...)` / `new ns.Foo(...)`, then maybe `.m()` (JavaScript binds `new` tighter).
        let end = rest.find('(').unwrap_or(rest.len());
        parts.push(Part::Construct(&rest[..end]));
        let after = skip_group(rest, end);
        return continue_chain(&rest[after..], parts);
    }
    // A literal of a qualified type: Go's `pkg.T{...}`, Rust's `a::T { .. }`.
    if let Some(open) = text.find('{')
        && open > 0
        && text[..open]
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b':'))
    {
        parts.push(Part::Construct(&text[..open]));
        let after = skip_group(text, open);
        return continue_chain(&text[after..], parts);
    }
    continue_chain(text, parts)
}

/// The index after the bracketed group that opens at `start` (or `start` when none opens there).
fn skip_group(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let Some(&open) = bytes.get(start) else {
        return start;
    };
    if !matches!(open, b'(' | b'[' | b'{' | b'<') {
        return start;
    }
    let mut depth = 0i32;
    for (offset, byte) in bytes[start..].iter().enumerate() {
        match byte {
            b'(' | b'[' | b'{' => depth += 1,
            b'<' if open == b'<' => depth += 1,
            b'>' if open == b'<' => depth -= 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return start + offset + 1;
        }
    }
    text.len()
}

fn continue_chain<'t>(mut text: &'t str, mut parts: Vec<Part<'t>>) -> Option<Vec<Part<'t>>> {
    loop {
        text = text.trim_start_matches(['?', '!']);
        if text.is_empty() {
            return (!parts.is_empty()).then_some(parts);
        }
        if !parts.is_empty() {
            match after_separator(text, &mut parts)? {
                Next::Part(rest) => {
                    text = rest;
                    continue;
                }
                Next::Name(rest) => text = rest,
            }
        } else if text.starts_with('(') {
            let end = skip_group(text, 0);
            // A group that does not close (a receiver cut short at its length limit) is no
            // chain; one that does ends with an ASCII `)`.
            if !text[..end].ends_with(')') {
                return None;
            }
            parts.push(Part::Group(&text[1..end - 1]));
            text = &text[end..];
            continue;
        }
        text = name_part(text, &mut parts)?;
    }
}

/// What follows a separator in a chain: a part already taken (an index, a type assertion),
/// or a name still to read.
enum Next<'t> {
    Part(&'t str),
    Name(&'t str),
}

/// After a chain's first part: `.`, `?.`, `->` and a name; `[...]`; Go's `.(T)`.
fn after_separator<'t>(text: &'t str, parts: &mut Vec<Part<'t>>) -> Option<Next<'t>> {
    let rest = if let Some(rest) = text.strip_prefix("?.") {
        rest
    } else if let Some(rest) = text.strip_prefix('.') {
        rest
    } else if let Some(rest) = text.strip_prefix("->") {
        rest
    } else if text.starts_with('[') {
        parts.push(Part::Index);
        return Some(Next::Part(&text[skip_group(text, 0)..]));
    } else {
        return None;
    };
    if let Some(inner) = rest.strip_prefix('(') {
        // Go's type assertion `.(T)`.
        let end = inner.find(')')?;
        parts.push(Part::Assert(&inner[..end]));
        return Some(Next::Part(&inner[end + 1..]));
    }
    Some(Next::Name(rest))
}

/// The length of a name or path at the start of `text`: identifiers joined by `::`, maybe
/// with `::<...>` arguments.
fn path_end(text: &str) -> usize {
    let is_name = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
    let bytes = text.as_bytes();
    let mut end = 0;
    loop {
        while end < bytes.len() && is_name(bytes[end]) {
            end += 1;
        }
        if text[end..].starts_with("::<") {
            end = skip_group(text, end + 2);
        } else if text[end..].starts_with("::") {
            end += 2;
        } else {
            return end;
        }
    }
}

/// A name or path and what follows it (a call's arguments, a literal's fields); the text
/// after it.
fn name_part<'t>(text: &'t str, parts: &mut Vec<Part<'t>>) -> Option<&'t str> {
    let end = path_end(text);
    if end == 0 {
        return None;
    }
    let name = &text[..end];
    let mut rest = &text[end..];
    if rest.starts_with('<') && parts.is_empty() {
        // Generic arguments of a head type or function: `Foo<T>::new()`, `make<T>()`.
        rest = &rest[skip_group(rest, 0)..];
        if let Some(stripped) = rest.strip_prefix("::") {
            return Some(generic_head_member(name, stripped, parts));
        }
    }
    let (part, after) = if rest.starts_with('(') {
        let call = Part::Name {
            text: name,
            call: true,
        };
        (call, &rest[skip_group(rest, 0)..])
    } else if rest.starts_with('{') && parts.is_empty() {
        // A literal of a named type: Go's `T{...}`, Rust's `T { .. }`.
        (Part::Construct(name), &rest[skip_group(rest, 0)..])
    } else {
        let name = Part::Name {
            text: name,
            call: false,
        };
        (name, rest)
    };
    parts.push(part);
    Some(after)
}

/// `Foo<T>::f(...)` read as `Foo::f(...)`: the head type, then its member `f` (called or
/// not); the text after it.
fn generic_head_member<'t>(head: &'t str, member: &'t str, parts: &mut Vec<Part<'t>>) -> &'t str {
    let tail_end = member
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(member.len());
    let call = member[tail_end..].starts_with('(');
    let after_call = if call {
        skip_group(&member[tail_end..], 0)
    } else {
        0
    };
    parts.push(Part::Name {
        text: head,
        call: false,
    });
    parts.push(Part::Name {
        text: &member[..tail_end],
        call,
    });
    &member[tail_end + after_call..]
}

/// `x as T` → (`x`, `T`). Receivers are kept with the spaces between words only, so the cast
/// may follow a bracket directly: `this[$mobx]as Adm`.
fn split_cast(text: &str) -> Option<(&str, &str)> {
    let position = text.rfind("as ")?;
    let before = text[..position].chars().next_back()?;
    (!(before.is_alphanumeric() || before == '_' || before == '$'))
        .then(|| (text[..position].trim_end(), &text[position + 3..]))
}

/// A type parameter's look (`T`, `K`, `TKey`): an unresolved name of that shape is not
/// evidence that the type is external.
fn looks_like_type_parameter(name: &str) -> bool {
    let mut characters = name.chars();
    let first = characters.next();
    first.is_some_and(|character| character.is_ascii_uppercase())
        && (name.len() <= 2
            || (name.starts_with('T')
                && name[1..].starts_with(|character: char| character.is_ascii_uppercase())))
}

impl<'a> Resolver<'a> {
    /// The value a receiver expression holds, seen from `scope`.
    pub(super) fn receiver_value(&self, receiver: &str, scope: Option<u32>) -> Value {
        self.value_of(receiver, scope, 0)
    }

    pub(super) fn value_of(&self, text: &str, scope: Option<u32>, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        if let Some(value) = self.literal_value(text, scope, depth) {
            return value;
        }
        let Some(parts) = parse_chain(text) else {
            return Value::Unknown;
        };
        let (mut value, start) = match self.dotted_module_head(&parts, scope) {
            Some(found) => found,
            None => (self.head_value(parts[0], scope, depth), 1),
        };
        for part in &parts[start..] {
            value = self.part_value(value, *part, scope, depth);
            if value == Value::Unknown {
                break;
            }
        }
        value
    }

    /// The value of an expression the language reads whole rather than as a chain: Python's
    /// `a or b`, a Rust number literal (`0xFEFFu32.to_ne_bytes()`, `2.0f64.sqrt()`), the
    /// element of a tuple a call returns (`channel().0`).
    fn literal_value(&self, text: &str, scope: Option<u32>, depth: u32) -> Option<Value> {
        if self.semantics.boolean_alternatives()
            && let Some(value) = self.python_alternatives_value(text, scope, depth)
        {
            return Some(value);
        }
        if self.semantics.primitive_methods()
            && text.starts_with(|character: char| character.is_ascii_digit())
        {
            return Some(Value::External);
        }
        // `", ".join(parts)`, `[a, b].map(f)`: a method of the language's own strings and arrays.
        if self.semantics.literals_are_the_runtimes() && literal_receiver(text) {
            return Some(Value::External);
        }
        if !self.semantics.tuple_values() {
            return None;
        }
        let (call, element) = text.rsplit_once('.').filter(|(call, element)| {
            call.ends_with(')') && element.bytes().all(|byte| byte.is_ascii_digit())
        })?;
        let parts = parse_chain(call)?;
        let [
            Part::Name {
                text: callee,
                call: true,
            },
        ] = parts[..]
        else {
            return None;
        };
        Some(self.tuple_element_returned(callee, element, scope, depth))
    }

    /// A dotted module path at the head (`import a.b.c` then `a.b.c.f()`): its longest prefix
    /// of plain names that an import binds, as a value and the number of parts it takes.
    fn dotted_module_head(&self, parts: &[Part<'_>], scope: Option<u32>) -> Option<(Value, usize)> {
        let plain = parts
            .iter()
            .take_while(|part| matches!(part, Part::Name { call: false, .. }))
            .count();
        for length in (2..=plain).rev() {
            let dotted: Vec<&str> = parts[..length]
                .iter()
                .filter_map(|part| match part {
                    Part::Name { text, .. } => Some(*text),
                    _ => None,
                })
                .collect();
            if let Some(files) = self.receiver_module_files(&dotted.join("."), scope) {
                let value = if files.is_empty() {
                    Value::External
                } else {
                    Value::Module(files)
                };
                return Some((value, length));
            }
        }
        None
    }

    /// The value of one step of a chain applied to the value before it.
    fn part_value(&self, value: Value, part: Part<'_>, scope: Option<u32>, depth: u32) -> Value {
        match part {
            Part::Name { text, call: false } => self.field_step(value, text, scope, depth),
            Part::Name {
                text: "__enter__",
                call: true,
            } if self.semantics.context_managers() => self.python_entered_value(value),
            Part::Name { text, call: true } => self.method_value(value, text),
            Part::Assert(type_text) => self.type_value(type_text, scope),
            Part::Index => match value {
                Value::Elements(types) if !types.is_empty() => Value::Instance(types),
                _ => Value::Unknown,
            },
            Part::Construct(_) | Part::Group(_) => Value::Unknown,
        }
    }

    /// `.field` on a value; in generic code, a tuple struct's `self.0` or a field typed by a
    /// type parameter (`Vec<I>`). (A type parameter that no bound types here looks external
    /// there.)
    fn field_step(&self, value: Value, field: &str, scope: Option<u32>, depth: u32) -> Value {
        let found = self.field_value(&value, field, depth);
        if !self.semantics.generic_values() {
            return found;
        }
        match found {
            Value::Unknown | Value::External => match self.rust_field_value(&value, field, scope) {
                Value::Unknown => found,
                generic => generic,
            },
            Value::Elements(types) if types.is_empty() => {
                match self.rust_field_value(&value, field, scope) {
                    Value::Unknown => Value::Elements(types),
                    generic => generic,
                }
            }
            found => found,
        }
    }

    fn head_value(&self, head: Part<'_>, scope: Option<u32>, depth: u32) -> Value {
        match head {
            Part::Name { text, call: false } => self.value_of_name(text, scope, depth),
            Part::Name { text, call: true } => self.value_of_call(text, scope, depth),
            Part::Construct(type_text) => self.construct_value(type_text, scope),
            Part::Group(inner) => match split_cast(inner) {
                Some((_, cast)) => self.type_value(cast, scope),
                None => self.value_of(inner, scope, depth + 1),
            },
            Part::Assert(_) | Part::Index => Value::Unknown,
        }
    }

    /// A name at the head of a chain.
    fn value_of_name(&self, name: &str, scope: Option<u32>, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        if name.contains("::") {
            return match self.path_value(name, scope) {
                // `ArgAction::SetTrue`: a value of the enum.
                Value::Unknown if self.semantics.generic_values() => {
                    self.variant_path_value(name, scope)
                }
                value => value,
            };
        }
        if self.spec.self_receivers.contains(&name) {
            return match self.enclosing_type(scope) {
                Some(type_id) if matches!(name, "Self" | "cls" | "static") => {
                    Value::Static(vec![type_id])
                }
                Some(type_id) => Value::Instance(vec![type_id]),
                None if self.semantics.generic_values() => self.generic_self_value(scope),
                None => Value::Unknown,
            };
        }
        if let Some((type_text, kind, _)) = self.binding_of(name, scope)
            && kind == BindingKind::Value
            && self.requires_a_member_outside(type_text)
        {
            // `var mime = require('send').mime`: a value of a package that is not the
            // workspace's, so `mime.lookup()` is never a workspace `lookup`.
            return Value::External;
        }
        if let Some((type_text, kind, binding_scope)) = self.binding_of(name, scope)
            // `const x = require('./x')` is an import: the module below.
            && !(kind == BindingKind::Value && type_text.starts_with("require("))
        {
            let value = match kind {
                BindingKind::Type => self.construct_value(type_text, scope),
                BindingKind::Value => self.value_of(type_text, binding_scope, depth + 1),
                BindingKind::Callback => self.callback_value(type_text, binding_scope, depth),
                BindingKind::Variant => self.variant_value(type_text, binding_scope),
                BindingKind::Bound | BindingKind::Local | BindingKind::Alias => Value::Unknown,
            };
            // An assigned value nothing says about may still be a module (`require(...)`).
            if value != Value::Unknown || kind != BindingKind::Value {
                return value;
            }
        }
        // A module-level value of another file, imported by name (`from app.util import
        // REGISTRY`): what its binding there says.
        let imported = self.imported_value(name, scope, depth);
        if imported != Value::Unknown {
            return imported;
        }
        if let Some(files) = self.receiver_module_files(name, scope) {
            // An import of nothing in the workspace: `import json`, `import "net/http"`.
            return if files.is_empty() {
                Value::External
            } else {
                Value::Module(files)
            };
        }
        if self.names_external_module(name, scope) {
            return Value::External;
        }
        if let Found::Targets(types, _) = self.resolve_name(name, scope, KindFilter::Type) {
            return Value::Static(types);
        }
        // The runtime's global objects, where nothing in the workspace shadows them.
        if self.semantics.runtime_globals().contains(&name)
            && self.named(name, KindFilter::Any).is_empty()
        {
            return Value::External;
        }
        // A field named without `this`, in a member defined out of its class's body (C++'s
        // `void State::Run() { edges_.clear(); }`): the field the class declares.
        if self.spec.implicit_members
            && let Some(type_id) = self.enclosing_type(scope)
        {
            return self.field_value(&Value::Instance(vec![type_id]), name, depth + 1);
        }
        Value::Unknown
    }

    /// `a::b::C` at the head: a type (static calls) or a module.
    pub(super) fn path_value(&self, path: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        // A type parameter: `T::f()` calls the bound's member.
        if let Some((bound, BindingKind::Bound, _)) = self.binding_of(path, scope) {
            return match self.type_value(bound, scope) {
                Value::Instance(types) => Value::Static(types),
                _ => Value::Unknown,
            };
        }
        // `self::f()` in Rust names the current module, not the type.
        let module_self = path == "self" && self.semantics.paths_name_items();
        if self.spec.self_receivers.contains(&path) && !module_self {
            return match self.enclosing_type(scope) {
                Some(type_id) => Value::Static(vec![type_id]),
                None => Value::Unknown,
            };
        }
        let types: Vec<EntityId> = self
            .resolve_type_path(path, scope)
            .into_iter()
            .filter(|id| self.kind_of(id).is_some_and(EntityKind::is_type))
            .collect();
        if !types.is_empty() {
            return Value::Static(types);
        }
        if let Some(files) = self.receiver_module_files(path, scope) {
            return Value::Module(files);
        }
        if self.semantics.paths_name_items() {
            // A module of the crate named relative to this one (`util::f()` after `mod util;`).
            let import = codegraph_index::Import {
                path: Name::new(path),
                name: None,
                alias: None,
                wildcard: false,
                span: codegraph_model::Span::default(),
                scope: None,
            };
            let files = self.files_of_import(&import);
            if !files.is_empty() {
                return Value::Module(files);
            }
        }
        Value::Unknown
    }

    /// Whether `text` is a member of a CommonJS `require` of a module the workspace does not
    /// hold (`require('send').mime`); a `require` of a workspace file (`require('./list').x`,
    /// or a workspace package by name) is not.
    fn requires_a_member_outside(&self, text: &str) -> bool {
        if !self.semantics.imports_by_call() {
            return false;
        }
        let Some(rest) = text.strip_prefix("require(") else {
            return false;
        };
        let Some(quote) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '\'' | '"' | '`'))
        else {
            return false;
        };
        let Some((specifier, after)) = rest[1..].split_once(quote) else {
            return false;
        };
        if !after.starts_with(").") || specifier.is_empty() {
            return false;
        }
        let import = codegraph_index::Import {
            path: Name::new(specifier),
            name: None,
            alias: None,
            wildcard: false,
            span: codegraph_model::Span::default(),
            scope: None,
        };
        self.files_of_import(&import).is_empty()
    }

    /// A call at the head of a chain: `f(...)`, `Type::new(...)`, `module::f(...)`.
    fn value_of_call(&self, callee: &str, scope: Option<u32>, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        match self.callee_targets(callee, scope, depth) {
            Found::Targets(targets, _) => self.returns_of(&targets),
            // `__import__("pydoc")`, `require(...)` of nothing in the workspace: the runtime's.
            Found::Nothing
                if !callee.contains("::") && self.spec.builtin_functions.contains(&callee) =>
            {
                Value::External
            }
            _ => Value::Unknown,
        }
    }

    /// What the head of a call chain calls: `f`, or `path::f` (a path, never guessed).
    fn callee_targets(&self, callee: &str, scope: Option<u32>, depth: u32) -> Found {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Found::Nothing;
        };
        match callee.rsplit_once("::") {
            Some((receiver, name)) => {
                self.resolve_call(name, Some(receiver), scope, true, depth + 1)
            }
            None => self.resolve_call(callee, None, scope, false, depth + 1),
        }
    }

    /// Element `element` of the tuple `callee` returns (`oneshot::channel()` declared
    /// `-> (Sender<T>, Receiver<T>)`: element 0 is a `Sender`).
    fn tuple_element_returned(
        &self,
        callee: &str,
        element: &str,
        scope: Option<u32>,
        depth: u32,
    ) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let found = self.callee_targets(callee, scope, depth);
        let (Found::Targets(targets, _), Ok(element)) = (found, element.parse::<usize>()) else {
            return Value::Unknown;
        };
        let mut values = Vec::new();
        for target in &targets {
            let Some((file, Some(index))) = self.def_of(target) else {
                continue;
            };
            let Some(returns) = &file.summary.defs[index as usize].returns else {
                continue;
            };
            let Some(inner) = returns
                .trim()
                .strip_prefix('(')
                .and_then(|rest| rest.strip_suffix(')'))
            else {
                continue;
            };
            if let Some(element_type) = codegraph_index::top_level_split(inner, ',').nth(element) {
                values.push(
                    self.resolver_for(file)
                        .type_value(element_type, Some(index)),
                );
            }
        }
        if values.is_empty() {
            return Value::Unknown;
        }
        Value::merge(values)
    }

    /// `new T(...)`, `T{...}`: an instance of `T`; in JavaScript, `T` may be a constructor
    /// function whose methods are assigned to its prototype.
    fn construct_value(&self, type_text: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let value = self.type_value(type_text, scope);
        if matches!(value, Value::Instance(_)) || !self.semantics.constructor_functions() {
            return value;
        }
        match self.resolve_name(type_text, scope, KindFilter::Function) {
            Found::Targets(functions, _) => Value::Instance(functions),
            _ => value,
        }
    }

    /// `.name` on a value.
    fn field_value(&self, value: &Value, field: &str, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        match value {
            Value::Instance(types) => {
                let mut values = Vec::new();
                for type_id in types {
                    values.push(self.field_of_type(type_id, field, depth));
                }
                Value::merge(values)
            }
            Value::Module(files) => {
                let types = self.exported_by_files(files, field, KindFilter::Type, 0);
                if !types.is_empty() {
                    return Value::Static(types);
                }
                // `app.util.REGISTRY`: a module-level value.
                let value = self.module_binding_value(files, field, depth);
                if value == Value::Unknown
                    && self.semantics.submodules_are_attributes()
                    && let Some(submodule) = self.python_submodule(files, field)
                {
                    return Value::Module(submodule);
                }
                value
            }
            Value::External => Value::External,
            Value::Static(_) | Value::Elements(_) | Value::Unknown => Value::Unknown,
        }
    }

    /// `.name(...)` on a value: the return type of the method it calls.
    pub(super) fn method_value(&self, value: Value, method: &str) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        match &value {
            Value::Instance(types) | Value::Static(types) => {
                let mut targets = Vec::new();
                for type_id in types {
                    targets.extend(self.member_lookup(type_id, method, KindFilter::Callable, true));
                }
                if targets.is_empty() {
                    if TRANSPARENT_METHODS.contains(&method) && matches!(value, Value::Instance(_))
                    {
                        return value;
                    }
                    return Value::Unknown;
                }
                self.returns_of(&targets)
            }
            Value::Module(files) => {
                let targets = self.exported_by_files(files, method, KindFilter::Callable, 0);
                self.returns_of(&targets)
            }
            Value::Elements(types) => self.element_method_value(types, method),
            Value::External => Value::External,
            Value::Unknown => Value::Unknown,
        }
    }

    /// What calling these targets yields: a type is constructed; a function returns its
    /// declared return type, resolved where it is declared.
    fn returns_of(&self, targets: &[EntityId]) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let mut values = Vec::new();
        for target in targets {
            let Some((file, Some(index))) = self.def_of(target) else {
                continue;
            };
            let def = &file.summary.defs[index as usize];
            if def.kind.is_type() {
                values.push(Value::Instance(vec![*target]));
                continue;
            }
            let Some(returns) = &def.returns else {
                values.push(Value::Unknown);
                continue;
            };
            let resolver = self.resolver_for(file);
            values.push(resolver.type_value(returns, Some(index)));
        }
        if values.is_empty() {
            return Value::Unknown;
        }
        Value::merge(values)
    }

    /// A field's value: its declared type (or assigned value) in the type's own file, along the
    /// type's bases; a method of that name (a getter, a property) gives its return type.
    fn field_of_type(&self, type_id: &EntityId, field: &str, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let mut level = vec![*type_id];
        let mut seen: Vec<EntityId> = Vec::new();
        for _ in 0..6 {
            let mut next = Vec::new();
            for current in level {
                if seen.contains(&current) {
                    continue;
                }
                seen.push(current);
                let Some((file, Some(index))) = self.def_of(&current) else {
                    continue;
                };
                let resolver = self.resolver_for(file);
                if let Some(binding) = resolver.field_binding(index, field) {
                    return match binding.kind {
                        BindingKind::Type => resolver.type_value(&binding.type_name, Some(index)),
                        BindingKind::Value => {
                            resolver.value_of(&binding.type_name, Some(index), depth + 1)
                        }
                        BindingKind::Bound
                        | BindingKind::Local
                        | BindingKind::Alias
                        | BindingKind::Callback
                        | BindingKind::Variant => Value::Unknown,
                    };
                }
                next.extend(self.bases(&current));
                // Go's embedded fields are named after their type.
                let embedding = semantics::of(file.language).embedded_fields();
                for binding in file.summary.bindings.iter().filter(|_| embedding) {
                    if binding.scope() == Some(index)
                        && binding.kind == BindingKind::Type
                        && binding.type_name.rsplit('.').next() == Some(binding.name.as_str())
                        && let Value::Instance(embedded) =
                            resolver.type_value(&binding.type_name, Some(index))
                    {
                        next.extend(embedded);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        let getters = self.member_lookup(type_id, field, KindFilter::Callable, true);
        if !getters.is_empty() {
            return self.returns_of(&getters);
        }
        Value::Unknown
    }

    /// The binding of a field of this file's type `index`: `name`, or `self.name`/`this.name`
    /// bound in the type's methods.
    pub(super) fn field_binding(
        &self,
        index: u32,
        field: &str,
    ) -> Option<&'a codegraph_index::Binding> {
        self.summary.bindings.iter().find(|binding| {
            binding.scope() == Some(index)
                && (binding.name == field
                    || binding.name.split_once('.').is_some_and(|(head, rest)| {
                        rest == field && self.spec.self_receivers.contains(&head)
                    }))
        })
    }

    /// The value of an instance of the written type, resolved in this file at `scope`.
    pub(super) fn type_value(&self, type_text: &str, scope: Option<u32>) -> Value {
        self.type_value_at(type_text, scope, 0)
    }

    /// [`Self::type_value`], `depth` type aliases deep.
    pub(super) fn type_value_at(&self, type_text: &str, scope: Option<u32>, depth: u32) -> Value {
        let Some(_step) =
            codegraph_model::walk::enter_keyed(("type", self.file.path, type_text, scope))
        else {
            return Value::Unknown;
        };
        let type_text = type_text.trim();
        if type_text.is_empty() || depth > MAX_DEPTH {
            return Value::Unknown;
        }
        if matches!(type_text, "Self" | "this" | "self" | "static" | "$this") {
            return match self.enclosing_type(scope) {
                Some(type_id) => Value::Instance(vec![type_id]),
                None => Value::Unknown,
            };
        }
        if let Some(value) = self.compound_type_value(type_text, scope, depth) {
            return value;
        }
        let normalized = codegraph_index::value_type(type_text);
        let type_text = normalized.as_str();
        // Types that say nothing about the value (`t.Any` too).
        if matches!(
            type_text.rsplit('.').next().unwrap_or(type_text),
            "any" | "unknown" | "object" | "Object" | "interface{}" | "Any" | "dynamic" | "var"
        ) {
            return Value::Unknown;
        }
        // A type parameter: its bound.
        if let Some((bound, BindingKind::Bound, _)) = self.binding_of(type_text, scope) {
            let bound = *bound;
            return match self.type_value_at(&bound, scope, depth + 1) {
                Value::External => Value::Unknown,
                other => other,
            };
        }
        let types: Vec<EntityId> = self
            .resolve_type_path(type_text, scope)
            .into_iter()
            .filter(|id| self.kind_of(id).is_some_and(EntityKind::is_type))
            .collect();
        if !types.is_empty() {
            return Value::Instance(types);
        }
        // A TypeScript type alias (`type ZodTypeAny = ZodType<any, any, any>`): the aliased type.
        if let Some(value) = self.alias_value(type_text, scope, depth) {
            return value;
        }
        self.unresolved_type_value(type_text, scope)
    }

    /// A type made of others: a tuple a function returns, `(Sender<T>, Receiver<T>)`, used
    /// whole (its first element, as the text alone would read; `let (tx, rx) = ..` takes each
    /// element); a collection (`Vec<Foo>`, `&[Foo]`, `impl Iterator<Item = Foo>`); a union
    /// (`A | B`: an instance of each alternative).
    fn compound_type_value(
        &self,
        type_text: &str,
        scope: Option<u32>,
        depth: u32,
    ) -> Option<Value> {
        if self.semantics.tuple_values()
            && let Some(inner) = type_text
                .strip_prefix('(')
                .and_then(|rest| rest.strip_suffix(')'))
            && let Some(first) = codegraph_index::top_level_split(inner, ',').next()
            && first.len() < inner.len()
        {
            return Some(self.type_value_at(first, scope, depth));
        }
        if let Some(element) = self.semantics.element_type(type_text) {
            return Some(self.elements_of_type(element, scope));
        }
        if !self.semantics.union_types() {
            return None;
        }
        let alternatives: Vec<&str> = codegraph_index::top_level_split(type_text, '|')
            .map(str::trim)
            .filter(|alternative| !matches!(*alternative, "" | "null" | "undefined" | "void"))
            .collect();
        (alternatives.len() > 1).then(|| {
            Value::merge(
                alternatives
                    .into_iter()
                    .map(|alternative| self.type_value_at(alternative, scope, depth))
                    .collect(),
            )
        })
    }

    /// A type name no lookup found: from outside the workspace (`http.Request`, `serde::Value`,
    /// a builtin, a dependency), or unknown (a type parameter, a name defined in the workspace
    /// but not reachable from here, or ambiguous).
    fn unresolved_type_value(&self, type_text: &str, scope: Option<u32>) -> Value {
        let head = type_text.split(['.', ':', '\\']).next().unwrap_or("");
        if head.len() < type_text.len() && self.names_external_module(head, scope) {
            return Value::External;
        }
        let last = type_text
            .rsplit(['.', ':', '\\'])
            .next()
            .unwrap_or(type_text);
        if last.is_empty() || looks_like_type_parameter(last) {
            return Value::Unknown;
        }
        if !last
            .chars()
            .all(|character| character.is_alphanumeric() || character == '_')
        {
            return Value::Unknown;
        }
        if self.named(last, KindFilter::Type).is_empty() {
            Value::External
        } else {
            Value::Unknown
        }
    }

    /// A binding of `name` visible from `scope`: (type or expression, kind, its scope).
    pub(super) fn binding_of(
        &self,
        name: &str,
        scope: Option<u32>,
    ) -> Option<(&'a Name, BindingKind, Option<u32>)> {
        let mut current = scope;
        let at = self.at.get();
        loop {
            // A `match` arm's binding where the reference is in that arm (the innermost one).
            if let Some(regional) = self.declared.regional.get(&(current, name))
                && let Some(binding) = regional
                    .iter()
                    .filter(|binding| {
                        binding
                            .region()
                            .is_some_and(|(start, end)| start <= at && at < end)
                    })
                    .min_by_key(|binding| binding.region().map(|(start, end)| end - start))
            {
                return Some((&binding.type_name, binding.kind, current));
            }
            if let Some(binding) = self.declared.bindings.get(&(current, name)) {
                return Some((&binding.type_name, binding.kind, current));
            }
            match current {
                Some(index) => current = self.summary.defs[index as usize].parent,
                None => return None,
            }
        }
    }

    /// The value of a name imported from workspace files where it is a module-level binding.
    fn imported_value(&self, name: &str, scope: Option<u32>, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        if depth > 4 {
            return Value::Unknown;
        }
        for (position, import) in self.summary.imports.iter().enumerate() {
            // Only an import of a member by name (`from m import x`, `import { x }`): one that
            // binds a whole module (`import log "…"`, `import * as z`) names no binding there.
            let Some(original) = import.name.as_deref() else {
                continue;
            };
            if import.wildcard
                || self.declared.import_bindings[position].as_deref() != Some(name)
                || !self.import_visible(import, scope)
            {
                continue;
            }
            let files = self.import_files(position);
            let value = self.module_binding_value(&files, original, depth);
            if value != Value::Unknown {
                return value;
            }
        }
        Value::Unknown
    }

    /// A name bound by a variant pattern (`Value::Number(n)`): the type the enum declares for
    /// that field of the variant (`Number(Number)`), resolved in the enum's file.
    fn variant_value(&self, site: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        // A struct's field (`Self { pool, .. }`, `Wrapper(inner)`): Rust's own rules.
        if site.ends_with('}') || !site.contains("::") {
            return self.struct_pattern_value(site, scope);
        }
        let Some((variant_path, position)) = site
            .strip_suffix(')')
            .and_then(|rest| rest.rsplit_once('('))
        else {
            return Value::Unknown;
        };
        let Some((type_path, variant)) = variant_path.rsplit_once("::") else {
            return Value::Unknown;
        };
        let field = format!("{variant}({position})");
        let types = match self.path_value(type_path, scope) {
            Value::Static(types) | Value::Instance(types) => types,
            _ => return Value::Unknown,
        };
        let mut values = Vec::new();
        for type_id in types {
            let Some((file, Some(index))) = self.def_of(&type_id) else {
                continue;
            };
            let resolver = self.resolver_for(file);
            if let Some(binding) = resolver.field_binding(index, &field)
                && binding.kind == BindingKind::Type
            {
                values.push(resolver.type_value(&binding.type_name, Some(index)));
            }
        }
        if values.is_empty() {
            return Value::Unknown;
        }
        Value::merge(values)
    }

    /// An untyped callback parameter (`operate((source, subscriber) => ...)`): the type that
    /// the callee declares for that parameter of that argument, read from its signature and
    /// resolved in the callee's own file (`init: (source: Observable<T>, subscriber:
    /// Subscriber<R>) => void`).
    fn callback_value(&self, site: &str, scope: Option<u32>, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let mut parts = site.split('\u{1}');
        let (Some(callee), Some(argument), Some(parameter)) = (
            parts.next(),
            parts.next().and_then(|text| text.parse::<usize>().ok()),
            parts.next().and_then(|text| text.parse::<usize>().ok()),
        ) else {
            return Value::Unknown;
        };
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        if self.semantics.closures_over_elements() {
            return self.closure_parameter_value(callee, argument, parameter, scope, depth);
        }
        let targets: Vec<EntityId> = if let Some(class) = callee.strip_prefix("new ") {
            match self.construct_value(class, scope) {
                Value::Instance(types) | Value::Static(types) => types
                    .iter()
                    .flat_map(|type_id| {
                        self.member_lookup(type_id, "constructor", KindFilter::Callable, true)
                    })
                    .collect(),
                _ => return Value::Unknown,
            }
        } else {
            let (receiver, name) = match callee.rsplit_once('.') {
                Some((receiver, name)) => (Some(receiver), name),
                None => (None, callee),
            };
            match self.resolve_call(name, receiver, scope, false, depth + 1) {
                Found::Targets(targets, _) => targets,
                _ => return Value::Unknown,
            }
        };
        let mut values = Vec::new();
        for target in targets {
            let Some((file, Some(index))) = self.def_of(&target) else {
                continue;
            };
            let signature = file.summary.defs[index as usize].signature();
            let Some(declared) = callback_parameter_type(signature, argument, parameter) else {
                continue;
            };
            values.push(self.resolver_for(file).type_value(declared, Some(index)));
        }
        if values.is_empty() {
            return Value::Unknown;
        }
        Value::merge(values)
    }

    /// What the module-level binding `name` of these files says of its value (`REGISTRY =
    /// Registry()`), read in each file's own scope.
    fn module_binding_value(&self, files: &[crate::FilePath], name: &str, depth: u32) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        // A change of that binding (its name's export hash) re-resolves this file.
        self.recorder.name(name);
        let mut values = Vec::new();
        for path in files {
            let Some(file) = self.graph.files.get(path) else {
                continue;
            };
            let resolver = self.resolver_for(file);
            let Some(binding) = resolver.declared.bindings.get(&(None, name)) else {
                // A module bound there and exported on (`import * as z from "./external"`
                // then `export { z }`): that module.
                match resolver.receiver_module_files(name, None) {
                    Some(files) if files.is_empty() => values.push(Value::External),
                    Some(files) => values.push(Value::Module(files)),
                    // A name imported there from outside the workspace and imported on from
                    // there (`from .compat import JSONDecodeError` where compat.py has `from
                    // json import JSONDecodeError`).
                    None if resolver.names_external_module(name, None) => {
                        values.push(Value::External)
                    }
                    None => {}
                }
                continue;
            };
            values.push(match binding.kind {
                BindingKind::Type => resolver.construct_value(&binding.type_name, None),
                BindingKind::Value => resolver.value_of(&binding.type_name, None, depth + 1),
                BindingKind::Bound
                | BindingKind::Local
                | BindingKind::Alias
                | BindingKind::Callback
                | BindingKind::Variant => Value::Unknown,
            });
        }
        if values.is_empty() {
            return Value::Unknown;
        }
        Value::merge(values)
    }

    /// A name bound by an import from a module outside the workspace (`import requests`,
    /// `from unittest import mock`, `import "net/http"`, `use serde::Deserialize`).
    fn names_external_module(&self, name: &str, scope: Option<u32>) -> bool {
        // Where imports name packages or a whole module, no file list says "outside".
        if matches!(
            self.semantics.import_form(),
            ImportForm::Packages | ImportForm::WholeModule
        ) {
            return false;
        }
        self.summary
            .imports
            .iter()
            .enumerate()
            .any(|(position, import)| {
                self.declared.import_bindings[position].as_deref() == Some(name)
                    && self.import_visible(import, scope)
                    && self.import_files(position).is_empty()
                    && !import.path.is_empty()
                    && !import.path.starts_with('.')
            })
    }

    /// A resolver for another file (this one for its own), sharing this one's record of lookups.
    pub(super) fn resolver_for<'r>(&'r self, file: &'a crate::FileNode) -> ResolverRef<'r, 'a> {
        // The resolver's own file (a field of a type of this file): itself, not a second
        // resolver that would index the whole file again.
        if std::ptr::eq(file, self.file) {
            return ResolverRef::Own(self);
        }
        if let Some(found) = self.memo.foreign.borrow().get(&file.path) {
            return ResolverRef::Foreign(found.clone());
        }
        let resolver = Rc::new(Resolver::with_recorder(
            self.graph,
            file,
            self.recorder.clone(),
        ));
        self.memo
            .foreign
            .borrow_mut()
            .insert(file.path, resolver.clone());
        ResolverRef::Foreign(resolver)
    }
}

/// A resolver for a definition's file: this one, or a cached one for another file.
pub(super) enum ResolverRef<'r, 'a> {
    Own(&'r Resolver<'a>),
    Foreign(Rc<Resolver<'a>>),
}

impl<'a> std::ops::Deref for ResolverRef<'_, 'a> {
    type Target = Resolver<'a>;

    fn deref(&self) -> &Resolver<'a> {
        match self {
            ResolverRef::Own(resolver) => resolver,
            ResolverRef::Foreign(resolver) => resolver,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_parse_into_heads_and_steps() {
        let name = |text, call| Part::Name { text, call };
        // A receiver cut short inside a group of multi-byte text (chardet's tests): no chain.
        assert_eq!(parse_chain("(\"\u{3b1}\u{3b1}\u{3b1}"), None);
        assert_eq!(
            parse_chain("(\"\u{3cc}\")"),
            Some(vec![Part::Group("\"\u{3cc}\"")])
        );
        assert_eq!(
            parse_chain("self.a.b"),
            Some(vec![
                name("self", false),
                name("a", false),
                name("b", false)
            ])
        );
        assert_eq!(
            parse_chain("Foo::new(x,y)?.build()"),
            Some(vec![name("Foo::new", true), name("build", true)])
        );
        assert_eq!(
            parse_chain("new Foo(1).bar"),
            Some(vec![Part::Construct("Foo"), name("bar", false)])
        );
        assert_eq!(
            parse_chain("&Server{addr:a}"),
            Some(vec![Part::Construct("Server")])
        );
        assert_eq!(
            parse_chain("x.(*File).fd"),
            Some(vec![
                name("x", false),
                Part::Assert("*File"),
                name("fd", false)
            ])
        );
        assert_eq!(
            parse_chain("await this.load()"),
            Some(vec![name("this", false), name("load", true)])
        );
        assert_eq!(
            parse_chain("Vec::<u8>::with_capacity(4)"),
            Some(vec![name("Vec::<u8>::with_capacity", true)])
        );
        assert_eq!(
            parse_chain("items[0].name"),
            Some(vec![name("items", false), Part::Index, name("name", false)])
        );
        assert_eq!(parse_chain("\"text\""), None);
        assert_eq!(parse_chain("a + b"), None);
    }

    #[test]
    fn casts_are_split_from_their_expression() {
        assert_eq!(split_cast("x as Foo"), Some(("x", "Foo")));
        assert_eq!(
            split_cast("this[$mobx]as Adm"),
            Some(("this[$mobx]", "Adm"))
        );
        assert_eq!(split_cast("x as any as Foo"), Some(("x as any", "Foo")));
        assert_eq!(split_cast("has (x)"), None);
        assert_eq!(split_cast("alias"), None);
    }

    #[test]
    fn type_parameters_are_told_apart_from_types() {
        assert!(looks_like_type_parameter("T"));
        assert!(looks_like_type_parameter("TKey"));
        assert!(!looks_like_type_parameter("Token"));
        assert!(!looks_like_type_parameter("String"));
    }
}

/// The parameters of a TypeScript signature or function type, as (name, declared type) texts:
/// `f<T>(a: A, b?: B<T> = x, ...rest: C[])` → `a: A`, `b: B<T>`, `rest: C[]`. `this:` is left
/// out (it is no argument).
fn parameter_types(signature: &str) -> Option<Vec<(&str, &str)>> {
    // The parameter list: the first `(` outside `<...>`.
    let mut angle = 0i32;
    let mut open = None;
    for (index, character) in signature.char_indices() {
        match character {
            '<' => angle += 1,
            '>' => angle -= 1,
            '(' if angle <= 0 => {
                open = Some(index);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    let mut depth = 0i32;
    let mut close = None;
    let mut commas = Vec::new();
    for (index, character) in signature[open..].char_indices() {
        match character {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => {
                // `=>` is no closing bracket.
                if character == '>' && signature[..open + index].ends_with('=') {
                    continue;
                }
                depth -= 1;
                if depth == 0 {
                    close = Some(open + index);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + index),
            _ => {}
        }
    }
    let close = close?;
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let mut parameters = Vec::new();
    for window in bounds.windows(2) {
        let text = signature[window[0] + 1..window[1]].trim();
        if text.is_empty() {
            continue;
        }
        let (name, declared) = match top_level_colon(text) {
            Some(colon) => (text[..colon].trim(), text[colon + 1..].trim()),
            None => (text, ""),
        };
        let name = name
            .trim_start_matches("...")
            .trim_end_matches('?')
            .rsplit(' ')
            .next()
            .unwrap_or(name);
        if name == "this" {
            continue;
        }
        let declared = match top_level_equals(declared) {
            Some(equals) => declared[..equals].trim(),
            None => declared,
        };
        parameters.push((name, declared));
    }
    Some(parameters)
}

fn top_level_colon(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (index, character) in text.char_indices() {
        match character {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ':' if depth == 0 => return Some(index),
            _ => {}
        }
    }
    None
}

fn top_level_equals(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let bytes = text.as_bytes();
    for (index, character) in text.char_indices() {
        match character {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if index > 0 && bytes[index - 1] == b'=' => {}
            '>' => depth -= 1,
            '=' if depth == 0 && bytes.get(index + 1) != Some(&b'>') => return Some(index),
            _ => {}
        }
    }
    None
}

/// The declared type of parameter `parameter` of the function type that `signature` declares
/// for its argument `argument`: `operate(init: (source: Observable<T>, subscriber:
/// Subscriber<R>) => void)` with (0, 1) → `Subscriber<R>`. `None` when that argument is not
/// declared as a function type.
fn callback_parameter_type(signature: &str, argument: usize, parameter: usize) -> Option<&str> {
    let parameters = parameter_types(signature)?;
    let (_, declared) = parameters.get(argument)?;
    let declared = declared.trim();
    // A function type: `(a: A) => R`, possibly parenthesised or optional (`?:` handled above).
    let declared = declared
        .strip_prefix("((")
        .map_or(declared, |_| &declared[1..]);
    if !declared.starts_with('(') || !declared.contains("=>") {
        return None;
    }
    let inner = parameter_types(declared)?;
    let (_, found) = inner.get(parameter)?;
    (!found.is_empty()).then_some(*found)
}

#[cfg(test)]
mod callback_tests {
    use super::callback_parameter_type;

    #[test]
    fn callback_parameters_are_read_from_the_callees_signature() {
        let cases: &[(&str, usize, usize, Option<&str>)] = &[
            (
                "function operate<T, R>( init: (liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void ): OperatorFunction<T, R>",
                0,
                1,
                Some("Subscriber<R>"),
            ),
            (
                "constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic)",
                0,
                0,
                Some("Subscriber<T>"),
            ),
            (
                "function run(name: string, each: (item: Item, index: number) => void = noop)",
                1,
                0,
                Some("Item"),
            ),
            // Not a function type, or no such parameter.
            ("function f(a: Map<string, number>)", 0, 0, None),
            ("function f(callback)", 0, 0, None),
            ("function f(cb: (x: A) => void)", 0, 3, None),
            ("function f(cb: (x: A) => void)", 2, 0, None),
        ];
        for (signature, argument, parameter, expected) in cases {
            assert_eq!(
                callback_parameter_type(signature, *argument, *parameter),
                *expected,
                "{signature} ({argument}, {parameter})"
            );
        }
    }
}

/// Whether a receiver is a string literal (`", "`, `f"{x}"`, `b'..'`, a template) or an array
/// literal (`[a, b]`).
pub(super) fn literal_receiver(text: &str) -> bool {
    let rest = text.trim_start_matches(|character: char| "rRbBuUfF".contains(character));
    let prefix = text.len() - rest.len();
    prefix <= 2 && rest.starts_with(['"', '\'', '`']) || prefix == 0 && text.starts_with('[')
}
