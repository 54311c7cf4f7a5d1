//! [`Name`]: an interned string, four bytes, for the names a summary and the graph hold by
//! the million (a definition's, a reference's and its receiver's, a binding's and its type's,
//! an import's module, every entity id and file path). Each distinct text is stored once for
//! the life of the process (`name/table.rs`, never freed: the distinct names of a workspace
//! and of what was typed in it; why, and what it costs, below), so a name costs a number where a `SmolStr` cost 24 bytes and
//! a pointer 8, and copying and comparing names never touches their texts.
//!
//! Equality is the number's (interning makes it the text's); hashing, ordering, `Borrow<str>`,
//! display and serialisation are the text's, so a map keyed by names is looked up with a
//! `&str` and a cache written with `SmolStr`s reads the same.
//!
//! Why texts are never freed. A name is a bare number, `Copy`, with no count of its holders:
//! the graph's snapshots, the writer's indices, the analysis caches, the cache codec's tables
//! and the protocol sessions all keep copies, and its text is lent out as `&'static str`, which
//! callers keep too (a walk's packages, `graph::resolve::Reachable`). Reclaiming a text would
//! need every live name enumerated from every holder: one holder missed, and its number, handed
//! out again, names another text (a lookup answers wrongly instead of missing), and a kept
//! `&'static str` points into freed memory. A wrong reclamation is far worse than growth, so
//! the table only grows, and by little: an edit interns only the texts of its new summary that
//! no name held before (an identifier where extraction sees a definition, a reference, a
//! binding or an import; a definition's new entity id, `path::name`). A word being typed is
//! seldom one of those before it is whole; a name deleted a character at a time makes one name
//! and one id of each shorter spelling.
//!
//! Measured by `cargo bench --bench interner`: 20,000 keystrokes typed one at a time into an
//! open document through the editor's edit path (`World::edit_buffer`): new functions with
//! random names, calls typed into them, and renames. The table grew by 0.24 names and 10.2
//! bytes a keystroke (texts, slots and index), so an eight-hour session of typing at five
//! keystrokes a second without a pause adds 1.5 MB, where the graph of the benchmark corpus
//! (1.8 M lines) peaks at 157 MB. A new process starts from the workspace's names alone.

mod table;

pub use table::{footprint, texts};

use std::borrow::Borrow;
use std::cell::RefCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name(std::num::NonZeroU32);

impl Name {
    pub fn new(text: impl AsRef<str>) -> Name {
        Name(table::intern(text.as_ref()))
    }

    pub fn as_str(&self) -> &'static str {
        table::text(self.0)
    }

    /// The name of this text if it was ever interned, without interning it: a text no name
    /// holds is no key of any map of names.
    pub fn existing(text: &str) -> Option<Name> {
        table::existing(text).map(Name)
    }

    /// The name's number: one per distinct text for the process's life, so names can be
    /// ordered by it (an order that means nothing beyond equality).
    pub fn addr(&self) -> usize {
        self.0.get() as usize
    }
}

impl Default for Name {
    /// The empty name, interned once (a summary's default fields ask for it often).
    fn default() -> Name {
        static EMPTY: std::sync::OnceLock<Name> = std::sync::OnceLock::new();
        *EMPTY.get_or_init(|| Name::new(""))
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// A name as a key hashed by its number, reading no text: for the maps and sets that are only
/// ever looked up by names, never by a `&str` (a walk's visited entities). Equal when the names
/// are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ByNumber(pub Name);

impl Hash for ByNumber {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u32(self.0.0.get());
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Name {
        Name::new(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::new(text)
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.as_str().to_owned()
    }
}

impl fmt::Display for Name {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), formatter)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), formatter)
    }
}

/// How the current thread writes and reads names, for the on-disk cache (`world/cache.rs`):
/// as text (no codec: the default, and every protocol's), or as indices into one table of the
/// cache's distinct names, so that a warm start interns each distinct text once instead of
/// every occurrence (1.7 M names, 330 k distinct, on the benchmark corpus).
pub enum NameCodec {
    /// Serialising records only to learn which names they hold.
    Collect(FxHashSet<Name>),
    /// Writing each name as its index in the table.
    Encode(Arc<FxHashMap<Name, u32>>),
    /// Reading each name as an index into the table.
    Decode(Arc<[Name]>),
}

thread_local! {
    static CODEC: RefCell<Option<NameCodec>> = const { RefCell::new(None) };
}

/// Runs `work` with `codec` as this thread's way of (de)serialising names, and gives the codec
/// back (a `Collect` holds what it collected). The thread's previous codec is restored, also
/// when `work` panics.
pub fn with_codec<T>(codec: NameCodec, work: impl FnOnce() -> T) -> (T, NameCodec) {
    struct Restore(Option<NameCodec>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CODEC.with_borrow_mut(|codec| *codec = previous);
        }
    }
    let restore = Restore(CODEC.with_borrow_mut(|current| current.replace(codec)));
    let result = work();
    let codec = CODEC
        .with_borrow_mut(|current| current.take())
        .expect("the codec set above");
    drop(restore);
    (result, codec)
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let index = CODEC.with_borrow_mut(|codec| match codec {
            Some(NameCodec::Collect(names)) => {
                names.insert(*self);
                Ok(None)
            }
            Some(NameCodec::Encode(table)) => table.get(self).copied().map(Some).ok_or(()),
            _ => Ok(None),
        });
        match index {
            Ok(Some(index)) => serializer.serialize_u32(index),
            Ok(None) => serializer.serialize_str(self.as_str()),
            Err(()) => Err(serde::ser::Error::custom(format!(
                "the name {self:?} is not in the table"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Name;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Name, E> {
                Ok(Name::new(text))
            }
        }
        if CODEC.with_borrow(|codec| matches!(codec, Some(NameCodec::Decode(_)))) {
            let index = u32::deserialize(deserializer)?;
            return CODEC
                .with_borrow(|codec| match codec {
                    Some(NameCodec::Decode(table)) => table.get(index as usize).copied(),
                    _ => None,
                })
                .ok_or_else(|| serde::de::Error::custom(format!("no name {index} in the table")));
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_its_text_for_maps_order_and_serialisation() {
        let name = Name::new("parse_args");
        assert_eq!(std::mem::size_of::<Option<Name>>(), 4);
        assert_eq!(name, Name::from(String::from("parse_args")));
        assert_eq!(name, "parse_args");
        let mut map = rustc_hash::FxHashMap::default();
        map.insert(name, 1);
        assert_eq!(map.get("parse_args"), Some(&1));
        let mut names = vec![Name::new("b"), Name::new("a"), Name::new("c")];
        names.sort();
        assert_eq!(names, ["a", "b", "c"].map(Name::new));
        let json = serde_json::to_string(&name).unwrap();
        assert_eq!(json, "\"parse_args\"");
        assert_eq!(serde_json::from_str::<Name>(&json).unwrap(), name);
        // The same bytes as the text (the cache's records).
        assert_eq!(
            postcard::to_allocvec(&name).unwrap(),
            postcard::to_allocvec("parse_args").unwrap()
        );
    }

    #[test]
    fn threads_interning_the_same_texts_get_the_same_names() {
        // Texts of every length around the chunk's, the long ones stored alone.
        let texts: Vec<String> = (0..2000)
            .map(|index| format!("interned-{index}-{}", "x".repeat(index * 7 % 6000)))
            .collect();
        let names: Vec<Vec<Name>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| texts.iter().map(Name::new).collect::<Vec<_>>()))
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().unwrap())
                .collect()
        });
        for other in &names[1..] {
            assert_eq!(*other, names[0]);
        }
        for (text, name) in texts.iter().zip(&names[0]) {
            assert_eq!(name.as_str(), text);
            assert_eq!(Name::existing(text), Some(*name));
        }
        assert_eq!(Name::existing("never-interned-anywhere-\u{0}"), None);
        assert_eq!(Name::new("").as_str(), "");
        assert_eq!(Name::new("名前😀").as_str(), "名前😀");
    }

    #[test]
    fn the_cache_codec_writes_indices_into_one_table_and_only_inside_its_scope() {
        let names = [Name::new("alpha"), Name::new("beta")];
        let record = vec![names[1], names[0], names[1]];
        let (encoded, collected) = with_codec(NameCodec::Collect(FxHashSet::default()), || {
            postcard::to_allocvec(&record).unwrap()
        });
        let NameCodec::Collect(collected) = collected else {
            panic!("the codec given back is the one set");
        };
        assert_eq!(collected, names.into_iter().collect());
        drop(encoded);
        let table: Arc<FxHashMap<Name, u32>> =
            Arc::new([(names[0], 0), (names[1], 1)].into_iter().collect());
        let (encoded, _) = with_codec(NameCodec::Encode(table), || {
            postcard::to_allocvec(&record).unwrap()
        });
        // A length, then one varint index a name.
        assert_eq!(encoded, [3, 1, 0, 1]);
        let (decoded, _) = with_codec(NameCodec::Decode(names.into()), || {
            postcard::from_bytes::<Vec<Name>>(&encoded).unwrap()
        });
        assert_eq!(decoded, record);
        // An index past the table is an error, not a panic.
        let (past, _) = with_codec(NameCodec::Decode(names.into()), || {
            postcard::from_bytes::<Vec<Name>>(&[1, 7])
        });
        assert!(past.is_err());
        // Outside the scope, names are text again.
        assert_eq!(
            serde_json::to_string(&record).unwrap(),
            r#"["beta","alpha","beta"]"#
        );
    }
}
