//! JavaScript and TypeScript rules of resolution that no other language shares.
//!
//! An object literal stored in a variable of a declared type implements that type:
//! `export const dateTimestampProvider: DateTimestampProvider = { now() { ... } }` makes
//! `dateTimestampProvider.now` an implementation of `TimestampProvider.now`, so that calls made
//! through the interface (`scheduler.now()`) count among its callers, as typescript-language-server
//! counts them.
//!
//! A field the type's code assigns (`this.engine = opts.engines[ext]`) holds a value: a call of
//! it (`this.engine(...)`) is no method, so it never takes a same-named method elsewhere by
//! guess.
//!
//! A TypeScript type alias (`type ZodTypeAny = ZodType<any, any, any>`) stands for the type it
//! names: a receiver declared `a: z.ZodTypeAny` has `ZodType`'s members. (Without this, a name
//! no definition has looks like a type from outside the workspace.)

use super::infer::Value;
use super::{Edge, EntityId, FilePath, KindFilter, Resolver};
use codegraph_model::{RelationKind, Resolution};

impl Resolver<'_> {
    /// The `implements` edges of the functions of object literals stored in typed variables,
    /// fields or properties (`const x: T = { m() {} }`, `x = { ... } as T`): each function to
    /// the member of that name of the declared type, along its bases.
    pub(super) fn object_literal_implements(&self) -> Vec<Edge> {
        let mut edges = Vec::new();
        if !self.semantics.object_members() {
            return edges;
        }
        for (index, def) in self.summary.defs.iter().enumerate() {
            let Some(owner) = &def.owner else {
                continue;
            };
            if !def.kind.is_callable() || def.kind.is_type() {
                continue;
            }
            let Some(binding) = self.declared.bindings.get(&(def.parent, owner.as_str())) else {
                continue;
            };
            if binding.kind != codegraph_index::BindingKind::Type {
                continue;
            }
            let Value::Instance(types) = self.type_value(&binding.type_name, def.parent) else {
                continue;
            };
            let mut targets: Vec<EntityId> = types
                .iter()
                .flat_map(|type_id| {
                    self.member_lookup(type_id, &def.name, KindFilter::Callable, true)
                })
                .collect();
            targets.sort();
            targets.dedup();
            let from = self.id(index as u32);
            for target in targets {
                if target != from {
                    edges.push(Edge {
                        from,
                        to: target,
                        kind: RelationKind::Implements,
                        resolution: Resolution::ReceiverType,
                        site: crate::Site::definition(index),
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
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        if !self.semantics.object_members() || !super::is_identifier(receiver) {
            return Vec::new();
        }
        for (position, import) in self.summary.imports.iter().enumerate() {
            if self.declared.import_bindings[position].as_deref() != Some(receiver)
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

    /// The functions named `name` of an object that a module imported as a whole defines or
    /// re-exports (`import * as z from "./index"` then `z.coerce.boolean()`, with `export const
    /// coerce = { boolean: ... }` in a file that `index` re-exports with `export *`).
    pub(super) fn namespace_object_members(
        &self,
        receiver: &str,
        name: &str,
        scope: Option<u32>,
    ) -> Vec<EntityId> {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        if !self.semantics.object_members() {
            return Vec::new();
        }
        let Some((head, object)) = receiver.split_once('.') else {
            return Vec::new();
        };
        if !super::is_identifier(head) || !super::is_identifier(object) {
            return Vec::new();
        }
        let Some(files) = self.receiver_module_files(head, scope) else {
            return Vec::new();
        };
        let files = self.reexporting_files(files, object);
        self.object_members_in(&files, object, name)
    }

    /// These files and those they re-export `name` from (`export * from`, `export { name }
    /// from`), a few hops deep: where a module's `name` may be defined.
    fn reexporting_files(&self, files: Vec<FilePath>, name: &str) -> Vec<FilePath> {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        let mut all = files.clone();
        let mut frontier = files;
        for _ in 0..3 {
            let mut next = Vec::new();
            for path in &frontier {
                let Some(file) = self.graph.files.get(path) else {
                    continue;
                };
                for (position, import) in file.summary.imports.iter().enumerate() {
                    let names_it = file.import_bindings[position].as_deref() == Some(name);
                    if import.path.is_empty()
                        || !(names_it || (import.wildcard && import.name.is_none()))
                    {
                        continue;
                    }
                    for found in self.foreign_import_files(file, position).iter() {
                        if !all.contains(found) {
                            all.push(*found);
                            next.push(*found);
                        }
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        all
    }

    /// The functions named `name` of the object a module exports as a whole (`module.exports =
    /// list`, `export default list`, with `let list = { split() {} }` there): `require('./list')
    /// .split()`.
    pub(super) fn default_object_members(&self, files: &[FilePath], name: &str) -> Vec<EntityId> {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        if !self.semantics.object_members() {
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
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        self.named(name, KindFilter::Callable)
            .into_iter()
            .filter(|entry| {
                entry.parent.is_none()
                    && entry.owner.as_deref() == Some(object)
                    && files.contains(&entry.file)
            })
            .map(|entry| entry.id)
            .collect()
    }
}

impl Resolver<'_> {
    /// Whether `receiver.name` is `this.name`, a field that the code of the type around assigns
    /// a value (`this.engine = opts.engines[ext]` in a constructor function or a method, a class
    /// field `engine = ...`): calling it calls that value.
    pub(super) fn assigned_this_field(
        &self,
        receiver: &str,
        name: &str,
        scope: Option<u32>,
    ) -> bool {
        if !self.semantics.object_members() || !self.spec.self_receivers.contains(&receiver) {
            return false;
        }
        let field = format!("{receiver}.{name}");
        // `this.x = ...` binds the field on the class around, or on the file where no class is
        // (a constructor function and its prototype's methods).
        if self
            .binding_of(&field, scope)
            .is_some_and(|(_, kind, _)| kind == codegraph_index::BindingKind::Value)
        {
            return true;
        }
        let mut current = scope;
        while let Some(index) = current {
            let def = &self.summary.defs[index as usize];
            if def.kind.is_type() {
                return self
                    .declared
                    .bindings
                    .get(&(Some(index), name))
                    .is_some_and(|binding| binding.kind == codegraph_index::BindingKind::Value);
            }
            current = def.parent;
        }
        false
    }
}

/// How many type aliases deep a type is followed (`type A = B`, `type B = C<T>`).
const MAX_ALIAS_DEPTH: u32 = 4;

impl Resolver<'_> {
    /// The value of a TypeScript type alias named `type_text` as seen from `scope` (this file's,
    /// imported by name, or a namespace's member `z.ZodTypeAny`): an instance of the aliased
    /// type, resolved in the alias's own file. `None` when no alias of that name is visible.
    pub(super) fn alias_value(
        &self,
        type_text: &str,
        scope: Option<u32>,
        depth: u32,
    ) -> Option<Value> {
        let _step = codegraph_model::walk::enter()?;
        if !self.semantics.type_aliases() || depth >= MAX_ALIAS_DEPTH {
            return None;
        }
        if let Some((head, name)) = type_text.split_once('.') {
            // `z.ZodTypeAny` after `import * as z from "./types"`.
            if name.contains('.') || !super::is_identifier(head) {
                return None;
            }
            let files = self.receiver_module_files(head, scope)?;
            return self.alias_in_files(&files, name, 0, depth);
        }
        let mut current = scope;
        loop {
            if let Some(binding) = self.declared.aliases.get(&(current, type_text)) {
                return Some(self.type_value_at(&binding.type_name, current, depth + 1));
            }
            match current {
                Some(index) => current = self.summary.defs[index as usize].parent,
                None => break,
            }
        }
        for (position, import) in self.summary.imports.iter().enumerate() {
            if self.declared.import_bindings[position].as_deref() != Some(type_text)
                || !self.import_visible(import, scope)
            {
                continue;
            }
            let original = import.name.as_deref().unwrap_or(type_text);
            let files = self.import_files(position);
            if let Some(value) = self.alias_in_files(&files, original, 0, depth) {
                return Some(value);
            }
        }
        None
    }

    /// The alias `name` at the top level of these files, or re-exported by them (`export *
    /// from`, `export { A } from`), a few hops deep.
    fn alias_in_files(
        &self,
        files: &[FilePath],
        name: &str,
        hops: u32,
        depth: u32,
    ) -> Option<Value> {
        let _step = codegraph_model::walk::enter()?;
        // A change of the alias (its name's export hash) re-resolves this file.
        self.recorder.name(name);
        for path in files {
            let Some(file) = self.graph.files.get(path) else {
                continue;
            };
            let resolver = self.resolver_for(file);
            if let Some(binding) = resolver.declared.aliases.get(&(None, name)) {
                return Some(resolver.type_value_at(&binding.type_name, None, depth + 1));
            }
        }
        if hops >= 3 {
            return None;
        }
        for path in files {
            let Some(target) = self.graph.files.get(path) else {
                continue;
            };
            for (position, import) in target.summary.imports.iter().enumerate() {
                let binds = target.import_bindings[position].as_deref() == Some(name);
                if !(binds || (import.wildcard && import.name.is_none())) || import.path.is_empty()
                {
                    continue;
                }
                let original = import.name.as_deref().unwrap_or(name);
                let next = self.foreign_import_files(target, position);
                if let Some(value) = self.alias_in_files(&next, original, hops + 1, depth) {
                    return Some(value);
                }
            }
        }
        None
    }
}
