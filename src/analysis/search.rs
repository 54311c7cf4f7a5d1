//! Ranked search over entities: BM25 over identifier sub-words, qualified names, paths,
//! signatures and docstrings, with boosts for exact and prefix name matches.
//!
//! The index keeps one postings list per file, so a new snapshot only rebuilds the files whose
//! text changed ([`SearchIndex::update`]); the document frequencies are adjusted by subtracting the
//! old file's terms and adding the new ones. Terms are interned in a persistent ordered map, which
//! also answers prefix expansion (`auth` → `authentic`).

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::text;
use crate::graph::{EntityId, FileNode, FilePath, Graph, materialize};
use crate::model::EntityKind;

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

/// Field weights: a word in the name counts most, a word in a docstring least.
const NAME_WEIGHT: f32 = 3.0;
const PARENT_WEIGHT: f32 = 1.0;
const PATH_WEIGHT: f32 = 0.5;
const MODULE_PATH_WEIGHT: f32 = 1.5;
const SIGNATURE_WEIGHT: f32 = 0.5;
const DOC_WEIGHT: f32 = 0.5;
/// Only the start of a docstring is indexed; the rest is examples and parameter lists.
const DOC_WORDS: usize = 60;

const K1: f64 = 1.2;
const B: f64 = 0.5;

/// One entity as a search document.
#[derive(Debug, Clone)]
struct Doc {
    id: EntityId,
    kind: EntityKind,
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
    files: FxHashMap<FilePath, Arc<FilePostings>>,
    /// Term → how many documents hold it. Persistent, so cloning the index is cheap.
    document_frequency: imbl::OrdMap<Arc<str>, u32>,
    document_count: u64,
    total_length: f64,
}

/// One hit.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub id: EntityId,
    pub kind: EntityKind,
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

fn add_terms(counts: &mut FxHashMap<String, f32>, text: &str, weight: f32) -> f32 {
    let mut added = 0.0;
    for term in text::code_terms(text) {
        *counts.entry(term).or_default() += weight;
        added += weight;
    }
    added
}

fn file_postings(file: &FileNode) -> FilePostings {
    let mut docs = Vec::with_capacity(file.summary.defs.len() + 1);
    let mut postings: FxHashMap<String, Vec<(u32, f32)>> = FxHashMap::default();
    let directory = file
        .path
        .rsplit_once('/')
        .map_or("", |(directory, _)| directory);
    for index in std::iter::once(None).chain((0..file.summary.defs.len() as u32).map(Some)) {
        let entity = materialize(file, index);
        let mut counts: FxHashMap<String, f32> = FxHashMap::default();
        let mut length = 0.0;
        if index.is_none() {
            length += add_terms(&mut counts, &file.path, MODULE_PATH_WEIGHT);
        } else {
            length += add_terms(&mut counts, &entity.name, NAME_WEIGHT);
            let nested = file.summary.nested_name(index.unwrap_or_default());
            if let Some((parents, _)) = nested.rsplit_once('.') {
                length += add_terms(&mut counts, parents, PARENT_WEIGHT);
            }
            length += add_terms(&mut counts, directory, PATH_WEIGHT);
            let stem = file.path.rsplit('/').next().unwrap_or_default();
            let stem = stem.rsplit_once('.').map_or(stem, |(stem, _)| stem);
            length += add_terms(&mut counts, stem, PATH_WEIGHT);
            if let Some(signature) = &entity.signature {
                length += add_terms(&mut counts, signature, SIGNATURE_WEIGHT);
            }
        }
        if let Some(doc) = &entity.docstring {
            let start: Vec<&str> = doc.split_whitespace().take(DOC_WORDS).collect();
            length += add_terms(&mut counts, &start.join(" "), DOC_WEIGHT);
        }
        let doc_index = docs.len() as u32;
        for (term, count) in counts {
            postings.entry(term).or_default().push((doc_index, count));
        }
        docs.push(Doc {
            id: entity.id.clone(),
            kind: entity.kind,
            plain_name: plain(&entity.name).into(),
            length,
        });
    }
    let mut terms: Vec<TermPostings> = postings
        .into_iter()
        .map(|(term, list)| (Arc::from(term), list.into_boxed_slice()))
        .collect();
    terms.sort_by_cached_key(|(term, _)| (term_hash(term), term.clone()));
    let hashes = terms.iter().map(|(term, _)| term_hash(term)).collect();
    FilePostings {
        hash: file.hash,
        docs,
        hashes,
        terms,
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
    /// Builds the index of a snapshot from scratch (in parallel over files).
    pub fn build(graph: &Graph) -> SearchIndex {
        SearchIndex::default().update(graph)
    }

    /// The index of `graph`, reusing this index's postings for every file whose text is the
    /// same; only new and changed files are re-tokenised.
    pub fn update(&self, graph: &Graph) -> SearchIndex {
        let mut next = self.clone();
        next.revision = graph.revision();
        let removed: Vec<FilePath> = next
            .files
            .keys()
            .filter(|path| graph.file(path).is_none())
            .cloned()
            .collect();
        for path in removed {
            if let Some(old) = next.files.remove(&path) {
                next.subtract(&old);
            }
        }
        let changed: Vec<&Arc<FileNode>> = graph
            .files()
            .filter(|file| {
                next.files
                    .get(&file.path)
                    .is_none_or(|postings| postings.hash != file.hash)
            })
            .collect();
        // Checked on rayon's threads too: a cancelled build stops there.
        let cancel = crate::cancel::current().unwrap_or_default();
        let built: Vec<(FilePath, FilePostings)> = changed
            .par_iter()
            .map(|file| {
                cancel.checkpoint();
                (file.path.clone(), file_postings(file))
            })
            .collect();
        for (path, mut postings) in built {
            crate::cancel::checkpoint();
            if let Some(old) = next.files.remove(&path) {
                next.subtract(&old);
            }
            next.add(&mut postings);
            next.files.insert(path, Arc::new(postings));
        }
        next
    }

    fn subtract(&mut self, postings: &FilePostings) {
        for (term, list) in &postings.terms {
            let remove = match self.document_frequency.get_mut(term) {
                Some(count) => {
                    *count = count.saturating_sub(list.len() as u32);
                    *count == 0
                }
                None => false,
            };
            if remove {
                self.document_frequency.remove(term);
            }
        }
        self.document_count -= postings.docs.len() as u64;
        self.total_length -= postings
            .docs
            .iter()
            .map(|doc| doc.length as f64)
            .sum::<f64>();
    }

    /// Adds a file's counts, and shares the interned term strings.
    fn add(&mut self, postings: &mut FilePostings) {
        for (term, list) in &mut postings.terms {
            match self.document_frequency.get_key_value(term) {
                Some((interned, count)) => {
                    let (interned, count) = (interned.clone(), *count);
                    *term = interned.clone();
                    self.document_frequency
                        .insert(interned, count + list.len() as u32);
                }
                None => {
                    self.document_frequency
                        .insert(term.clone(), list.len() as u32);
                }
            }
        }
        self.document_count += postings.docs.len() as u64;
        self.total_length += postings
            .docs
            .iter()
            .map(|doc| doc.length as f64)
            .sum::<f64>();
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn document_count(&self) -> u64 {
        self.document_count
    }

    pub fn term_count(&self) -> usize {
        self.document_frequency.len()
    }

    /// An estimate of the heap the index holds, in bytes: documents, postings, the term map.
    pub fn memory_bytes(&self) -> usize {
        let mut bytes =
            self.files.capacity() * (size_of::<FilePath>() + size_of::<Arc<FilePostings>>() + 8);
        for postings in self.files.values() {
            bytes += size_of::<FilePostings>();
            bytes += postings.docs.capacity() * size_of::<Doc>();
            bytes += postings
                .docs
                .iter()
                .map(|doc| doc.plain_name.len())
                .sum::<usize>();
            bytes += postings.terms.capacity() * size_of::<TermPostings>();
            bytes += postings.hashes.len() * size_of::<u64>();
            bytes += postings
                .terms
                .iter()
                .map(|(_, list)| list.len() * size_of::<(u32, f32)>())
                .sum::<usize>();
        }
        // Interned strings (with their reference counts) and the map's nodes.
        for (term, _) in self.document_frequency.iter() {
            bytes += term.len() + 16 + size_of::<(Arc<str>, u32)>() + 8;
        }
        bytes
    }

    fn idf(&self, document_frequency: u32) -> f64 {
        let total = self.document_count as f64;
        let frequency = document_frequency as f64;
        ((total - frequency + 0.5) / (frequency + 0.5) + 1.0).ln()
    }

    fn expand(&self, terms: &[String]) -> Vec<Expansion> {
        let mut expansions: Vec<Expansion> = Vec::new();
        for (query_term, term) in terms.iter().enumerate() {
            if let Some((interned, frequency)) =
                self.document_frequency.get_key_value(term.as_str())
            {
                expansions.push(Expansion {
                    hash: term_hash(interned),
                    term: interned.clone(),
                    query_term,
                    weight: 1.0,
                    idf: self.idf(*frequency),
                });
            }
            if term.len() >= 4 {
                let start: Arc<str> = Arc::from(term.as_str());
                let longer = self
                    .document_frequency
                    .range(start..)
                    .skip_while(|(candidate, _)| &***candidate == term.as_str())
                    .take_while(|(candidate, _)| candidate.starts_with(term.as_str()))
                    .take(16);
                for (candidate, frequency) in longer {
                    expansions.push(Expansion {
                        hash: term_hash(candidate),
                        term: candidate.clone(),
                        query_term,
                        weight: 0.5,
                        idf: self.idf(*frequency),
                    });
                }
            }
            for cut in (4..term.len()).rev() {
                if !term.is_char_boundary(cut) {
                    continue;
                }
                if let Some((candidate, frequency)) =
                    self.document_frequency.get_key_value(&term[..cut])
                {
                    expansions.push(Expansion {
                        hash: term_hash(candidate),
                        term: candidate.clone(),
                        query_term,
                        weight: 0.4,
                        idf: self.idf(*frequency),
                    });
                }
            }
        }
        expansions
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

    /// Entities matching `query`, best first, at most `limit`.
    pub fn search(&self, query: &str, scope: SearchScope, limit: usize) -> SearchResults {
        self.search_filtered(query, limit, &|kind, _| scope.admits(kind))
    }

    /// [`SearchIndex::search`] with any filter on the kind and id.
    pub fn search_filtered(
        &self,
        query: &str,
        limit: usize,
        admit: &dyn Fn(EntityKind, &str) -> bool,
    ) -> SearchResults {
        let terms = text::query_terms(query);
        let expansions = self.expand(&terms);
        if expansions.is_empty() || self.document_count == 0 {
            return SearchResults {
                terms,
                ..SearchResults::default()
            };
        }
        let term_idf: Vec<f64> = (0..terms.len())
            .map(|index| {
                expansions
                    .iter()
                    .filter(|expansion| expansion.query_term == index)
                    .map(|expansion| expansion.idf)
                    .fold(0.0, f64::max)
            })
            .collect();
        let plain_query = plain(query);
        let average_length = self.total_length / self.document_count as f64;
        let mut scored: Vec<(f64, u64, &Doc)> = Vec::new();
        let mut scratch = Scratch::default();
        for postings in self.files.values() {
            self.score_file(postings, &expansions, average_length, &mut scratch);
            for &doc in &scratch.touched {
                let (score, mask) = scratch.scores[doc as usize];
                let doc = &postings.docs[doc as usize];
                if !admit(doc.kind, &doc.id) {
                    continue;
                }
                let boost = if *doc.plain_name == *plain_query {
                    2.0
                } else if !plain_query.is_empty() && doc.plain_name.starts_with(&plain_query) {
                    1.3
                } else {
                    1.0
                };
                scored.push((score * boost, mask, doc));
            }
        }
        let total_count = scored.len();
        let order = |left: &(f64, u64, &Doc), right: &(f64, u64, &Doc)| {
            right
                .0
                .total_cmp(&left.0)
                .then_with(|| left.2.id.cmp(&right.2.id))
        };
        if limit > 0 && scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, order);
            scored.truncate(limit);
        }
        scored.sort_by(order);
        let idf_total: f64 = term_idf.iter().sum();
        let scale = match scored.first() {
            Some(&(top, mask, _)) if top > 0.0 && idf_total > 0.0 => {
                let covered: f64 = term_idf
                    .iter()
                    .enumerate()
                    .filter(|(index, _)| mask & (1u64 << (*index).min(63)) != 0)
                    .map(|(_, idf)| idf)
                    .sum();
                (covered / idf_total) / top
            }
            _ => 0.0,
        };
        let hits = scored
            .into_iter()
            .map(|(score, _, doc)| SearchHit {
                id: doc.id.clone(),
                kind: doc.kind,
                relevance: (score * scale).clamp(0.0, 1.0),
                score,
            })
            .collect();
        SearchResults {
            hits,
            total_count,
            terms,
        }
    }

    /// The raw scores of the given entities for `query` (0 for those that do not match);
    /// `local_search` ranks a neighbourhood with it.
    pub fn score_entities(&self, query: &str, ids: &[EntityId]) -> FxHashMap<EntityId, f64> {
        let terms = text::query_terms(query);
        let expansions = self.expand(&terms);
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
                    result.insert(doc.id.clone(), score);
                }
            }
        }
        result
    }
}
