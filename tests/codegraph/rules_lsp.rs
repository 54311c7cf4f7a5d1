//! Architecture rules in the editor: `codegraph lsp --stdio` on the fixture
//! `fixtures/architecture/`, an unsaved edit that adds a forbidden import, its diagnostics
//! (pulled and published, in the edited file and in the file the new cycle runs through), the
//! quick fix, and the edit undone.

use std::path::Path;

use serde_json::{Value, json};

use crate::lsp::{LspClient, uri};
use crate::support;

/// `line:col-line:col severity code: message` (zero-based, as LSP counts).
fn show(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|diagnostic| {
            assert_eq!(diagnostic["source"], "codegraph", "{diagnostic}");
            let range = &diagnostic["range"];
            let severity = match diagnostic["severity"].as_u64() {
                Some(1) => "error",
                Some(2) => "warning",
                Some(3) => "info",
                _ => "?",
            };
            format!(
                "{}:{}-{}:{} {severity} {}: {}",
                range["start"]["line"],
                range["start"]["character"],
                range["end"]["line"],
                range["end"]["character"],
                diagnostic["code"].as_str().unwrap_or("?"),
                diagnostic["message"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

fn pull(client: &mut LspClient, path: &Path) -> Vec<String> {
    let report = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(path)}}),
    );
    assert_eq!(report["kind"], "full", "{report}");
    show(&report["items"])
}

/// Waits for the publication of exactly `expected` for `path`.
fn published(client: &mut LspClient, path: &Path, expected: &[String]) {
    let target = uri(path);
    let expected: Vec<String> = expected.to_vec();
    client.notification("textDocument/publishDiagnostics", |params| {
        params["uri"] == target.as_str() && show(&params["diagnostics"]) == expected
    });
}

const AUTH_INDEPENDENT: &str = "`ts/src/features/auth/**` and `ts/src/features/billing/**` must stay independent of each other";
const BILLING_INDEPENDENT: &str = "`ts/src/features/billing/**` and `ts/src/features/auth/**` must stay independent of each other";

#[test]
fn an_unsaved_forbidden_import_shows_its_diagnostics_offers_a_fix_and_clears_when_removed() {
    let root = support::fixture("architecture");
    let (mut client, initialize) = LspClient::start(&[&root], false);
    let capabilities = &initialize["capabilities"];
    assert_eq!(
        capabilities["diagnosticProvider"]["identifier"],
        "codegraph"
    );
    assert_eq!(
        capabilities["diagnosticProvider"]["interFileDependencies"],
        true
    );

    let session = root.join("ts/src/features/auth/session.ts");
    let invoice = root.join("ts/src/features/billing/invoice.ts");
    let session_text = std::fs::read_to_string(&session).unwrap();
    client.open(&session, &session_text);
    client.open(&invoice, &std::fs::read_to_string(&invoice).unwrap());

    // Before: auth knows nothing of billing; billing breaks two rules.
    let invoice_before = vec![
        format!("0:0-0:46 warning features: imports ts/src/features/auth/session.ts::currentUser: {BILLING_INDEPENDENT}"),
        "2:0-2:26 info no-axios: imports axios: `ts/src/**` must not depend on `axios`. Use the fetch wrapper in ts/src/shared.".to_string(),
        format!("5:15-5:26 warning features: calls ts/src/features/auth/session.ts::currentUser: {BILLING_INDEPENDENT}"),
    ];
    assert_eq!(pull(&mut client, &session), Vec::<String>::new());
    assert_eq!(pull(&mut client, &invoice), invoice_before);
    // The test client does not pull by itself: the server publishes too.
    published(&mut client, &session, &[]);
    published(&mut client, &invoice, &invoice_before);

    // Typed, not saved: auth imports billing, and so closes a cycle through invoice.ts.
    let import = "import { invoiceTotal } from \"../billing/invoice\";\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&session), "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                             "end": {"line": 0, "character": 0}},
                                   "text": import}]}),
    );
    let session_after = vec![
        "0:0-0:50 error cycles: imports ts/src/features/billing/invoice.ts::invoiceTotal: dependency cycle between files: ts/src/features/auth/session.ts → ts/src/features/billing/invoice.ts → ts/src/features/auth/session.ts".to_string(),
        format!("0:0-0:50 warning features: imports ts/src/features/billing/invoice.ts::invoiceTotal: {AUTH_INDEPENDENT}"),
    ];
    assert_eq!(pull(&mut client, &session), session_after);
    published(&mut client, &session, &session_after);
    let mut invoice_after = invoice_before.clone();
    invoice_after.insert(0, "0:0-0:46 error cycles: imports ts/src/features/auth/session.ts::currentUser: dependency cycle between files: ts/src/features/billing/invoice.ts → ts/src/features/auth/session.ts → ts/src/features/billing/invoice.ts".to_string());
    assert_eq!(pull(&mut client, &invoice), invoice_after);
    published(&mut client, &invoice, &invoice_after);

    // The quick fix removes the import's whole line, once for both rules.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&session)},
               "range": {"start": {"line": 0, "character": 10}, "end": {"line": 0, "character": 10}},
               "context": {"diagnostics": []}}),
    );
    let actions = actions.as_array().expect("code actions");
    assert_eq!(actions.len(), 1, "{actions:?}");
    let action = &actions[0];
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(
        action["title"],
        "Remove the import (import { invoiceTotal } from \"../billing/invoice\";)"
    );
    assert_eq!(
        show(&action["diagnostics"]).len(),
        2,
        "the fix answers both rules"
    );
    assert_eq!(
        action["edit"]["changes"][uri(&session)],
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "newText": ""}])
    );
    // Nothing to fix away from the import.
    let elsewhere = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&session)},
               "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}},
               "context": {"diagnostics": []}}),
    );
    assert_eq!(elsewhere, Value::Null);

    // Removed again (as the fix would): both files are back to where they were.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&session), "version": 3},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                             "end": {"line": 1, "character": 0}},
                                   "text": ""}]}),
    );
    assert_eq!(pull(&mut client, &session), Vec::<String>::new());
    published(&mut client, &session, &[]);
    assert_eq!(pull(&mut client, &invoice), invoice_before);
    published(&mut client, &invoice, &invoice_before);

    // A folder without a rules file has no diagnostics.
    let python = support::fixture("python");
    let (mut plain, _) = LspClient::start(&[&python], false);
    let main = python.join("shop/app/main.py");
    plain.open(&main, &std::fs::read_to_string(&main).unwrap());
    assert_eq!(pull(&mut plain, &main), Vec::<String>::new());
    assert!(plain.shutdown().success());
    assert!(client.shutdown().success());
}

/// A client that pulls (and accepts refreshes) is not sent publications; when an edit changes
/// the diagnostics of another open document, it is asked to pull again.
#[test]
fn a_pull_client_is_asked_to_pull_again_when_an_edit_changes_another_document() {
    let root = support::fixture("architecture");
    let (mut client, _) = LspClient::start_announcing(
        &[&root],
        false,
        &[],
        json!({"textDocument": {"diagnostic": {"dynamicRegistration": false}},
               "workspace": {"diagnostics": {"refreshSupport": true}}}),
    );
    let session = root.join("ts/src/features/auth/session.ts");
    let invoice = root.join("ts/src/features/billing/invoice.ts");
    client.open(&session, &std::fs::read_to_string(&session).unwrap());
    client.open(&invoice, &std::fs::read_to_string(&invoice).unwrap());
    assert_eq!(pull(&mut client, &session), Vec::<String>::new());
    let invoice_before = pull(&mut client, &invoice);
    assert_eq!(invoice_before.len(), 3, "{invoice_before:?}");

    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&session), "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                             "end": {"line": 0, "character": 0}},
                                   "text": "import { invoiceTotal } from \"../billing/invoice\";\n"}]}),
    );
    // invoice.ts is now in a cycle: the server asks for a new pull.
    client.notification("workspace/diagnostic/refresh", |_| true);
    let invoice_after = pull(&mut client, &invoice);
    assert_eq!(invoice_after.len(), 4, "{invoice_after:?}");
    assert!(
        invoice_after[0].contains("error cycles"),
        "{invoice_after:?}"
    );

    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&session), "version": 3},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                             "end": {"line": 1, "character": 0}},
                                   "text": ""}]}),
    );
    client.notification("workspace/diagnostic/refresh", |_| true);
    assert_eq!(pull(&mut client, &invoice), invoice_before);
    assert_eq!(pull(&mut client, &session), Vec::<String>::new());
    assert!(client.shutdown().success());
}

/// The rules file itself: its problems are diagnostics on it (code `rules-file`, at the pattern
/// or key as written), for the editor's unsaved text while it is open; once saved, the other
/// documents follow the new rules; closed, a publishing client still hears of the file's
/// problems, and they clear when the file is fixed on disk (a watched-file change).
#[test]
fn the_rules_files_problems_are_diagnostics_on_it_while_it_is_typed_saved_and_watched() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    crate::cache::copy_tree(&support::fixture("architecture"), &root);
    let rules = root.join(".codegraph/rules.toml");
    let original = std::fs::read_to_string(&rules).unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    let invoice = root.join("ts/src/features/billing/invoice.ts");
    client.open(&invoice, &std::fs::read_to_string(&invoice).unwrap());
    let invoice_before = pull(&mut client, &invoice);
    assert_eq!(invoice_before.len(), 3, "{invoice_before:?}");
    client.open(&rules, &original);
    assert_eq!(pull(&mut client, &rules), Vec::<String>::new());

    // Typed, not saved: a rule naming a directory that does not exist, and a misspelt key.
    let end = original.lines().count();
    let legacy = "\n[[forbid]]\nname = \"legacy\"\nfrom = \"py/legacy/**\"\nto = \"requests\"\nseverty = \"error\"\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&rules), "version": 2},
               "contentChanges": [{"range": {"start": {"line": end, "character": 0},
                                             "end": {"line": end, "character": 0}},
                                   "text": legacy}]}),
    );
    let typed = vec![
        format!(
            "{}:7-{}:21 error rules-file: `py/legacy/**` (rule `legacy`) matches no file of the workspace",
            end + 3,
            end + 3
        ),
        format!(
            "{}:0-{}:7 error rules-file: unknown key `severty` in a `forbid` rule (known: name, from, to, severity, reason, kinds)",
            end + 5,
            end + 5
        ),
    ];
    assert_eq!(pull(&mut client, &rules), typed);
    published(&mut client, &rules, &typed);
    // Unsaved rules are not the rules: the other documents keep theirs.
    assert_eq!(pull(&mut client, &invoice), invoice_before);

    // Not TOML at all.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&rules), "version": 3},
               "contentChanges": [{"text": "[[forbid]\nname = 1\n"}]}),
    );
    let broken = pull(&mut client, &rules);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(
        broken[0].starts_with("0:") && broken[0].contains(" error rules-file: not valid TOML: "),
        "{broken:?}"
    );

    // Saved without the `features` rule and with the legacy one: the rules file shows the
    // legacy problem, and invoice.ts loses its two `features` warnings.
    let without_features = original.replace(
        "[[independent]]\nname = \"features\"\nmodules = [\"ts/src/features/billing/**\", \"ts/src/features/auth/**\"]\nseverity = \"warning\"\n",
        "",
    );
    assert_ne!(without_features, original);
    let saved = format!("{without_features}{legacy}");
    std::fs::write(&rules, &saved).unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&rules), "version": 4},
               "contentChanges": [{"text": saved}]}),
    );
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&rules)}}),
    );
    let saved_end = without_features.lines().count();
    let saved_problems = vec![
        format!(
            "{}:7-{}:21 error rules-file: `py/legacy/**` (rule `legacy`) matches no file of the workspace",
            saved_end + 3,
            saved_end + 3
        ),
        format!(
            "{}:0-{}:7 error rules-file: unknown key `severty` in a `forbid` rule (known: name, from, to, severity, reason, kinds)",
            saved_end + 5,
            saved_end + 5
        ),
    ];
    assert_eq!(pull(&mut client, &rules), saved_problems);
    published(&mut client, &rules, &saved_problems);
    let invoice_without_features: Vec<String> = invoice_before
        .iter()
        .filter(|diagnostic| !diagnostic.contains(" features: "))
        .cloned()
        .collect();
    assert_eq!(invoice_without_features.len(), 1, "{invoice_before:?}");
    published(&mut client, &invoice, &invoice_without_features);
    assert_eq!(pull(&mut client, &invoice), invoice_without_features);

    // Closed: a publishing client still hears of the file's problems (nothing is cleared);
    // fixed on disk and reported by the watcher, they clear and the old rules are back.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&rules)}}),
    );
    assert_eq!(pull(&mut client, &rules), saved_problems, "read from disk");
    std::fs::write(&rules, &original).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&rules), "type": 2}]}),
    );
    published(&mut client, &rules, &[]);
    published(&mut client, &invoice, &invoice_before);
    assert!(client.shutdown().success());
}
