//! Parsing and text positions: one tree-sitter parser per thread, incremental reparse from an
//! edited old tree, and conversions between byte offsets, UTF-8 columns and UTF-16 columns.

use std::cell::RefCell;

use tree_sitter::{Parser, Tree};

use crate::Language;

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

mod export_macros;
mod macro_items;

/// A parsed document: its syntax tree and what reparsing it incrementally needs.
pub enum SyntaxTree {
    Plain(Tree),
    /// Rust, whose item-wrapping macros may have been parsed as items (`macro_items`).
    Rust(macro_items::RustTree),
}

impl SyntaxTree {
    /// The tree extraction reads.
    pub fn tree(&self) -> &Tree {
        match self {
            SyntaxTree::Plain(tree) => tree,
            SyntaxTree::Rust(rust) => &rust.tree,
        }
    }

    /// Edits the tree (and what goes with it) as `edit` edits the text.
    pub fn edit(&mut self, edit: &tree_sitter::InputEdit) {
        match self {
            SyntaxTree::Plain(tree) => tree.edit(edit),
            SyntaxTree::Rust(rust) => rust.edit(edit),
        }
    }
}

/// Parses `text` as `language`. Returns `None` only if the grammar cannot be loaded, which the
/// test suite rules out for every shipped grammar.
pub fn parse(language: Language, text: &str) -> Option<Tree> {
    reparse(language, text, None).map(|(parsed, _)| match parsed {
        SyntaxTree::Plain(tree) => tree,
        SyntaxTree::Rust(rust) => rust.tree,
    })
}

/// One tree-sitter parse of `text` as written, nothing masked or parsed again: the floor the
/// index benchmarks compare extraction with.
pub fn parse_plain(language: Language, text: &str) -> Option<Tree> {
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&(language.spec().grammar)()).ok()?;
        parser.parse(text, None)
    })
}

/// Parses `text` as `language`; with `old` (already `edit`ed to match `text`), tree-sitter
/// reuses every unchanged subtree. Also returns whether the new tree was parsed incrementally
/// from the old one (so that `changed_ranges` between the two means something).
pub fn reparse(
    language: Language,
    text: &str,
    old: Option<&SyntaxTree>,
) -> Option<(SyntaxTree, bool)> {
    // tree-sitter-python's scanner is quadratic in a run of comment lines (20,000 of them took
    // 30 s), tree-sitter-bash's crashes on some characters after a `{`, and C and C++ export
    // macros (`class LEVELDB_EXPORT Slice {`) read as a class's name: such text is masked,
    // length for length, and parsed from scratch.
    let masked = match language {
        Language::Python => mask_long_comment_runs(text),
        Language::Bash => mask_bash_brace_lookahead(text),
        Language::C | Language::Cpp => export_macros::mask(text),
        _ => None,
    };
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&(language.spec().grammar)()).ok()?;
        if language == Language::Rust {
            let old = match old {
                Some(SyntaxTree::Rust(rust)) => Some(rust),
                _ => None,
            };
            return macro_items::RustTree::parse(&mut parser, text, old)
                .map(|(rust, incremental)| (SyntaxTree::Rust(rust), incremental));
        }
        let tree = match &masked {
            Some(masked) => parser.parse(masked, None)?,
            None => parser.parse(text, old.map(SyntaxTree::tree))?,
        };
        Some((SyntaxTree::Plain(tree), masked.is_none() && old.is_some()))
    })
}

/// Comment-only lines in a run longer than this are blanked before a Python parse.
const MAX_COMMENT_RUN: usize = 200;

/// `text` with every comment-only line of a run longer than [`MAX_COMMENT_RUN`] replaced by
/// spaces of the same length (offsets and lines stay where they were); `None` when there is no
/// such run.
fn mask_long_comment_runs(text: &str) -> Option<String> {
    let is_comment = |line: &str| line.trim_start().starts_with('#');
    let mut longest = 0;
    let mut run = 0;
    for line in text.split('\n') {
        run = if is_comment(line) { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest <= MAX_COMMENT_RUN {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let mut masked = String::with_capacity(text.len());
    let mut index = 0;
    while index < lines.len() {
        let start = index;
        while index < lines.len() && is_comment(lines[index]) {
            index += 1;
        }
        let blank = index - start > MAX_COMMENT_RUN;
        for line in &lines[start..index] {
            if blank {
                masked.extend(std::iter::repeat_n(' ', line.len()));
            } else {
                masked.push_str(line);
            }
            masked.push('\n');
        }
        if index < lines.len() {
            masked.push_str(lines[index]);
            masked.push('\n');
            index += 1;
        }
    }
    // `split` yields one more piece than there are newlines.
    masked.pop();
    debug_assert_eq!(masked.len(), text.len());
    Some(masked)
}

/// `text` with every non-ASCII character that tree-sitter-bash's scanner would hand to the C
/// `isdigit` replaced by as many `_` as it has bytes; `None` when there is none. The scanner
/// reads the character after a `{`, after its digits, and after a following `..` and its
/// digits (a brace range, `{1..9}`) with `isdigit`, whose table covers only -128..=255: a
/// character from the last planes (`{` then U+E0000 in any `.sh` file) read outside it and
/// crashed the process. A `_` is a word character there too, and offsets stay where they were.
fn mask_bash_brace_lookahead(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let after_digits = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut unsafe_at = Vec::new();
    for (brace, _) in text.match_indices('{') {
        let mut at = after_digits(brace + 1);
        if bytes.get(at) == Some(&b'.') && bytes.get(at + 1) == Some(&b'.') {
            at = after_digits(at + 2);
        }
        if bytes.get(at).is_some_and(|&byte| byte >= 0x80) {
            unsafe_at.push(at);
        }
    }
    if unsafe_at.is_empty() {
        return None;
    }
    let mut masked = text.as_bytes().to_vec();
    for at in unsafe_at {
        // After an ASCII byte, a byte of 0x80 or more starts a character.
        let length = text[at..].chars().next().map_or(1, char::len_utf8);
        masked[at..at + length].fill(b'_');
    }
    Some(String::from_utf8(masked).expect("whole characters replaced by ASCII"))
}

/// Decodes file bytes as UTF-8, replacing invalid sequences, so that a file in another encoding
/// still indexes (its identifiers are usually ASCII) instead of failing.
pub fn decode_lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// True when the bytes look binary: a NUL byte in the first 8 KiB, as git and ripgrep decide.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

/// Converts a UTF-8 byte column within `line_text` to a UTF-16 code unit column.
pub fn utf8_to_utf16_column(line_text: &str, utf8_column: usize) -> usize {
    let clamped = floor_char_boundary(line_text, utf8_column.min(line_text.len()));
    line_text[..clamped].chars().map(char::len_utf16).sum()
}

/// Converts a UTF-16 code unit column within `line_text` to a UTF-8 byte column, clamped to the
/// line's end (clients may send a column past it).
pub fn utf16_to_utf8_column(line_text: &str, utf16_column: usize) -> usize {
    let mut units = 0;
    for (byte_offset, character) in line_text.char_indices() {
        if units >= utf16_column {
            return byte_offset;
        }
        units += character.len_utf16();
    }
    line_text.len()
}

/// The largest char boundary at or below `index`.
pub fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip_on_cjk_and_emoji() {
        let line = "let 名前 = \"😀\"; call()";
        let call_byte = line.find("call").unwrap();
        let utf16 = utf8_to_utf16_column(line, call_byte);
        // "let " 4 + 名前 2 + " = \"" 4 + 😀 2 (a surrogate pair) + "\"; " 3 = 15
        assert_eq!(utf16, 15);
        assert_eq!(utf16_to_utf8_column(line, utf16), call_byte);
    }
}

#[cfg(test)]
mod comment_run_tests {
    use super::*;

    #[test]
    fn long_comment_runs_are_blanked_length_for_length() {
        let short = "# a\n# b\ndef f():\n    pass\n";
        assert_eq!(mask_long_comment_runs(short), None);
        let long = format!(
            "def f():\n    pass\n{}def h():\n    f()\n",
            "  # note é\n".repeat(300)
        );
        let masked = mask_long_comment_runs(&long).unwrap();
        assert_eq!(masked.len(), long.len());
        assert_eq!(masked.lines().count(), long.lines().count());
        assert!(masked.starts_with("def f():\n    pass\n   "));
        assert!(masked.ends_with("def h():\n    f()\n"));
        assert!(!masked.contains('#'));
        let tree = parse(Language::Python, &long).unwrap();
        assert!(!tree.root_node().has_error());
        assert_eq!(tree.root_node().named_child_count(), 2);
    }

    /// Found by `tests/codegraph/fuzz.rs`: these crashed the process (SIGSEGV) in
    /// tree-sitter-bash's scanner.
    #[test]
    fn characters_bash_would_hand_to_isdigit_are_masked() {
        let hostile = "f() {\n  echo {\u{E0000} {12\u{F0000} {1..\u{10FFFF}}\n}\necho é {é}\n";
        let masked = mask_bash_brace_lookahead(hostile).unwrap();
        assert_eq!(masked.len(), hostile.len());
        assert_eq!(
            masked,
            "f() {\n  echo {____ {12____ {1..____}\n}\necho é {__}\n"
        );
        assert_eq!(mask_bash_brace_lookahead("echo {a,b} é {1..3}\n"), None);
        let tree = parse(Language::Bash, hostile).unwrap();
        assert_eq!(tree.root_node().end_byte(), hostile.len());
    }
}
