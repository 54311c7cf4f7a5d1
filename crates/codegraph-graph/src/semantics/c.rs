//! C and C++: `#include` of a file, relative to the including file or found by suffix; the
//! platform files of a build (`arch/arm64/...`, `fd_win32.c`) are variants of each other.

use codegraph_index::{FileSummary, Import};
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::aliases::ModuleAliases;
use crate::modules::{component_suffixes, directory, join};
use crate::{EntityId, FileNode, Graph};

pub(super) struct C;

impl Semantics for C {
    fn import_form(&self) -> ImportForm {
        ImportForm::Includes
    }

    fn module_keys(&self, path: &str, _summary: &FileSummary) -> Vec<Name> {
        component_suffixes(path).map(Name::new).collect()
    }

    fn import_keys(
        &self,
        _aliases: &ModuleAliases,
        path: &str,
        _summary: &FileSummary,
        import: &Import,
    ) -> Vec<Name> {
        let raw = import.path.as_str();
        let mut keys: Vec<Name> = join(directory(path), raw)
            .map(Name::new)
            .into_iter()
            .collect();
        keys.push(Name::new(raw.trim_start_matches("./")));
        keys
    }

    /// The chosen platform's files win over the other platforms'.
    fn within_build(
        &self,
        graph: &Graph,
        _file: &FileNode,
        candidates: Vec<EntityId>,
    ) -> Vec<EntityId> {
        super::preferred(candidates, |id| super::defined_in_build(self, graph, id))
    }

    fn file_in_build(&self, file: &FileNode) -> bool {
        crate::c_file_in_build(file)
    }

    fn variant_tree(&self, path: &str) -> bool {
        codegraph_lang::c_build::is_variant(path)
    }
}
