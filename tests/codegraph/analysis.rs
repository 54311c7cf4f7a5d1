//! Analysis on fixtures: search, communities, global and local search, refactoring.
//!
//! `fixtures/analysis` is a small Python app written for these tests: an authentication package
//! spread over three files, a billing package whose two files import each other, a deliberately
//! complex `classify_order`, a deliberately unused `_unused_helper`, and `format_money`, defined
//! in `app/util` but used only from `app/billing`.
//!
//! The module-level views run on `fixtures/python`, whose `expected.txt` lists its edges.

use std::sync::Arc;

use codegraph::analysis::modules::{self, Direction};
use codegraph::analysis::rag::{GlobalOptions, LocalOptions};
use codegraph::analysis::refactor::{self, SuggestionKind};
use codegraph::analysis::search::{SearchIndex, SearchScope};
use codegraph::analysis::{Cache, communities, rag};
use codegraph::graph::query::{self, Lookup};
use codegraph::graph::{Entity, Graph};

use crate::support;

fn entity(graph: &Graph, id: &str) -> Entity {
    match query::lookup(graph, id) {
        Lookup::Found(entity) => entity,
        other => panic!("{id}: {other:?}"),
    }
}

fn top_ids(index: &SearchIndex, query: &str, scope: SearchScope, count: usize) -> Vec<String> {
    index
        .search(query, scope, count)
        .hits
        .iter()
        .map(|hit| hit.id.to_string())
        .collect()
}

#[test]
fn plain_words_find_entities() {
    let (_world, graph) = support::index(&support::fixture("python"));
    let index = SearchIndex::build(&graph);
    let results = index.search("authentication handler", SearchScope::All, 5);
    assert_eq!(results.terms, ["authentic", "handl"]);
    let found: Vec<String> = results.hits.iter().map(|hit| hit.id.to_string()).collect();
    // Nothing says "handler"; the names that say "authentication" and nothing else come first
    // (the name match), then the implementation, whose type's name adds "service".
    assert_eq!(
        found[..3],
        [
            "shop/auth/service.py::Authenticator",
            "shop/auth/service.py::Authenticator.authenticate",
            "shop/auth/service.py::AuthService.authenticate",
        ],
    );
    assert!(
        results
            .hits
            .iter()
            .all(|hit| (0.0..=1.0).contains(&hit.relevance))
    );

    let (_world, graph) = support::index(&support::fixture("analysis"));
    let index = SearchIndex::build(&graph);
    assert_eq!(
        top_ids(&index, "password hashing", SearchScope::All, 1),
        ["app/auth/passwords.py::hash_password"]
    );
    assert_eq!(
        top_ids(&index, "tax of an invoice", SearchScope::Functions, 1),
        ["app/billing/tax.py::compute_tax"]
    );
    // An exact name wins, with full relevance.
    let exact = index.search("SessionStore", SearchScope::All, 3);
    assert_eq!(
        exact.hits[0].id.as_ref(),
        "app/auth/session.py::SessionStore"
    );
    assert_eq!(exact.hits[0].relevance, 1.0);
    assert_eq!(
        top_ids(&index, "session", SearchScope::Classes, 10),
        // LoginHandler's docstring: "... starts their session."
        [
            "app/auth/session.py::SessionStore",
            "app/auth/login.py::LoginHandler"
        ]
    );
    assert_eq!(
        top_ids(&index, "billing tax", SearchScope::Files, 1),
        ["app/billing/tax.py"]
    );
}

#[test]
fn the_search_index_updates_file_by_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    crate::cache::copy_tree(&support::fixture("analysis"), &root);
    let (world, graph) = support::index(&root);
    let cache = Cache::new();
    let before = cache.search_index(&graph);
    assert!(top_ids(&before, "refund policy", SearchScope::All, 5).is_empty());
    world.apply_texts(vec![(
        "app/billing/refunds.py".to_string(),
        Some("def refund_policy(order):\n    \"\"\"Refunds within thirty days.\"\"\"\n    return True\n".to_string()),
    )]);
    let graph = world.snapshot();
    let after = cache.search_index(&graph);
    assert!(!Arc::ptr_eq(&before, &after));
    assert_eq!(
        top_ids(&after, "refund policy", SearchScope::All, 1),
        ["app/billing/refunds.py::refund_policy"]
    );
    // The same as building from scratch.
    let fresh = SearchIndex::build(&graph);
    for question in [
        "refund policy",
        "password",
        "invoice total",
        "session token",
    ] {
        assert_eq!(
            after.search(question, SearchScope::All, 10).hits,
            fresh.search(question, SearchScope::All, 10).hits,
            "{question}"
        );
    }
    assert_eq!(after.document_count(), fresh.document_count());
    assert_eq!(after.term_count(), fresh.term_count());
    assert!(after.memory_bytes() > 0);
    // A second ask at the same revision is the cached index.
    assert!(Arc::ptr_eq(&after, &cache.search_index(&graph)));
}

#[test]
fn auth_files_share_a_community_that_global_search_ranks_first() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let found = communities::compute(&graph);
    assert_eq!(found.levels.len(), 3);
    let auth_members: Vec<String> = graph
        .files()
        .filter(|file| file.path.starts_with("app/auth/") && !file.path.ends_with("__init__.py"))
        .flat_map(|file| graph.file_entities(&file.path))
        .map(|entity| entity.id.to_string())
        .collect();
    assert_eq!(auth_members.len(), 14);
    let auth = found.community_of(&auth_members[0], 1).unwrap();
    for member in &auth_members {
        assert_eq!(
            found.community_of(member, 1).unwrap().id,
            auth.id,
            "{member}"
        );
    }
    // The billing files are a community of their own.
    let billing = found
        .community_of("app/billing/invoice.py::Invoice", 1)
        .unwrap();
    assert_ne!(billing.id, auth.id);
    assert_eq!(
        found
            .community_of("app/billing/tax.py::compute_tax", 1)
            .unwrap()
            .id,
        billing.id
    );
    assert!(auth.name.starts_with("app/auth: "), "{}", auth.name);
    assert!(
        auth.summary
            .contains("Keeps the sessions of authenticated users."),
        "{}",
        auth.summary
    );
    assert!(
        auth.summary
            .contains(&format!("Depends on: #{}", billing.id)),
        "{}",
        auth.summary
    );
    // Levels nest: each level-0 community lies inside one level-1 community.
    for community in found.at_level(0) {
        let parent = found.get(community.parent.unwrap()).unwrap();
        assert!(
            community
                .members
                .iter()
                .all(|member| parent.members.contains(member))
        );
    }
    for info in &found.levels {
        assert!(info.modularity > 0.3, "{:?}", found.levels);
    }

    let index = SearchIndex::build(&graph);
    let answer = rag::global_search(
        &graph,
        &index,
        &found,
        "how does authentication work",
        &GlobalOptions {
            level: Some(1),
            ..GlobalOptions::default()
        },
    );
    assert_eq!(answer.relevant_communities[0].id, auth.id);
    assert_eq!(answer.confidence, 1.0);
    assert_eq!(answer.communities_searched, found.at_level(1).count());
    assert_eq!(
        answer.supporting_entities[0].entity.id.as_ref(),
        "app/auth/login.py::LoginHandler.authenticate"
    );
    assert!(
        answer
            .answer
            .starts_with(&format!("Most relevant: community #{}", auth.id)),
        "{}",
        answer.answer
    );
    assert!(answer.answer.contains("LoginHandler.authenticate (method at app/auth/login.py:15): \"Authenticate a user; returns a session token.\""), "{}", answer.answer);
    // Level 0 is fine-grained by design: it maximises plain modularity (resolution 1), and there
    // the auth files are better apart: sessions, passwords, and the login handler with its
    // caller. Merging them scores lower at resolution 1 (0.49 against 0.53) and higher at level
    // 1's resolution 0.4 (0.70 against 0.67), so "how does authentication work" is a level-1
    // question (docs/search.md, "Communities and global search").
    let auth_at_level_0: std::collections::BTreeSet<u32> = auth_members
        .iter()
        .filter(|member| !member.ends_with(".py"))
        .map(|member| found.community_of(member, 0).unwrap().id)
        .collect();
    assert_eq!(auth_at_level_0.len(), 3, "{auth_at_level_0:?}");
    assert!(found.levels[0].modularity > found.levels[1].modularity);
    // The same question at the finest level still lands in auth code.
    let fine = rag::global_search(
        &graph,
        &index,
        &found,
        "how does authentication work",
        &GlobalOptions {
            level: Some(0),
            ..GlobalOptions::default()
        },
    );
    let best = found.get(fine.relevant_communities[0].id).unwrap();
    assert!(
        best.members
            .iter()
            .any(|member| member.as_ref() == "app/auth/login.py::LoginHandler.authenticate")
    );
}

#[test]
fn communities_are_deterministic() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let first = communities::compute(&graph);
    let second = communities::compute(&graph);
    let view = |found: &communities::Communities| -> Vec<(u32, String, Vec<String>)> {
        found
            .communities
            .iter()
            .map(|c| {
                (
                    c.id,
                    c.name.clone(),
                    c.members.iter().map(|m| m.to_string()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(view(&first), view(&second));
}

#[test]
fn local_search_ranks_the_neighbourhood() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let index = SearchIndex::build(&graph);
    let start = entity(&graph, "app/auth/login.py::LoginHandler");
    let answer = rag::local_search(
        &graph,
        &index,
        "password",
        &[start],
        &LocalOptions {
            limit: 5,
            ..LocalOptions::default()
        },
    );
    let ranked: Vec<(&str, &str, u32)> = answer
        .relevant_entities
        .iter()
        .map(|r| (r.entity.id.as_ref(), r.relation.as_str(), r.distance))
        .collect();
    // Both say "password"; what the handler's own method calls comes before what its file
    // imports for a module-level constant.
    assert_eq!(
        ranked[..2],
        [
            ("app/auth/passwords.py::verify_password", "calls", 1),
            (
                "app/auth/passwords.py::hash_password",
                "imported_by_its_file",
                1
            ),
        ]
    );
    // What the start holds and uses is listed before who uses it.
    assert!(answer.answer.starts_with("LoginHandler (class at app/auth/login.py:9): \"Authenticates users by password and starts their session.\". contains: LoginHandler.__init__, LoginHandler.authenticate, LoginHandler.logout. called by: main."), "{}", answer.answer);
    assert!(answer.relationships.iter().any(|r| r.source.as_ref()
        == "app/auth/login.py::LoginHandler.authenticate"
        && r.target.as_ref() == "app/auth/passwords.py::verify_password"
        && r.kind == codegraph::model::RelationKind::Calls));
    // The start; its three methods; what they call (verify_password, SessionStore and two of
    // its methods) and what its file imports (hash_password); one hop further (generate_salt,
    // SessionStore.__init__); who uses it (main and its module). Not its own module: what
    // contains the start says nothing about what it uses.
    assert_eq!(answer.entities_searched, 13);
}

#[test]
fn a_complex_function_gets_a_simplify_suggestion() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let facts = refactor::repo_facts(&graph);
    let report = refactor::suggest(&graph, &facts, &entity(&graph, "classify_order"), None);
    // 1 + 2 ifs, 4 elifs, a for, a while, an `and`, an `or`, an except and a conditional.
    assert_eq!(report.metrics.cyclomatic_complexity, Some(13));
    assert_eq!(report.metrics.max_nesting, Some(2));
    assert_eq!(report.metrics.parameters, Some(1));
    assert_eq!(report.metrics.lines, 26);
    assert_eq!(report.suggestions.len(), 1, "{:?}", report.suggestions);
    assert_eq!(report.suggestions[0].kind, SuggestionKind::Simplify);
    assert!(
        report.suggestions[0]
            .reason
            .starts_with("High cyclomatic complexity (13, over 10)")
    );
    assert_eq!(report.suggestions[0].location.start_line, 4);
    // A small function gets none.
    let report = refactor::suggest(&graph, &facts, &entity(&graph, "hash_password"), None);
    assert!(report.suggestions.is_empty(), "{:?}", report.suggestions);
    assert_eq!(report.metrics.cyclomatic_complexity, Some(1));
}

#[test]
fn an_unused_function_is_dead_code() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let facts = refactor::repo_facts(&graph);
    let report = refactor::suggest(&graph, &facts, &entity(&graph, "_unused_helper"), None);
    assert_eq!(report.suggestions.len(), 1);
    assert_eq!(report.suggestions[0].kind, SuggestionKind::Remove);
    assert_eq!(report.suggestions[0].confidence, 0.9);
    assert_eq!(
        report.suggestions[0].reason,
        "Dead code: no resolved calls, uses or imports; not exported"
    );
    let dead: Vec<(String, f64)> = refactor::dead_code(&graph, &facts)
        .into_iter()
        .map(|(entity, confidence, _)| (entity.id.to_string(), confidence))
        .collect();
    assert_eq!(
        dead[0],
        ("app/util/rules.py::_unused_helper".to_string(), 0.9)
    );
    // Used code, entry points and constructors are not dead.
    for live in [
        "app/util/rules.py::format_money",
        "app/main.py::main",
        "app/auth/session.py::SessionStore.__init__",
    ] {
        assert!(!dead.iter().any(|(id, _)| id == live), "{live} in {dead:?}");
    }
}

#[test]
fn an_import_cycle_is_found_and_shared_code_moves_to_its_users() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let facts = refactor::repo_facts(&graph);
    assert_eq!(facts.import_cycles.len(), 1);
    let cycle: Vec<&str> = facts.import_cycles[0]
        .cycle
        .iter()
        .map(|file| &**file)
        .collect();
    assert_eq!(
        cycle,
        [
            "app/billing/invoice.py",
            "app/billing/tax.py",
            "app/billing/invoice.py"
        ]
    );
    let report = refactor::suggest(&graph, &facts, &entity(&graph, "app/billing/tax.py"), None);
    assert_eq!(report.suggestions[0].kind, SuggestionKind::Extract);
    assert!(report.suggestions[0].reason.starts_with(
        "Import cycle: app/billing/invoice.py -> app/billing/tax.py -> app/billing/invoice.py"
    ));

    let report = refactor::suggest(
        &graph,
        &facts,
        &entity(&graph, "format_money"),
        Some(SuggestionKind::Move),
    );
    assert_eq!(report.suggestions.len(), 1);
    assert_eq!(report.suggestions[0].target.as_deref(), Some("app/billing"));
    assert_eq!(
        report.suggestions[0].related,
        ["app/billing/invoice.py", "app/billing/tax.py"]
    );
}

/// The targets of `calls FROM -> TARGET` lines of `fixtures/python/expected.txt`.
pub fn expected_calls_of(from: &str) -> Vec<String> {
    let text = std::fs::read_to_string(support::fixture("python").join("expected.txt")).unwrap();
    let prefix = format!("calls {from} -> ");
    let mut targets: Vec<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(str::to_string)
        .collect();
    targets.sort();
    targets
}

#[test]
fn module_structure_lists_the_exported_api_its_users_and_unused_definitions() {
    let (_world, graph) = support::index(&support::fixture("python"));
    let tokens = modules::analyze_module_structure(&graph, "shop/auth/tokens.py").unwrap();
    let outline: Vec<(&str, u32, u32)> = tokens
        .entities
        .iter()
        .map(|entry| {
            (
                &*entry.entity.id,
                entry.entity.start_line,
                entry.entity.end_line,
            )
        })
        .collect();
    assert_eq!(
        outline,
        [
            ("shop/auth/tokens.py::issue_token", 8, 10),
            ("shop/auth/tokens.py::validate_token", 13, 15),
        ]
    );
    let imports: Vec<(&str, Option<&str>, u32)> = tokens
        .imports
        .iter()
        .map(|import| (&*import.module, import.name.as_deref(), import.line))
        .collect();
    assert_eq!(
        imports,
        [("secrets", None, 3), ("shop.models", Some("User"), 5)]
    );
    assert_eq!(tokens.exported_api.len(), 1);
    let issue_token = &tokens.exported_api[0];
    assert_eq!(&*issue_token.entity.id, "shop/auth/tokens.py::issue_token");
    // `from shop.auth.tokens import issue_token` and the call in `AuthService.authenticate`.
    assert_eq!(issue_token.references, 2);
    assert_eq!(
        issue_token
            .used_by
            .iter()
            .map(|file| &**file)
            .collect::<Vec<_>>(),
        ["shop/auth/service.py"]
    );
    let unused: Vec<&str> = tokens
        .unused_exports
        .iter()
        .map(|entity| &*entity.id)
        .collect();
    assert_eq!(unused, ["shop/auth/tokens.py::validate_token"]);
    let files = |list: &[codegraph::graph::FilePath]| -> Vec<String> {
        list.iter().map(|file| file.to_string()).collect()
    };
    assert_eq!(files(&tokens.dependencies), ["shop/models.py"]);
    assert_eq!(files(&tokens.dependents), ["shop/auth/service.py"]);
    assert_eq!(tokens.metrics.lines, 15);
    assert_eq!(tokens.metrics.entities_by_kind["function"], 2);
    assert_eq!(
        (tokens.metrics.fan_in, tokens.metrics.fan_out),
        (1, 1),
        "{:?}",
        tokens.metrics
    );
    assert!(!tokens.metrics.in_import_cycle);

    let format = modules::analyze_module_structure(&graph, "shop/util/format.py").unwrap();
    assert_eq!(files(&format.dependents), ["shop/app/main.py"]);
    assert!(format.dependencies.is_empty());
    // The same file by its dotted module name.
    assert_eq!(
        &*modules::find_file(&graph, "shop.util.format").unwrap(),
        "shop/util/format.py"
    );

    // A class counts the references to its methods; the base class used only inside its own
    // file is public but unused from outside.
    let service = modules::analyze_module_structure(&graph, "shop/auth/service.py").unwrap();
    let exported: Vec<(&str, usize)> = service
        .exported_api
        .iter()
        .map(|export| (&*export.entity.id, export.references))
        .collect();
    assert_eq!(exported, [("shop/auth/service.py::AuthService", 3)]);
    assert_eq!(
        service
            .unused_exports
            .iter()
            .map(|entity| &*entity.id)
            .collect::<Vec<_>>(),
        ["shop/auth/service.py::Authenticator"]
    );
    assert_eq!(
        service.metrics.most_complex.as_deref(),
        Some("shop/auth/service.py::AuthService.authenticate")
    );
    assert_eq!(service.metrics.max_complexity, 2);
}

#[test]
fn module_metrics_quote_complexity_and_the_import_cycle() {
    let (_world, graph) = support::index(&support::fixture("analysis"));
    let rules = modules::analyze_module_structure(&graph, "app/util/rules.py").unwrap();
    let complexities: Vec<(String, u32)> =
        refactor::function_complexities(&graph, "app/util/rules.py")
            .into_iter()
            .map(|(entity, complexity)| (entity.name.to_string(), complexity))
            .collect();
    assert_eq!(complexities[0], ("classify_order".to_string(), 13));
    assert_eq!(rules.metrics.functions, complexities.len());
    assert_eq!(
        rules.metrics.total_complexity,
        complexities
            .iter()
            .map(|(_, complexity)| complexity)
            .sum::<u32>()
    );
    assert_eq!(rules.metrics.max_complexity, 13);
    assert_eq!(
        rules.metrics.most_complex.as_deref(),
        Some("app/util/rules.py::classify_order")
    );
    assert_eq!(rules.metrics.fan_out, 0);
    assert_eq!(rules.metrics.fan_in, rules.dependents.len());

    let invoice = modules::analyze_module_structure(&graph, "app/billing/invoice.py").unwrap();
    assert!(invoice.metrics.in_import_cycle);
    let cycle: Vec<&str> = invoice
        .metrics
        .import_cycle
        .iter()
        .map(|file| &**file)
        .collect();
    assert_eq!(
        cycle,
        [
            "app/billing/invoice.py",
            "app/billing/tax.py",
            "app/billing/invoice.py"
        ]
    );
    assert!(!rules.metrics.in_import_cycle);
}

#[test]
fn dependencies_of_main_are_its_expected_calls() {
    let (_world, graph) = support::index(&support::fixture("python"));
    let main = entity(&graph, "shop/app/main.py::main");
    let found = modules::find_dependencies(&graph, &main, Direction::Downstream, 1);
    let mut reached: Vec<String> = found
        .iter()
        .map(|item| item.entity.id.to_string())
        .collect();
    reached.sort();
    let expected = expected_calls_of("shop/app/main.py::main");
    assert_eq!(expected.len(), 6);
    assert_eq!(reached, expected);
    assert!(found.iter().all(|item| item.depth == 1
        && item.direction == Direction::Downstream
        && &*item.via == "shop/app/main.py::main"));

    // Upstream, two hops: the module calls `main`; nothing calls the module.
    let found = modules::find_dependencies(&graph, &main, Direction::Upstream, 2);
    let reached: Vec<(&str, u32)> = found
        .iter()
        .map(|item| (&*item.entity.id, item.depth))
        .collect();
    assert_eq!(reached, [("shop/app/main.py", 1)]);

    // Both directions from `issue_token`, two hops each way.
    let issue_token = entity(&graph, "shop/auth/tokens.py::issue_token");
    let found = modules::find_dependencies(&graph, &issue_token, Direction::Both, 2);
    let reached: Vec<(&str, &str, u32)> = found
        .iter()
        .map(|item| (item.direction.as_str(), &*item.entity.id, item.depth))
        .collect();
    assert_eq!(
        reached,
        [
            ("downstream", "shop/models.py::User", 1),
            ("upstream", "shop/auth/service.py", 1),
            (
                "upstream",
                "shop/auth/service.py::AuthService.authenticate",
                1
            ),
            ("upstream", "shop/app/main.py::main", 2),
        ]
    );
}

/// "Unused public definitions" lists what each language's visibility rules publish: `pub` (not
/// `pub(crate)`),
/// capitalised Go names, Python's `__all__`, JavaScript's `export` (on the definition or in a
/// list), `public` in Java, anything not `private`/`internal` in Kotlin, non-`static` C, and
/// non-`local` Lua.
#[test]
fn unused_exports_follow_each_languages_visibility() {
    let repo = tempfile::tempdir().unwrap();
    let files: &[(&str, &str)] = &[
        (
            "lib.rs",
            "pub fn shown() {}\nfn hidden() {}\npub(crate) fn crate_wide() {}\n",
        ),
        (
            "pkg/p.go",
            "package pkg\n\nfunc Shown() {}\n\nfunc hidden() {}\n",
        ),
        (
            "mod.py",
            "__all__ = ['shown']\n\ndef shown():\n    pass\n\ndef hidden():\n    pass\n",
        ),
        (
            "m.ts",
            "export function shown() {}\nfunction listed() {}\nfunction hidden() {}\nexport { listed };\n",
        ),
        ("Shown.java", "public class Shown {}\nclass Hidden {}\n"),
        (
            "k.kt",
            "fun shown() {}\nprivate fun hidden() {}\ninternal fun moduleWide() {}\n",
        ),
        (
            "c.c",
            "int shown(void) { return 0; }\nstatic int hidden(void) { return 1; }\n",
        ),
        (
            "m.lua",
            "function shown() end\nlocal function hidden() end\n",
        ),
    ];
    for (path, text) in files {
        let absolute = repo.path().join(path);
        std::fs::create_dir_all(absolute.parent().unwrap()).unwrap();
        std::fs::write(absolute, text).unwrap();
    }
    let (_world, graph) = support::index(repo.path());
    for (path, expected) in [
        ("lib.rs", vec!["shown"]),
        ("pkg/p.go", vec!["Shown"]),
        ("mod.py", vec!["shown"]),
        ("m.ts", vec!["listed", "shown"]),
        ("Shown.java", vec!["Shown"]),
        ("k.kt", vec!["shown"]),
        ("c.c", vec!["shown"]),
        ("m.lua", vec!["shown"]),
    ] {
        let structure = modules::analyze_module_structure(&graph, path).expect(path);
        let mut names: Vec<String> = structure
            .unused_exports
            .iter()
            .filter(|entity| entity.kind != codegraph::model::EntityKind::Module)
            .map(|entity| entity.name.to_string())
            .collect();
        names.sort();
        assert_eq!(names, expected, "{path}");
    }
}
