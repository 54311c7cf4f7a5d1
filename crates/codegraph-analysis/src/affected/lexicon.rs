//! What the change-impact walk keeps of each file's words from one answer to the next: which
//! names the file may mention (a Bloom filter of its identifiers, about a byte a distinct
//! word), and, per name already asked, the entities holding its mentions. Both are functions of
//! the file's text and summary alone, so an entry stays valid for as long as the file is
//! unchanged, across revisions; a file replaced gets a new entry on its first use, a file
//! removed is forgotten by the next sweep.
//!
//! A live server answers its second question on the same files without reading or tokenising
//! them again; a one-shot command builds only the entries its answer needs, in parallel.

use std::hash::Hasher;
use std::sync::Arc;

use parking_lot::Mutex;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use codegraph_graph::{EntityId, FileNode, FilePath, Graph};
use codegraph_index::FileSummary;
use codegraph_model::{ByNumber, Name};

/// Which mentions count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Mention {
    /// Every mention outside the file's imports.
    Any,
    /// Only a name used as a value: not called (not followed by `(`), not bound (`name = ...`),
    /// not in an import, not a string of its own (`__all__ = ("Cache",)`).
    Value,
    /// A name used as a value that is not a member's access either (`Cache.create`): the
    /// value itself is held or passed.
    Held,
}

/// The words of every file asked about so far, by path.
#[derive(Default)]
pub struct Lexicon {
    files: Mutex<FxHashMap<ByNumber, Arc<Words>>>,
}

/// One file's words, valid for the text and summary they were made from.
pub(crate) struct Words {
    hash: [u8; 32],
    summary: Arc<FileSummary>,
    ids: Arc<[EntityId]>,
    filter: Filter,
    /// Per name and kind of mention asked, the entities that hold such a mention.
    holders: Mutex<Holders>,
}

/// An entity holding a mention, with the qualifier of the mention (`Cache` in
/// `Cache.__setitem__`), if any.
pub(crate) type Holder = (EntityId, Option<Name>);

/// Per name and kind of mention, the entities of a file that hold such a mention, each with the
/// qualifiers of its mentions.
type Holders = FxHashMap<(ByNumber, Mention), Arc<[Holder]>>;

/// How many bits of the filter a word sets; with eight bits a distinct word, about three in a
/// hundred names a file does not have pass it (and cost a look at its text, nothing more).
const HASHES: u32 = 3;
const BITS_A_WORD: usize = 8;

/// A Bloom filter of a text's identifiers: [`HASHES`] bits a word, a power of two bits.
pub(crate) struct Filter(Box<[u64]>);

impl Filter {
    fn of(text: &str) -> Filter {
        let mut hashes: Vec<u64> = identifiers(text.as_bytes()).map(word_hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let bits = (hashes.len() * BITS_A_WORD).next_power_of_two().max(64);
        let mut filter = vec![0u64; bits / 64].into_boxed_slice();
        for hash in hashes {
            for bit in filter_bits(hash, bits) {
                filter[bit / 64] |= 1 << (bit % 64);
            }
        }
        Filter(filter)
    }

    /// Whether the text may have the word `name` (never `false` when it has it).
    fn may_have(&self, name: &str) -> bool {
        let bits = self.0.len() * 64;
        filter_bits(word_hash(name.as_bytes()), bits)
            .all(|bit| self.0[bit / 64] & (1 << (bit % 64)) != 0)
    }
}

impl Words {
    fn new(file: &FileNode, text: &str) -> Words {
        Words {
            hash: file.hash,
            summary: file.summary.clone(),
            ids: file.ids.clone(),
            filter: Filter::of(text),
            holders: Mutex::new(FxHashMap::default()),
        }
    }

    /// Whether these words were made from `file` as it is.
    fn made_from(&self, file: &FileNode) -> bool {
        self.hash == file.hash
            && Arc::ptr_eq(&self.summary, &file.summary)
            && Arc::ptr_eq(&self.ids, &file.ids)
    }

    /// Whether the file may have the word `name` (never `false` when it has it).
    pub fn may_have(&self, name: &str) -> bool {
        self.filter.may_have(name)
    }

    /// The holders of `name`'s mentions of kind `which`, if asked before.
    pub fn known_holders(&self, name: Name, which: Mention) -> Option<Arc<[Holder]>> {
        self.holders.lock().get(&(ByNumber(name), which)).cloned()
    }

    pub fn remember_holders(&self, name: Name, which: Mention, holders: Arc<[Holder]>) {
        self.holders.lock().insert((ByNumber(name), which), holders);
    }
}

/// The bits of a `bits`-bit filter that the word of `hash` sets.
fn filter_bits(hash: u64, bits: usize) -> impl Iterator<Item = usize> {
    (0..HASHES).map(move |round| (hash.rotate_left(round * 21) as usize) & (bits - 1))
}

impl Lexicon {
    /// The words of each of `files` (`None` for a file not in `graph` or whose text cannot be
    /// read), made now for those not known as they are in `graph`, in parallel.
    pub(crate) fn words(&self, graph: &Graph, files: &[FilePath]) -> Vec<Option<Arc<Words>>> {
        let mut found: Vec<Option<Arc<Words>>> = Vec::with_capacity(files.len());
        let mut missing: Vec<(usize, Arc<FileNode>)> = Vec::new();
        {
            let known = self.files.lock();
            for (position, path) in files.iter().enumerate() {
                let Some(file) = graph.file(path) else {
                    found.push(None);
                    continue;
                };
                match known.get(&ByNumber(*path)) {
                    Some(words) if words.made_from(file) => found.push(Some(words.clone())),
                    _ => {
                        found.push(None);
                        missing.push((position, file.clone()));
                    }
                }
            }
        }
        if missing.is_empty() {
            return found;
        }
        let made: Vec<(usize, Option<Arc<Words>>)> = missing
            .par_iter()
            .map(|(position, file)| {
                let words = file.text().map(|text| Arc::new(Words::new(file, &text)));
                (*position, words)
            })
            .collect();
        let mut known = self.files.lock();
        for (position, words) in made {
            if let Some(words) = &words {
                known.insert(ByNumber(files[position]), words.clone());
            }
            found[position] = words;
        }
        // Forget the files no longer in the graph once they could be a good part of it.
        if known.len() > graph.file_count() + graph.file_count() / 4 + 64 {
            known.retain(|path, words| {
                graph
                    .file(&path.0)
                    .is_some_and(|file| words.made_from(file))
            });
        }
        found
    }
}

/// The identifiers of a text, in order, as byte strings.
pub(crate) fn identifiers(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && (!identifier_byte(bytes[at]) || bytes[at].is_ascii_digit()) {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && identifier_byte(bytes[at]) {
            at += 1;
        }
        Some(&bytes[start..at])
    })
}

fn word_hash(word: &[u8]) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(word);
    hasher.finish()
}

pub(crate) fn identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

#[cfg(test)]
mod tests {
    use super::{Filter, identifiers};

    #[test]
    fn a_text_is_split_into_identifiers_that_never_start_with_a_digit() {
        let words: Vec<&[u8]> = identifiers(b"def f(x1, _y): return 2abc + $z").collect();
        assert_eq!(
            words,
            [&b"def"[..], b"f", b"x1", b"_y", b"return", b"abc", b"$z"]
        );
    }

    #[test]
    fn the_filter_has_every_word_of_the_text_and_few_others() {
        let text: String = (0..2000).map(|word| format!("name{word} ")).collect();
        let filter = Filter::of(&text);
        assert!((0..2000).all(|word| filter.may_have(&format!("name{word}"))));
        let others = (0..10_000)
            .filter(|word| filter.may_have(&format!("other{word}")))
            .count();
        assert!(
            others < 600,
            "{others} of 10,000 absent names pass the filter"
        );
        assert!(!Filter::of("").may_have("x"));
    }
}
