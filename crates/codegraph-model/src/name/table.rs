//! The process's table of interned texts: a name is a number, its text is found by it without
//! a lock, and interning a text locks one shard of the text → number index.
//!
//! Invariants: a number is handed out only after its text is stored (`TEXTS` entry `n - 1`
//! holds the text of number `n`), and never twice for one text (a text's number is looked up
//! and added under its shard's lock). Texts are never freed: the distinct names of a workspace,
//! and of what was typed in it, for the life of the process (`name.rs` says why no reclamation
//! is sound, and what a long editing session adds: about ten bytes a keystroke).
//!
//! Why not `ustr` (the table used before): its names are pointers, eight bytes, where a number
//! takes four, and the graph holds several million names in its records (a reference holds
//! two, an edge two); its table started at a million slots whatever the workspace.

use std::hash::BuildHasher;
use std::num::NonZeroU32;
use std::sync::LazyLock;

use hashbrown::HashTable;
use parking_lot::Mutex;
use rustc_hash::FxBuildHasher;

/// Each interned text, by number − 1.
static TEXTS: boxcar::Vec<&'static str> = boxcar::Vec::new();

/// Shards of the text → number index: interning on many threads contends on one in 64.
const SHARDS: usize = 64;
static INDEX: LazyLock<[Mutex<Shard>; SHARDS]> =
    LazyLock::new(|| std::array::from_fn(|_| Mutex::new(Shard::default())));

/// Texts are copied into chunks of this size (a longer text gets an allocation of its own).
const CHUNK: usize = 16 * 1024;

#[derive(Default)]
struct Shard {
    numbers: HashTable<NonZeroU32>,
    /// The unused rest of the shard's current chunk.
    free: &'static mut [u8],
}

impl Shard {
    /// A copy of `text` that lives as long as the process.
    fn store(&mut self, text: &str) -> &'static str {
        let bytes = text.as_bytes();
        if bytes.len() > self.free.len() {
            if bytes.len() > CHUNK / 4 {
                return Box::leak(Box::from(text));
            }
            self.free = Box::leak(vec![0u8; CHUNK].into_boxed_slice());
        }
        let (head, tail) = std::mem::take(&mut self.free).split_at_mut(bytes.len());
        self.free = tail;
        head.copy_from_slice(bytes);
        // The bytes were copied from a `str`.
        std::str::from_utf8(head).unwrap_or_default()
    }
}

fn hash(text: &str) -> u64 {
    FxBuildHasher.hash_one(text)
}

/// The shard of a hash: bits 32 and up (the table places by the low bits and tags by the top
/// seven, which stay as varied within a shard as in the whole index).
fn shard(hash: u64) -> &'static Mutex<Shard> {
    &INDEX[(hash >> 32) as usize % SHARDS]
}

/// The text of a number [`intern`] handed out.
pub(super) fn text(number: NonZeroU32) -> &'static str {
    TEXTS
        .get(number.get() as usize - 1)
        .copied()
        .unwrap_or_default()
}

/// The number of `text`, interning it the first time.
pub(super) fn intern(text: &str) -> NonZeroU32 {
    let hash = hash(text);
    let mut shard = shard(hash).lock();
    if let Some(number) = shard
        .numbers
        .find(hash, |number| self::text(*number) == text)
    {
        return *number;
    }
    let stored = shard.store(text);
    let index = TEXTS.push(stored);
    let number = u32::try_from(index + 1)
        .ok()
        .and_then(NonZeroU32::new)
        .expect("fewer than four billion distinct names");
    shard
        .numbers
        .insert_unique(hash, number, |number| self::hash(self::text(*number)));
    number
}

/// The number of `text` if it was ever interned.
pub(super) fn existing(text: &str) -> Option<NonZeroU32> {
    let hash = hash(text);
    shard(hash)
        .lock()
        .numbers
        .find(hash, |number| self::text(*number) == text)
        .copied()
}

/// Every interned text, in the order they were interned.
pub fn texts() -> impl Iterator<Item = &'static str> {
    TEXTS.iter().map(|(_, text)| *text)
}

/// How many texts are interned, and the bytes the table holds for them: the texts, the slots
/// that find them by number and the index that finds them by text.
pub fn footprint() -> (usize, usize) {
    let count = TEXTS.count();
    let texts: usize = texts().map(str::len).sum();
    // A slot is the text's reference and boxcar's flag that it is set.
    let slots = count * (std::mem::size_of::<&str>() + 8);
    let index: usize = INDEX
        .iter()
        .map(|shard| shard.lock().numbers.capacity() * (std::mem::size_of::<NonZeroU32>() + 1))
        .sum();
    (count, texts + slots + index)
}
