//! Ruby, Lua and Bash: `require`/`source` of a file, relative to the requiring file (Ruby,
//! Bash) or by a dotted module name from the search path (Lua); a plain `require` makes
//! everything the file defines visible.

use codegraph_index::{FileSummary, Import};
use codegraph_model::Name;

use super::{ImportForm, Semantics};
use crate::aliases::ModuleAliases;
use crate::modules::{component_suffixes, directory, join, normalize_path, strip_extension};

/// `dotted`: modules are named with dots from the search path (Lua's `require "a.b"`), not
/// by file paths.
pub(super) struct Requires {
    pub(super) dotted: bool,
}

impl Semantics for Requires {
    fn import_form(&self) -> ImportForm {
        ImportForm::Requires
    }

    fn module_keys(&self, path: &str, _summary: &FileSummary) -> Vec<Name> {
        let without = strip_extension(path);
        let module = without.strip_suffix("/init").unwrap_or(without);
        component_suffixes(module).map(Name::new).collect()
    }

    fn import_keys(
        &self,
        _aliases: &ModuleAliases,
        path: &str,
        _summary: &FileSummary,
        import: &Import,
    ) -> Vec<Name> {
        let raw = import.path.as_str();
        let cleaned = if self.dotted {
            raw.replace('.', "/")
        } else {
            literal_tail(raw)
        };
        let cleaned = strip_extension(&cleaned);
        let mut keys = Vec::new();
        if !self.dotted
            && let Some(target) = join(directory(path), cleaned)
        {
            keys.push(Name::new(target));
        }
        if let Some(target) = normalize_path(cleaned) {
            keys.push(Name::new(target));
        }
        keys
    }
}

/// Bash: `$(dirname "$0")/lib/x.sh`, `${DIR}/x.sh`, `$LIB/x.sh` → the literal tail after the
/// last segment that expands a variable.
fn literal_tail(raw: &str) -> String {
    let tail = raw.rsplit([')', '}']).next().unwrap_or(raw);
    let segments: Vec<&str> = tail.split('/').collect();
    let literal_from = segments
        .iter()
        .rposition(|segment| segment.contains('$'))
        .map_or(0, |index| index + 1);
    segments[literal_from..]
        .join("/")
        .trim_start_matches('/')
        .to_string()
}
