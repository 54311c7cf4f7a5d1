//! The refactoring suggestions for one entity: each rule a function adding what it finds.

use std::collections::BTreeSet;

use super::{
    COMPLEX_FUNCTION, DEEP_NESTING, DUPLICATES_LISTED, DUPLICATES_NAMED, GOD_CLASS_LINES,
    GOD_CLASS_METHODS, HIGH_FAN_OUT, LONG_FUNCTION_LINES, LONG_MODULE_LINES, Location,
    MANY_PARAMETERS, Metrics, RefactoringReport, RepoFacts, Suggestion, SuggestionKind,
    dead_code_confidence, is_entry_point, is_exported, is_within, lowest_common_directory, metrics,
    overrides_something,
};
use crate::communities::is_dependency;
use codegraph_graph::{Entity, EntityId, Graph};
use codegraph_model::{EntityKind, RelationKind};

/// Names that say nothing about what their entity does.
const GENERIC_NAMES: [&str; 15] = [
    "foo",
    "bar",
    "baz",
    "tmp",
    "temp",
    "stuff",
    "thing",
    "data",
    "doit",
    "do_it",
    "func",
    "helper",
    "misc",
    "process",
    "handle_it",
];

/// Names of two characters or fewer that are still clear.
const SHORT_CLEAR_NAMES: [&str; 7] = ["id", "ok", "io", "db", "ui", "fs", "os"];

/// The suggestions found so far for one entity, all at its location.
struct Found {
    location: Location,
    suggestions: Vec<Suggestion>,
}

impl Found {
    /// Adds a suggestion with no target and nothing related; returns it to fill those in.
    fn add(&mut self, kind: SuggestionKind, confidence: f64, reason: String) -> &mut Suggestion {
        self.suggestions.push(Suggestion {
            kind,
            reason,
            location: self.location.clone(),
            confidence,
            target: None,
            related: Vec::new(),
        });
        self.suggestions.last_mut().expect("just pushed")
    }
}

/// Suggestions for one entity, optionally only of one kind.
pub fn suggest(
    graph: &Graph,
    facts: &RepoFacts,
    entity: &Entity,
    only: Option<SuggestionKind>,
) -> RefactoringReport {
    let metrics = metrics(graph, entity);
    let mut found = Found {
        location: Location::of(entity),
        suggestions: Vec::new(),
    };
    if matches!(entity.kind, EntityKind::Function | EntityKind::Method) {
        suggest_from_function_figures(&mut found, entity, &metrics);
        suggest_sharing_duplicates(&mut found, facts, entity);
        suggest_inlining(&mut found, graph, entity, &metrics);
    }
    if entity.kind.is_type() {
        suggest_splitting_god_class(&mut found, &metrics);
    }
    if entity.kind == EntityKind::Module {
        suggest_breaking_import_cycles(&mut found, facts, entity);
        suggest_splitting_long_module(&mut found, &metrics);
    }
    if entity.kind != EntityKind::Module {
        suggest_removing_dead_code(&mut found, graph, facts, entity);
        suggest_renaming(&mut found, entity, &metrics);
        suggest_moving(&mut found, graph, entity);
    }
    let mut suggestions = found.suggestions;
    if let Some(only) = only {
        suggestions.retain(|suggestion| suggestion.kind == only);
    }
    RefactoringReport {
        entity: entity.clone(),
        metrics,
        suggestions,
    }
}

/// Suggestions for a function whose length, complexity, nesting, parameters or fan-out
/// exceed their thresholds, in that order.
fn suggest_from_function_figures(found: &mut Found, entity: &Entity, metrics: &Metrics) {
    if metrics.lines > LONG_FUNCTION_LINES {
        found.add(
            SuggestionKind::Extract,
            0.8,
            format!(
                "{} is {} lines long (over {LONG_FUNCTION_LINES}); extract its steps into functions",
                entity.name, metrics.lines
            ),
        );
    }
    if let Some(complexity) = metrics.cyclomatic_complexity
        && complexity > COMPLEX_FUNCTION
    {
        found.add(
            SuggestionKind::Simplify,
            0.8,
            format!(
                "High cyclomatic complexity ({complexity}, over {COMPLEX_FUNCTION}): {} independent paths; split the branches or use a lookup table or early returns",
                complexity
            ),
        );
    }
    if let Some(nesting) = metrics.max_nesting
        && nesting > DEEP_NESTING
    {
        found.add(
            SuggestionKind::Simplify,
            0.7,
            format!(
                "Nesting depth {nesting} (over {DEEP_NESTING}); use guard clauses or extract the inner blocks"
            ),
        );
    }
    if let Some(parameters) = metrics.parameters
        && parameters > MANY_PARAMETERS
    {
        found.add(
            SuggestionKind::Simplify,
            0.6,
            format!(
                "{parameters} parameters (over {MANY_PARAMETERS}); group related ones into a parameter object"
            ),
        );
    }
    if metrics.fan_out > HIGH_FAN_OUT {
        found.add(
            SuggestionKind::Extract,
            0.6,
            format!(
                "Depends on {} distinct entities (over {HIGH_FAN_OUT}); it coordinates too much, extract parts",
                metrics.fan_out
            ),
        );
    }
}

/// A suggestion to extract one shared function when other entities have the same body.
fn suggest_sharing_duplicates(found: &mut Found, facts: &RepoFacts, entity: &Entity) {
    let Some(group) = facts.duplicates.get(&entity.id) else {
        return;
    };
    let others: Vec<String> = group
        .iter()
        .filter(|other| **other != entity.id)
        .map(|id| id.to_string())
        .collect();
    let mut named = others
        .iter()
        .take(DUPLICATES_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if others.len() > DUPLICATES_NAMED {
        named.push_str(&format!(" and {} more", others.len() - DUPLICATES_NAMED));
    }
    found
        .add(
            SuggestionKind::Extract,
            0.9,
            format!("Same body as {named} (whitespace aside); extract one shared function"),
        )
        .related = others.into_iter().take(DUPLICATES_LISTED).collect();
}

/// A suggestion to inline a tiny function called from exactly one other entity, unless it
/// overrides something or is exported.
fn suggest_inlining(found: &mut Found, graph: &Graph, entity: &Entity, metrics: &Metrics) {
    let callers: BTreeSet<&EntityId> = graph
        .incoming(&entity.id)
        .filter(|edge| edge.kind == RelationKind::Calls && edge.from != entity.id)
        .map(|edge| &edge.from)
        .collect();
    let body_lines = metrics.lines.saturating_sub(1);
    if callers.len() != 1
        || body_lines > 2
        || overrides_something(graph, entity)
        || is_exported(graph, entity)
    {
        return;
    }
    let caller = callers
        .iter()
        .next()
        .map(|id| id.to_string())
        .unwrap_or_default();
    let reason = format!(
        "{}-line body called only from {caller}; inline it",
        body_lines.max(1)
    );
    found.add(SuggestionKind::Inline, 0.5, reason).related = vec![caller];
}

/// A suggestion to split a type with too many members or lines.
fn suggest_splitting_god_class(found: &mut Found, metrics: &Metrics) {
    let members = metrics.members.unwrap_or(0);
    if members > GOD_CLASS_METHODS || metrics.lines > GOD_CLASS_LINES {
        found.add(
            SuggestionKind::Extract,
            0.7,
            format!(
                "God class: {members} members, {} lines, depends on {} entities (thresholds {GOD_CLASS_METHODS} members, {GOD_CLASS_LINES} lines); split it by responsibility",
                metrics.lines, metrics.fan_out
            ),
        );
    }
}

/// A suggestion for each import cycle through the module's file.
fn suggest_breaking_import_cycles(found: &mut Found, facts: &RepoFacts, entity: &Entity) {
    for cycle in facts
        .import_cycles
        .iter()
        .filter(|cycle| cycle.files.contains(&entity.file_path))
    {
        let path: Vec<&str> = cycle.cycle.iter().map(|file| &**file).collect();
        found
            .add(
                SuggestionKind::Extract,
                0.9,
                format!(
                    "Import cycle: {}; extract what the files share into a module they both import, or invert one dependency",
                    path.join(" -> ")
                ),
            )
            .related = cycle.files.iter().map(|file| file.to_string()).collect();
    }
}

/// A suggestion to split a module over [`LONG_MODULE_LINES`].
fn suggest_splitting_long_module(found: &mut Found, metrics: &Metrics) {
    if metrics.lines > LONG_MODULE_LINES {
        found.add(
            SuggestionKind::Extract,
            0.6,
            format!(
                "Module is {} lines (over {LONG_MODULE_LINES}); split it",
                metrics.lines
            ),
        );
    }
}

/// A suggestion to remove an entity that looks unused, as sure as [`dead_code_confidence`].
fn suggest_removing_dead_code(
    found: &mut Found,
    graph: &Graph,
    facts: &RepoFacts,
    entity: &Entity,
) {
    if let Some((confidence, why)) = dead_code_confidence(graph, facts, entity) {
        found.add(
            SuggestionKind::Remove,
            confidence,
            format!("Dead code: {why}"),
        );
    }
}

/// A suggestion to rename an entity whose name is generic or very short.
fn suggest_renaming(found: &mut Found, entity: &Entity, metrics: &Metrics) {
    let name = entity.name.as_str();
    let too_short = name.chars().count() <= 2 && !SHORT_CLEAR_NAMES.contains(&name);
    if too_short || GENERIC_NAMES.contains(&name) {
        found.add(
            SuggestionKind::Rename,
            0.4,
            format!(
                "The name `{name}` says little about what it does ({} lines, {} callers)",
                metrics.lines, metrics.fan_in
            ),
        );
    }
}

/// A suggestion to move an entity whose users all live in other files, to their lowest
/// common directory, when that directory does not contain the entity's own.
fn suggest_moving(found: &mut Found, graph: &Graph, entity: &Entity) {
    let users: BTreeSet<&str> = graph
        .incoming(&entity.id)
        .filter(|edge| {
            is_dependency(edge.kind) && edge.kind != RelationKind::Imports && edge.from != entity.id
        })
        .filter_map(|edge| graph.location(&edge.from).map(|location| &*location.file))
        .collect();
    if users.is_empty() || users.contains(&*entity.file_path) || is_entry_point(entity) {
        return;
    }
    let own_directory = codegraph_graph::modules::directory(&entity.file_path);
    let target = lowest_common_directory(users.iter().copied());
    if is_within(own_directory, &target) {
        return;
    }
    let target = if target.is_empty() {
        ".".to_string()
    } else {
        target
    };
    let suggestion = found.add(
        SuggestionKind::Move,
        0.6,
        format!(
            "Used only from {} ({}), none in {}; move it to {target}, the lowest common directory of its users",
            if users.len() == 1 {
                "one file"
            } else {
                "other files"
            },
            users.iter().copied().collect::<Vec<_>>().join(", "),
            if own_directory.is_empty() {
                "."
            } else {
                own_directory
            },
        ),
    );
    suggestion.target = Some(target);
    suggestion.related = users.iter().map(|user| user.to_string()).collect();
}
