//! Go: import paths name directories; a package is a directory; `_test.go` files and files of
//! another `GOOS`/`GOARCH` are build variants.

use codegraph_index::{FileSummary, Import};
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::aliases::ModuleAliases;
use crate::modules::{component_suffixes, directory};
use crate::{Entity, EntityId, FileNode, Graph};
use codegraph_lang::Family;
use codegraph_lang::go_build::{self, Platform};
use codegraph_model::{EntityKind, RelationKind};
use rustc_hash::FxHashSet;

pub(super) struct Go;

impl Semantics for Go {
    fn import_form(&self) -> ImportForm {
        ImportForm::Modules
    }

    fn module_keys(&self, path: &str, summary: &FileSummary) -> Vec<Name> {
        let mut keys: Vec<Name> = component_suffixes(directory(path)).map(Name::new).collect();
        // The package at the repository's root is imported by its module path, whose last
        // element is (by convention) the package's name: `github.com/sirupsen/logrus`.
        if directory(path).is_empty()
            && let Some(package) = &summary.package
            && !package.ends_with("_test")
        {
            keys.push(*package);
        }
        keys
    }

    fn import_keys(
        &self,
        _aliases: &ModuleAliases,
        _path: &str,
        _summary: &FileSummary,
        import: &Import,
    ) -> Vec<Name> {
        let path = import.path.as_str();
        let mut keys: Vec<Name> = component_suffixes(path).map(Name::new).collect();
        // The package at a repository's root answers to its package name, which the import
        // path's last element often decorates (`github.com/dustin/go-humanize` is `humanize`).
        let assumed = assumed_name(path);
        if path.rsplit('/').next() != Some(assumed) && !assumed.is_empty() {
            keys.push(Name::new(assumed));
        }
        keys
    }

    fn import_binding(&self, path: &str) -> Option<Name> {
        Some(assumed_name(path))
            .filter(|name| !name.is_empty())
            .map(Name::new)
    }

    fn package_key(&self, path: &str, _summary: &FileSummary) -> Option<Name> {
        Some(Name::new(directory(path)))
    }

    /// `_test.go` definitions are visible to test files only; of the rest, the caller's build
    /// wins: the chosen platform's (`GOOS`, `GOARCH`, build constraints) for a file in it, and
    /// for a variant file (`fd_windows.go`, `net_fake.go` with `//go:build js || wasip1`) the
    /// platform it is built for, so its calls reach its own platform's twins.
    fn within_build(
        &self,
        graph: &Graph,
        file: &FileNode,
        candidates: Vec<EntityId>,
    ) -> Vec<EntityId> {
        let caller_is_test = file.path.ends_with("_test.go");
        let visible: Vec<EntityId> = candidates
            .into_iter()
            .filter(|id| {
                caller_is_test
                    || !graph
                        .entities
                        .get(id)
                        .is_some_and(|loc| loc.file.ends_with("_test.go"))
            })
            .collect();
        if self.file_in_build(file) {
            return super::preferred(visible, |id| super::defined_in_build(self, graph, id));
        }
        let Some(platform) =
            Platform::of_file(&file.path, file.summary.build_constraint.as_deref())
        else {
            return visible;
        };
        super::preferred(visible, |id| {
            graph
                .entities
                .get(id)
                .and_then(|loc| graph.files.get(&loc.file))
                .is_some_and(|file| {
                    go_build::in_build(
                        &file.path,
                        file.summary.build_constraint.as_deref(),
                        &platform,
                    )
                })
        })
    }

    /// A slice's or an array's element type, a map's value type: `[]*Item`, `[4]Item`,
    /// `map[string]Item`.
    fn element_type<'t>(&self, type_text: &'t str) -> Option<&'t str> {
        let text = type_text.trim();
        let rest = if let Some(key) = text.strip_prefix("map[") {
            let mut depth = 1usize;
            let close = key.char_indices().find_map(|(index, character)| {
                match character {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(index)
            })?;
            &key[close + 1..]
        } else {
            let (_, rest) = text.strip_prefix('[')?.split_once(']')?;
            rest
        };
        let element = rest.trim();
        (!element.is_empty()).then_some(element)
    }

    fn embedded_fields(&self) -> bool {
        true
    }

    fn interfaces_are_implicit(&self) -> bool {
        true
    }

    fn file_in_build(&self, file: &FileNode) -> bool {
        crate::go_file_in_build(file)
    }

    fn same_build(&self, callee: &FileNode, caller: &FileNode) -> bool {
        // The common case, both in the chosen build, without finding a variant's platform.
        caller.language != codegraph_lang::Language::Go
            || (self.file_in_build(caller) && self.file_in_build(callee))
            || Platform::of_file(&callee.path, callee.summary.build_constraint.as_deref())
                .is_none_or(|platform| {
                    go_build::in_build(
                        &caller.path,
                        caller.summary.build_constraint.as_deref(),
                        &platform,
                    )
                })
    }

    fn implicit_implementers(&self, graph: &Graph, interface: &str) -> Vec<EntityId> {
        implementers(graph, interface)
    }

    fn implicit_interfaces(&self, graph: &Graph, id: &str) -> Vec<EntityId> {
        interfaces_of(graph, id)
    }

    fn methods_named(&self, graph: &Graph, id: &str, name: &str) -> Vec<Entity> {
        methods_named(graph, id, name)
    }

    /// Through the interfaces whose method sets the type's methods cover (interfaces are
    /// satisfied implicitly): gopls counts a call through an interface as a call of each
    /// implementation.
    fn overridden_members(
        &self,
        graph: &Graph,
        method: &Entity,
        owner: EntityId,
        _implemented: &[Entity],
        found: &mut Vec<EntityId>,
    ) {
        for interface in interfaces_of(graph, &owner) {
            found.extend(
                methods_named(graph, &interface, &method.name)
                    .into_iter()
                    .map(|member| member.id),
            );
        }
    }
}

/// A Go type and the types it embeds, transitively (an interface: the interfaces it embeds,
/// recorded as `implements`; a struct's `implements` edges come from `var _ I = (*T)(nil)`
/// and are not embedding).
fn embedding_chain(graph: &Graph, id: &str) -> Vec<EntityId> {
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut order = Vec::new();
    let mut frontier = vec![EntityId::from(id)];
    while let Some(current) = frontier.pop() {
        if !seen.insert(current) {
            continue;
        }
        let interface = graph.kind_of(&current) == Some(EntityKind::Interface);
        for edge in graph.outgoing(&current) {
            if edge.kind == RelationKind::Extends
                || (interface && edge.kind == RelationKind::Implements)
            {
                frontier.push(edge.to);
            }
        }
        order.push(current);
    }
    order
}

/// The names in a Go type's method set: its own methods and those promoted from embedded
/// types (for an interface, those of the interfaces it embeds). Pointer and value receivers
/// both count, as in what gopls lists as implementations.
fn method_set(graph: &Graph, id: &str) -> FxHashSet<Name> {
    embedding_chain(graph, id)
        .iter()
        .flat_map(|current| crate::query::members(graph, current))
        .filter(|member| member.kind == EntityKind::Method)
        .map(|member| member.name)
        .collect()
}

/// The methods named `name` that a Go type has, its own or promoted from an embedded type.
fn methods_named(graph: &Graph, id: &str, name: &str) -> Vec<Entity> {
    embedding_chain(graph, id)
        .iter()
        .flat_map(|current| crate::query::members(graph, current))
        .filter(|member| member.kind == EntityKind::Method && member.name == name)
        .collect()
}

/// The Go types (not interfaces) whose method sets cover interface `id`'s, sorted. The empty
/// interface is satisfied by every type; it lists none rather than the whole workspace.
fn implementers(graph: &Graph, id: &str) -> Vec<EntityId> {
    let required = method_set(graph, id);
    let Some(rarest) = required.iter().min_by_key(|name| graph.named(name).len()) else {
        return Vec::new();
    };
    let mut candidates: FxHashSet<EntityId> = FxHashSet::default();
    for entry in graph.named(rarest) {
        if entry.language.family() != Family::Go || entry.kind != EntityKind::Method {
            continue;
        }
        let Some(owner) = graph
            .entity(&entry.id)
            .and_then(|method| crate::query::owner_type(graph, &method))
        else {
            continue;
        };
        if graph.kind_of(&owner) == Some(EntityKind::Interface) {
            continue;
        }
        // Types that embed the owner get its methods too.
        for embedding in crate::query::subtypes(graph, &owner) {
            if graph.kind_of(&embedding) != Some(EntityKind::Interface) {
                candidates.insert(embedding);
            }
        }
        candidates.insert(owner);
    }
    let mut found: Vec<EntityId> = candidates
        .into_iter()
        .filter(|candidate| required.is_subset(&method_set(graph, candidate)))
        .collect();
    found.sort();
    found
}

/// The Go interfaces whose method sets a type's covers (the type itself left out), sorted.
fn interfaces_of(graph: &Graph, id: &str) -> Vec<EntityId> {
    let methods = method_set(graph, id);
    let mut interfaces: FxHashSet<EntityId> = FxHashSet::default();
    for name in &methods {
        for entry in graph.named(name) {
            let (Some(parent), Family::Go) = (entry.parent, entry.language.family()) else {
                continue;
            };
            let Some(file) = graph.file(&entry.file) else {
                continue;
            };
            if file.summary.defs[parent as usize].kind == EntityKind::Interface {
                interfaces.insert(file.ids[parent as usize]);
            }
        }
    }
    let mut found: Vec<EntityId> = interfaces
        .into_iter()
        .filter(|interface| &**interface != id)
        .filter(|interface| method_set(graph, interface).is_subset(&methods))
        .collect();
    found.sort();
    found
}

/// The package name an import path is assumed to bind when the import has no alias, as
/// goimports assumes it: the last element, or the one before a major version (`.../v2`), without
/// a `go-` prefix and cut at its first character that cannot be in an identifier (`go-humanize`
/// is `humanize`, `yaml.v3` is `yaml`).
fn assumed_name(path: &str) -> &str {
    let mut elements = path.rsplit('/');
    let mut base = elements.next().unwrap_or(path);
    let version = base.strip_prefix('v').is_some_and(|digits| {
        !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit())
    });
    if version && let Some(parent) = elements.next() {
        base = parent;
    }
    let base = base.strip_prefix("go-").unwrap_or(base);
    let end = base
        .find(|character: char| !(character.is_alphanumeric() || character == '_'))
        .unwrap_or(base.len());
    &base[..end]
}
