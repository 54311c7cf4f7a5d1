//! The ranking signals beyond BM25, applied to the best BM25 candidates as factors:
//!
//! - **name match**: how well the entity's own name (with its enclosing type) and the question's
//!   words cover each other, so `EmailMessage.send` wins "send email message" over
//!   `EmailBackend.send_messages`, which also holds every word but says more;
//! - **exact phrase**: two adjacent words of the question adjacent in the name (`send_mail`) or
//!   in the docstring ("Send an email message");
//! - **graph prior**: how much production code depends on the entity (fan-in over calls,
//!   imports, uses and inheritance from production files), so the `authenticate` everyone
//!   calls ranks above a helper of the same words;
//! - **coverage** (off by default, see [`Ranking::coverage`]): the share of the question's words
//!   an entity matches (idf-weighted), applied to every BM25 match before the candidates are
//!   chosen;
//! - **file class**: production code first (`analysis::filter`).
//!
//! Each signal has a weight in [`Ranking`]; 0 turns it off. The question benchmark
//! (`benches/questions.rs`) prints the effect of turning each one off.

use crate::text;
use codegraph_graph::{EntityId, Graph};
use codegraph_model::{FileClass, RelationKind};

/// The weights of the signals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranking {
    /// Name match: the factor is `1 + name_match × F1²` of query words against name words.
    pub name_match: f64,
    /// Exact phrase: `1 + phrase × share of the question's word pairs found adjacent`.
    pub phrase: f64,
    /// Graph prior: `1 + graph_prior × log fan-in`, saturating at 64 production dependents.
    pub graph_prior: f64,
    /// Exact name (`2×`) and name-prefix (`1.3×`) boosts when the whole query is a name, or
    /// when the question writes the entity's name as code (`prefetch_related`, `select!`).
    pub exact_name: bool,
    /// Coverage: `(share of the question's words matched, weighted by idf) ^ coverage`, so an
    /// entity that answers three words of four beats one that repeats two. Off by default: on
    /// the question benchmark it cost three answers (BM25's sum already rewards coverage, and
    /// the name match does the rest).
    pub coverage: f64,
}

impl Default for Ranking {
    fn default() -> Ranking {
        Ranking {
            name_match: 1.0,
            phrase: 0.3,
            graph_prior: 0.3,
            exact_name: true,
            coverage: 0.0,
        }
    }
}

impl Ranking {
    /// BM25 with the exact-name boosts only (the ranking before these signals).
    pub const BM25_ONLY: Ranking = Ranking {
        name_match: 0.0,
        phrase: 0.0,
        graph_prior: 0.0,
        exact_name: true,
        coverage: 0.0,
    };
}

/// The question, prepared once for all candidates.
pub(super) struct QueryShape {
    /// Stemmed query terms (deduplicated).
    pub terms: Vec<String>,
    /// Stemmed pairs of words adjacent in the question once its stop words are dropped.
    pub pairs: Vec<(String, String)>,
}

impl QueryShape {
    pub fn new(query: &str, terms: &[String]) -> QueryShape {
        // Adjacent once the stop words are gone: "load a template" pairs `load` with `template`.
        let words: Vec<String> = text::split_words(query)
            .into_iter()
            .filter(|word| !text::is_stop_word(word))
            .collect();
        let mut pairs = Vec::new();
        for window in words.windows(2) {
            let pair = (text::stem(&window[0]), text::stem(&window[1]));
            if pair.0 != pair.1 && !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        QueryShape {
            terms: terms.to_vec(),
            pairs,
        }
    }
}

/// The words of an entity's own name and its enclosing type's (`EmailMessage.send` from
/// `django/core/mail/message.py::EmailMessage.send`), stemmed, in order.
pub(super) fn name_terms(id: &str) -> Vec<String> {
    // A module entity is its path: the file name is its name.
    let Some((_, nested)) = id.rsplit_once("::") else {
        let file = id.rsplit('/').next().unwrap_or(id);
        let stem = file.split('.').next().unwrap_or(file);
        return text::code_terms(stem);
    };
    let nested = nested.split('#').next().unwrap_or(nested);
    let mut parts = nested.rsplit('.');
    let own = parts.next().unwrap_or(nested);
    let parent = parts.next();
    let mut terms = Vec::new();
    if let Some(parent) = parent {
        terms.extend(text::code_terms(parent));
    }
    terms.extend(text::code_terms(own));
    terms
}

/// How far two terms match: 1 for the same stem, 0.5 when one prefixes the other (4+ letters).
fn term_match(left: &str, right: &str) -> f64 {
    if left == right {
        1.0
    } else if left.len() >= 4
        && right.len() >= 4
        && (left.starts_with(right) || right.starts_with(left))
    {
        0.5
    } else {
        0.0
    }
}

/// F1 of the question's terms against the name's: coverage of the question by the name and
/// of the name by the question.
pub(super) fn name_match(query: &QueryShape, name: &[String]) -> f64 {
    if query.terms.is_empty() || name.is_empty() {
        return 0.0;
    }
    let best = |term: &str, among: &[String]| {
        among
            .iter()
            .map(|other| term_match(term, other))
            .fold(0.0, f64::max)
    };
    let coverage =
        query.terms.iter().map(|term| best(term, name)).sum::<f64>() / query.terms.len() as f64;
    let mut distinct: Vec<&String> = name.iter().collect();
    distinct.dedup();
    let precision = distinct
        .iter()
        .map(|term| best(term, &query.terms))
        .sum::<f64>()
        / distinct.len() as f64;
    if coverage + precision == 0.0 {
        0.0
    } else {
        2.0 * coverage * precision / (coverage + precision)
    }
}

/// The share of the question's word pairs found adjacent in the name (1 each) or in the
/// docstring (0.5 each).
pub(super) fn phrase_match(query: &QueryShape, name: &[String], docstring: Option<&str>) -> f64 {
    if query.pairs.is_empty() {
        return 0.0;
    }
    let adjacent = |words: &[String], pair: &(String, String)| {
        words
            .windows(2)
            .any(|window| window[0] == pair.0 && window[1] == pair.1)
    };
    // Most docstrings hold neither word of a pair: skip tokenising them. A stem's first four
    // letters are in every word it comes from (`query` from `queries`: `quer`).
    let head = |stem: &str| -> String { stem.chars().take(4).collect() };
    let docstring = docstring.filter(|doc| {
        let start: String = doc.chars().take(600).collect::<String>().to_lowercase();
        query
            .pairs
            .iter()
            .any(|(first, second)| start.contains(&head(first)) && start.contains(&head(second)))
    });
    let doc_terms: Vec<String> = docstring
        .map(|doc| {
            doc.split_whitespace()
                .take(super::DOC_WORDS)
                .flat_map(text::split_words)
                .filter(|word| !text::is_stop_word(word))
                .map(|word| text::stem(&word))
                .collect()
        })
        .unwrap_or_default();
    let found: f64 = query
        .pairs
        .iter()
        .map(|pair| {
            if adjacent(name, pair) {
                1.0
            } else if adjacent(&doc_terms, pair) {
                0.5
            } else {
                0.0
            }
        })
        .sum();
    found / query.pairs.len() as f64
}

/// How many dependency edges from production code point at `id`, counting at most `cap` and
/// reading at most `4 × cap` edges (in the order readers see them: by file, then position).
pub(super) fn production_fan_in(graph: &Graph, id: &EntityId, cap: usize) -> usize {
    let mut count = 0;
    let mut budget = cap * 4;
    for file in graph.incoming_files(id) {
        let production = file.class == FileClass::Production;
        for edge in file.resolved.edges_to(id) {
            if budget == 0 {
                return count;
            }
            budget -= 1;
            if !production
                || matches!(edge.kind, RelationKind::Contains | RelationKind::Defines)
                || edge.from == *id
            {
                continue;
            }
            count += 1;
            if count >= cap {
                return count;
            }
        }
    }
    count
}

/// The prior of a fan-in: 0 for none, 1 at `cap`, logarithmic between.
pub(super) fn prior(fan_in: usize, cap: usize) -> f64 {
    ((1 + fan_in) as f64).ln() / ((1 + cap) as f64).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(query: &str) -> QueryShape {
        QueryShape::new(query, &text::query_terms(query))
    }

    #[test]
    fn a_name_that_says_exactly_the_question_matches_best() {
        let query = shape("send email message");
        let exact = name_match(
            &query,
            &name_terms("django/core/mail/message.py::EmailMessage.send"),
        );
        let wordier = name_match(
            &query,
            &name_terms("django/core/mail/backends/smtp.py::EmailBackend.send_messages"),
        );
        let partial = name_match(
            &query,
            &name_terms("django/core/mail/__init__.py::send_mail"),
        );
        assert_eq!(exact, 1.0);
        assert!(wordier < exact && wordier > partial, "{wordier} {partial}");
        // A module is named by its file's stem, stemmed as the question's words are.
        assert_eq!(name_terms("app/auth/session.py"), ["sess"]);
    }

    #[test]
    fn adjacent_words_of_the_question_make_a_phrase() {
        // Stop words are dropped before pairing: "load a template" pairs `load` and `template`.
        let query = shape("the password of the user");
        assert_eq!(query.pairs, [("password".to_string(), "user".to_string())]);
        // "mail to admins" is a pair too: `mail_admins` is what the question says.
        let query = shape("send mail to admins");
        assert_eq!(
            query.pairs,
            [
                ("send".to_string(), "mail".to_string()),
                ("mail".to_string(), "admin".to_string())
            ]
        );
        // One pair of two in the name; the other pair's words are not adjacent there.
        assert_eq!(
            phrase_match(&query, &name_terms("m.py::send_mail"), None),
            0.5
        );
        // One pair in the name (1), the other in the docstring (0.5), of two.
        assert_eq!(
            phrase_match(
                &query,
                &name_terms("m.py::mail_admins"),
                Some("Send mail to the admins.")
            ),
            0.75
        );
        // Both words, neither pair in order.
        assert_eq!(
            phrase_match(&query, &name_terms("m.py::mail_send"), None),
            0.0
        );
        assert_eq!(
            phrase_match(&query, &name_terms("m.py::admin_mail_send"), None),
            0.0
        );
    }
}
