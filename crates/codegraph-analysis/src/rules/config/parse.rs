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
                builder.section(key, value);
            }
        }
    }
    builder.finish()
}

/// One-based line and column of byte offsets in a text.
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

/// What a pattern matches: workspace paths only, or external modules too (a `forbid` rule's
/// `to`: `requests` matches `requests.adapters`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Matches {
    Files,
    FilesAndModules,
}

impl Builder {
    /// Reads one top-level section: its rule tables, or a problem for an unknown section.
    fn section(&mut self, key: &Spanned<std::borrow::Cow<'_, str>>, value: &Entry<'_>) {
        let kind = key.get_ref().as_ref();
        match kind {
            "layers" | "forbid" | "independent" | "cycles" => {
                let tables: Vec<&Entry<'_>> = match value.get_ref() {
                    DeValue::Array(items) => items.iter().collect(),
                    _ => vec![value],
                };
                for (position, table) in tables.into_iter().enumerate() {
                    self.rule(kind, table, position);
                }
            }
            _ => self.problem(
                key.span(),
                None,
                format!(
                    "unknown section `{kind}` (known: [[layers]], [[forbid]], [[independent]], [cycles])"
                ),
            ),
        }
    }

    /// The rule set read: rules in file order, problems by position, the patterns compiled.
    fn finish(mut self) -> RuleSet {
        // Keep the rules in file order, whatever order the table iterated in.
        self.rules.sort_by_key(|rule| rule.line);
        self.problems
            .sort_by_key(|problem| (problem.line, problem.column));
        let globs = self.globs.build().unwrap_or_else(|error| {
            self.problems.push(RuleProblem {
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 1,
                rule: None,
                message: format!("the patterns do not compile together: {error}"),
            });
            GlobSet::empty()
        });
        // Patterns recorded the index their rule would get while it was read; sorting by line
        // moved rules, so point the patterns at their rule by line again.
        remap_pattern_rules(&mut self.rules, &mut self.patterns);
        RuleSet {
            rules: self.rules,
            problems: self.problems,
            patterns: self.patterns,
            globs,
            glob_owner: self.glob_owner,
        }
    }

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
            let group = self.patterns_of(item, rule, key, Matches::Files);
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
        matches: Matches,
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
            module: (matches == Matches::FilesAndModules).then(|| ModuleMatcher::new(normalized)),
        });
        Some(id)
    }

    /// Reads one rule table of `kind` and adds the rule (unless it is unusable).
    fn rule(&mut self, kind: &str, table: &Entry<'_>, position: usize) {
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
        let name = self.rule_name(kind, fields, position);
        let rule = RuleTable {
            kind,
            table,
            fields,
            name,
        };
        self.unknown_keys(&rule);
        if self.rules.iter().any(|known| *known.name == *rule.name) {
            self.problem(
                table.span(),
                Some(&rule.name),
                format!(
                    "two rules are named `{}`; names must be unique (they are the diagnostic codes)",
                    rule.name
                ),
            );
        }
        let severity = self.severity(&rule);
        let reason = self.reason(&rule);
        let kinds = self.kinds(&rule);
        let Some(body) = self.body(&rule) else {
            // Patterns took the rule's future index; a rule dropped here leaves its patterns
            // unreferenced, which is harmless.
            return;
        };
        let (line, _) = self.lines.at(table.span().start);
        self.rules.push(Rule {
            name: Arc::from(rule.name.as_str()),
            severity,
            reason,
            line,
            kinds,
            body,
        });
    }

    /// The rule's `name`, or its default: the kind for the first of a kind (but `forbid`), the
    /// kind and position for the others.
    fn rule_name(&mut self, kind: &str, fields: &DeTable<'_>, position: usize) -> String {
        let default_name = match (kind, position) {
            ("cycles", 0) => "cycles".to_string(),
            (_, 0) if kind != "forbid" => kind.to_string(),
            _ => format!("{kind}-{}", position + 1),
        };
        let Some(value) = fields.get("name") else {
            return default_name;
        };
        match value.get_ref() {
            DeValue::String(text) if !text.trim().is_empty() => text.trim().to_string(),
            other => {
                self.problem(
                    value.span(),
                    None,
                    format!("`name` is a non-empty string, not {}", describe(other)),
                );
                default_name
            }
        }
    }

    /// A problem for each key that a rule of its kind does not take.
    fn unknown_keys(&mut self, rule: &RuleTable<'_, '_>) {
        let allowed: &[&str] = match rule.kind {
            "layers" => &["name", "layers", "severity", "reason", "kinds"],
            "forbid" => &["name", "from", "to", "severity", "reason", "kinds"],
            "independent" => &["name", "modules", "severity", "reason", "kinds"],
            _ => &["name", "forbid", "between", "severity", "reason", "kinds"],
        };
        for (key, _) in rule.fields.iter() {
            if !allowed.contains(&key.get_ref().as_ref()) {
                self.problem(
                    key.span(),
                    Some(&rule.name),
                    format!(
                        "unknown key `{}` in a `{}` rule (known: {})",
                        key.get_ref(),
                        rule.kind,
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    /// The rule's `severity`: an error unless it says otherwise.
    fn severity(&mut self, rule: &RuleTable<'_, '_>) -> Severity {
        let Some(value) = rule.fields.get("severity") else {
            return Severity::Error;
        };
        if let Some(severity) = value.get_ref().as_str().and_then(Severity::parse) {
            return severity;
        }
        self.problem(
            value.span(),
            Some(&rule.name),
            format!(
                "severity is `error`, `warning` or `info`, not {}",
                describe(value.get_ref())
            ),
        );
        Severity::Error
    }

    /// The rule's `reason`, trimmed, if it gives a non-empty one.
    fn reason(&mut self, rule: &RuleTable<'_, '_>) -> Option<String> {
        let value = rule.fields.get("reason")?;
        match value.get_ref().as_str() {
            Some(text) => Some(text.trim().to_string()).filter(|text| !text.is_empty()),
            None => {
                self.problem(
                    value.span(),
                    Some(&rule.name),
                    format!("`reason` is a string, not {}", describe(value.get_ref())),
                );
                None
            }
        }
    }

    /// The dependency kinds the rule counts: its `kinds`, else imports for a cycles rule and
    /// every kind for the others.
    fn kinds(&mut self, rule: &RuleTable<'_, '_>) -> KindSet {
        let default_kinds = if rule.kind == "cycles" {
            KindSet::IMPORTS
        } else {
            KindSet::ALL
        };
        let Some(value) = rule.fields.get("kinds") else {
            return default_kinds;
        };
        let mut kinds = Vec::new();
        for (text, span) in self.strings(value, &rule.name, "kinds") {
            match DependencyKind::parse(&text) {
                Some(kind) => kinds.push(kind),
                None => self.problem(
                    span,
                    Some(&rule.name),
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

    /// What the rule says, by its kind; `None` (with a problem, but for `forbid = false`) when
    /// the rule is unusable.
    fn body(&mut self, rule: &RuleTable<'_, '_>) -> Option<RuleBody> {
        match rule.kind {
            "layers" => self.layers_body(rule),
            "forbid" => self.forbid_body(rule),
            "independent" => self.independent_body(rule),
            _ => self.cycles_body(rule),
        }
    }

    /// The value of a key the rule needs, or a problem.
    fn required<'t, 'i>(&mut self, rule: &RuleTable<'t, 'i>, key: &str) -> Option<&'t Entry<'i>> {
        let found = rule.fields.get(key);
        if found.is_none() {
            self.problem(
                rule.table.span(),
                Some(&rule.name),
                format!("a `{}` rule needs `{key}`", rule.kind),
            );
        }
        found
    }

    fn layers_body(&mut self, rule: &RuleTable<'_, '_>) -> Option<RuleBody> {
        let value = self.required(rule, "layers")?;
        let layers = self.groups(value, &rule.name, "layers");
        if layers.len() < 2 {
            self.problem(
                value.span(),
                Some(&rule.name),
                "`layers` needs at least two layers, top to bottom".to_string(),
            );
            return None;
        }
        Some(RuleBody::Layers { layers })
    }

    fn forbid_body(&mut self, rule: &RuleTable<'_, '_>) -> Option<RuleBody> {
        let (Some(from), Some(to)) = (self.required(rule, "from"), self.required(rule, "to"))
        else {
            return None;
        };
        let from = self.patterns_of(from, &rule.name, "from", Matches::Files);
        let to = self.patterns_of(to, &rule.name, "to", Matches::FilesAndModules);
        if from.is_empty() || to.is_empty() {
            return None;
        }
        Some(RuleBody::Forbid { from, to })
    }

    /// The patterns of a string or a list of strings, the invalid ones left out.
    fn patterns_of(
        &mut self,
        value: &Entry<'_>,
        rule: &str,
        key: &str,
        matches: Matches,
    ) -> Vec<usize> {
        let texts = self.strings(value, rule, key);
        texts
            .into_iter()
            .filter_map(|(text, span)| self.pattern(&text, span, matches, rule))
            .collect()
    }

    fn independent_body(&mut self, rule: &RuleTable<'_, '_>) -> Option<RuleBody> {
        let value = self.required(rule, "modules")?;
        let modules = self.groups(value, &rule.name, "modules");
        if modules.len() < 2 {
            self.problem(
                value.span(),
                Some(&rule.name),
                "`modules` needs at least two modules".to_string(),
            );
            return None;
        }
        Some(RuleBody::Independent { modules })
    }

    /// A cycles rule: only with `forbid = true` (`false` turns it off without a problem).
    fn cycles_body(&mut self, rule: &RuleTable<'_, '_>) -> Option<RuleBody> {
        let Some(value) = rule.fields.get("forbid") else {
            self.problem(
                rule.table.span(),
                Some(&rule.name),
                "`[cycles]` needs `forbid = true` to forbid cycles".to_string(),
            );
            return None;
        };
        match value.get_ref().as_bool() {
            Some(true) => {}
            Some(false) => return None,
            None => {
                self.problem(
                    value.span(),
                    Some(&rule.name),
                    format!(
                        "`forbid` is true or false, not {}",
                        describe(value.get_ref())
                    ),
                );
                return None;
            }
        }
        let between = self.cycle_unit(rule);
        Some(RuleBody::Cycles { between })
    }

    /// What a cycles rule's nodes are (`between`): files unless it says directories.
    fn cycle_unit(&mut self, rule: &RuleTable<'_, '_>) -> CycleUnit {
        let Some(value) = rule.fields.get("between") else {
            return CycleUnit::Files;
        };
        match value.get_ref().as_str() {
            Some("files" | "file") => CycleUnit::Files,
            Some("directories" | "directory" | "dirs") => CycleUnit::Directories,
            _ => {
                self.problem(
                    value.span(),
                    Some(&rule.name),
                    format!(
                        "`between` is \"files\" or \"directories\", not {}",
                        describe(value.get_ref())
                    ),
                );
                CycleUnit::Files
            }
        }
    }
}

/// One rule table being read: its kind, the table and its fields, and the rule's name.
struct RuleTable<'t, 'i> {
    kind: &'t str,
    table: &'t Entry<'i>,
    fields: &'t DeTable<'i>,
    name: String,
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
