//! The edit sweep: a file of a repository typed through the editor's path (an open buffer, the
//! edits of `didChange`, incremental reparse and re-extraction, the writer's incremental
//! transaction), checked after every edit against a fresh index of the same texts.
//!
//! For one file it feeds every prefix at `prefixes` evenly spaced cut points (the file as
//! being typed: the tail deleted, then put back) and `random` single-character deletions and
//! insertions at random places (each undone after its check). After each edit: no panic got
//! out (a failure contained to the file is data, and must be the same failure in the fresh
//! index), the graph's edge indices agree with its files, and the graph's dump equals the
//! dump of a fresh index of a copy of the repository holding the buffer's text.
//!
//! Shared by the test over the repository's fixtures (`tests/codegraph/edit_sweep.rs`) and
//! the benchmark over real packages (`benches/sweep_edits.rs`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use codegraph::world::buffer::{ClientPosition, ColumnEncoding, TextEdit};
use codegraph::world::{CacheLocation, World, WorldConfig};

/// What to feed.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub prefixes: usize,
    pub random: usize,
    pub seed: u64,
}

/// What one file's sweep did.
#[derive(Debug, Default, Clone)]
pub struct Swept {
    /// Edits fed through the buffer.
    pub edits: usize,
    /// Edits after which the graph was compared with a fresh index.
    pub compared: usize,
    /// The slowest edit (edit to new snapshot).
    pub slowest: Duration,
    /// All edits together.
    pub editing: Duration,
}

/// A fixed pseudo-random sequence (a linear congruential generator: the same every run).
struct Sequence(u64);

impl Sequence {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

fn world_of(root: &Path) -> World {
    let world = World::open(
        root,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .expect("the copy opens");
    world.index(false, &|_, _| {});
    world
}

fn write_texts(root: &Path, texts: &BTreeMap<String, String>) {
    for (path, text) in texts {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a file's directory")).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The position of byte `at` of `text`, in lines and byte columns.
fn position(text: &str, at: usize) -> ClientPosition {
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let column = (at - before.rfind('\n').map_or(0, |newline| newline + 1)) as u32;
    ClientPosition { line, column }
}

/// The edit that replaces bytes `start..end` of `text` with `new`.
fn replace(text: &str, start: usize, end: usize, new: &str) -> TextEdit {
    TextEdit {
        range: Some((position(text, start), position(text, end))),
        text: new.to_string(),
        encoding: ColumnEncoding::Utf8,
    }
}

/// The nearest character boundary at or before `at`.
fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The characters random insertions choose from: what typing in code produces most.
const TYPED: &[&str] = &[
    "{", "}", "(", ")", "[", "]", "<", ">", ";", ",", ".", ":", "=", "\"", "'", "`", "\n", " ",
    "x", "_", "/", "*", "#", "\\", "é",
];

struct Sweeper<'a> {
    world: World,
    fresh_root: &'a Path,
    texts: &'a BTreeMap<String, String>,
    target: &'a str,
    text: String,
    version: i32,
    swept: Swept,
}

impl Sweeper<'_> {
    /// Applies one edit to the buffer and, with `check`, compares the graph with a fresh one.
    fn edit(
        &mut self,
        edit: TextEdit,
        new_text: String,
        check: bool,
        what: &str,
    ) -> Result<(), String> {
        self.version += 1;
        let started = Instant::now();
        let applied = self.world.edit_buffer(self.target, self.version, &[edit]);
        let took = started.elapsed();
        self.text = new_text;
        self.swept.edits += 1;
        self.swept.editing += took;
        self.swept.slowest = self.swept.slowest.max(took);
        if !applied {
            // Over the size cap: the graph went back to the disk's text; reopen.
            self.world
                .open_buffer(self.target, self.version, self.text.clone());
        }
        if check {
            self.compare(what)?;
        }
        Ok(())
    }

    fn compare(&mut self, what: &str) -> Result<(), String> {
        self.swept.compared += 1;
        let live = self.world.snapshot();
        let problems = live.index_problems();
        if !problems.is_empty() {
            return Err(format!(
                "{}: after {what}: the edge indices disagree with the files: {problems:?}",
                self.target
            ));
        }
        std::fs::write(self.fresh_root.join(self.target), &self.text).unwrap();
        let fresh = world_of(self.fresh_root).snapshot();
        let (live, fresh) = (live.dump(), fresh.dump());
        if live != fresh {
            let first = live
                .lines()
                .zip(fresh.lines())
                .find(|(live, fresh)| live != fresh)
                .map(|(live, fresh)| format!("incremental: {live}\n  fresh:       {fresh}"))
                .unwrap_or_else(|| "one dump is a prefix of the other".to_string());
            return Err(format!(
                "{}: after {what}: the incremental graph differs from a fresh index:\n  {first}",
                self.target
            ));
        }
        Ok(())
    }
}

/// Sweeps `target` (a path of `texts`) as the plan says; `Err` names the first edit after
/// which the graph was wrong.
pub fn sweep_file(
    texts: &BTreeMap<String, String>,
    target: &str,
    plan: Plan,
) -> Result<Swept, String> {
    let live_root = tempfile::tempdir().unwrap();
    let fresh_root = tempfile::tempdir().unwrap();
    write_texts(live_root.path(), texts);
    write_texts(fresh_root.path(), texts);
    let original = texts[target].clone();
    let world = world_of(live_root.path());
    world.prepare_changes();
    world.open_buffer(target, 1, original.clone());
    let mut sweeper = Sweeper {
        world,
        fresh_root: fresh_root.path(),
        texts,
        target,
        text: original.clone(),
        version: 1,
        swept: Swept::default(),
    };
    // Prefixes: the tail from the cut deleted, checked, then typed back in one edit.
    for step in 1..=plan.prefixes {
        let cut = boundary(&original, original.len() * step / (plan.prefixes + 1));
        let tail = original[cut..].to_string();
        let deleted = replace(&sweeper.text, cut, sweeper.text.len(), "");
        sweeper.edit(
            deleted,
            original[..cut].to_string(),
            true,
            &format!("the prefix of {cut} bytes"),
        )?;
        let restored = replace(&sweeper.text, cut, cut, &tail);
        sweeper.edit(restored, original.clone(), false, "restoring")?;
    }
    // Random single characters, each undone.
    let mut sequence = Sequence(plan.seed ^ target.len() as u64);
    for _ in 0..plan.random {
        let at = boundary(&original, sequence.below(original.len() + 1));
        if sequence.below(2) == 0 && at < original.len() {
            let end = at + original[at..].chars().next().map_or(1, char::len_utf8);
            let removed = original[at..end].to_string();
            let mut changed = original.clone();
            changed.replace_range(at..end, "");
            let edit = replace(&sweeper.text, at, end, "");
            sweeper.edit(
                edit,
                changed,
                true,
                &format!("deleting {removed:?} at byte {at}"),
            )?;
            let undo = replace(&sweeper.text, at, at, &removed);
            sweeper.edit(undo, original.clone(), false, "undoing")?;
        } else {
            let typed = TYPED[sequence.below(TYPED.len())];
            let mut changed = original.clone();
            changed.insert_str(at, typed);
            let edit = replace(&sweeper.text, at, at, typed);
            sweeper.edit(
                edit,
                changed,
                true,
                &format!("inserting {typed:?} at byte {at}"),
            )?;
            let undo = replace(&sweeper.text, at, at + typed.len(), "");
            sweeper.edit(undo, original.clone(), false, "undoing")?;
        }
    }
    // Back to the original text: the graph must be the first one again.
    sweeper.compare("the last undo")?;
    let _ = sweeper.texts;
    Ok(sweeper.swept)
}
