//! The LSP door's requests run through the runner the MCP door uses (`world::work`): a heavy
//! query (a workspace symbol search) holds a turn of the pool while cheap requests are
//! answered; a `$/cancelRequest` answers it `-32800` and stops its work (its turn comes back),
//! even when every place of the transport is taken; the server goes on answering.
//!
//! The slow query is the test hook's (`world::work::SLOW_WORK`, set by [`LspClient`] to
//! [`support::SLOW_QUERY`]): a workspace symbol search for that text waits at checkpoints until
//! it is stopped, as a long query does.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::lsp::{AUTHENTICATE_METHOD, LspClient, find, show_locations};
use crate::support;

/// Asks `codegraph/status` until `wanted` holds of it (ten seconds at most).
fn until_status(client: &mut LspClient, wanted: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let status = client.request("codegraph/status", Value::Null);
        if wanted(&status) {
            return status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never happened; last status: {status}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn slow_symbol_search(client: &mut LspClient) -> i64 {
    client.send_request("workspace/symbol", json!({"query": support::SLOW_QUERY}))
}

fn cancel(client: &mut LspClient, id: i64) {
    client.notify("$/cancelRequest", json!({"id": id}));
}

fn is_cancelled(answer: &Value) -> bool {
    answer["error"]["code"] == -32800 && answer.get("result").is_none()
}

#[test]
fn lsp_cheap_requests_are_answered_while_a_heavy_one_runs_and_a_cancelled_one_stops() {
    let root = support::fixture("python");
    let (mut client, _) = LspClient::start(&[&root], false);
    let main = root.join("shop/app/main.py");
    let service = root.join("shop/auth/service.py");

    let slow = slow_symbol_search(&mut client);
    // Its work runs: it holds a heavy turn of the pool.
    let status = until_status(&mut client, |status| status["heavy_running"] == 1);
    assert_eq!(status["heavy_waiting"], 0, "{status}");

    // Cheap requests are answered meanwhile, right.
    let (line, column) = find(&service, AUTHENTICATE_METHOD);
    let hover = client.at("textDocument/hover", &service, line, column);
    let hover = hover["contents"]["value"].as_str().unwrap();
    assert!(
        hover.contains("def authenticate(self") && hover.contains("AuthService.authenticate"),
        "{hover}"
    );
    let (line, column) = find(&main, "service.auth$0enticate(admin");
    let definition = client.at("textDocument/definition", &main, line, column);
    assert_eq!(
        show_locations(&root, &definition),
        ["shop/auth/service.py:23:8-23:20"]
    );
    // The heavy one is still running: nothing answered it.
    assert!(
        !client
            .stash()
            .iter()
            .any(|message| message.get("id") == Some(&json!(slow))),
        "the slow query was answered: {:?}",
        client.stash()
    );
    assert_eq!(
        client.request("codegraph/status", Value::Null)["heavy_running"],
        1
    );

    // Cancelled while its work runs: the cancellation error, and the work stops (the turn is
    // given back only once it has).
    cancel(&mut client, slow);
    let answer = client.response_message(slow);
    assert!(is_cancelled(&answer), "{answer}");
    until_status(&mut client, |status| status["heavy_running"] == 0);

    // The server goes on answering, the same heavy request included.
    let symbols = client.request("workspace/symbol", json!({"query": "AuthService"}));
    assert_eq!(symbols[0]["name"], "AuthService", "{symbols}");
    assert_eq!(symbols[0]["kind"], 5, "a class");
    let definition = client.at("textDocument/definition", &main, line, column);
    assert_eq!(
        show_locations(&root, &definition),
        ["shop/auth/service.py:23:8-23:20"]
    );
    assert!(client.shutdown().success());
}

/// Four slow requests take every place of the transport (one runs, the others wait for a heavy
/// turn when the pool has one): their cancellations still reach them, each is answered
/// `-32800`, and the pool is free again.
#[test]
fn lsp_cancellations_reach_requests_that_hold_every_place() {
    let root = support::fixture("python");
    let (mut client, _) = LspClient::start(&[&root], false);
    let mut slow: Vec<i64> = (0..3).map(|_| slow_symbol_search(&mut client)).collect();
    // The three are in the pool, running or waiting for a turn; the fourth takes the last place.
    until_status(&mut client, |status| {
        status["heavy_running"].as_u64().unwrap() + status["heavy_waiting"].as_u64().unwrap() == 3
    });
    slow.push(slow_symbol_search(&mut client));
    for &id in slow.iter().rev() {
        cancel(&mut client, id);
    }
    for &id in &slow {
        let answer = client.response_message(id);
        assert!(is_cancelled(&answer), "{id}: {answer}");
    }
    let status = until_status(&mut client, |status| status["heavy_running"] == 0);
    assert_eq!(status["heavy_waiting"], 0, "{status}");
    let symbols = client.request("workspace/symbol", json!({"query": "fact"}));
    assert_eq!(symbols[0]["name"], "factorial", "{symbols}");
    assert!(client.shutdown().success());
}
