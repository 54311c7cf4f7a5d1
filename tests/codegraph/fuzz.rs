//! Bounded fuzzing of what reads untrusted bytes: the language server's framing, MCP's
//! line filter (stdio and the attach socket), and extraction in every language. Proptest, with
//! a fixed seed and a bounded number of cases in `cargo test`; a longer local run:
//!
//! ```sh
//! PROPTEST_CASES=20000 PROPTEST_RNG_SEED=$RANDOM cargo test --release --test codegraph fuzz
//! ```
//!
//! Each property says what must hold for any input: no panic and an end (a hang shows as a test
//! that never ends; a stack overflow aborts the run), answers that are well-formed JSON-RPC
//! errors with the right codes, valid messages forwarded unchanged (also after garbage), and
//! extraction results that stay inside the text.

use proptest::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::incremental::property_config;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Splits an LSP byte stream into message bodies (what a well-behaved peer reads).
fn bodies(mut stream: &[u8]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    while let Some(end) = stream.windows(4).position(|window| window == b"\r\n\r\n") {
        let header = std::str::from_utf8(&stream[..end]).expect("an ASCII header");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .expect("one Content-Length header")
            .parse()
            .expect("a byte count");
        let body = &stream[end + 4..end + 4 + length];
        found.push(body.to_vec());
        stream = &stream[end + 4 + length..];
    }
    assert!(stream.is_empty(), "trailing bytes {stream:?}");
    found
}

/// Feeds `input` (in chunks of `chunk` bytes) through the server's framing with no server
/// behind it: returns the messages it delivered (as JSON) and what it answered itself.
fn through_framing(
    input: Vec<u8>,
    chunk: usize,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    use codegraph::lsp::framing::{Incoming, read_messages};
    runtime().block_on(async move {
        let (mut client, reader) = tokio::io::duplex(1 << 16);
        let (writer, mut answers) = tokio::io::duplex(1 << 16);
        let feeding = tokio::spawn(async move {
            for piece in input.chunks(chunk.max(1)) {
                if client.write_all(piece).await.is_err() {
                    break;
                }
            }
        });
        let answered = tokio::spawn(async move {
            let mut bytes = Vec::new();
            let _ = answers.read_to_end(&mut bytes).await;
            bytes
        });
        let mut delivered = Vec::new();
        let writer = tokio::sync::Mutex::new(writer);
        let limit = std::time::Duration::from_secs(20);
        tokio::time::timeout(
            limit,
            read_messages(reader, &writer, async |incoming| {
                delivered.push(match incoming {
                    Incoming::Request(request) => serde_json::to_value(request).unwrap(),
                    Incoming::Response(response) => serde_json::to_value(response).unwrap(),
                });
                true
            }),
        )
        .await
        .expect("the framing ended");
        feeding.await.unwrap();
        drop(writer);
        let answered = tokio::time::timeout(limit, answered)
            .await
            .expect("the answers ended")
            .unwrap();
        let answers = bodies(&answered)
            .into_iter()
            .map(|body| serde_json::from_slice(&body).expect("an answer is JSON"))
            .collect();
        (delivered, answers)
    })
}

/// What every answer of a guard must be: a JSON-RPC error with a null id, -32700 or -32600.
fn assert_error_answers(answers: &[serde_json::Value]) {
    for answer in answers {
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert!(answer["id"].is_null(), "{answer}");
        let code = answer["error"]["code"].as_i64().unwrap();
        assert!(code == -32700 || code == -32600, "{answer}");
        assert!(answer["error"]["message"].is_string(), "{answer}");
    }
}

/// A JSON-RPC message: a request or notification (an integer or string id, or none; a method;
/// params), or a response (a result or an error).
fn message() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-zA-Z_]{1,8}", inner, 0..4)
                .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    });
    let id = prop_oneof![
        Just(None),
        any::<i64>().prop_map(|id| Some(serde_json::Value::from(id))),
        ".{0,10}".prop_map(|id| Some(serde_json::Value::from(id))),
    ];
    let request = (id, "[a-zA-Z/$_]{1,20}", value.clone()).prop_map(|(id, method, params)| {
        let mut object = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        if let Some(id) = id {
            object["id"] = id;
        }
        object
    });
    // An answer to one of the server's requests: a result, or an error (with data or not; a
    // null id is a client's answer to a message it could not read).
    let response_id = prop_oneof![
        Just(serde_json::Value::Null),
        any::<i64>().prop_map(serde_json::Value::from),
        ".{0,10}".prop_map(serde_json::Value::from),
    ];
    let outcome = prop_oneof![
        value
            .clone()
            .prop_map(|result| serde_json::json!({"result": result})),
        (any::<i64>(), ".{0,12}", prop::option::of(value)).prop_map(|(code, message, data)| {
            let mut error = serde_json::json!({"code": code, "message": message});
            if let Some(data) = data.filter(|data| !data.is_null()) {
                error["data"] = data;
            }
            serde_json::json!({"error": error})
        }),
    ];
    let response = (response_id, outcome).prop_map(|(id, mut object)| {
        object["jsonrpc"] = "2.0".into();
        object["id"] = id;
        object
    });
    prop_oneof![3 => request, 1 => response]
}

fn framed(body: &[u8], header_case: u8) -> Vec<u8> {
    let name = match header_case % 3 {
        0 => "Content-Length",
        1 => "content-length",
        _ => "CONTENT-LENGTH",
    };
    let mut bytes = format!("{name}: {}\r\n", body.len()).into_bytes();
    if header_case % 2 == 1 {
        bytes.extend_from_slice(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
    }
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(body);
    bytes
}

/// Bytes that look like parts of the protocol, to reach deeper than uniform noise does.
fn protocol_noise() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..16),
        Just(b"Content-Length: ".to_vec()),
        Just(b"content-length:".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r\n\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b":".to_vec()),
        (0u32..300).prop_map(|number| number.to_string().into_bytes()),
        Just(b"-1".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}".to_vec()),
        Just(b"[]".to_vec()),
        Just(b"{".to_vec()),
        Just(vec![0xff, 0xfe]),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(property_config(128))]

    /// Any bytes: the framing ends, answers only with well-formed errors, and delivers only
    /// JSON-RPC messages (one JSON object, an integer or string id, a string method).
    #[test]
    fn fuzz_framing_survives_any_bytes(input in protocol_noise(), chunk in 1usize..64) {
        let (delivered, answers) = through_framing(input, chunk);
        assert_error_answers(&answers);
        for value in delivered {
            let object = value.as_object().expect("delivered one object");
            prop_assert!(object.get("id").is_none_or(|id| id.is_string() || id.is_i64()));
            prop_assert!(object.get("method").is_none_or(|method| method.is_string()));
        }
    }

    /// Valid messages, however the bytes are chunked and whatever the header's case or extra
    /// headers, are delivered unchanged and in order, and nothing is answered.
    #[test]
    fn fuzz_framing_forwards_valid_messages_unchanged(
        messages in prop::collection::vec((message(), any::<u8>(), any::<bool>()), 0..8),
        chunk in 1usize..200,
    ) {
        let mut input = Vec::new();
        let mut expected = Vec::new();
        for (message, header_case, blank_line) in &messages {
            let body = serde_json::to_vec(message).unwrap();
            if *blank_line {
                input.extend_from_slice(b"\r\n");
            }
            input.extend(framed(&body, *header_case));
            expected.push(message.clone());
        }
        let (forwarded, answers) = through_framing(input, chunk);
        prop_assert_eq!(answers.len(), 0, "{:?}", answers);
        prop_assert_eq!(forwarded, expected);
    }

    /// Garbage between valid messages (lines of their own, or bytes before a header on its
    /// line) costs at most one error answer each; every valid message still gets through.
    #[test]
    fn fuzz_framing_resynchronises_after_garbage(
        parts in prop::collection::vec(
            (message(), prop::option::of("[a-z0-9 {}\\[\\]\"]{1,30}"), 0u8..3),
            1..8,
        ),
    ) {
        let mut input = Vec::new();
        let mut expected = Vec::new();
        let mut garbage = 0;
        for (message, noise, placement) in &parts {
            let body = serde_json::to_vec(message).unwrap();
            if let Some(noise) = noise {
                garbage += 1;
                input.extend_from_slice(noise.as_bytes());
                match placement {
                    0 => input.extend_from_slice(b"\r\n"),     // its own line
                    1 => input.extend_from_slice(b"\r\n\r\n"), // its own (invalid) header block
                    _ => {}                                    // before the header, same line
                }
            }
            input.extend(framed(&body, 0));
            expected.push(message.clone());
        }
        let (forwarded, answers) = through_framing(input, 7);
        assert_error_answers(&answers);
        prop_assert!(answers.len() <= garbage, "{} answers for {} garbage", answers.len(), garbage);
        prop_assert_eq!(forwarded, expected);
    }
}

/// Feeds lines through MCP's line filter with no rmcp behind it: returns the lines that reached
/// rmcp and the filter's own answers.
fn through_lines(input: Vec<u8>) -> (Vec<String>, Vec<serde_json::Value>) {
    runtime().block_on(async move {
        let (mut client, reader) = tokio::io::duplex(1 << 16);
        let (writer, mut answers) = tokio::io::duplex(1 << 16);
        let (mut rmcp_input, rmcp_output) =
            codegraph::mcp::lines::answer_parse_errors(reader, writer);
        let feeding = tokio::spawn(async move {
            let _ = client.write_all(&input).await;
        });
        // rmcp's side stays open until its input ends, as a server's would (closing it first
        // would end the answers' writer too).
        let forwarded = tokio::spawn(async move {
            let mut bytes = Vec::new();
            let _ = rmcp_input.read_to_end(&mut bytes).await;
            drop(rmcp_output);
            bytes
        });
        let answered = tokio::spawn(async move {
            let mut bytes = Vec::new();
            let _ = answers.read_to_end(&mut bytes).await;
            bytes
        });
        let limit = std::time::Duration::from_secs(20);
        feeding.await.unwrap();
        let forwarded = tokio::time::timeout(limit, forwarded)
            .await
            .expect("the filter ended")
            .unwrap();
        let answered = tokio::time::timeout(limit, answered)
            .await
            .expect("the answers ended")
            .unwrap();
        let lines = String::from_utf8_lossy(&forwarded)
            .lines()
            .map(str::to_string)
            .collect();
        let answers = String::from_utf8(answered)
            .expect("answers are UTF-8")
            .lines()
            .map(|line| serde_json::from_str(line).expect("an answer is JSON"))
            .collect();
        (lines, answers)
    })
}

/// One line an MCP client could send, and what the filter must do with it.
#[derive(Debug, Clone)]
enum Line {
    /// Not JSON: answered -32700 with a null id.
    Broken(String),
    /// A request whose params are not an object: answered -32602 with its id.
    BadParams(serde_json::Value, i64),
    /// Anything else that is one JSON object: forwarded as it is (trimmed).
    Forwarded(serde_json::Value),
}

fn mcp_line() -> impl Strategy<Value = Line> {
    prop_oneof![
        // A control character outside a string: never JSON, whatever comes before it.
        "[^\n]{0,40}".prop_map(|text| Line::Broken(format!("{{{text}\u{1}"))),
        (
            any::<i64>(),
            prop_oneof![
                ".{0,8}".prop_map(serde_json::Value::from),
                any::<i64>().prop_map(serde_json::Value::from)
            ]
        )
            .prop_map(|(id, params)| Line::BadParams(
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}),
                id,
            )),
        message().prop_map(|mut message| {
            // Not a standard method, so its (object) params are rmcp's to judge.
            message["method"] = serde_json::Value::from("x/custom");
            if !message["params"].is_object() {
                message["params"] = serde_json::json!({ "value": message["params"].take() });
            }
            Line::Forwarded(message)
        }),
    ]
}

proptest! {
    #![proptest_config(property_config(128))]

    /// Each line gets exactly what its kind says, in order; nothing else is answered.
    #[test]
    fn fuzz_mcp_lines_are_answered_or_forwarded(
        lines in prop::collection::vec((mcp_line(), any::<bool>()), 0..12),
    ) {
        let mut input = String::new();
        let mut expected_answers = Vec::new();
        let mut expected_forwarded = Vec::new();
        for (line, padded) in &lines {
            let text = match line {
                Line::Broken(text) => {
                    expected_answers.push((serde_json::Value::Null, -32700));
                    text.clone()
                }
                Line::BadParams(value, id) => {
                    expected_answers.push((serde_json::Value::from(*id), -32602));
                    value.to_string()
                }
                Line::Forwarded(value) => {
                    expected_forwarded.push(value.to_string());
                    value.to_string()
                }
            };
            if text.trim().is_empty() {
                expected_answers.pop();
                continue;
            }
            if *padded {
                input.push_str("  ");
            }
            input.push_str(&text);
            input.push_str(if *padded { " \r\n" } else { "\n" });
        }
        let (forwarded, answers) = through_lines(input.into_bytes());
        let got: Vec<(serde_json::Value, i64)> = answers
            .iter()
            .map(|answer| (answer["id"].clone(), answer["error"]["code"].as_i64().unwrap()))
            .collect();
        prop_assert_eq!(got, expected_answers);
        prop_assert_eq!(forwarded, expected_forwarded);
    }

    /// Any bytes: the filter ends, and each of its answers is one JSON-RPC error line.
    #[test]
    fn fuzz_mcp_lines_survive_any_bytes(input in protocol_noise()) {
        let (_, answers) = through_lines(input);
        for answer in answers {
            prop_assert_eq!(&answer["jsonrpc"], "2.0");
            let code = answer["error"]["code"].as_i64().unwrap();
            prop_assert!(code == -32700 || code == -32602, "{}", answer);
        }
    }
}

/// Tokens of every supported language: brackets, operators, comment and string openers,
/// keywords, names. Soups of them reach far more of each grammar than random characters do.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ";",
    ",",
    ".",
    ":",
    "::",
    "->",
    "=>",
    "=",
    "==",
    "+",
    "*",
    "&",
    "|",
    "!",
    "?",
    "@",
    "#",
    "$",
    "\\",
    "\"",
    "'",
    "`",
    "//",
    "/*",
    "*/",
    "--",
    "#[",
    "\n",
    "\n    ",
    "\t",
    " ",
    "def",
    "class",
    "fn",
    "func",
    "function",
    "struct",
    "impl",
    "trait",
    "interface",
    "enum",
    "module",
    "namespace",
    "package",
    "import",
    "from",
    "use",
    "require",
    "include",
    "return",
    "if",
    "else",
    "end",
    "do",
    "then",
    "for",
    "while",
    "let",
    "var",
    "val",
    "const",
    "pub",
    "static",
    "self",
    "this",
    "new",
    "extends",
    "implements",
    "object",
    "local",
    "async",
    "await",
    "<?php",
    "#!/bin/bash",
    "x",
    "f",
    "Foo",
    "bar_baz",
    "g(",
    "A.B",
    "0",
    "1.5",
    "\"s\"",
    "'c'",
];

fn source_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,400}",
        prop::collection::vec(prop::sample::select(TOKENS), 0..300)
            .prop_map(|tokens| tokens.concat()),
        // Deep nesting of mixed brackets and calls.
        (
            1usize..3000,
            prop::sample::select(&["g(", "[", "{", "(", "f(x, "][..])
        )
            .prop_map(|(depth, opener)| {
                let closer = match opener {
                    "[" => "]",
                    "{" => "}",
                    _ => ")",
                };
                format!("x = {}1{}\n", opener.repeat(depth), closer.repeat(depth))
            }),
        // Long runs of one line.
        (
            1usize..2000,
            prop::sample::select(&["# c\n", "// c\n", "-- c\n", "\"\"\"\n", "/*\n", "x\n"][..])
        )
            .prop_map(|(count, line)| line.repeat(count)),
    ]
}

/// A span lies inside `text`, on character boundaries.
fn inside(text: &str, span: &codegraph::model::Span) -> bool {
    let (start, end) = (span.start_byte as usize, span.end_byte as usize);
    start <= end && end <= text.len() && text.is_char_boundary(start) && text.is_char_boundary(end)
}

proptest! {
    #![proptest_config(property_config(256))]

    /// Any text, in any language: extraction ends without a panic, every span is inside the
    /// text, parents come before their children, and references point at real definitions.
    #[test]
    fn fuzz_extraction_stays_inside_the_text(
        language in prop::sample::select(
            codegraph::lang::LANGUAGES.iter().map(|spec| spec.language).collect::<Vec<_>>()
        ),
        text in source_text(),
    ) {
        let (summary, _) = codegraph::index::extract_text(language, &text);
        for (index, def) in summary.defs.iter().enumerate() {
            prop_assert!(inside(&text, &def.span), "{:?} {:?}", language, def);
            prop_assert!(inside(&text, &def.name_span), "{:?} {:?}", language, def);
            prop_assert!(def.parent.is_none_or(|parent| (parent as usize) < index), "{:?}", def);
        }
        for reference in &summary.refs {
            prop_assert!(inside(&text, &reference.span), "{:?} {:?}", language, reference);
            prop_assert!(
                reference.scope().is_none_or(|scope| (scope as usize) < summary.defs.len()),
                "{:?}",
                reference
            );
        }
    }
}

/// A line longer than the cap (64 MiB) is answered and skipped, without reading it whole into
/// memory, and the next line is served.
#[test]
fn an_overlong_mcp_line_is_answered_and_skipped() {
    let cap = codegraph::mcp::lines::MAX_LINE_BYTES;
    let mut input = Vec::with_capacity(cap + 200);
    input.push(b'{');
    input.resize(cap + 100, b'x');
    input.extend_from_slice(b"}\n");
    let valid = r#"{"jsonrpc":"2.0","method":"x/custom","params":{}}"#;
    input.extend_from_slice(valid.as_bytes());
    input.push(b'\n');
    let (forwarded, answers) = through_lines(input);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert_eq!(
        answers[0]["error"]["message"],
        format!("Parse error: a line over {cap} bytes")
    );
    assert_eq!(forwarded, [valid]);
}
