//! JavaScript and TypeScript rules of resolution that no other language shares.
//!
//! An object literal stored in a variable of a declared type implements that type:
//! `export const dateTimestampProvider: DateTimestampProvider = { now() { ... } }` makes
//! `dateTimestampProvider.now` an implementation of `TimestampProvider.now`, so that calls made
//! through the interface (`scheduler.now()`) count among its callers, as typescript-language-server
//! counts them.

use super::infer::Value;
use super::{Edge, EntityId, FilePath, Resolver, any_callable};
use crate::model::{RelationKind, Resolution};

impl Resolver<'_> {
    /// The `implements` edges of the functions of object literals stored in typed variables,
    /// fields or properties (`const x: T = { m() {} }`, `x = { ... } as T`): each function to
    /// the member of that name of the declared type, along its bases.
    pub(super) fn object_literal_implements(&self) -> Vec<Edge> {
        let mut edges = Vec::new();
        if super::family(self.file.language) != super::family(crate::lang::Language::JavaScript) {
            return edges;
        }
        for (index, def) in self.summary.defs.iter().enumerate() {
            let Some(owner) = &def.owner else {
                continue;
            };
            if !def.kind.is_callable() || def.kind.is_type() {
                continue;
            }
            let Some(binding) = self.bindings.get(&(def.parent, owner.as_str())) else {
                continue;
            };
            if binding.kind != crate::index::BindingKind::Type {
                continue;
            }
            let Value::Instance(types) = self.type_value(&binding.type_name, def.parent) else {
                continue;
            };
            let mut targets: Vec<EntityId> = types
                .iter()
                .flat_map(|type_id| self.member_lookup(type_id, &def.name, any_callable, true))
                .collect();
            targets.sort();
            targets.dedup();
            let from = self.id(index as u32);
            for target in targets {
                if target != from {
                    edges.push(Edge {
                        from: from.clone(),
                        to: target,
                        kind: RelationKind::Implements,
                        resolution: Resolution::ReceiverType,
                        site: Some(def.name_span),
                    });
                }
            }
        }
        edges
    }
}

impl Resolver<'_> {
    /// The functions named `name` of an object that another file defines and this one imports
    /// by name (`import { provider } from "./provider"` then `provider.now()`, with `export
    /// const provider = { now() {} }` there).
    pub(super) fn imported_object_members(
        &self,
        receiver: &str,
        name: &str,
        scope: Option<u32>,
    ) -> Vec<EntityId> {
        if super::family(self.file.language) != super::family(crate::lang::Language::JavaScript)
            || !super::is_identifier(receiver)
        {
            return Vec::new();
        }
        for (position, import) in self.summary.imports.iter().enumerate() {
            if self.import_bindings[position].as_deref() != Some(receiver)
                || !self.import_visible(import, scope)
            {
                continue;
            }
            let Some(original) = import.name.as_deref() else {
                continue;
            };
            let files = self.import_files(position);
            if files.is_empty() {
                continue;
            }
            return self.object_members_in(&files, original, name);
        }
        Vec::new()
    }

    /// The functions named `name` of the object a module exports as a whole (`module.exports =
    /// list`, `export default list`, with `let list = { split() {} }` there): `require('./list')
    /// .split()`.
    pub(super) fn default_object_members(&self, files: &[FilePath], name: &str) -> Vec<EntityId> {
        if super::family(self.file.language) != super::family(crate::lang::Language::JavaScript) {
            return Vec::new();
        }
        // What the modules export as `default` is read from their local aliases.
        self.recorder.name("default");
        let mut found = Vec::new();
        for path in files {
            let Some(file) = self.graph.files.get(path) else {
                continue;
            };
            for import in &file.summary.imports {
                if import.path.is_empty()
                    && import.alias.as_deref() == Some("default")
                    && let Some(object) = import.name.as_deref()
                {
                    found.extend(self.object_members_in(std::slice::from_ref(path), object, name));
                }
            }
        }
        found.sort();
        found.dedup();
        found
    }

    /// The top-level functions named `name` that the object `object` owns in these files.
    fn object_members_in(&self, files: &[FilePath], object: &str, name: &str) -> Vec<EntityId> {
        self.named(name, any_callable)
            .into_iter()
            .filter(|entry| {
                entry.parent.is_none()
                    && entry.owner.as_deref() == Some(object)
                    && files.contains(&entry.file)
            })
            .map(|entry| entry.id.clone())
            .collect()
    }
}
