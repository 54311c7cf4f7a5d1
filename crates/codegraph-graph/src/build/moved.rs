//! An edit that only moved text (most keystrokes in a comment, a string, whitespace, a literal):
//! the file's summary is the old one but for positions ([`same_but_positions`]), so its ids,
//! name entries, module keys, mentions and exports stay, and so does what its references
//! resolve to: the old resolution is moved to the new positions ([`relocated`]) instead of
//! being computed again.
//!
//! Why that is exact: a file's resolution is a function of its summary without positions, of
//! the rest of the graph, and of one position fact, which `match`-arm bindings' regions hold
//! each reference (`Resolver::binding_of`); [`relocated`] checks that fact (edges name their
//! sites by the summary's records, which moved with the text) and maps each ambiguous
//! reference's span to the new one, and gives up (the file is resolved again) when either does
//! not carry over.

use super::{FileContent, ModuleAliases, published_class};
use crate::{FileNode, Resolved};
use codegraph_index::{Binding, BindingKind, Def, FileSummary, Import, Inherit, Ref};
use codegraph_model::EntityKind;
use std::sync::Arc;

/// The node of a file whose new summary differs from `old`'s only in positions
/// ([`same_but_positions`]): it keeps `old`'s ids and import bindings (the same strings, shared).
pub(super) fn moved_node(
    old: &FileNode,
    content: FileContent,
    aliases: &ModuleAliases,
) -> FileNode {
    FileNode {
        path: old.path,
        language: content.language,
        ascii: content.text.is_ascii(),
        class: published_class(aliases, &old.path, content.language, content.class),
        text: content.text,
        hash: content.hash,
        summary: content.summary,
        ids: old.ids.clone(),
        module_id: old.module_id,
        import_bindings: old.import_bindings.clone(),
        // Until it is resolved again: the same imports name the same files.
        resolved: Arc::new(Resolved {
            import_targets: old.resolved.import_targets.clone(),
            ..Resolved::default()
        }),
    }
}

/// Whether two summaries of one file differ only in where things are (spans, line count,
/// syntax problems) and in documentation: then everything the indices and other files'
/// resolution read of the file (ids, name entries, module keys, mentions, exports) is the same.
pub(super) fn same_but_positions(old: &FileSummary, new: &FileSummary) -> bool {
    same_frame(old, new)
        && old.refs.len() == new.refs.len()
        && old.refs.iter().zip(&new.refs).all(|(old, new)| {
            let Ref {
                kind,
                name,
                receiver,
                span: _,
                scope,
                path,
            } = old;
            *kind == new.kind
                && *name == new.name
                && *receiver == new.receiver
                && *scope == new.scope
                && *path == new.path
        })
}

/// Whether two summaries of one file differ only in positions, documentation and references:
/// then the file's ids, name entries, module keys and exports are the same, and so is what its
/// resolution makes of everything but its references (`Resolver::resolve_changed`). The
/// patterns name every field, so a field added to a summary type must be placed here, on one
/// side or the other.
pub(super) fn same_frame(old: &FileSummary, new: &FileSummary) -> bool {
    frame_alike(old, new, DefinitionNames::Same)
}

/// The definitions an edit renamed, when it changed nothing else of the frame (definitions'
/// names and, through them, ids aside, the two summaries are [`same_frame`]): the indices of
/// the definitions whose id changed (a renamed function and whatever is nested in it), and
/// the new ids. `None` when no name changed, or when a renamed definition is something other
/// files' resolution reads besides its name and id: a type (its members' visibility and
/// lookups go by its name), a module (its module keys), the child of a base, or a JavaScript
/// object literal's function (found among its type's members by name). Then the file takes
/// the full path.
///
/// Why only the renamed ones matter: apart from its references, what a file's resolution reads
/// of its own definitions it reads by name (`Resolver::resolve_name`, which records the name),
/// so a rename changes the outcome of a reference outside the renamed definitions only if the
/// file mentions one of the names that changed, and then the writer widens the whole file in.
pub(super) fn renamed_definitions(
    old: &FileNode,
    new: &FileSummary,
) -> Option<(Vec<u32>, Vec<crate::EntityId>)> {
    if !frame_alike(&old.summary, new, DefinitionNames::MayDiffer) {
        return None;
    }
    let new_ids = crate::assign_ids(&old.path, new);
    if old.ids.len() != new_ids.len() {
        return None;
    }
    let object_members = crate::semantics::of(new.language).object_members();
    let mut renamed = Vec::new();
    for (index, (def, (old_id, new_id))) in new
        .defs
        .iter()
        .zip(old.ids.iter().zip(&new_ids))
        .enumerate()
    {
        if old_id == new_id && def.name == old.summary.defs[index].name {
            continue;
        }
        let index = index as u32;
        let reads_more = !matches!(def.kind, EntityKind::Function | EntityKind::Method)
            || (object_members && def.owner.is_some())
            || new
                .inherits
                .iter()
                .any(|inherit| inherit.child == Some(index));
        if reads_more {
            return None;
        }
        renamed.push(index);
    }
    (!renamed.is_empty()).then_some((renamed, new_ids))
}

/// Whether [`frame_alike`] compares the definitions' names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DefinitionNames {
    /// The names are part of the frame ([`same_frame`]).
    Same,
    /// The names may differ ([`renamed_definitions`]); a renamed definition's head (which
    /// holds its name) may differ with it.
    MayDiffer,
}

/// [`same_frame`], or with [`DefinitionNames::MayDiffer`] the same but for the definitions'
/// names.
fn frame_alike(old: &FileSummary, new: &FileSummary, names: DefinitionNames) -> bool {
    let FileSummary {
        language,
        package,
        defs,
        refs: _,
        imports,
        inherits,
        bindings,
        problems: _,
        line_count: _,
        lines: _,
        build_constraint,
        path_modules,
        failure,
    } = old;
    *language == new.language
        && *failure == new.failure
        && *package == new.package
        && *build_constraint == new.build_constraint
        && *path_modules == new.path_modules
        && pairwise(bindings, &new.bindings, same_binding)
        && pairwise(defs, &new.defs, |old, new| same_definition(old, new, names))
        && same_imports(imports, &new.imports)
        && pairwise(inherits, &new.inherits, same_inherit)
}

/// Whether a binding is the same in two frames.
fn same_binding(old: &Binding, new: &Binding) -> bool {
    // A pattern's region moves with the text; only the file's own resolution reads it.
    let Binding {
        name,
        type_name,
        scope,
        kind,
        region,
    } = old;
    // (Its region moves; whether it has one does not.)
    region.is_some() == new.region.is_some()
        && *name == new.name
        && *type_name == new.type_name
        && *scope == new.scope
        && *kind == new.kind
}

/// Whether a definition is the same in two frames, its name compared or not.
fn same_definition(old: &Def, new: &Def, names: DefinitionNames) -> bool {
    let Def {
        kind,
        name,
        parent,
        owner,
        span: _,
        name_span: _,
        // The signature is compared below; the doc does not matter.
        text: _,
        doc_at: _,
        returns,
        implements,
        disabled,
        arrow,
    } = old;
    let names_may_differ = names == DefinitionNames::MayDiffer;
    *kind == new.kind
        && *implements == new.implements
        && *arrow == new.arrow
        && (names_may_differ || *name == new.name)
        && *parent == new.parent
        && *owner == new.owner
        // (The head of a renamed definition holds its name; only a lookup of the name
        // reads it.)
        && (old.signature() == new.signature() || (names_may_differ && *name != new.name))
        && *returns == new.returns
        && *disabled == new.disabled
}

/// Whether an inheritance is the same in two frames, wherever it is.
fn same_inherit(old: &Inherit, new: &Inherit) -> bool {
    let Inherit {
        child,
        child_name,
        base,
        kind,
        span: _,
    } = old;
    *child == new.child && *child_name == new.child_name && *base == new.base && *kind == new.kind
}

/// The old resolution of a file whose summary went from `old` to `new`, two summaries that are
/// [`same_but_positions`]: the edges as they were (a site names a record of the summary, which
/// moved with the text), the ambiguous references at their new spans. `None` when a reference
/// is now in another `match` arm's region than before, or an ambiguous reference's span is not
/// one of the summary's (then the file is resolved again).
pub(super) fn relocated(
    old: &FileSummary,
    new: &FileSummary,
    resolved: &Resolved,
) -> Option<Resolved> {
    if !same_regions(old, new) {
        return None;
    }
    let moves = crate::resolve::moved_references(old, new)?;
    // The edges' sites are records of the summary, which moved with the text.
    let mut next = resolved.clone();
    for ambiguous in &mut next.ambiguous {
        ambiguous.site = *moves.get(&ambiguous.site)?;
    }
    Some(next)
}

/// Whether every reference is held by the same `match`-arm regions as before (and so is the
/// file's start, where a resolver stands before its first reference).
fn same_regions(old: &FileSummary, new: &FileSummary) -> bool {
    let mut regions: Vec<((u32, u32), (u32, u32))> = Vec::new();
    for (a, b) in old.bindings.iter().zip(&new.bindings) {
        match (a.region(), b.region()) {
            (None, None) => {}
            (Some(_), Some(_)) if a.kind == BindingKind::Alias => {}
            (Some(a), Some(b)) => regions.push((a, b)),
            _ => return false,
        }
    }
    if regions.is_empty() {
        return true;
    }
    // A pathological file (thousands of arms times thousands of references) is resolved again.
    if regions.len().saturating_mul(old.refs.len()) > 1 << 20 {
        return false;
    }
    let holds = |(start, end): (u32, u32), at: u32| start <= at && at < end;
    let starts = std::iter::once((0, 0))
        .chain(
            old.refs
                .iter()
                .zip(&new.refs)
                .map(|(a, b)| (a.span.start_byte, b.span.start_byte)),
        )
        .collect::<Vec<_>>();
    starts.iter().all(|&(a, b)| {
        regions
            .iter()
            .all(|&(old_region, new_region)| holds(old_region, a) == holds(new_region, b))
    })
}

/// Whether two summaries of one file give the same mentions (`resolve::mentions`): the same
/// references' names and receivers, imports, bases, binding types and owners, wherever they
/// are. Checked field by field where `resolve::mentioned_names` and `mentioned_modules` read.
pub(super) fn same_mention_sources(old: &FileSummary, new: &FileSummary) -> bool {
    old.language == new.language
        && old.package == new.package
        && old.path_modules == new.path_modules
        && same_imports(&old.imports, &new.imports)
        && pairwise(&old.refs, &new.refs, |old, new| {
            old.name == new.name && old.receiver == new.receiver
        })
        && pairwise(&old.inherits, &new.inherits, |old, new| {
            old.base == new.base && old.child_name == new.child_name
        })
        && pairwise(&old.bindings, &new.bindings, |old, new| {
            old.type_name == new.type_name
        })
        && pairwise(&old.defs, &new.defs, |old, new| old.owner == new.owner)
}

/// Whether two lists have the same length and `same` holds for each pair in order.
fn pairwise<T>(old: &[T], new: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    old.len() == new.len() && old.iter().zip(new).all(|(old, new)| same(old, new))
}

/// Whether two files' imports are the same but for where they are.
pub(super) fn same_imports(old: &[Import], new: &[Import]) -> bool {
    old.len() == new.len()
        && old.iter().zip(new).all(|(old, new)| {
            let Import {
                path,
                name,
                alias,
                wildcard,
                span: _,
                scope,
            } = old;
            *path == new.path
                && *name == new.name
                && *alias == new.alias
                && *wildcard == new.wildcard
                && *scope == new.scope
        })
}
