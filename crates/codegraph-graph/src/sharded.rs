//! [`ShardedMap`]: the graph's persistent hash map. A snapshot's map is an `Arc` of shards,
//! each shard an `Arc` of a hash table of entries; a writer's change copies the shard list
//! (pointers) and the shards it touches, and shares the rest with the snapshot it started
//! from. A key is hashed once an operation: the hash picks the shard and finds the entry in
//! it (a name's hash reads its text, and `HashMap` shards hashed every key twice).
//!
//! Why not a hash array mapped trie (`imbl::HashMap`, which the graph used before): its nodes
//! have room for every slot they could hold, and a map of a hundred thousand small entries cost
//! about 230 bytes an entry (40 bytes of key and value) where a shard costs the hash table's
//! own load factor, about 65 bytes (both measured on the benchmark corpus). A write costs
//! a copy of one shard (at most [`MAX_SHARD`] entries) and of the shard list, once per shard
//! per transaction: a writer that clones a snapshot and changes a few keys copies a few
//! shards, and a shard it already owns is written in place.
//!
//! Invariants: the shard count is zero (an empty map) or a power of two, and a key lives in
//! the shard its hash's bits 32 and up select ([`shard_of`]); `len` counts the entries of all
//! shards. Iteration order is not meaningful (readers that list keys sort or score them).

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// A map grows its shard count (doubling, rebuilding every shard) when its shards average more
/// than this many entries: the most a write copies.
const MAX_SHARD: usize = 256;
/// A map built at once ([`FromIterator`]) or grown aims at this many entries a shard.
const TARGET_SHARD: usize = 128;

/// One shard: a hash table of entries, found by the key's hash.
type Shard<K, V> = HashTable<(K, V)>;

pub(crate) struct ShardedMap<K, V> {
    shards: Arc<Vec<Arc<Shard<K, V>>>>,
    len: usize,
}

impl<K, V> Clone for ShardedMap<K, V> {
    fn clone(&self) -> Self {
        ShardedMap {
            shards: self.shards.clone(),
            len: self.len,
        }
    }
}

impl<K, V> Default for ShardedMap<K, V> {
    fn default() -> Self {
        ShardedMap {
            shards: Arc::default(),
            len: 0,
        }
    }
}

/// The shard of a hash among `count` (a power of two). Bits 32 and up: the table indexes its
/// buckets by the low bits and tags them with the top seven, which stay as varied within a
/// shard as in the whole map.
fn shard_of(hash: u64, count: usize) -> usize {
    (hash >> 32) as usize & (count - 1)
}

/// The shard count for `len` entries.
fn shard_count(len: usize) -> usize {
    len.div_ceil(TARGET_SHARD).next_power_of_two()
}

fn hash_of<Q: Hash + ?Sized>(key: &Q) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// A shard's way to hash an entry again when it grows.
fn rehash<K: Hash, V>(entry: &(K, V)) -> u64 {
    hash_of(&entry.0)
}

impl<K: Hash + Eq + Clone, V: Clone> ShardedMap<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.find(hash_of(key), key)
    }

    /// The value of `key`, whose hash is `hash`.
    fn find<Q>(&self, hash: u64, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let count = self.shards.len();
        if count == 0 {
            return None;
        }
        self.shards[shard_of(hash, count)]
            .find(hash, |(stored, _)| stored.borrow() == key)
            .map(|(_, value)| value)
    }

    pub(crate) fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.get(key).is_some()
    }

    /// The shard `hash` selects, copied first if a snapshot shares it.
    fn shard_mut(&mut self, hash: u64) -> &mut Shard<K, V> {
        let shards = Arc::make_mut(&mut self.shards);
        let count = shards.len();
        Arc::make_mut(&mut shards[shard_of(hash, count)])
    }

    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        if self.shards.is_empty() || self.len >= self.shards.len() * MAX_SHARD {
            self.grow();
        }
        let hash = hash_of(&key);
        let old = insert_into(self.shard_mut(hash), hash, key, value);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub(crate) fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let hash = hash_of(key);
        // Not copied when the key is absent.
        self.find(hash, key)?;
        let found = self
            .shard_mut(hash)
            .find_entry(hash, |(stored, _)| stored.borrow() == key)
            .ok()?;
        let ((_, old), _) = found.remove();
        self.len -= 1;
        Some(old)
    }

    /// Every entry, in no meaningful order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.shards
            .iter()
            .flat_map(|shard| shard.iter().map(|(key, value)| (key, value)))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(key, _)| key)
    }

    /// Rebuilds the map with twice the shards (one for an empty map).
    fn grow(&mut self) {
        let count = shard_count(self.len + 1).max(self.shards.len() * 2).max(1);
        let entries: Vec<(K, V)> = self
            .iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        *self = Self::with_shards(entries, count);
    }

    /// Each entry's hash is computed once, its shard found from it first, so every shard is
    /// made with room for exactly its entries (an even share left about half of them to grow,
    /// rehashing what they held). A key given twice keeps its last value.
    fn with_shards(entries: Vec<(K, V)>, count: usize) -> Self {
        let hashes: Vec<u64> = entries.iter().map(|(key, _)| hash_of(key)).collect();
        let mut sizes = vec![0usize; count];
        for hash in &hashes {
            sizes[shard_of(*hash, count)] += 1;
        }
        let mut shards: Vec<Shard<K, V>> =
            sizes.into_iter().map(HashTable::with_capacity).collect();
        let mut len = 0;
        for ((key, value), hash) in entries.into_iter().zip(hashes) {
            if insert_into(&mut shards[shard_of(hash, count)], hash, key, value).is_none() {
                len += 1;
            }
        }
        ShardedMap {
            shards: Arc::new(shards.into_iter().map(Arc::new).collect()),
            len,
        }
    }
}

/// Inserts `key` (of `hash`) into `shard`, giving back the value it replaces.
fn insert_into<K: Hash + Eq, V>(shard: &mut Shard<K, V>, hash: u64, key: K, value: V) -> Option<V> {
    match shard.find_mut(hash, |(stored, _)| *stored == key) {
        Some((_, stored)) => Some(std::mem::replace(stored, value)),
        None => {
            shard.insert_unique(hash, (key, value), rehash);
            None
        }
    }
}

impl<K: Hash + Eq + Clone, V: Clone> FromIterator<(K, V)> for ShardedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let entries: Vec<(K, V)> = entries.into_iter().collect();
        if entries.is_empty() {
            return Self::default();
        }
        let count = shard_count(entries.len());
        Self::with_shards(entries, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_copy_only_the_shards_they_touch_and_snapshots_keep_their_entries() {
        let mut map: ShardedMap<String, u32> = (0..10_000).map(|n| (n.to_string(), n)).collect();
        assert_eq!(map.len(), 10_000);
        assert_eq!(map.shards.len(), 128);
        let snapshot = map.clone();
        assert_eq!(map.insert("5".into(), 50), Some(5));
        assert_eq!(map.remove("6"), Some(6));
        assert_eq!(map.remove("absent"), None);
        assert_eq!(map.insert("new".into(), 1), None);
        // The snapshot still sees its own entries.
        assert_eq!(snapshot.get("5"), Some(&5));
        assert_eq!(snapshot.get("6"), Some(&6));
        assert_eq!(snapshot.get("new"), None);
        assert_eq!(snapshot.len(), 10_000);
        assert_eq!(map.get("5"), Some(&50));
        assert!(!map.contains_key("6"));
        assert_eq!(map.get("new"), Some(&1));
        assert_eq!(map.len(), 10_000);
        // Three writes copied at most three shards; the rest are shared.
        let shared = (map.shards.iter().zip(snapshot.shards.iter()))
            .filter(|(left, right)| Arc::ptr_eq(left, right))
            .count();
        assert!(shared >= 125, "{shared} of 128 shards shared");
    }

    #[test]
    fn a_map_grows_by_inserts_and_keeps_every_entry() {
        let mut map: ShardedMap<u64, u64> = ShardedMap::default();
        assert_eq!(map.len(), 0);
        assert_eq!(map.get(&1), None);
        for n in 0..5_000 {
            assert_eq!(map.insert(n, n * 2), None);
        }
        for n in (0..5_000).step_by(2) {
            assert_eq!(map.remove(&n), Some(n * 2));
        }
        assert_eq!(map.len(), 2_500);
        assert!(map.shards.len().is_power_of_two());
        assert!(map.len() <= map.shards.len() * MAX_SHARD);
        let mut keys: Vec<u64> = map.keys().copied().collect();
        keys.sort();
        assert_eq!(keys, (1..5_000).step_by(2).collect::<Vec<_>>());
        assert!((0..5_000).all(|n| map.get(&n) == (n % 2 == 1).then_some(&(n * 2))));
    }
}
