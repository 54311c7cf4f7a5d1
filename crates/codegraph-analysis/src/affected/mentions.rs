//! Where a name is mentioned in a file, and which entity holds each mention: how the walk
//! follows what no edge records (a function passed as a value, `handlers = {"x": f}`,
//! `register(self.on_close)`, a name whose import changed). Which files may mention a name and
//! the holders of each name asked are kept across answers ([`Lexicon`]); a file's text is read
//! at most once an answer, and only where the lexicon does not know the holders yet.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use codegraph_graph::{EntityId, FileNode, FilePath, Graph};
use codegraph_lang::Language;
use codegraph_model::{ByNumber, EntityKind, Name};

use super::annotations::{self, Place};
pub(crate) use super::lexicon::Mention;
use super::lexicon::{Holder, Lexicon, Words, identifier_byte};
use super::prose::{self, Part};
use super::tests::parameters;

/// The texts and words one answer reads.
pub(crate) struct Mentions<'g> {
    graph: &'g Graph,
    lexicon: &'g Lexicon,
    texts: FxHashMap<FilePath, Option<Arc<str>>>,
    words: FxHashMap<FilePath, Option<Arc<Words>>>,
    /// Per file searched, where its imports are and where its prose is, each in order.
    skipped: FxHashMap<FilePath, Arc<Skipped>>,
}

impl<'g> Mentions<'g> {
    pub fn new(graph: &'g Graph, lexicon: &'g Lexicon) -> Mentions<'g> {
        Mentions {
            graph,
            lexicon,
            texts: FxHashMap::default(),
            words: FxHashMap::default(),
            skipped: FxHashMap::default(),
        }
    }

    /// Makes sure the words of `files` are at hand, those the lexicon lacks made in parallel.
    pub fn prepare(&mut self, files: &[FilePath]) {
        let missing: Vec<FilePath> = files
            .iter()
            .filter(|file| !self.words.contains_key(*file))
            .copied()
            .collect();
        if missing.is_empty() {
            return;
        }
        let found = self.lexicon.words(self.graph, &missing);
        self.words.extend(missing.into_iter().zip(found));
    }

    /// The words of each of `files` (`None` where the file is gone or unreadable).
    pub fn words(&mut self, files: &[FilePath]) -> Vec<Option<Arc<Words>>> {
        self.prepare(files);
        files
            .iter()
            .map(|file| self.words.get(file).cloned().flatten())
            .collect()
    }

    fn words_of(&mut self, path: FilePath) -> Option<Arc<Words>> {
        if !self.words.contains_key(&path) {
            self.prepare(&[path]);
        }
        self.words.get(&path).cloned().flatten()
    }

    /// The graph's text of `path`, read once.
    pub fn text(&mut self, path: FilePath) -> Option<Arc<str>> {
        let graph = self.graph;
        self.texts
            .entry(path)
            .or_insert_with(|| graph.file(&path).and_then(|file| file.text()))
            .clone()
    }

    /// The entities of `path` that mention `name` as a whole identifier, each once, in
    /// document order (the module for a mention outside every definition); a mention inside
    /// `except` (the entity's own definition), in an import, in prose (a comment, a docstring:
    /// [`prose`]) or that is a definition's own name is not counted, nor, but for `Any`, one in
    /// a Python header's type annotation ([`annotations`]); in a doctest's line every mention
    /// counts.
    pub fn holders(
        &mut self,
        path: FilePath,
        name: Name,
        which: Mention,
        except: Option<&EntityId>,
    ) -> Vec<EntityId> {
        let mut holders: Vec<EntityId> = Vec::new();
        for (holder, _) in self.qualified_holders(path, name, which, except).iter() {
            if holders.last() != Some(holder) {
                holders.push(*holder);
            }
        }
        holders
    }

    /// [`Mentions::holders`], each with what qualifies the mention: the capitalized identifier
    /// before its dot (`Cache` in `Cache.__setitem__`), `None` for a bare name, one after a
    /// lower-case name (`self.run`) or after an expression (`make().run`). A holder is listed
    /// once per qualifier, its entries together.
    pub fn qualified_holders(
        &mut self,
        path: FilePath,
        name: Name,
        which: Mention,
        except: Option<&EntityId>,
    ) -> Vec<Holder> {
        let Some(words) = self.words_of(path) else {
            return Vec::new();
        };
        if !words.may_have(name.as_str()) {
            return Vec::new();
        }
        let holders = match words.known_holders(name, which) {
            Some(holders) => holders,
            None => {
                let Some(holders) = self.find_holders(path, &name, which) else {
                    return Vec::new();
                };
                let holders: Arc<[Holder]> = holders.into();
                words.remember_holders(name, which, holders.clone());
                holders
            }
        };
        holders
            .iter()
            .filter(|(holder, _)| Some(holder) != except)
            .copied()
            .collect()
    }

    /// Every holder of `name`'s mentions of kind `which` in `path`, from its text (`None` when
    /// the text cannot be read as it was indexed).
    fn find_holders(&mut self, path: FilePath, name: &str, which: Mention) -> Option<Vec<Holder>> {
        let file = self.graph.file(&path)?.clone();
        let text = self.text(path)?;
        let skipped = self
            .skipped
            .entry(path)
            .or_insert_with(|| Arc::new(Skipped::of(&file, &text)))
            .clone();
        let mut holders: Vec<Holder> = Vec::new();
        let mut seen: FxHashSet<(ByNumber, Option<ByNumber>)> = FxHashSet::default();
        let mut qualifiers: FxHashMap<&str, Option<Name>> = FxHashMap::default();
        for byte in starts(&text, name) {
            let byte = byte as u32;
            if skipped.in_import(byte) {
                continue;
            }
            let end = byte as usize + name.len();
            match prose::part(&text, &skipped.prose, byte) {
                Part::Prose => continue,
                // A doctest's name is used however it is written: the walk has no edge for it.
                Part::Doctest => {}
                Part::Code => {
                    if which == Mention::Held && accessed(&text, end) {
                        continue;
                    }
                    if which != Mention::Any
                        && (called(&text, end)
                            || bound(&text, end)
                            || quoted(&text, byte as usize, end))
                    {
                        continue;
                    }
                }
            }
            let innermost = file.summary.innermost_def_at(byte);
            if innermost
                .is_some_and(|index| file.summary.defs[index as usize].name_span.start_byte == byte)
            {
                continue;
            }
            if which != Mention::Any
                && file.language == Language::Python
                && innermost.is_some_and(|index| {
                    python_local(&file.summary.defs[index as usize], &text, name, byte)
                })
            {
                continue;
            }
            let holder = *file.scope_entity(innermost);
            // A text no name holds names no entity: no qualifier to check.
            let qualifier = qualifier(&text, byte as usize).and_then(|word| {
                *qualifiers
                    .entry(word)
                    .or_insert_with(|| Name::existing(word))
            });
            // A name mentioned all through a file (a class every test builds) has as many
            // holders as the file has definitions: each is looked for by its number.
            if holders.last() != Some(&(holder, qualifier))
                && seen.insert((ByNumber(holder), qualifier.map(ByNumber)))
            {
                holders.push((holder, qualifier));
            }
        }
        // A holder's entries together, in the order of its first mention.
        let mut first: FxHashMap<ByNumber, usize> = FxHashMap::default();
        for (position, (holder, _)) in holders.iter().enumerate() {
            first.entry(ByNumber(*holder)).or_insert(position);
        }
        holders.sort_by_key(|(holder, _)| first[&ByNumber(*holder)]);
        Some(holders)
    }
}

/// Whether the mention of `name` at `byte`, inside Python definition `def`, is no mention of a
/// definition elsewhere: a type in its header's annotations, or, in its body, its own
/// parameter of that name or a type in an annotated assignment's annotation.
fn python_local(def: &codegraph_index::Def, text: &str, name: &str, byte: u32) -> bool {
    if !matches!(def.kind, EntityKind::Function | EntityKind::Method) {
        return false;
    }
    match annotations::place(text, def.name_span.end_byte as usize, byte as usize) {
        Place::Annotation => true,
        Place::OtherHeader => false,
        Place::Body => {
            parameters(def.signature()).any(|parameter| parameter == name)
                || annotations::in_assignment_annotation(text, byte as usize)
        }
    }
}

/// What a file's mentions are not looked for in: its imports and its prose, each in order.
struct Skipped {
    imports: Vec<(u32, u32)>,
    prose: Vec<(u32, u32)>,
}

impl Skipped {
    fn of(file: &FileNode, text: &str) -> Skipped {
        let mut imports: Vec<(u32, u32)> = (file.summary.imports.iter())
            .map(|import| (import.span.start_byte, import.span.end_byte))
            .collect();
        imports.sort_unstable();
        Skipped {
            imports,
            prose: prose::spans(file.language, text),
        }
    }

    fn in_import(&self, byte: u32) -> bool {
        let after = self.imports.partition_point(|(start, _)| *start <= byte);
        after > 0 && byte < self.imports[after - 1].1
    }
}

/// Where the identifier `name` starts in `text`, in order: an occurrence that is a whole
/// identifier, as [`super::lexicon::identifiers`] splits the text.
fn starts<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, name.as_bytes()).filter(move |start| {
        let end = start + name.len();
        !bytes.get(end).is_some_and(|byte| identifier_byte(*byte)) && token_starts(bytes, *start)
    })
}

/// Whether an identifier starts at `at`: what precedes it is no identifier byte, or only digits
/// (which no identifier starts with) since the last byte that is none.
fn token_starts(bytes: &[u8], at: usize) -> bool {
    if bytes.get(at).is_none_or(|byte| byte.is_ascii_digit()) {
        return false;
    }
    bytes[..at]
        .iter()
        .rev()
        .take_while(|byte| identifier_byte(**byte))
        .all(u8::is_ascii_digit)
}

/// The identifier before the dot that precedes the name starting at `start` (`Cache` in
/// `Cache.__setitem__`), if the text there is `identifier.` and the identifier is capitalized,
/// as classes are named (a lower-case one, `self.run`, `module.run`, is read as no qualifier:
/// the mention counts, and the text is not interned for every `self`).
fn qualifier(text: &str, start: usize) -> Option<&str> {
    let before = text.get(..start)?.strip_suffix('.')?;
    let bytes = before.as_bytes();
    let from = bytes
        .iter()
        .rposition(|byte| !identifier_byte(*byte))
        .map_or(0, |at| at + 1);
    let word = &before[from..];
    word.as_bytes()
        .first()
        .is_some_and(u8::is_ascii_uppercase)
        .then_some(word)
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

#[cfg(test)]
mod tests {
    use super::starts;

    #[test]
    fn a_name_starts_where_the_text_has_it_as_a_whole_identifier() {
        let text = "parse(x); reparse(x); parse_all; 9parse; a.parse; $parse";
        // `9parse` splits into a number and `parse`, as identifiers never start with a digit;
        // `$parse` is one identifier (`$` is an identifier byte in JavaScript).
        assert_eq!(starts(text, "parse").collect::<Vec<_>>(), [0, 34, 43]);
        assert_eq!(starts("xparse", "parse").count(), 0);
        assert_eq!(starts("x1parse", "parse").count(), 0);
        assert_eq!(starts("parse", "parse").collect::<Vec<_>>(), [0]);
    }
}
