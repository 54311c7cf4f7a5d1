//! Where a name is mentioned in a file, and which entity holds each mention: how the walk
//! follows what no edge records (a function passed as a value, `handlers = {"x": f}`,
//! `register(self.on_close)`, a name whose import changed). Each file's text is read once per
//! answer.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use codegraph_graph::{EntityId, FilePath, Graph};

/// Which mentions count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mention {
    /// Every mention outside the file's imports.
    Any,
    /// Only a name used as a value: not called (not followed by `(`), not in an import.
    Value,
}

pub(crate) struct Mentions<'g> {
    graph: &'g Graph,
    texts: FxHashMap<FilePath, Option<Arc<str>>>,
}

impl<'g> Mentions<'g> {
    pub fn new(graph: &'g Graph) -> Mentions<'g> {
        Mentions {
            graph,
            texts: FxHashMap::default(),
        }
    }

    /// The entities of `path` that mention `name` as a whole identifier, each once, in
    /// document order (the module for a mention outside every definition); a mention inside
    /// `except` (the entity's own definition) is not counted.
    pub fn holders(
        &mut self,
        path: FilePath,
        name: &str,
        which: Mention,
        except: Option<&EntityId>,
    ) -> Vec<EntityId> {
        let graph = self.graph;
        let Some(file) = graph.file(&path) else {
            return Vec::new();
        };
        let Some(text) = self
            .texts
            .entry(path)
            .or_insert_with(|| file.text())
            .clone()
        else {
            return Vec::new();
        };
        if name.is_empty() {
            return Vec::new();
        }
        let imports: Vec<(u32, u32)> = file
            .summary
            .imports
            .iter()
            .map(|import| (import.span.start_byte, import.span.end_byte))
            .collect();
        let mut holders: Vec<EntityId> = Vec::new();
        for (at, _) in text.match_indices(name) {
            let end = at + name.len();
            if !whole_identifier(&text, at, end) {
                continue;
            }
            let byte = at as u32;
            if imports
                .iter()
                .any(|(start, end)| *start <= byte && byte < *end)
            {
                continue;
            }
            if which == Mention::Value && called(&text, end) {
                continue;
            }
            let holder = *file.scope_entity(file.summary.innermost_def_at(byte));
            if Some(&holder) == except || holders.contains(&holder) {
                continue;
            }
            // A mention that is the definition's own name is not a use.
            if let Some(index) = file.summary.innermost_def_at(byte)
                && file.summary.defs[index as usize].name_span.start_byte == byte
            {
                continue;
            }
            holders.push(holder);
        }
        holders
    }
}

fn identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

fn whole_identifier(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let before = start.checked_sub(1).map(|at| bytes[at]);
    let after = bytes.get(end).copied();
    !before.is_some_and(identifier_byte) && !after.is_some_and(identifier_byte)
}

/// The name ending at `end` is called: the next character but spaces is `(`.
fn called(text: &str, end: usize) -> bool {
    text[end..]
        .bytes()
        .find(|byte| *byte != b' ' && *byte != b'\t')
        .is_some_and(|byte| byte == b'(')
}
