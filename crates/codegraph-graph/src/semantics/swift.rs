//! Swift: every file of a module (a package's `Sources/<Module>` directory, or the whole
//! workspace) sees every other file; `import Module` names a whole module.

use codegraph_index::FileSummary;
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::modules::swift_module;

pub(super) struct Swift;

impl Semantics for Swift {
    fn import_form(&self) -> ImportForm {
        ImportForm::WholeModule
    }

    fn module_keys(&self, _path: &str, _summary: &FileSummary) -> Vec<Name> {
        Vec::new()
    }

    fn package_key(&self, path: &str, _summary: &FileSummary) -> Option<Name> {
        Some(Name::new(swift_module(path)))
    }
}
