//! Evaluating one file against the rules: its dependencies, each distinct target judged once
//! per rule, one violation per rule and site, and the dependencies its cycles rules count.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::super::config::{PathClass, RuleBody, RuleSet};
use super::super::cycles::Cycles;
use super::super::deps::{self, Dependency, Target};
use super::super::{DependencyKind, Violation};
use super::{CycleDep, FileCheck, TargetRef};
use codegraph_graph::{FileNode, FilePath, Graph};
use codegraph_model::Span;

/// Why the dependency of a file of class `from` onto `target` breaks rule `index`, if it does.
pub(super) fn explain(
    rules: &RuleSet,
    index: usize,
    from: &PathClass,
    target: &TargetRef<'_>,
) -> Option<String> {
    let rule = &rules.rules[index];
    let text = |group: &[usize]| -> String {
        group
            .iter()
            .map(|&pattern| format!("`{}`", rules.patterns[pattern].text))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    match &rule.body {
        RuleBody::Layers { layers } => {
            let TargetRef::File { class, .. } = target else {
                return None;
            };
            let from_layer = from.group(layers, &rules.patterns)?;
            let to_layer = class.group(layers, &rules.patterns)?;
            (to_layer < from_layer).then(|| {
                format!(
                    "layer {} ({} of {}) must not depend on the higher layer {} ({}); higher layers may depend on lower ones, never the reverse",
                    text(&layers[from_layer]),
                    from_layer + 1,
                    layers.len(),
                    text(&layers[to_layer]),
                    to_layer + 1,
                )
            })
        }
        RuleBody::Forbid { from: sources, to } => {
            let source = sources.iter().find(|&&pattern| from.has(pattern))?;
            let forbidden = to.iter().find(|&&pattern| match target {
                TargetRef::File { class, .. } => class.has(pattern),
                TargetRef::External { module, name } => rules.patterns[pattern]
                    .module
                    .as_ref()
                    .is_some_and(|matcher| matcher.matches(module, *name)),
            })?;
            Some(format!(
                "`{}` must not depend on `{}`",
                rules.patterns[*source].text, rules.patterns[*forbidden].text
            ))
        }
        RuleBody::Independent { modules } => {
            let TargetRef::File { class, .. } = target else {
                return None;
            };
            let from_module = from.group(modules, &rules.patterns)?;
            let to_module = class.group(modules, &rules.patterns)?;
            (to_module != from_module).then(|| {
                format!(
                    "{} and {} must stay independent of each other",
                    text(&modules[from_module]),
                    text(&modules[to_module])
                )
            })
        }
        RuleBody::Cycles { .. } => None,
    }
}

/// One dependency that breaks a rule, as a violation says it.
pub(super) struct Breach {
    pub(super) kind: DependencyKind,
    pub(super) site: Span,
    /// The target as shown: an entity id, or the external module.
    pub(super) target: String,
    pub(super) target_file: Option<FilePath>,
    /// Why it breaks the rule.
    pub(super) explanation: String,
}

pub(super) fn violation(rule: &super::super::Rule, node: &FileNode, breach: Breach) -> Violation {
    let Breach {
        kind,
        site,
        target,
        target_file,
        explanation,
    } = breach;
    let mut message = format!("{} {target}: {explanation}", kind.verb());
    if let Some(reason) = &rule.reason {
        message.push_str(". ");
        message.push_str(reason);
    }
    // The text as indexed (read again from disk when no editor holds it; none when it changed
    // since, and then the file is being re-indexed).
    let text = node.text().unwrap_or_default();
    let located = node.summary.locate(site);
    let fix = if kind == DependencyKind::Import {
        deps::remove_import(&text, located)
    } else {
        None
    };
    Violation {
        rule: rule.name.clone(),
        severity: rule.severity,
        file: node.path,
        line: located.start.line + 1,
        column: located.start.column + 1,
        span: located,
        kind,
        reference: deps::reference_text(&text, site),
        target,
        target_file,
        message,
        fix,
    }
}

fn precedence(kind: DependencyKind) -> u8 {
    match kind {
        DependencyKind::Import => 0,
        DependencyKind::Extends => 1,
        DependencyKind::Implements => 2,
        DependencyKind::Call => 3,
        DependencyKind::TypeUse => 4,
    }
}

/// What evaluating a file reads: the rules, the cycles rules' graphs, and the files'
/// classification by the rules' patterns.
pub(super) struct Evaluation<'a> {
    pub(super) rules: &'a RuleSet,
    pub(super) cycles: &'a [Arc<Cycles>],
    pub(super) classes: &'a FxHashMap<FilePath, Arc<PathClass>>,
}

impl Evaluation<'_> {
    /// The layer, forbid and independence violations of one file, and its dependencies for
    /// cycles.
    pub(super) fn file(&self, graph: &Graph, node: &Arc<FileNode>) -> FileCheck {
        let dependencies = sorted_dependencies(graph, node);
        let has_path_rules = self
            .rules
            .rules
            .iter()
            .any(|rule| !matches!(rule.body, RuleBody::Cycles { .. }));
        let violations = if has_path_rules {
            self.path_violations(node, &dependencies)
        } else {
            Vec::new()
        };
        FileCheck {
            node: node.clone(),
            violations,
            cycle_deps: self.cycle_deps(&dependencies),
        }
    }

    /// How the rules' patterns classify `path` (known, or computed now).
    fn class_of(&self, path: &FilePath) -> Arc<PathClass> {
        self.classes
            .get(path)
            .cloned()
            .unwrap_or_else(|| Arc::new(self.rules.classify(path)))
    }

    /// The violations of the layer, forbid and independence rules by the file's dependencies:
    /// one per rule and site.
    fn path_violations(&self, node: &FileNode, dependencies: &[Dependency]) -> Vec<Violation> {
        let own = self.class_of(&node.path);
        let mut violations = Vec::new();
        // Each distinct target is judged once per rule: a file calls into another many times.
        let mut verdicts: FxHashMap<&Target, Vec<(usize, String)>> = FxHashMap::default();
        let mut seen: FxHashSet<(usize, u32, u32)> = FxHashSet::default();
        for dependency in dependencies {
            let verdict = verdicts
                .entry(&dependency.target)
                .or_insert_with(|| self.verdict(&own, &dependency.target));
            for (index, explanation) in verdict.iter() {
                let rule = &self.rules.rules[*index];
                if !rule.kinds.contains(dependency.kind) {
                    continue;
                }
                let key = (*index, dependency.site.start_byte, dependency.site.end_byte);
                if !seen.insert(key) {
                    continue;
                }
                let breach = Breach {
                    kind: dependency.kind,
                    site: dependency.site,
                    target: dependency.target.display(),
                    target_file: dependency.target.file().cloned(),
                    explanation: explanation.clone(),
                };
                violations.push(violation(rule, node, breach));
            }
        }
        violations
    }

    /// The rules a dependency of a file classified `own` onto `target` breaks, each with its
    /// explanation, whatever the dependency's kind.
    fn verdict(&self, own: &PathClass, target: &Target) -> Vec<(usize, String)> {
        let class;
        let target = match target {
            Target::Entity { file, .. } => {
                class = self.class_of(file);
                TargetRef::File {
                    path: file,
                    class: &class,
                }
            }
            Target::External { module, name } => TargetRef::External {
                module,
                name: name.as_deref(),
            },
        };
        (0..self.rules.rules.len())
            .filter_map(|index| explain(self.rules, index, own, &target).map(|text| (index, text)))
            .collect()
    }

    /// Per cycles rule: the file's dependencies of the kinds it counts onto workspace files.
    fn cycle_deps(&self, dependencies: &[Dependency]) -> Vec<Vec<CycleDep>> {
        self.cycles
            .iter()
            .map(|cycles| {
                let kinds = self.rules.rules[cycles.rule].kinds;
                dependencies
                    .iter()
                    .filter(|dependency| kinds.contains(dependency.kind))
                    .filter_map(|dependency| match &dependency.target {
                        Target::Entity { file, entity } => Some(CycleDep {
                            kind: dependency.kind,
                            site: dependency.site,
                            file: *file,
                            entity: *entity,
                        }),
                        Target::External { .. } => None,
                    })
                    .collect()
            })
            .collect()
    }
}

/// The file's dependencies by site. One violation per rule and site: at a site that is several
/// dependencies at once (`impl Store for Account` implements and uses the type), the most
/// telling kind speaks, so it comes first.
fn sorted_dependencies(graph: &Graph, node: &Arc<FileNode>) -> Vec<Dependency> {
    let mut dependencies: Vec<Dependency> = deps::dependencies(graph, node);
    dependencies.sort_by_key(|dependency| {
        (
            dependency.site.start_byte,
            dependency.site.end_byte,
            precedence(dependency.kind),
        )
    });
    dependencies
}
