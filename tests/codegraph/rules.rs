//! Architecture rules on the fixture `fixtures/architecture/` (Python, TypeScript, Rust, Go):
//! the violations it holds (snapshot in `violations.txt`), incremental re-evaluation against a
//! check from scratch, problems of the rules file, baselines and drift, placement.

use std::path::Path;
use std::sync::Arc;

use codegraph::analysis::rules::baseline::{self, Baseline};
use codegraph::analysis::rules::{Checker, RuleSet, Violation, placement};
use codegraph::graph::{FilePath, Graph};

use crate::support;

fn rules_of(root: &Path) -> Arc<RuleSet> {
    let text = std::fs::read_to_string(root.join(".codegraph/rules.toml")).expect("rules file");
    Arc::new(RuleSet::parse(&text))
}

fn checked(root: &Path, graph: &Graph) -> Checker {
    let mut checker = Checker::new(rules_of(root));
    checker.update(graph);
    checker
}

/// How many files of `after` have another node than in `before` (changed, re-resolved, new).
fn changed_nodes(before: &Graph, after: &Graph) -> usize {
    after
        .files()
        .filter(|node| {
            before
                .file(&node.path)
                .is_none_or(|old| !Arc::ptr_eq(old, node))
        })
        .count()
}

/// The files whose text or edges changed: what a file's verdicts are made of (a file whose
/// node changed for what its resolution read alone keeps them).
fn changed_dependencies(before: &Graph, after: &Graph) -> Vec<String> {
    after
        .files()
        .filter(|node| {
            before.file(&node.path).is_none_or(|old| {
                old.hash != node.hash || old.resolved.edges != node.resolved.edges
            })
        })
        .map(|node| node.path.to_string())
        .collect()
}

fn show(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(|violation| {
            let fix = violation
                .fix
                .as_ref()
                .map(|fix| format!("  [fix: {} {}-{}]", fix.title, fix.start_line, fix.end_line))
                .unwrap_or_default();
            format!(
                "{}  <{} `{}`>{fix}",
                violation.to_line(),
                violation.kind.as_str(),
                violation.reference
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_fixture_breaks_exactly_the_rules_it_says_in_four_languages() {
    let root = support::fixture("architecture");
    let (_world, graph) = support::index(&root);
    let checker = checked(&root, &graph);
    assert_eq!(checker.problems(), [], "the fixture's rules file is clean");
    let violations = checker.violations();
    support::check_snapshot(&root.join("violations.txt"), &show(&violations))
        .unwrap_or_else(|report| panic!("{report}"));
    // Allowed dependencies stay quiet: down the layers, into shared code.
    for quiet in [
        "ts/src/shared/format.ts",
        "go/infra/store.go",
        "rs/src/infra/store.rs",
    ] {
        assert_eq!(checker.file_violations(quiet), [], "{quiet}");
    }
    // One file's violations are the same as its share of the whole list.
    let order: Vec<Violation> = violations
        .iter()
        .filter(|violation| &*violation.file == "py/domain/order.py")
        .cloned()
        .collect();
    assert_eq!(checker.file_violations("py/domain/order.py"), order);
}

#[test]
fn an_edit_is_checked_again_alone_and_agrees_with_a_check_from_scratch() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    crate::cache::copy_tree(&support::fixture("architecture"), &root);
    let (world, graph) = support::index(&root);
    let mut checker = checked(&root, &graph);
    let before = checker.violations();

    // The services layer starts importing infrastructure: allowed (no rule says otherwise).
    let orders = "from py.domain.order import Order\nfrom py.infra.db import connect\n\n\ndef place_order(order_id):\n    connect()\n    return Order(order_id).total()\n";
    world.apply_texts(vec![("py/services/orders.py".into(), Some(orders.into()))]);
    let after = world.snapshot();
    checker.update(&after);
    // Evaluated again: the files whose text or edges changed, no others (the writer also
    // replaced the node of a file whose resolution read something else now).
    assert_eq!(
        changed_dependencies(&graph, &after),
        ["py/services/orders.py"]
    );
    assert_eq!(checker.last_evaluated(), 1);
    assert!(changed_nodes(&graph, &after) > 1);
    assert!(checker.last_evaluated() < graph.file_count() / 2);
    let orders: Vec<String> = checker
        .file_violations("py/services/orders.py")
        .iter()
        .map(|violation| format!("{}:{} {}", violation.line, violation.rule, violation.target))
        .collect();
    assert_eq!(
        orders,
        ["1:cycles py/domain/order.py::Order"],
        "infra is allowed; the cycle stays"
    );

    // The Go domain drops its infrastructure import and call: those violations go.
    let user = "package domain\n\nimport \"net/http\"\n\ntype User struct{}\n\nfunc (u User) Save() error {\n\t_, err := http.Get(\"http://localhost\")\n\treturn err\n}\n";
    world.apply_texts(vec![("go/domain/user.go".into(), Some(user.into()))]);
    let graph = world.snapshot();
    checker.update(&graph);
    let go: Vec<String> = checker
        .file_violations("go/domain/user.go")
        .iter()
        .map(|violation| format!("{}:{} {}", violation.line, violation.rule, violation.target))
        .collect();
    assert_eq!(go, ["3:domain-is-pure net/http"]);

    // A file that closes a cycle: the TypeScript cycle grows a third member.
    let c = "import { a } from \"./a\";\n\nexport function c(): number {\n  return a();\n}\n";
    let b = "import { c } from \"./c\";\n\nexport function b(): number {\n  return 0;\n}\n";
    world.apply_texts(vec![
        ("ts/src/cycle/c.ts".into(), Some(c.into())),
        ("ts/src/cycle/b.ts".into(), Some(b.into())),
    ]);
    let graph = world.snapshot();
    checker.update(&graph);
    let cycle: Vec<String> = checker
        .violations()
        .iter()
        .filter(|violation| violation.file.starts_with("ts/src/cycle/"))
        .map(|violation| violation.to_line())
        .collect();
    assert_eq!(
        cycle,
        [
            "ts/src/cycle/a.ts:1:1: error cycles: imports ts/src/cycle/b.ts::b: dependency cycle between files: ts/src/cycle/a.ts → ts/src/cycle/b.ts → ts/src/cycle/c.ts → ts/src/cycle/a.ts",
            "ts/src/cycle/b.ts:1:1: error cycles: imports ts/src/cycle/c.ts::c: dependency cycle between files: ts/src/cycle/b.ts → ts/src/cycle/c.ts → ts/src/cycle/a.ts → ts/src/cycle/b.ts",
            "ts/src/cycle/c.ts:1:1: error cycles: imports ts/src/cycle/a.ts::a: dependency cycle between files: ts/src/cycle/c.ts → ts/src/cycle/a.ts → ts/src/cycle/b.ts → ts/src/cycle/c.ts",
        ]
    );

    // Whatever the path, the incremental verdicts equal a check from scratch.
    let fresh = checked(&root, &graph);
    assert_eq!(checker.violations(), fresh.violations());
    assert_ne!(checker.violations(), before);

    // A deleted file takes its violations with it.
    world.apply_texts(vec![("py/domain/order.py".into(), None)]);
    checker.update(&world.snapshot());
    assert!(
        checker
            .violations()
            .iter()
            .all(|violation| !violation.file.starts_with("py/")),
        "{}",
        show(&checker.violations())
    );
}

/// The cycles of the files (and directories) under `ts/src/loop/`, as `file → target (rule)`.
fn loop_cycles(checker: &Checker) -> Vec<String> {
    checker
        .violations()
        .iter()
        .filter(|violation| violation.file.starts_with("ts/src/loop/"))
        .map(|violation| {
            format!(
                "{} -> {} ({})",
                violation.file,
                violation.target_file.as_deref().unwrap_or("-"),
                violation.rule
            )
        })
        .collect()
}

/// A series of edits that make, grow, shrink and break cycles between files and between
/// directories: after every one, the incremental checker agrees with a check from scratch, and
/// an edit recomputes the cycles only over the reach of what it changed.
#[test]
fn incremental_cycles_agree_with_a_check_from_scratch_after_every_edit_of_a_series() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    crate::cache::copy_tree(&support::fixture("architecture"), &root);
    let rules = "[[cycles]]\nname = \"file-cycles\"\nforbid = true\n\n[[cycles]]\nname = \"directory-cycles\"\nforbid = true\nbetween = \"directories\"\n\n[[independent]]\nname = \"loop-halves\"\nmodules = [\"ts/src/loop/x/**\", \"ts/src/loop/y/**\"]\nseverity = \"info\"\n";
    std::fs::write(root.join(".codegraph/rules.toml"), rules).unwrap();
    let (world, graph) = support::index(&root);
    let mut checker = checked(&root, &graph);
    // The first check covers every node with a dependency, in both cycles rules.
    assert!(
        checker.last_cycle_nodes() > 8,
        "{}",
        checker.last_cycle_nodes()
    );

    let p = |imports: &[&str]| -> String {
        let mut text: String = imports
            .iter()
            .map(|import| {
                format!(
                    "import {{ {} }} from \"{}\";\n",
                    import.rsplit('/').next().unwrap(),
                    import
                )
            })
            .collect();
        text.push_str("\nexport function p(): number {\n  return 1;\n}\n");
        text
    };
    let module = |name: &str, imports: &[&str]| -> String {
        p(imports).replace("function p()", &format!("function {name}()"))
    };
    type Step = (
        &'static str,
        Vec<(&'static str, Option<String>)>,
        Vec<&'static str>,
    );
    let steps: Vec<Step> = vec![
        (
            "two new files, x/p imports y/q: no cycle",
            vec![
                ("ts/src/loop/x/p.ts", Some(module("p", &["../y/q"]))),
                ("ts/src/loop/y/q.ts", Some(module("q", &[]))),
            ],
            vec!["ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (loop-halves)"],
        ),
        (
            "y/q imports x/p: a cycle of files and of directories",
            vec![("ts/src/loop/y/q.ts", Some(module("q", &["../x/p"])))],
            vec![
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (directory-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (file-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (loop-halves)",
                "ts/src/loop/y/q.ts -> ts/src/loop/x/p.ts (directory-cycles)",
                "ts/src/loop/y/q.ts -> ts/src/loop/x/p.ts (file-cycles)",
                "ts/src/loop/y/q.ts -> ts/src/loop/x/p.ts (loop-halves)",
            ],
        ),
        (
            "y/r joins: it imports x/p, and x/p imports it",
            vec![
                ("ts/src/loop/y/r.ts", Some(module("r", &["../x/p"]))),
                (
                    "ts/src/loop/x/p.ts",
                    Some(module("p", &["../y/q", "../y/r"])),
                ),
            ],
            vec![
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (directory-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (file-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (loop-halves)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/r.ts (directory-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/r.ts (file-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/r.ts (loop-halves)",
                "ts/src/loop/y/q.ts -> ts/src/loop/x/p.ts (directory-cycles)",
                "ts/src/loop/y/q.ts -> ts/src/loop/x/p.ts (file-cycles)",
                "ts/src/loop/y/q.ts -> ts/src/loop/x/p.ts (loop-halves)",
                "ts/src/loop/y/r.ts -> ts/src/loop/x/p.ts (directory-cycles)",
                "ts/src/loop/y/r.ts -> ts/src/loop/x/p.ts (file-cycles)",
                "ts/src/loop/y/r.ts -> ts/src/loop/x/p.ts (loop-halves)",
            ],
        ),
        (
            "y/q stops importing x/p: the files' cycle through q goes, the directories' stays (through r)",
            vec![("ts/src/loop/y/q.ts", Some(module("q", &[])))],
            vec![
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (directory-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (loop-halves)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/r.ts (directory-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/r.ts (file-cycles)",
                "ts/src/loop/x/p.ts -> ts/src/loop/y/r.ts (loop-halves)",
                "ts/src/loop/y/r.ts -> ts/src/loop/x/p.ts (directory-cycles)",
                "ts/src/loop/y/r.ts -> ts/src/loop/x/p.ts (file-cycles)",
                "ts/src/loop/y/r.ts -> ts/src/loop/x/p.ts (loop-halves)",
            ],
        ),
        (
            "y/r is deleted: no cycle is left",
            vec![("ts/src/loop/y/r.ts", None)],
            vec!["ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (loop-halves)"],
        ),
        (
            "the fixture's TypeScript cycle is broken: b stops importing a",
            vec![(
                "ts/src/cycle/b.ts",
                Some("export function b(): number {\n  return 0;\n}\n".to_string()),
            )],
            vec!["ts/src/loop/x/p.ts -> ts/src/loop/y/q.ts (loop-halves)"],
        ),
    ];
    let mut previous = graph;
    for (what, edits, expected) in steps {
        world.apply_texts(
            edits
                .into_iter()
                .map(|(path, text)| (path.into(), text))
                .collect(),
        );
        let graph = world.snapshot();
        checker.update(&graph);
        assert_eq!(loop_cycles(&checker), expected, "{what}");
        let fresh = checked(&root, &graph);
        assert_eq!(
            show(&checker.violations()),
            show(&fresh.violations()),
            "incremental = from scratch after: {what}"
        );
        // At most the loop's files and directories, and the fixture cycle's two files.
        assert!(
            checker.last_cycle_nodes() <= 8,
            "{what}: the cycles were recomputed over {} nodes, more than the reach of the edit",
            checker.last_cycle_nodes()
        );
        assert!(changed_nodes(&previous, &graph) > 0, "{what}");
        previous = graph;
    }
    assert!(
        checker
            .violations()
            .iter()
            .all(|violation| !violation.file.starts_with("ts/src/cycle/")),
        "{}",
        show(&checker.violations())
    );
}

#[test]
fn a_rule_naming_no_existing_path_is_a_problem_of_the_rules_file_with_its_line() {
    let root = support::fixture("architecture");
    let (_world, graph) = support::index(&root);
    let text = "[[forbid]]\nname = \"legacy\"\nfrom = \"py/legacy/**\"\nto = [\"py/infra\", \"sqlalchemy\", \"py/infar\", \"net/http\"]\n\n[[layers]]\nlayers = [\"py/ui\", \"py/domian/**\"]\n";
    let mut checker = Checker::new(Arc::new(RuleSet::parse(text)));
    checker.update(&graph);
    let problems: Vec<String> = checker
        .problems()
        .iter()
        .map(|problem| problem.to_line(".codegraph/rules.toml"))
        .collect();
    // `sqlalchemy` and `net/http` are external modules, not paths: no problem.
    assert_eq!(
        problems,
        [
            ".codegraph/rules.toml:3:8: error rules-file: `py/legacy/**` (rule `legacy`) matches no file of the workspace",
            ".codegraph/rules.toml:4:33: error rules-file: `py/infar` (rule `legacy`) matches no file of the workspace",
            ".codegraph/rules.toml:7:20: error rules-file: `py/domian/**` (rule `layers`) matches no file of the workspace",
        ]
    );
}

#[test]
fn a_baseline_freezes_todays_violations_and_drift_groups_them_by_module_pair() {
    let root = support::fixture("architecture");
    let (world, graph) = support::index(&root);
    let checker = checked(&root, &graph);
    let violations = checker.violations();
    let frozen = Baseline::of(&violations);
    let split = baseline::split(&violations, &frozen);
    assert!(split.new.is_empty() && split.fixed.is_empty());

    // A second forbidden import in the Rust domain is new; the old ones are not, though every
    // line below them moved.
    let account = "use crate::infra::store::open as reopen;\nuse crate::infra::store::{open, Store};\n\npub struct Account;\n\nimpl Store for Account {\n    fn save(&self) {\n        open();\n    }\n}\n";
    world.apply_texts(vec![(
        "rs/src/domain/account.rs".into(),
        Some(account.into()),
    )]);
    let checker = checked(&root, &world.snapshot());
    let now = checker.violations();
    let split = baseline::split(&now, &frozen);
    let new: Vec<String> = split
        .new
        .iter()
        .map(|violation| violation.to_line())
        .collect();
    assert_eq!(
        new,
        [
            "rs/src/domain/account.rs:1:1: error domain-is-pure: imports rs/src/infra/store.rs::open: `rs/src/domain/**` must not depend on `rs/src/infra/**`. Domain code must not know about infrastructure."
        ]
    );
    assert_eq!(split.fixed, []);

    let counts: Vec<String> = baseline::per_rule(checker.rules(), &now, Some(&frozen))
        .iter()
        .map(|count| {
            format!(
                "{} now {} then {} new {}",
                count.rule,
                count.now,
                count.baseline.unwrap(),
                count.new.unwrap()
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            "py-layers now 2 then 2 new 0",
            "domain-is-pure now 11 then 10 new 1",
            "features now 2 then 2 new 0",
            "no-axios now 1 then 1 new 0",
            "cycles now 5 then 5 new 0",
        ]
    );

    let pairs: Vec<String> = baseline::explain("domain-is-pure", &now, Some(&frozen))
        .iter()
        .map(|pair| {
            let kinds: Vec<String> = pair
                .by_kind
                .iter()
                .map(|(kind, count)| format!("{kind} {count}"))
                .collect();
            format!(
                "{} -> {}: {} ({}), new {}",
                pair.from,
                pair.to,
                pair.count,
                kinds.join(", "),
                pair.new.unwrap()
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            "rs/src/domain/ -> rs/src/infra/: 4 (call 1, implements 1, import 2), new 1",
            "py/domain/ -> py/infra/: 3 (call 1, extends 1, import 1), new 0",
            "go/domain/ -> go/infra/: 2 (call 1, import 1), new 0",
            "go/domain/ -> net/http: 1 (import 1), new 0",
            "py/domain/ -> requests: 1 (import 1), new 0",
        ]
    );
}

#[test]
fn a_shared_module_goes_to_the_lowest_common_ancestor_then_down_the_layers() {
    let root = support::fixture("architecture");
    let (_world, graph) = support::index(&root);
    let checker = checked(&root, &graph);
    let users = |paths: &[&str]| -> Vec<FilePath> {
        paths.iter().map(|path| FilePath::from(*path)).collect()
    };
    let features = placement::place(
        Some(&checker),
        &users(&[
            "ts/src/features/billing/invoice.ts",
            "ts/src/features/auth/session.ts",
        ]),
        "money",
    );
    assert_eq!(features.lowest_common_directory, "ts/src/features");
    assert_eq!(features.suggested_path, "ts/src/features/shared/money.ts");
    assert_eq!(features.conflicts, Vec::<String>::new());

    // Nested layers: `app/core` is below the rest of `app`. A module shared by `app/web` and
    // `app/core` cannot live in `app/shared/` (the core would depend on a higher layer): it goes
    // down to the core.
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    for (path, text) in [
        ("app/web/views.py", "def view():\n    pass\n"),
        ("app/core/model.py", "def model():\n    pass\n"),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    std::fs::create_dir_all(root.join(".codegraph")).unwrap();
    std::fs::write(
        root.join(".codegraph/rules.toml"),
        "[[layers]]\nlayers = [\"app/**\", \"app/core/**\"]\n",
    )
    .unwrap();
    let (_world, graph) = support::index(&root);
    let checker = checked(&root, &graph);
    let layered = placement::place(
        Some(&checker),
        &users(&["app/web/views.py", "app/core/model.py"]),
        "ids",
    );
    assert_eq!(layered.lowest_common_directory, "app");
    assert_eq!(layered.suggested_path, "app/core/shared/ids.py");
    assert_eq!(layered.conflicts, Vec::<String>::new());
    assert_eq!(layered.notes.len(), 1, "{:?}", layered.notes);
    let web_only = placement::place(Some(&checker), &users(&["app/web/views.py"]), "ids");
    assert_eq!(web_only.suggested_path, "app/web/shared/ids.py");
}

fn codegraph(args: &[&str]) -> (i32, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_codegraph"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn codegraph_check_fails_on_new_errors_only_once_a_baseline_freezes_the_old_ones() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    crate::cache::copy_tree(&support::fixture("architecture"), &root);
    let repo = root.to_str().unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--no-cache", "-r", repo];
        args.extend_from_slice(extra);
        codegraph(&args)
    };

    // Every violation of the fixture, as `path:line:col: severity rule: message`.
    let (code, stdout, stderr) = check(&[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let expected: Vec<String> = std::fs::read_to_string(root.join("violations.txt"))
        .unwrap()
        .lines()
        .map(|line| line.split("  <").next().unwrap().to_string())
        .collect();
    let mut lines: Vec<&str> = stdout.lines().collect();
    let summary = lines.pop().unwrap();
    assert_eq!(lines, expected);
    assert_eq!(
        summary,
        "20 violations of 5 rules (17 errors, 2 warnings, 1 info)"
    );

    // Frozen: the same code passes.
    let (code, stdout, stderr) = check(&["--write-baseline"]);
    assert_eq!(
        (code, stdout.trim()),
        (0, "wrote 20 violations to .codegraph/rules-baseline.json"),
        "{stderr}"
    );
    let (code, stdout, _) = check(&[]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout.trim(),
        "20 violations of 5 rules (17 errors, 2 warnings, 1 info); 0 new, 20 known, 0 fixed against .codegraph/rules-baseline.json"
    );

    // A new warning is shown and passes; a new error fails, and only it is listed.
    // (A new file: making session.ts import billing would also close a cycle, an error.)
    let login = "import { invoiceTotal } from \"../billing/invoice\";\n\nexport function login(): string {\n  return \"someone\" + invoiceTotal(1);\n}\n";
    std::fs::write(root.join("ts/src/features/auth/login.ts"), login).unwrap();
    let (code, stdout, _) = check(&[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("ts/src/features/auth/login.ts:1:1: warning features: imports ts/src/features/billing/invoice.ts::invoiceTotal: `ts/src/features/auth/**` and `ts/src/features/billing/**` must stay independent of each other\n"), "{stdout}");
    let user = std::fs::read_to_string(root.join("go/domain/user.go"))
        .unwrap()
        .replace("import (\n", "import (\n\t\"net/http/httputil\"\n");
    std::fs::write(root.join("go/domain/user.go"), user).unwrap();
    let (code, stdout, _) = check(&[]);
    assert_eq!(code, 1, "{stdout}");
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains(": error "))
        .collect();
    assert_eq!(
        errors,
        [
            "go/domain/user.go:4:2: error domain-is-pure: imports net/http/httputil: `go/domain/**` must not depend on `net/http`. Domain code must not know about infrastructure."
        ]
    );

    // Drift: the rule's edges by module pair, the new one marked.
    let (code, stdout, _) = check(&["--explain", "domain-is-pure"]);
    assert_eq!(code, 0);
    let explained: Vec<&str> = stdout
        .lines()
        .filter(|line| !line.starts_with("  ") || line.contains("[new]"))
        .collect();
    assert_eq!(
        explained,
        [
            "rule domain-is-pure (forbid, error): 11 violations now, 10 in the baseline (1 new, 0 fixed)",
            "",
            "py/domain/ -> py/infra/  3 edges (call 1, extends 1, import 1), 0 new",
            "",
            "rs/src/domain/ -> rs/src/infra/  3 edges (call 1, implements 1, import 1), 0 new",
            "",
            "go/domain/ -> go/infra/  2 edges (call 1, import 1), 0 new",
            "",
            "go/domain/ -> net/http  1 edges (import 1), 0 new",
            "",
            "go/domain/ -> net/http/httputil  1 edges (import 1), 1 new",
            "  go/domain/user.go:4:2: import `\"net/http/httputil\"` -> net/http/httputil  [new]",
            "",
            "py/domain/ -> requests  1 edges (import 1), 0 new",
        ]
    );
    let (code, _, stderr) = check(&["--explain", "nonsense"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no rule named `nonsense`; the rules are: py-layers, domain-is-pure, features, no-axios, cycles"), "{stderr}");

    // JSON says which violations are new.
    let (code, stdout, _) = check(&["--json"]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let new: Vec<&str> = report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|violation| violation["new"] == true)
        .map(|violation| violation["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        new,
        [
            "net/http/httputil",
            "ts/src/features/billing/invoice.ts::invoiceTotal",
            "ts/src/features/billing/invoice.ts::invoiceTotal"
        ]
    );
    assert_eq!(report["new_errors"], 1);

    // A rules file naming a path that does not exist fails with its line; none at all cannot check.
    let rules = std::fs::read_to_string(root.join(".codegraph/rules.toml")).unwrap();
    std::fs::write(
        root.join(".codegraph/rules.toml"),
        format!(
            "{rules}\n[[forbid]]\nname = \"legacy\"\nfrom = \"py/legacy/**\"\nto = \"py/infra\"\n"
        ),
    )
    .unwrap();
    // (The Go domain back as it was: only the rules file's problem fails the check.)
    std::fs::copy(
        support::fixture("architecture").join("go/domain/user.go"),
        root.join("go/domain/user.go"),
    )
    .unwrap();
    let (code, stdout, _) = check(&[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.starts_with(".codegraph/rules.toml:39:8: error rules-file: `py/legacy/**` (rule `legacy`) matches no file of the workspace\n"),
        "{stdout}"
    );
    std::fs::remove_file(root.join(".codegraph/rules.toml")).unwrap();
    let (code, stdout, stderr) = check(&[]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.contains("no rules to check: .codegraph/rules.toml"),
        "{stderr}"
    );
}
