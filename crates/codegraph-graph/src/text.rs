//! Where a file's text is while the graph holds the file: resident (an open editor buffer, or a
//! text handed to the writer directly), or elsewhere, read again on demand through a
//! [`TextSource`] and checked against the hash the file was indexed from.
//!
//! Architecture invariant: the graph does not know what "elsewhere" is. `world` reads files
//! from disk and hands the graph a source that reads them again; a file whose bytes no longer
//! hash to what was indexed yields no text (its owner re-indexes it), so an answer never quotes
//! text the graph did not see.

use std::sync::Arc;

/// Reads again the text of a file the graph indexed earlier.
pub trait TextSource: Send + Sync {
    /// The text of `path` if its bytes still hash (BLAKE3) to `hash`; `None` when it changed,
    /// vanished or cannot be read.
    fn read(&self, path: &str, hash: &[u8; 32]) -> Option<Arc<str>>;
}

/// A file's text, or where to read it again.
#[derive(Clone)]
pub enum FileText {
    Resident(Arc<str>),
    Elsewhere {
        /// The text's length in bytes.
        len: u32,
        /// The text holds only ASCII (then byte columns are UTF-16 columns too).
        ascii: bool,
        source: Arc<dyn TextSource>,
    },
}

impl FileText {
    /// The text's length in bytes, without reading it.
    pub fn len(&self) -> usize {
        match self {
            FileText::Resident(text) => text.len(),
            FileText::Elsewhere { len, .. } => *len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn is_resident(&self) -> bool {
        matches!(self, FileText::Resident(_))
    }

    /// Whether the text holds only ASCII. Scans a resident text; callers keep the answer.
    pub fn is_ascii(&self) -> bool {
        match self {
            FileText::Resident(text) => text.is_ascii(),
            FileText::Elsewhere { ascii, .. } => *ascii,
        }
    }

    /// The same text held the same way (the same resident allocation, or both elsewhere), so
    /// that replacing one with the other changes nothing.
    pub fn same_as(&self, other: &FileText) -> bool {
        match (self, other) {
            (FileText::Resident(left), FileText::Resident(right)) => Arc::ptr_eq(left, right),
            (FileText::Elsewhere { len: left, .. }, FileText::Elsewhere { len: right, .. }) => {
                left == right
            }
            _ => false,
        }
    }

    /// The text: a resident one at once, else read through its source and checked against
    /// `hash`.
    pub fn get(&self, path: &str, hash: &[u8; 32]) -> Option<Arc<str>> {
        match self {
            FileText::Resident(text) => Some(text.clone()),
            FileText::Elsewhere { source, .. } => source.read(path, hash),
        }
    }
}

impl std::fmt::Debug for FileText {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileText::Resident(text) => write!(formatter, "Resident({} bytes)", text.len()),
            FileText::Elsewhere { len, .. } => write!(formatter, "Elsewhere({len} bytes)"),
        }
    }
}

impl From<Arc<str>> for FileText {
    fn from(text: Arc<str>) -> FileText {
        FileText::Resident(text)
    }
}

impl From<String> for FileText {
    fn from(text: String) -> FileText {
        FileText::Resident(text.into())
    }
}

impl From<&str> for FileText {
    fn from(text: &str) -> FileText {
        FileText::Resident(text.into())
    }
}
