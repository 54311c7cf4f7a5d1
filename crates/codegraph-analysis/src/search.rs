//! Ranked search over entities: BM25 over identifier sub-words, qualified names, paths,
//! signatures and docstrings, with boosts for exact and prefix name matches; then the best
//! candidates are re-ranked by the signals of [`rank`] (name match, exact phrase, graph prior)
//! and by what their file is for (production first, `analysis::filter`).
//!
//! The index keeps one postings list per file, so a new snapshot only rebuilds the files whose
//! text changed ([`SearchIndex::update`]); the document frequencies are adjusted by subtracting the
//! old file's terms and adding the new ones. Terms are interned in a persistent ordered map, which
//! also answers prefix expansion (`auth` → `authentic`).
//!
//! `search/postings.rs` builds and updates the index; `search/plan.rs` turns a question into
//! terms and their expansions; `search/rank.rs` holds the re-ranking signals.

mod plan;
mod postings;
pub mod rank;

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::filter::{ClassesAsked, FileFilter};
use super::text;
use codegraph_graph::{EntityId, FilePath, Graph};
use codegraph_model::{EntityKind, FileClass};
pub use rank::Ranking;

/// Which entities a search may return.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SearchScope {
    #[default]
    All,
    /// Functions and methods.
    Functions,
    /// Classes, interfaces, structs, enums, traits.
    Classes,
    /// Modules (files).
    Files,
}

impl SearchScope {
    pub fn admits(self, kind: EntityKind) -> bool {
        match self {
            SearchScope::All => true,
            SearchScope::Functions => matches!(kind, EntityKind::Function | EntityKind::Method),
            SearchScope::Classes => kind.is_type(),
            SearchScope::Files => kind == EntityKind::Module,
        }
    }
}

/// How much a word counts in each field of a document: a word in the name counts most, a
/// word in a docstring least. Fixed when the index is built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldWeights {
    pub name: f32,
    /// The enclosing definitions' names (`EmailMessage` for `EmailMessage.send`).
    pub parent: f32,
    /// The directory and file name of a definition.
    pub path: f32,
    /// The path of a module (file) entity.
    pub module_path: f32,
    pub signature: f32,
    /// The first [`DOC_WORDS`] words of the docstring.
    pub doc: f32,
    /// The names a definition's own code calls and refers to as types, each once: what it
    /// does, in its callees' words (`render`, `set_render_target`). Off by default: on the
    /// question benchmark it answered nothing more and lowered the mean reciprocal rank.
    pub body: f32,
}

impl Default for FieldWeights {
    fn default() -> FieldWeights {
        FieldWeights {
            name: 3.0,
            parent: 1.0,
            path: 0.5,
            module_path: 1.5,
            signature: 0.5,
            doc: 0.5,
            body: 0.0,
        }
    }
}

/// Only the start of a docstring is indexed; the rest is examples and parameter lists.
const DOC_WORDS: usize = 60;

/// How many of the best BM25 candidates the name match re-ranks.
const RERANKED: usize = 300;
/// How many of those the exact phrase and the graph prior re-rank.
const FINALISTS: usize = 60;

const K1: f64 = 1.2;
const B: f64 = 0.5;

/// One entity as a search document.
#[derive(Debug, Clone)]
struct Doc {
    id: EntityId,
    kind: EntityKind,
    /// What its code is for: its file's class, or test inside a test module.
    class: FileClass,
    /// The name, lowercased, without `_` and `-`, for exact and prefix boosts.
    plain_name: Box<str>,
    length: f32,
}

/// A term and its `(document, weighted frequency)` pairs in one file.
type TermPostings = (Arc<str>, Box<[(u32, f32)]>);

/// The postings of one file: its documents and, per term, `(document, weighted frequency)`.
#[derive(Debug)]
struct FilePostings {
    hash: [u8; 32],
    /// The file's class; its definitions share it, except those in a test module.
    class: FileClass,
    docs: Vec<Doc>,
    /// The hash of each term, sorted; `terms` is in the same order. Looking a term up is a
    /// binary search over integers, which matters: a query probes every file.
    hashes: Box<[u64]>,
    terms: Vec<TermPostings>,
}

fn term_hash(term: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    term.hash(&mut hasher);
    hasher.finish()
}

/// Per-file scores, reused across files: `(score, matched query terms)` per document, and the
/// documents touched.
#[derive(Default)]
struct Scratch {
    scores: Vec<(f64, u64)>,
    touched: Vec<u32>,
}

/// A search index over one graph snapshot.
#[derive(Clone, Default)]
pub struct SearchIndex {
    revision: u64,
    weights: FieldWeights,
    files: FxHashMap<FilePath, Arc<FilePostings>>,
    /// Term → how many documents hold it. Persistent, so cloning the index is cheap.
    document_frequency: imbl::OrdMap<Arc<str>, u32>,
    document_count: u64,
    total_length: f64,
}

/// What to search and how to rank.
#[derive(Clone, Copy)]
pub struct SearchOptions<'a> {
    pub scope: SearchScope,
    pub limit: usize,
    pub filter: FileFilter,
    pub ranking: Ranking,
    /// The snapshot the index was built from: the graph prior and docstring phrases need it;
    /// without it those two signals are off.
    pub graph: Option<&'a Graph>,
}

impl<'a> SearchOptions<'a> {
    /// The default ranking and filter (production first) over `graph`.
    pub fn new(graph: &'a Graph, scope: SearchScope, limit: usize) -> SearchOptions<'a> {
        SearchOptions {
            scope,
            limit,
            filter: FileFilter::default(),
            ranking: Ranking::default(),
            graph: Some(graph),
        }
    }

    pub fn with_filter(self, filter: FileFilter) -> SearchOptions<'a> {
        SearchOptions { filter, ..self }
    }
}

/// One hit.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub id: EntityId,
    pub kind: EntityKind,
    pub class: FileClass,
    /// 0..1: the best hit gets the share of the query it covers; the others are scaled to it.
    pub relevance: f64,
    /// The raw BM25 score with boosts.
    pub score: f64,
}

/// Ranked hits, best first, with how many matched in all.
#[derive(Debug, Clone, Default)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub total_count: usize,
    /// The query's terms after stop words and stemming.
    pub terms: Vec<String>,
}

fn plain(text: &str) -> String {
    text.chars()
        .filter(|character| character.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The idf of the query terms a document matched (`mask`, one bit per term).
fn covered_idf(term_idf: &[f64], mask: u64) -> f64 {
    term_idf
        .iter()
        .enumerate()
        .filter(|(index, _)| mask & (1u64 << (*index).min(63)) != 0)
        .map(|(_, idf)| idf)
        .sum()
}

/// Whether the question writes `doc`'s name as code (`prefetch_related`, `select!`): its name,
/// or a module's file name without extension.
fn names_one(doc: &Doc, named: &[String]) -> bool {
    if named.is_empty() {
        return false;
    }
    if named.iter().any(|name| **name == *doc.plain_name) {
        return true;
    }
    if doc.kind != EntityKind::Module {
        return false;
    }
    let file = doc.id.rsplit('/').next().unwrap_or(&doc.id);
    let stem = plain(file.split('.').next().unwrap_or(file));
    named.contains(&stem)
}

/// A scored document: its score, the mask of the query terms it matched, the document.
type Candidate<'index> = (f64, u64, &'index Doc);

/// Highest score first, then by id.
fn best_first(left: &Candidate<'_>, right: &Candidate<'_>) -> std::cmp::Ordering {
    right
        .0
        .total_cmp(&left.0)
        .then_with(|| left.2.id.cmp(&right.2.id))
}

/// Keeps the best `count` candidates (in no particular order).
fn keep_best(scored: &mut Vec<Candidate<'_>>, count: usize) {
    if scored.len() > count {
        scored.select_nth_unstable_by(count - 1, best_first);
        scored.truncate(count);
    }
}

/// Per query term: the highest idf among its expansions.
fn term_idf(term_count: usize, expansions: &[Expansion]) -> Vec<f64> {
    (0..term_count)
        .map(|index| {
            expansions
                .iter()
                .filter(|expansion| expansion.query_term == index)
                .map(|expansion| expansion.idf)
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The hits of the sorted candidates, with relevance scaled so that the best one's is the share
/// of the question (by idf) it covers.
fn hits(scored: Vec<Candidate<'_>>, term_idf: &[f64]) -> Vec<SearchHit> {
    let idf_total: f64 = term_idf.iter().sum();
    let scale = match scored.first() {
        Some(&(top, mask, _)) if top > 0.0 && idf_total > 0.0 => {
            (covered_idf(term_idf, mask) / idf_total) / top
        }
        _ => 0.0,
    };
    scored
        .into_iter()
        .map(|(score, _, doc)| SearchHit {
            id: doc.id,
            kind: doc.kind,
            class: doc.class,
            relevance: (score * scale).clamp(0.0, 1.0),
            score,
        })
        .collect()
}

/// The boost of a document whose name is the question (or a name it spells out), twice, or
/// starts with it, 1.3 times.
struct NameBoost {
    plain_query: String,
    named: Vec<String>,
    exact_name: bool,
}

impl NameBoost {
    fn of(&self, doc: &Doc) -> f64 {
        if !self.exact_name {
            1.0
        } else if *doc.plain_name == *self.plain_query || names_one(doc, &self.named) {
            2.0
        } else if !self.plain_query.is_empty() && doc.plain_name.starts_with(&self.plain_query) {
            1.3
        } else {
            1.0
        }
    }
}

/// How a query term reaches index terms: itself, longer terms it prefixes, shorter terms that
/// prefix it (an abbreviation such as `auth` for `authentication`).
struct Expansion {
    term: Arc<str>,
    hash: u64,
    /// Which query term it stands for.
    query_term: usize,
    weight: f64,
    idf: f64,
}

impl SearchIndex {
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn document_count(&self) -> u64 {
        self.document_count
    }

    pub fn term_count(&self) -> usize {
        self.document_frequency.len()
    }

    fn idf(&self, document_frequency: u32) -> f64 {
        let total = self.document_count as f64;
        let frequency = document_frequency as f64;
        ((total - frequency + 0.5) / (frequency + 0.5) + 1.0).ln()
    }

    /// Scores the documents of one file into `scratch`.
    fn score_file(
        &self,
        postings: &FilePostings,
        expansions: &[Expansion],
        average_length: f64,
        scratch: &mut Scratch,
    ) {
        for &doc in &scratch.touched {
            scratch.scores[doc as usize] = (0.0, 0);
        }
        scratch.touched.clear();
        if scratch.scores.len() < postings.docs.len() {
            scratch.scores.resize(postings.docs.len(), (0.0, 0));
        }
        for expansion in expansions {
            let Ok(position) = postings.hashes.binary_search(&expansion.hash) else {
                continue;
            };
            let (term, list) = &postings.terms[position];
            if **term != *expansion.term {
                continue;
            }
            for &(doc, frequency) in list.iter() {
                let length = postings.docs[doc as usize].length as f64;
                let frequency = frequency as f64;
                let saturated = frequency * (K1 + 1.0)
                    / (frequency + K1 * (1.0 - B + B * length / average_length));
                let entry = &mut scratch.scores[doc as usize];
                if entry.1 == 0 {
                    scratch.touched.push(doc);
                }
                entry.0 += expansion.weight * expansion.idf * saturated;
                entry.1 |= 1u64 << expansion.query_term.min(63);
            }
        }
    }

    /// Entities matching `query`, best first, at most `limit`, with the default filter
    /// (production first) and ranking; without a graph, so no graph prior or docstring phrases
    /// (see [`SearchIndex::search_with`]).
    pub fn search(&self, query: &str, scope: SearchScope, limit: usize) -> SearchResults {
        self.search_with(
            query,
            &SearchOptions {
                scope,
                limit,
                filter: FileFilter::default(),
                ranking: Ranking::default(),
                graph: None,
            },
        )
    }

    /// Entities matching `query`, best first: BM25 with exact-name boosts and the file class
    /// weight picks the best [`RERANKED`] candidates, which the signals of [`rank`] re-rank.
    pub fn search_with(&self, query: &str, options: &SearchOptions) -> SearchResults {
        let (terms, expansions) = self.plan(query);
        if expansions.is_empty() || self.document_count == 0 {
            return SearchResults {
                terms,
                ..SearchResults::default()
            };
        }
        let term_idf = term_idf(terms.len(), &expansions);
        let mut scored = self.candidates(query, options, &expansions, &term_idf);
        let total_count = scored.len();
        let pool = RERANKED.max(options.limit);
        keep_best(&mut scored, pool);
        self.rerank(query, &terms, options, &mut scored);
        let limit = if options.limit == 0 {
            scored.len()
        } else {
            options.limit
        };
        keep_best(&mut scored, limit);
        scored.sort_by(best_first);
        SearchResults {
            hits: hits(scored, &term_idf),
            total_count,
            terms,
        }
    }

    /// Every admitted document some expansion reaches, with its BM25 score times the boosts of
    /// an exact or prefix name match, of the share of the question it covers and of its file
    /// class, and the mask of the query terms it matched.
    fn candidates<'index>(
        &'index self,
        query: &str,
        options: &SearchOptions,
        expansions: &[Expansion],
        term_idf: &[f64],
    ) -> Vec<Candidate<'index>> {
        let idf_total: f64 = term_idf.iter().sum();
        let boost = NameBoost {
            plain_query: plain(query),
            named: text::named_in(query),
            exact_name: options.ranking.exact_name,
        };
        let asked = ClassesAsked::from_query(query);
        let filter = options.filter;
        let average_length = self.total_length / self.document_count as f64;
        let mut scored: Vec<Candidate<'index>> = Vec::new();
        let mut scratch = Scratch::default();
        for postings in self.files.values() {
            // A file's definitions are of its class, or tests (in a test module).
            let admitted = filter.admits(postings.class)
                || (postings.class == FileClass::Production && filter.admits(FileClass::Test));
            if !admitted {
                continue;
            }
            self.score_file(postings, expansions, average_length, &mut scratch);
            for &doc in &scratch.touched {
                let (score, mask) = scratch.scores[doc as usize];
                let doc = &postings.docs[doc as usize];
                if !options.scope.admits(doc.kind) || !filter.admits(doc.class) {
                    continue;
                }
                let coverage = if options.ranking.coverage > 0.0 && idf_total > 0.0 {
                    (covered_idf(term_idf, mask) / idf_total).powf(options.ranking.coverage)
                } else {
                    1.0
                };
                scored.push((
                    score * boost.of(doc) * coverage * filter.weight(doc.class, asked),
                    mask,
                    doc,
                ));
            }
        }
        scored
    }

    /// Multiplies each candidate's score by the factors of the name match, exact phrase and
    /// graph prior signals.
    fn rerank(
        &self,
        query: &str,
        terms: &[String],
        options: &SearchOptions,
        scored: &mut [(f64, u64, &Doc)],
    ) {
        let ranking = options.ranking;
        if ranking.name_match == 0.0 && ranking.phrase == 0.0 && ranking.graph_prior == 0.0 {
            return;
        }
        const FAN_IN_CAP: usize = 64;
        let shape = rank::QueryShape::new(query, terms);
        if ranking.name_match > 0.0 {
            for (score, _, doc) in scored.iter_mut() {
                let name = rank::name_terms(&doc.id);
                *score *= 1.0 + ranking.name_match * rank::name_match(&shape, &name).powi(2);
            }
        }
        if shape.pairs.is_empty() && ranking.graph_prior == 0.0 {
            return;
        }
        // The phrase and the prior move an entity by a third at most: only the best candidates
        // after the name match can still reach the first results.
        let Some(graph) = options.graph else {
            return;
        };
        if ranking.phrase == 0.0 && ranking.graph_prior == 0.0 {
            return;
        }
        let order = |left: &(f64, u64, &Doc), right: &(f64, u64, &Doc)| {
            right
                .0
                .total_cmp(&left.0)
                .then_with(|| left.2.id.cmp(&right.2.id))
        };
        let finalists = FINALISTS.min(scored.len());
        if finalists < scored.len() {
            scored.select_nth_unstable_by(finalists, order);
        }
        for (score, _, doc) in scored[..finalists].iter_mut() {
            let mut factor = 1.0;
            if ranking.phrase > 0.0 && !shape.pairs.is_empty() {
                let name = rank::name_terms(&doc.id);
                let docstring = graph.docstring_of(&doc.id);
                factor *= 1.0 + ranking.phrase * rank::phrase_match(&shape, &name, docstring);
            }
            if ranking.graph_prior > 0.0 {
                let fan_in = rank::production_fan_in(graph, &doc.id, FAN_IN_CAP);
                factor *= 1.0 + ranking.graph_prior * rank::prior(fan_in, FAN_IN_CAP);
            }
            *score *= factor;
        }
    }

    /// The raw scores of the given entities for `query` (0 for those that do not match);
    /// `local_search` ranks a neighbourhood with it.
    pub fn score_entities(&self, query: &str, ids: &[EntityId]) -> FxHashMap<EntityId, f64> {
        let (_, expansions) = self.plan(query);
        let mut result: FxHashMap<EntityId, f64> = FxHashMap::default();
        if expansions.is_empty() || self.document_count == 0 {
            return result;
        }
        let average_length = self.total_length / self.document_count as f64;
        let mut by_file: FxHashMap<&str, Vec<&EntityId>> = FxHashMap::default();
        for id in ids {
            let path = id.split("::").next().unwrap_or(id);
            by_file.entry(path).or_default().push(id);
        }
        let mut scratch = Scratch::default();
        for (path, wanted) in by_file {
            let Some(postings) = self.files.get(path) else {
                continue;
            };
            self.score_file(postings, &expansions, average_length, &mut scratch);
            for &doc in &scratch.touched {
                let score = scratch.scores[doc as usize].0;
                let doc = &postings.docs[doc as usize];
                if wanted.iter().any(|id| **id == doc.id) {
                    result.insert(doc.id, score);
                }
            }
        }
        result
    }
}
