//! Java, Kotlin, Scala, C# and PHP: files declare packages or namespaces; an import names a
//! type or a whole package, and the files of one package see each other.

use codegraph_index::FileSummary;
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::modules::{directory, normalize_package};

pub(super) struct Packages;

impl Semantics for Packages {
    fn import_form(&self) -> ImportForm {
        ImportForm::Packages
    }

    fn module_keys(&self, _path: &str, _summary: &FileSummary) -> Vec<Name> {
        Vec::new()
    }

    fn import_binding(&self, path: &str) -> Option<Name> {
        path.rsplit(['.', '\\']).next().map(Name::new)
    }

    fn package_key(&self, path: &str, summary: &FileSummary) -> Option<Name> {
        Some(match &summary.package {
            Some(package) => normalize_package(package),
            None => Name::new(directory(path).replace('/', ".")),
        })
    }
}
