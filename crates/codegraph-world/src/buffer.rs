//! An editor's open document: its text (shared with the graph's node of the file), the text as a
//! rope while it is being edited, and the syntax tree for incremental reparsing. Edits arrive in
//! the client's coordinates and are converted here, through the rope's line and character
//! indices.
//!
//! A syntax tree costs about 40 times its text (measured on 100 files of the benchmark corpus);
//! a document therefore keeps its tree only once it is edited, and the world keeps the trees of
//! the few documents edited last ([`Buffer::drop_tree`]). Opening parses once for the summary and
//! drops the tree; the first edit parses in full, every later edit incrementally. The rope
//! (about the text's size again) lives and goes with the tree: an edit changes it in O(edit +
//! log n) and converts positions in O(log n), where a string would be copied and its line table
//! built again. The graph, the extraction (`codegraph_index::reextract`), the parser's masking
//! of some grammars and the hash all read one contiguous text, so each edit materialises the
//! rope once, into the string the next snapshot shares; tree-sitter then reads that string.
//!
//! Lines end at `\n` (a `\r` before it belongs to the break), as tree-sitter counts rows (the
//! rope counts only `\n` as a line break: `ropey`'s `unicode_lines` and `cr_lines` are off).

use std::sync::Arc;

use ropey::Rope;
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
    /// The same text as a rope, which edits change; `None` until the first edit, and again once
    /// the tree is dropped (see the module doc).
    rope: Option<Rope>,
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

impl Buffer {
    pub fn new(language: Language, version: i32, text: String) -> Buffer {
        Buffer {
            language,
            version,
            text: Arc::from(text),
            rope: None,
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

    /// Drops the syntax tree, the captures (about 40 times the text) and the rope; the next edit
    /// parses and extracts the whole text again, later ones incrementally.
    pub fn drop_tree(&mut self) {
        self.tree = None;
        self.captures = None;
        self.rope = None;
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
        let dirty = self.edit_text(edits);
        self.version = version;
        let old_tree = self.tree.take();
        let incremental = self.reparse(old_tree.as_ref());
        let dirty = self.widen_to_changes(old_tree.as_ref(), incremental, dirty);
        self.extract(dirty);
    }

    /// Applies the edits to the rope, and to the tree and the captures alongside, then
    /// materialises the text once. Returns the edited bytes, in the new text's coordinates
    /// (`None` after a replacement of the whole text).
    fn edit_text(&mut self, edits: &[TextEdit]) -> Option<(usize, usize)> {
        let mut rope = self
            .rope
            .take()
            .unwrap_or_else(|| Rope::from_str(&self.text));
        let mut dirty = None;
        for edit in edits {
            let Some((start, end)) = edit.range else {
                rope = Rope::from_str(&edit.text);
                self.tree = None;
                self.captures = None;
                dirty = None;
                continue;
            };
            let input_edit = replace(&mut rope, (start, end), &edit.text, edit.encoding);
            if let Some(tree) = &mut self.tree {
                tree.edit(&input_edit);
            }
            if let Some(captures) = &mut self.captures {
                captures.shift(&input_edit);
            }
            dirty = Some(widen(dirty, &input_edit));
        }
        self.text = materialise(&rope);
        self.rope = Some(rope);
        dirty
    }

    /// Parses the text, incrementally from `old_tree` (already edited) when there is one.
    /// Returns whether the new tree was parsed incrementally.
    fn reparse(&mut self, old_tree: Option<&SyntaxTree>) -> bool {
        match codegraph_lang::syntax::reparse(self.language, &self.text, old_tree) {
            Some((tree, incremental)) => {
                self.tree = Some(tree);
                incremental
            }
            None => {
                self.tree = None;
                false
            }
        }
    }

    /// Error recovery can restructure code away from the edit: what the tree says changed is
    /// re-read too. A tree parsed from scratch (masked text) may differ anywhere.
    fn widen_to_changes(
        &self,
        old_tree: Option<&SyntaxTree>,
        incremental: bool,
        dirty: Option<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        let (Some(old_tree), Some(new_tree), Some((mut from, mut to))) =
            (old_tree, &self.tree, dirty)
        else {
            return dirty;
        };
        if !incremental {
            return Some((0, self.text.len()));
        }
        for range in old_tree.tree().changed_ranges(new_tree.tree()) {
            from = from.min(range.start_byte);
            to = to.max(range.end_byte);
        }
        Some((from, to))
    }

    /// The summary of the new text: the dirty bytes re-read over the captures kept, or a full
    /// extraction that keeps its captures.
    fn extract(&mut self, dirty: Option<(usize, usize)>) {
        let Some(tree) = self.tree.as_ref().map(SyntaxTree::tree) else {
            self.captures = None;
            self.summary = None;
            return;
        };
        let mut summary = match (&mut self.captures, dirty) {
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

/// Replaces the text between two client positions with `text`; the tree-sitter edit that says
/// what changed.
fn replace(
    rope: &mut Rope,
    (start, end): (ClientPosition, ClientPosition),
    text: &str,
    encoding: ColumnEncoding,
) -> InputEdit {
    let start_byte = rope_byte_offset(rope, start, encoding);
    let end_byte = rope_byte_offset(rope, end, encoding).max(start_byte);
    let start_position = rope_point(rope, start_byte);
    let old_end_position = rope_point(rope, end_byte);
    let start_char = rope.byte_to_char(start_byte);
    rope.remove(start_char..rope.byte_to_char(end_byte));
    rope.insert(start_char, text);
    let new_end_byte = start_byte + text.len();
    InputEdit {
        start_byte,
        old_end_byte: end_byte,
        new_end_byte,
        start_position,
        old_end_position,
        new_end_position: rope_point(rope, new_end_byte),
    }
}

/// The edited bytes so far (`dirty`, in the coordinates before `edit`) moved by `edit`, and
/// widened to the bytes it wrote.
fn widen(dirty: Option<(usize, usize)>, edit: &InputEdit) -> (usize, usize) {
    let (start, old_end, new_end) = (edit.start_byte, edit.old_end_byte, edit.new_end_byte);
    let moved = |offset: usize| {
        if offset >= old_end {
            offset + new_end - old_end
        } else if offset > start {
            new_end
        } else {
            offset
        }
    };
    match dirty {
        None => (start, new_end),
        Some((from, to)) => (moved(from).min(start), moved(to).max(new_end)),
    }
}

/// The byte offset of a client position in the rope, clamped to the line's end (before its
/// break) and the text's end: [`byte_offset`] in O(log n). A UTF-16 column inside a surrogate
/// pair lands after its character, a UTF-8 column inside a character at its start.
fn rope_byte_offset(rope: &Rope, position: ClientPosition, encoding: ColumnEncoding) -> usize {
    let line = position.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let line_start = rope.line_to_char(line);
    let mut line_end = if line + 1 < rope.len_lines() {
        rope.line_to_char(line + 1)
    } else {
        rope.len_chars()
    };
    while line_end > line_start && matches!(rope.char(line_end - 1), '\n' | '\r') {
        line_end -= 1;
    }
    let character = match encoding {
        ColumnEncoding::Utf8 => {
            let start_byte = rope.char_to_byte(line_start);
            let end_byte = rope.char_to_byte(line_end);
            rope.byte_to_char((start_byte + position.column as usize).min(end_byte))
        }
        ColumnEncoding::Utf16 => {
            let start_unit = rope.char_to_utf16_cu(line_start);
            let end_unit = rope.char_to_utf16_cu(line_end);
            let unit = (start_unit + position.column as usize).min(end_unit);
            let character = rope.utf16_cu_to_char(unit);
            character + usize::from(rope.char_to_utf16_cu(character) < unit)
        }
    };
    rope.char_to_byte(character)
}

/// The tree-sitter point (row, byte column) of a byte offset.
fn rope_point(rope: &Rope, byte: usize) -> Point {
    let row = rope.byte_to_line(byte);
    Point {
        row,
        column: byte - rope.line_to_byte(row),
    }
}

/// The rope as one string, copied once from its chunks (and once more into the shared
/// allocation).
fn materialise(rope: &Rope) -> Arc<str> {
    let mut text = String::with_capacity(rope.len_bytes());
    for chunk in rope.chunks() {
        text.push_str(chunk);
    }
    Arc::from(text)
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

    /// The rope's conversion of client positions is the line table's, everywhere: inside and
    /// past lines, inside a surrogate pair or a multi-byte character, on `\r\n` and lone `\r`.
    #[test]
    fn rope_positions_are_the_line_tables() {
        let text = "s = '名前😀';\r\nx = 1\r\r\n\n\ty\rz\n😀😀";
        let rope = Rope::from_str(text);
        let lines = LineTable::new(text);
        for encoding in [ColumnEncoding::Utf8, ColumnEncoding::Utf16] {
            for line in 0..8 {
                for column in 0..24 {
                    let position = ClientPosition { line, column };
                    assert_eq!(
                        rope_byte_offset(&rope, position, encoding),
                        byte_offset(text, &lines, position, encoding),
                        "{position:?} {encoding:?}"
                    );
                }
            }
        }
        for byte in 0..=text.len() {
            let row = lines.line_of(byte);
            let expected = Point {
                row,
                column: byte - lines.line_start(row) as usize,
            };
            assert_eq!(rope_point(&rope, byte), expected, "byte {byte}");
        }
    }

    #[test]
    fn a_buffer_dropping_its_tree_edits_from_its_text_again() {
        let mut buffer = Buffer::new(Language::Python, 1, "def f():\n    g()\n".to_string());
        buffer.apply(2, &[edit(1, 4, 1, 5, "h")]);
        buffer.drop_tree();
        buffer.apply(3, &[edit(0, 4, 0, 5, "k")]);
        assert_eq!(buffer.text(), "def k():\n    h()\n");
        assert_eq!(buffer.content("a.py").summary.defs[0].name.as_str(), "k");
    }
}
