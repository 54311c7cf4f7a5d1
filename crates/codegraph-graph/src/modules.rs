//! Module systems: which keys a file answers to, and which keys an import looks up.
//!
//! Both sides are plain strings, so one map (`Graph::modules`) serves every language:
//! a file is registered under its keys; an import is resolved by looking its keys up, in order.

use codegraph_model::Name;

use super::aliases::ModuleAliases;
use super::semantics;
use codegraph_index::{FileSummary, Import, PathModule};
use codegraph_lang::{Family, Language};

/// The language family: references never cross families (a Go call never lands in Python).
pub fn family(language: Language) -> Family {
    language.family()
}

pub(crate) fn strip_extension(path: &str) -> &str {
    match path.rfind('.') {
        Some(dot) if !path[dot..].contains('/') => &path[..dot],
        _ => path,
    }
}

/// The directory of a `/`-separated relative path, `""` for a file at the root.
pub fn directory(path: &str) -> &str {
    path.rfind('/').map_or("", |slash| &path[..slash])
}

/// Every suffix of a `/`-separated path made of whole components, longest first.
pub(crate) fn component_suffixes(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(
        path.match_indices('/')
            .map(move |(index, _)| &path[index + 1..]),
    )
}

/// Normalises `a/./b/../c` to `a/c`; `None` when it climbs above the root.
pub fn normalize_path(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

pub(crate) fn join(base: &str, relative: &str) -> Option<String> {
    if base.is_empty() {
        normalize_path(relative)
    } else {
        normalize_path(&format!("{base}/{relative}"))
    }
}

/// The key of a module of the crate whose directory is `crate_dir`: crates of one workspace
/// (or a vendored tree) never answer each other's `crate::` paths.
pub(crate) fn crate_key(crate_dir: &str, module: &str) -> Name {
    Name::new(format!("crate:{crate_dir}::{module}"))
}

/// The key every Rust file answers to by where it lies (`file:a/src/lexical` for
/// `a/src/lexical/mod.rs` or `a/src/lexical.rs`): how the files of a `#[path]` module and its
/// children are found.
pub(crate) fn rust_file_key(path: &str) -> Name {
    let without = strip_extension(path);
    let module = without.strip_suffix("/mod").unwrap_or(without);
    Name::new(format!("file:{module}"))
}

/// The key of the files that declare `#[path]` modules in a crate ([`rust_package`]: each
/// integration test is a crate of its own): every lookup of a module of that crate reads it
/// first.
pub(crate) fn rust_mounts_key(package: &str) -> Name {
    Name::new(format!("mounts:{package}"))
}

/// The crate whose `#[path]` modules a crate key of a file at `importer` reads: the importer's
/// own crate for its `crate::` keys, the library for the keys of the crate it tests.
pub(crate) fn rust_mounts_package<'p>(importer: &'p str, key_crate_dir: &'p str) -> &'p str {
    if rust_crate_parts(importer).0 == key_crate_dir {
        rust_package(importer)
    } else {
        key_crate_dir
    }
}

/// A Rust crate key's crate directory and module path (`crate:a/::lexical::parse`).
pub(crate) fn split_crate_key(key: &str) -> Option<(&str, &str)> {
    key.strip_prefix("crate:")?.split_once("::")
}

/// The file key that `wanted`, a module path of the crate of `declaring`, names through the
/// `#[path]` module `module` declared in `declaring`; `None` when `wanted` is neither that
/// module nor below it. As in rustc, the path is relative to the declaring file's directory
/// (inside inline modules, to their directories below it, below the file's own stem unless it
/// is a `mod.rs` or a crate root), and the named file is a `mod.rs` of its own: its children
/// are beside it.
pub(crate) fn path_module_key(declaring: &str, module: &PathModule, wanted: &str) -> Option<Name> {
    let own = rust_module_path(declaring);
    let full = if own.module.is_empty() {
        module.module.to_string()
    } else {
        format!("{}::{}", own.module, module.module)
    };
    let rest = if wanted == full {
        ""
    } else {
        wanted.strip_prefix(full.as_str())?.strip_prefix("::")?
    };
    let mut base = directory(declaring).to_string();
    if let Some((inline, _)) = module.module.rsplit_once("::") {
        let stem = strip_extension(&declaring[base.len()..]).trim_start_matches('/');
        if !own.module.is_empty() && stem != "mod" {
            base = join(&base, stem)?;
        }
        base = join(&base, &inline.replace("::", "/"))?;
    }
    let target = join(&base, &module.path)?;
    if rest.is_empty() {
        return Some(rust_file_key(&target));
    }
    let child = join(directory(&target), &rest.replace("::", "/"))?;
    Some(Name::new(format!("file:{child}")))
}

/// The directory of the crate a Rust file belongs to (`a/b/` for `a/b/src/x.rs`, and for
/// `a/b/tests/x.rs`, an integration test of that crate).
pub(crate) fn rust_crate_dir(path: &str) -> &str {
    let (crate_dir, _, tested_crate) = rust_crate_parts(path);
    tested_crate.unwrap_or(crate_dir)
}

/// A Rust file's crate directory, its path inside the crate, and for an integration test,
/// bench or example the crate it tests: the part of [`rust_module_path`] that allocates
/// nothing (resolution asks it for every candidate of a unique-name guess).
fn rust_crate_parts(path: &str) -> (&str, &str, Option<&str>) {
    let source = last_component_start(path, "src/");
    let companion = ["tests/", "benches/", "examples/"]
        .iter()
        .filter_map(|component| {
            last_component_start(path, component).map(|index| (index, component.len()))
        })
        .max();
    match (source, companion) {
        (Some(index), Some((other, _))) if index > other => {
            (&path[..index], &path[index + 4..], None)
        }
        (Some(index), None) => (&path[..index], &path[index + 4..], None),
        (_, Some((index, length))) => (
            &path[..index + length],
            &path[index + length..],
            Some(&path[..index]),
        ),
        (None, None) => ("", path, None),
    }
}

/// The crate a Rust file is compiled in, for visibility: the library's directory (`a/b/` for
/// `a/b/src/x.rs`), or for an integration test, bench or example its own root (`a/b/tests/zip`
/// for `a/b/tests/zip.rs` and `a/b/tests/zip/util.rs`), which sees the library but not the
/// other tests.
pub(crate) fn rust_package(path: &str) -> &str {
    // The crate's parts only: the module path and crate name `rust_module_path` builds are two
    // strings this does not need (resolution asks it for every candidate it checks).
    let (crate_dir, inside, tested_crate) = rust_crate_parts(path);
    if tested_crate.is_none() {
        return crate_dir;
    }
    let root = match inside.find('/') {
        Some(slash) => &inside[..slash],
        None => inside.strip_suffix(".rs").unwrap_or(inside),
    };
    &path[..crate_dir.len() + root.len()]
}

/// Where a Rust file sits in its crate.
pub(crate) struct RustModule<'p> {
    /// The module path within the crate (`src/auth/service.rs` → `auth::service`).
    pub(crate) module: String,
    /// The crate's name: its directory's, without a vendored `-1.2.3` version.
    pub(crate) crate_name: String,
    /// The directory whose `crate::` paths this file's answer (`a/b/` for `a/b/src/x.rs`; for
    /// an integration test, bench or example, its own `a/b/tests/`).
    pub(crate) crate_dir: &'p str,
    /// For an integration test, bench or example, the crate it uses as a dependency
    /// (`itertools::multizip` in `tests/zip.rs` is `src/lib.rs`'s `multizip`).
    pub(crate) tested_crate: Option<&'p str>,
}

/// The start of the last `src/`, `tests/`, `benches/` or `examples/` component of a path.
fn last_component_start(path: &str, component: &str) -> Option<usize> {
    // Only where a component starts (the path's start, or after a `/`) is compared: a few
    // comparisons per path rather than one at every byte, since this is on an edit's path
    // (resolution asks for every candidate of a unique-name guess, and every import's keys).
    let (bytes, pattern) = (path.as_bytes(), component.as_bytes());
    let last = bytes.len().checked_sub(pattern.len())?;
    (0..=last)
        .rev()
        .filter(|&index| index == 0 || bytes[index - 1] == b'/')
        .find(|&index| bytes[index..].starts_with(pattern))
}

pub(crate) fn rust_module_path(path: &str) -> RustModule<'_> {
    let (crate_dir, inside, tested_crate) = rust_crate_parts(path);
    let name_dir = tested_crate.unwrap_or(crate_dir);
    let crate_name = name_dir
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let crate_name = match crate_name.rsplit_once('-') {
        Some((name, version))
            if version.starts_with(|character: char| character.is_ascii_digit())
                && version.contains('.') =>
        {
            name
        }
        _ => crate_name,
    }
    .replace('-', "_");
    let without = strip_extension(inside);
    let module = if tested_crate.is_some() && !without.contains('/') {
        // Every integration test, bench and example is a crate root of its own.
        String::new()
    } else {
        match without {
            "lib" | "main" => String::new(),
            other => other
                .strip_suffix("/mod")
                .unwrap_or(other)
                .replace('/', "::"),
        }
    };
    RustModule {
        module,
        crate_name,
        crate_dir,
        tested_crate,
    }
}

/// The keys a file is registered under in the module map.
pub fn module_keys(path: &str, summary: &FileSummary) -> Vec<Name> {
    let mut keys = semantics::of(summary.language).module_keys(path, summary);
    keys.dedup();
    keys
}

/// The package a file belongs to, for same-package visibility; `None` where the language has no
/// such rule (Python, JavaScript, Rust, C, Ruby, Lua, Bash).
pub fn package_key(path: &str, summary: &FileSummary) -> Option<Name> {
    semantics::of(summary.language).package_key(path, summary)
}

/// The Swift module a file belongs to: the `Sources/<Module>` directory of a package, or the
/// whole workspace when there is none.
pub fn swift_module(path: &str) -> &str {
    let start = if path.starts_with("Sources/") {
        Some(0)
    } else {
        path.find("/Sources/").map(|index| index + 1)
    };
    match start {
        Some(start) => {
            let after = start + "Sources/".len();
            match path[after..].find('/') {
                Some(slash) => &path[..after + slash],
                None => "",
            }
        }
        None => "",
    }
}

pub fn normalize_package(text: &str) -> Name {
    Name::new(
        text.trim()
            .trim_start_matches('\\')
            .replace('\\', ".")
            .replace("::", "."),
    )
}

/// The module keys an import looks up, most specific first. Empty for imports that can only be
/// external (bare npm specifiers no workspace alias names, system headers, `std::`).
pub fn import_keys(
    aliases: &ModuleAliases,
    path: &str,
    summary: &FileSummary,
    import: &Import,
) -> Vec<Name> {
    let mut keys = semantics::of(summary.language).import_keys(aliases, path, summary, import);
    keys.dedup();
    keys
}

/// The name under which an import without an alias binds its module (`import a.b` binds `a.b`
/// as a receiver prefix in Python; a Go import binds its last path element).
pub fn import_binding(summary: &FileSummary, import: &Import) -> Option<Name> {
    if let Some(alias) = &import.alias {
        return Some(*alias);
    }
    if import.name.is_some() {
        return import.name;
    }
    semantics::of(summary.language).import_binding(import.path.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_model::Span;

    fn summary(language: Language) -> FileSummary {
        FileSummary::empty(language, "")
    }

    fn import(path: &str) -> Import {
        Import {
            path: Name::new(path),
            name: None,
            alias: None,
            wildcard: false,
            span: Span::default(),
            scope: None,
        }
    }

    #[test]
    fn python_keys_and_relative_imports() {
        let python = summary(Language::Python);
        assert_eq!(
            module_keys("src/shop/auth/__init__.py", &python),
            ["src.shop.auth", "shop.auth", "auth"]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "shop/auth/service.py",
                &python,
                &import(".tokens")
            ),
            ["shop.auth.tokens"]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "shop/auth/service.py",
                &python,
                &import("..models")
            ),
            ["shop.models"]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "shop/auth/service.py",
                &python,
                &import(".")
            ),
            ["shop.auth"]
        );
    }

    #[test]
    fn javascript_relative_specifiers() {
        let typescript = summary(Language::TypeScript);
        assert_eq!(
            module_keys("src/auth/index.ts", &typescript),
            ["src/auth/index", "src/auth"]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "src/app/main.ts",
                &typescript,
                &import("../auth/service.js")
            ),
            ["src/auth/service"]
        );
        assert!(
            import_keys(
                &ModuleAliases::default(),
                "src/app/main.ts",
                &typescript,
                &import("react")
            )
            .is_empty()
        );
    }

    #[test]
    fn rust_packages_separate_each_integration_test() {
        assert_eq!(rust_package("a/b/src/x.rs"), "a/b/");
        assert_eq!(rust_package("a/b/src/lib.rs"), "a/b/");
        assert_eq!(rust_package("a/b/tests/zip.rs"), "a/b/tests/zip");
        assert_eq!(rust_package("a/b/tests/zip/util.rs"), "a/b/tests/zip");
        assert_eq!(rust_package("benches/bench.rs"), "benches/bench");
        // The last component named `src`, not the last text `src/` (`xsrc/` is no component).
        assert_eq!(rust_package("a/b/src/xsrc/y.rs"), "a/b/");
        assert_eq!(rust_package("a/b/src/x/tests/y.rs"), "a/b/src/x/tests/y");
    }

    #[test]
    fn path_modules_are_found_where_rustc_looks() {
        let module = |module: &str, path: &str| PathModule {
            module: Name::new(module),
            path: Name::new(path),
        };
        let lexical = module("lexical", "../src/lexical/mod.rs");
        // The module itself, and the modules below it beside its file.
        assert_eq!(
            path_module_key("j/tests/lexical.rs", &lexical, "lexical").as_deref(),
            Some("file:j/src/lexical")
        );
        assert_eq!(
            path_module_key("j/tests/lexical.rs", &lexical, "lexical::algorithm").as_deref(),
            Some("file:j/src/lexical/algorithm")
        );
        assert_eq!(
            path_module_key("j/tests/lexical.rs", &lexical, "lexicals"),
            None
        );
        // Inside inline modules: below their directories, and below the file's stem in a
        // file that is neither a `mod.rs` nor a crate root.
        let inner = module("inline::inner", "other.rs");
        assert_eq!(
            path_module_key("src/a/b.rs", &inner, "a::b::inline::inner").as_deref(),
            Some("file:src/a/b/inline/other")
        );
        assert_eq!(
            path_module_key("src/a/mod.rs", &inner, "a::inline::inner").as_deref(),
            Some("file:src/a/inline/other")
        );
        assert_eq!(
            path_module_key("src/lib.rs", &inner, "inline::inner").as_deref(),
            Some("file:src/inline/other")
        );
        // Outside the repository: nothing.
        assert_eq!(
            path_module_key("src/lib.rs", &module("up", "../../x.rs"), "up"),
            None
        );
    }

    #[test]
    fn rust_paths() {
        let rust = summary(Language::Rust);
        assert_eq!(
            module_keys("shop/src/auth/mod.rs", &rust),
            ["crate:shop/::auth", "file:shop/src/auth", "shop::auth"]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "shop/src/auth/mod.rs",
                &rust,
                &import("super::util")
            ),
            ["crate:shop/::util"]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "shop/src/main.rs",
                &rust,
                &import("crate::auth::service")
            ),
            ["crate:shop/::auth::service"]
        );
        // Another crate of a vendored tree, named without its version.
        assert_eq!(
            module_keys("vendor/regex-automata-0.4.9/src/util/mod.rs", &rust),
            [
                "crate:vendor/regex-automata-0.4.9/::util",
                "file:vendor/regex-automata-0.4.9/src/util",
                "regex_automata::util"
            ]
        );
        assert_eq!(
            import_keys(
                &ModuleAliases::default(),
                "other/src/lib.rs",
                &rust,
                &import("regex_automata::util")
            ),
            ["crate:other/::regex_automata::util", "regex_automata::util"]
        );
    }

    #[test]
    fn normalisation_refuses_to_climb_above_the_root() {
        assert_eq!(normalize_path("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalize_path("../x"), None);
    }
}
