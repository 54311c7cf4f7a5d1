//! A question's terms and how each reaches the index: its words stemmed, names with odd
//! capitals kept whole or split by what the index knows, adjacent words joined, and each term's
//! expansions to the index terms it prefixes or that prefix it.

use std::sync::Arc;

use super::{Expansion, SearchIndex, term_hash};
use crate::text::{self, RawWord};

/// The terms of a question as first read from its words.
struct QueryTerms {
    terms: Vec<String>,
    /// Per term: the parts of a name with odd capitals kept whole, which match at half weight.
    parts_of: Vec<Vec<String>>,
    /// Per word: its term (the last, for a word split into parts), `None` for a stop word left
    /// out.
    term_of_word: Vec<Option<usize>>,
}

impl QueryTerms {
    /// The term `term` is, added if new.
    fn add(&mut self, term: String, parts: Vec<String>) -> usize {
        match self.terms.iter().position(|known| *known == term) {
            Some(position) => position,
            None => {
                self.terms.push(term);
                self.parts_of.push(parts);
                self.terms.len() - 1
            }
        }
    }
}

impl SearchIndex {
    /// The terms of a question and how each reaches the index. Beyond [`text::query_terms`]: a
    /// name with odd capitals (`glTF`) is one term when the index knows it, its parts matching at
    /// half weight, and its parts are terms of their own when the index does not know it
    /// (`HTTPServer`); two adjacent words whose concatenation the index knows reach it too
    /// ("logged in" reaches `login`, "shut down" `shutdown`).
    pub(super) fn plan(&self, query: &str) -> (Vec<String>, Vec<Expansion>) {
        let words = text::raw_words(query);
        let query_terms = self.query_terms(&words);
        let mut expansions = self.expand(&query_terms.terms);
        expansions.extend(self.part_expansions(&query_terms.parts_of));
        expansions.extend(self.joined_expansions(&words, &query_terms));
        (query_terms.terms, expansions)
    }

    /// One term per word, stemmed (a name with odd capitals the index does not know gives one
    /// per part); stop words left out unless the question has nothing else.
    fn query_terms(&self, words: &[RawWord]) -> QueryTerms {
        let keep_stop_words = words.iter().all(|word| text::is_stop_word(&word.whole));
        let mut query_terms = QueryTerms {
            terms: Vec::new(),
            parts_of: Vec::new(),
            term_of_word: Vec::with_capacity(words.len()),
        };
        for word in words {
            if !keep_stop_words && text::is_stop_word(&word.whole) {
                query_terms.term_of_word.push(None);
                continue;
            }
            let whole = text::stem(&word.whole);
            if word.parts.is_empty() || self.document_frequency.contains_key(whole.as_str()) {
                let parts = word.parts.iter().map(|part| text::stem(part)).collect();
                let term = query_terms.add(whole, parts);
                query_terms.term_of_word.push(Some(term));
            } else {
                let mut last = None;
                for part in &word.parts {
                    last = Some(query_terms.add(text::stem(part), Vec::new()));
                }
                query_terms.term_of_word.push(last);
            }
        }
        query_terms
    }

    /// The parts of names kept whole, at half weight.
    fn part_expansions(&self, parts_of: &[Vec<String>]) -> Vec<Expansion> {
        let mut expansions = Vec::new();
        for (query_term, parts) in parts_of.iter().enumerate() {
            for part in parts {
                if let Some((interned, frequency)) =
                    self.document_frequency.get_key_value(part.as_str())
                {
                    expansions.push(Expansion {
                        hash: term_hash(interned),
                        term: interned.clone(),
                        query_term,
                        weight: 0.5,
                        idf: self.idf(*frequency),
                    });
                }
            }
        }
        expansions
    }

    /// Two adjacent plain words whose concatenation (or that of their stems) the index knows,
    /// shared between the terms of the two words.
    fn joined_expansions(&self, words: &[RawWord], query_terms: &QueryTerms) -> Vec<Expansion> {
        let mut expansions = Vec::new();
        for (index, pair) in words.windows(2).enumerate() {
            if !pair[0].parts.is_empty() || !pair[1].parts.is_empty() {
                continue;
            }
            let (first, second) = (&pair[0].whole, &pair[1].whole);
            let candidates = [
                format!("{first}{second}"),
                format!("{}{second}", text::stem(first)),
                text::stem(&format!("{first}{second}")),
            ];
            let Some((interned, frequency)) = candidates
                .iter()
                .filter(|candidate| candidate.len() >= 5)
                .find_map(|candidate| self.document_frequency.get_key_value(candidate.as_str()))
            else {
                continue;
            };
            let term_of_word = &query_terms.term_of_word;
            let spanned: Vec<usize> = [term_of_word[index], term_of_word[index + 1]]
                .into_iter()
                .flatten()
                .filter(|&query_term| *query_terms.terms[query_term] != **interned)
                .collect();
            for &query_term in &spanned {
                expansions.push(Expansion {
                    hash: term_hash(interned),
                    term: interned.clone(),
                    query_term,
                    weight: 1.0 / spanned.len() as f64,
                    idf: self.idf(*frequency),
                });
            }
        }
        expansions
    }

    /// Each term's expansions: itself, up to 16 longer index terms it prefixes (half weight),
    /// and the index terms of four letters or more that prefix it (an abbreviation).
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
}
