//! Resolution by scope: every reference of one file is resolved against a graph snapshot, in
//! this order: enclosing scopes (and, where the language has them, members of the enclosing
//! type), the same file, explicit imports and module aliases, the same package, and finally a
//! name defined exactly once in the workspace (where the language allows that guess).
//!
//! A step that finds candidates in more than one file stops resolution with an ambiguity: an
//! ambiguous reference never becomes an edge. Candidates in one file (overloads, conditional
//! definitions) all become edges.
//!
//! Resolution reads other files only through `Graph::by_name`, `Graph::modules` and
//! `Graph::bases`. `build` relies on that to know which files to re-resolve after a change:
//! see [`mentions`].

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use smol_str::SmolStr;

use super::modules::{family, import_keys, normalize_package, package_key};
use super::{
    AmbiguousRef, Edge, EntityId, ExternalRef, FileNode, FilePath, Graph, NameEntry, Resolved,
};
use crate::index::{FileSummary, Import, InheritKind, RefKind};
use crate::lang::{LanguageSpec, ModuleSystem, UniqueNameFallback};
use crate::model::{EntityKind, RelationKind, Resolution, Span};

/// A resolved base: (child, base, extends or implements, where the base is named).
pub(crate) type BaseEdge = (EntityId, EntityId, RelationKind, Span);

/// The outcome of one lookup step.
enum Found {
    Targets(Vec<EntityId>, Resolution),
    Ambiguous(Vec<EntityId>),
    Nothing,
}

type KindFilter = fn(EntityKind) -> bool;

/// (files, name, kind filter, depth) → what those files export under that name.
type ExportedMemo = FxHashMap<(Vec<FilePath>, SmolStr, usize, u32), Vec<EntityId>>;

/// (file, import index) → the files that import names.
type ForeignImports = FxHashMap<(FilePath, usize), Rc<Vec<FilePath>>>;

fn any_callable(kind: EntityKind) -> bool {
    kind.is_callable()
}

fn any_type(kind: EntityKind) -> bool {
    kind.is_type()
}

fn any_method(kind: EntityKind) -> bool {
    kind == EntityKind::Method
}

fn any_module_member(kind: EntityKind) -> bool {
    kind != EntityKind::Module
}

fn any_base(kind: EntityKind) -> bool {
    kind.is_type() || kind == EntityKind::Module
}

/// At the top level of its file, or only inside namespaces and modules.
pub(crate) fn is_top_level(summary: &FileSummary, index: u32) -> bool {
    let mut current = summary.defs[index as usize].parent;
    while let Some(parent) = current {
        let def = &summary.defs[parent as usize];
        if def.kind != EntityKind::Module {
            return false;
        }
        current = def.parent;
    }
    true
}

/// What a module exports: top-level definitions, and members of an owner that is not a type of
/// the same file (Lua's `function M.f()` on the module table).
pub(crate) fn is_exported(summary: &FileSummary, index: u32) -> bool {
    if !is_top_level(summary, index) {
        return false;
    }
    match &summary.defs[index as usize].owner {
        None => true,
        Some(owner) => !summary
            .defs
            .iter()
            .any(|def| def.kind.is_type() && def.name == *owner),
    }
}

pub(crate) struct Resolver<'a> {
    graph: &'a Graph,
    file: &'a FileNode,
    summary: &'a FileSummary,
    spec: &'static LanguageSpec,
    family: u8,
    package: Option<SmolStr>,
    /// (parent, name) → definitions of this file.
    children: FxHashMap<(Option<u32>, &'a str), Vec<u32>>,
    import_files: Vec<Vec<FilePath>>,
    foreign_imports: RefCell<ForeignImports>,
    /// The name each import binds, index for index with `summary.imports`.
    import_bindings: Vec<Option<SmolStr>>,
    /// (scope, variable) → type name, from the file's bindings.
    bindings: FxHashMap<(Option<u32>, &'a str), &'a SmolStr>,
    owners: RefCell<FxHashMap<SmolStr, Option<EntityId>>>,
    exported_memo: RefCell<ExportedMemo>,
    /// While bases are being resolved, lookups must not depend on other types' bases (they may
    /// not be known yet in this batch); this keeps a batch's result independent of its order.
    without_bases: bool,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(graph: &'a Graph, file: &'a FileNode) -> Resolver<'a> {
        let summary = &*file.summary;
        let mut children: FxHashMap<(Option<u32>, &'a str), Vec<u32>> = FxHashMap::default();
        for (index, def) in summary.defs.iter().enumerate() {
            // Out-of-line members (Go receivers, Rust impls) are not visible as top-level names.
            if def.parent.is_none() && def.owner.is_some() {
                continue;
            }
            children
                .entry((def.parent, def.name.as_str()))
                .or_default()
                .push(index as u32);
        }
        let mut resolver = Resolver {
            graph,
            file,
            summary,
            spec: file.language.spec(),
            family: family(file.language),
            package: package_key(&file.path, summary),
            children,
            import_files: Vec::new(),
            without_bases: false,
            foreign_imports: RefCell::new(FxHashMap::default()),
            import_bindings: file.import_bindings.to_vec(),
            bindings: FxHashMap::default(),
            owners: RefCell::new(FxHashMap::default()),
            exported_memo: RefCell::new(FxHashMap::default()),
        };
        for binding in &summary.bindings {
            resolver
                .bindings
                .entry((binding.scope, binding.name.as_str()))
                .or_insert(&binding.type_name);
        }
        resolver.import_files = summary
            .imports
            .iter()
            .map(|import| resolver.files_of_import(import))
            .collect();
        resolver
    }

    fn id(&self, index: u32) -> EntityId {
        self.file.ids[index as usize].clone()
    }

    fn scope_id(&self, scope: Option<u32>) -> EntityId {
        match scope {
            Some(index) => self.id(index),
            None => self.file.module_id.clone(),
        }
    }

    /// Definition facts of any entity in the graph: (file, def index).
    fn def_of(&self, id: &str) -> Option<(&'a FileNode, Option<u32>)> {
        let loc = self.graph.entities.get(id)?;
        let file = self.graph.files.get(&loc.file)?;
        Some((file, loc.index))
    }

    fn kind_of(&self, id: &str) -> Option<EntityKind> {
        let (file, index) = self.def_of(id)?;
        Some(match index {
            None => EntityKind::Module,
            Some(index) => file.summary.defs[index as usize].kind,
        })
    }

    /// Every entity named `name` in this language family that passes `filter`.
    fn named(&self, name: &str, filter: KindFilter) -> Vec<&'a NameEntry> {
        self.graph
            .named(name)
            .iter()
            .filter(|entry| family(entry.language) == self.family && filter(entry.kind))
            .collect()
    }

    fn decide(candidates: Vec<EntityId>, resolution: Resolution, graph: &Graph) -> Found {
        if candidates.is_empty() {
            return Found::Nothing;
        }
        let first_file = graph
            .entities
            .get(&candidates[0])
            .map(|loc| loc.file.clone());
        let one_file = candidates
            .iter()
            .all(|id| graph.entities.get(id).map(|loc| loc.file.clone()) == first_file);
        if one_file {
            Found::Targets(candidates, resolution)
        } else {
            Found::Ambiguous(candidates)
        }
    }

    // ----- imports -----

    fn files_of_import(&self, import: &Import) -> Vec<FilePath> {
        files_of_import(
            self.graph,
            &self.file.path,
            self.summary,
            self.family,
            import,
        )
    }

    /// The files another file's import names, cached for this resolver's lifetime (re-export
    /// chains visit the same files again and again).
    fn foreign_import_files(&self, target: &FileNode, position: usize) -> Rc<Vec<FilePath>> {
        let key = (target.path.clone(), position);
        if let Some(files) = self.foreign_imports.borrow().get(&key) {
            return files.clone();
        }
        let files = Rc::new(files_of_import(
            self.graph,
            &target.path,
            &target.summary,
            self.family,
            &target.summary.imports[position],
        ));
        self.foreign_imports.borrow_mut().insert(key, files.clone());
        files
    }

    /// The package an import names, for package-based languages: `(package, name)`.
    fn package_import(&self, import: &Import) -> (SmolStr, Option<SmolStr>) {
        let package = normalize_package(&import.path);
        if import.name.is_some() || import.wildcard {
            return (package, import.name.clone());
        }
        match package.rsplit_once('.') {
            Some((head, last)) => (SmolStr::new(head), Some(SmolStr::new(last))),
            None => (package, None),
        }
    }

    /// Definitions named `name` that an import of files makes visible (top level, or re-exported).
    fn exported_by_files(
        &self,
        files: &[FilePath],
        name: &str,
        filter: KindFilter,
        depth: u32,
    ) -> Vec<EntityId> {
        // Glob imports send every unresolved name of a file through the same re-export chains.
        let key = (files.to_vec(), SmolStr::new(name), filter as usize, depth);
        if let Some(found) = self.exported_memo.borrow().get(&key) {
            return found.clone();
        }
        let found = self.exported_by_files_uncached(files, name, filter, depth);
        self.exported_memo.borrow_mut().insert(key, found.clone());
        found
    }

    fn exported_by_files_uncached(
        &self,
        files: &[FilePath],
        name: &str,
        filter: KindFilter,
        depth: u32,
    ) -> Vec<EntityId> {
        let mut found: Vec<EntityId> = self
            .named(name, filter)
            .into_iter()
            .filter(|entry| entry.exported && files.contains(&entry.file))
            .map(|entry| entry.id.clone())
            .collect();
        if found.is_empty() && depth < 3 {
            // Re-exports: `export { x } from './y'`, `from .y import x` in an `__init__.py`.
            for path in files {
                let Some(target) = self.graph.files.get(path) else {
                    continue;
                };
                for (position, import) in target.summary.imports.iter().enumerate() {
                    let binds = &target.import_bindings[position];
                    if binds.as_deref() == Some(name) || (import.wildcard && import.name.is_none())
                    {
                        let original = import.name.clone().unwrap_or_else(|| SmolStr::new(name));
                        let next_files = self.foreign_import_files(target, position);
                        if next_files.is_empty() {
                            continue;
                        }
                        found.extend(self.exported_by_files(
                            &next_files,
                            &original,
                            filter,
                            depth + 1,
                        ));
                    }
                }
            }
            found.sort();
            found.dedup();
        }
        found
    }

    /// What an imported name refers to.
    fn resolve_imported(&self, position: usize, name: &str, filter: KindFilter) -> Vec<EntityId> {
        let import = &self.summary.imports[position];
        if self.spec.module_system == ModuleSystem::Package {
            let (package, imported) = self.package_import(import);
            let wanted = imported.as_deref().unwrap_or(name);
            let found: Vec<EntityId> = self
                .named(wanted, filter)
                .into_iter()
                .filter(|entry| entry.top_level && entry.package.as_ref() == Some(&package))
                .map(|entry| entry.id.clone())
                .collect();
            if !found.is_empty() {
                return found;
            }
            // A static import of a member: `import static a.b.Type.member` / `using static`.
            if let Some((type_package, type_name)) = package.rsplit_once('.') {
                let mut members = Vec::new();
                for entry in self.named(type_name, any_type) {
                    if entry.top_level && entry.package.as_deref() == Some(type_package) {
                        members.extend(self.member_lookup(&entry.id, wanted, filter, false));
                    }
                }
                return members;
            }
            return Vec::new();
        }
        if self.spec.module_system == ModuleSystem::WholeModule {
            // `import Util` in Swift: the definitions of that module's directory.
            let module = import.path.as_str();
            return self
                .named(import.name.as_deref().unwrap_or(name), filter)
                .into_iter()
                .filter(|entry| {
                    entry.top_level
                        && super::modules::swift_module(&entry.file).rsplit('/').next()
                            == Some(module)
                })
                .map(|entry| entry.id.clone())
                .collect();
        }
        let files = &self.import_files[position];
        let original = import.name.as_deref().unwrap_or(name);
        if files.is_empty() {
            return Vec::new();
        }
        if import.name.is_none() && !import.wildcard {
            // The module itself (`import x` used as `x`).
            return files
                .iter()
                .filter_map(|path| self.graph.files.get(path))
                .map(|file| file.module_id.clone())
                .collect();
        }
        let mut found = self.exported_by_files(files, original, filter, 0);
        if found.is_empty() && import.name.is_some() {
            // `from package import submodule`.
            let mut sub = import.clone();
            sub.path = SmolStr::new(match self.spec.module_system {
                ModuleSystem::Python => format!("{}.{original}", import.path.trim_end_matches('.')),
                ModuleSystem::Rust => format!("{}::{original}", import.path),
                _ => format!("{}/{original}", import.path),
            });
            if self.spec.module_system == ModuleSystem::Python
                && import.path.chars().all(|character| character == '.')
            {
                sub.path = SmolStr::new(format!("{}{original}", import.path));
            }
            found = self
                .files_of_import(&sub)
                .iter()
                .filter_map(|path| self.graph.files.get(path))
                .map(|file| file.module_id.clone())
                .collect();
        }
        found
    }

    fn import_visible(&self, import: &Import, scope: Option<u32>) -> bool {
        match import.scope {
            None => true,
            Some(import_scope) => {
                let mut current = scope;
                while let Some(index) = current {
                    if index == import_scope {
                        return true;
                    }
                    current = self.summary.defs[index as usize].parent;
                }
                false
            }
        }
    }

    // ----- members and bases -----

    fn bases(&self, type_id: &str) -> Vec<EntityId> {
        if self.without_bases {
            return Vec::new();
        }
        self.graph
            .bases
            .get(type_id)
            .map(|bases| bases.iter().map(|(base, _, _)| base.clone()).collect())
            .unwrap_or_default()
    }

    /// Members named `name` of a type, nearest first along its bases.
    fn member_lookup(
        &self,
        type_id: &EntityId,
        name: &str,
        filter: KindFilter,
        with_bases: bool,
    ) -> Vec<EntityId> {
        let mut visited: FxHashSet<EntityId> = FxHashSet::default();
        let mut level = vec![type_id.clone()];
        for _ in 0..10 {
            let mut found = Vec::new();
            let mut next = Vec::new();
            for current in level {
                if !visited.insert(current.clone()) {
                    continue;
                }
                found.extend(self.direct_members(&current, name, filter));
                if with_bases {
                    next.extend(self.bases(&current));
                }
            }
            if !found.is_empty() {
                found.sort();
                found.dedup();
                return found;
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        Vec::new()
    }

    fn direct_members(&self, type_id: &EntityId, name: &str, filter: KindFilter) -> Vec<EntityId> {
        let Some((type_file, Some(type_index))) = self.def_of(type_id) else {
            return Vec::new();
        };
        let type_name = &type_file.summary.defs[type_index as usize].name;
        let type_package = package_key(&type_file.path, &type_file.summary);
        self.named(name, filter)
            .into_iter()
            .filter(|entry| {
                if entry.file == type_file.path && entry.parent == Some(type_index) {
                    return true;
                }
                // Defined outside the type's body: `impl Type`, `func (t *Type)`, `Type::m`.
                entry.parent.is_none()
                    && entry.owner.as_ref() == Some(type_name)
                    && (entry.file == type_file.path
                        || type_package.is_none()
                        || entry.package == type_package)
            })
            .map(|entry| entry.id.clone())
            .collect()
    }

    fn enclosing_type(&self, scope: Option<u32>) -> Option<EntityId> {
        let mut current = scope;
        while let Some(index) = current {
            let def = &self.summary.defs[index as usize];
            if def.kind.is_type() {
                return Some(self.id(index));
            }
            if def.parent.is_none()
                && let Some(owner) = &def.owner
            {
                return self.resolve_owner(owner);
            }
            current = def.parent;
        }
        None
    }

    /// The type an out-of-line definition belongs to.
    fn resolve_owner(&self, owner: &str) -> Option<EntityId> {
        if let Some(known) = self.owners.borrow().get(owner) {
            return known.clone();
        }
        let found = match self.resolve_name(owner, None, any_type) {
            Found::Targets(ids, _) => ids.into_iter().next(),
            _ => None,
        };
        self.owners
            .borrow_mut()
            .insert(SmolStr::new(owner), found.clone());
        found
    }

    // ----- names -----

    /// Resolves a bare name as seen from `scope`.
    fn resolve_name(&self, name: &str, scope: Option<u32>, filter: KindFilter) -> Found {
        // 1. Enclosing scopes, innermost first.
        let mut current = scope;
        while let Some(index) = current {
            if let Some(children) = self.children.get(&(Some(index), name)) {
                let ids: Vec<EntityId> = children
                    .iter()
                    .filter(|child| filter(self.summary.defs[**child as usize].kind))
                    .map(|child| self.id(*child))
                    .collect();
                if !ids.is_empty() {
                    return Found::Targets(ids, Resolution::Scope);
                }
            }
            let def = &self.summary.defs[index as usize];
            if self.spec.implicit_members {
                let type_id = if def.kind.is_type() {
                    Some(self.id(index))
                } else if def.parent.is_none() {
                    def.owner
                        .as_deref()
                        .and_then(|owner| self.resolve_owner(owner))
                } else {
                    None
                };
                if let Some(type_id) = type_id {
                    let members = self.member_lookup(&type_id, name, filter, true);
                    if !members.is_empty() {
                        return Resolver::decide(members, Resolution::Scope, self.graph);
                    }
                }
            }
            current = def.parent;
        }
        // 2. The top level of the file.
        if let Some(top) = self.children.get(&(None, name)) {
            let ids: Vec<EntityId> = top
                .iter()
                .filter(|index| filter(self.summary.defs[**index as usize].kind))
                .map(|index| self.id(*index))
                .collect();
            if !ids.is_empty() {
                return Found::Targets(ids, Resolution::SameFile);
            }
        }
        // 3. Explicit imports, then wildcard imports.
        for (position, import) in self.summary.imports.iter().enumerate() {
            if import.wildcard || !self.import_visible(import, scope) {
                continue;
            }
            if self.import_bindings[position].as_deref() == Some(name) {
                let found = self.resolve_imported(position, name, filter);
                if !found.is_empty() {
                    return Resolver::decide(found, Resolution::Import, self.graph);
                }
            }
        }
        let mut wildcard = Vec::new();
        for (position, import) in self.summary.imports.iter().enumerate() {
            if !self.import_visible(import, scope) {
                continue;
            }
            if import.wildcard {
                wildcard.extend(self.resolve_imported(position, name, filter));
            } else if self.spec.module_system == ModuleSystem::Require
                && import.alias.is_none()
                && import.name.is_none()
            {
                // `source lib.sh`, `require 'lib'`: everything the file defines becomes visible.
                wildcard.extend(self.exported_by_files(
                    &self.import_files[position],
                    name,
                    filter,
                    0,
                ));
            }
        }
        if self.spec.module_system == ModuleSystem::Include {
            // Everything an included header declares, and the sources that implement it.
            for position in 0..self.summary.imports.len() {
                let files = self.included_with_sources(position);
                wildcard.extend(self.exported_by_files(&files, name, filter, 3));
            }
        }
        if !wildcard.is_empty() {
            wildcard.sort();
            wildcard.dedup();
            return Resolver::decide(wildcard, Resolution::Import, self.graph);
        }
        // 4. The same package, namespace or directory.
        if let Some(package) = &self.package {
            let ids: Vec<EntityId> = self
                .named(name, filter)
                .into_iter()
                .filter(|entry| {
                    entry.top_level
                        && entry.owner.is_none()
                        && entry.package.as_ref() == Some(package)
                })
                .map(|entry| entry.id.clone())
                .collect();
            if !ids.is_empty() {
                return Resolver::decide(ids, Resolution::SamePackage, self.graph);
            }
        }
        // 5. A name defined once in the workspace.
        if self.spec.unique_name_fallback == UniqueNameFallback::Always
            && !self.spec.builtin_functions.contains(&name)
        {
            let ids: Vec<EntityId> = self
                .named(name, filter)
                .into_iter()
                .map(|entry| entry.id.clone())
                .collect();
            return match ids.len() {
                0 => Found::Nothing,
                1 => Found::Targets(ids, Resolution::UniqueName),
                _ => Resolver::decide(ids, Resolution::UniqueName, self.graph),
            };
        }
        Found::Nothing
    }

    fn included_with_sources(&self, position: usize) -> Vec<FilePath> {
        let mut files = self.import_files[position].clone();
        for header in self.import_files[position].clone() {
            let stem = match header.rfind('.') {
                Some(dot) => &header[..dot],
                None => &header,
            };
            for (path, _) in self
                .graph
                .files
                .range::<_, FilePath>(FilePath::from(stem)..)
            {
                if !path.starts_with(stem) {
                    break;
                }
                if path.len() > stem.len()
                    && path.as_bytes()[stem.len()] == b'.'
                    && !path[stem.len() + 1..].contains(['.', '/'])
                {
                    files.push(path.clone());
                }
            }
        }
        files.sort();
        files.dedup();
        files
    }

    /// The type a variable or field holds, from bindings in the enclosing scopes.
    fn binding_type(&self, receiver: &str, scope: Option<u32>) -> Option<&'a SmolStr> {
        let mut current = scope;
        loop {
            if let Some(type_name) = self.bindings.get(&(current, receiver)) {
                return Some(type_name);
            }
            match current {
                Some(index) => current = self.summary.defs[index as usize].parent,
                None => return None,
            }
        }
    }

    /// A receiver that names a module through an import or alias.
    fn receiver_module_files(&self, receiver: &str, scope: Option<u32>) -> Option<Vec<FilePath>> {
        for (position, import) in self.summary.imports.iter().enumerate() {
            if !self.import_visible(import, scope) {
                continue;
            }
            let binding = self.import_bindings[position].clone();
            if binding.as_deref() == Some(receiver) {
                if self.spec.module_system == ModuleSystem::Package {
                    continue;
                }
                let files = if import.name.is_some() {
                    // `from pkg import module` / `use crate::auth::service`.
                    let targets = self.resolve_imported(position, receiver, any_module_member);
                    let modules: Vec<FilePath> = targets
                        .iter()
                        .filter_map(|id| self.graph.entities.get(id))
                        .filter(|loc| loc.index.is_none())
                        .map(|loc| loc.file.clone())
                        .collect();
                    if modules.is_empty() {
                        continue;
                    }
                    modules
                } else {
                    self.import_files[position].clone()
                };
                return Some(files);
            }
        }
        if self.spec.module_system == ModuleSystem::Rust && receiver.contains("::") {
            let path_import = Import {
                path: SmolStr::new(receiver),
                name: None,
                alias: None,
                wildcard: false,
                span: Span::default(),
                scope: None,
            };
            let files = self.files_of_import(&path_import);
            if !files.is_empty() {
                return Some(files);
            }
        }
        None
    }

    fn resolve_call(&self, name: &str, receiver: Option<&str>, scope: Option<u32>) -> Found {
        let Some(receiver) = receiver else {
            return self.resolve_name(name, scope, any_callable);
        };
        if self.spec.self_receivers.contains(&receiver) {
            return match self.enclosing_type(scope) {
                Some(type_id) => {
                    let members = self.member_lookup(&type_id, name, any_callable, true);
                    Resolver::decide(members, Resolution::ReceiverType, self.graph)
                }
                None => Found::Nothing,
            };
        }
        if self.spec.super_receivers.contains(&receiver) {
            let Some(type_id) = self.enclosing_type(scope) else {
                return Found::Nothing;
            };
            let mut members = Vec::new();
            for base in self.bases(&type_id) {
                members.extend(self.member_lookup(&base, name, any_callable, true));
            }
            members.sort();
            members.dedup();
            return Resolver::decide(members, Resolution::ReceiverType, self.graph);
        }
        // A variable or field of a known type.
        if let Some(type_name) = self.binding_type(receiver, scope) {
            let types = self.resolve_type_path(type_name, scope);
            if !types.is_empty() {
                let mut members = Vec::new();
                for type_id in &types {
                    members.extend(self.member_lookup(type_id, name, any_callable, true));
                }
                if !members.is_empty() {
                    return Resolver::decide(members, Resolution::ReceiverType, self.graph);
                }
            }
        }
        // A module alias.
        if let Some(files) = self.receiver_module_files(receiver, scope) {
            let found = self.exported_by_files(&files, name, any_callable, 0);
            return Resolver::decide(found, Resolution::Import, self.graph);
        }
        // A type name: a static call or a constructor (`Foo.create()`, `Foo::new()`).
        let last = self
            .spec
            .path_separators
            .iter()
            .filter_map(|separator| receiver.rsplit_once(separator).map(|(_, last)| last))
            .min_by_key(|last| last.len())
            .unwrap_or(receiver);
        if is_identifier(last)
            && let Found::Targets(types, _) = self.resolve_name(last, scope, any_type)
        {
            let mut members = Vec::new();
            for type_id in &types {
                members.extend(self.member_lookup(type_id, name, any_callable, true));
            }
            if !members.is_empty() {
                return Resolver::decide(members, Resolution::ReceiverType, self.graph);
            }
        }
        // A namespace or module named by the receiver: `util::f()`, `Util::Format.f`.
        let qualified = self.qualified_members(receiver, name);
        if !qualified.is_empty() {
            return Resolver::decide(qualified, Resolution::Qualified, self.graph);
        }
        // A receiver of unknown type.
        if self.spec.unique_name_fallback != UniqueNameFallback::Never
            && !self.spec.builtin_methods.contains(&name)
        {
            let ids: Vec<EntityId> = self
                .named(name, any_method)
                .into_iter()
                .map(|entry| entry.id.clone())
                .collect();
            if ids.len() == 1 {
                return Found::Targets(ids, Resolution::UniqueName);
            }
            if ids.len() > 1 {
                return Found::Ambiguous(ids);
            }
        }
        Found::Nothing
    }

    /// Members named `name` of every namespace or module whose nested name ends with the
    /// receiver's path (namespaces are open: they may span files).
    fn qualified_members(&self, receiver: &str, name: &str) -> Vec<EntityId> {
        let mut segments: Vec<&str> = vec![receiver];
        for separator in self.spec.path_separators {
            segments = segments
                .iter()
                .flat_map(|segment| segment.split(separator))
                .collect();
        }
        segments.retain(|segment| !segment.is_empty());
        if segments.is_empty() || !segments.iter().all(|segment| is_identifier(segment)) {
            return Vec::new();
        }
        let dotted = segments.join(".");
        let last = segments[segments.len() - 1];
        let mut found = Vec::new();
        for entry in self.named(last, |kind| kind == EntityKind::Module) {
            let Some(file) = self.graph.files.get(&entry.file) else {
                continue;
            };
            let index = entry.index;
            let nested = file.summary.nested_name(index);
            if nested != dotted && !nested.ends_with(&format!(".{dotted}")) {
                continue;
            }
            for (child_index, child) in file.summary.defs.iter().enumerate() {
                if child.parent == Some(index) && child.name == name && child.kind.is_callable() {
                    found.push(file.ids[child_index].clone());
                }
            }
        }
        found.sort();
        found
    }

    fn module_of_receiver(&self, receiver: Option<&str>, name: &str) -> Option<SmolStr> {
        let key = receiver
            .map(|receiver| receiver.split(['.', ':']).next().unwrap_or(receiver))
            .unwrap_or(name);
        let position = self
            .import_bindings
            .iter()
            .position(|binding| binding.as_deref() == Some(key))?;
        Some(self.summary.imports[position].path.clone())
    }

    // ----- the two phases -----

    /// Phase one: the bases of every type this file defines or names (`impl Trait for Type`).
    pub(crate) fn resolve_bases(mut self) -> Vec<BaseEdge> {
        self.without_bases = true;
        let mut edges = Vec::new();
        for inherit in &self.summary.inherits {
            let child = match (inherit.child, &inherit.child_name) {
                (Some(index), _) => self.id(index),
                (None, Some(child_name)) => match self.resolve_name(child_name, None, any_type) {
                    Found::Targets(ids, _) if ids.len() == 1 => ids[0].clone(),
                    _ => continue,
                },
                (None, None) => continue,
            };
            let scope = inherit.child;
            let targets = self.resolve_type_path(&inherit.base, scope);
            for base in targets {
                if base == child {
                    continue;
                }
                let base_kind = self.kind_of(&base);
                let kind = if inherit.kind == InheritKind::Implements
                    || matches!(
                        base_kind,
                        Some(EntityKind::Interface) | Some(EntityKind::Trait)
                    ) {
                    RelationKind::Implements
                } else {
                    RelationKind::Extends
                };
                edges.push((child.clone(), base, kind, inherit.span));
            }
        }
        edges.sort();
        edges.dedup();
        edges
    }

    /// A possibly qualified type name (`models.Base`, `crate::a::Trait`, `\App\Base`).
    fn resolve_type_path(&self, path: &str, scope: Option<u32>) -> Vec<EntityId> {
        let split = self
            .spec
            .path_separators
            .iter()
            .filter_map(|separator| path.rsplit_once(separator))
            .min_by_key(|(_, last)| last.len());
        match split {
            None => match self.resolve_name(path, scope, any_base) {
                Found::Targets(ids, _) => ids,
                _ => Vec::new(),
            },
            Some((qualifier, last)) => {
                if let Some(files) = self.receiver_module_files(qualifier, scope) {
                    return self.exported_by_files(&files, last, any_type, 0);
                }
                if self.spec.module_system == ModuleSystem::Package {
                    let package = normalize_package(qualifier);
                    let found: Vec<EntityId> = self
                        .named(last, any_type)
                        .into_iter()
                        .filter(|entry| entry.package.as_ref() == Some(&package))
                        .map(|entry| entry.id.clone())
                        .collect();
                    if !found.is_empty() {
                        return found;
                    }
                }
                match self.resolve_name(last, scope, any_type) {
                    Found::Targets(ids, _) => ids,
                    _ => Vec::new(),
                }
            }
        }
    }

    /// Phase two: every edge whose reference is in this file.
    pub(crate) fn resolve_all(&self, bases: &[BaseEdge]) -> Resolved {
        let mut resolved = Resolved::default();
        let summary = self.summary;
        // Containment, and members defined outside their type.
        for (index, def) in summary.defs.iter().enumerate() {
            let index = index as u32;
            let parent = self.scope_id(def.parent);
            resolved.edges.push(Edge {
                from: parent,
                to: self.id(index),
                kind: RelationKind::Contains,
                resolution: Resolution::Syntax,
                site: None,
            });
            if def.parent.is_none()
                && let Some(owner) = &def.owner
                && let Found::Targets(types, resolution) = self.resolve_name(owner, None, any_type)
            {
                for type_id in types {
                    resolved.edges.push(Edge {
                        from: type_id,
                        to: self.id(index),
                        kind: RelationKind::Defines,
                        resolution: if resolution == Resolution::SameFile {
                            Resolution::Syntax
                        } else {
                            resolution
                        },
                        site: Some(def.name_span),
                    });
                }
            }
        }
        for (child, base, kind, span) in bases {
            resolved.edges.push(Edge {
                from: child.clone(),
                to: base.clone(),
                kind: *kind,
                resolution: Resolution::Syntax,
                site: Some(*span),
            });
        }
        // Imports.
        for (position, import) in summary.imports.iter().enumerate() {
            let targets: Vec<EntityId> = if self.spec.module_system == ModuleSystem::Package {
                if import.wildcard {
                    Vec::new()
                } else {
                    self.resolve_imported(position, "", any_module_member)
                }
            } else if let Some(name) = &import.name {
                let found = self.resolve_imported(position, name, any_module_member);
                if found.is_empty() {
                    self.import_files[position]
                        .iter()
                        .filter_map(|path| self.graph.files.get(path))
                        .map(|file| file.module_id.clone())
                        .collect()
                } else {
                    found
                }
            } else {
                self.import_files[position]
                    .iter()
                    .filter_map(|path| self.graph.files.get(path))
                    .map(|file| file.module_id.clone())
                    .collect()
            };
            for target in targets {
                if target != self.file.module_id {
                    resolved.edges.push(Edge {
                        from: self.file.module_id.clone(),
                        to: target,
                        kind: RelationKind::Imports,
                        resolution: Resolution::Import,
                        site: Some(import.span),
                    });
                }
            }
        }
        // Calls and type uses.
        for reference in &summary.refs {
            let from = self.scope_id(reference.scope);
            let found = match reference.kind {
                RefKind::Call => self.resolve_call(
                    &reference.name,
                    reference.receiver.as_deref(),
                    reference.scope,
                ),
                RefKind::Type => match reference.receiver.as_deref() {
                    Some(qualifier) => {
                        let ids = self.resolve_type_path(
                            &format!("{qualifier}.{}", reference.name),
                            reference.scope,
                        );
                        Resolver::decide(ids, Resolution::Import, self.graph)
                    }
                    None => self.resolve_name(&reference.name, reference.scope, any_type),
                },
            };
            let relation = if reference.kind == RefKind::Call {
                RelationKind::Calls
            } else {
                RelationKind::Uses
            };
            match found {
                Found::Targets(targets, resolution) => {
                    for target in targets {
                        if relation == RelationKind::Uses && target == from {
                            continue;
                        }
                        resolved.edges.push(Edge {
                            from: from.clone(),
                            to: target,
                            kind: relation,
                            resolution,
                            site: Some(reference.span),
                        });
                    }
                }
                Found::Ambiguous(candidates) => resolved.ambiguous.push(AmbiguousRef {
                    from,
                    name: reference.name.clone(),
                    site: reference.span,
                    candidates,
                }),
                Found::Nothing => {
                    if reference.kind == RefKind::Call {
                        resolved.external.push(ExternalRef {
                            from,
                            name: reference.name.clone(),
                            receiver: reference.receiver.clone(),
                            module: self
                                .module_of_receiver(reference.receiver.as_deref(), &reference.name),
                            site: reference.span,
                        });
                    }
                }
            }
        }
        resolved
    }
}

/// The files an import names: the first of its keys that some file of the same family answers to.
fn files_of_import(
    graph: &Graph,
    path: &str,
    summary: &FileSummary,
    family_id: u8,
    import: &Import,
) -> Vec<FilePath> {
    for key in import_keys(path, summary, import) {
        if let Some(files) = graph.modules.get(&key) {
            let files: Vec<FilePath> = files
                .iter()
                .filter(|path| {
                    graph
                        .files
                        .get(*path)
                        .is_some_and(|file| family(file.language) == family_id)
                })
                .cloned()
                .collect();
            if !files.is_empty() {
                return files;
            }
        }
    }
    Vec::new()
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|character| character.is_alphanumeric() || character == '_' || character == '$')
        && !text
            .chars()
            .next()
            .is_some_and(|character| character.is_ascii_digit())
}

/// Every name and module key a file's resolution may look up, as a pure function of the file.
/// A superset is fine; a missing entry would leave a stale edge after an incremental change.
pub(crate) fn mentions(path: &str, summary: &FileSummary) -> (Vec<SmolStr>, Vec<SmolStr>) {
    let mut names: FxHashSet<SmolStr> = FxHashSet::default();
    let split_into = |text: &str, names: &mut FxHashSet<SmolStr>| {
        for part in text.split(|character: char| {
            !(character.is_alphanumeric() || character == '_' || character == '$')
        }) {
            if !part.is_empty() {
                names.insert(SmolStr::new(part));
            }
        }
    };
    for reference in &summary.refs {
        names.insert(reference.name.clone());
        if let Some(receiver) = &reference.receiver {
            split_into(receiver, &mut names);
        }
    }
    for import in &summary.imports {
        split_into(&import.path, &mut names);
        if let Some(name) = &import.name {
            names.insert(name.clone());
        }
        if let Some(alias) = &import.alias {
            names.insert(alias.clone());
        }
    }
    for inherit in &summary.inherits {
        split_into(&inherit.base, &mut names);
        if let Some(child) = &inherit.child_name {
            names.insert(child.clone());
        }
    }
    for binding in &summary.bindings {
        names.insert(binding.type_name.clone());
    }
    for def in &summary.defs {
        if let Some(owner) = &def.owner {
            names.insert(owner.clone());
        }
    }
    let mut modules: Vec<SmolStr> = Vec::new();
    for import in &summary.imports {
        modules.extend(import_keys(path, summary, import));
        // Submodule and re-export lookups derive keys from the import and the imported name.
        if let Some(name) = &import.name {
            let mut sub = import.clone();
            sub.path = SmolStr::new(format!("{}.{name}", import.path));
            modules.extend(import_keys(path, summary, &sub));
            sub.path = SmolStr::new(format!("{}{name}", import.path));
            modules.extend(import_keys(path, summary, &sub));
            sub.path = SmolStr::new(format!("{}::{name}", import.path));
            modules.extend(import_keys(path, summary, &sub));
            sub.path = SmolStr::new(format!("{}/{name}", import.path));
            modules.extend(import_keys(path, summary, &sub));
        }
    }
    for reference in &summary.refs {
        if let Some(receiver) = &reference.receiver
            && receiver.contains("::")
        {
            let import = Import {
                path: receiver.clone(),
                name: None,
                alias: None,
                wildcard: false,
                span: Span::default(),
                scope: None,
            };
            modules.extend(import_keys(path, summary, &import));
        }
    }
    let mut names: Vec<SmolStr> = names.into_iter().collect();
    names.sort();
    modules.sort();
    modules.dedup();
    (names, modules)
}
