//! [`LineTable`]: where a file's lines start, kept with its summary so that a [`Span`] (eight
//! bytes: a byte range) gives its lines and columns without the file's text.
//!
//! The graph holds about 1.4 million spans for 1.8 million lines (references, definitions,
//! imports, inheritance). With their lines and columns they would take 24 bytes each; as byte
//! ranges they take 8, and the table costs about a byte per line: each line's length in one
//! byte (a line of [`LONG`] bytes or more in a side list), and the start of every
//! [`BLOCK`]-th line, so that finding a byte's line reads one block.
//!
//! Lines end at `\n` (a `\r` before it belongs to the line), as tree-sitter counts rows.

use serde::{Deserialize, Serialize};

use super::{LineSpan, Position, Span};

/// Lines per block: a lookup binary-searches the blocks, then walks at most this many lengths.
const BLOCK: usize = 64;
/// A length byte of this value says the line's length is in [`LineTable::long`].
const LONG: u8 = u8::MAX;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineTable {
    /// The byte at which lines 0, [`BLOCK`], 2 × [`BLOCK`], ... start.
    blocks: Box<[u32]>,
    /// Each line's length in bytes, its `\n` included; [`LONG`] for a line that long or longer.
    lengths: Box<[u8]>,
    /// (line, length) of the lines of [`LONG`] bytes or more, in line order.
    long: Box<[(u32, u32)]>,
}

impl Default for LineTable {
    /// The table of the empty text: one line, empty.
    fn default() -> LineTable {
        LineTable::new("")
    }
}

impl LineTable {
    pub fn new(text: &str) -> LineTable {
        let bytes = text.as_bytes();
        let mut lengths = Vec::new();
        let mut long = Vec::new();
        let mut blocks = Vec::new();
        let mut start = 0usize;
        let ends = bytes
            .iter()
            .enumerate()
            .filter(|(_, byte)| **byte == b'\n')
            .map(|(offset, _)| offset + 1)
            .chain(std::iter::once(bytes.len()));
        for end in ends {
            let line = lengths.len();
            if line % BLOCK == 0 {
                blocks.push(start as u32);
            }
            let length = end - start;
            if length >= usize::from(LONG) {
                lengths.push(LONG);
                long.push((line as u32, length as u32));
            } else {
                lengths.push(length as u8);
            }
            start = end;
        }
        LineTable {
            blocks: blocks.into(),
            lengths: lengths.into(),
            long: long.into(),
        }
    }

    /// How many lines the text has: one more than its line breaks.
    pub fn lines(&self) -> usize {
        self.lengths.len()
    }

    fn length(&self, line: usize) -> u32 {
        match self.lengths[line] {
            LONG => self
                .long
                .binary_search_by_key(&(line as u32), |(long, _)| *long)
                .map_or(0, |found| self.long[found].1),
            length => u32::from(length),
        }
    }

    /// The byte at which `line` starts; the text's end past its last line.
    pub fn line_start(&self, line: usize) -> u32 {
        let line = line.min(self.lines());
        let block = (line / BLOCK).min(self.blocks.len() - 1);
        let mut start = self.blocks[block];
        for before in block * BLOCK..line {
            start += self.length(before);
        }
        start
    }

    /// The byte range of `line` in `text` (the text the table was made from), without its line
    /// break; `None` past the last line.
    pub fn line_range(&self, text: &str, line: usize) -> Option<std::ops::Range<usize>> {
        if line >= self.lines() {
            return None;
        }
        let start = self.line_start(line) as usize;
        let mut end = (start + self.length(line) as usize).min(text.len());
        let bytes = text.as_bytes();
        while end > start && matches!(bytes.get(end - 1), Some(b'\n' | b'\r')) {
            end -= 1;
        }
        Some(start..end)
    }

    /// The zero-based line of `byte`.
    pub fn line_of(&self, byte: usize) -> usize {
        self.position(u32::try_from(byte).unwrap_or(u32::MAX)).line as usize
    }

    /// The line and column (in bytes) of `byte`; a byte past the text's end is on its last line.
    pub fn position(&self, byte: u32) -> Position {
        let block = self.blocks.partition_point(|start| *start <= byte) - 1;
        let mut line = block * BLOCK;
        let mut start = self.blocks[block];
        while line + 1 < self.lines() {
            let next = start + self.length(line);
            if next > byte {
                break;
            }
            start = next;
            line += 1;
        }
        Position {
            line: line as u32,
            column: byte - start,
        }
    }

    /// A span with its lines and columns.
    pub fn locate(&self, span: Span) -> LineSpan {
        LineSpan {
            start_byte: span.start_byte,
            end_byte: span.end_byte,
            start: self.position(span.start_byte),
            end: self.position(span.end_byte),
        }
    }

    /// The bytes the table holds (for the memory benchmark).
    pub fn heap_bytes(&self) -> usize {
        self.blocks.len() * 4 + self.lengths.len() + self.long.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte's position, counted the plain way.
    fn naive(text: &str) -> Vec<Position> {
        let mut positions = Vec::new();
        let (mut line, mut column) = (0, 0);
        for byte in text.bytes() {
            positions.push(Position { line, column });
            if byte == b'\n' {
                line += 1;
                column = 0;
            } else {
                column += 1;
            }
        }
        positions.push(Position { line, column });
        positions
    }

    fn check(text: &str) {
        let table = LineTable::new(text);
        for (byte, expected) in naive(text).into_iter().enumerate() {
            assert_eq!(
                table.position(byte as u32),
                expected,
                "byte {byte} of {text:?}"
            );
            if expected.column == 0 {
                assert_eq!(table.line_start(expected.line as usize), byte as u32);
            }
        }
        assert_eq!(table.lines(), text.matches('\n').count() + 1);
        for (line, expected) in text.split('\n').enumerate() {
            let range = table.line_range(text, line).unwrap();
            assert_eq!(&text[range], expected.trim_end_matches('\r'));
        }
        assert_eq!(table.line_range(text, table.lines()), None);
        assert_eq!(table.line_start(table.lines()), text.len() as u32);
    }

    #[test]
    fn positions_are_those_of_a_plain_count() {
        check("");
        check("\n");
        check("a");
        check("a\n");
        check("a\r\nbc\n\nd");
        // Lines around the long-line marker's length, and over a block.
        let mut text = String::new();
        for line in 0..300 {
            text.push_str(&"x".repeat(line * 7 % 600));
            text.push('\n');
        }
        check(&text);
        check(&text[..text.len() - 1]);
    }

    #[test]
    fn a_byte_past_the_end_is_on_the_last_line() {
        let table = LineTable::new("ab\ncd");
        assert_eq!(table.position(9), Position { line: 1, column: 6 });
    }
}
