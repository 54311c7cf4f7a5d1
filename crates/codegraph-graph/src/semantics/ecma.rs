//! JavaScript, TypeScript and TSX: relative file specifiers with extension and `index` lookup;
//! bare specifiers are packages, found through the workspace's module aliases when one names
//! them. TypeScript adds declared types and unions; JavaScript objects gain members at run time.

use codegraph_index::{FileSummary, Import};
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::aliases::ModuleAliases;
use crate::modules::{directory, join, normalize_path, strip_extension};
use crate::query::owner_type;
use crate::{Entity, EntityId, Graph};
use codegraph_model::RelationKind;
use rustc_hash::FxHashSet;

/// `typed`: TypeScript or TSX.
pub(super) struct Ecma {
    pub(super) typed: bool,
}

/// The runtime's global objects: a receiver named so, where nothing in the workspace shadows
/// it, is the runtime's.
const GLOBALS: &[&str] = &[
    "Object",
    "Array",
    "String",
    "Number",
    "Boolean",
    "Symbol",
    "BigInt",
    "Math",
    "JSON",
    "Date",
    "RegExp",
    "Promise",
    "Reflect",
    "Proxy",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "Error",
    "TypeError",
    "RangeError",
    "Intl",
    "Buffer",
    "process",
    "console",
    "window",
    "document",
    "globalThis",
    "navigator",
    "localStorage",
    "sessionStorage",
    "performance",
    "crypto",
    "URL",
    "URLSearchParams",
    "ArrayBuffer",
    "DataView",
    "Uint8Array",
    "Int32Array",
    "Float64Array",
    "TextEncoder",
    "TextDecoder",
    "Atomics",
    "module",
    "exports",
    "require",
];

impl Semantics for Ecma {
    fn import_form(&self) -> ImportForm {
        ImportForm::Modules
    }

    fn module_keys(&self, path: &str, _summary: &FileSummary) -> Vec<Name> {
        let without = strip_extension(path);
        let mut keys = vec![Name::new(without)];
        if let Some(directory) = without.strip_suffix("/index") {
            keys.push(Name::new(directory));
        } else if without == "index" {
            keys.push(Name::new(""));
        }
        keys
    }

    fn import_keys(
        &self,
        aliases: &ModuleAliases,
        path: &str,
        _summary: &FileSummary,
        import: &Import,
    ) -> Vec<Name> {
        let raw = import.path.as_str();
        if !(raw.starts_with('.') || raw.starts_with('/')) {
            return aliases.keys(path, raw);
        }
        let cleaned = raw
            .trim_end_matches(".js")
            .trim_end_matches(".jsx")
            .trim_end_matches(".ts")
            .trim_end_matches(".tsx")
            .trim_end_matches(".mjs")
            .trim_end_matches(".cjs");
        let joined = match cleaned.strip_prefix('/') {
            Some(rooted) => normalize_path(rooted),
            None => join(directory(path), cleaned),
        };
        joined.map(Name::new).into_iter().collect()
    }

    fn exports_whole_module(&self) -> bool {
        true
    }

    fn reads_module_aliases(&self) -> bool {
        true
    }

    fn callbacks_typed_by_declared_signature(&self) -> bool {
        self.typed
    }

    fn object_members(&self) -> bool {
        true
    }

    fn members_added_at_run_time(&self) -> bool {
        !self.typed
    }

    fn union_types(&self) -> bool {
        self.typed
    }

    fn type_aliases(&self) -> bool {
        self.typed
    }

    fn runtime_globals(&self) -> &'static [&'static str] {
        GLOBALS
    }

    fn literals_are_the_runtimes(&self) -> bool {
        true
    }

    fn imports_by_call(&self) -> bool {
        true
    }

    fn constructor_functions(&self) -> bool {
        true
    }

    fn overload_signatures(&self) -> bool {
        self.typed
    }

    /// The methods that implement or override the member (an interface's method, a class's
    /// method): the same-named members of the types that implement or extend its type,
    /// transitively, and the functions of typed object literals that implement it. tsserver's
    /// references of a member include those of the members whose root symbol it is, so its call
    /// hierarchy lists their calls among the member's callers (mobx's `IAtom.reportObserved`,
    /// called as `this.reportObserved()` on an `Atom`).
    fn dispatched_members(&self, graph: &Graph, method: &Entity) -> Vec<EntityId> {
        crate::query::implementations(graph, &method.id)
            .into_iter()
            .map(|member| member.id)
            .collect()
    }

    /// Along the declared bases, transitively: tsserver counts a call of a base's member as a
    /// reference to each override.
    fn overridden_members(
        &self,
        graph: &Graph,
        method: &Entity,
        owner: EntityId,
        implemented: &[Entity],
        found: &mut Vec<EntityId>,
    ) {
        let mut seen: FxHashSet<EntityId> = FxHashSet::default();
        let mut frontier: Vec<EntityId> = implemented
            .iter()
            .filter_map(|member| owner_type(graph, member))
            .collect();
        frontier.push(owner);
        while let Some(current) = frontier.pop() {
            for edge in graph.outgoing(&current) {
                if !matches!(edge.kind, RelationKind::Extends | RelationKind::Implements)
                    || !seen.insert(edge.to)
                {
                    continue;
                }
                found.extend(
                    self.methods_named(graph, &edge.to, &method.name)
                        .into_iter()
                        .map(|member| member.id),
                );
                frontier.push(edge.to);
            }
        }
    }
}
