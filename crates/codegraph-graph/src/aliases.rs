//! Where a bare JavaScript/TypeScript specifier lands inside the workspace: a tsconfig's
//! `paths` and `baseUrl` (`@app/util` → `src/util`), and the workspace's own packages by their
//! `package.json` name (`@scope/pkg/sub` → `packages/pkg/src/sub`).
//!
//! The table is data: `world` reads the manifests and hands it to the writer
//! (`GraphWriter::set_aliases`); resolution only looks keys up. A specifier yields the module
//! keys of its candidate targets, in the order TypeScript tries them, so the first key that some
//! file answers to wins, as in `tsc`. A specifier no alias names yields no keys: it stays
//! external (a dependency from `node_modules`).

use codegraph_model::Name;
use serde::{Deserialize, Serialize};

use super::modules::{normalize_path, strip_extension};

/// The module aliases of a workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleAliases {
    /// One entry per tsconfig/jsconfig, deepest directory first; a file follows the config of
    /// the nearest directory above it.
    pub configs: Vec<PathConfig>,
    /// The workspace's packages, by name.
    pub packages: Vec<PackageAlias>,
}

/// A tsconfig's `compilerOptions.paths`, with targets made relative to the workspace root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathConfig {
    /// The directory the config governs (`""` for the root).
    pub directory: String,
    /// (pattern, targets): a pattern holds at most one `*`, which its targets repeat.
    pub patterns: Vec<(String, Vec<String>)>,
}

/// A workspace package: `name` answers from `entries` (the package's own entry points, in
/// order), and `name/sub` from `directory/sub` (or `directory/src/sub`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageAlias {
    pub name: String,
    pub directory: String,
    /// Subpath (`""` for the package itself, `"query"` for `name/query`) → targets, in order.
    pub entries: Vec<(String, Vec<String>)>,
}

impl ModuleAliases {
    pub fn is_empty(&self) -> bool {
        self.configs.is_empty() && self.packages.is_empty()
    }

    /// The module keys a bare specifier imported by the file at `path` looks up, in order.
    pub fn keys(&self, path: &str, specifier: &str) -> Vec<Name> {
        let mut keys: Vec<Name> = Vec::new();
        if let Some(config) = self
            .configs
            .iter()
            .find(|config| governs(&config.directory, path))
            && let Some(targets) = matching_targets(&config.patterns, specifier)
        {
            for target in targets {
                push_key(&mut keys, &target);
            }
        }
        for package in &self.packages {
            let subpath = if specifier == package.name {
                ""
            } else if let Some(rest) = specifier
                .strip_prefix(package.name.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
            {
                rest
            } else {
                continue;
            };
            // An exact subpath, else the wildcard subpath with the longest prefix (Node's rule,
            // the same as TypeScript's for `paths`).
            if let Some(targets) = matching_targets(&package.entries, subpath) {
                for target in targets {
                    push_key(&mut keys, &target);
                }
            }
            if !subpath.is_empty() {
                for base in [package.directory.clone(), join(&package.directory, "src")] {
                    push_key(&mut keys, &join(&base, subpath));
                }
            }
        }
        keys
    }
}

impl ModuleAliases {
    /// Whether a workspace package publishes the file at `path` through its `package.json`
    /// `exports`: a subpath's target names it (`"./addons": "./examples/jsm/Addons.js"`), or a
    /// wildcard target's directory holds it (`"./addons/*": "./examples/jsm/*"`). Such a file is
    /// the package's API, whatever its path says (three.js's `examples/jsm` is `three/addons`).
    pub fn publishes(&self, path: &str) -> bool {
        let module = strip_extension(path);
        self.packages.iter().any(|package| {
            package
                .entries
                .iter()
                .filter(|(subpath, _)| !subpath.is_empty())
                .flat_map(|(_, targets)| targets)
                .any(|target| match target.split_once('*') {
                    Some((prefix, suffix)) => {
                        prefix.ends_with('/')
                            && path.len() > prefix.len() + suffix.len()
                            && path.starts_with(prefix)
                            && path.ends_with(suffix)
                    }
                    None => strip_extension(target) == module,
                })
        })
    }
}

/// Whether a config in `directory` governs the file at `path` (compared by whole components).
fn governs(directory: &str, path: &str) -> bool {
    directory.is_empty()
        || path
            .strip_prefix(directory)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The targets of the pattern that matches `specifier`: an exact pattern first, otherwise the
/// wildcard pattern with the longest prefix (TypeScript's rule), its `*` replaced.
fn matching_targets(patterns: &[(String, Vec<String>)], specifier: &str) -> Option<Vec<String>> {
    if let Some((_, targets)) = patterns
        .iter()
        .find(|(pattern, _)| !pattern.contains('*') && pattern == specifier)
    {
        return Some(targets.clone());
    }
    let (_, targets, matched) = patterns
        .iter()
        .filter_map(|(pattern, targets)| {
            let (prefix, suffix) = pattern.split_once('*')?;
            let middle = specifier
                .strip_prefix(prefix)?
                .strip_suffix(suffix)
                .filter(|_| specifier.len() >= prefix.len() + suffix.len())?;
            Some((prefix.len(), targets, middle))
        })
        .max_by_key(|(prefix, _, _)| *prefix)?;
    Some(
        targets
            .iter()
            .map(|target| target.replacen('*', matched, 1))
            .collect(),
    )
}

/// The module key of a target path: normalised, without its extension (`.d.ts` included).
fn push_key(keys: &mut Vec<Name>, target: &str) {
    let Some(normal) = normalize_path(target) else {
        return;
    };
    let without = strip_extension(&normal);
    let without = without.strip_suffix(".d").unwrap_or(without);
    let key = Name::new(without);
    if !keys.contains(&key) {
        keys.push(key);
    }
}

fn join(base: &str, relative: &str) -> String {
    if base.is_empty() {
        relative.to_string()
    } else {
        format!("{base}/{relative}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases() -> ModuleAliases {
        ModuleAliases {
            configs: vec![
                PathConfig {
                    directory: "apps/web".into(),
                    patterns: vec![("~/*".into(), vec!["apps/web/app/*".into()])],
                },
                PathConfig {
                    directory: String::new(),
                    patterns: vec![
                        (
                            "@reduxjs/toolkit".into(),
                            vec!["src/index.ts".into(), "src/toolkit.ts".into()],
                        ),
                        ("@reduxjs/toolkit/*".into(), vec!["src/*".into()]),
                        ("@reduxjs/*".into(), vec!["other/*".into()]),
                        ("*".into(), vec!["./*".into()]),
                    ],
                },
            ],
            packages: vec![PackageAlias {
                name: "@scope/ui".into(),
                directory: "packages/ui".into(),
                entries: vec![(String::new(), vec!["packages/ui/src/index.ts".into()])],
            }],
        }
    }

    #[test]
    fn specifiers_become_keys_in_typescripts_order() {
        let aliases = aliases();
        let cases: &[(&str, &str, &[&str])] = &[
            // An exact pattern: its targets in order, extensions dropped.
            (
                "src/a.ts",
                "@reduxjs/toolkit",
                &["src/index", "src/toolkit"],
            ),
            // The longest wildcard prefix wins over `@reduxjs/*` and `*`.
            ("src/a.ts", "@reduxjs/toolkit/query", &["src/query"]),
            ("src/a.ts", "@reduxjs/other", &["other/other"]),
            // `*` alone: baseUrl-style lookups.
            ("src/a.ts", "lodash", &["lodash"]),
            // The nearest config governs; `apps/webby` is not under `apps/web`.
            ("apps/web/app/x.tsx", "~/util", &["apps/web/app/util"]),
            ("apps/webby/x.tsx", "~/util", &["~/util"]),
            // Workspace packages by name, with subpaths from the package and its `src`.
            (
                "apps/web/app/x.tsx",
                "@scope/ui",
                &["packages/ui/src/index"],
            ),
            (
                "apps/web/app/x.tsx",
                "@scope/ui/button",
                &["packages/ui/button", "packages/ui/src/button"],
            ),
            ("apps/web/app/x.tsx", "@scope/uikit", &[]),
        ];
        for (path, specifier, expected) in cases {
            let keys = aliases.keys(path, specifier);
            assert_eq!(
                keys.iter().map(|key| key.as_str()).collect::<Vec<_>>(),
                *expected,
                "{specifier} from {path}"
            );
        }
    }

    #[test]
    fn declaration_files_and_climbing_targets() {
        let aliases = ModuleAliases {
            configs: vec![PathConfig {
                directory: String::new(),
                patterns: vec![
                    ("types".into(), vec!["typings/index.d.ts".into()]),
                    ("up/*".into(), vec!["../outside/*".into()]),
                ],
            }],
            packages: Vec::new(),
        };
        assert_eq!(
            aliases.keys("a.ts", "types"),
            vec![Name::new("typings/index")]
        );
        assert!(aliases.keys("a.ts", "up/x").is_empty());
    }
}
