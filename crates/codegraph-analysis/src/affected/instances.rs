//! The tests of a changed method, narrowed by the instance it runs on.
//!
//! A Python method runs on an instance of its class or of a subclass (`FIFOCache.popitem`
//! runs only where a `FIFOCache` exists), and an instance exists only where some code named
//! the class: constructed it, passed it, held it in a class attribute, subclassed it. So a test
//! can run the method only if it runs both a caller of the method and code that names the class
//! or a subclass. The walk from the method alone cannot tell: it goes up through the base's
//! methods that call it on `self` (`Cache.__setitem__` calls `self.popitem()`), and from there
//! to every user of every cache. The walk from the class's names can: its tests are those that
//! may hold an instance. A changed method's tests are those both walks reach. (A subclass that
//! overrides the method without calling up to it, and the subclasses below it, never run it.)
//!
//! Where an instance may exist without a test naming the class, nothing is narrowed: a module that
//! names the class and is not a test module (an instance made at import time, reachable from
//! anything that imports it: a production module, a `conftest.py`, a test helper), a walk cut
//! short, a method the class itself runs when it is defined or subscripted (`__init_subclass__`,
//! `__set_name__`, `__class_getitem__`), a static or class method (called on the class, not an
//! instance), a metaclass's method.

use rustc_hash::{FxHashMap, FxHashSet};

use codegraph_graph::{EntityId, FilePath, Graph};
use codegraph_lang::Language;
use codegraph_model::{ByNumber, EntityKind, Name, RelationKind};

use super::changes::{Change, Changed, Found};
use super::lexicon::Lexicon;
use super::tests::{self, Selection, Test};
use super::walk::{self, Node, Walked};

/// At most this many classes' changed methods are narrowed; beyond, the walks would cost more
/// than the narrowing saves, and the selection is left whole.
const MAX_CLASSES: usize = 4;

/// The walk from a class's names may reach this many entities whatever the method's reached.
const MIN_LIMIT: usize = 2_000;

/// The selection of `found`'s change (`selected`, from its walk `walked`), narrowed for the
/// changed methods that need an instance of their class.
pub(crate) fn narrow(
    graph: &Graph,
    lexicon: &Lexicon,
    found: &Found,
    walked: &Walked,
    selected: (Vec<Test>, Vec<FilePath>),
) -> (Vec<Test>, Vec<FilePath>) {
    if walked.truncated || !found.renamed_in.is_empty() {
        return selected;
    }
    let mut free: Vec<Changed> = Vec::new();
    let mut by_class: FxHashMap<EntityId, Vec<Changed>> = FxHashMap::default();
    for changed in &found.changed {
        match needs_instance(graph, changed) {
            Some(class) => by_class.entry(class).or_default().push(changed.clone()),
            None => free.push(changed.clone()),
        }
    }
    if by_class.is_empty() || by_class.len() > MAX_CLASSES {
        return selected;
    }
    let mut classes: Vec<(EntityId, Vec<Changed>)> = by_class.into_iter().collect();
    classes.sort_by_key(|(class, _)| *class);
    let alone = free.is_empty() && classes.len() == 1;
    let mut selection = Selection::default();
    // Each class's tests: those its methods' walk reaches and its names' walk reaches too.
    for (class, changed) in classes {
        let methods: Vec<Name> = changed.iter().map(|changed| changed.name).collect();
        let Some(holders) = instance_tests(graph, lexicon, &class, &methods, walked.affected.len())
        else {
            return selected;
        };
        let tests = if alone {
            selected.0.clone()
        } else {
            match tests_of(graph, lexicon, changed) {
                Some((tests, _)) => tests,
                None => return selected,
            }
        };
        for test in tests {
            if holders.contains(&(ByNumber(test.id), test.name.clone())) {
                selection.add(test);
            }
        }
    }
    if !free.is_empty() {
        let Some((tests, files)) = tests_of(graph, lexicon, free) else {
            return selected;
        };
        selection.files.extend(files);
        for test in tests {
            selection.add(test);
        }
    }
    selection.finish()
}

/// The selection for `changed` alone (`None` where its walk was cut short).
fn tests_of(
    graph: &Graph,
    lexicon: &Lexicon,
    changed: Vec<Changed>,
) -> Option<(Vec<Test>, Vec<FilePath>)> {
    let part = Found {
        changed,
        renamed_in: Vec::new(),
    };
    let walked = walk::walk(graph, lexicon, &part);
    (!walked.truncated).then(|| tests::select(graph, &part.changed, &walked.affected))
}

/// The class whose instance `changed` needs to run: a Python method (not static, not a class
/// method, not one run by the class's own definition) of a class of the production code that
/// is not a metaclass.
fn needs_instance(graph: &Graph, changed: &Changed) -> Option<EntityId> {
    if !matches!(
        changed.change,
        Change::Body | Change::Signature | Change::Added
    ) || changed.kind != EntityKind::Method
    {
        return None;
    }
    let method = Node::of(graph, &changed.id)?;
    if method.language != Language::Python
        || matches!(
            method.name.as_str(),
            "__init_subclass__"
                | "__set_name__"
                | "__class_getitem__"
                | "__prepare__"
                | "__mro_entries__"
        )
    {
        return None;
    }
    let class = Node::of(graph, &method.parent?)?;
    let file = graph.file(&class.file)?;
    if class.kind != EntityKind::Class || tests::is_test_file(file) {
        return None;
    }
    let text = file.text()?;
    let bound = tests::decorators(&text, method.start_byte(graph)?)
        .iter()
        .any(|line| line.contains("staticmethod") || line.contains("classmethod"));
    let header = file.summary.defs.get(class.index? as usize)?.signature();
    let metaclass = header.contains("type") || header.contains("Meta");
    (!bound && !metaclass).then_some(class.id)
}

/// The tests that may hold an instance of `class` that runs one of `methods`: those the walk
/// from the class and its subclasses that may run one ([`running`]) reaches, by their runner's
/// name, the walk going no further than `affected` entities (those of the changed method's
/// walk) or [`MIN_LIMIT`]. `None` where an instance may exist without a test naming one (a
/// module other than a test module names it, the walk was cut short).
fn instance_tests(
    graph: &Graph,
    lexicon: &Lexicon,
    class: &EntityId,
    methods: &[Name],
    affected: usize,
) -> Option<FxHashSet<(ByNumber, String)>> {
    let classes = running(graph, class, methods);
    // Bounded by the method's own walk: a class whose users reach further narrows little, and
    // the walk from it would cost more than the method's answer.
    let limit = affected.max(MIN_LIMIT);
    let walked = walk::walk_from(graph, lexicon, &classes, "instance", limit);
    if walked.truncated {
        return None;
    }
    // A module naming the class holds an instance for all its importers (a test module's
    // own tests are all selected with it; a `conftest.py` or a helper module is no test).
    let at_import = walked.affected.iter().any(|affected| {
        affected.kind == EntityKind::Module
            && graph
                .file(&affected.file)
                .is_some_and(|file| !tests::is_test_module(file))
    });
    if at_import {
        return None;
    }
    let (tests, _) = tests::select(graph, &[], &walked.affected);
    Some(
        tests
            .into_iter()
            .map(|test| (ByNumber(test.id), test.name))
            .collect(),
    )
}

/// `class` and the subclasses whose instances may run one of its `methods`: below a subclass
/// that overrides them all without calling up to them (no `super`, no naming of `class` in its
/// overrides), its overrides are found first, in every subclass of that one too (it comes before
/// `class` in any of their method resolution orders). Bounded.
fn running(graph: &Graph, class: &EntityId, methods: &[Name]) -> Vec<EntityId> {
    let Some(class_name) = Node::of(graph, class).map(|node| node.name) else {
        return vec![*class];
    };
    let mut found = vec![*class];
    let mut seen: FxHashSet<ByNumber> = FxHashSet::from_iter([ByNumber(*class)]);
    let mut next = 0;
    while next < found.len() && found.len() < 10_000 {
        let current = found[next];
        next += 1;
        for edge in graph.incoming(&current) {
            if edge.kind == RelationKind::Extends
                && !overrides_alone(graph, &edge.from, methods, class_name)
                && seen.insert(ByNumber(edge.from))
            {
                found.push(edge.from);
            }
        }
    }
    found
}

/// Whether `subclass` defines its own override of each of `methods`, none of which calls
/// `super` or names `class_name` (`Base.method(self)`).
fn overrides_alone(graph: &Graph, subclass: &EntityId, methods: &[Name], class_name: Name) -> bool {
    let Some(location) = graph.location(subclass) else {
        return false;
    };
    let (Some(file), Some(at)) = (graph.file(&location.file), location.index) else {
        return false;
    };
    let Some(text) = file.text() else {
        return false;
    };
    methods.iter().all(|method| {
        file.summary.defs.iter().any(|def| {
            def.parent == Some(at)
                && def.name == *method
                && text
                    .get(def.span.start_byte as usize..def.span.end_byte as usize)
                    .is_some_and(|body| {
                        !body.contains("super") && !body.contains(class_name.as_str())
                    })
        })
    })
}
