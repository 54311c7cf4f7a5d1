//! Freezing today's violations (ArchUnit's "freezing rules"), so that an existing codebase can
//! adopt rules without fixing everything first: only violations that are not in the baseline
//! fail the check. And drift: how a rule's violations spread over module pairs, now against the
//! baseline.
//!
//! A baseline entry is a violation without its position (rule, file, kind, target, the reference
//! as written): editing a file above an old violation does not make it new. Entries are counted,
//! so a second identical import of a forbidden module is new.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::{DependencyKind, RuleSet, Violation};

const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub violations: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    pub rule: String,
    pub file: String,
    pub kind: DependencyKind,
    pub target: String,
    pub reference: String,
}

impl Entry {
    pub fn of(violation: &Violation) -> Entry {
        Entry {
            rule: violation.rule.to_string(),
            file: violation.file.to_string(),
            kind: violation.kind,
            target: violation.target.clone(),
            reference: violation.reference.clone(),
        }
    }
}

impl Baseline {
    pub fn of(violations: &[Violation]) -> Baseline {
        let mut entries: Vec<Entry> = violations.iter().map(Entry::of).collect();
        entries.sort();
        Baseline {
            version: VERSION,
            violations: entries,
        }
    }

    pub fn read(path: &Path) -> anyhow::Result<Baseline> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the baseline {}", path.display()))?;
        let baseline: Baseline = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a codegraph baseline", path.display()))?;
        if baseline.version != VERSION {
            anyhow::bail!(
                "{}: baseline version {} (this codegraph writes {VERSION}); write it again with --write-baseline",
                path.display(),
                baseline.version
            );
        }
        Ok(baseline)
    }

    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let text = serde_json::to_string_pretty(self)? + "\n";
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    }

    fn counts(&self) -> BTreeMap<&Entry, usize> {
        let mut counts = BTreeMap::new();
        for entry in &self.violations {
            *counts.entry(entry).or_insert(0) += 1;
        }
        counts
    }
}

/// Violations split against a baseline: `new` ones are not in it; `fixed` are baseline entries
/// that no longer occur.
pub struct Split<'a> {
    pub new: Vec<&'a Violation>,
    pub known: Vec<&'a Violation>,
    pub fixed: Vec<Entry>,
}

pub fn split<'a>(violations: &'a [Violation], baseline: &Baseline) -> Split<'a> {
    let mut remaining: BTreeMap<Entry, usize> = baseline
        .counts()
        .into_iter()
        .map(|(entry, count)| (entry.clone(), count))
        .collect();
    let mut new = Vec::new();
    let mut known = Vec::new();
    for violation in violations {
        match remaining.get_mut(&Entry::of(violation)) {
            Some(count) if *count > 0 => {
                *count -= 1;
                known.push(violation);
            }
            _ => new.push(violation),
        }
    }
    let fixed = remaining
        .into_iter()
        .flat_map(|(entry, count)| std::iter::repeat_n(entry, count))
        .collect();
    Split { new, known, fixed }
}

/// One rule's violations now, in the baseline, new and fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub rule: String,
    pub now: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<usize>,
}

/// Per rule of `rules`, in file order: violations now and, with a baseline, then.
pub fn per_rule(
    rules: &RuleSet,
    violations: &[Violation],
    baseline: Option<&Baseline>,
) -> Vec<RuleCount> {
    rules
        .rules
        .iter()
        .map(|rule| {
            let mine: Vec<Violation> = violations
                .iter()
                .filter(|violation| violation.rule == rule.name)
                .cloned()
                .collect();
            let then = baseline.map(|baseline| Baseline {
                version: VERSION,
                violations: baseline
                    .violations
                    .iter()
                    .filter(|entry| *entry.rule == *rule.name)
                    .cloned()
                    .collect(),
            });
            let split = then.as_ref().map(|then| split(&mine, then));
            RuleCount {
                rule: rule.name.to_string(),
                now: mine.len(),
                baseline: then.as_ref().map(|then| then.violations.len()),
                new: split.as_ref().map(|split| split.new.len()),
                fixed: split.as_ref().map(|split| split.fixed.len()),
            }
        })
        .collect()
}

/// The edges behind a rule's violations between one pair of modules (directories, or an
/// external module).
#[derive(Debug, Clone, Serialize)]
pub struct ModulePair {
    pub from: String,
    pub to: String,
    pub count: usize,
    /// How many of them are not in the baseline (with a baseline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<usize>,
    pub by_kind: BTreeMap<String, usize>,
    pub edges: Vec<PairEdge>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PairEdge {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub kind: DependencyKind,
    pub reference: String,
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<bool>,
}

/// A file's directory as the drift report shows it: `a/b/`, `./` for the root.
fn directory(path: &str) -> String {
    match codegraph_graph::modules::directory(path) {
        "" => "./".to_string(),
        directory => format!("{directory}/"),
    }
}

/// The drift of one rule: its violations grouped by (module of the file, module of the target),
/// the pairs with the most edges first.
pub fn explain(
    rule: &str,
    violations: &[Violation],
    baseline: Option<&Baseline>,
) -> Vec<ModulePair> {
    let mine: Vec<Violation> = violations
        .iter()
        .filter(|violation| &*violation.rule == rule)
        .cloned()
        .collect();
    let new: Option<Vec<bool>> = baseline.map(|baseline| {
        let split = split(&mine, baseline);
        let new: std::collections::HashSet<*const Violation> = split
            .new
            .iter()
            .map(|violation| *violation as *const Violation)
            .collect();
        mine.iter()
            .map(|violation| new.contains(&(violation as *const Violation)))
            .collect()
    });
    let mut pairs: BTreeMap<(String, String), ModulePair> = BTreeMap::new();
    for (index, violation) in mine.iter().enumerate() {
        let from = directory(&violation.file);
        let to = match &violation.target_file {
            Some(file) => directory(file),
            None => violation.target.clone(),
        };
        let is_new = new.as_ref().map(|new| new[index]);
        let pair = pairs
            .entry((from.clone(), to.clone()))
            .or_insert_with(|| ModulePair {
                from,
                to,
                count: 0,
                new: baseline.map(|_| 0),
                by_kind: BTreeMap::new(),
                edges: Vec::new(),
            });
        pair.count += 1;
        if is_new == Some(true) {
            pair.new = pair.new.map(|count| count + 1);
        }
        *pair
            .by_kind
            .entry(violation.kind.as_str().to_string())
            .or_insert(0) += 1;
        pair.edges.push(PairEdge {
            file: violation.file.to_string(),
            line: violation.line,
            column: violation.column,
            kind: violation.kind,
            reference: violation.reference.clone(),
            target: violation.target.clone(),
            new: is_new,
        });
    }
    let mut pairs: Vec<ModulePair> = pairs.into_values().collect();
    pairs.sort_by(|left, right| {
        right
            .count
            .cmp(&left.count)
            .then_with(|| left.from.cmp(&right.from))
    });
    pairs
}
