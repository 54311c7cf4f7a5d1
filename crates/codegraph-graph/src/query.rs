//! Queries over a graph snapshot, shared by every door (CLI, LSP, MCP): finding an entity from
//! what a user typed, callers and callees, implementations, symbol search, what is at a position.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::semantics;
use super::{Edge, Entity, EntityId, FileNode, FilePath, Graph};
use codegraph_model::{EntityKind, LineSpan, RelationKind, Resolution};

mod possible;
pub use possible::{
    LeftAside, LeftAsideIndex, PossibleCall, ambiguous_caller_ids, possible_callees,
    possible_caller_counts, possible_callers, possible_implementations, unresolved_caller_ids,
};

/// The outcome of looking an entity up by id, qualified name or plain name.
#[derive(Debug, Clone)]
pub enum Lookup {
    Found(Entity),
    /// Several entities answer to the name; never guess.
    Ambiguous(Vec<Entity>),
    /// Nothing answers; the closest names, best first.
    NotFound {
        closest: Vec<String>,
    },
    /// Not an exact id, and longer than [`MAX_NAME_BYTES`]: refused before any matching, which
    /// would cost time in its length.
    TooLong {
        length: usize,
    },
}

/// The longest text [`lookup`] matches by name (an exact entity id may be longer).
pub const MAX_NAME_BYTES: usize = 256;

/// Finds an entity from an id (`src/a.py::A.f`), a qualified name (`src.a.A.f`), a nested name
/// (`A.f`) or a plain name (`f`).
pub fn lookup(graph: &Graph, text: &str) -> Lookup {
    let text = text.trim();
    if let Some(entity) = graph.entity(text) {
        return Lookup::Found(entity);
    }
    if text.len() > MAX_NAME_BYTES {
        return Lookup::TooLong { length: text.len() };
    }
    let last = text.rsplit(['.', ':', '/', '\\']).next().unwrap_or(text);
    let candidates: Vec<Entity> = graph
        .named(last)
        .iter()
        .filter_map(|entry| graph.entity(&entry.id))
        .collect();
    if text != last {
        let matching: Vec<Entity> = candidates
            .iter()
            .filter(|entity| {
                entity.qualified_name == text
                    || entity.qualified_name.ends_with(&format!(".{text}"))
                    || entity.id.ends_with(&format!("::{text}"))
                    || entity
                        .qualified_name
                        .replace("::", ".")
                        .ends_with(&text.replace("::", "."))
            })
            .cloned()
            .collect();
        return decide(matching, graph, text);
    }
    decide(candidates, graph, text)
}

fn decide(mut candidates: Vec<Entity>, graph: &Graph, text: &str) -> Lookup {
    match candidates.len() {
        0 => Lookup::NotFound {
            closest: closest_names(graph, text, 5),
        },
        1 => Lookup::Found(candidates.remove(0)),
        _ => {
            candidates.sort_by_key(|left| left.id);
            Lookup::Ambiguous(candidates)
        }
    }
}

/// The names nearest to `text` by edit distance, for "did you mean". The text's last segment
/// is cut at [`MAX_NAME_BYTES`], and a name whose length alone puts it out of reach is not
/// compared, so the cost is bounded by the cap times the names of about the same length.
pub fn closest_names(graph: &Graph, text: &str, limit: usize) -> Vec<String> {
    let mut last = text.rsplit(['.', ':', '/']).next().unwrap_or(text);
    if last.len() > MAX_NAME_BYTES {
        let mut cut = MAX_NAME_BYTES;
        while !last.is_char_boundary(cut) {
            cut -= 1;
        }
        last = &last[..cut];
    }
    let wanted = last.to_lowercase();
    let wanted_length = wanted.chars().count();
    let reach = |longest: usize| (longest / 2).max(2);
    let mut scored: Vec<(usize, String)> = graph
        .by_name
        .keys()
        .enumerate()
        .filter_map(|(step, name)| {
            codegraph_model::cancel::checkpoint_every(step);
            let length = name.chars().count();
            // The edit distance is at least the difference in length.
            if length.abs_diff(wanted_length) > reach(length.max(wanted_length)) {
                return None;
            }
            let distance = edit_distance(&wanted, &name.to_lowercase());
            (distance <= reach(length.max(wanted_length))).then(|| (distance, name.to_string()))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(limit)
        .map(|(_, name)| name)
        .collect()
}

fn edit_distance(left: &str, right: &str) -> usize {
    let right: Vec<char> = right.chars().collect();
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    for (row, left_char) in left.chars().enumerate() {
        let mut current = vec![row + 1; right.len() + 1];
        for (column, right_char) in right.iter().enumerate() {
            let cost = usize::from(left_char != *right_char);
            current[column + 1] = (previous[column] + cost)
                .min(previous[column + 1] + 1)
                .min(current[column] + 1);
        }
        previous = current;
    }
    previous[right.len()]
}

/// One neighbour in the call graph with every call site between the two.
#[derive(Debug, Clone, Serialize)]
pub struct CallSite {
    pub entity: Entity,
    /// Call sites, in the caller's file.
    #[serde(skip)]
    pub sites: Vec<LineSpan>,
    pub call_lines: Vec<u32>,
    pub resolution: Resolution,
}

fn group_calls<'a>(
    graph: &Graph,
    edges: impl Iterator<Item = &'a Edge>,
    neighbour: impl Fn(&Edge) -> &EntityId,
) -> Vec<CallSite> {
    let mut grouped: FxHashMap<EntityId, (Vec<LineSpan>, Resolution)> = FxHashMap::default();
    for edge in edges.filter(|edge| edge.kind == RelationKind::Calls) {
        let entry = grouped
            .entry(*neighbour(edge))
            .or_insert_with(|| (Vec::new(), edge.resolution));
        if let Some(site) = graph.reference_site(edge) {
            entry.0.push(site);
        }
        entry.1 = entry.1.min(edge.resolution);
    }
    let mut calls: Vec<CallSite> = grouped
        .into_iter()
        .filter_map(|(id, (mut sites, resolution))| {
            sites.sort();
            sites.dedup();
            let call_lines = sites.iter().map(|site| site.start.line + 1).collect();
            Some(CallSite {
                entity: graph.entity(&id)?,
                sites,
                call_lines,
                resolution,
            })
        })
        .collect();
    calls.sort_by_key(|left| left.entity.id);
    calls
}

/// Who calls `id`, directly. A Go, C or C++ definition in a file outside the chosen build (a
/// platform variant such as `fd_windows.go` or `arch/arm64/kernel/setup.c`) has the callers of
/// its twin in the build.
///
/// Where the language's own server does so (TypeScript and JavaScript's, Go's), the callers of
/// a method include the calls made through the base or interface members it overrides or
/// implements, marked `dispatch`; the other way round, the callers of a Rust trait's method
/// (rust-analyzer) and of a TypeScript or JavaScript interface or base member (tsserver)
/// include the calls of its implementations and overrides, marked `dispatch` too.
pub fn callers(graph: &Graph, id: &str) -> Vec<CallSite> {
    let twins = build_twins(graph, id);
    let through_bases: Vec<Edge> = overridden_members(graph, id)
        .iter()
        .flat_map(|member| graph.incoming(member))
        .filter(|edge| edge.kind == RelationKind::Calls)
        .map(|edge| Edge {
            resolution: codegraph_model::Resolution::Dispatch,
            ..edge.clone()
        })
        .collect();
    // Calls of a Rust trait method's implementations, marked `dispatch` as well: not calls of
    // this definition, but of one of the methods that run for it.
    let implementations = graph
        .entity(id)
        .map(|entity| semantics::of(entity.language).dispatched_members(graph, &entity))
        .unwrap_or_default();
    let of_implementations: Vec<Edge> = implementations
        .iter()
        .flat_map(|member| graph.incoming(member))
        .filter(|edge| edge.kind == RelationKind::Calls)
        .map(|edge| Edge {
            resolution: codegraph_model::Resolution::Dispatch,
            ..edge.clone()
        })
        .collect();
    let callee_file = file_of(graph, id);
    let edges = graph
        .incoming(id)
        .chain(twins.iter().flat_map(|twin| graph.incoming(twin)))
        .chain(of_implementations.iter())
        .chain(through_bases.iter())
        .filter(|edge| in_build_of(graph, callee_file, &edge.from));
    group_calls(graph, edges, |edge| &edge.from)
}

fn file_of<'g>(graph: &'g Graph, id: &str) -> Option<&'g FileNode> {
    graph
        .location(id)
        .and_then(|loc| graph.file(&loc.file).map(|file| &**file))
}

/// Whether the call made by `caller` belongs in the answer about a definition in `callee`:
/// both in one build, as the callee's language decides (`Semantics::same_build`).
fn in_build_of(graph: &Graph, callee: Option<&FileNode>, caller: &EntityId) -> bool {
    match (callee, file_of(graph, caller)) {
        (Some(callee), Some(caller)) => semantics::of(callee.language).same_build(callee, caller),
        _ => true,
    }
}

/// The type a method belongs to: its lexical parent, or the type that defines it out of line.
pub fn owner_type(graph: &Graph, entity: &Entity) -> Option<EntityId> {
    entity
        .parent
        .filter(|parent| graph.kind_of(parent).is_some_and(EntityKind::is_type))
        .or_else(|| {
            graph
                .incoming(&entity.id)
                .find(|edge| edge.kind == RelationKind::Defines)
                .map(|edge| edge.from)
        })
}

/// The members of bases and interfaces that a method overrides or implements, for the
/// languages whose standard server counts calls through them as calls of the method: along
/// declared bases (TypeScript, JavaScript), and through the interfaces whose method sets the
/// type's methods cover (Go, where interfaces are satisfied implicitly).
pub fn overridden_members(graph: &Graph, id: &str) -> Vec<EntityId> {
    let Some(entity) = graph.entity(id) else {
        return Vec::new();
    };
    // An object literal's function implements the member of its variable's declared type
    // directly (`const provider: Provider = { now() {} }`), and what that member overrides.
    let implemented: Vec<Entity> = graph
        .outgoing(id)
        .filter(|edge| edge.kind == RelationKind::Implements)
        .filter_map(|edge| graph.entity(&edge.to))
        .filter(|member| member.kind == EntityKind::Method)
        .collect();
    if entity.kind != EntityKind::Method && implemented.is_empty() {
        return Vec::new();
    }
    let Some(owner) = owner_type(graph, &entity).or_else(|| {
        implemented
            .first()
            .and_then(|member| owner_type(graph, member))
    }) else {
        return Vec::new();
    };
    let mut found: Vec<EntityId> = implemented.iter().map(|member| member.id).collect();
    semantics::of(entity.language).overridden_members(
        graph,
        &entity,
        owner,
        &implemented,
        &mut found,
    );
    found.sort();
    found.dedup();
    found
}

/// The definitions of the same name and kind in files of the chosen build, when `id` is in a
/// file outside it: in the same Go package, or beside a C/C++ platform file (`fd_win32.c`
/// and `fd_unix.c`), or in the chosen architecture's tree (`arch/arm64/...` and
/// `arch/x86/...`).
fn build_twins(graph: &Graph, id: &str) -> Vec<EntityId> {
    let Some(loc) = graph.location(id) else {
        return Vec::new();
    };
    let (Some(file), Some(index)) = (graph.file(&loc.file), loc.index) else {
        return Vec::new();
    };
    let semantics = semantics::of(file.language);
    if semantics.file_in_build(file) {
        return Vec::new();
    }
    let directory = |path: &str| path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    let here = directory(&file.path);
    // Go's variants share a package (a directory); a C file's may be another architecture's
    // tree (`arch/arm64/kernel/setup.c` and `arch/x86/kernel/setup.c`).
    let arch_tree = semantics.variant_tree(&file.path);
    let nested = file.summary.nested_name(index);
    let name = &file.summary.defs[index as usize].name;
    let kind = file.summary.defs[index as usize].kind;
    graph
        .named(name)
        .iter()
        .filter(|entry| entry.file != file.path && entry.language == file.language)
        .filter(|entry| {
            directory(&entry.file) == here || (arch_tree && semantics.variant_tree(&entry.file))
        })
        .filter(|entry| {
            graph.file(&entry.file).is_some_and(|twin| {
                semantics.file_in_build(twin)
                    && twin.summary.nested_name(entry.index) == nested
                    && twin.summary.defs[entry.index as usize].kind == kind
            })
        })
        .map(|entry| entry.id)
        .collect()
}

/// What `id` calls, directly.
///
/// The callees of a Python function include every call written inside its definition, as
/// pyright's outgoing calls do: its decorators' (made by the scope around it, where they run)
/// and those of the functions and classes nested in it (made by them). Its callers are the
/// scopes that make the calls, as in pyright's incoming calls.
pub fn callees(graph: &Graph, id: &str) -> Vec<CallSite> {
    let written_inside = graph
        .entity(id)
        .map(|entity| semantics::of(entity.language).calls_written_inside(graph, id))
        .unwrap_or_default();
    group_calls(
        graph,
        graph.outgoing(id).chain(written_inside.iter()),
        |edge| &edge.to,
    )
}

/// What `id` calls, and what those calls may run: for each method it calls, the methods that
/// implement or override it, marked `dispatch` (the callers of an implementation already
/// include the calls made through what it implements). This is the answer to "what can run
/// from here" that the call walks give; the language servers' outgoing calls, which the LSP
/// door matches, list the called member alone ([`callees`]).
pub fn callees_and_dispatch(graph: &Graph, id: &str) -> Vec<CallSite> {
    let direct = callees(graph, id);
    let mut calls = direct.clone();
    for call in &direct {
        if call.entity.kind != EntityKind::Method {
            continue;
        }
        for member in implementations(graph, &call.entity.id) {
            if member.id == id || calls.iter().any(|known| known.entity.id == member.id) {
                continue;
            }
            calls.push(CallSite {
                entity: member,
                sites: call.sites.clone(),
                call_lines: call.call_lines.clone(),
                resolution: Resolution::Dispatch,
            });
        }
    }
    calls
}

/// An entity reached through the call graph at some depth (1 = direct).
#[derive(Debug, Clone, Serialize)]
pub struct Reached {
    #[serde(flatten)]
    pub entity: Entity,
    pub depth: u32,
    /// The entity it was reached from (the previous hop).
    pub via: EntityId,
    /// The lines (1-based) of the calls between it and `via`, and how they were resolved
    /// (`dispatch` for a call of an override or implementation, ...).
    pub call_lines: Vec<u32>,
    pub resolution: codegraph_model::Resolution,
}

/// Callers (`incoming = true`) or callees, breadth first up to `max_depth` hops.
/// Which way a walk of the call graph goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallDirection {
    /// Who calls the entity.
    Callers,
    /// What the entity calls.
    Callees,
}

impl CallDirection {
    /// `callers` or `callees`.
    pub fn noun(self) -> &'static str {
        match self {
            CallDirection::Callers => "callers",
            CallDirection::Callees => "callees",
        }
    }
}

pub fn call_closure(
    graph: &Graph,
    id: &str,
    direction: CallDirection,
    max_depth: u32,
) -> Vec<Reached> {
    // `seen` holds what was reported, `expanded` what was walked from: a recursive function is
    // its own caller (reported at depth 1), but is walked from once.
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut expanded: FxHashSet<EntityId> = FxHashSet::default();
    expanded.insert(EntityId::from(id));
    let mut frontier = vec![EntityId::from(id)];
    let mut reached = Vec::new();
    for depth in 1..=max_depth {
        let mut next = Vec::new();
        for current in &frontier {
            codegraph_model::cancel::checkpoint();
            let neighbours = match direction {
                CallDirection::Callers => callers(graph, current),
                CallDirection::Callees => callees_and_dispatch(graph, current),
            };
            for call in neighbours {
                if seen.insert(call.entity.id) {
                    if expanded.insert(call.entity.id) {
                        next.push(call.entity.id);
                    }
                    reached.push(Reached {
                        entity: call.entity,
                        depth,
                        via: *current,
                        call_lines: call.call_lines,
                        resolution: call.resolution,
                    });
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    reached
}

/// Types that extend or implement `id`, transitively; for a method, the methods of those types
/// that override or implement it.
pub fn implementations(graph: &Graph, id: &str) -> Vec<Entity> {
    implementations_resolved(graph, id)
        .into_iter()
        .map(|(entity, _)| entity)
        .collect()
}

/// [`implementations`], each with how the relation is known: the resolution of the declared
/// base edge that reaches it, or [`Resolution::MethodSet`] for a Go type whose method set
/// covers the interface's.
pub fn implementations_resolved(graph: &Graph, id: &str) -> Vec<(Entity, Resolution)> {
    let Some(entity) = graph.entity(id) else {
        return Vec::new();
    };
    // A module can be a base too: Ruby's `include`d and `extend`ed modules (mixins).
    if entity.kind.is_type() || entity.kind == EntityKind::Module {
        let mut found: Vec<(Entity, Resolution)> = subtypes(graph, id)
            .into_iter()
            .filter_map(|sub| {
                let resolution = graph
                    .outgoing(&sub)
                    .find(|edge| {
                        matches!(edge.kind, RelationKind::Extends | RelationKind::Implements)
                    })
                    .map_or(Resolution::Syntax, |edge| edge.resolution);
                Some((graph.entity(&sub)?, resolution))
            })
            .collect();
        if entity.kind == EntityKind::Interface {
            let semantics = semantics::of(entity.language);
            for implementer in semantics.implicit_implementers(graph, id) {
                if !found.iter().any(|(known, _)| known.id == implementer)
                    && let Some(implementer) = graph.entity(&implementer)
                {
                    found.push((implementer, Resolution::MethodSet));
                }
            }
        }
        return found;
    }
    if entity.kind != EntityKind::Method {
        return Vec::new();
    }
    // Object literals' functions that implement it (`const p: Provider = { now() {} }`).
    let mut found: Vec<(Entity, Resolution)> = graph
        .incoming(id)
        .filter(|edge| edge.kind == RelationKind::Implements)
        .filter_map(|edge| Some((graph.entity(&edge.from)?, edge.resolution)))
        .collect();
    let Some(owner) = owner_type(graph, &entity) else {
        return found;
    };
    for sub in subtypes(graph, &owner) {
        for member in members(graph, &sub) {
            if member.name == entity.name && member.kind == EntityKind::Method {
                found.push((member, Resolution::Syntax));
            }
        }
    }
    let semantics = semantics::of(entity.language);
    if graph.kind_of(&owner) == Some(EntityKind::Interface) {
        for implementer in semantics.implicit_implementers(graph, &owner) {
            for member in semantics.methods_named(graph, &implementer, &entity.name) {
                found.push((member, Resolution::MethodSet));
            }
        }
    }
    found.sort_by_key(|left| left.0.id);
    found.dedup_by(|left, right| left.0.id == right.0.id);
    found
}

/// Every type below `id` in the inheritance graph, nearest first.
pub fn subtypes(graph: &Graph, id: &str) -> Vec<EntityId> {
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    let mut order = Vec::new();
    let mut frontier = vec![EntityId::from(id)];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for current in frontier {
            let mut children: Vec<EntityId> = graph
                .incoming(&current)
                .filter(|edge| {
                    matches!(edge.kind, RelationKind::Extends | RelationKind::Implements)
                })
                .map(|edge| edge.from)
                .collect();
            children.sort();
            for child in children {
                if seen.insert(child) {
                    order.push(child);
                    next.push(child);
                }
            }
        }
        frontier = next;
    }
    order
}

/// What "go to implementation" lists for `entity`: its implementations and overrides; where
/// interfaces are satisfied implicitly (Go) and it has none, the other way, as gopls does: the
/// interfaces a concrete type satisfies, the interface methods a concrete method implements.
pub fn implementation_targets(graph: &Graph, entity: &Entity) -> Vec<Entity> {
    let found = implementations(graph, &entity.id);
    if !found.is_empty() || !semantics::of(entity.language).interfaces_are_implicit() {
        return found;
    }
    if entity.kind == EntityKind::Method {
        overridden_members(graph, &entity.id)
            .iter()
            .filter_map(|id| graph.entity(id))
            .collect()
    } else if entity.kind.is_type() {
        supertypes(graph, &entity.id)
            .into_iter()
            .map(|(base, _)| base)
            .collect()
    } else {
        found
    }
}

/// The direct bases of a type.
/// Also the interfaces its method set satisfies where the language's interfaces are implicit
/// (Go).
pub fn supertypes(graph: &Graph, id: &str) -> Vec<(Entity, RelationKind)> {
    let mut found: Vec<(Entity, RelationKind)> = graph
        .outgoing(id)
        .filter(|edge| matches!(edge.kind, RelationKind::Extends | RelationKind::Implements))
        .filter_map(|edge| Some((graph.entity(&edge.to)?, edge.kind)))
        .collect();
    let implicit = graph
        .entity(id)
        .filter(|entity| entity.kind.is_type() && entity.kind != EntityKind::Interface)
        .map(|entity| semantics::of(entity.language).implicit_interfaces(graph, id))
        .unwrap_or_default();
    for interface in implicit {
        if !found.iter().any(|(known, _)| known.id == interface)
            && let Some(interface) = graph.entity(&interface)
        {
            found.push((interface, RelationKind::Implements));
        }
    }
    found
}

/// Members of a type: what it contains and what is defined for it elsewhere.
pub fn members(graph: &Graph, id: &str) -> Vec<Entity> {
    graph
        .outgoing(id)
        .filter(|edge| matches!(edge.kind, RelationKind::Contains | RelationKind::Defines))
        .filter_map(|edge| graph.entity(&edge.to))
        .collect()
}

/// Every non-structural reference to an entity (calls, uses, imports, inheritance): the file
/// that holds it and where, in path and position order.
pub fn references(graph: &Graph, id: &str) -> Vec<(FilePath, LineSpan)> {
    let mut sites: Vec<(FilePath, LineSpan)> = graph
        .incoming_in_files(id)
        .filter(|(_, edge)| !matches!(edge.kind, RelationKind::Contains | RelationKind::Defines))
        .filter_map(|(file, edge)| Some((file.path, file.summary.locate(file.site(edge)?))))
        .collect();
    sites.sort();
    sites.dedup();
    sites
}

/// The innermost entity whose span contains `byte` in a file (the module if none).
pub fn entity_at(graph: &Graph, path: &str, byte: u32) -> Option<Entity> {
    let file = graph.file(path)?;
    let index = file.summary.innermost_def_at(byte);
    Some(super::materialize(file, index))
}

/// What the name at `byte` refers to: the targets of a reference there, or the definition
/// whose name is there.
pub fn targets_at(graph: &Graph, path: &str, byte: u32) -> Vec<EntityId> {
    let Some(file) = graph.file(path) else {
        return Vec::new();
    };
    let mut targets: Vec<EntityId> = file
        .resolved
        .edges
        .iter()
        .filter(|edge| {
            !matches!(edge.kind, RelationKind::Contains | RelationKind::Defines)
                && file.site(edge).is_some_and(|site| site.contains_byte(byte))
        })
        .map(|edge| edge.to)
        .collect();
    if targets.is_empty() {
        for (index, def) in file.summary.defs.iter().enumerate() {
            if def.name_span.contains_byte(byte) {
                targets.push(file.ids[index]);
            }
        }
    }
    // The text is read (from disk, hash-checked, unless an editor holds it) once, and only
    // when neither an edge nor a definition's name is at `byte`.
    if targets.is_empty()
        && let Some(text) = file.text()
    {
        targets = declared_members_at(graph, file, &text, byte);
        if targets.is_empty() {
            targets = overloaded_function_at(file, &text, byte);
        }
        if targets.is_empty() {
            targets = assigned_function_at(file, &text, byte);
        }
    }
    targets.sort();
    targets.dedup();
    targets
}

/// The implementation of a TypeScript function whose overload signature names it at `byte`
/// (`function f(a: string): void` before `function f(a: any) {}`): overload signatures are no
/// definitions of their own, so the name there means the function they declare, as tsserver
/// answers there.
fn overloaded_function_at(file: &super::FileNode, text: &str, byte: u32) -> Vec<EntityId> {
    if !semantics::of(file.language).overload_signatures() {
        return Vec::new();
    }
    let Some((start, word)) = word_at(text, byte) else {
        return Vec::new();
    };
    let before = text[..start].trim_end();
    if !before.ends_with("function") {
        return Vec::new();
    }
    let scope = file.summary.innermost_def_at(byte);
    file.summary
        .defs
        .iter()
        .enumerate()
        .find(|(_, def)| {
            def.parent == scope
                && def.name == word
                && def.kind.is_callable()
                && def.span.start_byte as usize > start
        })
        .map(|(index, _)| vec![file.ids[index]])
        .unwrap_or_default()
}

/// The definition a named JavaScript or TypeScript function expression is assigned to, at the
/// expression's name: `View.prototype.resolve = function resolve(dir, file) {` defines
/// `View.resolve` at the first `resolve`, and tsserver's call hierarchy item is at the second,
/// the function's own name (which may differ from the property's). Only `= function NAME`,
/// `: Type = function NAME` or `: function NAME` (maybe `async`, maybe a generator) right after
/// the definition's name counts: a function expression elsewhere in its body is not its value.
fn assigned_function_at(file: &super::FileNode, text: &str, byte: u32) -> Vec<EntityId> {
    if !semantics::of(file.language).object_members() {
        return Vec::new();
    }
    let Some((start, word)) = word_at(text, byte) else {
        return Vec::new();
    };
    let Some(index) = file.summary.innermost_def_at(byte) else {
        return Vec::new();
    };
    let def = &file.summary.defs[index as usize];
    let name_end = def.name_span.end_byte as usize;
    if word.is_empty() || !def.kind.is_callable() || name_end > start {
        return Vec::new();
    }
    let between = text[name_end..start].trim();
    // `const computed: IComputedFactory = function computed`: the declared type is skipped.
    let between = match between.rsplit_once('=') {
        Some((declared, value)) if declared.trim_start().starts_with(':') => Some(value),
        _ => between.strip_prefix(['=', ':']),
    };
    let between = between
        .map(str::trim_start)
        .map(|rest| rest.strip_prefix("async").map_or(rest, str::trim_start));
    if between.map(|rest| rest.trim_end_matches('*').trim_end()) == Some("function") {
        vec![file.ids[index as usize]]
    } else {
        Vec::new()
    }
}

/// The identifier around `byte` and where it starts (JavaScript's `$` included).
fn word_at(text: &str, byte: u32) -> Option<(usize, &str)> {
    word_of(text, byte, |c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The run of `is_word` characters around `byte` and where it starts; `None` when it is empty
/// or `byte` is inside a character.
fn word_of(text: &str, byte: u32, is_word: impl Fn(char) -> bool) -> Option<(usize, &str)> {
    let at = (byte as usize).min(text.len());
    if !text.is_char_boundary(at) {
        return None;
    }
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(at, |(index, _)| index);
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(index, _)| at + index);
    let word = &text[start..end];
    (!word.is_empty()).then_some((start, word))
}

/// A member declared in a type's body and defined elsewhere (a C++ method declared in its
/// class, defined in a `.cpp`): the name at `byte`, inside a type, names the type's members of
/// that name that live out of line.
fn declared_members_at(
    graph: &Graph,
    file: &super::FileNode,
    text: &str,
    byte: u32,
) -> Vec<EntityId> {
    let Some((_, word)) = word_of(text, byte, |c| c.is_alphanumeric() || c == '_') else {
        return Vec::new();
    };
    let Some(owner) = file.summary.innermost_def_at(byte) else {
        return Vec::new();
    };
    if !file.summary.defs[owner as usize].kind.is_type() {
        return Vec::new();
    }
    let owner_id = &file.ids[owner as usize];
    members(graph, owner_id)
        .into_iter()
        .filter(|member| member.name == word)
        .map(|member| member.id)
        .collect()
}

/// A ranked symbol match.
#[derive(Debug, Clone, Serialize)]
pub struct SymbolMatch {
    #[serde(flatten)]
    pub entity: Entity,
    pub score: f64,
}

/// How well `name` matches `query`: exact, then prefix, then camel-hump / word starts, then
/// subsequence; `None` when it does not match at all.
pub fn match_score(query: &str, name: &str) -> Option<f64> {
    if query.is_ascii() && name.is_ascii() {
        return ascii_match_score(
            query.as_bytes(),
            &query.to_ascii_lowercase().into_bytes(),
            name.as_bytes(),
        );
    }
    unicode_match_score(query, name)
}

/// [`match_score`] for ASCII text without allocating: it runs once per name in the workspace
/// for every `workspace/symbol` request.
fn ascii_match_score(query: &[u8], query_lower: &[u8], name: &[u8]) -> Option<f64> {
    ascii_match_score_above(query, query_lower, name, f64::NEG_INFINITY)
}

/// [`ascii_match_score`], or `None` as soon as the score is known to be below `floor`: each
/// tier's scores lie below the tier before it (prefix matches above 0.75, word starts in 0.6 to
/// 0.7, substrings in 0.5 to 0.6, subsequences at most 0.4), so a search that already holds
/// enough better names skips the costly tiers.
fn ascii_match_score_above(
    query: &[u8],
    query_lower: &[u8],
    name: &[u8],
    floor: f64,
) -> Option<f64> {
    if query.is_empty() {
        return Some(0.1);
    }
    // Every kind of match is also a case-insensitive subsequence: most names fail this first.
    let mut position = 0;
    for &byte in name {
        if query_lower[position] == byte.to_ascii_lowercase() {
            position += 1;
            if position == query_lower.len() {
                break;
            }
        }
    }
    if position < query_lower.len() {
        return None;
    }
    if name == query {
        return Some(1.0);
    }
    if name.eq_ignore_ascii_case(query) {
        return Some(0.95);
    }
    let length_penalty =
        (name.len().saturating_sub(query.len())) as f64 / (name.len() as f64 * 10.0 + 1.0);
    if name.starts_with(query) {
        return Some(0.9 - length_penalty);
    }
    if name.len() >= query.len() && name[..query.len()].eq_ignore_ascii_case(query) {
        return Some(0.85 - length_penalty);
    }
    if floor > 0.7 {
        return None;
    }
    // Word starts: `AuthService` has `A`, `S`; `auth_service` has `a`, `s`.
    let mut matched = 0;
    let mut starts = 0;
    let mut previous: Option<u8> = None;
    for &byte in name {
        let start = match previous {
            None => byte.is_ascii_alphanumeric(),
            Some(before) => {
                (byte.is_ascii_uppercase() && !before.is_ascii_uppercase())
                    || (byte.is_ascii_alphanumeric() && !before.is_ascii_alphanumeric())
            }
        };
        if start {
            starts += 1;
            if matched < query_lower.len() && query_lower[matched] == byte.to_ascii_lowercase() {
                matched += 1;
            }
        }
        previous = Some(byte);
    }
    if matched == query_lower.len() && query.len() <= starts {
        return Some(0.7 - length_penalty);
    }
    if floor > 0.6 {
        return None;
    }
    if name.len() >= query.len()
        && name
            .windows(query.len())
            .any(|window| window.eq_ignore_ascii_case(query))
    {
        return Some(0.6 - length_penalty);
    }
    // A subsequence, as found first.
    Some(0.4 - length_penalty).filter(|score| *score >= floor)
}

fn unicode_match_score(query: &str, name: &str) -> Option<f64> {
    if query.is_empty() {
        return Some(0.1);
    }
    if name == query {
        return Some(1.0);
    }
    let query_lower = query.to_lowercase();
    let name_lower = name.to_lowercase();
    if name_lower == query_lower {
        return Some(0.95);
    }
    let length_penalty =
        (name.len().saturating_sub(query.len())) as f64 / (name.len() as f64 * 10.0 + 1.0);
    if name.starts_with(query) {
        return Some(0.9 - length_penalty);
    }
    if name_lower.starts_with(&query_lower) {
        return Some(0.85 - length_penalty);
    }
    // Word starts: `AuthService` has `A`, `S`; `auth_service` has `a`, `s`.
    let starts: Vec<char> = word_starts(name)
        .into_iter()
        .map(|character| character.to_ascii_lowercase())
        .collect();
    if is_subsequence(&query_lower.chars().collect::<Vec<_>>(), &starts)
        && query.len() <= starts.len()
    {
        return Some(0.7 - length_penalty);
    }
    if name_lower.contains(&query_lower) {
        return Some(0.6 - length_penalty);
    }
    if is_subsequence(
        &query_lower.chars().collect::<Vec<_>>(),
        &name_lower.chars().collect::<Vec<_>>(),
    ) {
        return Some(0.4 - length_penalty);
    }
    None
}

fn word_starts(name: &str) -> Vec<char> {
    let mut starts = Vec::new();
    let mut previous: Option<char> = None;
    for character in name.chars() {
        let start = match previous {
            None => character.is_alphanumeric(),
            Some(before) => {
                (character.is_uppercase() && !before.is_uppercase())
                    || (character.is_alphanumeric() && !before.is_alphanumeric())
            }
        };
        if start {
            starts.push(character);
        }
        previous = Some(character);
    }
    starts
}

fn is_subsequence(needle: &[char], haystack: &[char]) -> bool {
    let mut position = 0;
    for character in haystack {
        if position < needle.len() && needle[position] == *character {
            position += 1;
        }
    }
    position == needle.len()
}

/// Workspace symbols matching `query`, best first, at most `limit`.
pub fn symbols<'a>(graph: &'a Graph, query: &str, limit: usize) -> Vec<SymbolMatch> {
    let query = NameQuery::new(query.trim());
    let list = graph.name_list();
    // Only the best names can contribute `limit` entities: each scan keeps its best
    // `limit + 1` (ties broken by length and text, as the final order), not every match.
    let keep = limit.max(1) + 1;
    let flag = codegraph_model::cancel::current();
    let scan = |scored: Vec<(f64, &'a str)>, slice: std::ops::Range<usize>| {
        // The request's flag, checked on whichever thread scans the slice.
        if let Some(flag) = &flag {
            flag.checkpoint();
        }
        query.scan(list, slice, keep, scored)
    };
    // Most names are rejected by their mask alone; the rest are scored. A large graph's names
    // are scanned on every core, a slice at a time (the order of `scored` does not matter: it
    // is sorted by score, length and name below).
    const SLICE: usize = 4096;
    let slices = (0..list.names.len())
        .step_by(SLICE)
        .map(|start| start..(start + SLICE).min(list.names.len()));
    let mut scored: Vec<(f64, &str)> = if list.names.len() > 16 * SLICE {
        slices
            .collect::<Vec<_>>()
            .into_par_iter()
            .fold(Vec::new, scan)
            .reduce(Vec::new, |mut left, right| {
                left.extend(right);
                prune(&mut left, keep);
                left
            })
    } else {
        slices.fold(Vec::new(), scan)
    };
    prune(&mut scored, keep);
    scored.sort_by(by_score);
    entities_of_names(graph, scored, limit)
}

/// A symbol query, prepared once for every name it is matched against.
struct NameQuery<'q> {
    text: &'q str,
    lower: Vec<u8>,
    mask: u32,
    ascii: bool,
}

impl<'q> NameQuery<'q> {
    fn new(text: &'q str) -> Self {
        NameQuery {
            text,
            lower: text.to_ascii_lowercase().into_bytes(),
            mask: super::letter_mask(text),
            ascii: text.is_ascii(),
        }
    }

    /// Scans one slice of the name list into a running list of the best `keep` names.
    fn scan<'a>(
        &self,
        list: &'a super::NameList,
        slice: std::ops::Range<usize>,
        keep: usize,
        mut scored: Vec<(f64, &'a str)>,
    ) -> Vec<(f64, &'a str)> {
        let mut floor = floor_of(&scored, keep);
        for index in slice {
            if !super::may_match(self.mask, list.masks[index]) {
                continue;
            }
            let name = list.text_of(index);
            // The mask says whether the name is ASCII, without reading it again.
            let ascii = list.masks[index] & super::NON_ASCII == 0;
            let score = if self.ascii && ascii {
                ascii_match_score_above(self.text.as_bytes(), &self.lower, name.as_bytes(), floor)
            } else {
                unicode_match_score(self.text, name)
            };
            if let Some(score) = score {
                scored.push((score, name));
                if scored.len() >= 4 * keep {
                    prune(&mut scored, keep);
                    floor = floor_of(&scored, keep);
                }
            }
        }
        prune(&mut scored, keep);
        scored
    }
}

/// Best first: by score, then the shorter name, then the name.
fn by_score(left: &(f64, &str), right: &(f64, &str)) -> std::cmp::Ordering {
    right
        .0
        .total_cmp(&left.0)
        .then_with(|| left.1.len().cmp(&right.1.len()))
        .then_with(|| left.1.cmp(right.1))
}

/// Keeps the best `keep` of `scored`, in no particular order.
fn prune(scored: &mut Vec<(f64, &str)>, keep: usize) {
    if scored.len() > keep {
        scored.select_nth_unstable_by(keep - 1, by_score);
        scored.truncate(keep);
    }
}

/// The lowest score among `keep` names already found: a name scoring below it cannot be among
/// the best `keep` of all (their order is by score first).
fn floor_of(scored: &[(f64, &str)], keep: usize) -> f64 {
    if scored.len() >= keep {
        scored
            .iter()
            .map(|(score, _)| *score)
            .fold(f64::INFINITY, f64::min)
    } else {
        f64::NEG_INFINITY
    }
}

/// The entities of the best names, types first within a name, at most `limit`.
fn entities_of_names(graph: &Graph, scored: Vec<(f64, &str)>, limit: usize) -> Vec<SymbolMatch> {
    let mut matches = Vec::new();
    for (score, name) in scored {
        let mut entities: Vec<Entity> = graph
            .named(name)
            .iter()
            .filter_map(|entry| graph.entity(&entry.id))
            .collect();
        entities.sort_by(|left, right| {
            right
                .kind
                .is_type()
                .cmp(&left.kind.is_type())
                .then_with(|| left.id.cmp(&right.id))
        });
        for entity in entities {
            matches.push(SymbolMatch { entity, score });
            if matches.len() >= limit {
                return matches;
            }
        }
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_prefers_exact_then_prefix_then_humps_then_subsequence() {
        let exact = match_score("AuthService", "AuthService").unwrap();
        let prefix = match_score("Auth", "AuthService").unwrap();
        let humps = match_score("AS", "AuthService").unwrap();
        let snake_humps = match_score("as", "auth_service").unwrap();
        let subsequence = match_score("athsvc", "AuthService").unwrap();
        assert!(exact > prefix && prefix > humps && humps > subsequence);
        assert!(snake_humps > subsequence);
        assert!(match_score("xyz", "AuthService").is_none());
    }

    #[test]
    fn the_ascii_fast_path_scores_like_the_general_one() {
        let names = [
            "AuthService",
            "auth_service",
            "authenticate",
            "HTTPServer",
            "issue_token",
            "x",
            "Format",
        ];
        let queries = [
            "",
            "auth",
            "Auth",
            "AS",
            "as",
            "athsvc",
            "token",
            "srv",
            "AuthService",
            "authservice",
            "q",
        ];
        for name in names {
            for query in queries {
                let full = ascii_match_score(
                    query.as_bytes(),
                    query.to_ascii_lowercase().as_bytes(),
                    name.as_bytes(),
                );
                assert_eq!(
                    full,
                    unicode_match_score(query, name),
                    "{query:?} against {name:?}"
                );
                // Given a floor, a score at or above it is the same; one below may be skipped.
                for floor in [0.3, 0.45, 0.55, 0.65, 0.75, 0.9, 1.0] {
                    let above = ascii_match_score_above(
                        query.as_bytes(),
                        query.to_ascii_lowercase().as_bytes(),
                        name.as_bytes(),
                        floor,
                    );
                    match full {
                        Some(score) if score >= floor => assert_eq!(above, full),
                        _ => assert!(above.is_none() || above == full, "{query:?} {name:?}"),
                    }
                }
            }
        }
    }

    /// The letter mask rejects exactly names that cannot match, never one that can: every
    /// pair below is checked both ways, non-ASCII texts (the Kelvin sign folds to `k`) included.
    #[test]
    fn the_letter_mask_rejects_only_names_that_cannot_match() {
        use crate::{letter_mask, may_match};
        let names = [
            "AuthService",
            "auth_service",
            "HTTPServer",
            "parse_v2",
            "$scope",
            "\u{212A}elvin",
            "Größe",
            "x",
        ];
        let queries = [
            "", "auth", "AS", "srv", "v2", "2", "_", "$", "k", "kel", "grö", "GRÖ", "zz", "q",
        ];
        let mut rejected = Vec::new();
        for name in names {
            for query in queries {
                let may = may_match(letter_mask(query), letter_mask(name));
                let score = match_score(query, name);
                assert!(
                    may || score.is_none(),
                    "{query:?} rejected {name:?} yet scores"
                );
                if !may {
                    rejected.push((query, name));
                }
            }
        }
        // What the mask saves: ASCII pairs missing a character, nothing else.
        assert!(rejected.contains(&("zz", "AuthService")));
        assert!(rejected.contains(&("v2", "HTTPServer")));
        assert!(rejected.contains(&("_", "AuthService")));
        assert!(
            !rejected
                .iter()
                .any(|(query, name)| !query.is_ascii() || !name.is_ascii())
        );
        assert!(match_score("k", "\u{212A}elvin").is_some());
    }
}
