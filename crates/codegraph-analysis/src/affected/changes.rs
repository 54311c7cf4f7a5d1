//! The changed entities: a file's definitions at the base paired by id with the graph's now, and
//! each one's own text compared (its text without its nested definitions', whitespace left
//! out, so that a method edited changes the method, not its class, and a re-indented block
//! changes nothing).

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use serde::Serialize;

use codegraph_graph::{EntityId, FileNode, FilePath, Graph, assign_ids};
use codegraph_index::{FileSummary, Import};
use codegraph_lang::Language;
use codegraph_model::{EntityKind, Name, Span};

/// One changed file: its path and its text at the base revision (`None`: the file is new). Its
/// text now is the graph's; a file the graph no longer has was deleted.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub path: String,
    pub base: Option<String>,
}

/// How an entity changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Its header (name, parameters, return type, bases) as written.
    Signature,
    /// Its text inside, not its header.
    Body,
    Added,
    /// There at the base, gone now: its former callers are affected.
    Removed,
    /// The file's own code outside every definition: imports, constants, top-level statements.
    Module,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Signature => "signature",
            Change::Body => "body",
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Module => "module",
        }
    }
}

/// A changed entity.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    pub id: EntityId,
    pub file: FilePath,
    pub kind: EntityKind,
    pub name: Name,
    /// One-based, in the text now (at the base for a removed entity).
    pub line: u32,
    pub change: Change,
}

/// What the walk starts from.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub changed: Vec<Changed>,
    /// Names whose meaning changed in a file (an import added, removed or redirected): the
    /// definitions of that file that mention them are affected.
    pub renamed_in: Vec<(FilePath, Vec<Name>)>,
}

/// The changed entities of `files`.
pub(crate) fn changed(graph: &Graph, files: &[FileChange]) -> Found {
    let mut found = Found::default();
    for change in files {
        codegraph_model::cancel::checkpoint();
        let now = graph.file(&change.path);
        let Some(language) = now
            .map(|file| file.language)
            .or_else(|| Language::from_path(std::path::Path::new(&change.path)))
        else {
            continue;
        };
        let base = change
            .base
            .as_deref()
            .map(|text| Side::extract(&change.path, language, text));
        let now_side = now.and_then(|file| Side::of_node(file));
        let path = FilePath::from(change.path.as_str());
        compare(&mut found, path, base.as_ref(), now_side.as_ref(), now);
    }
    found.changed.sort_by(|left, right| {
        (left.file, left.line, left.id).cmp(&(right.file, right.line, right.id))
    });
    found
}

/// One side of a file's change: its summary, its definitions' ids and own-text hashes.
struct Side {
    summary: std::sync::Arc<FileSummary>,
    ids: Vec<EntityId>,
    /// Own-text hash per definition, then the module's.
    own: Vec<u64>,
    /// The module's own text without its imports.
    module_without_imports: u64,
}

impl Side {
    fn extract(path: &str, language: Language, text: &str) -> Side {
        let (summary, _) = codegraph_index::extract_text(language, text);
        let ids = assign_ids(path, &summary);
        Side::new(std::sync::Arc::new(summary), ids, text)
    }

    fn of_node(file: &FileNode) -> Option<Side> {
        let text = file.text()?;
        Some(Side::new(file.summary.clone(), file.ids.to_vec(), &text))
    }

    fn new(summary: std::sync::Arc<FileSummary>, ids: Vec<EntityId>, text: &str) -> Side {
        let count = summary.defs.len();
        let mut children: Vec<Vec<Span>> = vec![Vec::new(); count + 1];
        for def in &summary.defs {
            let slot = def.parent.map_or(count, |parent| parent as usize);
            if let Some(list) = children.get_mut(slot) {
                list.push(def.span);
            }
        }
        let whole = Span::new(0, text.len() as u32);
        let mut own: Vec<u64> = summary
            .defs
            .iter()
            .zip(&children)
            .map(|(def, inner)| own_hash(text, def.span, inner))
            .collect();
        own.push(own_hash(text, whole, &children[count]));
        let mut outside = children[count].clone();
        outside.extend(summary.imports.iter().map(|import| import.span));
        let module_without_imports = own_hash(text, whole, &outside);
        Side {
            summary,
            ids,
            own,
            module_without_imports,
        }
    }

    fn index_of(&self) -> FxHashMap<EntityId, usize> {
        self.ids
            .iter()
            .enumerate()
            .map(|(index, id)| (*id, index))
            .collect()
    }

    fn line(&self, index: usize) -> u32 {
        self.summary
            .locate(self.summary.defs[index].span)
            .start
            .line
            + 1
    }
}

/// The hash of `span`'s text without the `holes` inside it, whitespace left out.
fn own_hash(text: &str, span: Span, holes: &[Span]) -> u64 {
    let mut holes: Vec<Span> = holes
        .iter()
        .filter(|hole| hole.start_byte >= span.start_byte && hole.end_byte <= span.end_byte)
        .copied()
        .collect();
    holes.sort_by_key(|hole| hole.start_byte);
    let bytes = text.as_bytes();
    let mut hasher = FxHasher::default();
    let mut at = span.start_byte as usize;
    let end = (span.end_byte as usize).min(bytes.len());
    let mut feed = |from: usize, to: usize| {
        for byte in &bytes[from.min(to)..to] {
            if !byte.is_ascii_whitespace() {
                byte.hash(&mut hasher);
            }
        }
    };
    for hole in holes {
        let start = (hole.start_byte as usize).min(end);
        if start > at {
            feed(at, start);
        }
        at = at.max(hole.end_byte as usize);
    }
    if end > at {
        feed(at, end);
    }
    hasher.finish()
}

fn compare(
    found: &mut Found,
    path: FilePath,
    base: Option<&Side>,
    now: Option<&Side>,
    node: Option<&std::sync::Arc<FileNode>>,
) {
    let module_id = node
        .map(|file| file.module_id)
        .unwrap_or_else(|| EntityId::from(path.as_str()));
    let module = |change: Change| Changed {
        id: module_id,
        file: path,
        kind: EntityKind::Module,
        name: Name::new(path.rsplit('/').next().unwrap_or(&path)),
        line: 1,
        change,
    };
    match (base, now) {
        (None, None) => {}
        (None, Some(now)) => {
            found.changed.push(module(Change::Added));
            for index in 0..now.ids.len() {
                found.changed.push(entity(path, now, index, Change::Added));
            }
        }
        (Some(base), None) => {
            found.changed.push(module(Change::Removed));
            for index in 0..base.ids.len() {
                found
                    .changed
                    .push(entity(path, base, index, Change::Removed));
            }
        }
        (Some(base), Some(now)) => {
            let at_base = base.index_of();
            let at_now = now.index_of();
            for (index, id) in now.ids.iter().enumerate() {
                let change = match at_base.get(id) {
                    None => Some(Change::Added),
                    Some(&old) if base.own[old] != now.own[index] => {
                        let (before, after) = (&base.summary.defs[old], &now.summary.defs[index]);
                        Some(if before.signature() != after.signature() {
                            Change::Signature
                        } else {
                            Change::Body
                        })
                    }
                    Some(_) => None,
                };
                if let Some(change) = change {
                    found.changed.push(entity(path, now, index, change));
                }
            }
            for (index, id) in base.ids.iter().enumerate() {
                if !at_now.contains_key(id) {
                    found
                        .changed
                        .push(entity(path, base, index, Change::Removed));
                }
            }
            if base.module_without_imports != now.module_without_imports {
                found.changed.push(module(Change::Module));
            }
            let names = changed_imports(&base.summary.imports, &now.summary.imports);
            if !names.is_empty() {
                found.renamed_in.push((path, names));
            }
        }
    }
}

fn entity(path: FilePath, side: &Side, index: usize, change: Change) -> Changed {
    let def = &side.summary.defs[index];
    Changed {
        id: side.ids[index],
        file: path,
        kind: def.kind,
        name: def.name,
        line: side.line(index),
        change,
    }
}

/// The local names an import binds differently at the base and now.
fn changed_imports(base: &[Import], now: &[Import]) -> Vec<Name> {
    let key = |import: &Import| (import.path, import.name, import.alias, import.wildcard);
    let before: FxHashSet<_> = base.iter().map(key).collect();
    let after: FxHashSet<_> = now.iter().map(key).collect();
    let mut names: Vec<Name> = base
        .iter()
        .filter(|import| !after.contains(&key(import)))
        .chain(now.iter().filter(|import| !before.contains(&key(import))))
        .filter_map(local_name)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The name an import binds in its file: its alias, the imported name, or the module path's
/// last segment.
fn local_name(import: &Import) -> Option<Name> {
    if import.wildcard {
        return None;
    }
    import.alias.or(import.name).or_else(|| {
        let last = import
            .path
            .rsplit(['.', '/', ':', '\\'])
            .find(|segment| !segment.is_empty())?;
        Some(Name::new(
            last.trim_matches(|c: char| c == '"' || c == '\''),
        ))
    })
}
