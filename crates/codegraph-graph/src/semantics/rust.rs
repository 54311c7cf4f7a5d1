//! Rust: `crate::`, `super::`, `self::` paths over the module tree of `mod` files, crates named
//! by their directories, `#[cfg]` variants, and a type system whose receivers resolution types
//! from declarations (primitives, tuples, generic fields, closures; see `resolve/rust.rs`).

use codegraph_index::{FileSummary, Import};
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::aliases::ModuleAliases;
use crate::modules::{
    RustModule, crate_key, rust_file_key, rust_module_path, rust_mounts_key, rust_package,
};
use crate::{Entity, EntityId, FileNode, Graph};
use codegraph_model::{EntityKind, RelationKind};

pub(super) struct Rust;

impl Semantics for Rust {
    fn import_form(&self) -> ImportForm {
        ImportForm::Modules
    }

    fn module_keys(&self, path: &str, summary: &FileSummary) -> Vec<Name> {
        let RustModule {
            module,
            crate_name,
            crate_dir,
            tested_crate,
        } = rust_module_path(path);
        let mut keys = vec![crate_key(crate_dir, &module), rust_file_key(path)];
        if !summary.path_modules.is_empty() {
            keys.push(rust_mounts_key(rust_package(path)));
        }
        // An integration test is no module of the crate it tests.
        if tested_crate.is_none() && !crate_name.is_empty() {
            keys.push(Name::new(format!("{crate_name}::{module}")));
        }
        keys
    }

    fn import_keys(
        &self,
        _aliases: &ModuleAliases,
        path: &str,
        summary: &FileSummary,
        import: &Import,
    ) -> Vec<Name> {
        let here = rust_module_path(path);
        // `use itertools as it;` at a crate's root makes `crate::it::x` mean `itertools::x`.
        let rewritten = if here.module.is_empty() {
            rust_root_alias(summary, import.path.as_str())
        } else {
            None
        };
        let raw = rewritten.as_deref().unwrap_or(import.path.as_str());
        // `use crate::ast;` makes `ast::parse` mean `crate::ast::parse`.
        let rewritten = rust_use_head(summary, raw, import);
        let raw = rewritten.as_deref().unwrap_or(raw);
        let mut segments: Vec<&str> = raw
            .split("::")
            .filter(|segment| !segment.is_empty())
            .collect();
        match absolute_base(&here, &mut segments) {
            Some(mut prefix) => {
                prefix.extend(segments.iter().map(|segment| segment.to_string()));
                vec![crate_key(here.crate_dir, &prefix.join("::"))]
            }
            None => relative_keys(&here, raw, &segments),
        }
    }

    fn import_binding(&self, path: &str) -> Option<Name> {
        path.rsplit("::").next().map(Name::new)
    }

    fn package_of<'p>(&self, path: &'p str) -> &'p str {
        rust_package(path)
    }

    fn submodule_path(&self, import_path: &str, name: &str) -> Name {
        Name::new(format!("{import_path}::{name}"))
    }

    /// `#[cfg]` variants: the default build's item wins.
    fn within_build(
        &self,
        graph: &Graph,
        _file: &FileNode,
        candidates: Vec<EntityId>,
    ) -> Vec<EntityId> {
        let disabled = |id: &EntityId| {
            graph.entities.get(id).is_some_and(|loc| {
                loc.index.is_some_and(|index| {
                    graph
                        .files
                        .get(&loc.file)
                        .is_some_and(|file| file.summary.defs[index as usize].disabled)
                })
            })
        };
        super::preferred(candidates, |id| !disabled(id))
    }

    fn paths_name_items(&self) -> bool {
        true
    }

    fn members_chosen_by_argument(&self) -> bool {
        true
    }

    fn tests_see_their_library(&self) -> bool {
        true
    }

    fn primitive_methods(&self) -> bool {
        true
    }

    fn tuple_values(&self) -> bool {
        true
    }

    fn generic_values(&self) -> bool {
        true
    }

    fn element_type<'t>(&self, type_text: &'t str) -> Option<&'t str> {
        codegraph_index::rust::element_type(type_text)
    }

    fn closures_over_elements(&self) -> bool {
        true
    }

    fn dispatched_members(&self, graph: &Graph, method: &Entity) -> Vec<EntityId> {
        trait_implementations(graph, method)
    }
}

/// The module an absolute path starts from (`crate::`, `self::`, `super::`, or the crate's own
/// name), its head segments removed; `None` for a path relative to the current module or
/// another crate.
fn absolute_base(here: &RustModule<'_>, segments: &mut Vec<&str>) -> Option<Vec<String>> {
    let mut base: Vec<String> = if here.module.is_empty() {
        Vec::new()
    } else {
        here.module.split("::").map(str::to_string).collect()
    };
    match segments.first().copied() {
        Some("crate") => {
            segments.remove(0);
            Some(Vec::new())
        }
        Some("self") => {
            segments.remove(0);
            Some(base)
        }
        Some("super") => {
            while segments.first() == Some(&"super") {
                segments.remove(0);
                base.pop();
            }
            Some(base)
        }
        Some(first) if !here.crate_name.is_empty() && first == here.crate_name => {
            segments.remove(0);
            Some(Vec::new())
        }
        _ => None,
    }
}

/// The keys of a path relative to the current module (`use service::X` after `mod service;`),
/// or of another crate of the workspace.
fn relative_keys(here: &RustModule<'_>, raw: &str, segments: &[&str]) -> Vec<Name> {
    let mut relative: Vec<String> = if here.module.is_empty() {
        Vec::new()
    } else {
        here.module.split("::").map(str::to_string).collect()
    };
    relative.extend(segments.iter().map(|segment| segment.to_string()));
    let mut keys = vec![
        crate_key(here.crate_dir, &relative.join("::")),
        Name::new(raw),
    ];
    // `use other_crate::Type`: the root of another crate of the workspace, whose key is
    // `other_crate::` (its module path is empty).
    if let [first] = segments {
        keys.push(Name::new(format!("{first}::")));
    }
    // From an integration test, bench or example, a path that starts with a crate's name may
    // name the crate under test.
    if let Some(tested) = here.tested_crate
        && let Some(first) = segments.first()
        && !matches!(*first, "std" | "core" | "alloc")
        && !crate::resolve::rust::is_primitive(first)
    {
        keys.push(crate_key(tested, &segments[1..].join("::")));
    }
    keys
}

/// `crate::it::rest` (or `self::it::rest`) in a crate's root file where that file says `use
/// path as it;`: `path::rest`. Aliases of aliases are followed a few steps.
fn rust_root_alias(summary: &FileSummary, raw: &str) -> Option<String> {
    let mut current = raw.to_string();
    let mut changed = false;
    for _ in 0..4 {
        let Some(rest) = current
            .strip_prefix("crate::")
            .or_else(|| current.strip_prefix("self::"))
        else {
            break;
        };
        let (head, tail) = rest.split_once("::").unwrap_or((rest, ""));
        let Some(import) = summary.imports.iter().find(|import| {
            import.scope.is_none() && !import.wildcard && import.alias.as_deref() == Some(head)
        }) else {
            break;
        };
        let target = match &import.name {
            Some(name) if import.path.is_empty() => name.to_string(),
            Some(name) => format!("{}::{name}", import.path),
            None => import.path.to_string(),
        };
        current = if tail.is_empty() {
            target
        } else {
            format!("{target}::{tail}")
        };
        changed = true;
    }
    changed.then_some(current)
}

/// `head::rest` where a top-level `use` of the file binds `head` (`use crate::{ast, hir};` then
/// `ast::parse::Parser`): the path through that import (`crate::ast::parse::Parser`). Imports
/// of imports are followed a few steps; `import` itself (the one being resolved) never counts.
fn rust_use_head(summary: &FileSummary, raw: &str, import: &Import) -> Option<String> {
    let mut current = raw.to_string();
    let mut changed = false;
    for _ in 0..4 {
        let (head, tail) = match current.split_once("::") {
            Some((head, tail)) => (head, Some(tail)),
            None => (current.as_str(), None),
        };
        if matches!(head, "crate" | "self" | "super" | "") {
            break;
        }
        let Some(binding) = summary.imports.iter().find(|candidate| {
            candidate.scope.is_none()
                && !candidate.wildcard
                && !(candidate.path == import.path
                    && candidate.name == import.name
                    && candidate.alias == import.alias)
                && crate::modules::import_binding(summary, candidate).as_deref() == Some(head)
        }) else {
            break;
        };
        let target = match &binding.name {
            Some(name) if binding.path.is_empty() => name.to_string(),
            Some(name) => format!("{}::{name}", binding.path),
            None => binding.path.to_string(),
        };
        // `use spawn::spawn;` needs `spawn` to be a module already: that module, not the
        // function the import binds, is what `spawn::spawn_named` starts from.
        if target == head || target.split("::").next() == Some(head) {
            break;
        }
        current = match tail {
            Some(tail) => format!("{target}::{tail}"),
            None => target,
        };
        changed = true;
    }
    changed.then_some(current)
}

/// The methods that implement the Rust trait method `entity` in `impl Trait for Type` blocks of
/// the workspace: rust-analyzer counts a call of one of them as a reference to the trait's
/// method (its `FindUsages` maps an impl's item to the trait's), so the trait method's callers
/// include theirs (not the other way round: an implementation's callers are its own). A
/// method implements it when its type has the trait among its resolved bases and the method
/// sits in an `impl` block that names a trait of that name (`impl Automaton for DFA`, `impl
/// crate::dfa::Automaton for DFA`); an inherent method of the same name does not.
fn trait_implementations(graph: &Graph, entity: &Entity) -> Vec<EntityId> {
    if entity.kind != EntityKind::Method {
        return Vec::new();
    }
    let Some(trait_id) = entity
        .parent
        .filter(|parent| graph.kind_of(parent) == Some(EntityKind::Trait))
    else {
        return Vec::new();
    };
    let Some(trait_name) = graph.entity(&trait_id).map(|found| found.name) else {
        return Vec::new();
    };
    let names_the_trait = |member: &str| {
        let Some(location) = graph.location(member) else {
            return false;
        };
        let Some(index) = location.index else {
            return false;
        };
        graph
            .file(&location.file)
            .and_then(|file| file.summary.defs[index as usize].implements)
            .is_some_and(|written| {
                let head = written.split('<').next().unwrap_or(&written);
                head.rsplit("::").next().unwrap_or(head).trim() == trait_name
            })
    };
    let mut found: Vec<EntityId> = Vec::new();
    for edge in graph.incoming(&trait_id) {
        if edge.kind != RelationKind::Implements {
            continue;
        }
        found.extend(
            crate::query::members(graph, &edge.from)
                .into_iter()
                .filter(|member| member.name == entity.name && member.kind == EntityKind::Method)
                .filter(|member| names_the_trait(&member.id))
                .map(|member| member.id),
        );
    }
    found.sort();
    found.dedup();
    found
}
