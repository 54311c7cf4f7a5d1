//! GraphRAG-style questions answered extractively from the graph: `global_search` ranks
//! communities by how well their members match the question, at the level the question calls
//! for; `local_search` (`rag/local.rs`) follows what given entities use, then who uses them,
//! and ranks what it finds against the question.
//!
//! No model is involved: the answers are assembled from names, locations, docstrings, community
//! summaries and edges, so they are deterministic and cite only what exists.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

mod local;

pub use local::{LocalAnswer, LocalOptions, Relationship, RelevantEntity, local_search};

use super::communities::{Communities, LEVELS};
use super::filter::FileFilter;
use super::search::{SearchHit, SearchIndex, SearchOptions, SearchScope};
use codegraph_graph::{Entity, Graph};
use codegraph_model::EntityKind;

/// How many search hits feed the community ranking.
const GLOBAL_HITS: usize = 200;

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

/// How `global_search` runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobalOptions {
    /// The community level to answer from; `None` chooses it from the question
    /// ([`choose_level`]).
    pub level: Option<usize>,
    /// Which code's matches count (production first by default).
    pub filter: FileFilter,
    /// At most this many supporting entities (`None`: [`DEFAULT_SUPPORTING`]).
    pub limit: Option<usize>,
}

/// Communities ranked by score, best first (`(score, community id)`), and the relevances of
/// the hits each one holds.
type RankedCommunities = (Vec<(f64, u32)>, FxHashMap<u32, Vec<f64>>);

/// The communities of `level` that hold `hits`, best first: a community scores by its five
/// best hits with decreasing weights, so several strong matches beat one, and a big community
/// does not win by piling up weak ones.
fn rank_communities(
    communities: &Communities,
    hits: &[SearchHit],
    level: usize,
) -> RankedCommunities {
    let mut per_community: FxHashMap<u32, Vec<f64>> = FxHashMap::default();
    for hit in hits {
        if let Some(community) = communities.community_of(&hit.id, level) {
            per_community
                .entry(community.id)
                .or_default()
                .push(hit.relevance);
        }
    }
    let mut ranked: Vec<(f64, u32)> = per_community
        .iter()
        .map(|(&id, relevances)| {
            let score: f64 = relevances
                .iter()
                .take(5)
                .enumerate()
                .map(|(rank, relevance)| relevance / (rank as f64 + 1.0))
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
    (ranked, per_community)
}

/// How many of the best hits decide the level.
const LEVEL_EVIDENCE: usize = 10;
/// The share of their relevance one community must hold for its level to answer.
const LEVEL_SHARE: f64 = 0.5;

/// The finest level at which one community holds at least half the relevance of the best ten
/// hits: a narrow question ("send email message") lands in one fine community, a subsystem
/// question ("how are passwords stored and checked") spreads over several fine ones that one
/// coarser community holds.
pub fn choose_level(communities: &Communities, hits: &[SearchHit]) -> usize {
    let best: Vec<&SearchHit> = hits.iter().take(LEVEL_EVIDENCE).collect();
    let total: f64 = best.iter().map(|hit| hit.relevance).sum();
    if total <= 0.0 {
        return 0;
    }
    for level in 0..LEVELS - 1 {
        let mut held: FxHashMap<u32, f64> = FxHashMap::default();
        for hit in &best {
            if let Some(community) = communities.community_of(&hit.id, level) {
                *held.entry(community.id).or_default() += hit.relevance;
            }
        }
        if held.values().any(|share| *share / total >= LEVEL_SHARE) {
            return level;
        }
    }
    LEVELS - 1
}

/// Ranks the communities for `query` and answers from the best ones, at the level the options
/// give or the one the question calls for.
pub fn global_search(
    graph: &Graph,
    index: &SearchIndex,
    communities: &Communities,
    query: &str,
    options: &GlobalOptions,
) -> GlobalAnswer {
    let search = SearchOptions {
        filter: options.filter,
        ..SearchOptions::new(graph, SearchScope::All, GLOBAL_HITS)
    };
    let results = index.search_with(query, &search);
    let level = match options.level {
        Some(level) => level.min(LEVELS - 1),
        None => choose_level(communities, &results.hits),
    };
    let relevant_communities = relevant_communities(communities, &results.hits, level);
    let mut supporting_entities = supporting_entities(
        graph,
        communities,
        &results.hits,
        &relevant_communities,
        level,
    );
    let supporting_total = supporting_entities.len();
    supporting_entities.truncate(options.limit.unwrap_or(DEFAULT_SUPPORTING));
    let mut answer = global_answer(
        communities,
        &relevant_communities,
        &supporting_entities,
        &results.terms,
    );
    if options.level.is_none() && !relevant_communities.is_empty() {
        answer.push_str(&level_note(level));
    }
    GlobalAnswer {
        query: query.to_string(),
        answer,
        community_level: level as u8,
        communities_searched: communities.at_level(level).count(),
        confidence: relevant_communities.first().map_or(0.0, |c| c.relevance),
        relevant_communities,
        supporting_entities,
        supporting_total,
    }
}

/// The five best communities of `level` for the hits, the best one's relevance that of its
/// best hit and the others' in proportion to their scores.
fn relevant_communities(
    communities: &Communities,
    hits: &[SearchHit],
    level: usize,
) -> Vec<RelevantCommunity> {
    let (ranked, per_community) = rank_communities(communities, hits, level);
    let top_score = ranked.first().map_or(0.0, |(score, _)| *score);
    let top_best = ranked
        .first()
        .and_then(|(_, id)| per_community[id].first())
        .copied()
        .unwrap_or(0.0);
    ranked
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
        .collect()
}

/// The hits in the three best communities, in search order, and the best hit of all.
fn supporting_entities(
    graph: &Graph,
    communities: &Communities,
    hits: &[SearchHit],
    relevant: &[RelevantCommunity],
    level: usize,
) -> Vec<SupportingEntity> {
    let chosen: FxHashSet<u32> = relevant.iter().take(3).map(|c| c.id).collect();
    hits.iter()
        .enumerate()
        .filter_map(|(rank, hit)| {
            let community = communities.community_of(&hit.id, level).map(|c| c.id);
            // The best match of the whole search supports the answer even when its community
            // ranks lower or it is in none (a `select!` macro nothing in the graph points at):
            // a community wins by many good matches, but the question may name one entity.
            if rank > 0 && !community.is_some_and(|id| chosen.contains(&id)) {
                return None;
            }
            Some(SupportingEntity {
                entity: graph.entity(&hit.id)?,
                community,
                relevance: round(hit.relevance),
            })
        })
        .collect()
}

/// Which level answered a question that did not choose one, and why.
fn level_note(level: usize) -> String {
    format!(
        "\n(Answered from level {level}{}.)",
        match level {
            0 => ", the finest: the best matches lie together",
            1 => ", subsystems: the best matches spread over several fine communities",
            _ => ", the coarsest: the best matches spread over several subsystems",
        }
    )
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
    if let Some(top) = supporting
        .first()
        .filter(|top| top.community != Some(best.id))
    {
        let doc = first_doc_line(&top.entity).map_or(String::new(), |doc| format!(": \"{doc}\""));
        answer.push_str(&format!(
            "\nBest single match, outside that community: {}{doc}.",
            cite(&top.entity)
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
