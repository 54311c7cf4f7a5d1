//! References into dependencies as SCIP symbols of the dependency's package.
//!
//! The graph keeps a call it cannot resolve in the workspace as an external reference, with the
//! import whose binding it goes through. Such a call becomes an occurrence of a global symbol
//! in the imported package only when the import says which definition it is, in one of two
//! shapes: a name imported and called (`from os.path import join; join()`, `use
//! serde_json::from_str;`), or a module (or type) imported and called through
//! (`np.array()`, `HashMap::new()`, `fmt.Println()`). Longer chains (`a.b.c()`) and calls on
//! values are left out: which definition they reach is not known.
//!
//! The package is the one the import names: Python's top-level module, the npm package of a
//! bare specifier, the crate of a Rust path, the Go module that `go.mod` requires (the
//! standard library as `std`). Versions come from the lockfile (`Cargo.lock`,
//! `package-lock.json`) or `go.mod`, else `.`. Python, JavaScript/TypeScript, Rust and Go only.

use scip::types::descriptor::Suffix;

use super::packages::Package;
use super::symbols::{descriptor, format};
use codegraph_graph::{ExternalRef, FileNode};
use codegraph_lang::Language;

/// The symbol of an external call, when its shape says which definition it reaches.
pub fn symbol(file: &FileNode, own: Option<&Package>, external: &ExternalRef) -> Option<String> {
    let module = external.module.as_deref()?;
    let reference = file.summary.refs.get(external.reference as usize)?;
    let key = match reference.receiver.as_deref() {
        Some(receiver) if receiver.contains(['.', ':']) => return None,
        Some(receiver) => receiver,
        None => reference.name.as_str(),
    };
    let position = file
        .import_bindings
        .iter()
        .position(|binding| binding.as_deref() == Some(key))?;
    let import = &file.summary.imports[position];
    // What the binding denotes: a name in the module, or the module itself.
    let mut bound = import.name.as_deref().filter(|name| *name != "default");
    let mut module = module;
    if file.language == Language::Rust && module.is_empty() {
        // `use regex;` is the path "" with the name `regex`: the crate itself.
        module = bound?;
        bound = None;
    }
    if file.language == Language::Python
        && bound.is_none()
        && import.alias.is_none()
        && module.contains('.')
    {
        // `import a.b` binds `a`, not `a.b`.
        return None;
    }
    let (package, mut descriptors) = locate(file.language, module, own)?;
    match (reference.receiver.is_some(), bound) {
        // `join()` after `from os.path import join`.
        (false, Some(name)) => descriptors.push(method(name)),
        // `np.array()`, `fmt.Println()`: a function of the module.
        (true, None) => descriptors.push(method(&reference.name)),
        // `HashMap::new()`, `C.make()`: a member of an imported type.
        (true, Some(name)) => {
            descriptors.push(descriptor(name, Suffix::Type));
            descriptors.push(method(&reference.name));
        }
        (false, None) => return None,
    }
    Some(format(Some(&package), descriptors))
}

fn method(name: &str) -> scip::types::Descriptor {
    descriptor(name, Suffix::Method)
}

/// The package an import path names and the namespace descriptors of the module in it.
fn locate(
    language: Language,
    module: &str,
    own: Option<&Package>,
) -> Option<(Package, Vec<scip::types::Descriptor>)> {
    let namespace = |name: &str| descriptor(name, Suffix::Namespace);
    let package = |manager: &str, name: &str, version: &str| Package {
        manager: manager.to_string(),
        name: name.to_string(),
        version: version.to_string(),
        ..Package::default()
    };
    let locked = |name: &str| {
        own.and_then(|own| own.locked.get(name))
            .cloned()
            .unwrap_or_default()
    };
    match language {
        Language::Python => {
            if module.starts_with('.') || module.is_empty() {
                return None;
            }
            let top = module.split('.').next()?;
            Some((package("python", top, ""), vec![namespace(module)]))
        }
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            if module.starts_with(['.', '/']) || module.contains(':') {
                return None;
            }
            let mut parts = module.split('/');
            let first = parts.next()?;
            let name = if first.starts_with('@') {
                format!("{first}/{}", parts.next()?)
            } else {
                first.to_string()
            };
            let version = locked(&name);
            Some((package("npm", &name, &version), vec![namespace(module)]))
        }
        Language::Rust => {
            let mut segments = module.split("::").filter(|segment| !segment.is_empty());
            let krate = segments.next()?;
            if matches!(krate, "crate" | "self" | "super" | "Self") {
                return None;
            }
            let version = locked(krate);
            let descriptors = segments.map(namespace).collect();
            Some((package("cargo", krate, &version), descriptors))
        }
        Language::Go => {
            let own_module = own.map(|own| own.name.as_str());
            let required = own.and_then(|own| {
                own.go_requires
                    .iter()
                    .find(|(path, _)| module == path || module.starts_with(&format!("{path}/")))
            });
            let found = match required {
                Some((path, version)) => package("gomod", path, version),
                None if own_module
                    .is_some_and(|own| module == own || module.starts_with(&format!("{own}/"))) =>
                {
                    return None;
                }
                None if !module.split('/').next()?.contains('.') => package("gomod", "std", ""),
                None => return None,
            };
            Some((found, vec![namespace(module)]))
        }
        _ => None,
    }
}
