//! How the interned names grow over a long editing session: a program that prints figures,
//! never a test.
//!
//!   cargo bench --bench interner [-- KEYSTROKES]      # default 20000
//!
//! Indexes a copy of this repository's `crates/codegraph-graph/src`, opens `sharded.rs` as an
//! editor would, and types into it one character at a time through `World::edit_buffer` (the
//! path the language server's `didChange` takes: the buffer's incremental reparse, the
//! summary, one writer transaction per keystroke). The session is a fixed mix: new functions
//! typed out whole (a name, a parameter, a call of a name never seen before), calls typed
//! into their bodies, and renames of those functions (the old name deleted a character at a
//! time, the new one typed). Every keystroke makes a new spelling of something: the worst case
//! for a table that keeps every text it was given. The identifiers are random words, so
//! that few of their prefixes were typed before.
//!
//! Prints the interned names' count and bytes (`model::names_footprint`: the texts, the slots
//! that find them by number, the index that finds them by text) before and after, the growth
//! per keystroke, what the new texts are (entity ids, `path::name`, and the rest), and the
//! growth projected to an eight-hour session.
#![allow(clippy::print_stdout)]

use std::path::Path;
use std::time::Instant;

use codegraph::world::buffer::{ClientPosition, ColumnEncoding, TextEdit};
use codegraph::world::{CacheLocation, World, WorldConfig};

/// The document typed into, a file of the indexed copy.
const DOCUMENT: &str = "sharded.rs";

/// A fast typist who never pauses: five keystrokes a second for eight hours.
const SESSION_KEYSTROKES: f64 = 5.0 * 60.0 * 60.0 * 8.0;

/// A deterministic source of choices (a linear congruential generator): the same session on
/// every run.
struct Choices(u64);

impl Choices {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }

    /// A new identifier of six to ten lowercase letters: few of its prefixes were typed
    /// before.
    fn word(&mut self) -> String {
        let length = 6 + self.below(5);
        (0..length)
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

/// The open document as the editor holds it, and the keystrokes sent so far.
struct Editor<'w> {
    world: &'w World,
    text: String,
    version: i32,
    keystrokes: usize,
}

impl Editor<'_> {
    /// The client position of a byte offset (the text is ASCII: columns are bytes).
    fn position(&self, offset: usize) -> ClientPosition {
        let before = &self.text[..offset];
        let line = before.matches('\n').count() as u32;
        let column = (offset - before.rfind('\n').map_or(0, |newline| newline + 1)) as u32;
        ClientPosition { line, column }
    }

    /// Replaces the bytes `start..end` with `inserted`: one `didChange`.
    fn send(&mut self, start: usize, end: usize, inserted: &str) {
        let edit = TextEdit {
            range: Some((self.position(start), self.position(end))),
            text: inserted.to_string(),
            encoding: ColumnEncoding::Utf16,
        };
        self.version += 1;
        self.text.replace_range(start..end, inserted);
        assert!(self.world.edit_buffer(DOCUMENT, self.version, &[edit]));
        self.keystrokes += 1;
    }

    /// Types `typed` at `offset`, a character a keystroke.
    fn type_at(&mut self, offset: usize, typed: &str) {
        for (index, character) in typed.char_indices() {
            self.send(offset + index, offset + index, &character.to_string());
        }
    }

    /// Deletes the `length` bytes before `offset`, a backspace a keystroke.
    fn delete_before(&mut self, offset: usize, length: usize) {
        for deleted in 0..length {
            let end = offset - deleted;
            self.send(end - 1, end, "");
        }
    }
}

/// One session of `keystrokes` keystrokes into the open document; gives back the names of the
/// functions typed, renamed ones under their last name.
fn session(editor: &mut Editor<'_>, keystrokes: usize) -> Vec<String> {
    let mut choices = Choices(0x5eed);
    // The names of the functions typed so far, renamed ones under their current name.
    let mut functions: Vec<String> = Vec::new();
    while editor.keystrokes < keystrokes {
        match (functions.len(), choices.below(3)) {
            (0, _) | (_, 0) => {
                let (name, value, callee) = (choices.word(), choices.word(), choices.word());
                let function = format!(
                    "\n\npub fn {name}({value}: u32) -> u32 {{\n    {callee}({value}) + 1\n}}\n"
                );
                let end = editor.text.len();
                editor.type_at(end, &function);
                functions.push(name);
            }
            (count, 1) => {
                let callee = functions[choices.below(count)].clone();
                let caller = &functions[choices.below(count)];
                let body = editor
                    .text
                    .find(&format!("pub fn {caller}("))
                    .expect("typed");
                let inside = body + editor.text[body..].find("{\n").expect("a body") + 2;
                let call = format!("    let {} = {callee}(1);\n", choices.word());
                editor.type_at(inside, &call);
            }
            (count, _) => {
                let index = choices.below(count);
                let old = functions[index].clone();
                let new = choices.word();
                let start = editor.text.find(&format!("pub fn {old}(")).expect("typed") + 7;
                editor.delete_before(start + old.len(), old.len());
                editor.type_at(start, &new);
                functions[index] = new;
            }
        }
    }
    functions
}

/// Copies the `.rs` files of `from` (recursively) into `to`.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a temporary directory");
    for entry in std::fs::read_dir(from).expect("the sources").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_sources(&path, &target);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            std::fs::copy(&path, &target).expect("a copy");
        }
    }
}

fn megabytes(bytes: f64) -> f64 {
    bytes / 1_000_000.0
}

fn main() {
    let keystrokes: usize = std::env::args()
        .skip(1)
        .find_map(|argument| argument.parse().ok())
        .unwrap_or(20_000);
    let workspace = tempfile::tempdir().expect("a temporary directory");
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/codegraph-graph/src");
    copy_sources(&sources, workspace.path());
    let config = WorldConfig {
        cache: CacheLocation::Disabled,
        ..WorldConfig::default()
    };
    let world = World::open(workspace.path(), config).expect("the workspace opens");
    world.index(true, &|_, _| {});
    world.prepare_changes();
    let text = std::fs::read_to_string(workspace.path().join(DOCUMENT)).expect("the document");
    assert!(world.open_buffer(DOCUMENT, 1, text.clone()));
    let (names_before, bytes_before) = codegraph::model::names_footprint();
    println!("indexed and opened: {names_before} names, {bytes_before} bytes");
    let started = Instant::now();
    let mut editor = Editor {
        world: &world,
        text,
        version: 1,
        keystrokes: 0,
    };
    let functions = session(&mut editor, keystrokes);
    let elapsed = started.elapsed();
    // The edits reached the graph: it defines every function typed, under its last name.
    let snapshot = world.snapshot();
    let node = snapshot
        .file(DOCUMENT)
        .expect("the document is in the graph");
    let defined = functions
        .iter()
        .filter(|name| {
            node.summary
                .defs
                .iter()
                .any(|def| def.name == name.as_str())
        })
        .count();
    println!(
        "the graph defines {defined} of the {} functions typed, under their last name",
        functions.len()
    );
    let typed = editor.keystrokes;
    let (names_after, bytes_after) = codegraph::model::names_footprint();
    let (new_names, new_bytes) = (names_after - names_before, bytes_after - bytes_before);
    println!(
        "after {typed} keystrokes ({:.1} ms each): {names_after} names, {bytes_after} bytes",
        elapsed.as_secs_f64() * 1000.0 / typed as f64
    );
    // What the new texts are: interned in order, so those past the count before are new.
    let (mut ids, mut id_bytes, mut others, mut other_bytes) = (0, 0, 0, 0);
    for text in codegraph::model::interned_texts().skip(names_before) {
        if text.contains("::") {
            ids += 1;
            id_bytes += text.len();
        } else {
            others += 1;
            other_bytes += text.len();
        }
    }
    println!(
        "  grew by {new_names} names, {new_bytes} bytes: {ids} entity ids ({id_bytes} bytes of text), {others} other names ({other_bytes} bytes of text)"
    );
    let per_keystroke = new_bytes as f64 / typed as f64;
    println!(
        "  {:.2} names and {per_keystroke:.1} bytes a keystroke",
        new_names as f64 / typed as f64
    );
    println!(
        "  an eight-hour session at five keystrokes a second ({SESSION_KEYSTROKES} keystrokes): {:.1} MB",
        megabytes(per_keystroke * SESSION_KEYSTROKES)
    );
}
