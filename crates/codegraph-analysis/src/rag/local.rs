//! `local_search`: what an entity uses, then who uses it, ranked against the question.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::round;
use crate::filter::{ClassesAsked, FileFilter};
use crate::search::SearchIndex;
use codegraph_graph::{Entity, EntityId, Graph};
use codegraph_index::BindingKind;
use codegraph_model::{EntityKind, RelationKind};

mod answer;

use answer::local_answer;

#[derive(Debug, Clone, Serialize)]
pub struct RelevantEntity {
    pub entity: Entity,
    pub relevance: f64,
    /// Hops from the nearest start entity.
    pub distance: u32,
    /// How it was reached: `calls`, `called_by`, `contains`, `contained_in`, `imports`, ...
    pub relation: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Relationship {
    pub source: EntityId,
    pub target: EntityId,
    #[serde(rename = "type")]
    pub kind: RelationKind,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocalAnswer {
    pub query: String,
    pub answer: String,
    pub start_entity: EntityId,
    pub context_entities: Vec<EntityId>,
    pub entities_searched: usize,
    pub confidence: f64,
    pub relevant_entities: Vec<RelevantEntity>,
    pub relationships: Vec<Relationship>,
}

/// Which end of an edge an entity was reached from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// From its source: the entity reached is what the edge points to.
    Outgoing,
    /// From its target: the entity reached is where the edge comes from.
    Incoming,
}

/// How an entity reached through an edge of `kind` relates: `calls`, `called_by`, ...
fn relation_label(kind: RelationKind, edge: Edge) -> String {
    use Edge::{Incoming, Outgoing};
    match (kind, edge) {
        (RelationKind::Calls, Outgoing) => "calls".into(),
        (RelationKind::Calls, Incoming) => "called_by".into(),
        (RelationKind::Contains | RelationKind::Defines, Outgoing) => "contains".into(),
        (RelationKind::Contains | RelationKind::Defines, Incoming) => "contained_in".into(),
        (RelationKind::Imports, Outgoing) => "imports".into(),
        (RelationKind::Imports, Incoming) => "imported_by".into(),
        (RelationKind::Uses, Outgoing) => "uses".into(),
        (RelationKind::Uses, Incoming) => "used_by".into(),
        (RelationKind::Extends | RelationKind::Implements, Outgoing) => kind.to_string(),
        (RelationKind::Extends, Incoming) => "extended_by".into(),
        (RelationKind::Implements, Incoming) => "implemented_by".into(),
    }
}

/// How `local_search` runs.
#[derive(Debug, Clone, Copy)]
pub struct LocalOptions {
    /// How far to follow what the start uses (and who uses it), in hops.
    pub depth: u32,
    /// How many relevant entities to return.
    pub limit: usize,
    /// Which code to return (production first by default).
    pub filter: FileFilter,
}

impl Default for LocalOptions {
    fn default() -> LocalOptions {
        LocalOptions {
            depth: 2,
            limit: 10,
            filter: FileFilter::default(),
        }
    }
}

/// How much the question's words count against how the entity was reached.
const TEXT_SHARE: f64 = 0.6;
/// What the start uses, one hop away (its calls, field and parameter types, bases,
/// implementations), then each further hop.
const USES_PRIOR: f64 = 1.0;
const MEMBER_PRIOR: f64 = 0.8;
/// What the start's file imports: what the code around it uses (a Python import inside a
/// method is the file's; the method that returns the imported class uses it too).
const FILE_IMPORT_PRIOR: f64 = 0.7;
const USES_DECAY: f64 = 0.6;
/// Who uses the start, one hop away, then each further hop.
const CALLER_PRIOR: f64 = 0.45;
const CALLER_DECAY: f64 = 0.5;
const MAX_VISITED: usize = 3000;
/// A type name with more definitions than this is too common to follow from a binding.
const MAX_TYPE_CANDIDATES: usize = 4;

/// How an entity was reached.
#[derive(Debug, Clone)]
struct Reached {
    distance: u32,
    relation: String,
    prior: f64,
}

struct Walk<'a> {
    graph: &'a Graph,
    reached: FxHashMap<EntityId, Reached>,
    relationships: FxHashSet<Relationship>,
}

impl Walk<'_> {
    /// Records `id` as reached; a better prior replaces a worse one.
    fn reach(&mut self, id: &EntityId, distance: u32, relation: &str, prior: f64) -> bool {
        if let Some(known) = self.reached.get_mut(id) {
            // A start stays a start.
            if known.distance > 0 && known.prior < prior {
                *known = Reached {
                    distance,
                    relation: relation.to_string(),
                    prior,
                };
            }
            return false;
        }
        if self.reached.len() >= MAX_VISITED {
            return false;
        }
        self.reached.insert(
            *id,
            Reached {
                distance,
                relation: relation.to_string(),
                prior,
            },
        );
        true
    }

    fn relate(&mut self, source: &EntityId, target: &EntityId, kind: RelationKind) {
        self.relationships.insert(Relationship {
            source: *source,
            target: *target,
            kind,
        });
    }

    /// An entity and everything it lexically contains (a class and its methods).
    fn own(&self, id: &EntityId) -> Vec<EntityId> {
        let mut own = vec![*id];
        let mut next = 0;
        while next < own.len() && own.len() < 500 {
            let current = own[next];
            next += 1;
            for edge in self.graph.outgoing(&current) {
                if matches!(edge.kind, RelationKind::Contains | RelationKind::Defines)
                    && !own.contains(&edge.to)
                {
                    own.push(edge.to);
                }
            }
        }
        own
    }

    /// The workspace types named by the declared types of an entity's fields, parameters and
    /// locals (`self.loader = MigrationLoader(...)`, `s: semaphore::Semaphore`).
    fn binding_types(&self, id: &EntityId) -> Vec<(String, EntityId)> {
        let Some(location) = self.graph.location(id) else {
            return Vec::new();
        };
        let Some(index) = location.index else {
            return Vec::new();
        };
        let Some(file) = self.graph.file(&location.file) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for binding in &file.summary.bindings {
            if binding.scope() != Some(index) || binding.kind != BindingKind::Type {
                continue;
            }
            for word in binding
                .type_name
                .split(|character: char| !(character.is_alphanumeric() || character == '_'))
                .filter(|word| word.starts_with(|c: char| c.is_alphabetic()))
            {
                let types: Vec<&EntityId> = self
                    .graph
                    .named(word)
                    .iter()
                    .filter(|entry| entry.kind.is_type())
                    .map(|entry| &entry.id)
                    .collect();
                if types.is_empty() || types.len() > MAX_TYPE_CANDIDATES {
                    continue;
                }
                for target in types {
                    if target != id && !found.iter().any(|(_, known)| known == target) {
                        found.push((binding.name.to_string(), *target));
                    }
                }
            }
        }
        found
    }

    /// What `from` (and what it contains) uses, reached at `distance`: calls, non-call uses,
    /// bases, imports, the types of its bindings; its implementations and subclasses.
    fn uses_of(&mut self, from: &EntityId, distance: u32, prior: f64) -> Vec<EntityId> {
        let own = self.own(from);
        let mut reached = Vec::new();
        for member in &own {
            if member != from && self.reach(member, distance, "member", prior * MEMBER_PRIOR) {
                reached.push(*member);
            }
        }
        let graph = self.graph;
        for member in &own {
            for edge in graph.outgoing(member) {
                if matches!(edge.kind, RelationKind::Contains | RelationKind::Defines)
                    || own.contains(&edge.to)
                {
                    continue;
                }
                self.relate(&edge.from, &edge.to, edge.kind);
                if self.reach(
                    &edge.to,
                    distance,
                    &relation_label(edge.kind, Edge::Outgoing),
                    prior,
                ) {
                    reached.push(edge.to);
                }
            }
            for edge in graph.incoming(member) {
                if !matches!(edge.kind, RelationKind::Extends | RelationKind::Implements) {
                    continue;
                }
                self.relate(&edge.from, &edge.to, edge.kind);
                if self.reach(
                    &edge.from,
                    distance,
                    &relation_label(edge.kind, Edge::Incoming),
                    prior,
                ) {
                    reached.push(edge.from);
                }
            }
            for (name, target) in self.binding_types(member) {
                if own.contains(&target) {
                    continue;
                }
                self.relate(member, &target, RelationKind::Uses);
                if self.reach(&target, distance, &format!("type of {name}"), prior) {
                    reached.push(target);
                }
            }
        }
        reached
    }

    /// Who uses `to` (or what it contains), reached at `distance`.
    fn users_of(&mut self, to: &EntityId, distance: u32, prior: f64) -> Vec<EntityId> {
        let own = self.own(to);
        let graph = self.graph;
        let mut reached = Vec::new();
        for member in &own {
            for edge in graph.incoming(member) {
                if !matches!(
                    edge.kind,
                    RelationKind::Calls | RelationKind::Uses | RelationKind::Imports
                ) || own.contains(&edge.from)
                {
                    continue;
                }
                self.relate(&edge.from, &edge.to, edge.kind);
                if self.reach(
                    &edge.from,
                    distance,
                    &relation_label(edge.kind, Edge::Incoming),
                    prior,
                ) {
                    reached.push(edge.from);
                }
            }
        }
        reached
    }
}

impl<'a> Walk<'a> {
    /// A walk that has reached only the starts.
    fn from_starts(graph: &'a Graph, starts: &[Entity]) -> Walk<'a> {
        let mut walk = Walk {
            graph,
            reached: FxHashMap::default(),
            relationships: FxHashSet::default(),
        };
        for start in starts {
            walk.reached.insert(
                start.id,
                Reached {
                    distance: 0,
                    relation: "start".to_string(),
                    prior: 0.0,
                },
            );
        }
        walk
    }

    /// What the starts use, hop by hop up to `depth`, each hop's prior decaying; at the first
    /// hop, what the files of the starts import too.
    fn follow_uses(&mut self, starts: &[Entity], depth: u32) {
        let mut frontier: Vec<EntityId> = starts.iter().map(|start| start.id).collect();
        for hop in 1..=depth {
            let prior = USES_PRIOR * USES_DECAY.powi(hop as i32 - 1);
            let mut next = Vec::new();
            for current in &frontier {
                codegraph_model::cancel::checkpoint();
                next.extend(self.uses_of(current, hop, prior));
            }
            if hop == 1 {
                next.extend(self.file_imports(starts));
            }
            frontier = next;
        }
    }

    /// What the files of the starts (but modules) import, reached at one hop.
    fn file_imports(&mut self, starts: &[Entity]) -> Vec<EntityId> {
        let graph = self.graph;
        let mut reached = Vec::new();
        for start in starts
            .iter()
            .filter(|start| start.kind != EntityKind::Module)
        {
            let module = EntityId::from(&*start.file_path);
            for edge in graph.outgoing(&module) {
                if edge.kind != RelationKind::Imports {
                    continue;
                }
                self.relate(&edge.from, &edge.to, edge.kind);
                if self.reach(
                    &edge.to,
                    1,
                    "imported_by_its_file",
                    USES_PRIOR * FILE_IMPORT_PRIOR,
                ) {
                    reached.push(edge.to);
                }
            }
        }
        reached
    }

    /// Who uses the starts, hop by hop up to `depth`, each hop's prior decaying.
    fn follow_users(&mut self, starts: &[Entity], depth: u32) {
        let mut frontier: Vec<EntityId> = starts.iter().map(|start| start.id).collect();
        for hop in 1..=depth {
            let prior = CALLER_PRIOR * CALLER_DECAY.powi(hop as i32 - 1);
            let mut next = Vec::new();
            for current in &frontier {
                codegraph_model::cancel::checkpoint();
                next.extend(self.users_of(current, hop, prior));
            }
            frontier = next;
        }
    }

    /// The relationships between entities shown: the starts and the relevant ones.
    fn shown_relationships(
        &self,
        starts: &[Entity],
        relevant: &[RelevantEntity],
    ) -> Vec<Relationship> {
        let shown: FxHashSet<&EntityId> = starts
            .iter()
            .map(|start| &start.id)
            .chain(relevant.iter().map(|relevant| &relevant.entity.id))
            .collect();
        let mut relationships: Vec<Relationship> = self
            .relationships
            .iter()
            .filter(|relationship| {
                shown.contains(&relationship.source) && shown.contains(&relationship.target)
            })
            .cloned()
            .collect();
        relationships.sort();
        relationships
    }
}

/// Whether some entity reached mentions the question's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WordsFound {
    Somewhere,
    Nowhere,
}

/// Follows what `starts` use (what their methods call, their fields' and parameters' types,
/// bases and implementations) up to `depth` hops, then who uses them, and ranks what it finds
/// by the question's words and by how it was reached: what an entity uses before who calls it,
/// production code first.
pub fn local_search(
    graph: &Graph,
    index: &SearchIndex,
    query: &str,
    starts: &[Entity],
    options: &LocalOptions,
) -> LocalAnswer {
    let depth = options.depth.max(1);
    let mut walk = Walk::from_starts(graph, starts);
    walk.follow_uses(starts, depth);
    walk.follow_users(starts, depth);
    let (relevant_entities, words) = rank(&walk, index, query, options);
    let relationships = walk.shown_relationships(starts, &relevant_entities);
    let answer = local_answer(graph, query, starts, &relevant_entities, words);
    LocalAnswer {
        query: query.to_string(),
        answer,
        start_entity: starts
            .first()
            .map(|start| start.id)
            .unwrap_or_else(|| EntityId::from("")),
        context_entities: starts.iter().map(|start| start.id).collect(),
        entities_searched: walk.reached.len(),
        confidence: relevant_entities
            .first()
            .map_or(0.0, |relevant| relevant.relevance),
        relevant_entities,
        relationships,
    }
}

/// The entities reached (not the starts) that the filter admits, most relevant first, at most
/// `options.limit`: the question's words (BM25, relative to the best) and how each was reached.
fn rank(
    walk: &Walk<'_>,
    index: &SearchIndex,
    query: &str,
    options: &LocalOptions,
) -> (Vec<RelevantEntity>, WordsFound) {
    let graph = walk.graph;
    let asked = ClassesAsked::from_query(query);
    let visited: Vec<EntityId> = walk.reached.keys().cloned().collect();
    let scores = index.score_entities(query, &visited);
    let best_score = scores.values().copied().fold(0.0, f64::max);
    let mut ranked: Vec<(f64, EntityId)> = walk
        .reached
        .iter()
        .filter(|(_, reached)| reached.distance > 0)
        .filter_map(|(id, reached)| {
            let class = graph.class_of(id);
            if !options.filter.admits(class) {
                return None;
            }
            let text = if best_score > 0.0 {
                scores.get(id).copied().unwrap_or(0.0) / best_score
            } else {
                0.0
            };
            let relevance = if best_score > 0.0 {
                TEXT_SHARE * text + (1.0 - TEXT_SHARE) * reached.prior
            } else {
                (1.0 - TEXT_SHARE) * reached.prior
            };
            Some((relevance * options.filter.weight(class, asked), *id))
        })
        .collect();
    ranked.sort_by(|left, right| {
        right
            .0
            .total_cmp(&left.0)
            .then_with(|| left.1.cmp(&right.1))
    });
    let relevant = ranked
        .iter()
        .take(options.limit)
        .filter_map(|(relevance, id)| {
            let reached = walk.reached.get(id)?;
            Some(RelevantEntity {
                entity: graph.entity(id)?,
                relevance: round(*relevance),
                distance: reached.distance,
                relation: reached.relation.clone(),
            })
        })
        .collect();
    let words = if best_score > 0.0 {
        WordsFound::Somewhere
    } else {
        WordsFound::Nowhere
    };
    (relevant, words)
}
