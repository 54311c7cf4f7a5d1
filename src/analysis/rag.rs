//! GraphRAG-style questions answered extractively from the graph: `global_search` ranks
//! communities by how well their members match the question; `local_search` walks the
//! neighbourhood of given entities and ranks what it finds by relevance and closeness.
//!
//! No model is involved: the answers are assembled from names, locations, docstrings, community
//! summaries and edges, so they are deterministic and cite only what exists.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::communities::{Communities, LEVELS};
use super::search::{SearchIndex, SearchScope};
use crate::graph::{Entity, EntityId, Graph};
use crate::model::{EntityKind, RelationKind};

/// How many search hits feed the community ranking.
const GLOBAL_HITS: usize = 400;

#[derive(Debug, Clone, Serialize)]
pub struct RelevantCommunity {
    pub id: u32,
    pub name: String,
    pub level: u8,
    pub relevance: f64,
    pub member_count: usize,
    pub summary: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SupportingEntity {
    pub entity: Entity,
    pub community: Option<u32>,
    pub relevance: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct GlobalAnswer {
    pub query: String,
    pub answer: String,
    pub community_level: u8,
    pub communities_searched: usize,
    pub confidence: f64,
    pub relevant_communities: Vec<RelevantCommunity>,
    pub supporting_entities: Vec<SupportingEntity>,
    /// How many entities of the chosen communities matched, before the limit.
    pub supporting_total: usize,
}

fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn first_doc_line(entity: &Entity) -> Option<String> {
    let doc = entity.docstring.as_ref()?;
    let line = doc.lines().map(str::trim).find(|line| !line.is_empty())?;
    Some(line.chars().take(160).collect())
}

fn short_name(entity: &Entity) -> String {
    if entity.kind == EntityKind::Module {
        return entity.file_path.to_string();
    }
    entity
        .id
        .rsplit("::")
        .next()
        .unwrap_or(&entity.name)
        .to_string()
}

fn cite(entity: &Entity) -> String {
    format!(
        "{} ({} at {}:{})",
        short_name(entity),
        entity.kind,
        entity.file_path,
        entity.start_line
    )
}

/// Supporting entities a global answer lists by default.
pub const DEFAULT_SUPPORTING: usize = 10;

/// Ranks the communities of `level` for `query` and answers from the best ones.
pub fn global_search(
    graph: &Graph,
    index: &SearchIndex,
    communities: &Communities,
    query: &str,
    level: usize,
) -> GlobalAnswer {
    global_search_with_limit(graph, index, communities, query, level, DEFAULT_SUPPORTING)
}

/// [`global_search`] listing at most `limit` supporting entities.
pub fn global_search_with_limit(
    graph: &Graph,
    index: &SearchIndex,
    communities: &Communities,
    query: &str,
    level: usize,
    limit: usize,
) -> GlobalAnswer {
    let level = level.min(LEVELS - 1);
    let communities_searched = communities.at_level(level).count();
    let results = index.search(query, SearchScope::All, GLOBAL_HITS);
    // Per community: its hits' relevances, best first (hits come sorted).
    let mut per_community: FxHashMap<u32, Vec<(f64, &EntityId)>> = FxHashMap::default();
    for hit in &results.hits {
        if let Some(community) = communities.community_of(&hit.id, level) {
            per_community
                .entry(community.id)
                .or_default()
                .push((hit.relevance, &hit.id));
        }
    }
    // A community scores by its five best hits with decreasing weights: several strong matches
    // beat one, and a big community does not win by piling up weak ones.
    let mut ranked: Vec<(f64, u32)> = per_community
        .iter()
        .map(|(&id, hits)| {
            let score: f64 = hits
                .iter()
                .take(5)
                .enumerate()
                .map(|(rank, (relevance, _))| relevance / (rank as f64 + 1.0))
                .sum();
            (score, id)
        })
        .collect();
    ranked.sort_by(|left, right| {
        right
            .0
            .total_cmp(&left.0)
            .then_with(|| left.1.cmp(&right.1))
    });
    let top_score = ranked.first().map_or(0.0, |(score, _)| *score);
    let top_best = ranked
        .first()
        .and_then(|(_, id)| per_community[id].first())
        .map_or(0.0, |(relevance, _)| *relevance);
    let relevant_communities: Vec<RelevantCommunity> = ranked
        .iter()
        .take(5)
        .filter_map(|(score, id)| {
            let community = communities.get(*id)?;
            Some(RelevantCommunity {
                id: community.id,
                name: community.name.clone(),
                level: community.level,
                relevance: round(score / top_score * top_best),
                member_count: community.member_count,
                summary: community.summary.clone(),
            })
        })
        .collect();
    let chosen: FxHashSet<u32> = relevant_communities.iter().take(3).map(|c| c.id).collect();
    let mut supporting_entities: Vec<SupportingEntity> = results
        .hits
        .iter()
        .filter_map(|hit| {
            let community = communities.community_of(&hit.id, level).map(|c| c.id);
            if !community.is_some_and(|id| chosen.contains(&id)) {
                return None;
            }
            Some(SupportingEntity {
                entity: graph.entity(&hit.id)?,
                community,
                relevance: round(hit.relevance),
            })
        })
        .collect();
    let supporting_total = supporting_entities.len();
    supporting_entities.truncate(limit);
    let confidence = relevant_communities.first().map_or(0.0, |c| c.relevance);
    let answer = global_answer(
        communities,
        &relevant_communities,
        &supporting_entities,
        &results.terms,
    );
    GlobalAnswer {
        query: query.to_string(),
        answer,
        community_level: level as u8,
        communities_searched,
        confidence,
        relevant_communities,
        supporting_entities,
        supporting_total,
    }
}

fn global_answer(
    communities: &Communities,
    relevant: &[RelevantCommunity],
    supporting: &[SupportingEntity],
    terms: &[String],
) -> String {
    let Some(best) = relevant.first() else {
        return format!(
            "No code matches the terms {terms:?}; try the names of classes or functions, or other words."
        );
    };
    let mut answer = format!(
        "Most relevant: community #{} \"{}\" ({} entities). {}",
        best.id, best.name, best.member_count, best.summary
    );
    let in_best: Vec<String> = supporting
        .iter()
        .filter(|support| support.community == Some(best.id))
        .take(5)
        .map(|support| match first_doc_line(&support.entity) {
            Some(doc) => format!("{}: \"{doc}\"", cite(&support.entity)),
            None => cite(&support.entity),
        })
        .collect();
    if !in_best.is_empty() {
        answer.push_str(&format!(
            "\nMatching entities there: {}.",
            in_best.join("; ")
        ));
    }
    // How the best community connects to the others the question touches.
    let others: Vec<String> = relevant
        .iter()
        .skip(1)
        .take(3)
        .map(|other| {
            let link = communities.get(best.id).and_then(|community| {
                if community.depends_on.iter().any(|(id, _)| *id == other.id) {
                    Some(", which it depends on")
                } else if community.used_by.iter().any(|(id, _)| *id == other.id) {
                    Some(", which depends on it")
                } else {
                    None
                }
            });
            format!(
                "#{} \"{}\" (relevance {:.2}{})",
                other.id,
                other.name,
                other.relevance,
                link.unwrap_or("")
            )
        })
        .collect();
    if !others.is_empty() {
        answer.push_str(&format!("\nAlso related: {}.", others.join("; ")));
    }
    answer
}

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

fn relation_label(kind: RelationKind, outgoing: bool) -> String {
    match (kind, outgoing) {
        (RelationKind::Calls, true) => "calls".into(),
        (RelationKind::Calls, false) => "called_by".into(),
        (RelationKind::Contains | RelationKind::Defines, true) => "contains".into(),
        (RelationKind::Contains | RelationKind::Defines, false) => "contained_in".into(),
        (RelationKind::Imports, true) => "imports".into(),
        (RelationKind::Imports, false) => "imported_by".into(),
        (RelationKind::Uses, true) => "uses".into(),
        (RelationKind::Uses, false) => "used_by".into(),
        (RelationKind::Extends | RelationKind::Implements, true) => kind.to_string(),
        (RelationKind::Extends, false) => "extended_by".into(),
        (RelationKind::Implements, false) => "implemented_by".into(),
    }
}

/// Walks up to `depth` hops around `starts` over every relation, both ways (calls, containment,
/// imports, uses, inheritance), and ranks what it reaches for `query`.
pub fn local_search(
    graph: &Graph,
    index: &SearchIndex,
    query: &str,
    starts: &[Entity],
    depth: u32,
    limit: usize,
) -> LocalAnswer {
    const MAX_VISITED: usize = 2000;
    let mut distance: FxHashMap<EntityId, (u32, String)> = FxHashMap::default();
    let mut relationships: FxHashSet<Relationship> = FxHashSet::default();
    let mut frontier: Vec<EntityId> = Vec::new();
    for start in starts {
        distance.insert(start.id.clone(), (0, "start".to_string()));
        frontier.push(start.id.clone());
    }
    for hop in 1..=depth.max(1) {
        let mut next = Vec::new();
        for current in &frontier {
            crate::cancel::checkpoint();
            let mut steps: Vec<(EntityId, RelationKind, bool)> = graph
                .outgoing(current)
                .map(|edge| (edge.to.clone(), edge.kind, true))
                .chain(
                    graph
                        .incoming(current)
                        .map(|edge| (edge.from.clone(), edge.kind, false)),
                )
                .collect();
            steps.sort();
            for (neighbour, kind, outgoing) in steps {
                let relationship = if outgoing {
                    Relationship {
                        source: current.clone(),
                        target: neighbour.clone(),
                        kind,
                    }
                } else {
                    Relationship {
                        source: neighbour.clone(),
                        target: current.clone(),
                        kind,
                    }
                };
                relationships.insert(relationship);
                if distance.len() >= MAX_VISITED || distance.contains_key(&neighbour) {
                    continue;
                }
                distance.insert(neighbour.clone(), (hop, relation_label(kind, outgoing)));
                next.push(neighbour);
            }
        }
        frontier = next;
    }
    let visited: Vec<EntityId> = distance.keys().cloned().collect();
    let scores = index.score_entities(query, &visited);
    let best_score = scores.values().copied().fold(0.0, f64::max);
    let mut ranked: Vec<(f64, EntityId)> = distance
        .iter()
        .filter(|(_, (hop, _))| *hop > 0)
        .map(|(id, (hop, _))| {
            let text = if best_score > 0.0 {
                scores.get(id).copied().unwrap_or(0.0) / best_score
            } else {
                0.0
            };
            let closeness = 1.0 / (*hop as f64);
            let relevance = if best_score > 0.0 {
                0.65 * text + 0.35 * closeness
            } else {
                0.5 * closeness
            };
            (relevance, id.clone())
        })
        .collect();
    ranked.sort_by(|left, right| {
        right
            .0
            .total_cmp(&left.0)
            .then_with(|| left.1.cmp(&right.1))
    });
    let relevant_entities: Vec<RelevantEntity> = ranked
        .iter()
        .take(limit)
        .filter_map(|(relevance, id)| {
            let (hop, relation) = distance.get(id)?;
            Some(RelevantEntity {
                entity: graph.entity(id)?,
                relevance: round(*relevance),
                distance: *hop,
                relation: relation.clone(),
            })
        })
        .collect();
    let shown: FxHashSet<&EntityId> = starts
        .iter()
        .map(|start| &start.id)
        .chain(relevant_entities.iter().map(|relevant| &relevant.entity.id))
        .collect();
    let mut relationships: Vec<Relationship> = relationships
        .into_iter()
        .filter(|relationship| {
            shown.contains(&relationship.source) && shown.contains(&relationship.target)
        })
        .collect();
    relationships.sort();
    let answer = local_answer(graph, query, starts, &relevant_entities, best_score > 0.0);
    LocalAnswer {
        query: query.to_string(),
        answer,
        start_entity: starts
            .first()
            .map(|start| start.id.clone())
            .unwrap_or_else(|| EntityId::from("")),
        context_entities: starts.iter().map(|start| start.id.clone()).collect(),
        entities_searched: distance.len(),
        confidence: relevant_entities
            .first()
            .map_or(0.0, |relevant| relevant.relevance),
        relevant_entities,
        relationships,
    }
}

fn local_answer(
    graph: &Graph,
    query: &str,
    starts: &[Entity],
    relevant: &[RelevantEntity],
    matched: bool,
) -> String {
    let mut answer = String::new();
    for start in starts {
        answer.push_str(&cite(start));
        if let Some(doc) = first_doc_line(start) {
            answer.push_str(&format!(": \"{doc}\""));
        }
        answer.push('.');
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        let mut add =
            |label: String, name: String| match groups.iter_mut().find(|(l, _)| *l == label) {
                Some((_, names)) => {
                    if !names.contains(&name) {
                        names.push(name)
                    }
                }
                None => groups.push((label, vec![name])),
            };
        let mut edges: Vec<(String, String)> = graph
            .incoming(&start.id)
            .map(|edge| (relation_label(edge.kind, false), edge.from.to_string()))
            .chain(
                graph
                    .outgoing(&start.id)
                    .map(|edge| (relation_label(edge.kind, true), edge.to.to_string())),
            )
            .collect();
        edges.sort();
        for (label, id) in edges {
            let name = id.rsplit("::").next().unwrap_or(&id).to_string();
            add(label, name);
        }
        for (label, names) in groups {
            let count = names.len();
            let listed: Vec<String> = names.into_iter().take(8).collect();
            answer.push_str(&format!(
                " {}: {}{}.",
                label.replace('_', " "),
                listed.join(", "),
                if count > 8 {
                    format!(" and {} more", count - 8)
                } else {
                    String::new()
                }
            ));
        }
        answer.push('\n');
    }
    if relevant.is_empty() {
        answer.push_str("Nothing around it is connected in the graph.");
    } else if matched {
        let names: Vec<String> = relevant
            .iter()
            .take(5)
            .map(|relevant| {
                format!(
                    "{} [{}, {:.2}]",
                    cite(&relevant.entity),
                    relevant.relation.replace('_', " "),
                    relevant.relevance
                )
            })
            .collect();
        answer.push_str(&format!(
            "Most relevant to \"{query}\" nearby: {}.",
            names.join("; ")
        ));
    } else {
        let names: Vec<String> = relevant
            .iter()
            .take(5)
            .map(|relevant| {
                format!(
                    "{} [{}]",
                    cite(&relevant.entity),
                    relevant.relation.replace('_', " ")
                )
            })
            .collect();
        answer.push_str(&format!(
            "No nearby entity mentions the words of \"{query}\"; the closest neighbours are: {}.",
            names.join("; ")
        ));
    }
    answer
}
