//! Reading a rules file: `toml`'s spanned document tree walked key by key, so that every
//! problem (a syntax error, an unknown key, a misspelt severity, a bad glob) names its line and
//! column, and problems never stop the other rules from being read.

use std::ops::Range;
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::super::{DependencyKind, KindSet, RuleProblem, Severity};
use super::{CycleUnit, ModuleMatcher, Pattern, Rule, RuleBody, RuleSet, has_glob};

/// Parses the text of a rules file (see [`RuleSet::parse`]).
pub(super) fn parse(text: &str) -> RuleSet {
    let mut builder = Builder {
        lines: Lines::new(text),
        problems: Vec::new(),
        patterns: Vec::new(),
        globs: GlobSetBuilder::new(),
        glob_owner: Vec::new(),
        rules: Vec::new(),
    };
    match DeTable::parse(text) {
        Err(error) => {
            let span = error.span().unwrap_or(0..0);
            builder.problem(
                span,
                None,
                format!("not valid TOML: {}", error.message().trim()),
            );
        }
        Ok(document) => {
            for (key, value) in document.get_ref().iter() {
                let kind = key.get_ref().as_ref();
                match kind {
                    "layers" | "forbid" | "independent" | "cycles" => {
                        let tables: Vec<&Entry<'_>> = match value.get_ref() {
                            DeValue::Array(items) => items.iter().collect(),
                            _ => vec![value],
                        };
                        for (position, table) in tables.into_iter().enumerate() {
                            builder.rule(kind, table, position);
                        }
                    }
                    _ => builder.problem(
                        key.span(),
                        None,
                        format!(
                            "unknown section `{kind}` (known: [[layers]], [[forbid]], [[independent]], [cycles])"
                        ),
                    ),
                }
            }
        }
    }
    // Keep the rules in file order, whatever order the table iterated in.
    builder.rules.sort_by_key(|rule| rule.line);
    builder
        .problems
        .sort_by_key(|problem| (problem.line, problem.column));
    let globs = builder.globs.build().unwrap_or_else(|error| {
        builder.problems.push(RuleProblem {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            rule: None,
            message: format!("the patterns do not compile together: {error}"),
        });
        GlobSet::empty()
    });
    let mut rules = builder.rules;
    // Patterns recorded the index their rule would get while it was read; sorting by line
    // moved rules, so point the patterns at their rule by line again.
    let mut patterns = builder.patterns;
    remap_pattern_rules(&mut rules, &mut patterns);
    RuleSet {
        rules,
        problems: builder.problems,
        patterns,
        globs,
        glob_owner: builder.glob_owner,
    }
}

/// One-based line and column of byte offsets in a text.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(index, _)| index + 1));
        Lines { starts }
    }

    fn at(&self, byte: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&start| start <= byte) - 1;
        (line as u32 + 1, (byte - self.starts[line]) as u32 + 1)
    }
}

/// The parser's working state: the problems so far, and the patterns and globs collected.
struct Builder {
    lines: Lines,
    problems: Vec<RuleProblem>,
    patterns: Vec<Pattern>,
    globs: GlobSetBuilder,
    glob_owner: Vec<u32>,
    rules: Vec<Rule>,
}

type Entry<'i> = Spanned<DeValue<'i>>;

impl Builder {
    fn problem(&mut self, span: Range<usize>, rule: Option<&str>, message: String) {
        let (line, column) = self.lines.at(span.start);
        let (end_line, end_column) = self.lines.at(span.end.max(span.start));
        self.problems.push(RuleProblem {
            line,
            column,
            end_line,
            end_column,
            rule: rule.map(str::to_string),
            message,
        });
    }

    /// The strings of a value that is a string or an array of strings, with their spans.
    fn strings(&mut self, value: &Entry<'_>, rule: &str, key: &str) -> Vec<(String, Range<usize>)> {
        match value.get_ref() {
            DeValue::String(text) => vec![(text.to_string(), value.span())],
            DeValue::Array(items) => {
                let mut found = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::String(text) => found.push((text.to_string(), item.span())),
                        other => self.problem(
                            item.span(),
                            Some(rule),
                            format!("`{key}` lists strings, not a {}", other.type_str()),
                        ),
                    }
                }
                found
            }
            other => {
                self.problem(
                    value.span(),
                    Some(rule),
                    format!(
                        "`{key}` is a string or a list of strings, not a {}",
                        other.type_str()
                    ),
                );
                Vec::new()
            }
        }
    }

    /// Groups: a list whose items are a pattern or a list of patterns (layers, modules).
    fn groups(&mut self, value: &Entry<'_>, rule: &str, key: &str) -> Vec<Vec<usize>> {
        let DeValue::Array(items) = value.get_ref() else {
            self.problem(
                value.span(),
                Some(rule),
                format!(
                    "`{key}` is a list (of patterns, or of lists of patterns), not a {}",
                    value.get_ref().type_str()
                ),
            );
            return Vec::new();
        };
        let mut groups = Vec::new();
        for item in items.iter() {
            let texts = self.strings(item, rule, key);
            let group: Vec<usize> = texts
                .into_iter()
                .filter_map(|(text, span)| self.pattern(&text, span, false, rule))
                .collect();
            if !group.is_empty() {
                groups.push(group);
            }
        }
        groups
    }

    /// Compiles one path pattern (a literal path also matches everything under it); `None`
    /// (and a problem) when it is not a valid glob.
    fn pattern(
        &mut self,
        text: &str,
        span: Range<usize>,
        module: bool,
        rule_name: &str,
    ) -> Option<usize> {
        let rule = self.rules.len();
        let trimmed = text.trim();
        let normalized = trimmed.strip_prefix("./").unwrap_or(trimmed);
        let normalized = normalized.trim_end_matches('/');
        if normalized.is_empty() || normalized.starts_with('/') || normalized.contains("..") {
            self.problem(
                span,
                Some(rule_name),
                format!(
                    "`{text}` is not a pattern of workspace-relative paths (no leading `/`, no `..`)"
                ),
            );
            return None;
        }
        let mut globs = vec![normalized.to_string()];
        if !has_glob(normalized) {
            globs.push(format!("{normalized}/**"));
        }
        let mut compiled = Vec::new();
        for glob in &globs {
            match GlobBuilder::new(glob).literal_separator(true).build() {
                Ok(glob) => compiled.push(glob),
                Err(error) => {
                    self.problem(
                        span,
                        Some(rule_name),
                        format!("`{text}` is not a valid glob: {}", error.kind()),
                    );
                    return None;
                }
            }
        }
        let id = self.patterns.len();
        for glob in compiled {
            self.globs.add(glob);
            self.glob_owner.push(id as u32);
        }
        let (line, column) = self.lines.at(span.start);
        let (end_line, end_column) = self.lines.at(span.end.max(span.start));
        self.patterns.push(Pattern {
            text: normalized.to_string(),
            line,
            column,
            end_line,
            end_column,
            rule,
            module: module.then(|| ModuleMatcher::new(normalized)),
        });
        Some(id)
    }

    /// Reads one rule table of `kind` and adds the rule (unless it is unusable).
    fn rule(&mut self, kind: &str, table: &Spanned<DeValue<'_>>, position: usize) {
        let DeValue::Table(fields) = table.get_ref() else {
            self.problem(
                table.span(),
                None,
                format!(
                    "`{kind}` holds tables (`[[{kind}]]`), not a {}",
                    table.get_ref().type_str()
                ),
            );
            return;
        };
        let allowed: &[&str] = match kind {
            "layers" => &["name", "layers", "severity", "reason", "kinds"],
            "forbid" => &["name", "from", "to", "severity", "reason", "kinds"],
            "independent" => &["name", "modules", "severity", "reason", "kinds"],
            _ => &["name", "forbid", "between", "severity", "reason", "kinds"],
        };
        let default_name = match (kind, position) {
            ("cycles", 0) => "cycles".to_string(),
            (_, 0) if kind != "forbid" => kind.to_string(),
            _ => format!("{kind}-{}", position + 1),
        };
        let name = match fields.get("name") {
            Some(value) => match value.get_ref() {
                DeValue::String(text) if !text.trim().is_empty() => text.trim().to_string(),
                other => {
                    self.problem(
                        value.span(),
                        None,
                        format!("`name` is a non-empty string, not {}", describe(other)),
                    );
                    default_name
                }
            },
            None => default_name,
        };
        for (key, _) in fields.iter() {
            if !allowed.contains(&key.get_ref().as_ref()) {
                self.problem(
                    key.span(),
                    Some(&name),
                    format!(
                        "unknown key `{}` in a `{kind}` rule (known: {})",
                        key.get_ref(),
                        allowed.join(", ")
                    ),
                );
            }
        }
        if self.rules.iter().any(|rule| *rule.name == *name) {
            self.problem(
                table.span(),
                Some(&name),
                format!("two rules are named `{name}`; names must be unique (they are the diagnostic codes)"),
            );
        }
        let severity = match fields.get("severity") {
            None => Severity::Error,
            Some(value) => match value.get_ref().as_str().and_then(Severity::parse) {
                Some(severity) => severity,
                None => {
                    self.problem(
                        value.span(),
                        Some(&name),
                        format!(
                            "severity is `error`, `warning` or `info`, not {}",
                            describe(value.get_ref())
                        ),
                    );
                    Severity::Error
                }
            },
        };
        let reason = match fields.get("reason") {
            None => None,
            Some(value) => match value.get_ref().as_str() {
                Some(text) => Some(text.trim().to_string()).filter(|text| !text.is_empty()),
                None => {
                    self.problem(
                        value.span(),
                        Some(&name),
                        format!("`reason` is a string, not {}", describe(value.get_ref())),
                    );
                    None
                }
            },
        };
        let default_kinds = if kind == "cycles" {
            KindSet::IMPORTS
        } else {
            KindSet::ALL
        };
        let kinds = match fields.get("kinds") {
            None => default_kinds,
            Some(value) => {
                let mut kinds = Vec::new();
                for (text, span) in self.strings(value, &name, "kinds") {
                    match DependencyKind::parse(&text) {
                        Some(kind) => kinds.push(kind),
                        None => self.problem(
                            span,
                            Some(&name),
                            format!("unknown dependency kind `{text}` (known: import, call, extends, implements, type_use)"),
                        ),
                    }
                }
                if kinds.is_empty() {
                    default_kinds
                } else {
                    KindSet::of(kinds)
                }
            }
        };
        let required = |builder: &mut Builder, key: &str| -> Option<&Entry<'_>> {
            let found = fields.get(key);
            if found.is_none() {
                builder.problem(
                    table.span(),
                    Some(&name),
                    format!("a `{kind}` rule needs `{key}`"),
                );
            }
            found
        };
        let body = match kind {
            "layers" => {
                let Some(value) = required(self, "layers") else {
                    return;
                };
                let layers = self.groups(value, &name, "layers");
                if layers.len() < 2 {
                    self.problem(
                        value.span(),
                        Some(&name),
                        "`layers` needs at least two layers, top to bottom".to_string(),
                    );
                    return;
                }
                RuleBody::Layers { layers }
            }
            "forbid" => {
                let (Some(from), Some(to)) = (required(self, "from"), required(self, "to")) else {
                    return;
                };
                let from_texts = self.strings(from, &name, "from");
                let from: Vec<usize> = from_texts
                    .into_iter()
                    .filter_map(|(text, span)| self.pattern(&text, span, false, &name))
                    .collect();
                let to_texts = self.strings(to, &name, "to");
                let to: Vec<usize> = to_texts
                    .into_iter()
                    .filter_map(|(text, span)| self.pattern(&text, span, true, &name))
                    .collect();
                if from.is_empty() || to.is_empty() {
                    return;
                }
                RuleBody::Forbid { from, to }
            }
            "independent" => {
                let Some(value) = required(self, "modules") else {
                    return;
                };
                let modules = self.groups(value, &name, "modules");
                if modules.len() < 2 {
                    self.problem(
                        value.span(),
                        Some(&name),
                        "`modules` needs at least two modules".to_string(),
                    );
                    return;
                }
                RuleBody::Independent { modules }
            }
            _ => {
                match fields
                    .get("forbid")
                    .map(|value| (value.get_ref().as_bool(), value))
                {
                    Some((Some(true), _)) => {}
                    Some((Some(false), _)) => return,
                    Some((None, value)) => {
                        self.problem(
                            value.span(),
                            Some(&name),
                            format!(
                                "`forbid` is true or false, not {}",
                                describe(value.get_ref())
                            ),
                        );
                        return;
                    }
                    None => {
                        self.problem(
                            table.span(),
                            Some(&name),
                            "`[cycles]` needs `forbid = true` to forbid cycles".to_string(),
                        );
                        return;
                    }
                }
                let between = match fields.get("between") {
                    None => CycleUnit::Files,
                    Some(value) => match value.get_ref().as_str() {
                        Some("files" | "file") => CycleUnit::Files,
                        Some("directories" | "directory" | "dirs") => CycleUnit::Directories,
                        _ => {
                            self.problem(
                                value.span(),
                                Some(&name),
                                format!(
                                    "`between` is \"files\" or \"directories\", not {}",
                                    describe(value.get_ref())
                                ),
                            );
                            CycleUnit::Files
                        }
                    },
                };
                RuleBody::Cycles { between }
            }
        };
        let (line, _) = self.lines.at(table.span().start);
        self.rules.push(Rule {
            name: Arc::from(name.as_str()),
            severity,
            reason,
            line,
            kinds,
            body,
        });
        // Patterns took the rule's future index; a rule dropped above leaves its patterns
        // unreferenced, which is harmless.
    }
}

fn describe(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(text) => format!("\"{text}\""),
        DeValue::Boolean(value) => value.to_string(),
        DeValue::Integer(value) => value.as_str().to_string(),
        other => format!("a {}", other.type_str()),
    }
}

/// Points every pattern at the index of the rule that lists it (rules were sorted by line).
fn remap_pattern_rules(rules: &mut [Rule], patterns: &mut [Pattern]) {
    let mut owner = vec![usize::MAX; patterns.len()];
    for (index, rule) in rules.iter().enumerate() {
        let ids: Vec<usize> = match &rule.body {
            RuleBody::Layers { layers } => layers.iter().flatten().copied().collect(),
            RuleBody::Forbid { from, to } => from.iter().chain(to).copied().collect(),
            RuleBody::Independent { modules } => modules.iter().flatten().copied().collect(),
            RuleBody::Cycles { .. } => Vec::new(),
        };
        for id in ids {
            owner[id] = index;
        }
    }
    for (pattern, owner) in patterns.iter_mut().zip(owner) {
        pattern.rule = owner;
    }
}
