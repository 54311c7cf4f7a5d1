//! [`Name`]: an interned string, eight bytes, for the names a summary and the graph hold by
//! the million (a definition's, a reference's and its receiver's, a binding's and its type's,
//! an import's module). Each distinct text is stored once for the life of the process
//! (`ustr`'s global table, never freed: the distinct names of a workspace and of what was
//! typed in it), so a name costs a pointer where a `SmolStr` cost 24 bytes, and copying,
//! comparing and hashing a name never touches its text's allocation count.
//!
//! Equality is the pointer's (interning makes it the text's); hashing, ordering, `Borrow<str>`,
//! display and serialisation are the text's, so a map keyed by names is looked up with a
//! `&str` and a cache written with `SmolStr`s reads the same.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ustr::Ustr;

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name(Ustr);

impl Name {
    pub fn new(text: impl AsRef<str>) -> Name {
        Name(Ustr::from(text.as_ref()))
    }

    pub fn as_str(&self) -> &'static str {
        self.0.as_str()
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
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

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
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
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_its_text_for_maps_order_and_serialisation() {
        let name = Name::new("parse_args");
        assert_eq!(std::mem::size_of::<Option<Name>>(), 8);
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
}
