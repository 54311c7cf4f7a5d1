//! The summary built from a file's captures ([`build`]), in named steps: definitions placed
//! in their parents (and the `impl` blocks that own them), then the references, bindings,
//! imports and bases, each given its innermost enclosing definition as its scope.

use codegraph_lang::Language;
use codegraph_model::{EntityKind, Name, Span};

use crate::captures::{RawBinding, RawCaptures, RawDef, RawImpl, RawImport, RawInherit, RawRef};
use crate::{Binding, BindingKind, Def, FileSummary, Import, Inherit, Ref, rust};

/// Fills `summary` from the captures of its file. `disabled` holds the byte ranges the default
/// build leaves out (Rust `#[cfg]`); `self_receivers` the language's `self` words, whose fields
/// (`self.x = ...`) are bound for the whole type.
pub(crate) fn build(
    summary: &mut FileSummary,
    raw: RawCaptures,
    self_receivers: &[&str],
    disabled: &[std::ops::Range<u32>],
) {
    let RawCaptures {
        mut defs,
        mut impls,
        refs,
        bindings,
        imports,
        inherits,
        package,
        ..
    } = raw;
    sort_definitions(&mut defs, &mut impls);
    add_definitions(summary, defs, &impls, disabled);
    summary.package = package.into_iter().next().map(|(package, _)| package);
    add_references(summary, refs);
    add_bindings(summary, bindings, &impls, self_receivers);
    if summary.language == Language::Rust {
        rust::drop_conflicting_bindings(&mut summary.bindings);
    }
    add_imports(summary, imports);
    add_inherits(summary, inherits);
}

/// Definitions sorted outer-first; the same node matched by two patterns counts once (the
/// first match's). `impl` blocks outer-first too.
fn sort_definitions(defs: &mut Vec<RawDef>, impls: &mut [RawImpl]) {
    defs.sort_by(|left, right| {
        (left.span.start_byte, std::cmp::Reverse(left.span.end_byte)).cmp(&(
            right.span.start_byte,
            std::cmp::Reverse(right.span.end_byte),
        ))
    });
    defs.dedup_by(|later, earlier| later.span == earlier.span);
    impls.sort_by_key(|scope| {
        (
            scope.span.start_byte,
            std::cmp::Reverse(scope.span.end_byte),
        )
    });
}

/// Each definition under the innermost one that contains it (`defs` are sorted outer-first).
fn add_definitions(
    summary: &mut FileSummary,
    defs: Vec<RawDef>,
    impls: &[RawImpl],
    disabled: &[std::ops::Range<u32>],
) {
    let mut stack: Vec<u32> = Vec::new();
    for raw_def in defs {
        while let Some(top) = stack.last() {
            if summary.defs[*top as usize].span.contains(&raw_def.span) {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().copied();
        let def = definition(&summary.defs, raw_def, parent, impls, disabled);
        stack.push(summary.defs.len() as u32);
        summary.defs.push(def);
    }
}

/// The definition a captured one makes under `parent`: a function directly in a type, or owned
/// by one, is a method; an `impl` block's type and trait hold at the top level only.
fn definition(
    defs: &[Def],
    raw_def: RawDef,
    parent: Option<u32>,
    impls: &[RawImpl],
    disabled: &[std::ops::Range<u32>],
) -> Def {
    // `void Status::Foo() {}` inside `namespace leveldb { }`: a member of the class its
    // qualifier names, as at the top level.
    let owner_written_in_namespace = raw_def.owner.is_some()
        && parent.is_some_and(|index| defs[index as usize].kind == EntityKind::Module);
    let (owner, implements) = match raw_def.owner {
        Some(owner) => (Some(owner), None),
        None => enclosing_impl(defs, impls, parent, raw_def.span),
    };
    let mut kind = raw_def.kind;
    let parent_is_type = parent.is_some_and(|index| defs[index as usize].kind.is_type());
    // A function of a plain object literal stays a function (a guess by method name never
    // lands on it), even in a class body; a prototype's is a method, like
    // `Foo.prototype.m = function`.
    let method = if raw_def.object_member {
        raw_def.prototype_member
    } else {
        parent_is_type || ((parent.is_none() || owner_written_in_namespace) && owner.is_some())
    };
    if kind == EntityKind::Function && method {
        kind = EntityKind::Method;
    }
    let mut def = Def {
        kind,
        name: raw_def.name,
        parent,
        // An object literal's function keeps its object wherever it is nested; other
        // owners (an `impl` block's type) only hold at the top level.
        owner: if parent.is_none() || raw_def.object_member || owner_written_in_namespace {
            owner
        } else {
            None
        },
        span: raw_def.span,
        name_span: raw_def.name_span,
        text: Box::default(),
        doc_at: u32::MAX,
        returns: raw_def.returns,
        implements: if parent.is_none() { implements } else { None },
        disabled: disabled.iter().any(|range| {
            range.start <= raw_def.span.start_byte && raw_def.span.end_byte <= range.end
        }),
        arrow: raw_def.arrow,
    };
    def.with_text(raw_def.signature, raw_def.doc);
    def
}

/// The type and trait of the `impl`-like block around `span` that is itself inside no nearer
/// definition than `parent`.
fn enclosing_impl(
    defs: &[Def],
    impls: &[RawImpl],
    parent: Option<u32>,
    span: Span,
) -> (Option<Name>, Option<Name>) {
    let parent_start = parent.map_or(0, |index| defs[index as usize].span.start_byte);
    let block = impls
        .iter()
        .rev()
        .find(|scope| scope.span.contains(&span) && scope.span.start_byte >= parent_start);
    (
        block.map(|scope| scope.type_name),
        block.and_then(|scope| scope.trait_name),
    )
}

/// References in document order, each once per kind, in their innermost definition; a
/// definition's own name is none.
fn add_references(summary: &mut FileSummary, mut refs: Vec<RawRef>) {
    refs.sort_by_key(|reference| reference.span.start_byte);
    refs.dedup_by(|later, earlier| later.span == earlier.span && later.kind == earlier.kind);
    for RawRef {
        kind,
        name,
        receiver,
        span,
        path,
    } in refs
    {
        let mut scope = innermost(&summary.defs, span.start_byte, span.end_byte);
        // A definition's own name is not a reference to itself.
        if scope.is_some_and(|index| summary.defs[index as usize].name_span == span) {
            continue;
        }
        // A Python decorator (before the decorated function's name, inside its extent) is
        // called by the scope around the definition, where it runs.
        if summary.language == Language::Python
            && let Some(index) = scope
            && span.start_byte < summary.defs[index as usize].name_span.start_byte
        {
            scope = summary.defs[index as usize].parent;
        }
        summary
            .refs
            .push(Ref::new(kind, name, receiver, span, scope, path));
    }
}

/// Bindings in capture order, each once.
fn add_bindings(
    summary: &mut FileSummary,
    bindings: Vec<RawBinding>,
    impls: &[RawImpl],
    self_receivers: &[&str],
) {
    // Bindings already kept, to drop repeats in O(1) (a file can hold tens of thousands).
    let mut seen: rustc_hash::FxHashSet<Binding> = summary.bindings.iter().cloned().collect();
    for raw_binding in bindings {
        add_binding(summary, &mut seen, raw_binding, impls, self_receivers);
    }
}

fn add_binding(
    summary: &mut FileSummary,
    seen: &mut rustc_hash::FxHashSet<Binding>,
    raw_binding: RawBinding,
    impls: &[RawImpl],
    self_receivers: &[&str],
) {
    let RawBinding {
        name,
        type_name,
        kind,
        span,
        region,
        declared_in,
    } = raw_binding;
    let region = region.map(|region| (region.start_byte, region.end_byte));
    let scope = binding_scope(summary, span);
    // A bound on an `impl` block's type parameter (`impl<I: PeekingNext> .. where I: ..`)
    // holds in that block's methods, not in the rest of the file.
    if kind == BindingKind::Bound
        && let Some(methods) = rust::impl_methods(impls, &summary.defs, scope, span)
    {
        for method in methods {
            let binding = Binding::new(name, type_name, Some(method), kind, region);
            keep_new(summary, seen, binding);
        }
        return;
    }
    // A type parameter's bound holds in the definition that declares the parameter; one
    // declared where no definition is (an overload signature, a function type, a type
    // alias) binds nothing: it would otherwise hold in the enclosing scope, where another
    // declaration's parameters of the same names may bound it the other way round.
    if let Some(declaration) = declared_in
        && !declares(&summary.defs, scope, declaration)
    {
        return;
    }
    // `self.field = Foo()` in a method binds the field for the whole type.
    let held_in = match name.split_once('.') {
        Some((first, _)) if self_receivers.contains(&first) => enclosing_type(&summary.defs, scope),
        _ => scope,
    };
    let (type_name, kind) = field_type(summary, type_name, kind, scope, held_in);
    keep_new(
        summary,
        seen,
        Binding::new(name, type_name, held_in, kind, region),
    );
}

/// The innermost definition a binding at `span` is in; a Python definition's own name (a
/// decorated function's value) is bound around it.
fn binding_scope(summary: &FileSummary, span: Span) -> Option<u32> {
    let scope = innermost(&summary.defs, span.start_byte, span.end_byte);
    if summary.language == Language::Python
        && let Some(index) = scope
        && summary.defs[index as usize].name_span == span
    {
        return summary.defs[index as usize].parent;
    }
    scope
}

/// `self.x = x` in a constructor (a value bound in `scope` held for the type, `held_in`): the
/// parameter's declared type is the field's.
fn field_type(
    summary: &FileSummary,
    type_name: Name,
    kind: BindingKind,
    scope: Option<u32>,
    held_in: Option<u32>,
) -> (Name, BindingKind) {
    if kind == BindingKind::Value
        && held_in != scope
        && let Some(parameter) = summary.bindings.iter().find(|binding| {
            binding.name == type_name
                && binding.scope() == scope
                && binding.kind == BindingKind::Type
        })
    {
        return (parameter.type_name, BindingKind::Type);
    }
    (type_name, kind)
}

fn keep_new(
    summary: &mut FileSummary,
    seen: &mut rustc_hash::FxHashSet<Binding>,
    binding: Binding,
) {
    if seen.insert(binding.clone()) {
        summary.bindings.push(binding);
    }
}

/// Imports in their innermost definition, each (path, name, alias) once.
fn add_imports(summary: &mut FileSummary, imports: Vec<RawImport>) {
    for RawImport {
        path,
        name,
        alias,
        wildcard,
        span,
    } in imports
    {
        let scope = innermost(&summary.defs, span.start_byte, span.end_byte);
        let import = Import {
            path,
            name,
            alias,
            wildcard,
            span,
            scope,
        };
        if !summary.imports.iter().any(|existing| {
            existing.path == import.path
                && existing.name == import.name
                && existing.alias == import.alias
        }) {
            summary.imports.push(import);
        }
    }
}

/// Bases of the innermost type around them (or of the child the syntax names), each once; a
/// base outside any type and without a named child is dropped.
fn add_inherits(summary: &mut FileSummary, inherits: Vec<RawInherit>) {
    for RawInherit {
        base,
        kind,
        child: child_name,
        span,
    } in inherits
    {
        let child = if child_name.is_some() {
            None
        } else {
            let scope = innermost(&summary.defs, span.start_byte, span.end_byte);
            match enclosing_type(&summary.defs, scope) {
                Some(index) => Some(index),
                None => continue,
            }
        };
        let inherit = Inherit {
            child,
            child_name,
            base,
            kind,
            span,
        };
        if !summary.inherits.iter().any(|existing| {
            existing.child == inherit.child
                && existing.child_name == inherit.child_name
                && existing.base == inherit.base
        }) {
            summary.inherits.push(inherit);
        }
    }
}

/// `scope` if it is a type, else the innermost type around it; `None` when no type holds it.
fn enclosing_type(defs: &[Def], mut scope: Option<u32>) -> Option<u32> {
    while let Some(index) = scope {
        if defs[index as usize].kind.is_type() {
            break;
        }
        scope = defs[index as usize].parent;
    }
    scope
}

/// Whether the definition `scope` is the declaration at `declaration` (its name is written in
/// it), rather than a definition around it.
fn declares(defs: &[Def], scope: Option<u32>, declaration: Span) -> bool {
    scope.is_some_and(|index| {
        let name = defs[index as usize].name_span;
        declaration.start_byte <= name.start_byte && name.end_byte <= declaration.end_byte
    })
}

/// The innermost definition containing the byte range, given definitions sorted outer-first.
pub(crate) fn innermost(defs: &[Def], start: u32, end: u32) -> Option<u32> {
    let after = defs.partition_point(|def| def.span.start_byte <= start);
    let mut candidate = after.checked_sub(1).map(|index| index as u32);
    while let Some(index) = candidate {
        let def = &defs[index as usize];
        if def.span.start_byte <= start && end <= def.span.end_byte {
            return Some(index);
        }
        candidate = def.parent;
    }
    None
}
