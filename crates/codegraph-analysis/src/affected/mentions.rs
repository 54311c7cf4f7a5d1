//! Where a name is mentioned in a file, and which entity holds each mention: how the walk
//! follows what no edge records (a function passed as a value, `handlers = {"x": f}`,
//! `register(self.on_close)`, a name whose import changed). Each file's text is read once per
//! answer and its identifiers indexed once, on first use.

use std::hash::Hasher;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use codegraph_graph::{EntityId, FileNode, FilePath, Graph};

/// Which mentions count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A file's text and where each identifier in it starts.
struct Indexed {
    file: Arc<FileNode>,
    text: Arc<str>,
    /// Each identifier's hash and start, sorted: one allocation a file, however many distinct
    /// words it has.
    identifiers: Vec<(u64, u32)>,
    /// The file's imports, (start, end) in order.
    imports: Vec<(u32, u32)>,
}

impl Indexed {
    fn new(file: Arc<FileNode>, text: Arc<str>) -> Indexed {
        let mut imports: Vec<(u32, u32)> = file
            .summary
            .imports
            .iter()
            .map(|import| (import.span.start_byte, import.span.end_byte))
            .collect();
        imports.sort_unstable();
        let mut identifiers: Vec<(u64, u32)> = Vec::new();
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if !identifier_byte(bytes[at]) || bytes[at].is_ascii_digit() {
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && identifier_byte(bytes[at]) {
                at += 1;
            }
            identifiers.push((word_hash(&bytes[start..at]), start as u32));
        }
        identifiers.sort_unstable();
        Indexed {
            file,
            text,
            identifiers,
            imports,
        }
    }

    /// Where the identifier `name` starts, in document order.
    fn starts<'a>(&'a self, name: &'a str) -> impl Iterator<Item = u32> + 'a {
        let hash = word_hash(name.as_bytes());
        let from = self.identifiers.partition_point(|(known, _)| *known < hash);
        let bytes = self.text.as_bytes();
        self.identifiers[from..]
            .iter()
            .take_while(move |(known, _)| *known == hash)
            .map(|(_, start)| *start)
            // Another word of the same hash: its text differs, or it goes on.
            .filter(move |start| {
                let (start, end) = (*start as usize, *start as usize + name.len());
                bytes.get(start..end) == Some(name.as_bytes())
                    && !bytes.get(end).is_some_and(|byte| identifier_byte(*byte))
            })
    }

    /// Whether `byte` is inside an import.
    fn in_import(&self, byte: u32) -> bool {
        let after = self.imports.partition_point(|(start, _)| *start <= byte);
        after > 0 && byte < self.imports[after - 1].1
    }
}

/// The texts read for one answer, and their identifiers.
pub(crate) struct Mentions<'g> {
    graph: &'g Graph,
    texts: FxHashMap<FilePath, Option<Arc<str>>>,
    indexed: FxHashMap<FilePath, Option<Arc<Indexed>>>,
    /// Per word hash, the files of `inverted_files` whose text has a word of that hash: which
    /// of many files mention a name, without asking each.
    inverted: FxHashMap<u64, Vec<FilePath>>,
    inverted_files: FxHashSet<FilePath>,
}

impl<'g> Mentions<'g> {
    pub fn new(graph: &'g Graph) -> Mentions<'g> {
        Mentions {
            graph,
            texts: FxHashMap::default(),
            indexed: FxHashMap::default(),
            inverted: FxHashMap::default(),
            inverted_files: FxHashSet::default(),
        }
    }

    /// Puts the words of `files` in the inverted index, each file's once.
    pub fn index_words(&mut self, files: &[FilePath]) {
        for file in files {
            if !self.inverted_files.insert(*file) {
                continue;
            }
            let Some(indexed) = self.indexed(*file) else {
                continue;
            };
            let mut last = None;
            for (hash, _) in &indexed.identifiers {
                if last != Some(*hash) {
                    self.inverted.entry(*hash).or_default().push(*file);
                    last = Some(*hash);
                }
            }
        }
    }

    /// The files of the inverted index that have a word of `name`'s hash, each once.
    pub fn having(&self, name: &str) -> &[FilePath] {
        self.inverted
            .get(&word_hash(name.as_bytes()))
            .map_or(&[], Vec::as_slice)
    }

    /// The graph's text of `path`, read once.
    pub fn text(&mut self, path: FilePath) -> Option<Arc<str>> {
        let graph = self.graph;
        self.texts
            .entry(path)
            .or_insert_with(|| graph.file(&path).and_then(|file| file.text()))
            .clone()
    }

    fn indexed(&mut self, path: FilePath) -> Option<Arc<Indexed>> {
        if let Some(known) = self.indexed.get(&path) {
            return known.clone();
        }
        let file = self.graph.file(&path).cloned();
        let text = self.text(path);
        let indexed = file
            .zip(text)
            .map(|(file, text)| Arc::new(Indexed::new(file, text)));
        self.indexed.insert(path, indexed.clone());
        indexed
    }

    /// The entities of `path` that mention `name` as a whole identifier, each once, in
    /// document order (the module for a mention outside every definition); a mention inside
    /// `except` (the entity's own definition) or that is a definition's own name is not
    /// counted.
    pub fn holders(
        &mut self,
        path: FilePath,
        name: &str,
        which: Mention,
        except: Option<&EntityId>,
    ) -> Vec<EntityId> {
        let Some(indexed) = self.indexed(path) else {
            return Vec::new();
        };
        let file = &indexed.file;
        let mut holders: Vec<EntityId> = Vec::new();
        for byte in indexed.starts(name) {
            if indexed.in_import(byte) {
                continue;
            }
            let end = byte as usize + name.len();
            if which == Mention::Held && accessed(&indexed.text, end) {
                continue;
            }
            if which != Mention::Any
                && (called(&indexed.text, end)
                    || bound(&indexed.text, end)
                    || quoted(&indexed.text, byte as usize, end))
            {
                continue;
            }
            let innermost = file.summary.innermost_def_at(byte);
            if innermost
                .is_some_and(|index| file.summary.defs[index as usize].name_span.start_byte == byte)
            {
                continue;
            }
            let holder = *file.scope_entity(innermost);
            if Some(&holder) == except || holders.contains(&holder) {
                continue;
            }
            holders.push(holder);
        }
        holders
    }
}

fn word_hash(word: &[u8]) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(word);
    hasher.finish()
}

fn identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// The name ending at `end` is called: the next character but spaces is `(`.
fn called(text: &str, end: usize) -> bool {
    text.get(end..)
        .unwrap_or_default()
        .bytes()
        .find(|byte| *byte != b' ' && *byte != b'\t')
        .is_some_and(|byte| byte == b'(')
}

/// A member of the name ending at `end` is accessed: the next character but spaces is `.` or
/// `::`.
fn accessed(text: &str, end: usize) -> bool {
    let rest = text
        .get(end..)
        .unwrap_or_default()
        .trim_start_matches([' ', '\t']);
    rest.starts_with('.') || rest.starts_with("::")
}

/// The name ending at `end` is bound, not read: an assignment's target or a keyword argument's
/// name (`Cache = other.Cache`, `f(key=hashkey)`); the next character but spaces is `=`, not
/// `==`.
fn bound(text: &str, end: usize) -> bool {
    let rest = text
        .get(end..)
        .unwrap_or_default()
        .trim_start_matches([' ', '\t']);
    rest.starts_with('=') && !rest.starts_with("==")
}

/// The name between `start` and `end` is a string of its own: a quote on each side.
fn quoted(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let quote = |byte: Option<&u8>| byte.is_some_and(|byte| matches!(byte, b'"' | b'\'' | b'`'));
    start > 0 && quote(bytes.get(start - 1)) && quote(bytes.get(end))
}
