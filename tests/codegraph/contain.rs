//! One bad file never takes the process down: a panic injected into one file's extraction
//! (the test hook `codegraph::contain::INJECT_PANIC`) costs that file only. `codegraph index`
//! exits 0 and lists it, the other files answer, and the language server keeps serving and
//! tells the editor once.

use std::path::Path;
use std::process::Command;

use crate::lsp::{AUTHENTICATE_METHOD, LspClient, find, show_calls};
use crate::support;

/// The Python fixture copied, with the injected panic's marker in `shop/report/format.py`.
fn python_with_a_failing_file() -> tempfile::TempDir {
    let directory = tempfile::tempdir().unwrap();
    let from = support::fixture("python");
    let mut pending = vec![from.clone()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let target = directory.path().join(path.strip_prefix(&from).unwrap());
            if path.is_dir() {
                std::fs::create_dir_all(&target).unwrap();
                pending.push(path);
            } else {
                std::fs::copy(&path, &target).unwrap();
            }
        }
    }
    let failing = directory.path().join("shop/report/format.py");
    let mut text = std::fs::read_to_string(&failing).unwrap();
    text.push_str(&format!("\n# {}\n", support::INJECTED_PANIC));
    std::fs::write(failing, text).unwrap();
    directory
}

fn codegraph(root: &Path, arguments: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_codegraph"))
        .args(arguments)
        .args(["--no-cache", "-r", root.to_str().unwrap()])
        .env(codegraph::contain::INJECT_PANIC, support::INJECTED_PANIC)
        .output()
        .expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_cli_indexes_every_other_file_and_lists_the_one_it_failed_on() {
    let directory = python_with_a_failing_file();
    let root = directory.path();
    let (code, stdout, stderr) = codegraph(root, &["index", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["path"], "shop/report/format.py");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("injected for a test"),
        "{failed:?}"
    );
    // Every other file: the fixture's twelve Python files are all there.
    assert_eq!(report["languages"]["python"], 12);
    let (code, stdout, _) = codegraph(root, &["index"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Failed on 1 files"), "{stdout}");
    assert!(stdout.contains("  shop/report/format.py: "), "{stdout}");
    // The others answer as before.
    let (code, stdout, stderr) = codegraph(root, &["callers", "shop.util.format.format_name"]);
    assert_eq!(code, 0, "{stderr}");
    let callers: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(callers, ["shop/app/main.py::main"]);
}

#[test]
fn the_language_server_keeps_serving_and_tells_the_editor_once() {
    let directory = python_with_a_failing_file();
    let root = directory.path().canonicalize().unwrap();
    let (mut client, _) = LspClient::start(&[&root], false);
    let service = root.join("shop/auth/service.py");
    let (line, column) = find(&service, AUTHENTICATE_METHOD);
    let item = client.call_item(&service, line, column);
    assert_eq!(item["name"], "authenticate");
    assert_eq!(
        show_calls(&client.incoming(&item), "from"),
        ["main @ 11:20-11:32"]
    );
    let message = client.notification("window/showMessage", |_| true);
    let text = message["message"].as_str().unwrap();
    assert!(
        text.contains("failed on 1 file(s)") && text.contains("shop/report/format.py"),
        "{text}"
    );
    assert!(client.shutdown().success());
}
