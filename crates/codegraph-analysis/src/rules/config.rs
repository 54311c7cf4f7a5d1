//! The rules file, `.codegraph/rules.toml`, parsed into a [`RuleSet`].
//!
//! The vocabulary is borrowed from the tools people already use: import-linter's `layers` and
//! `independence`, dependency-cruiser's `forbidden`, and a ban on cycles:
//!
//! ```toml
//! [[layers]]
//! name = "app"
//! layers = ["src/ui/**", "src/services/**", "src/domain/**"]   # top to bottom
//!
//! [[forbid]]
//! name = "domain-is-pure"
//! from = "src/domain/**"
//! to = ["src/infra/**", "requests", "sqlalchemy"]   # paths or external modules
//! severity = "error"                                  # error | warning | info
//! reason = "Domain code must not know about infrastructure."
//!
//! [[independent]]
//! name = "features"
//! modules = ["src/features/billing/**", "src/features/auth/**"]
//!
//! [cycles]
//! forbid = true          # between = "files" (default) or "directories"
//! ```
//!
//! Every rule also takes `severity`, `reason` and `kinds` (which dependencies count: `import`,
//! `call`, `extends`, `implements`, `type_use`; all of them by default, imports only for cycles).
//!
//! The file is read through `toml`'s spanned document tree rather than serde structs, so that
//! every problem (a syntax error, an unknown key, a misspelt severity, a bad glob) names its
//! line; problems never stop the other rules from being checked. The reading is in
//! `config/parse.rs`; this file holds what it produces and how paths are matched against it.

mod parse;

use std::sync::Arc;

use globset::{Glob, GlobMatcher, GlobSet};

use super::{KindSet, RuleProblem, Severity};

/// A parsed rules file.
#[derive(Debug, Clone)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    /// What is wrong with the file as written (patterns that match no file are found later,
    /// against the graph, by the checker).
    pub problems: Vec<RuleProblem>,
    /// Every path pattern of every rule; rules refer to them by index.
    pub patterns: Vec<Pattern>,
    /// All patterns' globs, for classifying a path with one pass.
    pub(crate) globs: GlobSet,
    /// The pattern each glob of `globs` belongs to.
    pub(crate) glob_owner: Vec<u32>,
}

/// One path pattern as written, with where it is written.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub text: String,
    pub line: u32,
    pub column: u32,
    /// Where the pattern as written ends (one-based, exclusive column).
    pub end_line: u32,
    pub end_column: u32,
    /// The rule it belongs to (index in [`RuleSet::rules`]).
    pub rule: usize,
    /// For a `to` entry of a `forbid` rule: it also names an external module, as the language
    /// writes it (`requests`, `net/http`, `@scope/pkg`, `reqwest::Client`).
    pub module: Option<ModuleMatcher>,
}

/// Matches external module names: `requests` matches `requests` and `requests.adapters`,
/// `net/http` matches `net/http` and `net/http/httptest`, `fs` matches `node:fs`; a glob
/// (`@aws-sdk/*`) matches the whole name.
#[derive(Debug, Clone)]
pub struct ModuleMatcher {
    pub text: String,
    glob: Option<GlobMatcher>,
}

impl ModuleMatcher {
    fn new(text: &str) -> ModuleMatcher {
        let text = text.strip_prefix("node:").unwrap_or(text).to_string();
        let glob = has_glob(&text)
            .then(|| Glob::new(&text).ok().map(|glob| glob.compile_matcher()))
            .flatten();
        ModuleMatcher { text, glob }
    }

    /// Whether an import of `path` (binding `name`, if it names one) is of this module.
    pub fn matches(&self, path: &str, name: Option<&str>) -> bool {
        let path = path.strip_prefix("node:").unwrap_or(path);
        if let Some(glob) = &self.glob {
            return glob.is_match(path);
        }
        let prefix_of = |candidate: &str| {
            candidate == self.text
                || candidate
                    .strip_prefix(self.text.as_str())
                    .is_some_and(|rest| {
                        rest.starts_with('.') || rest.starts_with('/') || rest.starts_with("::")
                    })
        };
        if prefix_of(path) {
            return true;
        }
        // `reqwest::Client` or `os.path` written as the module and the name it imports.
        name.is_some_and(|name| {
            prefix_of(&format!("{path}::{name}")) || prefix_of(&format!("{path}.{name}"))
        })
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub name: Arc<str>,
    pub severity: Severity,
    pub reason: Option<String>,
    /// One-based line of the rule's table.
    pub line: u32,
    /// Which dependencies the rule counts.
    pub kinds: KindSet,
    pub body: RuleBody,
}

impl Rule {
    /// `layers`, `forbid`, `independent` or `cycles`.
    pub fn kind_name(&self) -> &'static str {
        match self.body {
            RuleBody::Layers { .. } => "layers",
            RuleBody::Forbid { .. } => "forbid",
            RuleBody::Independent { .. } => "independent",
            RuleBody::Cycles { .. } => "cycles",
        }
    }
}

/// What a rule says. Pattern lists are indices into [`RuleSet::patterns`]; a layer or an
/// independent module is a group of patterns (a string or a list of strings in the file).
#[derive(Debug, Clone)]
pub enum RuleBody {
    /// Higher layers (earlier) may depend on lower ones, never the reverse.
    Layers { layers: Vec<Vec<usize>> },
    /// Files matching `from` must not depend on anything matching `to`.
    Forbid { from: Vec<usize>, to: Vec<usize> },
    /// No module of the list may depend on another.
    Independent { modules: Vec<Vec<usize>> },
    /// No dependency cycles between files, or between directories.
    Cycles { between: CycleUnit },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CycleUnit {
    Files,
    Directories,
}

impl CycleUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            CycleUnit::Files => "files",
            CycleUnit::Directories => "directories",
        }
    }
}

pub(crate) fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

impl RuleSet {
    /// Parses the text of a rules file. Never fails: what is wrong is in `problems`, with its
    /// line, and the rules that could be read are kept.
    pub fn parse(text: &str) -> RuleSet {
        parse::parse(text)
    }

    /// A rule set with no rules and one problem: the file could not be read.
    pub fn unreadable(reason: &str) -> RuleSet {
        RuleSet {
            rules: Vec::new(),
            problems: vec![RuleProblem {
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
                rule: None,
                message: format!("cannot read the rules file: {reason}"),
            }],
            patterns: Vec::new(),
            globs: GlobSet::empty(),
            glob_owner: Vec::new(),
        }
    }

    pub fn rule(&self, name: &str) -> Option<&Rule> {
        self.rules.iter().find(|rule| &*rule.name == name)
    }

    /// The patterns a workspace-relative path matches, as a bit set over [`RuleSet::patterns`].
    pub fn classify(&self, path: &str) -> PathClass {
        let mut bits = vec![0u64; self.patterns.len().div_ceil(64)];
        for glob in self.globs.matches(path) {
            let pattern = self.glob_owner[glob] as usize;
            bits[pattern / 64] |= 1 << (pattern % 64);
        }
        PathClass {
            bits: bits.into_boxed_slice(),
        }
    }
}

/// Which patterns one path matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathClass {
    bits: Box<[u64]>,
}

impl PathClass {
    pub fn has(&self, pattern: usize) -> bool {
        self.bits
            .get(pattern / 64)
            .is_some_and(|word| word & (1 << (pattern % 64)) != 0)
    }

    pub fn any(&self, patterns: &[usize]) -> bool {
        patterns.iter().any(|&pattern| self.has(pattern))
    }

    /// The group (layer, module) this path belongs to: the one with the most specific
    /// matching pattern (the longest), so that a lower layer nested in a higher one's directory
    /// (`app/**` over `app/core/**`) holds its files; the earlier group on a tie.
    pub fn group(&self, groups: &[Vec<usize>], patterns: &[Pattern]) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (index, group) in groups.iter().enumerate() {
            for &pattern in group {
                if self.has(pattern) {
                    let length = patterns[pattern].text.len();
                    if best.is_none_or(|(_, longest)| length > longest) {
                        best = Some((index, length));
                    }
                }
            }
        }
        best.map(|(index, _)| index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        RuleSet::parse(text)
            .problems
            .iter()
            .map(|problem| format!("{}:{} {}", problem.line, problem.column, problem.message))
            .collect()
    }

    #[test]
    fn the_example_of_the_issue_parses_into_four_rules() {
        let rules = RuleSet::parse(
            r#"
[[layers]]
name = "app"
layers = ["src/ui/**", "src/services/**", "src/domain/**"]

[[forbid]]
name = "domain-is-pure"
from = "src/domain/**"
to = ["src/infra/**", "requests", "sqlalchemy"]
severity = "error"
reason = "Domain code must not know about infrastructure."

[[independent]]
name = "features"
modules = ["src/features/billing/**", "src/features/auth/**"]

[cycles]
forbid = true
"#,
        );
        assert_eq!(rules.problems, []);
        let summary: Vec<String> = rules
            .rules
            .iter()
            .map(|rule| format!("{} {} line {}", rule.kind_name(), rule.name, rule.line))
            .collect();
        assert_eq!(
            summary,
            [
                "layers app line 2",
                "forbid domain-is-pure line 6",
                "independent features line 13",
                "cycles cycles line 17"
            ]
        );
        let class = rules.classify("src/domain/order.py");
        let RuleBody::Layers { layers } = &rules.rules[0].body else {
            panic!("layers first")
        };
        assert_eq!(class.group(layers, &rules.patterns), Some(2));
        assert_eq!(
            rules
                .classify("src/ui/deep/view.ts")
                .group(layers, &rules.patterns),
            Some(0)
        );
        assert_eq!(
            rules.classify("lib/x.py").group(layers, &rules.patterns),
            None
        );
    }

    #[test]
    fn problems_name_their_line_and_column() {
        assert_eq!(
            problems(
                "[[forbid]]\nname = \"a\"\nform = \"src/**\"\nto = \"x\"\nseverity = \"fatal\"\n\n[[layers]]\nlayers = [\"src/a/**\"]\n[misc]\n"
            ),
            [
                "1:1 a `forbid` rule needs `from`",
                "3:1 unknown key `form` in a `forbid` rule (known: name, from, to, severity, reason, kinds)",
                "5:12 severity is `error`, `warning` or `info`, not \"fatal\"",
                "8:10 `layers` needs at least two layers, top to bottom",
                "9:2 unknown section `misc` (known: [[layers]], [[forbid]], [[independent]], [cycles])",
            ]
        );
        assert_eq!(
            problems("[[forbid]]\nfrom = \"src/[a\"\nto = [\"../x\"]\n"),
            [
                "2:8 `src/[a` is not a valid glob: unclosed character class; missing ']'",
                "3:7 `../x` is not a pattern of workspace-relative paths (no leading `/`, no `..`)",
            ]
        );
        let broken = problems("[[forbid]\nfrom = 1\n");
        assert_eq!(broken.len(), 1);
        assert!(broken[0].starts_with("1:"), "{broken:?}");
        assert!(broken[0].contains("not valid TOML"), "{broken:?}");
    }

    #[test]
    fn literal_paths_match_what_is_under_them_and_globs_do_not_cross_slashes() {
        let rules = RuleSet::parse(
            "[[independent]]\nmodules = [\"src/a\", \"src/b/*.py\", [\"x\", \"y/**\"]]\n",
        );
        assert_eq!(rules.problems, []);
        let RuleBody::Independent { modules } = &rules.rules[0].body else {
            panic!("independent")
        };
        let group = |path: &str| rules.classify(path).group(modules, &rules.patterns);
        assert_eq!(group("src/a/deep/f.py"), Some(0));
        assert_eq!(group("src/a"), Some(0));
        assert_eq!(group("src/ab/f.py"), None);
        assert_eq!(group("src/b/f.py"), Some(1));
        assert_eq!(group("src/b/deep/f.py"), None);
        assert_eq!(group("y/z/f.go"), Some(2));
    }

    #[test]
    fn external_modules_match_as_languages_write_them() {
        let matcher = ModuleMatcher::new("requests");
        assert!(matcher.matches("requests", None));
        assert!(matcher.matches("requests.adapters", None));
        assert!(!matcher.matches("requests_oauthlib", None));
        assert!(ModuleMatcher::new("net/http").matches("net/http/httptest", None));
        assert!(!ModuleMatcher::new("net/http").matches("net/httpx", None));
        assert!(ModuleMatcher::new("fs").matches("node:fs", None));
        assert!(ModuleMatcher::new("reqwest::Client").matches("reqwest", Some("Client")));
        assert!(!ModuleMatcher::new("reqwest::Client").matches("reqwest", Some("Url")));
        assert!(ModuleMatcher::new("@aws-sdk/*").matches("@aws-sdk/client-s3", None));
    }
}
