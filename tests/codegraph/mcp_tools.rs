//! MCP tools as data: a repository written inline (`//- /path` files, `$0` on the name of the
//! entity asked about, see `codegraph_testkit::fixture`) or the fixtures/python shop, and the
//! tool's whole structured answer written as indented text, compared with a snapshot.
//! `UPDATE_EXPECT=1 cargo test --test codegraph mcp_tools` rewrites the snapshots.

use codegraph::graph::query;
use codegraph_testkit::fixture::Fixture;
use expect_test::{Expect, expect};
use serde_json::{Value, json};

use crate::support::mcp::{McpSession, McpSetup};

/// Calls `tool` on the fixture's repository; with a `$0`, `entity_id` is the entity named there.
async fn check_tool(fixture: &str, tool: &str, arguments: Value, expect: Expect) {
    let fixture = Fixture::parse(fixture);
    let session = McpSetup::inline(&fixture).start().await;
    let mut arguments = arguments;
    if let Some(cursor) = &fixture.cursor {
        let graph = session.world.snapshot();
        let targets = query::targets_at(&graph, &cursor.path, cursor.offset as u32);
        assert_eq!(targets.len(), 1, "one entity at the cursor: {targets:?}");
        arguments["entity_id"] = json!(targets[0].to_string());
    }
    expect.assert_eq(&answer(&session, tool, arguments).await);
}

/// The structured answer of a successful call, as text.
async fn answer(session: &McpSession, tool: &str, arguments: Value) -> String {
    let mut shown = String::new();
    write_value(&session.ok(tool, arguments).await, 0, &mut shown);
    shown
}

/// JSON as indented `key: value` lines: scalars as JSON, arrays of scalars on one line, objects
/// and arrays of objects below their key, array items after a `-`.
fn write_value(value: &Value, depth: usize, shown: &mut String) {
    let pad = "  ".repeat(depth);
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                if is_inline(field) {
                    shown.push_str(&format!("{pad}{key}: {}\n", inline(field)));
                } else {
                    shown.push_str(&format!("{pad}{key}:\n"));
                    write_value(field, depth + 1, shown);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if is_inline(item) {
                    shown.push_str(&format!("{pad}- {}\n", inline(item)));
                } else {
                    shown.push_str(&format!("{pad}-\n"));
                    write_value(item, depth + 1, shown);
                }
            }
        }
        scalar => shown.push_str(&format!("{pad}{scalar}\n")),
    }
}

/// Scalars, empty containers and arrays of scalars fit on their key's line.
fn is_inline(value: &Value) -> bool {
    match value {
        Value::Object(fields) => fields.is_empty(),
        Value::Array(items) => items
            .iter()
            .all(|item| !item.is_object() && !item.is_array()),
        _ => true,
    }
}

fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(Value::to_string).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

#[tokio::test]
async fn find_callers_of_a_method_called_through_an_instance() {
    check_tool(
        r#"
        //- /shop/service.py
        class Service:
            def $0charge(self, amount):
                return amount
        //- /shop/checkout.py
        from shop.service import Service


        def pay():
            service = Service()
            return service.charge(4)


        def refund():
            return Service().charge(-4)
        "#,
        "find_callers",
        json!({}),
        expect![[r#"
            callers:
              -
                call_lines: [6]
                depth: 1
                end_line: 6
                file_path: "shop/checkout.py"
                id: "shop/checkout.py::pay"
                name: "pay"
                qualified_name: "shop.checkout.pay"
                resolution: "receiver_type"
                signature: "def pay():"
                start_line: 4
                type: "function"
                via: "shop/service.py::Service.charge"
              -
                call_lines: [10]
                depth: 1
                end_line: 10
                file_path: "shop/checkout.py"
                id: "shop/checkout.py::refund"
                name: "refund"
                qualified_name: "shop.checkout.refund"
                resolution: "receiver_type"
                signature: "def refund():"
                start_line: 9
                type: "function"
                via: "shop/service.py::Service.charge"
            entity:
              end_line: 3
              file_path: "shop/service.py"
              id: "shop/service.py::Service.charge"
              name: "charge"
              qualified_name: "shop.service.Service.charge"
              signature: "def charge(self, amount):"
              start_line: 2
              type: "method"
            offset: 0
            provenance:
              possible: []
              possible_total: 0
              revision: 1
              stale_files: []
              unsaved_files: []
            total: 2
            truncated: false
        "#]],
    )
    .await;
}

#[tokio::test]
async fn find_callees_across_files() {
    check_tool(
        r#"
        //- /app.py
        from util import helper


        def $0main():
            helper()
            local()


        def local():
            pass
        //- /util.py
        def helper():
            pass
        "#,
        "find_callees",
        json!({}),
        expect![[r#"
            callees:
              -
                call_lines: [6]
                depth: 1
                end_line: 10
                file_path: "app.py"
                id: "app.py::local"
                name: "local"
                qualified_name: "app.local"
                resolution: "same_file"
                signature: "def local():"
                start_line: 9
                type: "function"
                via: "app.py::main"
              -
                call_lines: [5]
                depth: 1
                end_line: 2
                file_path: "util.py"
                id: "util.py::helper"
                name: "helper"
                qualified_name: "util.helper"
                resolution: "import"
                signature: "def helper():"
                start_line: 1
                type: "function"
                via: "app.py::main"
            entity:
              end_line: 6
              file_path: "app.py"
              id: "app.py::main"
              name: "main"
              qualified_name: "app.main"
              signature: "def main():"
              start_line: 4
              type: "function"
            offset: 0
            provenance:
              possible: []
              possible_total: 0
              revision: 1
              stale_files: []
              unsaved_files: []
            total: 2
            truncated: false
        "#]],
    )
    .await;
}

#[tokio::test]
async fn find_callers_two_hops_away() {
    check_tool(
        r#"
        //- /chain.py
        def $0leaf():
            pass


        def middle():
            leaf()


        def top():
            middle()
        "#,
        "find_callers",
        json!({"max_depth": 2}),
        expect![[r#"
            callers:
              -
                call_lines: [6]
                depth: 1
                end_line: 6
                file_path: "chain.py"
                id: "chain.py::middle"
                name: "middle"
                qualified_name: "chain.middle"
                resolution: "same_file"
                signature: "def middle():"
                start_line: 5
                type: "function"
                via: "chain.py::leaf"
              -
                call_lines: [10]
                depth: 2
                end_line: 10
                file_path: "chain.py"
                id: "chain.py::top"
                name: "top"
                qualified_name: "chain.top"
                resolution: "same_file"
                signature: "def top():"
                start_line: 9
                type: "function"
                via: "chain.py::middle"
            entity:
              end_line: 2
              file_path: "chain.py"
              id: "chain.py::leaf"
              name: "leaf"
              qualified_name: "chain.leaf"
              signature: "def leaf():"
              start_line: 1
              type: "function"
            offset: 0
            provenance:
              possible: []
              possible_total: 0
              revision: 1
              stale_files: []
              unsaved_files: []
            total: 2
            truncated: false
        "#]],
    )
    .await;
}

#[tokio::test]
async fn find_implementations_of_a_base_class() {
    check_tool(
        r#"
        //- /shapes/base.py
        class $0Shape:
            def area(self):
                raise NotImplementedError
        //- /shapes/square.py
        from shapes.base import Shape


        class Square(Shape):
            def area(self):
                return 4
        "#,
        "find_implementations",
        json!({}),
        expect![[r#"
            entity:
              end_line: 3
              file_path: "shapes/base.py"
              id: "shapes/base.py::Shape"
              name: "Shape"
              qualified_name: "shapes.base.Shape"
              signature: "class Shape:"
              start_line: 1
              type: "class"
            implementations:
              -
                end_line: 6
                file_path: "shapes/square.py"
                id: "shapes/square.py::Square"
                name: "Square"
                qualified_name: "shapes.square.Square"
                resolution: "syntax"
                signature: "class Square(Shape):"
                start_line: 4
                type: "class"
            offset: 0
            provenance:
              possible: []
              possible_total: 0
              revision: 1
              stale_files: []
              unsaved_files: []
            total: 1
            truncated: false
        "#]],
    )
    .await;
}

#[tokio::test]
async fn get_code_snippet_of_a_function() {
    check_tool(
        r#"
        //- /pkg/math.py
        def $0factorial(n):
            """n!, recursively."""
            return 1 if n <= 1 else n * factorial(n - 1)
        "#,
        "get_code_snippet",
        json!({}),
        expect![[r#"
            context:
              end_line: 3
              start_line: 1
              text: "def factorial(n):\n    \"\"\"n!, recursively.\"\"\"\n    return 1 if n <= 1 else n * factorial(n - 1)\n"
            end_line: 3
            entity_id: "pkg/math.py::factorial"
            file_path: "pkg/math.py"
            language: "python"
            name: "factorial"
            provenance:
              revision: 1
              stale_files: []
              unsaved_files: []
            source: "def factorial(n):\n    \"\"\"n!, recursively.\"\"\"\n    return 1 if n <= 1 else n * factorial(n - 1)"
            start_line: 1
            type: "function"
        "#]],
    )
    .await;
}

#[tokio::test]
async fn get_file_structure_of_a_module() {
    check_tool(
        r#"
        //- /shapes.py
        class Square:
            def __init__(self, side):
                self.side = side

            def area(self):
                return self.side * self.side


        def unit():
            return Square(1)
        "#,
        "get_file_structure",
        json!({"file_path": "shapes.py"}),
        expect![[r#"
            entities:
              -
                depth: 0
                id: "shapes.py::Square"
                lines: "1-6"
                name: "Square"
                signature: "class Square:"
                type: "class"
              -
                depth: 1
                id: "shapes.py::Square.__init__"
                lines: "2-3"
                name: "__init__"
                signature: "def __init__(self, side):"
                type: "method"
              -
                depth: 1
                id: "shapes.py::Square.area"
                lines: "5-6"
                name: "area"
                signature: "def area(self):"
                type: "method"
              -
                depth: 0
                id: "shapes.py::unit"
                lines: "9-10"
                name: "unit"
                signature: "def unit():"
                type: "function"
            file: "shapes.py"
            language: "python"
            line_count: 10
            offset: 0
            provenance:
              revision: 1
              stale_files: []
              unsaved_files: []
            total: 4
            truncated: false
        "#]],
    )
    .await;
}

/// The three spellings of the entity give one answer.
#[tokio::test]
async fn callers_of_authenticate_are_exactly_main() {
    let session = McpSetup::copy_of("python").start().await;
    let by_id = json!({ "entity_id": "shop/auth/service.py::AuthService.authenticate" });
    let callers = answer(&session, "find_callers", by_id.clone()).await;
    for arguments in [
        json!({ "function_name": "AuthService.authenticate" }),
        json!({ "entity_name": "shop.auth.service.AuthService.authenticate", "max_depth": 1 }),
    ] {
        assert_eq!(answer(&session, "find_callers", arguments).await, callers);
    }
    expect![[r#"
        callers:
          -
            call_lines: [12]
            depth: 1
            end_line: 13
            file_path: "shop/app/main.py"
            id: "shop/app/main.py::main"
            name: "main"
            qualified_name: "shop.app.main.main"
            resolution: "receiver_type"
            signature: "def main() -> None:"
            start_line: 9
            type: "function"
            via: "shop/auth/service.py::AuthService.authenticate"
        entity:
          end_line: 27
          file_path: "shop/auth/service.py"
          id: "shop/auth/service.py::AuthService.authenticate"
          name: "authenticate"
          qualified_name: "shop.auth.service.AuthService.authenticate"
          signature: "def authenticate(self, user: User, password: str) -> str:"
          start_line: 24
          type: "method"
        offset: 0
        provenance:
          possible: []
          possible_total: 0
          revision: 1
          stale_files: []
          unsaved_files: []
        total: 1
        truncated: false
    "#]]
    .assert_eq(&callers);
    expect![[r#"
        callees:
          -
            call_lines: [25]
            depth: 1
            end_line: 30
            file_path: "shop/auth/service.py"
            id: "shop/auth/service.py::AuthService.hash_password"
            name: "hash_password"
            qualified_name: "shop.auth.service.AuthService.hash_password"
            resolution: "receiver_type"
            signature: "def hash_password(self, password: str) -> str:"
            start_line: 29
            type: "method"
            via: "shop/auth/service.py::AuthService.authenticate"
          -
            call_lines: [27]
            depth: 1
            end_line: 10
            file_path: "shop/auth/tokens.py"
            id: "shop/auth/tokens.py::issue_token"
            name: "issue_token"
            qualified_name: "shop.auth.tokens.issue_token"
            resolution: "import"
            signature: "def issue_token(user: User) -> str:"
            start_line: 8
            type: "function"
            via: "shop/auth/service.py::AuthService.authenticate"
        entity:
          end_line: 27
          file_path: "shop/auth/service.py"
          id: "shop/auth/service.py::AuthService.authenticate"
          name: "authenticate"
          qualified_name: "shop.auth.service.AuthService.authenticate"
          signature: "def authenticate(self, user: User, password: str) -> str:"
          start_line: 24
          type: "method"
        offset: 0
        provenance:
          possible: []
          possible_total: 0
          revision: 1
          stale_files: []
          unsaved_files: []
        total: 2
        truncated: false
    "#]]
    .assert_eq(&answer(&session, "find_callees", by_id).await);
}

#[tokio::test]
async fn implementations_of_authenticator() {
    let session = McpSetup::copy_of("python").start().await;
    let arguments = json!({ "interface_name": "Authenticator" });
    expect![[r#"
        entity:
          end_line: 15
          file_path: "shop/auth/service.py"
          id: "shop/auth/service.py::Authenticator"
          name: "Authenticator"
          qualified_name: "shop.auth.service.Authenticator"
          signature: "class Authenticator(ABC):"
          start_line: 10
          type: "class"
        implementations:
          -
            end_line: 30
            file_path: "shop/auth/service.py"
            id: "shop/auth/service.py::AuthService"
            name: "AuthService"
            qualified_name: "shop.auth.service.AuthService"
            resolution: "syntax"
            signature: "class AuthService(Authenticator):"
            start_line: 18
            type: "class"
        offset: 0
        provenance:
          possible: []
          possible_total: 0
          revision: 1
          stale_files: []
          unsaved_files: []
        total: 1
        truncated: false
    "#]]
    .assert_eq(&answer(&session, "find_implementations", arguments).await);
}
