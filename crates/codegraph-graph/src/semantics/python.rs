//! Python: dotted module paths mapped onto files and packages (`a.b` is `a/b.py` or
//! `a/b/__init__.py`), relative imports by leading dots, untyped objects.

use codegraph_index::{FileSummary, Import};
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::aliases::ModuleAliases;
use crate::modules::{component_suffixes, directory, strip_extension};
use crate::{Edge, Graph};
use codegraph_model::RelationKind;

pub(super) struct Python;

impl Semantics for Python {
    fn import_form(&self) -> ImportForm {
        ImportForm::Modules
    }

    fn module_keys(&self, path: &str, _summary: &FileSummary) -> Vec<Name> {
        let without = strip_extension(path);
        let module = without.strip_suffix("/__init__").unwrap_or(without);
        component_suffixes(module)
            .map(|suffix| Name::new(suffix.replace('/', ".")))
            .collect()
    }

    fn import_keys(
        &self,
        _aliases: &ModuleAliases,
        path: &str,
        _summary: &FileSummary,
        import: &Import,
    ) -> Vec<Name> {
        let raw = import.path.as_str();
        let dots = raw.len() - raw.trim_start_matches('.').len();
        let rest = &raw[dots..];
        if dots == 0 {
            return vec![Name::new(rest)];
        }
        let mut base = directory(path).to_string();
        for _ in 1..dots {
            base = directory(&base).to_string();
        }
        let target = if rest.is_empty() {
            base
        } else {
            format!("{base}/{}", rest.replace('.', "/"))
        };
        vec![Name::new(target.trim_matches('/').replace('/', "."))]
    }

    fn import_binding(&self, path: &str) -> Option<Name> {
        Some(Name::new(path))
    }

    fn submodule_path(&self, import_path: &str, name: &str) -> Name {
        Name::new(if import_path.chars().all(|character| character == '.') {
            // `from . import name`, `from .. import name`.
            format!("{import_path}{name}")
        } else {
            format!("{}.{name}", import_path.trim_end_matches('.'))
        })
    }

    fn import_binds_package_head(&self) -> bool {
        true
    }

    fn members_added_at_run_time(&self) -> bool {
        true
    }

    fn never_guessed(&self, name: &str) -> bool {
        crate::resolve::python::is_special_method(name)
    }

    fn imports_from_source_roots(&self) -> bool {
        true
    }

    fn boolean_alternatives(&self) -> bool {
        true
    }

    fn context_managers(&self) -> bool {
        true
    }

    fn submodules_are_attributes(&self) -> bool {
        true
    }

    fn calls_written_inside(&self, graph: &Graph, function: &str) -> Vec<Edge> {
        calls_written_inside(graph, function)
    }

    fn runtime_globals(&self) -> &'static [&'static str] {
        BUILTINS
    }

    fn literals_are_the_runtimes(&self) -> bool {
        true
    }
}

/// The builtin classes a call names as its receiver (`property.__init__(self, ...)`,
/// `dict.fromkeys(keys)`, `Exception.__init__(self, message)`): methods of Python's own.
const BUILTINS: &[&str] = &[
    "object",
    "type",
    "property",
    "staticmethod",
    "classmethod",
    "dict",
    "list",
    "tuple",
    "set",
    "frozenset",
    "str",
    "bytes",
    "bytearray",
    "int",
    "float",
    "complex",
    "bool",
    "memoryview",
    "slice",
    "range",
    "BaseException",
    "Exception",
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "ImportError",
    "IndexError",
    "KeyError",
    "LookupError",
    "NameError",
    "NotImplementedError",
    "OSError",
    "RuntimeError",
    "StopIteration",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
    "Warning",
    "UserWarning",
    "DeprecationWarning",
];

/// The call edges of other scopes whose call is written inside the Python function `id`: its
/// decorators and its nested definitions, at any depth.
fn calls_written_inside(graph: &Graph, id: &str) -> Vec<Edge> {
    let Some(loc) = graph.entities.get(id) else {
        return Vec::new();
    };
    let (Some(file), Some(index)) = (graph.files.get(&loc.file), loc.index) else {
        return Vec::new();
    };
    let defs = &file.summary.defs;
    let def = &defs[index as usize];
    if !def.kind.is_callable() {
        return Vec::new();
    }
    let calls = |scope: &str| {
        graph
            .outgoing(scope)
            .filter(|edge| edge.kind == RelationKind::Calls)
            .cloned()
            .collect::<Vec<Edge>>()
    };
    let around = match def.parent {
        Some(parent) => file.ids[parent as usize],
        None => file.module_id,
    };
    let mut edges: Vec<Edge> = calls(&around)
        .into_iter()
        .filter(|edge| {
            file.site(edge).is_some_and(|site| {
                def.span.start_byte <= site.start_byte && site.start_byte < def.name_span.start_byte
            })
        })
        .collect();
    // Definitions come after their parents: one pass finds every descendant.
    let mut inside = vec![false; defs.len()];
    inside[index as usize] = true;
    for (position, nested) in defs.iter().enumerate().skip(index as usize + 1) {
        if nested.parent.is_some_and(|parent| inside[parent as usize]) {
            inside[position] = true;
            edges.extend(calls(&file.ids[position]));
        }
    }
    edges
}
