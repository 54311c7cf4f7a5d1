//! Which package a file belongs to, and which version of a dependency an import names, read
//! from the manifests on disk: `Cargo.toml` (+ `Cargo.lock`), `package.json` (+
//! `package-lock.json`), `pyproject.toml` / `setup.cfg`, `go.mod`, `pom.xml`, `build.gradle`.
//!
//! A SCIP symbol starts with `<manager> <name> <version>`; two indexes' symbols meet only when
//! these agree, so they come from what the ecosystem itself calls the package, never invented.
//! Where a manifest says nothing, the fields are `.` (SCIP's "empty").

use std::path::{Component, Path};

use rustc_hash::FxHashMap;

use codegraph_lang::Language;

/// The biggest manifest read (a larger one is skipped as if absent).
const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// A package as SCIP names it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Package {
    /// `cargo`, `npm`, `python`, `gomod`, `maven`; empty when unknown.
    pub manager: String,
    pub name: String,
    pub version: String,
    /// The directory of its manifest, relative to the workspace root (`""` for the root).
    pub root: String,
    /// Exact versions of its dependencies, by package name, from the lockfile (or `go.mod`).
    pub locked: FxHashMap<String, String>,
    /// Go: the module path (`github.com/a/b`), and the required modules, longest first.
    pub go_requires: Vec<(String, String)>,
}

/// The manifests of a workspace, read once per directory.
pub struct Packages {
    root: std::path::PathBuf,
    /// (directory, ecosystem) → the package whose manifest is there, if any.
    found: FxHashMap<(String, Ecosystem), Option<std::sync::Arc<Package>>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Ecosystem {
    Cargo,
    Npm,
    Python,
    Go,
    Jvm,
}

fn ecosystem(language: Language) -> Option<Ecosystem> {
    Some(match language {
        Language::Rust => Ecosystem::Cargo,
        Language::JavaScript | Language::TypeScript | Language::Tsx => Ecosystem::Npm,
        Language::Python => Ecosystem::Python,
        Language::Go => Ecosystem::Go,
        Language::Java | Language::Kotlin | Language::Scala => Ecosystem::Jvm,
        _ => return None,
    })
}

impl Packages {
    pub fn new(root: &Path) -> Packages {
        Packages {
            root: root.to_path_buf(),
            found: FxHashMap::default(),
        }
    }

    /// The package of the file at `path` (relative, `/`-separated): the nearest manifest of its
    /// language's ecosystem in its directory or above, within the workspace.
    pub fn of_file(&mut self, path: &str, language: Language) -> Option<std::sync::Arc<Package>> {
        let ecosystem = ecosystem(language)?;
        let mut directory = parent(path);
        loop {
            if let Some(found) = self.at(directory, ecosystem) {
                return Some(found);
            }
            if directory.is_empty() {
                return None;
            }
            directory = parent(directory);
        }
    }

    fn at(&mut self, directory: &str, ecosystem: Ecosystem) -> Option<std::sync::Arc<Package>> {
        let key = (directory.to_string(), ecosystem);
        if let Some(known) = self.found.get(&key) {
            return known.clone();
        }
        let package = self.read(directory, ecosystem).map(std::sync::Arc::new);
        self.found.insert(key, package.clone());
        package
    }

    fn read(&self, directory: &str, ecosystem: Ecosystem) -> Option<Package> {
        let read = |name: &str| self.read_text(directory, name);
        let mut package = match ecosystem {
            Ecosystem::Cargo => cargo(&read("Cargo.toml")?, read("Cargo.lock").as_deref())?,
            Ecosystem::Npm => npm(&read("package.json")?, read("package-lock.json").as_deref())?,
            Ecosystem::Python => match read("pyproject.toml").and_then(|text| pyproject(&text)) {
                Some(package) => package,
                None => setup_cfg(&read("setup.cfg")?)?,
            },
            Ecosystem::Go => go_mod(&read("go.mod")?)?,
            Ecosystem::Jvm => match read("pom.xml") {
                Some(text) => pom(&text)?,
                None => gradle(
                    &read("build.gradle")
                        .or_else(|| read("build.gradle.kts"))
                        .or_else(|| read("build.sbt"))?,
                )?,
            },
        };
        package.root = directory.to_string();
        Some(package)
    }

    /// A manifest's text: a regular file (not a symlink, so nothing outside the workspace is
    /// read), at most [`MAX_MANIFEST_BYTES`].
    fn read_text(&self, directory: &str, name: &str) -> Option<String> {
        let relative = Path::new(directory).join(name);
        if relative
            .components()
            .any(|component| !matches!(component, Component::Normal(_)))
        {
            return None;
        }
        let path = self.root.join(relative);
        let metadata = std::fs::symlink_metadata(&path).ok()?;
        if !metadata.is_file() || metadata.len() > MAX_MANIFEST_BYTES {
            return None;
        }
        std::fs::read_to_string(path).ok()
    }
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(directory, _)| directory)
}

fn toml_string(table: &toml::Table, keys: &[&str]) -> Option<String> {
    let mut value = table.get(keys[0])?;
    for key in &keys[1..] {
        value = value.as_table()?.get(*key)?;
    }
    value.as_str().map(str::to_string)
}

fn cargo(manifest: &str, lock: Option<&str>) -> Option<Package> {
    let table: toml::Table = manifest.parse().ok()?;
    // A virtual workspace manifest names no package: its members have their own.
    let name = toml_string(&table, &["package", "name"])?;
    let version = toml_string(&table, &["package", "version"]).unwrap_or_default();
    let mut locked = FxHashMap::default();
    if let Some(lock) = lock.and_then(|text| text.parse::<toml::Table>().ok()) {
        let mut versions: FxHashMap<String, Vec<String>> = FxHashMap::default();
        for entry in lock
            .get("package")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(name), Some(version)) = (
                entry.get("name").and_then(toml::Value::as_str),
                entry.get("version").and_then(toml::Value::as_str),
            ) {
                versions
                    .entry(name.replace('-', "_"))
                    .or_default()
                    .push(version.to_string());
            }
        }
        // Only a crate locked at one version is known exactly.
        for (name, list) in versions {
            if let [version] = list.as_slice() {
                locked.insert(name, version.clone());
            }
        }
    }
    Some(Package {
        manager: "cargo".into(),
        name,
        version,
        locked,
        ..Package::default()
    })
}

fn npm(manifest: &str, lock: Option<&str>) -> Option<Package> {
    let value: serde_json::Value = serde_json::from_str(manifest).ok()?;
    let name = value.get("name")?.as_str()?.to_string();
    let version = value
        .get("version")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut locked = FxHashMap::default();
    if let Some(lock) = lock.and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        && let Some(packages) = lock.get("packages").and_then(serde_json::Value::as_object)
    {
        for (path, entry) in packages {
            // Top-level installs only: a nested copy is another version for one dependent.
            let Some(dependency) = path.strip_prefix("node_modules/") else {
                continue;
            };
            if dependency.contains("/node_modules/") {
                continue;
            }
            if let Some(version) = entry.get("version").and_then(serde_json::Value::as_str) {
                locked.insert(dependency.to_string(), version.to_string());
            }
        }
    }
    Some(Package {
        manager: "npm".into(),
        name,
        version,
        locked,
        ..Package::default()
    })
}

fn pyproject(text: &str) -> Option<Package> {
    let table: toml::Table = text.parse().ok()?;
    let name = toml_string(&table, &["project", "name"])
        .or_else(|| toml_string(&table, &["tool", "poetry", "name"]))?;
    let version = toml_string(&table, &["project", "version"])
        .or_else(|| toml_string(&table, &["tool", "poetry", "version"]))
        .unwrap_or_default();
    Some(Package {
        manager: "python".into(),
        name,
        version,
        ..Package::default()
    })
}

/// `setup.cfg`'s `[metadata]` `name` and `version` (an INI file; values are taken literally,
/// so `attr:` and `file:` versions are left out).
fn setup_cfg(text: &str) -> Option<Package> {
    let mut section = "";
    let (mut name, mut version) = (None, None);
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            section = header.trim();
            continue;
        }
        if section != "metadata" {
            continue;
        }
        if let Some((key, value)) = line.split_once(['=', ':']) {
            let value = value.trim();
            match key.trim() {
                "name" => name = Some(value.to_string()),
                "version" if !value.contains(':') => version = Some(value.to_string()),
                _ => {}
            }
        }
    }
    Some(Package {
        manager: "python".into(),
        name: name.filter(|name| !name.is_empty())?,
        version: version.unwrap_or_default(),
        ..Package::default()
    })
}

/// `go.mod`: the module path, and the required modules with their versions (exact in Go).
fn go_mod(text: &str) -> Option<Package> {
    let mut module = None;
    let mut requires = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or_default().trim();
        if in_block {
            if line == ")" {
                in_block = false;
            } else if let [path, version, ..] = line.split_whitespace().collect::<Vec<_>>()[..] {
                requires.push((path.to_string(), version.to_string()));
            }
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["module", path] => module = Some(path.trim_matches('"').to_string()),
            ["require", "("] => in_block = true,
            ["require", path, version, ..] => {
                requires.push((path.to_string(), version.to_string()))
            }
            _ => {}
        }
    }
    // Longest first: the first prefix that matches an import path is its module.
    requires.sort_by(|left, right| right.0.len().cmp(&left.0.len()).then(left.cmp(right)));
    Some(Package {
        manager: "gomod".into(),
        name: module?,
        version: String::new(),
        go_requires: requires,
        ..Package::default()
    })
}

/// The text of the first `<tag>` that is a direct child of `<project>` (outside `<parent>`,
/// `<dependencies>`, `<build>`, ...): a depth count over the tags, enough for Maven's flat
/// coordinates.
fn pom_field(text: &str, tag: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let close = rest.find('>')?;
        let inside = &rest[..close];
        rest = &rest[close + 1..];
        if inside.starts_with('?') || inside.starts_with('!') {
            continue;
        }
        if let Some(name) = inside.strip_prefix('/') {
            let _ = name;
            depth = depth.saturating_sub(1);
            continue;
        }
        if inside.ends_with('/') {
            continue;
        }
        let name = inside.split_whitespace().next().unwrap_or_default();
        depth += 1;
        if depth == 2 && name == tag {
            let end = rest.find('<')?;
            return Some(rest[..end].trim().to_string()).filter(|value| !value.is_empty());
        }
    }
    None
}

fn pom(text: &str) -> Option<Package> {
    let artifact = pom_field(text, "artifactId")?;
    let name = match pom_field(text, "groupId") {
        Some(group) => format!("{group}:{artifact}"),
        None => artifact,
    };
    Some(Package {
        manager: "maven".into(),
        name,
        version: pom_field(text, "version")
            .filter(|version| !version.contains("${"))
            .unwrap_or_default(),
        ..Package::default()
    })
}

/// `build.gradle(.kts)` / `build.sbt`: top-level `group = "..."` and `version = "..."`; the
/// name is the group (Gradle's project name lives in `settings.gradle`, often implicit).
fn gradle(text: &str) -> Option<Package> {
    let assigned = |key: &str| {
        text.lines().find_map(|line| {
            let (left, right) = line.trim().split_once('=')?;
            let left = left.trim().trim_start_matches("ThisBuild / ").trim();
            (left == key || left == format!("{key} :")).then(|| {
                right
                    .trim()
                    .trim_matches(|c| c == '"' || c == '\'' || c == ';')
                    .to_string()
            })
        })
    };
    Some(Package {
        manager: "maven".into(),
        name: assigned("group").filter(|group| !group.is_empty())?,
        version: assigned("version").unwrap_or_default(),
        ..Package::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_names_the_package_and_its_exactly_locked_dependencies() {
        let rust = cargo(
            "[package]\nname = \"shop\"\nversion = \"0.3.1\"\n[dependencies]\nserde = \"1\"\n",
            Some(
                "[[package]]\nname = \"serde\"\nversion = \"1.0.200\"\n\
                 [[package]]\nname = \"syn\"\nversion = \"1.0.0\"\n\
                 [[package]]\nname = \"syn\"\nversion = \"2.0.0\"\n",
            ),
        )
        .unwrap();
        assert_eq!(
            (
                rust.manager.as_str(),
                rust.name.as_str(),
                rust.version.as_str()
            ),
            ("cargo", "shop", "0.3.1")
        );
        assert_eq!(
            rust.locked.get("serde").map(String::as_str),
            Some("1.0.200")
        );
        assert_eq!(rust.locked.get("syn"), None, "two versions: not exact");
        assert_eq!(cargo("[workspace]\nmembers = [\"a\"]\n", None), None);
    }

    #[test]
    fn npm_names_the_package_and_its_top_level_locked_dependencies() {
        let node = npm(
            r#"{"name": "@acme/shop", "version": "2.0.0"}"#,
            Some(
                r#"{"packages": {"": {}, "node_modules/lodash": {"version": "4.17.21"},
                "node_modules/a/node_modules/lodash": {"version": "3.0.0"}}}"#,
            ),
        )
        .unwrap();
        assert_eq!(
            (node.name.as_str(), node.version.as_str()),
            ("@acme/shop", "2.0.0")
        );
        assert_eq!(
            node.locked.get("lodash").map(String::as_str),
            Some("4.17.21")
        );
    }

    #[test]
    fn python_names_the_package_from_pyproject_or_setup_cfg() {
        let python = pyproject("[project]\nname = \"shop\"\nversion = \"1.2\"\n").unwrap();
        assert_eq!(
            (python.manager.as_str(), python.name.as_str()),
            ("python", "shop")
        );
        let python = setup_cfg("[metadata]\nname = shop\nversion = attr: shop.V\n").unwrap();
        assert_eq!(
            (python.name.as_str(), python.version.as_str()),
            ("shop", "")
        );
    }

    #[test]
    fn go_names_the_module_and_its_requirements() {
        let go = go_mod(
            "module example.com/shop\n\ngo 1.21\n\nrequire (\n\tgithub.com/a/b v1.2.3\n\tgithub.com/a/b/v2 v2.0.1 // indirect\n)\nrequire golang.org/x/sys v0.1.0\n",
        )
        .unwrap();
        assert_eq!(go.name, "example.com/shop");
        assert_eq!(
            go.go_requires,
            [
                ("github.com/a/b/v2".to_string(), "v2.0.1".to_string()),
                ("golang.org/x/sys".to_string(), "v0.1.0".to_string()),
                ("github.com/a/b".to_string(), "v1.2.3".to_string()),
            ]
        );
    }

    #[test]
    fn maven_and_gradle_name_the_group_and_artifact() {
        let java = pom(
            "<?xml version=\"1.0\"?><project><parent><groupId>org.p</groupId><version>9</version></parent>\
             <groupId>com.acme</groupId><artifactId>shop</artifactId><version>1.0</version>\
             <dependencies><dependency><groupId>x</groupId></dependency></dependencies></project>",
        )
        .unwrap();
        assert_eq!(
            (java.name.as_str(), java.version.as_str()),
            ("com.acme:shop", "1.0")
        );
        let gradle = gradle("group = 'com.acme'\nversion = \"2.1\"\n").unwrap();
        assert_eq!(
            (gradle.name.as_str(), gradle.version.as_str()),
            ("com.acme", "2.1")
        );
    }
}
