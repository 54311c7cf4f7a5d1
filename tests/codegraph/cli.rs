//! The CLI, run as a subprocess like a user would.

use std::process::Command;

use crate::support;

fn codegraph(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_codegraph"))
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
fn callers_of_a_function_are_listed() {
    let repo = support::fixture("python");
    let (code, stdout, stderr) = codegraph(&[
        "callers",
        "shop.util.format.format_name",
        "--no-cache",
        "-r",
        repo.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout
            .lines()
            .map(|line| line.split_whitespace().next().unwrap())
            .collect::<Vec<_>>(),
        ["shop/app/main.py::main"]
    );
}

#[test]
fn index_json_reports_counts() {
    let repo = support::fixture("python");
    let (code, stdout, stderr) =
        codegraph(&["index", repo.to_str().unwrap(), "--no-cache", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["languages"]["python"], 12);
    assert_eq!(report["entities_by_type"]["class"], 4);
}

#[test]
fn an_unknown_entity_is_one_clear_error_with_closest_matches() {
    let repo = support::fixture("python");
    let (code, stdout, stderr) = codegraph(&[
        "callers",
        "factorail",
        "--no-cache",
        "-r",
        repo.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert_eq!(
        stderr.trim(),
        "codegraph: no entity named 'factorail'; closest: factorial"
    );
}

#[test]
fn an_ambiguous_name_lists_the_candidates() {
    let repo = support::fixture("python");
    let (code, _, stderr) = codegraph(&[
        "callers",
        "format_name",
        "--no-cache",
        "-r",
        repo.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("shop/report/format.py::format_name")
            && stderr.contains("shop/util/format.py::format_name"),
        "{stderr}"
    );
}

#[test]
fn a_missing_path_is_one_clear_error() {
    let (code, _, stderr) = codegraph(&["index", "/definitely/not/here"]);
    assert_eq!(code, 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("codegraph: /definitely/not/here:"),
        "{stderr}"
    );
}

#[test]
fn search_communities_and_refactor_commands() {
    let repo = support::fixture("analysis");
    let repo = repo.to_str().unwrap();
    let (code, stdout, stderr) = codegraph(&[
        "search",
        "password hashing",
        "--limit",
        "1",
        "--no-cache",
        "-r",
        repo,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim(),
        "1.00  app/auth/passwords.py::hash_password  function app/auth/passwords.py:10"
    );
    let (code, stdout, stderr) =
        codegraph(&["communities", "--level", "1", "--no-cache", "-r", repo]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("level 1: "), "{stdout}");
    assert!(stdout.contains(" app/auth: "), "{stdout}");
    let (code, stdout, stderr) =
        codegraph(&["refactor", "classify_order", "--no-cache", "-r", repo]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("simplify (0.80): High cyclomatic complexity (13, over 10)"),
        "{stdout}"
    );
    let (code, stdout, stderr) = codegraph(&["refactor", "--cycles", "--no-cache", "-r", repo]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim(),
        "2 files: app/billing/invoice.py -> app/billing/tax.py -> app/billing/invoice.py"
    );
}

#[test]
fn deps_and_module_print_the_answers_of_the_analysis_functions() {
    let repo = support::fixture("python");
    let repo = repo.to_str().unwrap();
    let (code, stdout, stderr) = codegraph(&[
        "deps",
        "shop/app/main.py::main",
        "--direction",
        "downstream",
        "--depth",
        "1",
        "--no-cache",
        "-r",
        repo,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let mut reached: Vec<String> = stdout
        .lines()
        .map(|line| {
            assert!(line.starts_with("downstream 1  "), "{line}");
            line.split_whitespace().nth(2).unwrap().to_string()
        })
        .collect();
    reached.sort();
    assert_eq!(
        reached,
        crate::analysis::expected_calls_of("shop/app/main.py::main")
    );

    let (code, stdout, stderr) = codegraph(&[
        "module",
        "shop/auth/tokens.py",
        "--json",
        "--no-cache",
        "-r",
        repo,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let module: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(module["exported_api"].as_array().unwrap().len(), 1);
    assert_eq!(
        module["exported_api"][0]["entity"]["id"],
        "shop/auth/tokens.py::issue_token"
    );
    assert_eq!(
        module["exported_api"][0]["used_by"],
        serde_json::json!(["shop/auth/service.py"])
    );
    assert_eq!(
        module["unused_exports"][0]["id"],
        "shop/auth/tokens.py::validate_token"
    );
    assert_eq!(
        module["dependents"],
        serde_json::json!(["shop/auth/service.py"])
    );

    // The text form, by dotted module name.
    let (code, stdout, stderr) =
        codegraph(&["module", "shop.util.format", "--no-cache", "-r", repo]);
    assert_eq!(code, 0, "{stderr}");
    let depended_on_by: Vec<&str> = stdout
        .lines()
        .skip_while(|line| *line != "Depended on by:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .map(str::trim)
        .collect();
    assert_eq!(depended_on_by, ["shop/app/main.py"], "{stdout}");
    assert!(
        stdout.contains(
            "  function shop/util/format.py::format_name  2 references from shop/app/main.py"
        ),
        "{stdout}"
    );

    let (code, _stdout, stderr) =
        codegraph(&["module", "shop/nowhere.py", "--no-cache", "-r", repo]);
    assert_eq!(code, 1);
    assert!(stderr.contains("is not an indexed file"), "{stderr}");
}

/// `mcp-config --client X`: stdout is exactly the file's content, with this binary's absolute
/// path and the repository's canonical path; the hint (and `claude mcp add`) goes to stderr.
#[test]
fn mcp_config_prints_each_clients_file_with_absolute_paths() {
    let repo = std::fs::canonicalize(support::fixture("python")).unwrap();
    let repo = repo.to_str().unwrap();
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_codegraph")).unwrap();
    let binary = binary.to_str().unwrap();
    // A relative `--repo` is made canonical.
    let relative = format!("{repo}/shop/..");

    let (code, stdout, stderr) =
        codegraph(&["mcp-config", "--client", "vscode", "--repo", &relative]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim_end(),
        format!(
            "{{\n  \"servers\": {{\n    \"codegraph\": {{\n      \"type\": \"stdio\",\n      \
             \"command\": \"{binary}\",\n      \"args\": [\n        \"mcp\",\n        \
             \"--repo\",\n        \"{repo}\"\n      ]\n    }}\n  }}\n}}"
        )
    );
    assert_eq!(stderr.trim(), format!("# VS Code: {repo}/.vscode/mcp.json"));

    let standard = serde_json::json!({"mcpServers": {"codegraph": {
        "command": binary, "args": ["mcp", "--repo", repo]}}});
    for client in ["claude-code", "claude-desktop", "cursor"] {
        let (code, stdout, stderr) = codegraph(&["mcp-config", "--client", client, "-r", repo]);
        assert_eq!(code, 0, "{stderr}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json, standard, "{client}");
    }
    let (_, _, stderr) = codegraph(&["mcp-config", "--client", "claude-code", "-r", repo]);
    assert_eq!(
        stderr.trim(),
        format!(
            "# Claude Code: {repo}/.mcp.json, or run: claude mcp add codegraph -- {binary} mcp --repo {repo}"
        )
    );
    let (_, _, stderr) = codegraph(&["mcp-config", "--client", "cursor", "-r", repo]);
    assert_eq!(stderr.trim(), format!("# Cursor: {repo}/.cursor/mcp.json"));
}

#[test]
fn mcp_config_without_a_client_prints_all_four() {
    let repo = std::fs::canonicalize(support::fixture("python")).unwrap();
    let (code, stdout, stderr) = codegraph(&["mcp-config", "-r", repo.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let headers: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("# "))
        .map(|line| line.split(':').next().unwrap())
        .collect();
    assert_eq!(
        headers,
        ["# Claude Code", "# Claude Desktop", "# Cursor", "# VS Code"]
    );
    let (code, _, stderr) = codegraph(&["mcp-config", "-r", "/no/such/repo"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("codegraph: /no/such/repo: no such repository"),
        "{stderr}"
    );
}

/// Every `--json` answer carries the trust stamp; the enumerated flags take their words (and
/// their synonyms) and refuse others with the list.
#[test]
fn json_answers_carry_the_stamp_and_enumerated_flags_are_checked() {
    let directory = tempfile::tempdir().unwrap();
    crate::cache::copy_tree(&support::fixture("python"), directory.path());
    let repo = directory.path().to_str().unwrap();
    // Each command indexes the repository first: nothing is stale, nothing unsaved.
    for command in [
        &["callers", "shop/util/math.py::factorial"][..],
        &["callees", "shop/app/main.py::main"],
        &["impls", "shop/auth/service.py::Authenticator"],
        &["symbols", "fact"],
        &["search", "factorial"],
        &["deps", "shop/util/math.py::factorial"],
        &["module", "shop/util/math.py"],
        &["show", "shop/util/math.py::factorial"],
        &["refactor", "shop/util/math.py::factorial"],
        &["refactor", "--dead"],
        &["refactor", "--cycles"],
        &["communities"],
        &["stats"],
    ] {
        let mut arguments = command.to_vec();
        arguments.extend(["--json", "--no-cache", "-r", repo]);
        let (code, stdout, stderr) = codegraph(&arguments);
        assert_eq!(code, 0, "{command:?}: {stderr}");
        let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let stamp = &answer["provenance"];
        assert!(
            stamp["revision"].as_u64().unwrap() > 0,
            "{command:?}: {stamp}"
        );
        assert_eq!(stamp["unsaved_files"], serde_json::json!([]), "{command:?}");
        assert_eq!(stamp["stale_files"], serde_json::json!([]), "{command:?}");
    }
    let (_, stdout, _) = codegraph(&[
        "impls",
        "shop/auth/service.py::Authenticator",
        "--json",
        "--no-cache",
        "-r",
        repo,
    ]);
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["possible"], serde_json::json!([]));
    assert_eq!(
        answer["implementations"][0]["id"],
        "shop/auth/service.py::AuthService"
    );

    let incoming = codegraph(&[
        "deps",
        "shop/util/math.py::factorial",
        "--direction",
        "incoming",
        "--no-cache",
        "-r",
        repo,
    ]);
    let upstream = codegraph(&[
        "deps",
        "shop/util/math.py::factorial",
        "--direction",
        "UPSTREAM",
        "--no-cache",
        "-r",
        repo,
    ]);
    assert_eq!(incoming, upstream);
    assert!(
        incoming.1.contains("shop/app/main.py::main"),
        "{}",
        incoming.1
    );
    let (code, _, stderr) = codegraph(&["search", "x", "--scope", "methods", "-r", repo]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("invalid value 'methods' for '--scope <SCOPE>'")
            && stderr.contains("[possible values: all, functions, classes, files]"),
        "{stderr}"
    );
}

#[test]
fn callers_say_how_each_call_was_found() {
    let repo = support::fixture("typescript");
    let args = |json: bool| {
        let mut args = vec![
            "callers",
            "src/models.ts::User.displayName",
            "--no-cache",
            "-r",
            repo.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        codegraph(&args)
    };
    let (code, stdout, _) = args(false);
    assert_eq!(code, 0);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "src/app/main.ts::describe  function src/app/main.ts:6",
            "src/app/main.ts::main  function src/app/main.ts:10  [dispatch]",
            "src/models.ts::Admin.displayName  method src/models.ts:13",
            "src/report/format.ts::formatName  function src/report/format.ts:4",
        ]
    );
    let (code, stdout, _) = args(true);
    assert_eq!(code, 0);
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let callers: Vec<(String, String, Vec<u64>)> = answer["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|caller| {
            (
                caller["id"].as_str().unwrap().to_string(),
                caller["resolution"].as_str().unwrap().to_string(),
                caller["call_lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|line| line.as_u64().unwrap())
                    .collect(),
            )
        })
        .collect();
    // main calls `admin.displayName()`, Admin's override: a caller of User's member by
    // dispatch, as typescript-language-server lists it.
    assert_eq!(
        callers,
        [
            (
                "src/app/main.ts::describe".into(),
                "receiver_type".into(),
                vec![7]
            ),
            ("src/app/main.ts::main".into(), "dispatch".into(), vec![14]),
            (
                "src/models.ts::Admin.displayName".into(),
                "receiver_type".into(),
                vec![14]
            ),
            (
                "src/report/format.ts::formatName".into(),
                "receiver_type".into(),
                vec![5]
            ),
        ]
    );
}
