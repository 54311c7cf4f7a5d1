//! SCIP symbols for the graph's entities: `codegraph <manager> <name> <version> <descriptors>`.
//!
//! The descriptors follow each language's SCIP indexer, so that a reader recognises them and
//! two repositories exported by codegraph name a shared definition alike:
//! - Python (scip-python): the dotted module as one namespace, `` `shop.util.math`/factorial(). ``
//!   (relative to the package root, a `src/` layout stripped, `__init__` dropped);
//! - JavaScript and TypeScript (scip-typescript): the file path in its package as one namespace,
//!   `` `src/util.ts`/Cart#total(). ``;
//! - Rust (rust-analyzer): the module path in the crate, `util/math/Cart#total().`;
//! - Go (scip-go): the package's import path as one namespace, `` `example.com/shop/util`/Sum(). ``;
//! - Java, Kotlin, Scala, C# (scip-java): the declared package, `com/acme/Shop#total().`;
//! - other languages: the file path as one namespace.
//!
//! Then one descriptor per enclosing definition: types `Name#`, functions and methods
//! `name().`, nested modules `name/`; an out-of-line member's owner (`impl Cart`, a Go
//! receiver) is its type. A later definition with the same nested name in the same file (the
//! graph's `#2`) is a method with disambiguator `2`, or a local symbol when it is no callable.

use rustc_hash::FxHashMap;
use scip::types::{Descriptor, Symbol, descriptor::Suffix};

use super::packages::{Package, Packages};
use codegraph_graph::{FileNode, Graph};
use codegraph_index::FileSummary;
use codegraph_lang::Language;
use codegraph_model::EntityKind;

/// The scheme of every global symbol codegraph writes.
pub const SCHEME: &str = "codegraph";

/// Names the graph's entities, caching each file's prefix.
pub struct Namer {
    packages: Packages,
    prefixes: FxHashMap<String, Prefix>,
    /// Every entity named so far: an edge's target is named once, not once per reference.
    named: FxHashMap<codegraph_graph::EntityId, Named>,
}

/// A file's package and its namespace descriptors.
#[derive(Clone)]
pub struct Prefix {
    pub package: Option<std::sync::Arc<Package>>,
    pub namespace: Vec<Descriptor>,
}

/// What an entity's symbol is.
#[derive(Clone)]
pub enum Named {
    Global(String),
    /// A duplicate that is no callable: only its own document can name it.
    Local,
}

pub fn descriptor(name: &str, suffix: Suffix) -> Descriptor {
    Descriptor {
        name: name.to_string(),
        suffix: suffix.into(),
        ..Descriptor::default()
    }
}

fn method(name: &str, disambiguator: &str) -> Descriptor {
    Descriptor {
        name: name.to_string(),
        disambiguator: disambiguator.to_string(),
        suffix: Suffix::Method.into(),
        ..Descriptor::default()
    }
}

fn of_kind(kind: EntityKind, name: &str) -> Descriptor {
    match kind {
        EntityKind::Module => descriptor(name, Suffix::Namespace),
        EntityKind::Function | EntityKind::Method => method(name, ""),
        EntityKind::Class
        | EntityKind::Interface
        | EntityKind::Enum
        | EntityKind::Struct
        | EntityKind::Trait => descriptor(name, Suffix::Type),
    }
}

/// Formats a global symbol; SCIP's package fields escape a space by doubling it, and an empty
/// field is `.`.
pub fn format(package: Option<&Package>, descriptors: Vec<Descriptor>) -> String {
    let field = |text: &str| {
        if text.is_empty() {
            ".".to_string()
        } else {
            text.replace(' ', "  ")
        }
    };
    let (manager, name, version) = match package {
        Some(package) => (
            field(&package.manager),
            field(&package.name),
            field(&package.version),
        ),
        None => (".".to_string(), ".".to_string(), ".".to_string()),
    };
    let descriptors = scip::symbol::format_symbol(Symbol {
        scheme: "x".to_string(),
        descriptors,
        ..Symbol::default()
    });
    // `format_symbol` writes `x . . . <descriptors>`: keep the descriptors.
    let descriptors = descriptors.splitn(5, ' ').nth(4).unwrap_or_default();
    format!("{SCHEME} {manager} {name} {version} {descriptors}")
}

impl Namer {
    pub fn new(packages: Packages) -> Namer {
        Namer {
            packages,
            prefixes: FxHashMap::default(),
            named: FxHashMap::default(),
        }
    }

    pub fn packages(&mut self) -> &mut Packages {
        &mut self.packages
    }

    /// The package and namespace of a file's entities.
    pub fn prefix(&mut self, file: &FileNode) -> Prefix {
        if let Some(known) = self.prefixes.get(&*file.path) {
            return known.clone();
        }
        let package = self.packages.of_file(&file.path, file.language);
        let namespace = namespace(&file.path, &file.summary, package.as_deref());
        let prefix = Prefix { package, namespace };
        self.prefixes.insert(file.path.to_string(), prefix.clone());
        prefix
    }

    /// The symbol of an entity (`None`: not in the graph).
    pub fn entity(&mut self, graph: &Graph, id: &str) -> Option<Named> {
        if let Some(named) = self.named.get(id) {
            return Some(named.clone());
        }
        let named = self.name(graph, id)?;
        self.named
            .insert(codegraph_graph::EntityId::from(id), named.clone());
        Some(named)
    }

    fn name(&mut self, graph: &Graph, id: &str) -> Option<Named> {
        let location = graph.location(id)?;
        let file = graph.file(&location.file)?.clone();
        let prefix = self.prefix(&file);
        let mut descriptors = prefix.namespace.clone();
        if let Some(index) = location.index {
            let summary = &file.summary;
            let plain = format!("{}::{}", file.path, summary.nested_name(index));
            let duplicate = id
                .strip_prefix(plain.as_str())
                .and_then(|rest| rest.strip_prefix('#'))
                .map(str::to_string);
            let mut chain = Vec::new();
            let mut current = Some(index);
            while let Some(position) = current {
                let def = &summary.defs[position as usize];
                chain.push(of_kind(def.kind, &def.name));
                if def.parent.is_none()
                    && let Some(owner) = &def.owner
                {
                    chain.push(descriptor(owner, Suffix::Type));
                }
                current = def.parent;
            }
            chain.reverse();
            if let Some(number) = duplicate {
                let kind = summary.defs[index as usize].kind;
                if !matches!(kind, EntityKind::Function | EntityKind::Method) {
                    return Some(Named::Local);
                }
                if let Some(last) = chain.last_mut() {
                    last.disambiguator = number;
                }
            }
            descriptors.extend(chain);
        }
        Some(Named::Global(format(
            prefix.package.as_deref(),
            descriptors,
        )))
    }
}

/// The namespace descriptors of a file, by its language's convention (see the module docs).
pub fn namespace(path: &str, summary: &FileSummary, package: Option<&Package>) -> Vec<Descriptor> {
    let relative = match package {
        Some(package) if !package.root.is_empty() => path
            .strip_prefix(package.root.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(path),
        _ => path,
    };
    let without_extension = |text: &str| -> String {
        match text.rfind('.') {
            Some(dot) if !text[dot..].contains('/') => text[..dot].to_string(),
            _ => text.to_string(),
        }
    };
    let one = |name: &str| vec![descriptor(name, Suffix::Namespace)];
    match summary.language {
        Language::Python => {
            let module = without_extension(relative.strip_prefix("src/").unwrap_or(relative));
            let module = module.strip_suffix("/__init__").unwrap_or(&module);
            one(&module.replace('/', "."))
        }
        Language::JavaScript | Language::TypeScript | Language::Tsx => one(relative),
        Language::Rust => {
            let (in_crate, rest) = match relative.strip_prefix("src/") {
                Some(rest) => (true, rest),
                None => (false, relative),
            };
            let module = without_extension(rest);
            let mut segments: Vec<&str> = module.split('/').collect();
            // `src/lib.rs`, `src/main.rs` and any `mod.rs` are the module of their directory.
            let last = segments.last().copied();
            if last == Some("mod") || (in_crate && matches!(last, Some("lib" | "main"))) {
                segments.pop();
            }
            // The crate root is `crate/`, as rust-analyzer names it.
            if segments.is_empty() || segments == [""] {
                return one("crate");
            }
            segments
                .into_iter()
                .map(|segment| descriptor(segment, Suffix::Namespace))
                .collect()
        }
        Language::Go => {
            let directory = relative.rsplit_once('/').map_or("", |(dir, _)| dir);
            let import_path = match package {
                Some(package) if directory.is_empty() => package.name.clone(),
                Some(package) => format!("{}/{directory}", package.name),
                None if directory.is_empty() => ".".to_string(),
                None => directory.to_string(),
            };
            one(&import_path)
        }
        Language::Java | Language::Kotlin | Language::Scala | Language::CSharp => {
            match &summary.package {
                Some(declared) if !declared.is_empty() => declared
                    .split(['.', ':'])
                    .filter(|segment| !segment.is_empty())
                    .map(|segment| descriptor(segment, Suffix::Namespace))
                    .collect(),
                _ => one(path),
            }
        }
        _ => one(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_escaped_and_empty_fields_are_dots() {
        let package = Package {
            manager: "npm".into(),
            name: "@acme/shop".into(),
            version: "1.0.0".into(),
            ..Package::default()
        };
        assert_eq!(
            format(
                Some(&package),
                vec![
                    descriptor("src/cart.ts", Suffix::Namespace),
                    descriptor("Cart", Suffix::Type),
                    method("total", ""),
                ]
            ),
            "codegraph npm @acme/shop 1.0.0 `src/cart.ts`/Cart#total()."
        );
        assert_eq!(
            format(None, vec![method("new", "2")]),
            "codegraph . . . new(2)."
        );
        let spaced = Package {
            name: "my pkg".into(),
            ..Package::default()
        };
        assert_eq!(
            format(Some(&spaced), vec![descriptor("a", Suffix::Namespace)]),
            "codegraph . my  pkg . a/"
        );
    }
}
