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

/// The files that mention one key, as writer file numbers; a file appears once per time it
/// was added.
#[derive(Debug, Clone)]
enum Mentioners {
    One(u32),
    // Boxed so that the enum is 16 bytes, not 32: most keys have one file.
    #[allow(clippy::box_collection)]
    Many(Box<Vec<u32>>),
}

/// Key hash → the files that mention it.
#[derive(Debug, Clone, Default)]
pub(super) struct MentionIndex {
    keys: FxHashMap<u64, Mentioners>,
}

/// The key of a text in the index.
fn key_of(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    text.hash(&mut hasher);
    hasher.finish()
}

impl MentionIndex {
    pub(super) fn add(&mut self, text: &str, number: u32) {
        match self.keys.entry(key_of(text)) {
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(Mentioners::One(number));
            }
            std::collections::hash_map::Entry::Occupied(mut entry) => {
                let files = entry.get_mut();
                match files {
                    Mentioners::One(first) => {
                        *files = Mentioners::Many(Box::new(vec![*first, number]));
                    }
                    Mentioners::Many(list) => list.push(number),
                }
            }
        }
    }

    /// Forgets one mention of `text` by file `number` (a no-op when there is none).
    pub(super) fn forget(&mut self, text: &str, number: u32) {
        let key = key_of(text);
        let Some(files) = self.keys.get_mut(&key) else {
            return;
        };
        match files {
            Mentioners::One(only) => {
                if *only == number {
                    self.keys.remove(&key);
                }
            }
            Mentioners::Many(list) => {
                if let Some(position) = list.iter().position(|file| *file == number) {
                    list.swap_remove(position);
                }
                match list.len() {
                    0 => {
                        self.keys.remove(&key);
                    }
                    1 => *files = Mentioners::One(list[0]),
                    _ => {}
                }
            }
        }
    }

    /// The files that mention `text` (and maybe a few that mention another text with the same
    /// hash), with repeats.
    pub(super) fn files(&self, text: &str) -> &[u32] {
        match self.keys.get(&key_of(text)) {
            None => &[],
            Some(Mentioners::One(number)) => std::slice::from_ref(number),
            Some(Mentioners::Many(list)) => list,
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
    }
}
