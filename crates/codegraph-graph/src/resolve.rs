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

mod infer;
mod javascript;
mod partial;
pub(crate) use partial::moved_references;
pub(crate) mod python;
pub(super) mod rust;

use std::cell::RefCell;
use std::rc::Rc;

use codegraph_model::Name;
use rustc_hash::{FxHashMap, FxHashSet};

use super::aliases::ModuleAliases;
use super::modules::{family, import_keys, normalize_package, package_key};
use super::semantics::{self, ImportForm, Semantics};
use super::{
    AmbiguousRef, Edge, EntityId, ExternalRef, FileNode, FilePath, Graph, NameEntry, Resolved, Site,
};
use codegraph_index::{Binding, FileSummary, Import, InheritKind, RefKind};
use codegraph_lang::{Family, LanguageSpec, UniqueNameFallback};
use codegraph_model::{EntityKind, RelationKind, Resolution, Span};
use infer::Value;

/// A resolved base: (child, base, extends or implements, where the base is named).
pub(crate) type BaseEdge = (EntityId, EntityId, RelationKind, Site);

/// The outcome of one lookup step.
enum Found {
    Targets(Vec<EntityId>, Resolution),
    Ambiguous(Vec<EntityId>),
    Nothing,
}

/// Which kinds of definition a lookup wants. A value, not a function, so that memo tables
/// can key on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum KindFilter {
    Any,
    Callable,
    Type,
    Method,
    /// Anything but a module: what an import names.
    ModuleMember,
    /// A type or a module (Ruby's mixins): what a base names.
    Base,
    Module,
    Function,
}

impl KindFilter {
    fn admits(self, kind: EntityKind) -> bool {
        match self {
            KindFilter::Any => true,
            KindFilter::Callable => kind.is_callable(),
            KindFilter::Type => kind.is_type(),
            KindFilter::Method => kind == EntityKind::Method,
            KindFilter::ModuleMember => kind != EntityKind::Module,
            KindFilter::Base => kind.is_type() || kind == EntityKind::Module,
            KindFilter::Module => kind == EntityKind::Module,
            KindFilter::Function => kind == EntityKind::Function,
        }
    }
}

/// (files, name, kind filter, depth) → what those files export under that name.
/// Memos are looked up by (key, name), the name last, as a `&str`: interning a name only to
/// look it up would take the global table's lock for every lookup.
type ExportedMemo = FxHashMap<(Vec<FilePath>, KindFilter, u32), FxHashMap<Name, Vec<EntityId>>>;

/// (the scope an out-of-line member is written in, its owner's name) → the type that names.
type OwnersMemo = FxHashMap<(Option<u32>, Name), Option<EntityId>>;
type MembersMemo = FxHashMap<(EntityId, KindFilter, bool), FxHashMap<Name, Vec<EntityId>>>;

/// (file, import index) → the files that import names.
type ForeignImports = FxHashMap<(FilePath, usize), Rc<Vec<FilePath>>>;
/// A receiver's inferred value and the names its inference guessed.
type Memoised = (Value, Rc<[Name]>);

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
/// the same file (Lua's `function M.f()` on the module table). A JavaScript or TypeScript
/// function owned by an object (`traps.get`, `Foo.prototype.m`, `app.render = function`) is
/// the object's, not a name the module exports.
pub(crate) fn is_exported(summary: &FileSummary, index: u32) -> bool {
    if !is_top_level(summary, index) {
        return false;
    }
    match &summary.defs[index as usize].owner {
        None => true,
        Some(_) if semantics::of(summary.language).object_members() => false,
        Some(owner) => !summary
            .defs
            .iter()
            .any(|def| def.kind.is_type() && def.name == *owner),
    }
}

/// Every name and module key a resolution looked up, its foreign resolvers' included: what the
/// result depends on besides the file itself.
#[derive(Default)]
pub(crate) struct Recorder {
    names: RefCell<FxHashSet<Name>>,
    modules: RefCell<FxHashSet<Name>>,
    /// The names of unique-name guesses that read the reachable packages (`Resolved::guessed`).
    guessed: RefCell<FxHashSet<Name>>,
    /// Those guessed since the current reference (or memoised value) began, the guesses of
    /// the memoised values it used included (`Resolved::guessed_by`).
    frame: RefCell<Vec<Name>>,
}

/// Adds `name` to `set`, interning it only when it is new.
fn record(set: &RefCell<FxHashSet<Name>>, name: &str) {
    let mut set = set.borrow_mut();
    if !set.contains(name) {
        set.insert(Name::new(name));
    }
}

impl Recorder {
    fn name(&self, name: &str) {
        record(&self.names, name);
    }

    fn module(&self, key: &Name) {
        let mut modules = self.modules.borrow_mut();
        if !modules.contains(key) {
            modules.insert(*key);
        }
    }

    fn guessed(&self, name: &str) {
        record(&self.guessed, name);
        let name = self.guessed.borrow().get(name).copied();
        if let Some(name) = name {
            self.in_frame(&[name]);
        }
    }

    /// A name an earlier resolution guessed, kept for the file (not for any one reference).
    fn guessed_before(&self, name: &Name) {
        record(&self.guessed, name);
    }

    /// Adds guesses to the current frame.
    fn in_frame(&self, names: &[Name]) {
        let mut frame = self.frame.borrow_mut();
        for name in names {
            if !frame.contains(name) {
                frame.push(*name);
            }
        }
    }

    /// Starts a frame of its own (`frame`), giving back the one it replaces.
    fn swap_frame(&self, frame: Vec<Name>) -> Vec<Name> {
        std::mem::replace(&mut *self.frame.borrow_mut(), frame)
    }
}

/// The packages a file's imports reach (within three hops), and the names and module keys the
/// walk that found them read (its resolution depends on them).
#[derive(Clone, Debug)]
pub(crate) struct Reachable {
    /// Each a prefix of an interned path.
    packages: FxHashSet<&'static str>,
    /// The files whose import targets the walk read, the start's excepted, in walk order.
    visited: Vec<FilePath>,
    /// `walk_key` of each of `visited`, sorted: interned on first use (a writer's walk again
    /// of a file that keeps its resolution and its walk's files needs none).
    modules: std::sync::OnceLock<Vec<Name>>,
    /// [`Reachable::fingerprint`], found on first use.
    fingerprint: std::sync::OnceLock<u64>,
}

/// Resolves the references of one file against a snapshot. Three parts, by role: what the
/// file declares, indexed once ([`Declared`], immutable); what lookups already found
/// ([`Memos`], filled on first use); and what the resolution read of other files
/// ([`Recorder`]), which says when the file must be resolved again.
pub(crate) struct Resolver<'a> {
    graph: &'a Graph,
    file: &'a FileNode,
    summary: &'a FileSummary,
    spec: &'static LanguageSpec,
    /// The file's language rules: what shared resolution asks instead of comparing languages.
    semantics: &'static dyn Semantics,
    family: Family,
    declared: Declared<'a>,
    memo: Memos<'a>,
    recorder: Rc<Recorder>,
    /// The start of the reference being resolved, which picks a regional binding.
    at: std::cell::Cell<u32>,
    /// While bases are being resolved, lookups must not depend on other types' bases (they may
    /// not be known yet in this batch); this keeps a batch's result independent of its order.
    without_bases: bool,
}

/// What one file declares, indexed for lookups by name: built once per resolver, never
/// changed.
struct Declared<'a> {
    package: Option<Name>,
    /// (parent, name) → definitions of this file.
    children: FxHashMap<(Option<u32>, &'a str), Vec<u32>>,
    /// Out-of-line members of this file by (owner, name): `function M.f`, `func (s *T) f`.
    owned: FxHashMap<(&'a str, &'a str), Vec<u32>>,
    /// The name each import binds, index for index with `summary.imports`.
    import_bindings: Vec<Option<Name>>,
    /// (scope, variable) → its binding (the first in the file).
    bindings: FxHashMap<(Option<u32>, &'a str), &'a Binding>,
    /// (scope, variable) → its bindings that hold in a region of the scope only (a Rust
    /// `match` arm's).
    regional: FxHashMap<(Option<u32>, &'a str), Vec<&'a Binding>>,
    /// (scope, type alias) → its binding: type names, apart from values of the same name.
    aliases: FxHashMap<(Option<u32>, &'a str), &'a Binding>,
}

/// What a resolver's lookups already found, kept for the later references of the file. Each
/// table is filled on first use; none changes what a lookup answers.
struct Memos<'a> {
    /// The files each import names, index for index with `summary.imports` (a foreign file's
    /// resolver may need none of them).
    import_files: RefCell<Vec<Option<Rc<Vec<FilePath>>>>>,
    /// For an `#include`, its files and the sources beside them (`included_with_sources`),
    /// index for index with `summary.imports`: every name a C file does not define itself
    /// reads them (a kernel file's hundreds of names times its dozens of includes, each a
    /// search of the file map, would weigh on the whole kernel's resolution).
    included_files: RefCell<Vec<Option<Rc<Vec<FilePath>>>>>,
    foreign_imports: RefCell<ForeignImports>,
    /// Resolvers of other files, for types and return types declared there.
    foreign: RefCell<FxHashMap<FilePath, Rc<Resolver<'a>>>>,
    /// The packages the file's imports reach, computed on the first unique-name guess.
    reachable_packages: RefCell<Option<FxHashSet<&'static str>>>,
    /// The same, known from an earlier resolution of the file (`knowing_reachable`), and as
    /// this resolver found or took them (`reachable`).
    known_reachable: RefCell<Option<Reachable>>,
    walked: RefCell<Option<Reachable>>,
    /// Receiver values already inferred: (receiver, scope) → value, with the names its
    /// inference guessed (a reference that uses the value depends on them too).
    values: RefCell<FxHashMap<Option<u32>, FxHashMap<Name, Memoised>>>,
    owners: RefCell<OwnersMemo>,
    exported_memo: RefCell<ExportedMemo>,
    /// (type, member name, kind filter, along the bases) → what `member_lookup` found.
    members_memo: RefCell<MembersMemo>,
}

impl<'a> Declared<'a> {
    fn new(file: &'a FileNode) -> Declared<'a> {
        let summary = &*file.summary;
        let mut declared = Declared {
            package: package_key(&file.path, summary),
            children: FxHashMap::default(),
            owned: FxHashMap::default(),
            import_bindings: file.import_bindings.to_vec(),
            bindings: FxHashMap::default(),
            regional: FxHashMap::default(),
            aliases: FxHashMap::default(),
        };
        for (index, def) in summary.defs.iter().enumerate() {
            // Out-of-line members (Go receivers, Rust impls) are not visible as top-level names,
            // nor are an object literal's functions at any depth (only they keep an owner there).
            let slot = match &def.owner {
                Some(owner) => declared
                    .owned
                    .entry((owner.as_str(), def.name.as_str()))
                    .or_default(),
                None => declared
                    .children
                    .entry((def.parent, def.name.as_str()))
                    .or_default(),
            };
            slot.push(index as u32);
        }
        for binding in &summary.bindings {
            declared.add_binding(binding);
        }
        declared
    }

    /// The first binding of a name in a scope counts; a declared type beats an assigned value,
    /// which beats a bare parameter.
    fn add_binding(&mut self, binding: &'a Binding) {
        use codegraph_index::BindingKind;
        let key = (binding.scope(), binding.name.as_str());
        if binding.kind == BindingKind::Alias {
            self.aliases.entry(key).or_insert(binding);
            return;
        }
        if binding.region.is_some() {
            self.regional.entry(key).or_default().push(binding);
            return;
        }
        let slot = self.bindings.entry(key).or_insert(binding);
        let rank = |kind: BindingKind| match kind {
            BindingKind::Type | BindingKind::Bound => 2,
            BindingKind::Value | BindingKind::Callback | BindingKind::Variant => 1,
            BindingKind::Local | BindingKind::Alias => 0,
        };
        if rank(binding.kind) > rank(slot.kind) {
            *slot = binding;
        }
    }
}

impl Memos<'_> {
    fn new(imports: usize) -> Self {
        Memos {
            import_files: RefCell::new(vec![None; imports]),
            included_files: RefCell::new(vec![None; imports]),
            foreign_imports: RefCell::default(),
            foreign: RefCell::default(),
            reachable_packages: RefCell::new(None),
            known_reachable: RefCell::new(None),
            walked: RefCell::new(None),
            values: RefCell::default(),
            owners: RefCell::default(),
            exported_memo: RefCell::default(),
            members_memo: RefCell::default(),
        }
    }
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(graph: &'a Graph, file: &'a FileNode) -> Resolver<'a> {
        Resolver::with_recorder(graph, file, Rc::default())
    }

    /// The packages the file's imports reach, as a resolution of the same file found them
    /// while no file's imports or modules changed since (the writer keeps them for the files
    /// being edited): the first unique-name guess takes them, and records what the walk had
    /// read, instead of walking the imports again.
    pub(crate) fn knowing_reachable(self, known: Option<Reachable>) -> Resolver<'a> {
        *self.memo.known_reachable.borrow_mut() = known;
        self
    }

    /// The packages the file's imports reach and what finding them read, if this resolver
    /// needed them.
    pub(crate) fn reachable(&self) -> Option<Reachable> {
        self.memo.walked.borrow().clone()
    }

    fn with_recorder(graph: &'a Graph, file: &'a FileNode, recorder: Rc<Recorder>) -> Resolver<'a> {
        Resolver {
            graph,
            file,
            summary: &file.summary,
            spec: file.language.spec(),
            semantics: semantics::of(file.language),
            family: family(file.language),
            declared: Declared::new(file),
            memo: Memos::new(file.summary.imports.len()),
            recorder,
            at: std::cell::Cell::new(0),
            without_bases: false,
        }
    }

    /// The files import `position` names.
    fn import_files(&self, position: usize) -> Rc<Vec<FilePath>> {
        if let Some(files) = &self.memo.import_files.borrow()[position] {
            return files.clone();
        }
        let files = Rc::new(self.files_of_import(&self.summary.imports[position]));
        self.memo.import_files.borrow_mut()[position] = Some(files.clone());
        files
    }

    fn id(&self, index: u32) -> EntityId {
        self.file.ids[index as usize]
    }

    fn scope_id(&self, scope: Option<u32>) -> EntityId {
        match scope {
            Some(index) => self.id(index),
            None => self.file.module_id,
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
        self.recorder.name(name);
        self.graph
            .named(name)
            .iter()
            .filter(|entry| family(entry.language) == self.family && filter.admits(entry.kind))
            .collect()
    }

    fn decide(candidates: Vec<EntityId>, resolution: Resolution, graph: &Graph) -> Found {
        if candidates.is_empty() {
            return Found::Nothing;
        }
        let first_file = graph.entities.get(&candidates[0]).map(|loc| loc.file);
        let one_file = candidates
            .iter()
            .all(|id| graph.entities.get(id).map(|loc| loc.file) == first_file);
        if one_file {
            Found::Targets(candidates, resolution)
        } else {
            Found::Ambiguous(candidates)
        }
    }

    /// [`Resolver::decide`] after the build rules: candidates of the chosen build win over
    /// their variants (Go's files, Rust's `#[cfg]` items, C and C++ platform files), and
    /// `_test.go` definitions are visible to test files only.
    fn decide_here(&self, candidates: Vec<EntityId>, resolution: Resolution) -> Found {
        Resolver::decide(self.within_build(candidates), resolution, self.graph)
    }

    fn within_build(&self, candidates: Vec<EntityId>) -> Vec<EntityId> {
        if candidates.len() < 2 {
            return candidates;
        }
        self.semantics
            .within_build(self.graph, self.file, candidates)
    }

    // ----- imports -----

    fn files_of_import(&self, import: &Import) -> Vec<FilePath> {
        files_of_import(
            self.graph,
            &self.file.path,
            self.summary,
            self.family,
            import,
            &self.recorder,
        )
    }

    /// The files another file's import names, cached for this resolver's lifetime (re-export
    /// chains visit the same files again and again).
    pub(super) fn foreign_import_files(
        &self,
        target: &FileNode,
        position: usize,
    ) -> Rc<Vec<FilePath>> {
        let key = (target.path, position);
        if let Some(files) = self.memo.foreign_imports.borrow().get(&key) {
            return files.clone();
        }
        let files = Rc::new(files_of_import(
            self.graph,
            &target.path,
            &target.summary,
            self.family,
            &target.summary.imports[position],
            &self.recorder,
        ));
        self.memo
            .foreign_imports
            .borrow_mut()
            .insert(key, files.clone());
        files
    }

    /// The package an import names, for package-based languages: `(package, name)`.
    fn package_import(&self, import: &Import) -> (Name, Option<Name>) {
        let package = normalize_package(&import.path);
        if import.name.is_some() || import.wildcard {
            return (package, import.name);
        }
        match package.rsplit_once('.') {
            Some((head, last)) => (Name::new(head), Some(Name::new(last))),
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
        let key = (files.to_vec(), filter, depth);
        if let Some(found) = self
            .memo
            .exported_memo
            .borrow()
            .get(&key)
            .and_then(|by_name| by_name.get(name))
        {
            return found.clone();
        }
        let cuts = codegraph_model::walk::cuts();
        let found = self.exported_by_files_uncached(files, name, filter, depth);
        // A walk cut short is not the answer to ask again (`walk::cuts`).
        if codegraph_model::walk::cuts() == cuts {
            self.memo
                .exported_memo
                .borrow_mut()
                .entry(key)
                .or_default()
                .insert(Name::new(name), found.clone());
        }
        found
    }

    fn exported_by_files_uncached(
        &self,
        files: &[FilePath],
        name: &str,
        filter: KindFilter,
        depth: u32,
    ) -> Vec<EntityId> {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        let mut found: Vec<EntityId> = self
            .named(name, filter)
            .into_iter()
            .filter(|entry| entry.exported && files.contains(&entry.file))
            .map(|entry| entry.id)
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
                        let original = import.name.unwrap_or_else(|| Name::new(name));
                        // A local alias (`export default origin`, `export const plus = add`)
                        // names a definition or import of the same file.
                        let next_files = if import.path.is_empty() {
                            Rc::new(vec![target.path])
                        } else {
                            self.foreign_import_files(target, position)
                        };
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
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        let import = &self.summary.imports[position];
        match self.semantics.import_form() {
            ImportForm::Packages => return self.imported_from_package(import, name, filter),
            ImportForm::WholeModule => return self.imported_from_module(import, name, filter),
            _ => {}
        }
        let files = &*self.import_files(position);
        let original = import.name.as_deref().unwrap_or(name);
        if files.is_empty() {
            return Vec::new();
        }
        if import.name.is_none() && !import.wildcard {
            // `const Widget = require('./widget')` called or constructed: what the module
            // exports as a whole (`module.exports = Widget`).
            if self.semantics.exports_whole_module() {
                let exported = self.exported_by_files(files, "default", filter, 0);
                if !exported.is_empty() {
                    return exported;
                }
            }
            // The module itself (`import x` used as `x`).
            return files
                .iter()
                .filter_map(|path| self.graph.files.get(path))
                .map(|file| file.module_id)
                .collect();
        }
        let mut found = self.exported_by_files(files, original, filter, 0);
        if found.is_empty()
            && original == "default"
            && let Some(alias) = &import.alias
        {
            // A default export the module does not name: it usually bears the importer's name.
            found = self.exported_by_files(files, alias, filter, 0);
        }
        if found.is_empty() && import.name.is_some() {
            // `from package import submodule`.
            let mut sub = import.clone();
            sub.path = self.semantics.submodule_path(&import.path, original);
            found = self
                .files_of_import(&sub)
                .iter()
                .filter_map(|path| self.graph.files.get(path))
                .map(|file| file.module_id)
                .collect();
        }
        found
    }

    /// What an import of a declared package names (`import a.b.Type`, `import a.b.*` with
    /// `name`), or a static import of a member (`import static a.b.Type.member`).
    fn imported_from_package(
        &self,
        import: &Import,
        name: &str,
        filter: KindFilter,
    ) -> Vec<EntityId> {
        let (package, imported) = self.package_import(import);
        let wanted = imported.as_deref().unwrap_or(name);
        let found: Vec<EntityId> = self
            .named(wanted, filter)
            .into_iter()
            .filter(|entry| entry.top_level && entry.package.as_ref() == Some(&package))
            .map(|entry| entry.id)
            .collect();
        if !found.is_empty() {
            return found;
        }
        // A static import of a member: `import static a.b.Type.member` / `using static`.
        let Some((type_package, type_name)) = package.rsplit_once('.') else {
            return Vec::new();
        };
        let mut members = Vec::new();
        for entry in self.named(type_name, KindFilter::Type) {
            if entry.top_level && entry.package.as_deref() == Some(type_package) {
                members.extend(self.member_lookup(&entry.id, wanted, filter, false));
            }
        }
        members
    }

    /// `import Util` in Swift: the definitions of that module's directory.
    fn imported_from_module(
        &self,
        import: &Import,
        name: &str,
        filter: KindFilter,
    ) -> Vec<EntityId> {
        let module = import.path.as_str();
        self.named(import.name.as_deref().unwrap_or(name), filter)
            .into_iter()
            .filter(|entry| {
                entry.top_level
                    && super::modules::swift_module(&entry.file).rsplit('/').next() == Some(module)
            })
            .map(|entry| entry.id)
            .collect()
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
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        if self.without_bases {
            return Vec::new();
        }
        self.graph
            .bases
            .get(type_id)
            .map(|bases| bases.iter().map(|(base, _, _)| *base).collect())
            .unwrap_or_default()
    }

    /// Members named `name` of a type, nearest first along its bases. Remembered for the
    /// resolver's lifetime: a file asks for the same members again and again (every
    /// `self.field.method()` of a type, every step of a builder chain).
    fn member_lookup(
        &self,
        type_id: &EntityId,
        name: &str,
        filter: KindFilter,
        with_bases: bool,
    ) -> Vec<EntityId> {
        let key = (*type_id, filter, with_bases);
        if let Some(found) = self
            .memo
            .members_memo
            .borrow()
            .get(&key)
            .and_then(|by_name| by_name.get(name))
        {
            return found.clone();
        }
        let cuts = codegraph_model::walk::cuts();
        let found = self.member_lookup_uncached(type_id, name, filter, with_bases);
        if codegraph_model::walk::cuts() == cuts {
            self.memo
                .members_memo
                .borrow_mut()
                .entry(key)
                .or_default()
                .insert(Name::new(name), found.clone());
        }
        found
    }

    fn member_lookup_uncached(
        &self,
        type_id: &EntityId,
        name: &str,
        filter: KindFilter,
        with_bases: bool,
    ) -> Vec<EntityId> {
        let Some(_step) =
            codegraph_model::walk::enter_keyed(("members", type_id, name, filter, with_bases))
        else {
            return Vec::new();
        };
        let mut visited: FxHashSet<EntityId> = FxHashSet::default();
        let mut level = vec![*type_id];
        for _ in 0..10 {
            let mut found = Vec::new();
            let mut next = Vec::new();
            for current in level {
                if !visited.insert(current) {
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
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        let Some((type_file, Some(type_index))) = self.def_of(type_id) else {
            return Vec::new();
        };
        let type_name = &type_file.summary.defs[type_index as usize].name;
        let type_package = package_key(&type_file.path, &type_file.summary);
        self.named(name, filter)
            .into_iter()
            .filter(|entry| {
                // (An object literal's function in the type's body is the object's.)
                if entry.file == type_file.path
                    && entry.parent == Some(type_index)
                    && entry.owner.is_none()
                {
                    return true;
                }
                // Defined outside the type's body: `impl Type`, `func (t *Type)`, `Type::m`
                // (at the top level, or in a C++ namespace).
                if entry.owner.as_ref() != Some(type_name) {
                    return false;
                }
                let Some(member_file) = self.graph.files.get(&entry.file) else {
                    return false;
                };
                if entry.parent.is_some_and(|parent| {
                    member_file.summary.defs[parent as usize].kind != EntityKind::Module
                }) {
                    return false;
                }
                if entry.file == type_file.path {
                    return true;
                }
                if type_package.is_some() {
                    return entry.package == type_package;
                }
                // No package says: the owner's name must mean this type where the member is
                // (`impl DFA` in one module never attaches to a `DFA` elsewhere).
                self.resolver_for(member_file)
                    .resolve_owner(type_name, entry.parent)
                    .as_ref()
                    == Some(type_id)
            })
            .map(|entry| entry.id)
            .collect()
    }

    /// Whether `def` is written directly in a namespace (a C++ `namespace x { }` block).
    fn in_namespace(&self, def: &codegraph_index::Def) -> bool {
        def.parent
            .is_some_and(|parent| self.summary.defs[parent as usize].kind == EntityKind::Module)
    }

    fn enclosing_type(&self, scope: Option<u32>) -> Option<EntityId> {
        let mut current = scope;
        while let Some(index) = current {
            let def = &self.summary.defs[index as usize];
            if def.kind.is_type() {
                return Some(self.id(index));
            }
            // An out-of-line member's type; an object literal's function is the object's
            // (`this` is not the class around the object), unless it is an arrow function.
            if let Some(owner) = &def.owner
                && !def.arrow
            {
                return self.resolve_owner(owner, def.parent);
            }
            current = def.parent;
        }
        None
    }

    /// The type an out-of-line definition belongs to, its owner's name read where the
    /// definition is written (`scope`: a C++ namespace around `void Status::Foo() {}`, or the
    /// top level).
    fn resolve_owner(&self, owner: &str, scope: Option<u32>) -> Option<EntityId> {
        let _step = codegraph_model::walk::enter()?;
        let key = (scope, Name::new(owner));
        if let Some(known) = self.memo.owners.borrow().get(&key) {
            return *known;
        }
        let cuts = codegraph_model::walk::cuts();
        let found = match self.resolve_name(owner, scope, KindFilter::Type) {
            Found::Targets(ids, _) => ids.into_iter().next(),
            _ => None,
        };
        if codegraph_model::walk::cuts() == cuts {
            self.memo.owners.borrow_mut().insert(key, found);
        }
        found
    }

    // ----- names -----

    /// Resolves a bare name as seen from `scope`.
    fn resolve_name(&self, name: &str, scope: Option<u32>, filter: KindFilter) -> Found {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Found::Nothing;
        };
        self.recorder.name(name);
        self.in_enclosing_scopes(name, scope, filter)
            .or_else(|| self.at_top_level(name, filter))
            .or_else(|| self.through_imports(name, scope, filter))
            .or_else(|| self.in_package(name, filter))
            .unwrap_or_else(|| self.by_unique_name(name, filter))
    }

    /// Step 1: the enclosing scopes, innermost first. `Some(Nothing)` when a parameter or local
    /// shadows the name.
    fn in_enclosing_scopes(
        &self,
        name: &str,
        scope: Option<u32>,
        filter: KindFilter,
    ) -> Option<Found> {
        let mut current = scope;
        while let Some(index) = current {
            // Members of an enclosing type are not lexical names inside its methods, unless the
            // language says so (Java's implicit `this`); the type's own body sees them.
            let hidden_members = !self.spec.implicit_members
                && current != scope
                && self.summary.defs[index as usize].kind.is_type();
            if !hidden_members
                && let Some(children) = self.declared.children.get(&(Some(index), name))
            {
                let ids: Vec<EntityId> = children
                    .iter()
                    .filter(|child| filter.admits(self.summary.defs[**child as usize].kind))
                    .map(|child| self.id(*child))
                    .collect();
                if !ids.is_empty() {
                    return Some(Found::Targets(ids, Resolution::Scope));
                }
            }
            let def = &self.summary.defs[index as usize];
            // A parameter or local of a function shadows outer definitions of its name, as a
            // value (`struct user *user` still names the type `user`).
            if filter.admits(EntityKind::Function)
                && matches!(def.kind, EntityKind::Function | EntityKind::Method)
                && self
                    .declared
                    .bindings
                    .get(&(Some(index), name))
                    .is_some_and(|binding| binding.kind != codegraph_index::BindingKind::Bound)
            {
                return Some(Found::Nothing);
            }
            if self.spec.implicit_members
                && let Some(found) = self.implicit_member(index, name, filter)
            {
                return Some(found);
            }
            current = def.parent;
        }
        None
    }

    /// A member of the type around scope `index` named without `this` (Java, C#, C++, ...).
    fn implicit_member(&self, index: u32, name: &str, filter: KindFilter) -> Option<Found> {
        let def = &self.summary.defs[index as usize];
        let type_id = if def.kind.is_type() {
            Some(self.id(index))
        } else if def.parent.is_none() || self.in_namespace(def) {
            def.owner
                .as_deref()
                .and_then(|owner| self.resolve_owner(owner, def.parent))
        } else {
            None
        }?;
        let members = self.member_lookup(&type_id, name, filter, true);
        (!members.is_empty()).then(|| self.decide_here(members, Resolution::Scope))
    }

    /// Step 2: the top level of the file.
    fn at_top_level(&self, name: &str, filter: KindFilter) -> Option<Found> {
        let ids: Vec<EntityId> = self
            .declared
            .children
            .get(&(None, name))?
            .iter()
            .filter(|index| filter.admits(self.summary.defs[**index as usize].kind))
            .map(|index| self.id(*index))
            .collect();
        (!ids.is_empty()).then_some(Found::Targets(ids, Resolution::SameFile))
    }

    /// Step 3: explicit imports, then wildcard imports (and what a plain `require` or an
    /// `#include` makes visible).
    fn through_imports(&self, name: &str, scope: Option<u32>, filter: KindFilter) -> Option<Found> {
        for (position, import) in self.summary.imports.iter().enumerate() {
            if import.wildcard || !self.import_visible(import, scope) {
                continue;
            }
            if self.declared.import_bindings[position].as_deref() == Some(name) {
                let found = self.resolve_imported(position, name, filter);
                if !found.is_empty() {
                    return Some(self.decide_here(found, Resolution::Import));
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
            } else if self.semantics.import_form() == ImportForm::Requires
                && import.alias.is_none()
                && import.name.is_none()
            {
                // `source lib.sh`, `require 'lib'`: everything the file defines becomes visible.
                let files = self.import_files(position);
                wildcard.extend(self.exported_by_files(&files, name, filter, 0));
            }
        }
        if self.semantics.import_form() == ImportForm::Includes {
            // Everything an included header declares, and the sources that implement it.
            for position in 0..self.summary.imports.len() {
                let files = self.included_with_sources(position);
                wildcard.extend(self.exported_by_files(&files, name, filter, 3));
            }
        }
        if wildcard.is_empty() {
            return None;
        }
        wildcard.sort();
        wildcard.dedup();
        Some(self.decide_here(wildcard, Resolution::Import))
    }

    /// Step 4: the same package, namespace or directory.
    fn in_package(&self, name: &str, filter: KindFilter) -> Option<Found> {
        let package = self.declared.package.as_ref()?;
        let ids: Vec<EntityId> = self
            .named(name, filter)
            .into_iter()
            .filter(|entry| {
                entry.top_level && entry.owner.is_none() && entry.package.as_ref() == Some(package)
            })
            .map(|entry| entry.id)
            .collect();
        (!ids.is_empty()).then(|| self.decide_here(ids, Resolution::SamePackage))
    }

    /// Step 5: a name defined once in the workspace, where the language has global names.
    fn by_unique_name(&self, name: &str, filter: KindFilter) -> Found {
        if self.spec.unique_name_fallback != UniqueNameFallback::Always
            || self.spec.builtin_functions.contains(&name)
        {
            return Found::Nothing;
        }
        let ids: Vec<EntityId> = self
            .named(name, filter)
            .into_iter()
            .map(|entry| entry.id)
            .collect();
        match ids.len() {
            0 => Found::Nothing,
            1 => Found::Targets(ids, Resolution::UniqueName),
            _ => self.decide_here(ids, Resolution::UniqueName),
        }
    }

    fn included_with_sources(&self, position: usize) -> Rc<Vec<FilePath>> {
        if let Some(files) = &self.memo.included_files.borrow()[position] {
            return files.clone();
        }
        let files = Rc::new(self.find_included_with_sources(position));
        self.memo.included_files.borrow_mut()[position] = Some(files.clone());
        files
    }

    fn find_included_with_sources(&self, position: usize) -> Vec<FilePath> {
        let mut files = self.import_files(position).to_vec();
        for header in self.import_files(position).iter().cloned() {
            let stem = match header.rfind('.') {
                Some(dot) => &header[..dot],
                None => &header,
            };
            for (path, _) in self
                .graph
                .files
                .range((std::ops::Bound::Included(stem), std::ops::Bound::Unbounded))
            {
                if !path.starts_with(stem) {
                    break;
                }
                if path.len() > stem.len()
                    && path.as_bytes()[stem.len()] == b'.'
                    && !path[stem.len() + 1..].contains(['.', '/'])
                {
                    files.push(*path);
                }
            }
        }
        files.sort();
        files.dedup();
        files
    }

    /// A receiver that names a module through an import or alias.
    pub(super) fn receiver_module_files(
        &self,
        receiver: &str,
        scope: Option<u32>,
    ) -> Option<Vec<FilePath>> {
        let _step = codegraph_model::walk::enter()?;
        for (position, import) in self.summary.imports.iter().enumerate() {
            if !self.import_visible(import, scope) {
                continue;
            }
            let binding = self.declared.import_bindings[position];
            if binding.as_deref() == Some(receiver) {
                if self.semantics.import_form() == ImportForm::Packages {
                    continue;
                }
                let files = if import.name.is_some() {
                    // `from pkg import module` / `use crate::auth::service`.
                    let targets =
                        self.resolve_imported(position, receiver, KindFilter::ModuleMember);
                    let modules: Vec<FilePath> = targets
                        .iter()
                        .filter_map(|id| self.graph.entities.get(id))
                        .filter(|loc| loc.index.is_none())
                        .map(|loc| loc.file)
                        .collect();
                    if modules.is_empty() {
                        continue;
                    }
                    modules
                } else {
                    self.import_files(position).to_vec()
                };
                return Some(files);
            }
        }
        // Python's `import pkg.sub` binds `pkg` too: `pkg.f()` is the package's own `f`.
        let python_head = self.semantics.import_binds_package_head()
            && self.summary.imports.iter().any(|import| {
                import.name.is_none()
                    && import.alias.is_none()
                    && import.path.split('.').next() == Some(receiver)
                    && import.path.contains('.')
                    && self.import_visible(import, scope)
            });
        // A Rust path receiver (`crate::auth::service`) names a module itself.
        let rust_path = self.semantics.paths_name_items() && receiver.contains("::");
        if python_head || rust_path {
            let module = Import {
                path: Name::new(receiver),
                name: None,
                alias: None,
                wildcard: false,
                span: Span::default(),
                scope: None,
            };
            let files = self.files_of_import(&module);
            if !files.is_empty() {
                return Some(files);
            }
        }
        None
    }

    /// A call of `name` on `receiver` (a value, or a path when `path` is set). `depth` bounds
    /// the inference of receivers that are themselves calls.
    fn resolve_call(
        &self,
        name: &str,
        receiver: Option<&str>,
        scope: Option<u32>,
        path: bool,
        depth: u32,
    ) -> Found {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Found::Nothing;
        };
        let Some(receiver) = receiver else {
            return self.resolve_name(name, scope, KindFilter::Callable);
        };
        if self.spec.super_receivers.contains(&receiver) {
            return self.super_call(name, scope);
        }
        if self.semantics.primitive_methods()
            && let Some(primitive) = self.primitive_receiver(receiver, scope, path)
        {
            return self.primitive_call(primitive, name, scope);
        }
        let value = if path {
            self.path_value(receiver, scope)
        } else if depth == 0 && self.declared.regional.is_empty() {
            self.memoised_receiver_value(receiver, scope)
        } else {
            self.value_of(receiver, scope, depth)
        };
        let collection = matches!(value, Value::Elements(_));
        if let Some(found) = self.call_on_value(value, receiver, name, scope) {
            return found;
        }
        if let Some(found) = self.owned_call(receiver, name, scope) {
            return found;
        }
        // A namespace or module named by the receiver: `util::f()`, `Util::Format.f`.
        let qualified = self.qualified_members(receiver, name);
        if !qualified.is_empty() {
            return self.decide_here(qualified, Resolution::Qualified);
        }
        // A path receiver (`module::f`, `Type::f`) names what it names; it is never a guess.
        if self.semantics.paths_name_items() && path {
            return Found::Nothing;
        }
        // `this.engine(...)` where the type's code assigns `this.engine = ...`: a call of the
        // value the field holds, which no method's name says.
        if self.assigned_this_field(receiver, name, scope) {
            return Found::Nothing;
        }
        self.guess_method(name, collection)
    }

    /// `super.m()`, `super().m()`: the member of the enclosing type's bases.
    fn super_call(&self, name: &str, scope: Option<u32>) -> Found {
        let Some(type_id) = self.enclosing_type(scope) else {
            return Found::Nothing;
        };
        let mut members = Vec::new();
        for base in self.bases(&type_id) {
            members.extend(self.member_lookup(&base, name, KindFilter::Callable, true));
        }
        members.sort();
        members.dedup();
        self.decide_members(members)
    }

    /// A receiver's value in `scope`, inferred once per resolver: a later reference through the
    /// same receiver takes it, and depends on the names its inference guessed.
    fn memoised_receiver_value(&self, receiver: &str, scope: Option<u32>) -> Value {
        let known = self
            .memo
            .values
            .borrow()
            .get(&scope)
            .and_then(|by_receiver| by_receiver.get(receiver))
            .cloned();
        if let Some((value, guesses)) = known {
            self.recorder.in_frame(&guesses);
            return value;
        }
        let outer = self.recorder.swap_frame(Vec::new());
        let cuts = codegraph_model::walk::cuts();
        let value = self.receiver_value(receiver, scope);
        let guesses: Rc<[Name]> = self.recorder.swap_frame(outer).into();
        self.recorder.in_frame(&guesses);
        // A value a walk's limit cut short is not memoised: another path may find it whole.
        if codegraph_model::walk::cuts() == cuts {
            self.memo
                .values
                .borrow_mut()
                .entry(scope)
                .or_default()
                .insert(Name::new(receiver), (value.clone(), guesses));
        }
        value
    }

    /// `receiver.name(...)` where the receiver's value is known: `None` when the value does not
    /// decide it and the later steps apply.
    fn call_on_value(
        &self,
        value: Value,
        receiver: &str,
        name: &str,
        scope: Option<u32>,
    ) -> Option<Found> {
        match value {
            Value::Instance(types) | Value::Static(types) => {
                self.call_on_types(&types, receiver, name, scope)
            }
            Value::Module(files) => {
                let mut found = self.exported_by_files(&files, name, KindFilter::Callable, 0);
                if found.is_empty() {
                    found = self.default_object_members(&files, name);
                }
                Some(self.decide_here(found, Resolution::Import))
            }
            // An external value's methods are not the workspace's, unless the object is this
            // file's own (`const traps: ProxyHandler<T> = {...}`).
            Value::External => Some(
                self.owned_call(receiver, name, scope)
                    .unwrap_or(Found::Nothing),
            ),
            // A collection's own methods (`len`, `iter`, `push`) are the standard library's;
            // another may come from a workspace trait (`Itertools`): the later steps decide.
            Value::Elements(_) if rust::is_collection_method(name) => Some(Found::Nothing),
            Value::Elements(_) | Value::Unknown => None,
        }
    }

    /// `receiver.name(...)` on an instance of (or the type itself of) one of `types`.
    fn call_on_types(
        &self,
        types: &[EntityId],
        receiver: &str,
        name: &str,
        scope: Option<u32>,
    ) -> Option<Found> {
        let mut members = Vec::new();
        for type_id in types {
            members.extend(self.member_lookup(type_id, name, KindFilter::Callable, true));
        }
        members.sort();
        members.dedup();
        // A typed object of this file or imported by name whose type declares the member as a
        // property of function type (rxjs's `intervalProvider: IntervalProvider = {
        // clearInterval(handle) {...} }`): the object's own function.
        if members.is_empty()
            && self.semantics.object_members()
            && let Some(found) = self.owned_call(receiver, name, scope)
        {
            return Some(found);
        }
        // A known type without that member: a method of an external base or trait. In dynamic
        // languages (descriptors, `__getattr__`, members assigned at run time) the type may not
        // tell: the later steps still apply.
        if members.is_empty() && self.dynamic() {
            return None;
        }
        // A TypeScript union's alternatives (`source: IObservableValue | IComputedValue`): the
        // call is a call of each one's member.
        let each = types.len() > 1 && self.semantics.union_types();
        Some(self.decide_members_of(members, each))
    }

    /// A method called on a receiver of unknown type: the one method of that name the
    /// workspace defines, where the language allows the guess (on a collection, never a
    /// workspace type's inherent method).
    fn guess_method(&self, name: &str, collection: bool) -> Found {
        if self.spec.unique_name_fallback == UniqueNameFallback::Never
            || self.spec.is_builtin_method(name)
            || self.semantics.never_guessed(name)
        {
            return Found::Nothing;
        }
        if self.spec.unique_name_fallback != UniqueNameFallback::Always {
            self.recorder.guessed(name);
        }
        let ids: Vec<EntityId> = self
            .named(name, KindFilter::Method)
            .into_iter()
            .filter(|entry| {
                self.spec.unique_name_fallback == UniqueNameFallback::Always
                    || self.visible_package(&entry.file)
            })
            .filter(|entry| !collection || !self.inherent_to_workspace_type(entry))
            .map(|entry| entry.id)
            .collect();
        let ids = self.within_build(ids);
        match ids.len() {
            0 => Found::Nothing,
            1 => Found::Targets(ids, Resolution::UniqueName),
            _ => Found::Ambiguous(ids),
        }
    }

    /// A method of a workspace struct, enum or class (and of no trait of that name): a standard
    /// collection (`self.defs.shrink_to_fit()` with `defs: Vec<Def>`) cannot have it, whatever
    /// its name. A trait's method (`Itertools`) or one implemented for a type the workspace
    /// does not define (`impl Ext for Vec<u32>`) can.
    fn inherent_to_workspace_type(&self, entry: &NameEntry) -> bool {
        let Some(owner) = entry.owner else {
            return false;
        };
        let owners = self.named(owner.as_str(), KindFilter::Type);
        !owners.is_empty()
            && owners
                .iter()
                .all(|owner| !matches!(owner.kind, EntityKind::Trait | EntityKind::Interface))
    }

    /// A call of a member that a table or object of this file owns by name (Lua's `local M =
    /// {}` with `function M.f`, JavaScript's `api.get = function`, an object literal's
    /// functions): `M.f()` in that file means it; `self:m()` in `function M:n()` where `M` is a
    /// plain table, and `this.m()` in an object literal's function, by the owner around.
    fn owned_call(&self, receiver: &str, name: &str, scope: Option<u32>) -> Option<Found> {
        let _step = codegraph_model::walk::enter()?;
        let owner_name = if self.spec.self_receivers.contains(&receiver) {
            let mut current = scope;
            let mut owner = None;
            while let Some(index) = current {
                let def = &self.summary.defs[index as usize];
                if def.owner.is_some() && !def.arrow {
                    owner = def.owner.as_deref();
                    break;
                }
                current = def.parent;
            }
            owner.unwrap_or(receiver)
        } else {
            receiver
        };
        if let Some(owned) = self.declared.owned.get(&(owner_name, name)) {
            let ids: Vec<EntityId> = owned
                .iter()
                .filter(|index| self.summary.defs[**index as usize].kind.is_callable())
                .map(|index| self.id(*index))
                .collect();
            if !ids.is_empty() {
                return Some(self.decide_here(ids, Resolution::SameFile));
            }
        }
        // An object of another file, imported by name (`import { provider } from`).
        let imported = self.imported_object_members(receiver, name, scope);
        if !imported.is_empty() {
            return Some(self.decide_here(imported, Resolution::Import));
        }
        // An object of a module imported as a whole (`import * as z`, then `z.coerce.f()`).
        let namespaced = self.namespace_object_members(receiver, name, scope);
        if !namespaced.is_empty() {
            return Some(self.decide_here(namespaced, Resolution::Import));
        }
        None
    }

    /// Whether a file lives in the caller's package (its directory; a Rust crate) or in a
    /// package the caller reaches through imports, directly or transitively (files reached
    /// within a few hops, their packages whole): where a guessed method may come from.
    fn visible_package(&self, candidate: &str) -> bool {
        let package = package_of(self.file.language, candidate);
        if package == package_of(self.file.language, &self.file.path) {
            return true;
        }
        // An integration test sees the library it tests.
        if self.semantics.tests_see_their_library()
            && package == super::modules::rust_crate_dir(&self.file.path)
        {
            return true;
        }
        self.walk_packages();
        self.memo
            .reachable_packages
            .borrow()
            .as_ref()
            .is_some_and(|packages| packages.contains(package))
    }

    /// The packages the file's imports reach, walked once per resolver (or as the writer
    /// already knew them), with what the walk read recorded.
    fn walk_packages(&self) {
        if self.memo.reachable_packages.borrow().is_none()
            && let Some(known) = self.memo.known_reachable.borrow_mut().take()
        {
            // As a walk would have found them, and recording what the walk read.
            for key in known.modules() {
                self.recorder.module(key);
            }
            *self.memo.reachable_packages.borrow_mut() = Some(known.packages.clone());
            *self.memo.walked.borrow_mut() = Some(known);
        }
        if self.memo.reachable_packages.borrow().is_none() {
            let known = walk_reachable(self.graph, self.file);
            for key in known.modules() {
                self.recorder.module(key);
            }
            *self.memo.reachable_packages.borrow_mut() = Some(known.packages.clone());
            *self.memo.walked.borrow_mut() = Some(known);
        }
    }

    /// A language whose objects may gain members at run time.
    fn dynamic(&self) -> bool {
        self.semantics.members_added_at_run_time()
    }

    /// Members found through a receiver's type: the declared member of an interface or trait
    /// is a dispatch; anything else a receiver-type edge.
    fn decide_members(&self, members: Vec<EntityId>) -> Found {
        self.decide_members_of(members, false)
    }

    /// [`Resolver::decide_members`]; with `each`, members of several files are all targets
    /// (the receiver is each of several types) rather than an ambiguity.
    fn decide_members_of(&self, members: Vec<EntityId>, each: bool) -> Found {
        if members.is_empty() {
            return Found::Nothing;
        }
        if self.semantics.members_chosen_by_argument() && self.chosen_by_argument(&members) {
            return Found::Ambiguous(members);
        }
        let dispatch = members.iter().all(|id| {
            self.def_of(id).is_some_and(|(file, index)| {
                index
                    .and_then(|index| file.summary.defs[index as usize].parent)
                    .is_some_and(|parent| {
                        matches!(
                            file.summary.defs[parent as usize].kind,
                            EntityKind::Interface | EntityKind::Trait
                        )
                    })
            })
        });
        let resolution = if dispatch {
            Resolution::Dispatch
        } else {
            Resolution::ReceiverType
        };
        if each {
            return Found::Targets(self.within_build(members), resolution);
        }
        self.decide_here(members, resolution)
    }

    /// Members named `name` of every namespace or module whose nested name ends with the
    /// receiver's path (namespaces are open: they may span files).
    fn qualified_members(&self, receiver: &str, name: &str) -> Vec<EntityId> {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
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
        for entry in self.named(last, KindFilter::Module) {
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
                    found.push(file.ids[child_index]);
                }
            }
        }
        found.sort();
        found
    }

    /// The module an unresolved call belongs to: the import its receiver (or its name) is
    /// bound by, or the runtime for a literal receiver (`", ".join(parts)`) or one naming one of
    /// its global objects that nothing in the workspace or the scope shadows
    /// (`property.__init__(self)`, `Object.keys(o)`).
    /// Such a call is outside the workspace, never one of its unresolved calls.
    fn module_of_receiver(
        &self,
        receiver: Option<&str>,
        name: &str,
        scope: Option<u32>,
    ) -> Option<Name> {
        let key = receiver
            .map(|receiver| receiver.split(['.', ':']).next().unwrap_or(receiver))
            .unwrap_or(name);
        if let Some(position) = self
            .declared
            .import_bindings
            .iter()
            .position(|binding| binding.as_deref() == Some(key))
        {
            return Some(self.summary.imports[position].path);
        }
        if self.semantics.literals_are_the_runtimes()
            && receiver.is_some_and(infer::literal_receiver)
        {
            return Some(Name::new(RUNTIME_MODULE));
        }
        let global = receiver.is_some()
            && self.semantics.runtime_globals().contains(&key)
            && self.binding_of(key, scope).is_none()
            && self.named(key, KindFilter::Any).is_empty();
        global.then(|| Name::new(RUNTIME_MODULE))
    }

    // ----- the two phases -----

    /// Phase one: the bases of every type this file defines or names (`impl Trait for Type`).
    pub(crate) fn resolve_bases(mut self) -> Vec<BaseEdge> {
        self.without_bases = true;
        let mut edges = Vec::new();
        for (position, inherit) in self.summary.inherits.iter().enumerate() {
            let child = match (inherit.child, &inherit.child_name) {
                (Some(index), _) => self.id(index),
                (None, Some(child_name)) => {
                    match self.resolve_name(child_name, None, KindFilter::Type) {
                        Found::Targets(ids, _) if ids.len() == 1 => ids[0],
                        _ => continue,
                    }
                }
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
                edges.push((child, base, kind, Site::base(position)));
            }
        }
        edges.sort();
        edges.dedup();
        edges
    }

    /// A possibly qualified type name (`models.Base`, `crate::a::Trait`, `\App\Base`).
    fn resolve_type_path(&self, path: &str, scope: Option<u32>) -> Vec<EntityId> {
        let Some(_step) = codegraph_model::walk::enter() else {
            return Vec::new();
        };
        let split = self
            .spec
            .path_separators
            .iter()
            .filter_map(|separator| path.rsplit_once(separator))
            .min_by_key(|(_, last)| last.len());
        match split {
            None => match self.resolve_name(path, scope, KindFilter::Base) {
                Found::Targets(ids, _) => ids,
                _ => Vec::new(),
            },
            Some((qualifier, last)) => {
                if let Some(files) = self.receiver_module_files(qualifier, scope) {
                    return self.exported_by_files(&files, last, KindFilter::Type, 0);
                }
                if self.semantics.paths_name_items() {
                    // A module named relative to this one (`dfa::DFA` after `mod dfa;`).
                    let files = self.files_of_import(&Import {
                        path: Name::new(qualifier),
                        name: None,
                        alias: None,
                        wildcard: false,
                        span: Span::default(),
                        scope: None,
                    });
                    if !files.is_empty() {
                        return self.exported_by_files(&files, last, KindFilter::Type, 0);
                    }
                }
                if self.semantics.import_form() == ImportForm::Packages {
                    let package = normalize_package(qualifier);
                    let found: Vec<EntityId> = self
                        .named(last, KindFilter::Type)
                        .into_iter()
                        .filter(|entry| entry.package.as_ref() == Some(&package))
                        .map(|entry| entry.id)
                        .collect();
                    if !found.is_empty() {
                        return found;
                    }
                }
                // Where a qualifier names a module, one that names nothing in the workspace is
                // another crate's, package's or library's: `aho_corasick::AhoCorasick` is not
                // this file's `AhoCorasick`.
                if self.semantics.import_form() == ImportForm::Modules {
                    return Vec::new();
                }
                match self.resolve_name(last, scope, KindFilter::Type) {
                    Found::Targets(ids, _) => ids,
                    _ => Vec::new(),
                }
            }
        }
    }

    /// Phase two: every edge whose reference is in this file, given the file's [`mentions`]
    /// when the caller has them (the writer does for the file being edited): they are computed
    /// otherwise.
    pub(crate) fn resolve_all_knowing(
        &self,
        bases: &[BaseEdge],
        mentioned: Option<&Mentions>,
    ) -> Resolved {
        let mut resolved = Resolved::default();
        let summary = self.summary;
        self.push_structure(&mut resolved.edges);
        for (child, base, kind, site) in bases {
            resolved.edges.push(Edge {
                from: *child,
                to: *base,
                kind: *kind,
                resolution: Resolution::Syntax,
                site: *site,
            });
        }
        resolved.edges.extend(self.object_literal_implements());
        for position in 0..summary.imports.len() {
            self.push_import_edges(position, &mut resolved.edges);
        }
        // Calls and type uses.
        for (position, reference) in summary.refs.iter().enumerate() {
            self.resolve_reference(position, reference, &mut resolved);
        }
        // What other files' walks read of this one, its lookups recorded.
        let mut targets: Vec<FilePath> = Vec::new();
        for position in 0..summary.imports.len() {
            push_targets(&mut targets, &self.import_files(position));
        }
        resolved.import_targets = targets.into();
        match mentioned {
            Some(mentioned) => self.record_extras_beyond(&mut resolved, mentioned),
            None => self.record_extras(&mut resolved),
        }
        resolved
    }

    /// Containment, and members defined outside their type (`Defines` from the type).
    fn push_structure(&self, edges: &mut Vec<Edge>) {
        for (index, def) in self.summary.defs.iter().enumerate() {
            let index = index as u32;
            edges.push(Edge {
                from: self.scope_id(def.parent),
                to: self.id(index),
                kind: RelationKind::Contains,
                resolution: Resolution::Syntax,
                site: Site::NONE,
            });
            if def.parent.is_some() {
                continue;
            }
            let Some(owner) = &def.owner else {
                continue;
            };
            let Found::Targets(types, resolution) =
                self.resolve_name(owner, None, KindFilter::Type)
            else {
                continue;
            };
            let resolution = if resolution == Resolution::SameFile {
                Resolution::Syntax
            } else {
                resolution
            };
            for type_id in types {
                edges.push(Edge {
                    from: type_id,
                    to: self.id(index),
                    kind: RelationKind::Defines,
                    resolution,
                    site: Site::definition(index as usize),
                });
            }
        }
    }

    /// The `Imports` edges of the import at `position`: to the imported definitions, or to the
    /// modules imported whole (or whose name is not found among their exports).
    fn push_import_edges(&self, position: usize, edges: &mut Vec<Edge>) {
        let import = &self.summary.imports[position];
        let modules = || -> Vec<EntityId> {
            self.import_files(position)
                .iter()
                .filter_map(|path| self.graph.files.get(path))
                .map(|file| file.module_id)
                .collect()
        };
        let targets: Vec<EntityId> = if self.semantics.import_form() == ImportForm::Packages {
            if import.wildcard {
                Vec::new()
            } else {
                self.resolve_imported(position, "", KindFilter::ModuleMember)
            }
        } else if let Some(name) = &import.name {
            let found = self.resolve_imported(position, name, KindFilter::ModuleMember);
            if found.is_empty() { modules() } else { found }
        } else {
            modules()
        };
        for target in targets {
            if target != self.file.module_id {
                edges.push(Edge {
                    from: self.file.module_id,
                    to: target,
                    kind: RelationKind::Imports,
                    resolution: Resolution::Import,
                    site: Site::import(position),
                });
            }
        }
    }

    /// One reference's edges, or its candidates when ambiguous, or its entry as an external
    /// call, appended to `resolved`.
    fn resolve_reference(
        &self,
        position: usize,
        reference: &codegraph_index::Ref,
        resolved: &mut Resolved,
    ) {
        let outside = self.recorder.swap_frame(Vec::new());
        self.resolve_reference_in_frame(position, reference, resolved);
        let guesses = self.recorder.swap_frame(outside);
        resolved
            .guessed_by
            .extend(guesses.into_iter().map(|name| (position as u32, name)));
    }

    fn resolve_reference_in_frame(
        &self,
        position: usize,
        reference: &codegraph_index::Ref,
        resolved: &mut Resolved,
    ) {
        self.at.set(reference.span.start_byte);
        let from = self.scope_id(reference.scope());
        // Every reference has a budget of its own (`walk`): a walk that ran out of depth or
        // steps proves nothing, and the reference is left aside as bounded.
        let (found, exhausted) =
            codegraph_model::walk::with_budget(codegraph_model::walk::BUDGET, || {
                self.find_reference(reference)
            });
        let found = if exhausted {
            resolved.bounded.push(position as u32);
            Found::Nothing
        } else {
            found
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
                        from,
                        to: target,
                        kind: relation,
                        resolution,
                        site: Site::reference(position),
                    });
                }
            }
            Found::Ambiguous(candidates) => resolved.ambiguous.push(AmbiguousRef {
                from,
                name: reference.name,
                site: reference.span,
                candidates,
            }),
            Found::Nothing => {
                if reference.kind == RefKind::Call {
                    resolved.external.push(ExternalRef {
                        reference: position as u32,
                        module: self.module_of_receiver(
                            reference.receiver.as_deref(),
                            &reference.name,
                            reference.scope(),
                        ),
                    });
                }
            }
        }
    }

    /// What one reference names: its targets, its candidates, or nothing.
    fn find_reference(&self, reference: &codegraph_index::Ref) -> Found {
        match reference.kind {
            RefKind::Call => self.resolve_call(
                &reference.name,
                reference.receiver.as_deref(),
                reference.scope(),
                reference.path,
                0,
            ),
            RefKind::Type => match reference.receiver.as_deref() {
                Some(qualifier) => {
                    let ids = self.resolve_type_path(
                        &format!("{qualifier}.{}", reference.name),
                        reference.scope(),
                    );
                    self.decide_here(ids, Resolution::Import)
                }
                None => self.resolve_name(&reference.name, reference.scope(), KindFilter::Type),
            },
        }
    }

    /// What resolution read beyond the names the file mentions itself (`Resolved::extra_names`).
    fn record_extras(&self, resolved: &mut Resolved) {
        let mentioned = mentions(&self.graph.aliases, &self.file.path, self.summary);
        self.record_extras_beyond(resolved, &mentioned);
    }

    /// The same, given the file's mentions (sorted, as `mentions` gives them).
    fn record_extras_beyond(&self, resolved: &mut Resolved, (names, modules): &Mentions) {
        resolved.extra_names = self
            .recorder
            .names
            .borrow()
            .iter()
            .filter(|name| names.binary_search(name).is_err())
            .cloned()
            .collect();
        resolved.extra_names.sort();
        resolved.extra_modules = self
            .recorder
            .modules
            .borrow()
            .iter()
            .filter(|key| modules.binary_search(key).is_err())
            .cloned()
            .collect();
        resolved.extra_modules.sort();
        resolved.guessed = self.recorder.guessed.borrow().iter().cloned().collect();
        resolved.guessed.sort();
        // Guesses outside any reference belong to the whole file.
        let outside = self.recorder.swap_frame(Vec::new());
        resolved
            .guessed_by
            .extend(outside.into_iter().map(|name| (u32::MAX, name)));
        resolved.guessed_by.sort();
        resolved.guessed_by.dedup();
        // The walk a file can walk again alone: its own, when no other file's walk was read
        // (a foreign resolver's guesses walk that file's imports).
        let mut walk_keys = resolved.extra_modules.iter().filter(|key| is_walk_key(key));
        resolved.reachable = match self.memo.walked.borrow().as_ref() {
            Some(own) if walk_keys.all(|key| own.modules().binary_search(key).is_ok()) => {
                own.fingerprint()
            }
            _ => 0,
        };
    }
}

/// The files an import names: the first of its keys that some file of the same family answers to.
fn files_of_import(
    graph: &Graph,
    path: &str,
    summary: &FileSummary,
    family_id: Family,
    import: &Import,
    recorder: &Recorder,
) -> Vec<FilePath> {
    for key in import_keys(&graph.aliases, path, summary, import) {
        if let Some(files) = path_module_files(graph, path, &key, family_id, recorder) {
            return files;
        }
        recorder.module(&key);
        if let Some(files) = graph.modules.get(&key) {
            let files: Vec<FilePath> = files
                .iter()
                .filter(|path| {
                    graph
                        .files
                        .get(*path)
                        .is_some_and(|file| family(file.language) == family_id)
                })
                .filter(|found| {
                    !semantics::of(summary.language).imports_from_source_roots()
                        || import.path.starts_with('.')
                        || python_key_from_source_root(graph, found, &key, recorder)
                })
                .cloned()
                .collect();
            // A Python module with a stub beside it (`filters.py` + `filters.pyi`): the code is
            // in the `.py`; the stub only declares it.
            let files: Vec<FilePath> = if files.iter().any(|file| file.ends_with(".py")) {
                files
                    .into_iter()
                    .filter(|file| {
                        !(file.ends_with(".pyi")
                            && graph.files.contains_key(&file[..file.len() - 1]))
                    })
                    .collect()
            } else {
                files
            };
            if !files.is_empty() {
                return files;
            }
        }
    }
    Vec::new()
}

/// The file a Rust module key names through a `#[path]` module of its crate (`crate::lexical`
/// in a test whose root says `#[path = "../src/lexical/mod.rs"] mod lexical;`, and the modules
/// below it): such a declaration wins over where the module's name would put its file.
fn path_module_files(
    graph: &Graph,
    importer: &str,
    key: &str,
    family_id: Family,
    recorder: &Recorder,
) -> Option<Vec<FilePath>> {
    let (crate_dir, module) = super::modules::split_crate_key(key)?;
    let package = super::modules::rust_mounts_package(importer, crate_dir);
    let mounts = super::modules::rust_mounts_key(package);
    recorder.module(&mounts);
    for declaring in graph.modules.get(&mounts)?.iter() {
        let Some(file) = graph.files.get(declaring) else {
            continue;
        };
        if family(file.language) != family_id {
            continue;
        }
        for path_module in &file.summary.path_modules {
            let Some(file_key) = super::modules::path_module_key(declaring, path_module, module)
            else {
                continue;
            };
            recorder.module(&file_key);
            if let Some(files) = graph.modules.get(&file_key) {
                return Some(files.to_vec());
            }
        }
    }
    None
}

/// Whether a Python file answers an absolute import `key` from a source root: the directory
/// above the key's first package is not itself a package (has no `__init__.py`). So `import
/// inspect` in `pkg/utils/inspect.py` (or next to it) is the standard library, not that file;
/// `import mypkg.a` finds `src/mypkg/a.py`.
fn python_key_from_source_root(graph: &Graph, found: &str, key: &str, recorder: &Recorder) -> bool {
    let without = found
        .strip_suffix(".py")
        .or_else(|| found.strip_suffix(".pyi"))
        .unwrap_or(found);
    let module = without.strip_suffix("/__init__").unwrap_or(without);
    let key_path = key.replace('.', "/");
    let Some(above) = module.strip_suffix(key_path.as_str()) else {
        return true;
    };
    let root = above.trim_end_matches('/');
    if root.is_empty() {
        return true;
    }
    // Adding or removing that `__init__.py` changes the answer: its package's key is a lookup.
    recorder.module(&Name::new(root.replace('/', ".")));
    !graph
        .files
        .contains_key(format!("{root}/__init__.py").as_str())
        && !graph
            .files
            .contains_key(format!("{root}/__init__.pyi").as_str())
}

/// A file's package for visibility: its Rust crate (an integration test, bench or example is
/// a crate of its own), else its directory.
fn package_of(language: codegraph_lang::Language, path: &str) -> &str {
    semantics::of(language).package_of(path)
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

/// The packages a file's imports reach within three hops (at most 400 files), following each
/// file's import targets as its last resolution found them, and `walk_key` of every file whose
/// targets it read (with `keys`; without, an old walk compared with a new one, none).
pub(crate) fn walk_reachable(graph: &Graph, start: &FileNode) -> Reachable {
    walk_reachable_in(start, |path| {
        graph
            .files
            .get(path)
            .map(|file| &*file.resolved.import_targets)
    })
}

/// Each file's import targets ([`Resolved::import_targets`]) by the address of its interned
/// path: what a walk reads, looked up without comparing paths (a writer walking many files
/// again builds it once, or keeps it from its last transaction, [`walk_reachable_in`]).
pub(crate) fn import_targets_by_address(graph: &Graph) -> crate::build::TargetsByAddress {
    let mut targets = FxHashMap::with_capacity_and_hasher(graph.files.len(), Default::default());
    for (path, file) in graph.files.iter() {
        targets.insert(path.addr(), file.resolved.import_targets.clone());
    }
    targets
}

/// [`walk_reachable`], reading each file's import targets through `targets_of` (`None` for a
/// file not in the graph).
pub(crate) fn walk_reachable_in<'g>(
    start: &FileNode,
    targets_of: impl Fn(&FilePath) -> Option<&'g [FilePath]>,
) -> Reachable {
    // Sized for a walk that reaches its bound: growing the sets cost more than filling them.
    let mut packages: FxHashSet<&'static str> =
        FxHashSet::with_capacity_and_hasher(64, Default::default());
    let mut visited: Vec<FilePath> = Vec::new();
    // By address: each path is interned once.
    let mut seen: FxHashSet<usize> =
        FxHashSet::with_capacity_and_hasher(WALK_BOUND, Default::default());
    let mut frontier: Vec<FilePath> = vec![start.path];
    seen.insert(start.path.addr());
    for hop in 0..3 {
        let mut next = Vec::new();
        for path in frontier {
            let Some(targets) = targets_of(&path) else {
                continue;
            };
            // Its own targets change only with what re-resolves the file itself.
            if hop > 0 {
                visited.push(path);
            }
            for found in targets {
                if seen.len() < WALK_BOUND && seen.insert(found.addr()) {
                    packages.insert(package_of(start.language, found.as_str()));
                    next.push(*found);
                }
            }
        }
        frontier = next;
    }
    Reachable {
        packages,
        visited,
        modules: std::sync::OnceLock::new(),
        fingerprint: std::sync::OnceLock::new(),
    }
}

/// The files a file's imports name, in import order, each once ([`Resolved::import_targets`]),
/// found on `graph` as its resolution would find them (what that reads is recorded there).
pub(crate) fn import_targets(graph: &Graph, file: &FileNode) -> std::sync::Arc<[FilePath]> {
    let family = family(file.language);
    let reads = Recorder::default();
    let mut targets: Vec<FilePath> = Vec::new();
    for import in &file.summary.imports {
        let files = files_of_import(graph, &file.path, &file.summary, family, import, &reads);
        push_targets(&mut targets, &files);
    }
    targets.into()
}

/// The methods defined in the files of these packages (as `package_of` names a file's package
/// for a file of that language): every candidate of a unique-name guess whose visibility a
/// change of these packages' reachability can flip is named by one of them.
pub(crate) fn names_in_packages(
    graph: &Graph,
    packages: &FxHashSet<(codegraph_lang::Language, String)>,
) -> FxHashSet<Name> {
    let mut languages: Vec<codegraph_lang::Language> =
        packages.iter().map(|(language, _)| *language).collect();
    languages.sort_by_key(|language| language.name());
    languages.dedup();
    // A package is a prefix of its files' paths, and the files are ordered by path: only the
    // files under some package's prefix are read (a prefix under another is read with it).
    let mut prefixes: Vec<&str> = packages
        .iter()
        .map(|(_, package)| package.as_str())
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup_by(|later, earlier| later.starts_with(*earlier));
    let mut names = FxHashSet::default();
    let mut key = (codegraph_lang::Language::Python, String::new());
    let under = prefixes.iter().flat_map(|prefix| {
        graph
            .files
            .range((
                std::ops::Bound::Included(*prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(path, _)| path.starts_with(prefix))
            .map(|(_, file)| file)
    });
    for file in under {
        let inside = languages.iter().any(|language| {
            key.0 = *language;
            key.1.clear();
            key.1.push_str(package_of(*language, &file.path));
            packages.contains(&key)
        });
        if inside {
            // A guess's candidates are methods (`resolve_call`'s unique-name fallback).
            names.extend(
                file.summary
                    .defs
                    .iter()
                    .filter(|def| KindFilter::Method.admits(def.kind))
                    .map(|def| def.name),
            );
        }
    }
    names
}

fn push_targets(targets: &mut Vec<FilePath>, files: &[FilePath]) {
    for found in files {
        if !targets.contains(found) {
            targets.push(*found);
        }
    }
}

impl Reachable {
    /// The packages one walk reaches and the other does not.
    pub(crate) fn changed_packages(&self, other: &Reachable) -> Vec<&'static str> {
        self.packages
            .symmetric_difference(&other.packages)
            .copied()
            .collect()
    }

    /// `walk_key` of every file whose import targets the walk read, sorted.
    pub(crate) fn modules(&self) -> &[Name] {
        self.modules.get_or_init(|| {
            let mut modules: Vec<Name> = self.visited.iter().map(walk_key).collect();
            modules.sort();
            modules.dedup();
            modules
        })
    }

    /// Whether two walks read the import targets of the same files, in the same order (a walk
    /// of the same targets visits them in the same order).
    pub(crate) fn same_files(&self, other: &Reachable) -> bool {
        self.visited == other.visited
    }

    /// A fingerprint of the packages (`Resolved::reachable`): equal sets, equal fingerprints.
    /// The sum of each package's mixed hash, so that no order is needed (sorting the packages'
    /// paths, which share long prefixes, cost more than the walk).
    pub(crate) fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| {
            let sum = self.packages.iter().fold(0u64, |sum, package| {
                sum.wrapping_add(mix(std::hash::BuildHasher::hash_one(
                    &rustc_hash::FxBuildHasher,
                    package,
                )))
            });
            // 0 stands for "no walk".
            sum.max(1)
        })
    }
}

/// How many files a walk reaches at most ([`walk_reachable_in`]).
/// The module an unresolved call of the runtime's global objects is attributed to.
const RUNTIME_MODULE: &str = "<runtime>";

const WALK_BOUND: usize = 400;

/// A 64-bit finaliser (splitmix64's): every bit of the input moves about half the output's,
/// so that sums of mixed hashes of different sets do not meet by the input hash's structure.
fn mix(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

/// The walk key of each file whose key was asked for, by the address of its interned path
/// (an interned path lives as long as the process, and so does its key).
static WALK_KEYS: std::sync::LazyLock<std::sync::RwLock<FxHashMap<usize, Name>>> =
    std::sync::LazyLock::new(Default::default);

/// The key under which the reachable-packages walk (`Resolver::visible_package`) records that
/// it read a file's import targets ([`Resolved::import_targets`]): the walk depends on the
/// import lists of the files it passes through, which an import does not. A file whose imports
/// alone changed re-resolves its importers only when they mention a name that an import
/// binding changed (`build::imports_change`); when its import targets changed, the files that
/// walked through it walk again, and are re-resolved only if a package they gained or lost
/// defines a name they mention (the writer's `Transaction::walk_again`).
pub(crate) fn walk_key(path: &FilePath) -> Name {
    let known = WALK_KEYS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(&path.addr())
        .copied();
    known.unwrap_or_else(|| {
        let key = Name::new(format!("{WALK}{path}"));
        WALK_KEYS
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(path.addr(), key);
        key
    })
}

const WALK: &str = "\0walk:";

pub(crate) fn is_walk_key(key: &str) -> bool {
    key.starts_with(WALK)
}

/// A file's mentions: the names and the module keys, each sorted and without repeats.
pub(crate) type Mentions = (Vec<Name>, Vec<Name>);

/// Every name and module key a file's resolution may look up, as a pure function of the file.
/// A superset is fine; a missing entry would leave a stale edge after an incremental change.
pub(crate) fn mentions(
    aliases: &ModuleAliases,
    path: &str,
    summary: &FileSummary,
) -> (Vec<Name>, Vec<Name>) {
    (
        mentioned_names(summary),
        mentioned_modules(aliases, path, summary),
    )
}

/// The names of a file's [`mentions`], sorted and without repeats.
pub(crate) fn mentioned_names(summary: &FileSummary) -> Vec<Name> {
    let mut names: FxHashSet<Name> = FxHashSet::default();
    let split_into = |text: &str, names: &mut FxHashSet<Name>| {
        for part in text.split(|character: char| {
            !(character.is_alphanumeric() || character == '_' || character == '$')
        }) {
            if !part.is_empty() {
                names.insert(Name::new(part));
            }
        }
    };
    // Receivers repeat (`self.parser`, `Self::`): each distinct one is split once.
    let mut receivers: FxHashSet<Name> = FxHashSet::default();
    for reference in &summary.refs {
        names.insert(reference.name);
        if let Some(receiver) = reference.receiver {
            receivers.insert(receiver);
        }
    }
    for receiver in receivers {
        split_into(&receiver, &mut names);
    }
    for import in &summary.imports {
        split_into(&import.path, &mut names);
        if let Some(name) = &import.name {
            names.insert(*name);
        }
        if let Some(alias) = &import.alias {
            names.insert(*alias);
        }
    }
    for inherit in &summary.inherits {
        split_into(&inherit.base, &mut names);
        if let Some(child) = &inherit.child_name {
            names.insert(*child);
        }
    }
    for binding in &summary.bindings {
        names.insert(binding.type_name);
    }
    for def in &summary.defs {
        if let Some(owner) = &def.owner {
            names.insert(*owner);
        }
    }
    let mut names: Vec<Name> = names.into_iter().collect();
    names.sort();
    names
}

/// The receivers that are paths (`ArgAction::Set`), each once: besides the imports, what the
/// module keys of a file's [`mentions`] come from.
pub(crate) fn path_receivers(summary: &FileSummary) -> FxHashSet<Name> {
    summary
        .refs
        .iter()
        .filter_map(|reference| reference.receiver)
        .filter(|receiver| receiver.contains("::"))
        .collect()
}

/// The module keys of a file's [`mentions`], sorted and without repeats: a function of the
/// aliases, the path, the language, the imports (not where they are) and the
/// [`path_receivers`] alone.
pub(crate) fn mentioned_modules(
    aliases: &ModuleAliases,
    path: &str,
    summary: &FileSummary,
) -> Vec<Name> {
    let mut modules: Vec<Name> = Vec::new();
    for import in &summary.imports {
        modules.extend(import_keys(aliases, path, summary, import));
        // A submodule lookup derives a key from the import and the imported name, spelt as the
        // language spells it (only that spelling is ever looked up).
        if let Some(name) = &import.name {
            let mut sub = import.clone();
            sub.path = semantics::of(summary.language).submodule_path(&import.path, name);
            modules.extend(import_keys(aliases, path, summary, &sub));
        }
    }
    for receiver in path_receivers(summary) {
        let import = Import {
            path: receiver,
            name: None,
            alias: None,
            wildcard: false,
            span: Span::default(),
            scope: None,
        };
        modules.extend(import_keys(aliases, path, summary, &import));
    }
    modules.sort();
    modules.dedup();
    modules
}
