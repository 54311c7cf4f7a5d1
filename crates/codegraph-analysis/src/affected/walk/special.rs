//! The methods a class's users run without naming them: constructors, operators and protocol
//! methods, properties, getters and setters, Python's import hooks, Rust's trait methods.

use codegraph_graph::{EntityId, Graph};
use codegraph_lang::Language;
use codegraph_model::RelationKind;

use super::super::tests;
use super::{Confidence, Node, State, Step};

/// A method its class's users run without naming it: a constructor runs for every
/// construction of the class (`proven`); an operator, a protocol method or a property may run
/// wherever the class is used (`possible`).
pub(super) fn special_method_steps(
    state: &mut State,
    method: &Node,
    owner: &EntityId,
    steps: &mut Vec<Step>,
) {
    let graph = state.graph;
    let Some(class) = Node::of(graph, owner) else {
        return;
    };
    let name = method.name.as_str();
    let constructor = matches!(
        name,
        "__init__" | "__new__" | "__post_init__" | "constructor"
    ) || name == class.name.as_str();
    if constructor {
        for edge in graph
            .incoming(owner)
            .filter(|edge| edge.kind == RelationKind::Calls)
        {
            steps.push((edge.from, Confidence::Proven, "constructs"));
        }
        steps.push((*owner, Confidence::Proven, "member"));
        return;
    }
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    if dunder
        || is_import_hook(method)
        || is_property(state, method)
        || is_implicit(state.graph, method)
    {
        steps.push((*owner, Confidence::Possible, "special_method"));
    }
}

/// A method the language calls without its name being written: a JavaScript or TypeScript
/// getter or setter (`get size()`), a Rust method of a trait implementation (an operator,
/// `Display::fmt`, `Deref::deref`, `Iterator::next`).
fn is_implicit(graph: &Graph, method: &Node) -> bool {
    let Some(def) = graph
        .file(&method.file)
        .zip(method.index)
        .and_then(|(file, index)| file.summary.defs.get(index as usize))
    else {
        return false;
    };
    match method.language {
        Language::Rust => def.implements.is_some(),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            let signature = def.signature().trim_start();
            let signature = signature.strip_prefix("static ").unwrap_or(signature);
            signature.starts_with("get ") || signature.starts_with("set ")
        }
        _ => false,
    }
}

/// A method of Python's import protocol (`find_spec`, `exec_module`, ...): the import system
/// calls it on the finders and loaders registered in `sys.meta_path` or `sys.path_hooks`, on
/// imports, where its name is never written.
fn is_import_hook(method: &Node) -> bool {
    method.language == Language::Python
        && matches!(
            method.name.as_str(),
            "find_spec"
                | "find_module"
                | "create_module"
                | "exec_module"
                | "load_module"
                | "invalidate_caches"
        )
}

/// A Python method read as an attribute (`@property`, `@cached_property`, a setter).
fn is_property(state: &mut State, method: &Node) -> bool {
    if method.language != Language::Python {
        return false;
    }
    let Some(start) = method.start_byte(state.graph) else {
        return false;
    };
    let Some(text) = state.mentions.text(method.file) else {
        return false;
    };
    tests::decorators(&text, start).iter().any(|line| {
        line.contains("property") || line.ends_with(".setter") || line.ends_with(".deleter")
    })
}
