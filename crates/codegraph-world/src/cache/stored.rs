//! The cache's records as they are encoded: entity ids as positions ([`StoredId`]), made from
//! the graph's files when the cache is saved ([`compact`]) and turned back into ids when it is
//! loaded ([`expand`]).

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{CachedFile, SavedFile, Unread};
use codegraph_graph::aliases::ModuleAliases;
use codegraph_graph::{
    AmbiguousRef, Edge, EntityId, ExternalRef, FilePath, Resolved, Site, assign_ids,
};
use codegraph_index::FileSummary;
use codegraph_model::{Name, RelationKind, Resolution, Span};

/// On disk, entity ids in resolutions are stored as (file position, definition index) pairs:
/// ids are long strings repeated in every edge, and are a pure function of the file's path and
/// summary, so they are rebuilt on load.
#[derive(Debug, Deserialize)]
pub(super) struct StoredFile {
    path: String,
    hash: [u8; 32],
    summary: FileSummary,
    resolved: Option<StoredResolved>,
    unread: Option<Unread>,
}

/// [`StoredFile`] as written: the same encoding, borrowing the summary.
#[derive(Debug, Serialize)]
pub(super) struct StoredFileRef<'a> {
    path: &'a str,
    hash: [u8; 32],
    summary: &'a FileSummary,
    resolved: Option<StoredResolved>,
    unread: Option<Unread>,
}

/// (file position in the cache, definition index or `MODULE` for the file itself).
pub(super) type StoredId = (u32, u32);
pub(super) const MODULE: u32 = u32::MAX;

/// (the reference's index in the summary, module)
type StoredExternal = (u32, Option<Name>);

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredResolved {
    edges: Vec<(StoredId, StoredId, RelationKind, Resolution, Site)>,
    ambiguous: Vec<StoredAmbiguous>,
    external: Vec<StoredExternal>,
    extra_names: Vec<Name>,
    extra_modules: Vec<Name>,
    /// The files the imports name, by position in the cache.
    import_targets: Vec<u32>,
    reachable: u64,
    guessed: Vec<Name>,
    guessed_by: Vec<(u32, Name)>,
}

/// What precedes the files in the body. The body is this, then each file as its own postcard
/// record behind a four-byte little-endian length, so that the files decode in parallel.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct CacheMeta<'a> {
    pub(super) crate_version: String,
    /// The module aliases the resolutions were computed with.
    pub(super) aliases: ModuleAliases,
    pub(super) cpp_headers: bool,
    pub(super) files: u32,
    /// Every distinct name the file records hold, which write each name as its index here
    /// (`model::NameCodec`): a load interns each text once. Borrowed from the cache's bytes:
    /// owned, the benchmark corpus's 330 k names would be 26 MB of strings made only to be
    /// interned.
    #[serde(borrow)]
    pub(super) names: Vec<&'a str>,
}

/// [`CacheMeta`] as a save writes it, the same bytes: the names as they are (a name is written
/// as its text), nothing copied.
#[derive(Serialize)]
pub(super) struct SavedMeta<'a> {
    pub(super) crate_version: &'a str,
    pub(super) aliases: &'a ModuleAliases,
    pub(super) cpp_headers: bool,
    pub(super) files: u32,
    pub(super) names: &'a [Name],
}

/// Where each entity of the files being saved is: its [`StoredId`].
pub(super) fn stored_positions(files: &[SavedFile<'_>]) -> FxHashMap<EntityId, StoredId> {
    let mut positions: FxHashMap<EntityId, StoredId> = FxHashMap::default();
    for (position, file) in files.iter().enumerate() {
        positions.insert(EntityId::from(file.path), (position as u32, MODULE));
        for (index, id) in file.ids.iter().enumerate() {
            positions.insert(*id, (position as u32, index as u32));
        }
    }
    positions
}

/// One file as written: its resolution's ids as [`StoredId`]s. Made when the file is
/// encoded, and dropped once it is, so that the whole cache's compact form is never in memory.
pub(super) fn compact<'a>(
    file: &SavedFile<'a>,
    positions: &FxHashMap<EntityId, StoredId>,
) -> StoredFileRef<'a> {
    let stored_id = |id: &EntityId| positions.get(id).copied();
    // A resolution naming an entity outside the cached files is dropped whole; the
    // warm start then resolves again.
    // A resolution with references left aside as bounded is not kept: the warm start
    // resolves that file again and says so again.
    let resolved = file
        .resolved
        .filter(|resolved| resolved.bounded.is_empty() && resolved.failure.is_none())
        .and_then(|resolved| {
            let edges = resolved
                .edges
                .iter()
                .map(|edge| {
                    Some((
                        stored_id(&edge.from)?,
                        stored_id(&edge.to)?,
                        edge.kind,
                        edge.resolution,
                        edge.site,
                    ))
                })
                .collect::<Option<Vec<_>>>()?;
            let ambiguous = resolved
                .ambiguous
                .iter()
                .map(|item| {
                    let candidates = item
                        .candidates
                        .iter()
                        .map(stored_id)
                        .collect::<Option<Vec<_>>>()?;
                    Some((stored_id(&item.from)?, item.name, item.site, candidates))
                })
                .collect::<Option<Vec<_>>>()?;
            let external = resolved
                .external
                .iter()
                .map(|item| (item.reference, item.module))
                .collect();
            let import_targets = resolved
                .import_targets
                .iter()
                .map(|path| stored_id(path).map(|(position, _)| position))
                .collect::<Option<Vec<_>>>()?;
            Some(StoredResolved {
                import_targets,
                edges,
                ambiguous,
                external,
                extra_names: resolved.extra_names.clone(),
                extra_modules: resolved.extra_modules.clone(),
                reachable: resolved.reachable,
                guessed: resolved.guessed.clone(),
                guessed_by: resolved.guessed_by.clone(),
            })
        });
    StoredFileRef {
        path: file.path,
        hash: file.hash,
        summary: file.summary,
        resolved,
        unread: file.unread,
    }
}

/// Each cached file's entity ids (`assign_ids`), by position in the cache.
type FileIds = [(FilePath, Arc<[EntityId]>)];

pub(super) fn expand(files: Vec<StoredFile>) -> Result<Vec<CachedFile>, String> {
    let ids: Vec<(FilePath, Arc<[EntityId]>)> = files
        .par_iter()
        .map(|file| {
            (
                FilePath::from(file.path.as_str()),
                assign_ids(&file.path, &file.summary).into(),
            )
        })
        .collect();
    let id_of = |stored: StoredId| entity_of(&ids, stored);
    files
        .into_par_iter()
        .zip(ids.par_iter())
        .map(|(file, (path, file_ids))| {
            let resolved = match file.resolved {
                None => None,
                Some(stored) => Some(expand_resolved(stored, &file.summary, &id_of)?),
            };
            Ok(CachedFile {
                path: *path,
                hash: file.hash,
                summary: Arc::new(file.summary),
                ids: file_ids.clone(),
                resolved,
                unread: file.unread,
            })
        })
        .collect()
}

/// The entity a [`StoredId`] names, or why there is none.
fn entity_of(ids: &FileIds, (position, index): StoredId) -> Result<EntityId, String> {
    let (module, defs) = ids
        .get(position as usize)
        .ok_or("an edge names a file that is not cached")?;
    if index == MODULE {
        return Ok(*module);
    }
    defs.get(index as usize)
        .cloned()
        .ok_or_else(|| "an edge names a definition that is not cached".to_string())
}

/// A file's stored resolution with its ids back (`summary` is the file's, whose references
/// the external ones point into).
fn expand_resolved(
    stored: StoredResolved,
    summary: &FileSummary,
    id_of: &(impl Fn(StoredId) -> Result<EntityId, String> + Sync),
) -> Result<Resolved, String> {
    Ok(Resolved {
        edges: stored
            .edges
            .into_iter()
            .map(|(from, to, kind, resolution, site)| {
                Ok(Edge {
                    from: id_of(from)?,
                    to: id_of(to)?,
                    kind,
                    resolution,
                    site,
                })
            })
            .collect::<Result<_, String>>()?,
        ambiguous: expand_ambiguous(stored.ambiguous, id_of)?,
        external: stored
            .external
            .into_iter()
            .map(|(reference, module)| {
                if reference as usize >= summary.refs.len() {
                    return Err(format!("reference {reference} out of range"));
                }
                Ok(ExternalRef { reference, module })
            })
            .collect::<Result<_, String>>()?,
        extra_names: stored.extra_names,
        extra_modules: stored.extra_modules,
        import_targets: stored
            .import_targets
            .into_iter()
            .map(|position| id_of((position, MODULE)))
            .collect::<Result<_, String>>()?,
        reachable: stored.reachable,
        guessed: stored.guessed,
        guessed_by: stored.guessed_by,
        bounded: Vec::new(),
        failure: None,
        order: Default::default(),
    })
}

type StoredAmbiguous = (StoredId, Name, Span, Vec<StoredId>);

fn expand_ambiguous(
    stored: Vec<StoredAmbiguous>,
    id_of: &impl Fn(StoredId) -> Result<EntityId, String>,
) -> Result<Vec<AmbiguousRef>, String> {
    stored
        .into_iter()
        .map(|(from, name, site, candidates)| {
            Ok(AmbiguousRef {
                from: id_of(from)?,
                name,
                site,
                candidates: candidates
                    .into_iter()
                    .map(id_of)
                    .collect::<Result<_, String>>()?,
            })
        })
        .collect()
}
