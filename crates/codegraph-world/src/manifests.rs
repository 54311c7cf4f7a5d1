//! The manifests that say where a bare JavaScript/TypeScript import lands in the workspace:
//! `tsconfig.json`/`jsconfig.json` (`compilerOptions.paths` and `baseUrl`, following relative
//! `extends`) and `package.json` (a workspace package's `name`, `exports`, `module`, `main`,
//! `types`). Read into a [`ModuleAliases`] table, which the graph's resolution looks up.
//!
//! Manifests are JSON with comments and trailing commas (`jsonc-parser`, the parser dprint and
//! Deno use for tsconfig files). A manifest that cannot be read or parsed contributes nothing;
//! the reason is logged. Entry points that name build output (`dist/index.js`) are tried as
//! written and then in the package's sources (`src/index`), since the build output is rarely
//! in the repository.

use std::path::Path;

use serde_json::Value;

use super::walk;
use codegraph_graph::aliases::{ModuleAliases, PackageAlias, PathConfig};

/// The file names read as manifests.
pub const MANIFEST_NAMES: [&str; 3] = ["tsconfig.json", "jsconfig.json", "package.json"];

/// A manifest is read up to this size; a larger one is skipped.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// How many `extends` links are followed (TypeScript has no limit, but loops exist).
const MAX_EXTENDS: usize = 8;

/// Whether `path` is a manifest this module reads (by file name, outside `node_modules`).
pub fn is_manifest(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    MANIFEST_NAMES.contains(&name) && !relative.split('/').any(|part| part == "node_modules")
}

/// Reads the manifests at `relative` paths under `root` (canonical) into an alias table.
pub fn read_aliases(root: &Path, manifests: &[String]) -> ModuleAliases {
    let read = |relative: &str| -> Option<Value> {
        let absolute = root.join(relative);
        walk::contained(root, &absolute).ok()?;
        let (bytes, truncated) = walk::read_prefix(&absolute, MAX_MANIFEST_BYTES).ok()?;
        if truncated {
            tracing::warn!("{relative}: over {MAX_MANIFEST_BYTES} bytes; not read");
            return None;
        }
        parse(relative, &String::from_utf8_lossy(&bytes))
    };
    aliases_from(manifests, read)
}

/// The alias table of manifests given as (relative path, text) pairs.
pub fn aliases_from_texts(manifests: &[(String, String)]) -> ModuleAliases {
    let paths: Vec<String> = manifests.iter().map(|(path, _)| path.clone()).collect();
    aliases_from(&paths, |relative| {
        let (_, text) = manifests.iter().find(|(path, _)| path == relative)?;
        parse(relative, text)
    })
}

fn parse(relative: &str, text: &str) -> Option<Value> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        ..Default::default()
    };
    match jsonc_parser::parse_to_serde_value(text, &options) {
        Ok(value) => value,
        Err(error) => {
            tracing::warn!("{relative}: not read ({error})");
            None
        }
    }
}

/// The alias table of the manifests at `relative` paths, read through `read`.
pub fn aliases_from(manifests: &[String], read: impl Fn(&str) -> Option<Value>) -> ModuleAliases {
    let mut aliases = ModuleAliases::default();
    let mut config_directories: Vec<&str> = Vec::new();
    for relative in manifests {
        let (directory, name) = split(relative);
        match name {
            "tsconfig.json" | "jsconfig.json" => {
                // A directory's tsconfig wins over its jsconfig.
                if config_directories.contains(&directory) {
                    continue;
                }
                if name == "jsconfig.json" && manifests.contains(&join(directory, "tsconfig.json"))
                {
                    continue;
                }
                if let Some(config) = path_config(relative, &read) {
                    config_directories.push(directory);
                    aliases.configs.push(config);
                }
            }
            "package.json" => {
                if let Some(package) = read(relative).and_then(|value| package(directory, &value)) {
                    aliases.packages.push(package);
                }
            }
            _ => {}
        }
    }
    // The nearest config governs a file: deepest directories first.
    aliases.configs.sort_by(|left, right| {
        let depth = |config: &PathConfig| {
            if config.directory.is_empty() {
                0
            } else {
                config.directory.matches('/').count() + 1
            }
        };
        depth(right)
            .cmp(&depth(left))
            .then_with(|| left.directory.cmp(&right.directory))
    });
    aliases
        .packages
        .sort_by(|left, right| left.name.cmp(&right.name));
    aliases
}

/// A tsconfig's path mappings, with `extends` followed; `None` when it maps nothing.
fn path_config(relative: &str, read: &impl Fn(&str) -> Option<Value>) -> Option<PathConfig> {
    let (directory, _) = split(relative);
    // The nearest config of the chain that states `paths`, and the one that states `baseUrl`.
    let mut paths: Option<(String, serde_json::Map<String, Value>)> = None;
    let mut base_url: Option<String> = None;
    let mut current = relative.to_string();
    for _ in 0..MAX_EXTENDS {
        let value = read(&current)?;
        let (here, _) = split(&current);
        let options = value.get("compilerOptions");
        if paths.is_none()
            && let Some(Value::Object(map)) = options.and_then(|options| options.get("paths"))
        {
            paths = Some((here.to_string(), map.clone()));
        }
        if base_url.is_none()
            && let Some(Value::String(url)) = options.and_then(|options| options.get("baseUrl"))
        {
            base_url = normalize(&join(here, url));
        }
        let Some(Value::String(extends)) = value.get("extends") else {
            break;
        };
        // Only relative `extends` (a shared config from `node_modules` maps nothing of ours).
        if !extends.starts_with('.') {
            break;
        }
        let mut next = join(here, extends);
        if !next.ends_with(".json") {
            next.push_str(".json");
        }
        match normalize(&next) {
            Some(next) if next != current => current = next,
            _ => break,
        }
    }
    let mut patterns: Vec<(String, Vec<String>)> = Vec::new();
    if let Some((paths_directory, map)) = &paths {
        // Targets are relative to `baseUrl`, or to the config that states `paths`.
        let base = base_url.clone().unwrap_or_else(|| paths_directory.clone());
        for (pattern, targets) in map {
            let Value::Array(targets) = targets else {
                continue;
            };
            let targets: Vec<String> = targets
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|target| normalize(&join(&base, target)))
                .collect();
            if pattern.matches('*').count() <= 1 && !targets.is_empty() {
                patterns.push((pattern.clone(), targets));
            }
        }
    }
    // With `baseUrl`, any other bare name is tried under it.
    if let Some(base) = &base_url
        && !patterns.iter().any(|(pattern, _)| pattern == "*")
    {
        patterns.push(("*".to_string(), vec![join(base, "*")]));
    }
    (!patterns.is_empty()).then(|| PathConfig {
        directory: directory.to_string(),
        patterns,
    })
}

/// A workspace package: its name, entry points and `exports` subpaths.
fn package(directory: &str, value: &Value) -> Option<PackageAlias> {
    let name = value.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    let mut main: Vec<String> = Vec::new();
    match value.get("exports") {
        Some(Value::Object(map)) if map.keys().any(|key| key.starts_with('.')) => {
            for (subpath, target) in map {
                let Some(subpath) = subpath.strip_prefix('.') else {
                    continue;
                };
                // A wildcard subpath (`"./addons/*": "./examples/jsm/*"`) is kept as a pattern
                // whose `*` its targets repeat, as Node resolves it.
                let subpath = subpath.trim_start_matches('/');
                if subpath.matches('*').count() > 1 {
                    continue;
                }
                let mut targets = Vec::new();
                conditions(target, &mut targets);
                let mut targets = sources(directory, &targets);
                if subpath.contains('*') {
                    targets.retain(|target| target.matches('*').count() == 1);
                }
                if subpath.is_empty() {
                    main.extend(targets);
                } else if !targets.is_empty() {
                    entries.push((subpath.to_string(), targets));
                }
            }
        }
        Some(exports) => {
            let mut targets = Vec::new();
            conditions(exports, &mut targets);
            main.extend(sources(directory, &targets));
        }
        None => {}
    }
    let fields: Vec<String> = ["types", "typings", "module", "main"]
        .iter()
        .filter_map(|field| value.get(*field)?.as_str().map(str::to_string))
        .collect();
    main.extend(sources(directory, &fields));
    for fallback in ["src/index", "index"] {
        main.push(join(directory, fallback));
    }
    let mut seen = std::collections::HashSet::new();
    main.retain(|target| seen.insert(target.clone()));
    entries.insert(0, (String::new(), main));
    Some(PackageAlias {
        name: name.to_string(),
        directory: directory.to_string(),
        entries,
    })
}

/// The string targets of an `exports` value, conditions tried in a source-first order.
fn conditions(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(target) => out.push(target.clone()),
        Value::Array(items) => items.iter().for_each(|item| conditions(item, out)),
        Value::Object(map) => {
            let order = [
                "source", "types", "import", "module", "default", "require", "node",
            ];
            for key in order {
                if let Some(inner) = map.get(key) {
                    conditions(inner, out);
                }
            }
            for (key, inner) in map {
                if !order.contains(&key.as_str()) {
                    conditions(inner, out);
                }
            }
        }
        _ => {}
    }
}

/// Build directories whose files usually come from `src/`.
const BUILD_DIRECTORIES: [&str; 10] = [
    "dist", "lib", "build", "out", "esm", "cjs", "es", "umd", "types", "module",
];

/// Each target as written, then the same file in the package's sources when it names build
/// output: `./dist/esm/index.js` → `dist/esm/index.js`, `src/index.js`.
fn sources(directory: &str, targets: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for target in targets {
        let Some(written) = normalize(&join(directory, target)) else {
            continue;
        };
        out.push(written);
        let inside = target.trim_start_matches("./");
        let mut rest = inside;
        while let Some((first, tail)) = rest.split_once('/')
            && BUILD_DIRECTORIES.contains(&first)
        {
            rest = tail;
        }
        if rest != inside
            && let Some(source) = normalize(&join(directory, &format!("src/{rest}")))
        {
            out.push(source);
        }
    }
    out
}

fn split(relative: &str) -> (&str, &str) {
    relative.rsplit_once('/').unwrap_or(("", relative))
}

fn join(directory: &str, relative: &str) -> String {
    if directory.is_empty() {
        relative.to_string()
    } else {
        format!("{directory}/{relative}")
    }
}

/// `a/./b/../c` → `a/c`; `None` when it leaves the workspace.
fn normalize(path: &str) -> Option<String> {
    codegraph_graph::modules::normalize_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_model::Name;

    fn table(files: &[(&str, &str)]) -> ModuleAliases {
        let manifests: Vec<(String, String)> = files
            .iter()
            .map(|(path, text)| (path.to_string(), text.to_string()))
            .collect();
        aliases_from_texts(&manifests)
    }

    fn keys(aliases: &ModuleAliases, from: &str, specifier: &str) -> Vec<Name> {
        aliases.keys(from, specifier)
    }

    #[test]
    fn tsconfig_paths_with_comments_extends_and_base_url() {
        let aliases = table(&[
            (
                "tsconfig.base.json",
                r#"{ // shared
                    "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["libs/*/src"], } }
                }"#,
            ),
            (
                "apps/web/tsconfig.json",
                r#"{ "extends": "../../tsconfig.base" }"#,
            ),
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "paths": { "@app": ["./src/index.ts"] } } }"#,
            ),
            ("broken/tsconfig.json", "{ not json"),
        ]);
        assert_eq!(keys(&aliases, "apps/web/x.ts", "@lib/ui"), ["libs/ui/src"]);
        // baseUrl: any bare name under it.
        assert_eq!(
            keys(&aliases, "apps/web/x.ts", "shared/util"),
            ["shared/util"]
        );
        // The root config has no baseUrl: paths are relative to it, other names stay external.
        assert_eq!(keys(&aliases, "src/a.ts", "@app"), ["src/index"]);
        assert!(keys(&aliases, "src/a.ts", "react").is_empty());
    }

    #[test]
    fn workspace_packages_by_name_exports_and_build_output() {
        let aliases = table(&[
            (
                "packages/core/package.json",
                r#"{ "name": "@acme/core", "main": "./dist/index.js",
                     "exports": { ".": { "types": "./dist/index.d.ts", "import": "./dist/esm/index.js" },
                                  "./query": "./dist/query/index.js" } }"#,
            ),
            (
                "package.json",
                r#"{ "name": "acme-root", "private": true }"#,
            ),
        ]);
        assert_eq!(
            keys(&aliases, "apps/a.ts", "@acme/core"),
            [
                "packages/core/dist/index",
                "packages/core/src/index",
                "packages/core/dist/esm/index",
                "packages/core/index"
            ]
        );
        assert_eq!(
            keys(&aliases, "apps/a.ts", "@acme/core/query"),
            [
                "packages/core/dist/query/index",
                "packages/core/src/query/index",
                "packages/core/query",
                "packages/core/src/query"
            ]
        );
        assert_eq!(
            keys(&aliases, "apps/a.ts", "acme-root"),
            ["src/index", "index"]
        );
        assert!(is_manifest("packages/core/package.json"));
        // A subpath's build output and its source in `src/` are published; the main entry
        // point is the package itself, not a subpath.
        assert!(aliases.publishes("packages/core/dist/query/index.js"));
        assert!(aliases.publishes("packages/core/src/query/index.ts"));
        assert!(!aliases.publishes("packages/core/src/internal.ts"));
    }

    #[test]
    fn wildcard_exports_are_patterns_and_publish_their_directories() {
        // three.js publishes its `examples/jsm` as `three/addons/*`.
        let aliases = table(&[(
            "package.json",
            r#"{ "name": "three", "main": "./build/three.cjs",
                 "exports": { ".": { "import": "./build/three.module.js" },
                              "./addons": "./examples/jsm/Addons.js",
                              "./addons/*": "./examples/jsm/*",
                              "./src/*": "./src/*" } }"#,
        )]);
        assert_eq!(
            keys(&aliases, "src/a.js", "three/addons/loaders/GLTFLoader.js"),
            [
                "examples/jsm/loaders/GLTFLoader",
                "addons/loaders/GLTFLoader",
                "src/addons/loaders/GLTFLoader"
            ]
        );
        assert_eq!(
            keys(&aliases, "src/a.js", "three/addons"),
            ["examples/jsm/Addons", "addons", "src/addons"]
        );
        assert!(aliases.publishes("examples/jsm/loaders/GLTFLoader.js"));
        assert!(aliases.publishes("examples/jsm/Addons.js"));
        assert!(!aliases.publishes("examples/webgl_animation.js"));
        assert!(!aliases.publishes("examples/jsmx/a.js"));
        assert!(!is_manifest("node_modules/x/package.json"));
        assert!(!is_manifest("src/package.json.ts"));
    }
}
