//! Architecture rules for AI clients, over an in-memory MCP session on a temp copy of
//! `fixtures/architecture/`: `check_architecture` (everything, some files, proposed contents
//! that are never written), the resource `codegraph://rules` and its notifications, the prompt
//! `place_shared_module`.

use std::time::Duration;

use rmcp::model::{GetPromptRequestParams, SubscribeRequestParams};
use serde_json::{Value, json};

use crate::support::mcp::{McpSession, McpSetup};

async fn start() -> McpSession {
    McpSetup::copy_of("architecture").start().await
}

/// `check_architecture` and the rules resource, as these tests call them.
trait Architecture {
    /// A successful check's structured answer.
    async fn check(&self, arguments: Value) -> Value;
    /// A refused check's error object.
    async fn refused(&self, arguments: Value) -> Value;
    /// The `codegraph://rules` resource, parsed.
    async fn rules(&self) -> Value;
}

impl Architecture for McpSession {
    async fn check(&self, arguments: Value) -> Value {
        self.ok("check_architecture", arguments).await
    }

    async fn refused(&self, arguments: Value) -> Value {
        self.error("check_architecture", arguments).await
    }

    async fn rules(&self) -> Value {
        serde_json::from_str(&self.read_text("codegraph://rules").await).unwrap()
    }
}

/// `file:line:col severity rule kind target` of each violation of a list.
fn show(violations: &Value) -> Vec<String> {
    violations
        .as_array()
        .expect("violations")
        .iter()
        .map(|violation| {
            format!(
                "{}:{}:{} {} {} {} {}",
                violation["file"].as_str().unwrap(),
                violation["line"],
                violation["column"],
                violation["severity"].as_str().unwrap(),
                violation["rule"].as_str().unwrap(),
                violation["kind"].as_str().unwrap(),
                violation["target"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_architecture_answers_for_the_repository_some_files_and_proposed_contents() {
    let session = start().await;

    let all = session.check(json!({})).await;
    assert_eq!(all["rules_file"], ".codegraph/rules.toml");
    assert_eq!(all["total_violations"], 20);
    assert_eq!(all["problems"], json!([]));
    let counts: Vec<String> = all["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| {
            format!(
                "{} {} {}",
                rule["name"].as_str().unwrap(),
                rule["kind"].as_str().unwrap(),
                rule["violations"]
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            "py-layers layers 2",
            "domain-is-pure forbid 10",
            "features independent 2",
            "no-axios forbid 1",
            "cycles cycles 5"
        ]
    );

    let go = session.check(json!({"files": ["go/domain/user.go"]})).await;
    assert_eq!(
        show(&go["violations"]),
        [
            "go/domain/user.go:4:2 error domain-is-pure import net/http",
            "go/domain/user.go:6:2 error domain-is-pure import go/infra/store.go",
            "go/domain/user.go:13:8 error domain-is-pure call go/infra/store.go::Store",
        ]
    );
    assert_eq!(go["violations"][0]["fix"], "Remove the import (lines 4-4)");
    assert_eq!(go["violations"][0]["reference"], "\"net/http\"");

    // A new domain module that would talk to the database: refused by the rules, not written.
    let pricing =
        "from py.infra.db import connect\n\n\ndef price(order_id):\n    return connect()\n";
    let proposed = session
        .check(json!({"proposed": [{"file_path": "py/domain/pricing.py", "content": pricing}]}))
        .await;
    let proposal = &proposed["proposal"];
    assert_eq!(proposal["breaks_rules"], true);
    assert_eq!(
        show(&proposal["new_violations"]),
        [
            "py/domain/pricing.py:1:1 error domain-is-pure import py/infra/db.py::connect",
            "py/domain/pricing.py:5:12 error domain-is-pure call py/infra/db.py::connect",
        ]
    );
    assert_eq!(
        show(&proposal["violations"]),
        show(&proposal["new_violations"])
    );
    assert_eq!(proposal["fixed_violations"], json!([]));
    // Nothing of it reached the disk or the graph.
    assert!(!session.repo.join("py/domain/pricing.py").exists());
    assert!(
        session
            .world
            .snapshot()
            .file("py/domain/pricing.py")
            .is_none()
    );
    assert_eq!(session.check(json!({})).await["total_violations"], 20);

    // The Go domain without its infrastructure: two violations fixed, nothing broken.
    let user = "package domain\n\nimport (\n\t\"net/http\"\n)\n\ntype User struct{}\n\nfunc (u User) Save() error {\n\t_, err := http.Get(\"http://localhost\")\n\treturn err\n}\n";
    let cleaned = session
        .check(json!({"proposed": [{"path": "go/domain/user.go", "content": user}]}))
        .await;
    let proposal = &cleaned["proposal"];
    assert_eq!(proposal["breaks_rules"], false);
    assert_eq!(proposal["new_violations"], json!([]));
    let fixed: Vec<String> = proposal["fixed_violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            format!(
                "{} {} {}",
                entry["rule"].as_str().unwrap(),
                entry["kind"].as_str().unwrap(),
                entry["target"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        fixed,
        [
            "domain-is-pure import go/infra/store.go",
            "domain-is-pure call go/infra/store.go::Store",
        ]
    );
    assert_eq!(
        show(&proposal["violations"]),
        ["go/domain/user.go:4:2 error domain-is-pure import net/http"]
    );
    // Today's violations of the file are still the three.
    assert_eq!(cleaned["total_violations"], 3);

    // Paths outside the repository and files codegraph does not parse are refused.
    let outside = session
        .refused(json!({"proposed": [{"file_path": "../escape.py", "content": "import os\n"}]}))
        .await;
    assert_eq!(outside["error"], "Path outside the repository");
    let toml = session
        .refused(json!({"proposed": [{"file_path": "notes.toml", "content": "a = 1\n"}]}))
        .await;
    assert_eq!(toml["error"], "Not a source file");
    let unknown = session.refused(json!({"files": ["py/nowhere.py"]})).await;
    assert_eq!(unknown["error"], "File not found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rules_resource_reports_drift_and_notifies_when_violations_change() {
    let mut session = start().await;
    // A baseline frozen before the new import below.
    let baseline = json!({"version": 1, "violations": []});
    std::fs::write(
        session.repo.join(".codegraph/rules-baseline.json"),
        baseline.to_string(),
    )
    .unwrap();

    let rules = session.rules().await;
    assert_eq!(rules["status"], "ok");
    assert_eq!(rules["baseline"], ".codegraph/rules-baseline.json");
    let drift: Vec<String> = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| {
            format!(
                "{} now {} baseline {} new {}",
                rule["name"].as_str().unwrap(),
                rule["now"],
                rule["baseline"],
                rule["new"]
            )
        })
        .collect();
    assert_eq!(
        drift,
        [
            "py-layers now 2 baseline 0 new 2",
            "domain-is-pure now 10 baseline 0 new 10",
            "features now 2 baseline 0 new 2",
            "no-axios now 1 baseline 0 new 1",
            "cycles now 5 baseline 0 new 5",
        ]
    );
    assert_eq!(rules["total_violations"], 20);
    assert_eq!(rules["errors"], 17);

    #[allow(deprecated)]
    session
        .client
        .subscribe(SubscribeRequestParams::new("codegraph://rules"))
        .await
        .unwrap();
    // An edit that moves no violation: no notification.
    let format = session.repo.join("ts/src/shared/format.ts");
    let text = std::fs::read_to_string(&format).unwrap();
    session
        .world
        .open_buffer("ts/src/shared/format.ts", 1, format!("{text}// money\n"));
    assert_eq!(
        session.updated(Duration::from_secs(2)).await,
        Vec::<String>::new()
    );
    // An unsaved import of axios in shared code: the violations change.
    session.world.open_buffer(
        "ts/src/shared/format.ts",
        2,
        format!("import axios from \"axios\";\n{text}"),
    );
    assert_eq!(
        session.updated(Duration::from_secs(20)).await,
        ["codegraph://rules"]
    );
    let rules = session.rules().await;
    assert_eq!(rules["rules"][3]["name"], "no-axios");
    assert_eq!(rules["rules"][3]["now"], 2);
    assert_eq!(rules["total_violations"], 21);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_module_is_placed_at_the_lowest_common_ancestor_of_its_users() {
    let session = start().await;
    let prompt = |users: &str| {
        GetPromptRequestParams::new("place_shared_module").with_arguments(
            json!({"users": users, "module_name": "money", "purpose": "formatting amounts"})
                .as_object()
                .unwrap()
                .clone(),
        )
    };
    let result = session
        .client
        .get_prompt(prompt(
            "ts/src/features/billing/invoice.ts, ts/src/features/auth/session.ts",
        ))
        .await
        .unwrap();
    let text = serde_json::to_value(&result.messages).unwrap()[0]["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("A new module `money` (formatting amounts) will be used by:\n- `ts/src/features/billing/invoice.ts`\n- `ts/src/features/auth/session.ts`"), "{text}");
    assert!(text.contains("- Lowest common ancestor of the users: `ts/src/features/`\n- Suggested path: `ts/src/features/shared/money.ts`"), "{text}");
    assert!(
        text.contains("- `features` (independent, warning)"),
        "{text}"
    );
    assert!(text.contains("`check_architecture`"), "{text}");
    // A user that does not exist is refused with the closest names.
    let refused = session.client.get_prompt(prompt("ts/src/nowhere.ts")).await;
    assert!(refused.is_err(), "{refused:?}");
}
