//! Inline multi-file fixtures, as rust-analyzer writes its tests (`test-fixture`): one string
//! holds a small repository, each file starting at a `//- /path` line, and one `$0` marks the
//! cursor (taken out of the text; the cursor is its place).
//!
//! ```text
//! //- /src/a.py
//! from src.b import b
//!
//! def a():
//!     b()
//! //- /src/b.py
//! def $0b():
//!     pass
//! ```
//!
//! The common indentation of the lines is removed first, so a fixture can sit indented in a
//! raw string. Every file's text ends with a newline.

use std::path::Path;

/// The cursor marker.
pub const CURSOR: &str = "$0";
/// What starts a file: the marker, then the file's path from the repository root (`/src/a.py`).
pub const FILE_HEADER: &str = "//- ";

/// One file of a fixture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureFile {
    /// The path from the root, without the leading `/` (`src/a.py`).
    pub path: String,
    pub text: String,
}

/// Where `$0` was: a file, a byte offset in its text, and the LSP position of that offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub path: String,
    pub offset: usize,
    /// 0-based line.
    pub line: u32,
    /// 0-based column in UTF-16 code units (LSP's default encoding).
    pub character: u32,
}

/// A parsed fixture: its files in order, and the cursor if it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    pub files: Vec<FixtureFile>,
    pub cursor: Option<Cursor>,
}

impl Fixture {
    /// Parses `text`; panics on a fixture that is not well formed (text before the first file,
    /// a header without a `/path`, the same path twice, more than one `$0`), naming the problem.
    pub fn parse(text: &str) -> Fixture {
        let text = trim_indent(text);
        let mut files: Vec<FixtureFile> = Vec::new();
        for line in text.split_inclusive('\n') {
            if let Some(header) = line.strip_prefix(FILE_HEADER) {
                let path = header.trim();
                let path = path
                    .strip_prefix('/')
                    .unwrap_or_else(|| panic!("a file header names a `/path`, not {path:?}"));
                assert!(
                    files.iter().all(|file| file.path != path),
                    "{path} is in the fixture twice"
                );
                files.push(FixtureFile {
                    path: path.to_string(),
                    text: String::new(),
                });
                continue;
            }
            match files.last_mut() {
                Some(file) => file.text.push_str(line),
                None => assert!(
                    line.trim().is_empty(),
                    "a fixture starts with `{FILE_HEADER}/path`, not {line:?}"
                ),
            }
        }
        let mut cursor = None;
        for file in &mut files {
            if !file.text.is_empty() && !file.text.ends_with('\n') {
                file.text.push('\n');
            }
            if let Some(found) = take_cursor(file) {
                assert!(cursor.is_none(), "more than one {CURSOR} in the fixture");
                cursor = Some(found);
            }
        }
        Fixture { files, cursor }
    }

    /// The cursor; panics if the fixture has none.
    pub fn cursor(&self) -> &Cursor {
        self.cursor
            .as_ref()
            .unwrap_or_else(|| panic!("the fixture has no {CURSOR}"))
    }

    /// The text of the file at `path`.
    pub fn text(&self, path: &str) -> &str {
        self.files
            .iter()
            .find(|file| file.path == path)
            .map(|file| file.text.as_str())
            .unwrap_or_else(|| panic!("no {path} in the fixture"))
    }

    /// Writes every file under `root`, creating the directories.
    pub fn write_to(&self, root: &Path) {
        for file in &self.files {
            let path = root.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .unwrap_or_else(|error| panic!("{}: {error}", parent.display()));
            }
            std::fs::write(&path, &file.text)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        }
    }
}

impl Cursor {
    /// The cursor in a file that is not a fixture (a fixture directory's file, say): `snippet`
    /// is a piece of `text` with `$0` where the cursor goes, and must occur in it exactly once.
    pub fn in_text(path: &str, text: &str, snippet: &str) -> Cursor {
        let marker = snippet
            .find(CURSOR)
            .unwrap_or_else(|| panic!("no {CURSOR} in {snippet:?}"));
        let plain = snippet.replacen(CURSOR, "", 1);
        let mut found = text.match_indices(&plain).map(|(offset, _)| offset);
        let start = found
            .next()
            .unwrap_or_else(|| panic!("{plain:?} is not in {path}"));
        assert!(
            found.next().is_none(),
            "{plain:?} is in {path} more than once: make it longer"
        );
        let offset = start + marker;
        let (line, character) = position(text, offset);
        Cursor {
            path: path.to_string(),
            offset,
            line,
            character,
        }
    }
}

/// Takes `$0` out of a file's text; where it was.
fn take_cursor(file: &mut FixtureFile) -> Option<Cursor> {
    let offset = file.text.find(CURSOR)?;
    file.text.replace_range(offset..offset + CURSOR.len(), "");
    assert!(
        !file.text.contains(CURSOR),
        "more than one {CURSOR} in {}",
        file.path
    );
    let (line, character) = position(&file.text, offset);
    Some(Cursor {
        path: file.path.clone(),
        offset,
        line,
        character,
    })
}

/// The 0-based line and UTF-16 column of a byte offset.
pub fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let line = before.matches('\n').count();
    let character = before[line_start..].encode_utf16().count();
    (line as u32, character as u32)
}

/// `text` without its first line if that is blank, and without the indentation all its
/// non-blank lines share.
pub fn trim_indent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    text.split_inclusive('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.trim_start_matches(' ')
            } else {
                &line[indent..]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_the_cursor_are_read_and_the_marker_taken_out() {
        let fixture = Fixture::parse(
            r#"
            //- /src/a.py
            def a():
                b()
            //- /src/b.py
            # 名前
            def $0b():
                pass
            "#,
        );
        assert_eq!(
            fixture.files,
            [
                FixtureFile {
                    path: "src/a.py".to_string(),
                    text: "def a():\n    b()\n".to_string()
                },
                FixtureFile {
                    path: "src/b.py".to_string(),
                    text: "# 名前\ndef b():\n    pass\n".to_string()
                },
            ]
        );
        assert_eq!(
            fixture.cursor(),
            &Cursor {
                path: "src/b.py".to_string(),
                offset: "# 名前\ndef ".len(),
                line: 1,
                character: 4
            }
        );
    }

    #[test]
    fn a_snippet_places_the_cursor_in_a_file() {
        let text = "def a():\n    pass\n\ndef b():\n    a()\n";
        let cursor = Cursor::in_text("x.py", text, "    $0a()");
        assert_eq!((cursor.line, cursor.character), (4, 4));
        assert_eq!(&text[cursor.offset..cursor.offset + 3], "a()");
    }

    #[test]
    fn columns_count_utf16_units() {
        assert_eq!(
            position("x = \"名😀\"; f()", "x = \"名😀\"; ".len()),
            (0, 11)
        );
    }

    #[test]
    fn a_fixture_without_a_cursor_has_none_and_files_are_written() {
        let fixture = Fixture::parse("//- /a/b/c.rs\nfn c() {}");
        assert_eq!(fixture.cursor, None);
        assert_eq!(fixture.text("a/b/c.rs"), "fn c() {}\n");
        let directory = tempfile::tempdir().unwrap();
        fixture.write_to(directory.path());
        assert_eq!(
            std::fs::read_to_string(directory.path().join("a/b/c.rs")).unwrap(),
            "fn c() {}\n"
        );
    }

    #[test]
    fn two_cursors_are_refused() {
        let refused = std::panic::catch_unwind(|| Fixture::parse("//- /a.py\n$0\n//- /b.py\n$0\n"));
        assert!(refused.is_err());
    }
}
