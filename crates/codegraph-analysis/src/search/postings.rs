//! Building the index and keeping it up to date: each file's postings (its documents and the
//! weighted terms of their fields), and the document frequencies adjusted file by file.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{
    DOC_WORDS, Doc, FieldWeights, FilePostings, SearchIndex, TermPostings, plain, term_hash,
};
use crate::text;
use codegraph_graph::{FileNode, FilePath, Graph, materialize};

impl SearchIndex {
    /// Builds the index of a snapshot from scratch (in parallel over files).
    pub fn build(graph: &Graph) -> SearchIndex {
        SearchIndex::build_with(graph, FieldWeights::default())
    }

    /// [`SearchIndex::build`] with other field weights (the question benchmark measures them).
    pub fn build_with(graph: &Graph, weights: FieldWeights) -> SearchIndex {
        SearchIndex {
            weights,
            ..SearchIndex::default()
        }
        .update(graph)
    }

    /// This index as of no revision, to be updated to another graph's (`Cache::seed_search`).
    pub(crate) fn rebased(&self) -> SearchIndex {
        SearchIndex {
            revision: 0,
            ..self.clone()
        }
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
        let cancel = codegraph_model::cancel::current().unwrap_or_default();
        let built: Vec<(FilePath, FilePostings)> = changed
            .par_iter()
            .map(|file| {
                cancel.checkpoint();
                (file.path, file_postings(file, &next.weights))
            })
            .collect();
        for (path, mut postings) in built {
            codegraph_model::cancel::checkpoint();
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
}

fn add_terms(counts: &mut FxHashMap<String, f32>, text: &str, weight: f32) -> f32 {
    let mut added = 0.0;
    if weight == 0.0 {
        return added;
    }
    for term in text::code_terms(text) {
        *counts.entry(term).or_default() += weight;
        added += weight;
    }
    added
}

fn file_postings(file: &FileNode, weights: &FieldWeights) -> FilePostings {
    let mut docs = Vec::with_capacity(file.summary.defs.len() + 1);
    let mut postings: FxHashMap<String, Vec<(u32, f32)>> = FxHashMap::default();
    let directory = file
        .path
        .rsplit_once('/')
        .map_or("", |(directory, _)| directory);
    // The distinct names each definition's own code refers to (the module's: its top level).
    let mut body_names: Vec<Vec<&str>> = vec![Vec::new(); file.summary.defs.len() + 1];
    if weights.body > 0.0 {
        for reference in &file.summary.refs {
            let slot = reference.scope().map_or(0, |scope| scope as usize + 1);
            if let Some(names) = body_names.get_mut(slot)
                && !names.contains(&reference.name.as_str())
            {
                names.push(&reference.name);
            }
        }
    }
    for index in std::iter::once(None).chain((0..file.summary.defs.len() as u32).map(Some)) {
        let entity = materialize(file, index);
        let mut counts: FxHashMap<String, f32> = FxHashMap::default();
        let mut length = 0.0;
        if index.is_none() {
            length += add_terms(&mut counts, &file.path, weights.module_path);
        } else {
            length += add_terms(&mut counts, &entity.name, weights.name);
            let nested = file.summary.nested_name(index.unwrap_or_default());
            if let Some((parents, _)) = nested.rsplit_once('.') {
                length += add_terms(&mut counts, parents, weights.parent);
            }
            length += add_terms(&mut counts, directory, weights.path);
            let stem = file.path.rsplit('/').next().unwrap_or_default();
            let stem = stem.rsplit_once('.').map_or(stem, |(stem, _)| stem);
            length += add_terms(&mut counts, stem, weights.path);
            if let Some(signature) = &entity.signature {
                length += add_terms(&mut counts, signature, weights.signature);
            }
        }
        if let Some(doc) = &entity.docstring {
            let start: Vec<&str> = doc.split_whitespace().take(DOC_WORDS).collect();
            length += add_terms(&mut counts, &start.join(" "), weights.doc);
        }
        let slot = index.map_or(0, |index| index as usize + 1);
        for name in &body_names[slot] {
            length += add_terms(&mut counts, name, weights.body);
        }
        let doc_index = docs.len() as u32;
        for (term, count) in counts {
            postings.entry(term).or_default().push((doc_index, count));
        }
        docs.push(Doc {
            id: entity.id,
            kind: entity.kind,
            class: match index {
                None => file.class,
                Some(index) => file.summary.definition_class(file.class, index),
            },
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
        class: file.class,
        docs,
        hashes,
        terms,
    }
}
