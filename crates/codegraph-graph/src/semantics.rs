//! What differs between languages in resolution, in one place per language family.
//!
//! Shared resolution code (`resolve`, `modules`, `query`, `build`) never compares languages: it
//! asks the file's [`Semantics`], chosen once per file with [`of`]. Each family's answers live
//! in its own file below (`semantics/<family>.rs`): its module system (the keys a file answers
//! to and the keys an import looks up), its build variants, and the questions resolution asks
//! (does a qualified path name an item, may objects gain members at run time, ...). Algorithms
//! that need the resolver's state for one language only (Rust's receiver typing, Python's
//! `__enter__`, JavaScript's object literals) stay in `resolve/<language>.rs` and are reached
//! through a question here.
//!
//! Adding a language means a folder of queries and an entry in `codegraph_lang::LANGUAGES`, plus
//! here either an existing family's semantics in [`of`] or a new implementation of the trait,
//! whose defaults are the plainest rules (no packages, no build variants, no run-time members).

mod c;
mod ecma;
mod go;
mod packages;
mod python;
mod requires;
mod rust;
mod swift;

use codegraph_index::{FileSummary, Import};
use codegraph_lang::Language;
use codegraph_model::Name;

use super::aliases::ModuleAliases;
use super::modules::directory;
use super::{Edge, Entity, EntityId, FileNode, Graph};
use codegraph_model::EntityKind;

/// How imports name the code they bring in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportForm {
    /// An import names a module: a file or a directory (Python, JavaScript, Rust, Go). A
    /// qualifier that names no module of the workspace is another package's.
    Modules,
    /// Files declare packages or namespaces; an import names a type or a whole package (Java,
    /// Kotlin, Scala, C#, PHP).
    Packages,
    /// Every file of a module sees every other file; an import names a whole module (Swift).
    WholeModule,
    /// `#include` of a file, whose declarations all become visible (C, C++).
    Includes,
    /// `require`/`source` of a file, relative or by suffix (Ruby, Lua, Bash).
    Requires,
}

/// One language family's resolution rules. The defaults are the plainest rules.
pub trait Semantics: Sync {
    fn import_form(&self) -> ImportForm;

    /// The keys a file is registered under in the module map.
    fn module_keys(&self, path: &str, summary: &FileSummary) -> Vec<Name>;

    /// The module keys an import looks up, most specific first. Empty for imports that can
    /// only be external (bare npm specifiers no workspace alias names, system headers, `std::`).
    fn import_keys(
        &self,
        _aliases: &ModuleAliases,
        _path: &str,
        _summary: &FileSummary,
        _import: &Import,
    ) -> Vec<Name> {
        Vec::new()
    }

    /// The name an import without an alias or an imported name binds its module to (`import
    /// a.b` binds `a.b` as a receiver prefix in Python; a Go import binds its last element).
    fn import_binding(&self, _path: &str) -> Option<Name> {
        None
    }

    /// The package a file belongs to, for same-package visibility; `None` where the language
    /// has no such rule.
    fn package_key(&self, _path: &str, _summary: &FileSummary) -> Option<Name> {
        None
    }

    /// The unit of visibility a file is compiled in, for the unique-name guess: its directory,
    /// or the crate (each integration test is a crate of its own).
    fn package_of<'p>(&self, path: &'p str) -> &'p str {
        directory(path)
    }

    /// The module path of `name` imported from `import_path` taken as a submodule (`from
    /// package import submodule`, `use module::submodule`), as the module system spells it.
    fn submodule_path(&self, import_path: &str, name: &str) -> Name {
        Name::new(format!("{import_path}/{name}"))
    }

    /// Of several candidates, those of the build a caller in `file` is compiled in: the default
    /// `#[cfg]` item, the chosen platform's file, the host's `GOOS` (a variant never wins alone
    /// by being dropped: when none is in the build, all stay).
    fn within_build(
        &self,
        _graph: &Graph,
        _file: &FileNode,
        candidates: Vec<EntityId>,
    ) -> Vec<EntityId> {
        candidates
    }

    /// Bare import specifiers are found through the workspace's module aliases (`tsconfig.json`
    /// `paths`, workspace packages), and a package's manifest says which files it publishes.
    fn reads_module_aliases(&self) -> bool {
        false
    }

    /// A callback's parameters are typed by the declared signature of the function it is
    /// passed to (so that signature is part of what importers read of the function).
    fn callbacks_typed_by_declared_signature(&self) -> bool {
        false
    }

    /// A module may export one value as a whole (`module.exports = Widget`, `export default`).
    fn exports_whole_module(&self) -> bool {
        false
    }

    /// `import a.b` binds `a` too: `a.f()` is the package's own `f`.
    fn import_binds_package_head(&self) -> bool {
        false
    }

    /// Qualified paths (`a::b::f`) name modules and items, never values: a path receiver is
    /// resolved as a module or a type, never guessed.
    fn paths_name_items(&self) -> bool {
        false
    }

    /// A function written as an object's member (`traps.get`, `Foo.prototype.m`, `app.render =
    /// function`) belongs to that object, not to the module's exports.
    fn object_members(&self) -> bool {
        false
    }

    /// Objects may gain members at run time (untyped code: a member not declared may exist).
    fn members_added_at_run_time(&self) -> bool {
        false
    }

    /// Declared types may be unions (`A | B`): a value of one is an instance of each.
    fn union_types(&self) -> bool {
        false
    }

    /// Types may be named by aliases (`type A = B<T>`), which resolution follows.
    fn type_aliases(&self) -> bool {
        false
    }

    /// Several members of one name on one type are told apart by their argument types (trait
    /// methods of one name from different traits), which resolution does not read: several
    /// are an ambiguity, never all targets.
    fn members_chosen_by_argument(&self) -> bool {
        false
    }

    /// A type's embedded fields are named after their type, whose members it gains.
    fn embedded_fields(&self) -> bool {
        false
    }

    /// Names that are never guessed by unique name although they look like workspace methods
    /// (Python's special methods, called by the runtime).
    fn never_guessed(&self, _name: &str) -> bool {
        false
    }

    /// An absolute import is only found under a source root (Python's `src/` layouts).
    fn imports_from_source_roots(&self) -> bool {
        false
    }

    /// The code of an integration test, bench or example sees the library it tests as if it
    /// were its own package.
    fn tests_see_their_library(&self) -> bool {
        false
    }

    // ----- receiver typing (`resolve/infer.rs`) -----

    /// `a or b` is a value of either (Python).
    fn boolean_alternatives(&self) -> bool {
        false
    }

    /// `with m as x`: `x` is what `m.__enter__()` returns.
    fn context_managers(&self) -> bool {
        false
    }

    /// A package's submodule is an attribute of the package (`pkg.sub.f()` after `import pkg`).
    fn submodules_are_attributes(&self) -> bool {
        false
    }

    /// The runtime's global objects: a receiver named so, where nothing in the workspace
    /// shadows it, is the runtime's.
    fn runtime_globals(&self) -> &'static [&'static str] {
        &[]
    }

    /// A string or array literal's methods are the runtime's (`", ".join(parts)`): the
    /// language has no extension methods on them that the workspace could define.
    fn literals_are_the_runtimes(&self) -> bool {
        false
    }

    /// A call imports (`require('./list').x`).
    fn imports_by_call(&self) -> bool {
        false
    }

    /// A plain function may be a constructor (`new F()` with methods on `F.prototype`).
    fn constructor_functions(&self) -> bool {
        false
    }

    /// Primitive values (number literals such as `2.0f64`, `str`, slices) have methods of the
    /// language's own library.
    fn primitive_methods(&self) -> bool {
        false
    }

    /// Tuples are values: `channel().0`, a function returning `(Sender<T>, Receiver<T>)`.
    fn tuple_values(&self) -> bool {
        false
    }

    /// Generic code: a field typed by a type parameter, a tuple struct's `self.0`, an enum
    /// variant's path (`ArgAction::SetTrue`), `Self` in a generic impl.
    fn generic_values(&self) -> bool {
        false
    }

    /// The element type of a collection type written in the source (`Vec<Foo>`, `&[Foo]`,
    /// `impl Iterator<Item = Foo>`), when the language's collections can be read from text.
    fn element_type<'t>(&self, _type_text: &'t str) -> Option<&'t str> {
        None
    }

    /// A closure passed to a collection's, iterator's or `Option`'s method (`items.iter()
    /// .filter(|item| ..)`, `found.map(|value| ..)`) receives what the receiver holds: its
    /// untyped parameter is typed by the receiver's elements, not by the callee's parameters.
    fn closures_over_elements(&self) -> bool {
        false
    }
    // ----- implementations and dispatch (`query`) -----

    /// The members whose calls the language's own server counts as calls of `method` too: a
    /// Rust trait method's implementations; a TypeScript or JavaScript member's implementations
    /// and overrides.
    fn dispatched_members(&self, _graph: &Graph, _method: &Entity) -> Vec<EntityId> {
        Vec::new()
    }

    /// Adds to `found` the members of bases and interfaces that `method` (of type `owner`,
    /// implementing the members `implemented` directly) overrides or implements, where the
    /// language's server counts calls through them as calls of the method.
    fn overridden_members(
        &self,
        _graph: &Graph,
        _method: &Entity,
        _owner: EntityId,
        _implemented: &[Entity],
        _found: &mut Vec<EntityId>,
    ) {
    }

    /// Interfaces are satisfied implicitly, by method sets (Go), not declared by the types.
    fn interfaces_are_implicit(&self) -> bool {
        false
    }

    /// Where interfaces are satisfied implicitly, by method sets (Go): the types that satisfy
    /// `interface`, sorted.
    fn implicit_implementers(&self, _graph: &Graph, _interface: &str) -> Vec<EntityId> {
        Vec::new()
    }

    /// Where interfaces are satisfied implicitly: the interfaces type `id` satisfies, sorted.
    fn implicit_interfaces(&self, _graph: &Graph, _id: &str) -> Vec<EntityId> {
        Vec::new()
    }

    /// The methods named `name` that type `id` has: its members of that name, and where the
    /// language promotes the methods of embedded types, theirs.
    fn methods_named(&self, graph: &Graph, id: &str, name: &str) -> Vec<Entity> {
        crate::query::members(graph, id)
            .into_iter()
            .filter(|member| member.kind == EntityKind::Method && member.name == name)
            .collect()
    }

    /// The call edges of other scopes whose calls are written inside `function` (Python's
    /// decorators and nested definitions, which pyright lists among its outgoing calls).
    fn calls_written_inside(&self, _graph: &Graph, _function: &str) -> Vec<Edge> {
        Vec::new()
    }

    /// A file of the chosen build (the host's `GOOS`, the chosen platform's C files); always,
    /// where the language has no build variants.
    fn file_in_build(&self, _file: &FileNode) -> bool {
        true
    }

    /// Whether a call made in `caller` belongs in the answer about a definition in `callee`.
    /// Go answers for one build, the callee's (the chosen platform's, or the platform a variant
    /// file is built for), as gopls does; the other languages keep every call.
    fn same_build(&self, _callee: &FileNode, _caller: &FileNode) -> bool {
        true
    }

    /// A path inside a tree of platform variants (`arch/<arch>/...`), whose files are variants
    /// of the same path in the other trees.
    fn variant_tree(&self, _path: &str) -> bool {
        false
    }

    /// Function declarations may be overload signatures of the function declared after them.
    fn overload_signatures(&self) -> bool {
        false
    }
}

/// Of `candidates`, those `keep` admits; all of them when it admits none (a variant never wins
/// alone by being dropped).
fn preferred(candidates: Vec<EntityId>, keep: impl Fn(&EntityId) -> bool) -> Vec<EntityId> {
    let kept: Vec<EntityId> = candidates.iter().filter(|id| keep(id)).cloned().collect();
    if kept.is_empty() { candidates } else { kept }
}

/// Whether the file that defines `id` is in the chosen build, as `semantics` says.
fn defined_in_build(semantics: &dyn Semantics, graph: &Graph, id: &EntityId) -> bool {
    graph
        .entities
        .get(id)
        .and_then(|loc| graph.files.get(&loc.file))
        .is_some_and(|file| semantics.file_in_build(file))
}

/// The semantics of a language.
pub fn of(language: Language) -> &'static dyn Semantics {
    match language {
        Language::Python => &python::Python,
        Language::JavaScript => &ecma::Ecma { typed: false },
        Language::TypeScript | Language::Tsx => &ecma::Ecma { typed: true },
        Language::Rust => &rust::Rust,
        Language::Go => &go::Go,
        Language::Java | Language::Kotlin | Language::Scala | Language::CSharp | Language::Php => {
            &packages::Packages
        }
        Language::C | Language::Cpp => &c::C,
        Language::Swift => &swift::Swift,
        Language::Ruby | Language::Bash => &requires::Requires { dotted: false },
        Language::Lua => &requires::Requires { dotted: true },
    }
}
