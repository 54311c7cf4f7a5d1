//! Rust-specific receiver inference: what a receiver holds where Rust's generics and traits
//! decide it.
//!
//! - `self` in an `impl` for a type parameter (`impl<I: PeekingNext> PeekingNext for &mut I`)
//!   is an instance of the parameter's bound; so is a field typed by the struct's parameter,
//!   under the bound of the `impl` around the call.
//! - A tuple struct's positional fields (`self.0`), and the names bound by struct and tuple
//!   struct patterns (`let Self { pool, .. } = self`, `let Wrapper(inner) = w`).

use super::infer::Value;
use super::{Found, KindFilter, Resolver};
use crate::EntityId;
use codegraph_index::BindingKind;

impl<'a> Resolver<'a> {
    /// `self` where the enclosing `impl` names a type parameter instead of a type: an instance
    /// of the parameter's bound (a trait, whose methods are dispatches).
    pub(super) fn generic_self_value(&self, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let mut current = scope;
        while let Some(index) = current {
            let def = &self.summary.defs[index as usize];
            if def.parent.is_none() {
                let Some(owner) = &def.owner else {
                    return Value::Unknown;
                };
                return match self.binding_of(owner, scope) {
                    Some((bound, BindingKind::Bound, _)) => match self.type_value(bound, scope) {
                        Value::External => Value::Unknown,
                        value => value,
                    },
                    _ => Value::Unknown,
                };
            }
            current = def.parent;
        }
        Value::Unknown
    }
}

impl<'a> Resolver<'a> {
    /// A field that the general rules do not type: a tuple struct's positional field
    /// (`self.0`, declared `struct Wrapper(Inner)`), or a field typed by the struct's type
    /// parameter.
    pub(super) fn rust_field_value(&self, value: &Value, field: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let Value::Instance(types) = value else {
            return Value::Unknown;
        };
        if field.bytes().all(|byte| byte.is_ascii_digit()) {
            let values: Vec<Value> = types
                .iter()
                .map(|type_id| self.positional_field(type_id, field))
                .collect();
            return Value::merge(values);
        }
        self.generic_field_value(types, field, scope)
    }

    /// Field `position` of the tuple struct `type_id` (declared as `Name(position)`).
    fn positional_field(&self, type_id: &EntityId, position: &str) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let Some((file, Some(index))) = self.def_of(type_id) else {
            return Value::Unknown;
        };
        let resolver = self.resolver_for(file);
        let name = &file.summary.defs[index as usize].name;
        match resolver.field_binding(index, &format!("{name}({position})")) {
            Some(binding) if binding.kind == BindingKind::Type => {
                resolver.type_value(&binding.type_name, Some(index))
            }
            _ => Value::Unknown,
        }
    }

    /// A name bound by a struct pattern, `Path{field}` (`let Self { pool, .. } = self`,
    /// `Value::Object { map, .. } =>`), or by a tuple struct's pattern, `Path(position)`
    /// (`let Wrapper(inner) = w`): the type the struct, or the enum for a variant, declares
    /// for that field.
    pub(super) fn struct_pattern_value(&self, site: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let (path, field, positional) = if let Some(rest) = site.strip_suffix('}') {
            let Some((path, field)) = rest.rsplit_once('{') else {
                return Value::Unknown;
            };
            (path, field, false)
        } else if let Some(rest) = site.strip_suffix(')') {
            let Some((path, position)) = rest.rsplit_once('(') else {
                return Value::Unknown;
            };
            (path, position, true)
        } else {
            return Value::Unknown;
        };
        if let Value::Static(types) | Value::Instance(types) = self.path_value(path, scope) {
            let values: Vec<Value> = types
                .iter()
                .map(|type_id| {
                    if positional {
                        self.positional_field(type_id, field)
                    } else {
                        self.declared_field(type_id, field)
                    }
                })
                .collect();
            return match Value::merge(values) {
                // `let Self { element, .. } = self` where `element: ElemF`: the bound of the
                // `impl` around it.
                value @ (Value::Unknown | Value::External) if !positional => {
                    match self.generic_field_value(&types, field, scope) {
                        Value::Unknown => value,
                        generic => generic,
                    }
                }
                value => value,
            };
        }
        // A struct-like variant (`Value::Object { map }`): the enum declares its fields.
        let Some((enum_path, _)) = path.rsplit_once("::") else {
            return Value::Unknown;
        };
        match self.path_value(enum_path, scope) {
            Value::Static(types) if !positional => Value::merge(
                types
                    .iter()
                    .map(|type_id| self.declared_field(type_id, field))
                    .collect(),
            ),
            _ => Value::Unknown,
        }
    }

    /// The declared type of field `field` of the struct or enum `type_id`.
    fn declared_field(&self, type_id: &EntityId, field: &str) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let Some((file, Some(index))) = self.def_of(type_id) else {
            return Value::Unknown;
        };
        let resolver = self.resolver_for(file);
        match resolver.field_binding(index, field) {
            Some(binding) if binding.kind == BindingKind::Type => {
                resolver.type_value(&binding.type_name, Some(index))
            }
            _ => Value::Unknown,
        }
    }

    /// `self.iter` where the struct declares `iter: &'a mut I`: `I`'s bound in the `impl` of
    /// that struct around the call (`impl<I: PeekingNext> Iterator for PeekingTakeWhile<I>`),
    /// which says more than the struct's own bound, if it has one; `self.ranges` declared
    /// `Vec<I>`: a collection of that bound.
    fn generic_field_value(&self, types: &[EntityId], field: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let Some(own_type) = self.enclosing_type(scope) else {
            return Value::Unknown;
        };
        if !types.contains(&own_type) {
            return Value::Unknown;
        }
        let Some((file, Some(index))) = self.def_of(&own_type) else {
            return Value::Unknown;
        };
        let declared = {
            let resolver = self.resolver_for(file);
            match resolver.field_binding(index, field) {
                Some(binding) if binding.kind == BindingKind::Type => binding.type_name,
                _ => return Value::Unknown,
            }
        };
        // `ranges: Vec<I>`: a collection of the parameter's bound.
        let element =
            codegraph_index::rust::element_type(&declared).map(codegraph_index::value_type);
        let parameter = element.as_deref().unwrap_or(&declared);
        let value = match self.binding_of(parameter, scope) {
            Some((bound, BindingKind::Bound, _)) => match self.type_value(bound, scope) {
                Value::External => Value::Unknown,
                value => value,
            },
            _ => Value::Unknown,
        };
        match value {
            Value::Instance(types) if element.is_some() => Value::Elements(types),
            _ if element.is_some() => Value::Unknown,
            value => value,
        }
    }
}

/// Methods of the standard collections and iterators that hand back the same elements
/// (adaptors, borrows, copies).
const PRESERVING_METHODS: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "drain",
    "filter",
    "rev",
    "skip",
    "take",
    "cloned",
    "copied",
    "peekable",
    "by_ref",
    "skip_while",
    "take_while",
    "step_by",
    "fuse",
    "inspect",
    "chain",
    "collect",
    "values",
    "values_mut",
    "into_values",
    "clone",
    "to_vec",
    "to_owned",
    "as_ref",
    "as_mut",
    "as_slice",
    "as_mut_slice",
    "borrow",
    "borrow_mut",
    "unwrap",
    "expect",
    "unwrap_or_default",
    "lock",
    "read",
    "write",
    "deref",
    "deref_mut",
];

/// Methods that hand back one element (maybe in an `Option`, seen through).
const ELEMENT_METHODS: &[&str] = &[
    "first",
    "last",
    "get",
    "get_mut",
    "pop",
    "pop_front",
    "pop_back",
    "front",
    "back",
    "front_mut",
    "back_mut",
    "first_mut",
    "last_mut",
    "next",
    "next_back",
    "nth",
    "nth_back",
    "find",
    "max",
    "min",
    "max_by_key",
    "min_by_key",
    "max_by",
    "min_by",
    "remove",
    "swap_remove",
    "peek",
    "peek_mut",
    "get_unchecked",
    "get_unchecked_mut",
    "reduce",
];

/// Other methods of the standard collections and iterators (what they return is not an
/// element: a count, a flag, a new iterator of other items).
const OTHER_COLLECTION_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "push",
    "push_back",
    "push_front",
    "insert",
    "extend",
    "clear",
    "contains",
    "contains_key",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "sort_unstable_by_key",
    "dedup",
    "retain",
    "truncate",
    "reserve",
    "capacity",
    "split_off",
    "append",
    "resize",
    "map",
    "filter_map",
    "flat_map",
    "flatten",
    "enumerate",
    "zip",
    "count",
    "sum",
    "product",
    "any",
    "all",
    "position",
    "fold",
    "for_each",
    "partition",
    "unzip",
    "keys",
    "entry",
    "windows",
    "chunks",
    "join",
    "concat",
    "binary_search",
    "starts_with",
    "ends_with",
    "split_at",
    "swap",
    "fill",
    "into_keys",
    "try_fold",
    "scan",
    "map_while",
    "find_map",
    "cycle",
    "eq",
    "ne",
    "cmp",
    "partial_cmp",
    "lt",
    "le",
    "gt",
    "ge",
    "size_hint",
    "with_capacity",
    "is_sorted",
];

/// A method of the standard collections and iterators, never a workspace method when called
/// on one.
/// Rust's primitive types: a path receiver naming one (`u64::as_cast`, `usize::from`) is no
/// module or crate.
pub(crate) fn is_primitive(name: &str) -> bool {
    matches!(
        name,
        "u8" | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "f32"
            | "f64"
            | "bool"
            | "char"
            | "str"
    )
}

impl<'a> Resolver<'a> {
    /// The primitive type a receiver names (`u64` in `u64::as_cast`) or holds (a parameter,
    /// field or local declared `x: u64`).
    pub(super) fn primitive_receiver<'r>(
        &self,
        receiver: &'r str,
        scope: Option<u32>,
        path: bool,
    ) -> Option<&'r str>
    where
        'a: 'r,
    {
        if path {
            return is_primitive(receiver).then_some(receiver);
        }
        match self.binding_of(receiver, scope) {
            Some((type_text, BindingKind::Type, _)) => {
                let type_text = type_text.trim_start_matches('&').trim();
                is_primitive(type_text).then_some(type_text)
            }
            _ => None,
        }
    }

    /// `u64::as_cast(x)`, `usize::from(x)`: a primitive's associated function or method is a
    /// method of a workspace `impl Trait for u64`, or else the method of a workspace trait
    /// in scope here that declares it (a macro may write the impls: serde_json's
    /// `as_cast_impl!(u64, as_u64)`), or else the standard library's, never a guess.
    pub(super) fn primitive_call(&self, primitive: &str, name: &str, scope: Option<u32>) -> Found {
        let candidates = self.named(name, KindFilter::Callable);
        let owned: Vec<EntityId> = candidates
            .iter()
            .filter(|entry| entry.owner.as_deref() == Some(primitive))
            .map(|entry| entry.id)
            .collect();
        if !owned.is_empty() {
            return self.decide_members(owned);
        }
        let mut declared: Vec<EntityId> = Vec::new();
        for entry in candidates {
            let Some((file, Some(index))) = self.def_of(&entry.id) else {
                continue;
            };
            let Some(parent) = file.summary.defs[index as usize].parent else {
                continue;
            };
            let trait_def = &file.summary.defs[parent as usize];
            if trait_def.kind != codegraph_model::EntityKind::Trait {
                continue;
            }
            let trait_id = &file.ids[parent as usize];
            if self
                .resolve_type_path(&trait_def.name, scope)
                .contains(trait_id)
            {
                declared.push(entry.id);
            }
        }
        self.decide_members(declared)
    }
}

pub(super) fn is_collection_method(name: &str) -> bool {
    PRESERVING_METHODS.contains(&name)
        || ELEMENT_METHODS.contains(&name)
        || OTHER_COLLECTION_METHODS.contains(&name)
}

impl<'a> Resolver<'a> {
    /// A collection whose element type is written `element`.
    pub(super) fn elements_of_type(&self, element: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        match self.type_value(element, scope) {
            Value::Instance(types) => Value::Elements(types),
            _ => Value::Elements(Vec::new()),
        }
    }

    /// `.method()` on a collection or iterator of `types`.
    pub(super) fn element_method_value(&self, types: &[EntityId], method: &str) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        if PRESERVING_METHODS.contains(&method) {
            Value::Elements(types.to_vec())
        } else if ELEMENT_METHODS.contains(&method) && !types.is_empty() {
            Value::Instance(types.to_vec())
        } else if OTHER_COLLECTION_METHODS.contains(&method) {
            Value::External
        } else {
            Value::Unknown
        }
    }
}

/// Methods that pass elements to their closure: (method, the closure's argument position,
/// the parameters that are elements).
const ELEMENT_CLOSURES: &[(&str, usize, &[usize])] = &[
    ("filter", 0, &[0]),
    ("map", 0, &[0]),
    ("for_each", 0, &[0]),
    ("any", 0, &[0]),
    ("all", 0, &[0]),
    ("find", 0, &[0]),
    ("position", 0, &[0]),
    ("rposition", 0, &[0]),
    ("filter_map", 0, &[0]),
    ("flat_map", 0, &[0]),
    ("find_map", 0, &[0]),
    ("map_while", 0, &[0]),
    ("take_while", 0, &[0]),
    ("skip_while", 0, &[0]),
    ("inspect", 0, &[0]),
    ("max_by_key", 0, &[0]),
    ("min_by_key", 0, &[0]),
    ("partition", 0, &[0]),
    ("retain", 0, &[0]),
    ("retain_mut", 0, &[0]),
    ("sort_by_key", 0, &[0]),
    ("sort_unstable_by_key", 0, &[0]),
    ("sort_by_cached_key", 0, &[0]),
    ("sort_by", 0, &[0, 1]),
    ("sort_unstable_by", 0, &[0, 1]),
    ("max_by", 0, &[0, 1]),
    ("min_by", 0, &[0, 1]),
    ("dedup_by", 0, &[0, 1]),
    ("dedup_by_key", 0, &[0]),
    ("reduce", 0, &[0, 1]),
    ("fold", 1, &[1]),
    ("try_fold", 1, &[1]),
    ("try_for_each", 0, &[0]),
    ("scan", 1, &[1]),
    ("is_some_and", 0, &[0]),
    ("is_ok_and", 0, &[0]),
    ("is_none_or", 0, &[0]),
    ("and_then", 0, &[0]),
    ("map_or", 1, &[0]),
    ("map_or_else", 1, &[0]),
    ("take_if", 0, &[0]),
];

/// Of those, the ones an `Option` or a `Result` (seen through: an instance) also has.
const OPTION_CLOSURES: &[&str] = &[
    "map",
    "filter",
    "inspect",
    "is_some_and",
    "is_ok_and",
    "is_none_or",
    "and_then",
    "map_or",
    "map_or_else",
    "take_if",
];

impl<'a> Resolver<'a> {
    /// A closure's untyped parameter (`callee\u{1}argument\u{1}parameter`, see
    /// `index::callback_site`): an element when the callee is a method of an iterator or
    /// collection that passes elements there (`items.iter().filter(|item| ..)`), or the value
    /// an `Option`/`Result` holds (`found.map(|value| ..)`), unless a workspace method of that
    /// name says otherwise.
    pub(super) fn closure_parameter_value(
        &self,
        callee: &str,
        argument: usize,
        parameter: usize,
        scope: Option<u32>,
        depth: u32,
    ) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let Some((receiver, method)) = callee.rsplit_once('.') else {
            return Value::Unknown;
        };
        let method = method.split("::<").next().unwrap_or(method);
        let Some((_, closure_argument, parameters)) =
            ELEMENT_CLOSURES.iter().find(|(name, _, _)| *name == method)
        else {
            return Value::Unknown;
        };
        if *closure_argument != argument || !parameters.contains(&parameter) {
            return Value::Unknown;
        }
        match self.value_of(receiver, scope, depth + 1) {
            Value::Elements(types) if !types.is_empty() => Value::Instance(types),
            Value::Instance(types)
                if OPTION_CLOSURES.contains(&method)
                    && types.iter().all(|type_id| {
                        self.member_lookup(type_id, method, KindFilter::Callable, true)
                            .is_empty()
                    }) =>
            {
                Value::Instance(types)
            }
            _ => Value::Unknown,
        }
    }
}

impl<'a> Resolver<'a> {
    /// A path that names no type or module, as a value (`ArgAction::SetTrue`): a unit variant
    /// of the enum before its last segment, a value of that enum. A struct's `Foo::NAME` is an
    /// associated constant, of whatever type it declares: not known here.
    pub(super) fn variant_path_value(&self, path: &str, scope: Option<u32>) -> Value {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Value::Unknown;
        };
        let Some((type_path, _)) = path.rsplit_once("::") else {
            return Value::Unknown;
        };
        match self.path_value(type_path, scope) {
            Value::Static(types)
                if types.iter().all(|type_id| {
                    self.kind_of(type_id) == Some(codegraph_model::EntityKind::Enum)
                }) =>
            {
                Value::Instance(types)
            }
            _ => Value::Unknown,
        }
    }
}

impl<'a> Resolver<'a> {
    /// Methods of one type from impls of one generic trait with different arguments (`impl
    /// From<f64> for Value`, `impl From<String> for Value`): the call's argument types choose
    /// among them, which are not known here, so none is proven.
    pub(super) fn chosen_by_argument(&self, members: &[EntityId]) -> bool {
        if members.len() < 2 {
            return false;
        }
        let mut traits: Vec<&str> = Vec::new();
        for member in members {
            let Some((file, Some(index))) = self.def_of(member) else {
                return false;
            };
            let Some(written) = file.summary.defs[index as usize].implements.as_deref() else {
                return false;
            };
            traits.push(written);
        }
        let head = |written: &str| -> String {
            written
                .split('<')
                .next()
                .unwrap_or(written)
                .rsplit("::")
                .next()
                .unwrap_or(written)
                .trim()
                .to_string()
        };
        let first = head(traits[0]);
        traits
            .iter()
            .all(|written| written.contains('<') && head(written) == first)
            && traits.iter().any(|written| *written != traits[0])
    }
}
