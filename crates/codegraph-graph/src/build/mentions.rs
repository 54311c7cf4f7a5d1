//! The writer's mention index: for each name (or module key), the files whose resolution may
//! look it up, so that a change to what the name means re-resolves exactly them.
//!
//! It is a multiset (a file registers its own mentions and, separately, the extra names its
//! last resolution read; each is forgotten once), and it is the writer's alone: no snapshot
//! holds it. Compact because it is one of the largest things a full index keeps (there are
//! several mentions per reference): a key is a 64-bit hash of the text, not the text (two
//! texts with the same hash only make a change re-resolve a few files more, never fewer), and
//! the files mentioning a key are one inline number for the many keys one file mentions, a
//! list only for the others.
//!
//! Writers cloned from one another (the worktrees a shared server derives from its first, a
//! proposal's writer) share the table: each one's changes since go to an overlay of its own
//! (mentions added, mentions forgotten), folded into a table of its own once they grow; a
//! writer that owns its table alone writes it in place. Invariant: for every key and file, the
//! overlay forgets no more mentions than the table holds, and the index's multiset is the
//! table's, less what the overlay forgot, plus what it added.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

/// A key's entry: one file number (the many keys one file mentions), or with [`LIST`] set the
/// index of a list in [`Table::lists`]. Four bytes, so an entry of the table is sixteen
/// (an enum of a number and a boxed list was twenty-four, and each list two allocations).
const LIST: u32 = 1 << 31;

/// Key hash → the files that mention it, as writer file numbers; a file appears once per time
/// it was added.
#[derive(Debug, Clone, Default)]
pub(super) struct MentionIndex {
    table: Arc<Table>,
    /// Mentions added since the table was shared, by key.
    added: FxHashMap<u64, Vec<u32>>,
    /// Mentions of the table forgotten since it was shared, by key.
    forgotten: FxHashMap<u64, Vec<u32>>,
    /// How many mentions the overlay holds.
    overlaid: usize,
}

/// The overlay is folded into a table of the writer's own once it holds this many mentions, or
/// an eighth of the table's keys if that is more (fewer in tests, which fold it often).
const MAX_OVERLAID: usize = if cfg!(test) { 64 } else { 4096 };

#[derive(Debug, Clone, Default)]
struct Table {
    keys: FxHashMap<u64, u32>,
    /// The lists of the keys that more than one file mentions (or one file twice).
    lists: Vec<Vec<u32>>,
    /// Lists emptied by [`Table::forget`], for the next key that needs one.
    free: Vec<u32>,
}

/// The key of a text in the index.
fn key_of(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    text.hash(&mut hasher);
    hasher.finish()
}

impl MentionIndex {
    pub(super) fn add(&mut self, text: &str, number: u32) {
        // Writer file numbers count files: never two billion of them.
        debug_assert!(number < LIST);
        let key = key_of(text);
        if let Some(table) = self.owned_table() {
            table.add(key, number);
            return;
        }
        if let Some(forgotten) = self.forgotten.get_mut(&key)
            && let Some(position) = forgotten.iter().position(|file| *file == number)
        {
            forgotten.swap_remove(position);
            self.overlaid -= 1;
            return;
        }
        self.added.entry(key).or_default().push(number);
        self.overlay_grew();
    }

    /// Forgets one mention of `text` by file `number` (a no-op when there is none).
    pub(super) fn forget(&mut self, text: &str, number: u32) {
        let key = key_of(text);
        if let Some(table) = self.owned_table() {
            table.forget(key, number);
            return;
        }
        if let Some(added) = self.added.get_mut(&key)
            && let Some(position) = added.iter().position(|file| *file == number)
        {
            added.swap_remove(position);
            self.overlaid -= 1;
            return;
        }
        let count = |files: &[u32]| files.iter().filter(|file| **file == number).count();
        let forgotten = self.forgotten.get(&key).map_or(0, |files| count(files));
        if forgotten < count(self.table.files(key)) {
            self.forgotten.entry(key).or_default().push(number);
            self.overlay_grew();
        }
    }

    /// The files that mention `text` (and maybe a few that mention another text with the same
    /// hash), with repeats.
    pub(super) fn files(&self, text: &str) -> Vec<u32> {
        let key = key_of(text);
        let mut files = self.table.files(key).to_vec();
        for number in self.forgotten.get(&key).into_iter().flatten() {
            if let Some(position) = files.iter().position(|file| file == number) {
                files.swap_remove(position);
            }
        }
        files.extend(self.added.get(&key).into_iter().flatten());
        files
    }

    /// The table, when this writer alone holds it, with the overlay folded in: written in
    /// place.
    fn owned_table(&mut self) -> Option<&mut Table> {
        let table = Arc::get_mut(&mut self.table)?;
        if self.overlaid > 0 {
            fold(table, &mut self.added, &mut self.forgotten);
            self.overlaid = 0;
        }
        Some(table)
    }

    fn overlay_grew(&mut self) {
        self.overlaid += 1;
        if self.overlaid > MAX_OVERLAID.max(self.table.keys.len() / 8) {
            let mut table = (*self.table).clone();
            fold(&mut table, &mut self.added, &mut self.forgotten);
            self.table = Arc::new(table);
            self.overlaid = 0;
        }
    }
}

/// Applies an overlay to `table`, emptying it.
fn fold(
    table: &mut Table,
    added: &mut FxHashMap<u64, Vec<u32>>,
    forgotten: &mut FxHashMap<u64, Vec<u32>>,
) {
    for (key, numbers) in forgotten.drain() {
        for number in numbers {
            table.forget(key, number);
        }
    }
    for (key, numbers) in added.drain() {
        for number in numbers {
            table.add(key, number);
        }
    }
}

impl Table {
    fn add(&mut self, key: u64, number: u32) {
        match self.keys.entry(key) {
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(number);
            }
            std::collections::hash_map::Entry::Occupied(mut entry) => {
                let value = entry.get_mut();
                if *value & LIST != 0 {
                    self.lists[(*value & !LIST) as usize].push(number);
                } else {
                    let list = vec![*value, number];
                    let index = match self.free.pop() {
                        Some(index) => {
                            self.lists[index as usize] = list;
                            index
                        }
                        None => {
                            self.lists.push(list);
                            (self.lists.len() - 1) as u32
                        }
                    };
                    *value = index | LIST;
                }
            }
        }
    }

    fn forget(&mut self, key: u64, number: u32) {
        let Some(value) = self.keys.get_mut(&key) else {
            return;
        };
        if *value & LIST == 0 {
            if *value == number {
                self.keys.remove(&key);
            }
            return;
        }
        let index = *value & !LIST;
        let list = &mut self.lists[index as usize];
        if let Some(position) = list.iter().position(|file| *file == number) {
            list.swap_remove(position);
        }
        match list.len() {
            0 => {
                self.keys.remove(&key);
            }
            1 => *value = list[0],
            _ => return,
        }
        self.lists[index as usize] = Vec::new();
        self.free.push(index);
    }

    fn files(&self, key: u64) -> &[u32] {
        match self.keys.get(&key) {
            None => &[],
            Some(value) if *value & LIST != 0 => &self.lists[(*value & !LIST) as usize],
            Some(number) => std::slice::from_ref(number),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::MentionIndex;

    fn sorted(index: &MentionIndex, text: &str) -> Vec<u32> {
        let mut files = index.files(text);
        files.sort();
        files
    }

    #[test]
    fn a_multiset_of_files_per_key() {
        let mut index = MentionIndex::default();
        index.add("parse", 1);
        index.add("parse", 2);
        index.add("parse", 1);
        index.add("render", 3);
        assert_eq!(sorted(&index, "parse"), [1, 1, 2]);
        assert_eq!(index.files("render"), [3]);
        assert_eq!(index.files("absent"), [] as [u32; 0]);
        index.forget("parse", 1);
        assert_eq!(sorted(&index, "parse"), [1, 2]);
        index.forget("parse", 1);
        index.forget("parse", 7);
        assert_eq!(index.files("parse"), [2]);
        index.forget("parse", 2);
        index.forget("render", 3);
        assert_eq!(index.files("parse"), [] as [u32; 0]);
        assert!(index.table.keys.is_empty(), "emptied keys are removed");
        // A list emptied is reused by the next key that needs one.
        index.add("emit", 4);
        index.add("emit", 5);
        assert_eq!(sorted(&index, "emit"), [4, 5]);
        assert_eq!(index.table.lists.len(), 1, "the freed list is reused");
        index.forget("emit", 4);
        assert_eq!(index.files("emit"), [5], "a list of one goes back inline");
        assert_eq!(index.table.free, [0]);
    }

    #[test]
    fn writers_cloned_from_one_another_share_the_table_and_change_only_their_own_mentions() {
        let mut first = MentionIndex::default();
        first.add("parse", 1);
        first.add("parse", 2);
        first.add("render", 3);
        let mut second = first.clone();
        second.forget("parse", 1);
        second.forget("parse", 1);
        second.add("emit", 4);
        first.add("parse", 5);
        assert_eq!(sorted(&first, "parse"), [1, 2, 5]);
        assert_eq!(first.files("emit"), [] as [u32; 0]);
        assert_eq!(sorted(&second, "parse"), [2]);
        assert_eq!(second.files("emit"), [4]);
        assert_eq!(
            second.forgotten.values().flatten().count(),
            1,
            "one mention of 1 held"
        );
        // Once the other writer is gone, the overlay is folded into the table, in place.
        drop(second);
        first.add("render", 6);
        assert_eq!(first.overlaid, 0);
        assert_eq!(sorted(&first, "render"), [3, 6]);
        assert_eq!(sorted(&first, "parse"), [1, 2, 5]);
    }

    #[test]
    fn an_overlay_folded_and_a_table_shared_keep_the_same_multiset_as_a_plain_count() {
        // A walk of pseudo-random additions and removals on writers cloned along the way,
        // each checked against a count of its own.
        let mut seed: u64 = 7;
        let mut next = |bound: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % bound
        };
        type Counted = (MentionIndex, BTreeMap<(u64, u32), usize>);
        let mut writers: Vec<Counted> = vec![(MentionIndex::default(), BTreeMap::new())];
        for _ in 0..30_000 {
            let which = next(writers.len() as u64) as usize;
            let (key, file) = (next(64), next(8) as u32);
            let text = format!("name{key}");
            let (index, count) = &mut writers[which];
            if next(3) == 0 {
                index.forget(&text, file);
                if let Some(held) = count.get_mut(&(key, file)) {
                    *held = held.saturating_sub(1);
                }
            } else {
                index.add(&text, file);
                *count.entry((key, file)).or_default() += 1;
            }
            if next(500) == 0 && writers.len() < 4 {
                let copy = (writers[which].0.clone(), writers[which].1.clone());
                writers.push(copy);
            } else if next(700) == 0 && writers.len() > 1 {
                writers.swap_remove(which);
            }
        }
        assert!(
            writers.len() > 1,
            "the walk ends with writers sharing a table"
        );
        for (index, count) in &writers {
            for key in 0..64 {
                let mut expected: Vec<u32> = count
                    .iter()
                    .filter(|((known, _), _)| *known == key)
                    .flat_map(|((_, file), held)| std::iter::repeat_n(*file, *held))
                    .collect();
                expected.sort();
                assert_eq!(sorted(index, &format!("name{key}")), expected, "key {key}");
            }
        }
    }
}
