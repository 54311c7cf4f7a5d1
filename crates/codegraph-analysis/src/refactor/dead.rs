//! Dead code: entities nothing references, with a confidence that weighs what a reference
//! graph cannot see (entry points, exported API, decorators, overrides, ambiguous references).

use rustc_hash::FxHashSet;

use codegraph_graph::{Entity, Graph, materialize};
use codegraph_model::{EntityKind, RelationKind};

use super::RepoFacts;

const ENTRY_NAMES: &[&str] = &[
    "main",
    "__init__",
    "__new__",
    "__main__",
    "__call__",
    "new",
    "default",
    "init",
    "setup",
    "setUp",
    "tearDown",
    "constructor",
    "run",
    "handler",
    "handle",
    "drop",
    "fmt",
    "from",
    "into",
];

pub(super) fn is_entry_point(entity: &Entity) -> bool {
    let name = entity.name.as_str();
    let path = entity.file_path.to_lowercase();
    ENTRY_NAMES.contains(&name)
        || (name.starts_with("__") && name.ends_with("__"))
        || name.starts_with("test")
        || name.starts_with("Test")
        || name.ends_with("_test")
        || name.ends_with("Test")
        || path.contains("test")
        || path.contains("spec")
        || path.contains("example")
        || path.contains("bench")
}

/// Visible to other files: exported by the graph's rules (a top-level definition), published
/// by its language's visibility rules (`pub`, `export`, `public`, capitalisation, `__all__`:
/// [`super::visibility`]), and not `_private` by convention.
pub fn is_exported(graph: &Graph, entity: &Entity) -> bool {
    // `_name` is private by convention (Python, Dart, JavaScript modules).
    if entity.name.starts_with('_') && !entity.name.ends_with("__") {
        return false;
    }
    graph
        .named(&entity.name)
        .iter()
        .any(|entry| entry.id == entity.id && entry.exported)
        && crate::visibility::is_published(graph, entity)
}

/// Whether a framework or the compiler may call it: decorators and attributes.
fn is_decorated(graph: &Graph, entity: &Entity) -> bool {
    let Some(file) = graph.file(&entity.file_path) else {
        return false;
    };
    let Some(text) = file.text() else {
        return false;
    };
    let source = text
        .get(entity.span.start_byte as usize..entity.span.end_byte as usize)
        .unwrap_or_default()
        .trim_start();
    let before = text
        .get(..entity.span.start_byte as usize)
        .unwrap_or_default();
    let previous_line = before
        .trim_end()
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .trim_start();
    source.starts_with('@')
        || source.starts_with("#[")
        || previous_line.starts_with('@')
        || previous_line.starts_with("#[")
}

pub(super) fn overrides_something(graph: &Graph, entity: &Entity) -> bool {
    let Some(parent) = &entity.parent else {
        return false;
    };
    if !graph.kind_of(parent).is_some_and(EntityKind::is_type) {
        return false;
    }
    let mut seen = FxHashSet::default();
    let mut frontier = vec![*parent];
    while let Some(current) = frontier.pop() {
        for (base, _) in codegraph_graph::query::supertypes(graph, &current) {
            if !seen.insert(base.id) {
                continue;
            }
            if codegraph_graph::query::members(graph, &base.id)
                .iter()
                .any(|member| member.name == entity.name)
            {
                return true;
            }
            frontier.push(base.id);
        }
    }
    false
}

/// Why an entity looks unused, with a confidence; `None` if something uses it or it is an entry
/// point, a test, or a member of an interface.
pub fn dead_code_confidence(
    graph: &Graph,
    facts: &RepoFacts,
    entity: &Entity,
) -> Option<(f64, String)> {
    if entity.kind == EntityKind::Module || is_entry_point(entity) {
        return None;
    }
    let referenced = graph.incoming(&entity.id).any(|edge| {
        !matches!(edge.kind, RelationKind::Contains | RelationKind::Defines)
            && edge.from != entity.id
    });
    if referenced {
        return None;
    }
    if let Some(parent) = &entity.parent
        && matches!(
            graph.kind_of(parent),
            Some(EntityKind::Interface | EntityKind::Trait)
        )
    {
        return None;
    }
    let mut confidence: f64 = 0.9;
    let mut notes = vec!["no resolved calls, uses or imports".to_string()];
    if is_exported(graph, entity) {
        confidence = confidence.min(0.6);
        notes.push("exported, so code outside the repository may use it".to_string());
    } else {
        notes.push("not exported".to_string());
    }
    if entity.kind == EntityKind::Method {
        confidence *= 0.8;
        notes.push("a method, which dynamic dispatch may reach".to_string());
        if overrides_something(graph, entity) {
            confidence = confidence.min(0.2);
            notes.push("it overrides a base type's method".to_string());
        }
    }
    if facts.maybe_referenced.contains(&entity.id) {
        confidence = confidence.min(0.3);
        notes.push(format!(
            "an ambiguous reference to `{}` may reach it",
            entity.name
        ));
    }
    if is_decorated(graph, entity) {
        confidence = confidence.min(0.3);
        notes.push("decorated, so a framework may call it".to_string());
    }
    Some(((confidence * 100.0).round() / 100.0, notes.join("; ")))
}

/// Every entity that looks unused, most certain first.
pub fn dead_code(graph: &Graph, facts: &RepoFacts) -> Vec<(Entity, f64, String)> {
    let mut found = Vec::new();
    for file in graph.files() {
        for index in 0..file.summary.defs.len() as u32 {
            let entity = materialize(file, Some(index));
            if let Some((confidence, reason)) = dead_code_confidence(graph, facts, &entity) {
                found.push((entity, confidence, reason));
            }
        }
    }
    found.sort_by(|left, right| {
        right
            .1
            .total_cmp(&left.1)
            .then_with(|| left.0.id.cmp(&right.0.id))
    });
    found
}
