//! Module-level views over a snapshot: what an entity depends on and what depends on it
//! ([`find_dependencies`]), and how one file fits in the codebase ([`analyze_module_structure`]):
//! its outline, imports, exported API, the files it depends on and that depend on it, and its
//! metrics.
//!
//! "Depends on" means a resolved call, import, use, `extends` or `implements` edge; containment is
//! structure, not dependency. Ambiguous references are not edges, so they count nowhere here.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use codegraph_model::Name;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::communities::is_dependency;
use super::filter::FileFilter;
use super::refactor;
use codegraph_graph::query::{self, Lookup};
use codegraph_graph::{Entity, EntityId, FileNode, FilePath, Graph, materialize};
use codegraph_lang::Language;
use codegraph_model::{EntityKind, FileClass, RelationKind, Resolution};

/// The deepest walk [`find_dependencies`] makes.
pub const MAX_DEPTH: u32 = 10;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Who depends on the entity (incoming edges).
    Upstream,
    /// What the entity depends on (outgoing edges).
    Downstream,
    #[default]
    Both,
}

impl Direction {
    pub fn parse(text: &str) -> Option<Direction> {
        Some(match text.trim().to_lowercase().as_str() {
            "upstream" | "up" | "dependents" | "incoming" => Direction::Upstream,
            "downstream" | "down" | "dependencies" | "outgoing" => Direction::Downstream,
            "both" | "all" => Direction::Both,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Upstream => "upstream",
            Direction::Downstream => "downstream",
            Direction::Both => "both",
        }
    }
}

/// One entity reached by [`find_dependencies`].
#[derive(Debug, Clone, Serialize)]
pub struct Dependency {
    pub entity: Entity,
    /// 1 for a direct dependency or dependent, 2 for the next hop, ...
    pub depth: u32,
    /// `Downstream` (a dependency) or `Upstream` (a dependent); never `Both`.
    pub direction: Direction,
    /// The edge that reached it: calls, imports, uses, extends or implements.
    pub relation: RelationKind,
    /// How that edge was resolved.
    pub resolution: Resolution,
    /// The entity it was reached from.
    pub via: EntityId,
}

/// The entities `entity` depends on (downstream) and/or that depend on it (upstream), breadth
/// first up to `depth` hops (clamped to 1..=[`MAX_DEPTH`]); downstream ones first, each entity
/// once per direction, at its smallest depth.
pub fn find_dependencies(
    graph: &Graph,
    entity: &Entity,
    direction: Direction,
    depth: u32,
) -> Vec<Dependency> {
    find_dependencies_filtered(graph, entity, direction, depth, FileFilter::ALL)
}

/// [`find_dependencies`] through the code `filter` admits only (a test that calls the entity is
/// neither listed nor walked through when tests are not admitted); under production first,
/// each depth lists production code before the rest.
pub fn find_dependencies_filtered(
    graph: &Graph,
    entity: &Entity,
    direction: Direction,
    depth: u32,
    filter: FileFilter,
) -> Vec<Dependency> {
    let depth = depth.clamp(1, MAX_DEPTH);
    let mut found = Vec::new();
    if direction != Direction::Upstream {
        found.extend(walk(
            graph,
            &entity.id,
            Direction::Downstream,
            depth,
            filter,
        ));
    }
    if direction != Direction::Downstream {
        found.extend(walk(graph, &entity.id, Direction::Upstream, depth, filter));
    }
    if filter.is_production_first() {
        // Stable: the walk's order stays within each group.
        found.sort_by_key(|dependency| {
            (
                dependency.direction != Direction::Downstream,
                dependency.depth,
                graph.class_of(&dependency.entity.id) != FileClass::Production,
            )
        });
    }
    found
}

/// Breadth-first over dependency edges in one direction, through admitted code only.
fn walk(
    graph: &Graph,
    id: &EntityId,
    direction: Direction,
    depth: u32,
    filter: FileFilter,
) -> Vec<Dependency> {
    let downstream = direction == Direction::Downstream;
    let mut seen: FxHashSet<EntityId> = FxHashSet::default();
    seen.insert(*id);
    let mut frontier = vec![*id];
    let mut reached = Vec::new();
    for hop in 1..=depth {
        let mut next = Vec::new();
        for current in &frontier {
            codegraph_model::cancel::checkpoint();
            let mut neighbours: Vec<(EntityId, RelationKind, Resolution)> = if downstream {
                graph
                    .outgoing(current)
                    .filter(|edge| is_dependency(edge.kind))
                    .map(|edge| (edge.to, edge.kind, edge.resolution))
                    .collect()
            } else {
                graph
                    .incoming(current)
                    .filter(|edge| is_dependency(edge.kind))
                    .map(|edge| (edge.from, edge.kind, edge.resolution))
                    .collect()
            };
            neighbours.sort();
            for (neighbour, relation, resolution) in neighbours {
                if filter.admits(graph.class_of(&neighbour))
                    && seen.insert(neighbour)
                    && let Some(entity) = graph.entity(&neighbour)
                {
                    next.push(neighbour);
                    reached.push(Dependency {
                        entity,
                        depth: hop,
                        direction,
                        relation,
                        resolution,
                        via: *current,
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

/// Finds the file a caller meant: a path in the graph (`./` allowed), a module entity's id or
/// name, or a dotted module name (`shop.auth.tokens`). On failure, up to ten paths that look
/// close.
pub fn find_file(graph: &Graph, text: &str) -> Result<FilePath, Vec<String>> {
    let trimmed = text.trim().trim_start_matches("./");
    if let Some(file) = graph.file(trimmed) {
        return Ok(file.path);
    }
    if let Lookup::Found(entity) = query::lookup(graph, trimmed)
        && entity.kind == EntityKind::Module
    {
        return Ok(entity.file_path);
    }
    let dotted = trimmed.replace(['/', '\\'], ".");
    let by_module: Vec<FilePath> = graph
        .files()
        .filter(|file| {
            let without_extension = file
                .path
                .rsplit_once('.')
                .map_or(&*file.path, |(stem, _)| stem);
            let module = without_extension.replace('/', ".");
            module == dotted
                || module.ends_with(&format!(".{dotted}"))
                || module == format!("{dotted}.__init__")
        })
        .map(|file| file.path)
        .collect();
    if by_module.len() == 1 {
        return Ok(by_module[0]);
    }
    if by_module.len() > 1 {
        return Err(by_module.iter().map(|path| path.to_string()).collect());
    }
    let last = trimmed.rsplit('/').next().unwrap_or(trimmed);
    Err(graph
        .files()
        .map(|file| file.path.to_string())
        .filter(|path| path.contains(last))
        .take(10)
        .collect())
}

/// One definition of a file's outline.
#[derive(Debug, Clone, Serialize)]
pub struct OutlineEntry {
    pub entity: Entity,
    /// How deeply nested: 0 for top-level definitions (namespaces and modules do not count).
    pub depth: u32,
}

/// Every definition of a file in document order (the file's own module entity left out).
pub fn outline(graph: &Graph, path: &str) -> Vec<OutlineEntry> {
    let Some(file) = graph.file(path) else {
        return Vec::new();
    };
    let defs = &file.summary.defs;
    (0..defs.len() as u32)
        .map(|index| {
            let mut depth = 0;
            let mut parent = defs[index as usize].parent;
            while let Some(current) = parent {
                if defs[current as usize].kind != EntityKind::Module {
                    depth += 1;
                }
                parent = defs[current as usize].parent;
            }
            OutlineEntry {
                entity: materialize(file, Some(index)),
                depth,
            }
        })
        .collect()
}

/// An import statement as written.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleImport {
    /// The module or file specifier.
    pub module: Name,
    pub name: Option<Name>,
    pub alias: Option<Name>,
    /// One-based.
    pub line: u32,
}

/// A top-level definition of the file and who outside the file uses it.
#[derive(Debug, Clone, Serialize)]
pub struct Export {
    pub entity: Entity,
    /// Resolved references (calls, imports, uses, inheritance) from other files to it or to
    /// anything inside it (a class's methods count for the class).
    pub references: usize,
    /// The files those references come from.
    pub used_by: Vec<FilePath>,
}

/// File-level figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ModuleMetrics {
    pub lines: u32,
    /// Definitions by kind (`function`, `class`, `method`, ...), the module itself left out.
    pub entities_by_kind: BTreeMap<String, usize>,
    /// Functions and methods whose complexity was measured.
    pub functions: usize,
    /// Cyclomatic complexity summed over the file's functions and methods.
    pub total_complexity: u32,
    pub max_complexity: u32,
    /// The function or method with `max_complexity`.
    pub most_complex: Option<EntityId>,
    /// How many other files depend on this one.
    pub fan_in: usize,
    /// How many other files this one depends on.
    pub fan_out: usize,
    pub in_import_cycle: bool,
    /// A shortest import cycle through this file, the file repeated at the end.
    pub import_cycle: Vec<FilePath>,
}

/// How one file fits in the codebase.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleStructure {
    pub file: FilePath,
    pub language: Language,
    pub entities: Vec<OutlineEntry>,
    pub imports: Vec<ModuleImport>,
    /// Top-level definitions other files use, most referenced first.
    pub exported_api: Vec<Export>,
    /// The other public top-level definitions: nothing outside the file references them. Public
    /// means exported by the language's module rules and not `_private` by convention;
    /// visibility keywords (`pub`, `export`, `private`) are not consulted.
    pub unused_exports: Vec<Entity>,
    /// Files this file depends on.
    pub dependencies: Vec<FilePath>,
    /// Files that depend on this one.
    pub dependents: Vec<FilePath>,
    pub metrics: ModuleMetrics,
}

/// The structure of `path`, or `None` when it is not an indexed file.
pub fn analyze_module_structure(graph: &Graph, path: &str) -> Option<ModuleStructure> {
    let file = graph.file(path)?;
    let top_level_of = top_level_ancestors(&file.summary.defs);
    let links = FileLinks::of(graph, file, &top_level_of);
    let (exported_api, unused_exports) = exports(graph, file, &top_level_of, links.references);
    let metrics = module_metrics(
        graph,
        file,
        links.dependents.len(),
        links.dependencies.len(),
    );
    Some(ModuleStructure {
        file: file.path,
        language: file.language,
        entities: outline(graph, path),
        imports: imports_of(file),
        exported_api,
        unused_exports,
        dependencies: links.dependencies.into_iter().collect(),
        dependents: links.dependents.into_iter().collect(),
        metrics,
    })
}

/// Each definition's top-level ancestor (itself when top-level; modules do not count), so that
/// references to a method count for its class.
fn top_level_ancestors(defs: &[codegraph_index::Def]) -> Vec<u32> {
    (0..defs.len() as u32)
        .map(|index| {
            let mut current = index;
            let mut top = index;
            while let Some(parent) = defs[current as usize].parent {
                if defs[parent as usize].kind != EntityKind::Module {
                    top = parent;
                }
                current = parent;
            }
            top
        })
        .collect()
}

/// A file's dependency edges to and from other files.
struct FileLinks {
    /// Files the file depends on.
    dependencies: BTreeSet<FilePath>,
    /// Files that depend on the file.
    dependents: BTreeSet<FilePath>,
    /// Per top-level definition: how many references from other files reach it (or anything
    /// inside it), and from which files.
    references: FxHashMap<u32, (usize, BTreeSet<FilePath>)>,
}

impl FileLinks {
    fn of(graph: &Graph, file: &FileNode, top_level_of: &[u32]) -> FileLinks {
        let path = &*file.path;
        let mut links = FileLinks {
            dependencies: BTreeSet::new(),
            dependents: BTreeSet::new(),
            references: FxHashMap::default(),
        };
        let own_ids = std::iter::once((&file.module_id, None)).chain(
            file.ids
                .iter()
                .enumerate()
                .map(|(index, id)| (id, Some(index))),
        );
        for (id, index) in own_ids {
            for edge in graph.outgoing(id).filter(|edge| is_dependency(edge.kind)) {
                if let Some(target) = graph.location(&edge.to)
                    && *target.file != *path
                {
                    links.dependencies.insert(target.file);
                }
            }
            for edge in graph.incoming(id).filter(|edge| is_dependency(edge.kind)) {
                let Some(source) = graph.location(&edge.from) else {
                    continue;
                };
                if *source.file == *path {
                    continue;
                }
                links.dependents.insert(source.file);
                if let Some(index) = index {
                    let entry = links.references.entry(top_level_of[index]).or_default();
                    entry.0 += 1;
                    entry.1.insert(source.file);
                }
            }
        }
        links
    }
}

/// The file's top-level definitions that other files use (most referenced first), and its
/// other public ones.
fn exports(
    graph: &Graph,
    file: &FileNode,
    top_level_of: &[u32],
    mut references: FxHashMap<u32, (usize, BTreeSet<FilePath>)>,
) -> (Vec<Export>, Vec<Entity>) {
    let mut exported_api = Vec::new();
    let mut unused_exports = Vec::new();
    for index in 0..top_level_of.len() as u32 {
        if top_level_of[index as usize] != index {
            continue;
        }
        let entity = materialize(file, Some(index));
        match references.remove(&index) {
            Some((count, files)) => exported_api.push(Export {
                entity,
                references: count,
                used_by: files.into_iter().collect(),
            }),
            None if refactor::is_exported(graph, &entity) => unused_exports.push(entity),
            None => {}
        }
    }
    exported_api.sort_by(|left, right| {
        right
            .references
            .cmp(&left.references)
            .then_with(|| left.entity.start_line.cmp(&right.entity.start_line))
    });
    (exported_api, unused_exports)
}

/// The file's figures, given how many files depend on it and how many it depends on.
fn module_metrics(graph: &Graph, file: &FileNode, fan_in: usize, fan_out: usize) -> ModuleMetrics {
    let path = &*file.path;
    let mut entities_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for def in file.summary.defs.iter() {
        *entities_by_kind.entry(def.kind.to_string()).or_default() += 1;
    }
    let complexities = refactor::function_complexities(graph, path);
    let most_complex =
        complexities
            .iter()
            .fold(None::<&(Entity, u32)>, |best, candidate| match best {
                Some(best) if best.1 >= candidate.1 => Some(best),
                _ => Some(candidate),
            });
    let import_cycle = import_cycle_through(graph, path);
    ModuleMetrics {
        lines: file.summary.line_count,
        entities_by_kind,
        functions: complexities.len(),
        total_complexity: complexities.iter().map(|(_, complexity)| complexity).sum(),
        max_complexity: most_complex.map_or(0, |(_, complexity)| *complexity),
        most_complex: most_complex.map(|(entity, _)| entity.id),
        fan_in,
        fan_out,
        in_import_cycle: !import_cycle.is_empty(),
        import_cycle,
    }
}

/// The file's import statements as written.
fn imports_of(file: &FileNode) -> Vec<ModuleImport> {
    file.summary
        .imports
        .iter()
        .map(|import| ModuleImport {
            module: import.path,
            name: import.name,
            alias: import.alias,
            line: file.summary.locate(import.span).start.line + 1,
        })
        .collect()
}

/// The files a file imports (resolved import edges to another file), sorted.
fn imported_files(graph: &Graph, path: &str) -> BTreeSet<FilePath> {
    let Some(file) = graph.file(path) else {
        return BTreeSet::new();
    };
    file.resolved
        .edges
        .iter()
        .filter(|edge| edge.kind == RelationKind::Imports)
        .filter_map(|edge| graph.location(&edge.to))
        .filter(|target| *target.file != *path)
        .map(|target| target.file)
        .collect()
}

/// A shortest cycle of file imports from `path` back to itself (the file at both ends), or empty.
/// The same relation as [`refactor::import_cycles`], searched from one file only.
fn import_cycle_through(graph: &Graph, path: &str) -> Vec<FilePath> {
    let Some(start) = graph.file(path).map(|file| file.path) else {
        return Vec::new();
    };
    let mut previous: FxHashMap<FilePath, FilePath> = FxHashMap::default();
    let mut queue = VecDeque::from([start]);
    while let Some(current) = queue.pop_front() {
        for next in imported_files(graph, &current) {
            if next == start {
                let mut cycle = vec![start, current];
                let mut back = current;
                while let Some(before) = previous.get(&back) {
                    cycle.push(*before);
                    back = *before;
                }
                // Built backwards from the end: start, current, ..., start.
                cycle.reverse();
                return cycle;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = previous.entry(next) {
                e.insert(current);
                queue.push_back(next);
            }
        }
    }
    Vec::new()
}
