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

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

/// A key's entry: one file number (the many keys one file mentions), or with [`LIST`] set the
/// index of a list in [`MentionIndex::lists`]. Four bytes, so an entry of the table is sixteen
/// (an enum of a number and a boxed list was twenty-four, and each list two allocations).
const LIST: u32 = 1 << 31;

/// Key hash → the files that mention it, as writer file numbers; a file appears once per time
/// it was added.
#[derive(Debug, Clone, Default)]
pub(super) struct MentionIndex {
    keys: FxHashMap<u64, u32>,
    /// The lists of the keys that more than one file mentions (or one file twice).
    lists: Vec<Vec<u32>>,
    /// Lists emptied by [`MentionIndex::forget`], for the next key that needs one.
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
        match self.keys.entry(key_of(text)) {
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

    /// Forgets one mention of `text` by file `number` (a no-op when there is none).
    pub(super) fn forget(&mut self, text: &str, number: u32) {
        let key = key_of(text);
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

    /// The files that mention `text` (and maybe a few that mention another text with the same
    /// hash), with repeats.
    pub(super) fn files(&self, text: &str) -> &[u32] {
        match self.keys.get(&key_of(text)) {
            None => &[],
            Some(value) if *value & LIST != 0 => &self.lists[(*value & !LIST) as usize],
            Some(number) => std::slice::from_ref(number),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MentionIndex;

    #[test]
    fn a_multiset_of_files_per_key() {
        let mut index = MentionIndex::default();
        index.add("parse", 1);
        index.add("parse", 2);
        index.add("parse", 1);
        index.add("render", 3);
        let mut files = index.files("parse").to_vec();
        files.sort();
        assert_eq!(files, [1, 1, 2]);
        assert_eq!(index.files("render"), [3]);
        assert_eq!(index.files("absent"), [] as [u32; 0]);
        index.forget("parse", 1);
        let mut files = index.files("parse").to_vec();
        files.sort();
        assert_eq!(files, [1, 2]);
        index.forget("parse", 1);
        index.forget("parse", 7);
        assert_eq!(index.files("parse"), [2]);
        index.forget("parse", 2);
        index.forget("render", 3);
        assert_eq!(index.files("parse"), [] as [u32; 0]);
        assert!(index.keys.is_empty(), "emptied keys are removed");
        // A list emptied is reused by the next key that needs one.
        index.add("emit", 4);
        index.add("emit", 5);
        let mut files = index.files("emit").to_vec();
        files.sort();
        assert_eq!(files, [4, 5]);
        assert_eq!(index.lists.len(), 1, "the freed list is reused");
        index.forget("emit", 4);
        assert_eq!(index.files("emit"), [5], "a list of one goes back inline");
        assert_eq!(index.free, [0]);
    }
}
