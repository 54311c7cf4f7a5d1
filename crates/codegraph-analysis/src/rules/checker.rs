//! The evaluation of a [`RuleSet`] on a graph, kept per file and redone only where a change can
//! have changed it.
//!
//! A file's violations of the layer, forbid and independence rules are a function of its node in
//! the graph (its edges name their targets, and a target's file is part of its id) and of the
//! rules: [`Checker::update`] re-evaluates exactly the files whose `FileNode` is not the one it
//! saw last time (the writer shares unchanged nodes between snapshots; which files those can
//! be, the snapshot says, `Graph::changed_since`, so an edit does not compare every file).
//! Cycles need the
//! dependency graph between files (or directories): it is kept (`rules/cycles.rs`), a changed
//! file moves its own edges, and the components are recomputed only where the moved edges can
//! have changed them; a file's cycle violations are derived from them when asked.

use std::sync::Arc;

use codegraph_model::Name;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::config::{PathClass, RuleBody, RuleSet, has_glob};
use super::cycles::{Cycles, node_display, node_of};
use super::{DependencyKind, RuleProblem, Violation};
use codegraph_graph::{Change, EntityId, FileNode, FilePath, Graph};
use codegraph_model::Span;

mod evaluate;

use evaluate::{Breach, Evaluation, explain, violation};

/// Above this many files to evaluate, the work is spread over threads.
const PARALLEL_FROM: usize = 64;

/// The rules evaluated on a graph. Cheap to clone (per-file verdicts are shared), so a proposed
/// change can be checked on a copy.
#[derive(Clone)]
pub struct Checker {
    rules: Arc<RuleSet>,
    files: FxHashMap<FilePath, Arc<FileCheck>>,
    classes: FxHashMap<FilePath, Arc<PathClass>>,
    /// One per cycles rule, in rule order.
    cycles: Vec<Arc<Cycles>>,
    /// The rules file's problems: as written, and patterns that match no file.
    problems: Arc<Vec<RuleProblem>>,
    /// How many files the last update evaluated again.
    last_evaluated: usize,
    /// How many nodes of the cycles' graphs the last update recomputed components over.
    last_cycle_nodes: usize,
    /// The snapshot the verdicts are of (`Graph::change_mark`): the next update reads which
    /// files changed since from the graph's changes instead of comparing every file.
    mark: Option<Arc<Change>>,
}

/// What an update found to do.
#[derive(Default)]
struct Changes {
    /// Files to evaluate again.
    changed: Vec<Arc<FileNode>>,
    /// Whether some of them are new.
    added: bool,
    /// Files whose node changed but not what their verdicts are made of (a file that walked
    /// through an edited one keeps its edges, its walk's record changed): renewed as they are.
    kept: Vec<Arc<FileCheck>>,
    /// The verdicts of files gone.
    gone: Vec<Arc<FileCheck>>,
}

impl Changes {
    /// Sorts a file of the graph by its verdict so far (`None` for a new file).
    fn file(&mut self, node: &Arc<FileNode>, check: Option<&Arc<FileCheck>>) {
        match check {
            Some(check) if Arc::ptr_eq(&check.node, node) => {}
            Some(check) if same_dependencies(&check.node, node) => {
                self.kept.push(check.renewed(node));
            }
            Some(_) => self.changed.push(node.clone()),
            None => {
                self.added = true;
                self.changed.push(node.clone());
            }
        }
    }
}

/// One file's verdict.
struct FileCheck {
    node: Arc<FileNode>,
    violations: Vec<Violation>,
    /// Per cycles rule: the dependencies that count for it, onto other files.
    cycle_deps: Vec<Vec<CycleDep>>,
}

impl FileCheck {
    /// The same verdicts, for `node`.
    fn renewed(&self, node: &Arc<FileNode>) -> Arc<FileCheck> {
        Arc::new(FileCheck {
            node: node.clone(),
            violations: self.violations.clone(),
            cycle_deps: self.cycle_deps.clone(),
        })
    }
}

/// Whether a file's verdicts, made from `old`, hold for `new`: they are made of its text (the
/// sites quoted, the fixes), its summary's imports and its edges (`Evaluation::file`, in
/// `rules/checker/evaluate.rs`), and a node whose summary and text are the ones before and whose
/// edges are equal has the same ones.
fn same_dependencies(old: &FileNode, new: &FileNode) -> bool {
    Arc::ptr_eq(&old.summary, &new.summary)
        && old.hash == new.hash
        && old.resolved.edges == new.resolved.edges
}

#[derive(Clone)]
struct CycleDep {
    kind: DependencyKind,
    site: Span,
    file: FilePath,
    entity: EntityId,
}

/// What a dependency lands on, as rule evaluation sees it.
pub enum TargetRef<'a> {
    File {
        path: &'a str,
        class: &'a PathClass,
    },
    External {
        module: &'a str,
        name: Option<&'a str>,
    },
}

impl Checker {
    pub fn new(rules: Arc<RuleSet>) -> Checker {
        let cycles = rules
            .rules
            .iter()
            .enumerate()
            .filter_map(|(index, rule)| match rule.body {
                RuleBody::Cycles { between } => Some(Arc::new(Cycles::new(index, between))),
                _ => None,
            })
            .collect();
        let problems = Arc::new(rules.problems.clone());
        Checker {
            rules,
            files: FxHashMap::default(),
            classes: FxHashMap::default(),
            cycles,
            problems,
            last_evaluated: 0,
            last_cycle_nodes: 0,
            mark: None,
        }
    }

    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// The problems of the rules file: as written, and patterns that match no file.
    pub fn problems(&self) -> &[RuleProblem] {
        &self.problems
    }

    /// How many files the last [`Checker::update`] evaluated again (for tests and benchmarks).
    pub fn last_evaluated(&self) -> usize {
        self.last_evaluated
    }

    /// How many nodes (files or directories) of the cycles' graphs the last
    /// [`Checker::update`] recomputed components over: the reach of the nodes whose
    /// dependencies changed, not the whole graph (for tests and benchmarks).
    pub fn last_cycle_nodes(&self) -> usize {
        self.last_cycle_nodes
    }

    /// Brings the verdicts in line with `graph`, evaluating again only the files whose node
    /// changed, and the cycles only when the dependency graph changed shape.
    pub fn update(&mut self, graph: &Graph) {
        // The files the transactions since the last update touched, when the graph still
        // knows them (an edit's one file, where comparing every file's node cost a millisecond
        // on django); else every file is compared.
        let since = self
            .mark
            .as_ref()
            .and_then(|mark| graph.changed_since(mark));
        self.mark = graph.change_mark();
        let changes = match since {
            Some(paths) => self.changes_in(graph, paths),
            None => self.changes_anywhere(graph),
        };
        self.renew(changes.kept);
        self.apply_changes(graph, changes.changed, changes.added, changes.gone);
    }

    /// The changes among `paths`, the files the graph says changed; the verdicts of those gone
    /// are taken out.
    fn changes_in(&mut self, graph: &Graph, paths: impl IntoIterator<Item = FilePath>) -> Changes {
        let mut changes = Changes::default();
        let mut paths: Vec<FilePath> = paths.into_iter().collect();
        paths.sort();
        for path in paths {
            match graph.file(&path) {
                Some(node) => changes.file(node, self.files.get(&path)),
                None => {
                    if let Some(check) = self.files.remove(&path) {
                        changes.gone.push(check);
                        self.classes.remove(&path);
                    }
                }
            }
        }
        changes
    }

    /// The changes found by comparing every file of the graph with its verdict; the verdicts of
    /// files gone are taken out.
    fn changes_anywhere(&mut self, graph: &Graph) -> Changes {
        let mut changes = Changes::default();
        for node in graph.files() {
            changes.file(node, self.files.get(&node.path));
        }
        // Files gone since: their verdicts go, and their edges leave the cycles.
        if self.files.len()
            + changes
                .changed
                .iter()
                .filter(|node| !self.files.contains_key(&node.path))
                .count()
            != graph.file_count()
        {
            let paths: Vec<FilePath> = self
                .files
                .keys()
                .filter(|path| graph.file(path).is_none())
                .cloned()
                .collect();
            for path in paths {
                changes.gone.extend(self.files.remove(&path));
                self.classes.remove(&path);
            }
        }
        changes
    }

    /// Verdicts kept for a file's new node (`same_dependencies`).
    fn renew(&mut self, kept: Vec<Arc<FileCheck>>) {
        for check in kept {
            self.files.insert(check.node.path, check);
        }
    }

    /// Evaluates the `changed` files again (some of them new when `added`) and drops the
    /// verdicts of the files `gone`.
    fn apply_changes(
        &mut self,
        graph: &Graph,
        changed: Vec<Arc<FileNode>>,
        added: bool,
        gone: Vec<Arc<FileCheck>>,
    ) {
        let removed = !gone.is_empty();
        let started = std::time::Instant::now();
        self.last_evaluated = changed.len();
        self.last_cycle_nodes = 0;
        if changed.is_empty() && !removed {
            return;
        }
        if added {
            self.classify_new(&changed);
        }
        let checks = self.evaluate(graph, &changed);
        self.move_cycle_edges(&gone, &checks);
        for check in checks {
            self.files.insert(check.node.path, check);
        }
        if added || removed {
            self.problems = Arc::new(self.pattern_problems());
        }
        tracing::trace!(
            "checker: {} files evaluated, {} cycle nodes, {:?}",
            self.last_evaluated,
            self.last_cycle_nodes,
            started.elapsed()
        );
    }

    /// Classifies by the rules' patterns the files of `changed` not classified yet.
    fn classify_new(&mut self, changed: &[Arc<FileNode>]) {
        let new: Vec<FilePath> = changed
            .iter()
            .filter(|node| !self.classes.contains_key(&node.path))
            .map(|node| node.path)
            .collect();
        let rules = &self.rules;
        let classify = |path: FilePath| (path, Arc::new(rules.classify(&path)));
        let classes: Vec<(FilePath, Arc<PathClass>)> = if new.len() >= PARALLEL_FROM {
            new.into_par_iter().map(classify).collect()
        } else {
            new.into_iter().map(classify).collect()
        };
        self.classes.extend(classes);
    }

    /// The verdicts of the `changed` files, in parallel when there are many.
    fn evaluate(&self, graph: &Graph, changed: &[Arc<FileNode>]) -> Vec<Arc<FileCheck>> {
        let evaluation = Evaluation {
            rules: &self.rules,
            cycles: &self.cycles,
            classes: &self.classes,
        };
        let evaluate = |node: &Arc<FileNode>| Arc::new(evaluation.file(graph, node));
        if changed.len() >= PARALLEL_FROM {
            changed.par_iter().map(evaluate).collect()
        } else {
            changed.iter().map(evaluate).collect()
        }
    }

    /// Each changed file moves its own edges in the cycles' graphs (a file gone, all of them);
    /// the components are recomputed where that can have changed them.
    fn move_cycle_edges(&mut self, gone: &[Arc<FileCheck>], checks: &[Arc<FileCheck>]) {
        for (index, cycles) in self.cycles.iter_mut().enumerate() {
            let cycles = Arc::make_mut(cycles);
            let mut touched = Vec::new();
            for check in gone {
                cycles.change(
                    &check.node.path,
                    &shape(cycles, check, index),
                    &[],
                    &mut touched,
                );
            }
            for check in checks {
                let old = self
                    .files
                    .get(&check.node.path)
                    .map(|old| shape(cycles, old, index))
                    .unwrap_or_default();
                let new = shape(cycles, check, index);
                cycles.change(&check.node.path, &old, &new, &mut touched);
            }
            self.last_cycle_nodes += cycles.settle(touched);
        }
    }

    /// The rules file's problems as written, plus every pattern that matches no file.
    fn pattern_problems(&self) -> Vec<RuleProblem> {
        pattern_problems(
            &self.rules,
            self.classes.iter().map(|(path, class)| (&**path, &**class)),
        )
    }

    /// The violations of one file, sorted.
    pub fn file_violations(&self, path: &str) -> Vec<Violation> {
        let Some(check) = self.files.get(path) else {
            return Vec::new();
        };
        let mut found = check.violations.clone();
        for cycles in &self.cycles {
            found.extend(self.cycle_violations(cycles, check));
        }
        super::sort(&mut found);
        found
    }

    /// Every violation, sorted by file and position.
    pub fn violations(&self) -> Vec<Violation> {
        // Explaining a cycle searches it once per file in it: in parallel over the files.
        let files: Vec<&Arc<FileCheck>> = self.files.values().collect();
        let mut found: Vec<Violation> = files
            .par_iter()
            .flat_map_iter(|check| {
                let mut found = check.violations.clone();
                for cycles in &self.cycles {
                    if cycles.has_cycles() {
                        found.extend(self.cycle_violations(cycles, check));
                    }
                }
                found
            })
            .collect();
        super::sort(&mut found);
        found
    }

    fn cycle_violations(&self, cycles: &Cycles, check: &FileCheck) -> Vec<Violation> {
        if !cycles.has_cycles() {
            return Vec::new();
        }
        let index = self
            .cycles
            .iter()
            .position(|other| other.rule == cycles.rule)
            .unwrap_or(0);
        let rule = &self.rules.rules[cycles.rule];
        let from = node_of(cycles.unit, &check.node.path);
        let Some(component) = cycles.cycle_of(&from) else {
            return Vec::new();
        };
        let mut seen: FxHashSet<(u32, u32)> = FxHashSet::default();
        let mut found = Vec::new();
        let mut paths = None;
        for dep in &check.cycle_deps[index] {
            let to = node_of(cycles.unit, &dep.file);
            if to == from || cycles.cycle_of(&to) != Some(component) {
                continue;
            }
            if !seen.insert((dep.site.start_byte, dep.site.end_byte)) {
                continue;
            }
            let path = paths
                .get_or_insert_with(|| cycles.paths_to(&from))
                .from(&to);
            let mut shown: Vec<String> = vec![node_display(cycles.unit, &from)];
            shown.extend(path.iter().map(|node| node_display(cycles.unit, node)));
            let explanation = format!(
                "dependency cycle between {}: {}",
                cycles.unit.as_str(),
                shown.join(" → ")
            );
            found.push(violation(
                rule,
                &check.node,
                Breach {
                    kind: dep.kind,
                    site: dep.site,
                    target: dep.entity.to_string(),
                    target_file: Some(dep.file),
                    explanation,
                },
            ));
        }
        found
    }

    /// Which rules a dependency of `from` (a workspace path, existing or not) onto `target` would
    /// break, with each one's explanation. Used for placing a module that does not exist yet.
    pub fn breaks(
        &self,
        from: &str,
        target: &TargetRef<'_>,
        kind: DependencyKind,
    ) -> Vec<(Arc<str>, String)> {
        let class = self.rules.classify(from);
        (0..self.rules.rules.len())
            .filter(|&index| self.rules.rules[index].kinds.contains(kind))
            .filter_map(|index| {
                explain(&self.rules, index, &class, target)
                    .map(|text| (self.rules.rules[index].name.clone(), text))
            })
            .collect()
    }
}

/// The nodes a file's dependencies for cycles rule `index` land on, without duplicates.
fn shape(cycles: &Cycles, check: &FileCheck, index: usize) -> Vec<Name> {
    let mut nodes: Vec<Name> = check.cycle_deps[index]
        .iter()
        .map(|dep| node_of(cycles.unit, &dep.file))
        .collect();
    nodes.sort();
    nodes.dedup();
    nodes
}

/// The problems of `rules` as written, plus every pattern that matches none of the files (given
/// with their classification by `rules`).
pub(super) fn pattern_problems<'a>(
    rules: &RuleSet,
    classes: impl Iterator<Item = (&'a str, &'a PathClass)>,
) -> Vec<RuleProblem> {
    let mut hits = vec![false; rules.patterns.len()];
    let mut top_level: FxHashSet<&str> = FxHashSet::default();
    for (path, class) in classes {
        top_level.insert(path.split('/').next().unwrap_or_default());
        for (index, hit) in hits.iter_mut().enumerate() {
            if !*hit && class.has(index) {
                *hit = true;
            }
        }
    }
    let mut problems = rules.problems.clone();
    for (index, pattern) in rules.patterns.iter().enumerate() {
        if hits[index] || pattern.rule == usize::MAX {
            continue;
        }
        // A `to` entry that is no path may name an external module (`requests`,
        // `net/http`): only one that looks like a workspace path is a problem.
        let path_like = has_glob(&pattern.text)
            || top_level.contains(pattern.text.split('/').next().unwrap_or_default());
        if pattern.module.is_some() && !path_like {
            continue;
        }
        problems.push(RuleProblem {
            line: pattern.line,
            column: pattern.column,
            end_line: pattern.end_line,
            end_column: pattern.end_column,
            rule: Some(rules.rules[pattern.rule].name.to_string()),
            message: format!(
                "`{}` (rule `{}`) matches no file of the workspace",
                pattern.text, rules.rules[pattern.rule].name
            ),
        });
    }
    problems.sort_by_key(|problem| (problem.line, problem.column));
    problems
}
