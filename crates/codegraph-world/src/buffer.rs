//! An editor's open document: its text (shared with the graph's node of the file) with a line
//! table, and the syntax tree for incremental reparsing. Edits arrive in the client's
//! coordinates and are converted here.
//!
//! A syntax tree costs about 40 times its text (measured on 100 files of the benchmark corpus),
//! the line table (`model::LineTable`, a byte a line) about a thirtieth; a document therefore
//! keeps its tree only once it is edited, and the world keeps the trees of the few documents
//! edited last ([`Buffer::drop_tree`]). Opening parses once for the summary and drops the tree;
//! the first edit parses in full, every later edit incrementally. Each edit copies the text once into the next snapshot's string: a rope
//! would save that copy but cost more memory than the text itself, and the graph needs the
//! text whole.
//!
//! Lines end at `\n` (a `\r` before it belongs to the break), as tree-sitter counts rows.

use std::sync::Arc;

use tree_sitter::{InputEdit, Point};

use codegraph_lang::syntax::SyntaxTree;

use codegraph_graph::build::FileContent;
use codegraph_lang::Language;
use codegraph_lang::syntax::{floor_char_boundary, utf16_to_utf8_column};
use codegraph_model::LineTable;

/// How the client counts columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColumnEncoding {
    Utf8,
    #[default]
    Utf16,
}

/// A position in the client's coordinates: zero-based line and column in `ColumnEncoding` units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientPosition {
    pub line: u32,
    pub column: u32,
}

/// One edit: replace `range` (or the whole text when `None`) with `text`.
#[derive(Debug, Clone)]
pub struct TextEdit {
    pub range: Option<(ClientPosition, ClientPosition)>,
    pub text: String,
    pub encoding: ColumnEncoding,
}

pub struct Buffer {
    language: Language,
    version: i32,
    /// The text, shared with the graph's node of the file.
    text: Arc<str>,
    lines: LineTable,
    /// `None` until the first edit (see the module doc).
    tree: Option<SyntaxTree>,
    /// What extraction captured from the current text, so that an edit re-reads only the part
    /// of the file it touched; `None` until the first edit.
    captures: Option<codegraph_index::Captures>,
    /// The summary of the current text, once computed.
    summary: Option<Arc<codegraph_index::FileSummary>>,
}

/// The byte offset of a client position in `text`, clamped to the line's end and the text's end.
pub fn byte_offset(
    text: &str,
    lines: &LineTable,
    position: ClientPosition,
    encoding: ColumnEncoding,
) -> usize {
    let Some(line) = lines.line_range(text, position.line as usize) else {
        return text.len();
    };
    let line_text = &text[line.clone()];
    line.start
        + match encoding {
            ColumnEncoding::Utf8 => floor_char_boundary(line_text, position.column as usize),
            ColumnEncoding::Utf16 => utf16_to_utf8_column(line_text, position.column as usize),
        }
}

fn point_of(lines: &LineTable, byte: usize) -> Point {
    let row = lines.line_of(byte);
    Point {
        row,
        column: byte - lines.line_start(row) as usize,
    }
}

impl Buffer {
    pub fn new(language: Language, version: i32, text: String) -> Buffer {
        Buffer {
            language,
            version,
            lines: LineTable::new(&text),
            text: Arc::from(text),
            tree: None,
            captures: None,
            summary: None,
        }
    }

    /// The summary of this very text, when the caller has it (the graph's, for a document
    /// opened as it is on disk): [`Buffer::content`] then extracts nothing.
    pub fn knowing_summary(mut self, summary: Option<Arc<codegraph_index::FileSummary>>) -> Buffer {
        self.summary = summary;
        self
    }

    pub fn version(&self) -> i32 {
        self.version
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the buffer holds a syntax tree (it was edited since it was opened or since
    /// [`Buffer::drop_tree`]).
    pub fn has_tree(&self) -> bool {
        self.tree.is_some()
    }

    /// Drops the syntax tree and the captures (about 40 times the text); the next edit parses
    /// and extracts the whole text again, later ones incrementally.
    pub fn drop_tree(&mut self) {
        self.tree = None;
        self.captures = None;
    }

    pub fn text(&self) -> String {
        self.text.to_string()
    }

    /// The text, borrowed.
    pub fn text_str(&self) -> &str {
        &self.text
    }

    /// The language the text is parsed as.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Parses the text as `language` from now on (a `.h` header whose text now reads as the
    /// other of C and C++): the tree and captures go, the next summary is a full extraction.
    pub fn set_language(&mut self, language: Language) {
        if language != self.language {
            self.language = language;
            self.drop_tree();
            self.summary = None;
        }
    }

    /// Applies edits in order, editing the old tree alongside so the reparse is incremental.
    pub fn apply(&mut self, version: i32, edits: &[TextEdit]) {
        // The edited bytes, in the coordinates of the text after all edits so far.
        let mut dirty: Option<(usize, usize)> = None;
        let mut text = self.text.to_string();
        for edit in edits {
            match edit.range {
                None => {
                    text = edit.text.clone();
                    self.lines = LineTable::new(&text);
                    self.tree = None;
                    self.captures = None;
                    dirty = None;
                }
                Some((start, end)) => {
                    let start_byte = byte_offset(&text, &self.lines, start, edit.encoding);
                    let end_byte =
                        byte_offset(&text, &self.lines, end, edit.encoding).max(start_byte);
                    let start_position = point_of(&self.lines, start_byte);
                    let old_end_position = point_of(&self.lines, end_byte);
                    text.replace_range(start_byte..end_byte, &edit.text);
                    self.lines = LineTable::new(&text);
                    let new_end_byte = start_byte + edit.text.len();
                    let new_end_position = point_of(&self.lines, new_end_byte);
                    let input_edit = InputEdit {
                        start_byte,
                        old_end_byte: end_byte,
                        new_end_byte,
                        start_position,
                        old_end_position,
                        new_end_position,
                    };
                    if let Some(tree) = &mut self.tree {
                        tree.edit(&input_edit);
                    }
                    if let Some(captures) = &mut self.captures {
                        captures.shift(&input_edit);
                    }
                    let moved = |offset: usize| {
                        if offset >= end_byte {
                            offset + new_end_byte - end_byte
                        } else if offset > start_byte {
                            new_end_byte
                        } else {
                            offset
                        }
                    };
                    dirty = Some(match dirty {
                        None => (start_byte, new_end_byte),
                        Some((from, to)) => {
                            (moved(from).min(start_byte), moved(to).max(new_end_byte))
                        }
                    });
                }
            }
        }
        self.version = version;
        self.text = Arc::from(text);
        let old_tree = self.tree.take();
        let (tree, incremental) =
            match codegraph_lang::syntax::reparse(self.language, &self.text, old_tree.as_ref()) {
                Some((tree, incremental)) => (Some(tree), incremental),
                None => (None, false),
            };
        self.tree = tree;
        // Error recovery can restructure code away from the edit: re-read what the tree says
        // changed too. A tree parsed from scratch (masked text) may differ anywhere.
        if let (Some(old_tree), Some(new_tree), Some((from, to))) = (&old_tree, &self.tree, dirty) {
            let (mut from, mut to) = (from, to);
            if incremental {
                for range in old_tree.tree().changed_ranges(new_tree.tree()) {
                    from = from.min(range.start_byte);
                    to = to.max(range.end_byte);
                }
            } else {
                (from, to) = (0, self.text.len());
            }
            dirty = Some((from, to));
        }
        let Some(tree) = self.tree.as_ref().map(SyntaxTree::tree) else {
            self.captures = None;
            self.summary = None;
            return;
        };
        let summary = match (&mut self.captures, dirty) {
            (Some(captures), Some((from, to))) => {
                codegraph_index::reextract(self.language, &self.text, tree, captures, from..to)
            }
            (Some(_), None) if self.summary.is_some() => return,
            _ => {
                let (summary, captures) =
                    codegraph_index::extract_keeping(self.language, &self.text, tree);
                self.captures = Some(captures);
                summary
            }
        };
        let mut summary = summary;
        super::shrink_summary(&mut summary);
        self.summary = Some(Arc::new(summary));
    }

    /// A full extraction over the buffer's current syntax tree, ignoring what earlier edits
    /// captured: what [`Buffer::content`]'s incremental summary must equal (tests check it).
    /// Compared with a fresh parse instead, some grammars' incremental reparses can legitimately
    /// differ.
    pub fn summary_from_scratch(&self) -> codegraph_index::FileSummary {
        match &self.tree {
            Some(tree) => codegraph_index::extract(self.language, &self.text, tree.tree()),
            None => codegraph_index::extract_text(self.language, &self.text).0,
        }
    }

    /// The buffer as writer input: text, hash and a fresh summary from the current tree.
    pub fn content(&self, path: &str) -> FileContent {
        let text = self.text.clone();
        let hash: [u8; 32] = blake3::hash(text.as_bytes()).into();
        let summary = match (&self.summary, &self.tree) {
            (Some(summary), _) => summary.clone(),
            (None, Some(tree)) => {
                Arc::new(codegraph_index::extract(self.language, &text, tree.tree()))
            }
            (None, None) => Arc::new(codegraph_index::extract_text(self.language, &text).0),
        };
        FileContent {
            language: self.language,
            class: codegraph_lang::file_class::classify(path, self.language, &text),
            text: text.into(),
            hash,
            summary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(line: u32, column: u32, end_line: u32, end_column: u32, text: &str) -> TextEdit {
        TextEdit {
            range: Some((
                ClientPosition { line, column },
                ClientPosition {
                    line: end_line,
                    column: end_column,
                },
            )),
            text: text.to_string(),
            encoding: ColumnEncoding::Utf16,
        }
    }

    #[test]
    fn utf16_edits_after_emoji_and_cjk_land_in_the_right_place() {
        let mut buffer = Buffer::new(
            Language::Python,
            1,
            "s = '名前😀'; f()\nx = 1\n".to_string(),
        );
        // `f` is at UTF-16 column 11: s,space,=,space,',名,前,😀(2),',;,space = 12? count: "s = '" is 5,
        // 名 1, 前 1, 😀 2, "'" 1, ";" 1, " " 1 → f at 12.
        buffer.apply(2, &[edit(0, 12, 0, 13, "g")]);
        assert_eq!(buffer.text(), "s = '名前😀'; g()\nx = 1\n");
        buffer.apply(3, &[edit(1, 4, 1, 5, "22"), edit(2, 0, 2, 0, "y = 3\n")]);
        assert_eq!(buffer.text(), "s = '名前😀'; g()\nx = 22\ny = 3\n");
    }

    #[test]
    fn positions_past_the_end_are_clamped() {
        let mut buffer = Buffer::new(Language::Python, 1, "ab\n".to_string());
        buffer.apply(2, &[edit(0, 99, 0, 99, "c"), edit(99, 0, 99, 0, "d")]);
        assert_eq!(buffer.text(), "abc\nd");
    }
}
