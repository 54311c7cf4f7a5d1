//! How a tool result travels. A tool returns typed JSON (`Json<T>`), which rmcp puts both in
//! `structuredContent` and, serialised again, in a text block. What the model sees depends on
//! the client, not on the protocol alone: Claude Code and Codex hand the model
//! `structuredContent` when it is present and drop the text, while others (opencode, hosts that
//! render `content`) hand it the text. So:
//! - clients of an older protocol than 2025-06-18, which know no `structuredContent`, get the
//!   JSON text alone;
//! - clients known to read `structuredContent` ([`READS_STRUCTURED`], by `clientInfo.name`) get
//!   it with a one-line summary as text: the payload once;
//! - every other client gets both, the text being the whole answer (as the specification
//!   advises), so that a client reading only `content` misses nothing.
//!
//! Besides, the `codegraph://` links of large bodies become `resource_link` blocks.

use rmcp::model::{CallToolResponse, ContentBlock, Implementation, ProtocolVersion, Resource};
use serde_json::{Map, Value};

/// The first protocol version with `structuredContent`, `outputSchema` and resource links.
const STRUCTURED: ProtocolVersion = ProtocolVersion::V_2025_06_18;

/// The clients (`clientInfo.name`, or its start) that hand the model `structuredContent`.
pub const READS_STRUCTURED: &[&str] = &["claude-code", "codex"];

/// Whether `client` is known to hand the model `structuredContent` rather than the text.
fn reads_structured(client: Option<&Implementation>) -> bool {
    client.is_some_and(|client| {
        READS_STRUCTURED
            .iter()
            .any(|name| client.name.starts_with(name))
    })
}

/// Reshapes a successful typed result for the protocol version of the request (unknown: the
/// current one) and for its client.
pub fn send_once(
    tool: &str,
    version: Option<&ProtocolVersion>,
    client: Option<&Implementation>,
    response: CallToolResponse,
) -> CallToolResponse {
    let CallToolResponse::Complete(mut result) = response else {
        return response;
    };
    if result.is_error == Some(true) {
        return CallToolResponse::Complete(result);
    }
    let Some(value) = result.structured_content.take() else {
        return CallToolResponse::Complete(result);
    };
    let structured = version.is_none_or(|version| version.as_str() >= STRUCTURED.as_str());
    if !structured {
        result.content = vec![ContentBlock::text(value.to_string())];
        return CallToolResponse::Complete(result);
    }
    let text = if reads_structured(client) {
        summary(tool, &value)
    } else {
        value.to_string()
    };
    let mut content = vec![ContentBlock::text(text)];
    if let Some(object) = value.as_object() {
        for (field, uri) in object {
            if let (Some(name), Some(uri)) = (field.strip_suffix("_uri"), uri.as_str())
                && uri.starts_with("codegraph://")
            {
                content.push(ContentBlock::resource_link(
                    Resource::new(uri, name).with_mime_type("text/plain"),
                ));
            }
        }
    }
    result.content = content;
    result.structured_content = Some(value);
    CallToolResponse::Complete(result)
}

/// One line: the lists and their lengths, paging, and the stamp. E.g. `find_callers: 25
/// callers of 3412 (truncated, next_offset 25); revision 7; possible 2 (total 2).`
pub fn summary(tool: &str, value: &Value) -> String {
    let Some(object) = value.as_object() else {
        return format!("{tool}: the answer is in structuredContent.");
    };
    let mut parts: Vec<String> = object
        .iter()
        .filter_map(|(field, list)| Some(format!("{} {field}", list.as_array()?.len())))
        .collect();
    let number = |map: &Map<String, Value>, field: &str| map.get(field).and_then(Value::as_u64);
    if let Some(total) = number(object, "total") {
        parts.push(format!("total {total}"));
    }
    if object.get("truncated") == Some(&Value::Bool(true)) {
        parts.push(match number(object, "next_offset") {
            Some(next) => format!("truncated, next_offset {next}"),
            None => "truncated".to_string(),
        });
    }
    if let Some(provenance) = object.get("provenance").and_then(Value::as_object) {
        if let Some(revision) = number(provenance, "revision") {
            parts.push(format!("revision {revision}"));
        }
        for (field, label) in [
            ("unsaved_files", "unsaved"),
            ("stale_files", "stale"),
            ("failed_files", "failed"),
        ] {
            let files: Vec<&str> = provenance
                .get(field)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if !files.is_empty() {
                parts.push(format!("{label}: {}", files.join(", ")));
            }
        }
        if let Some(possible) = number(provenance, "possible_total") {
            parts.push(format!("possible {possible}"));
        }
    }
    format!(
        "{tool}: {}. The whole answer is in structuredContent.",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::CallToolResult;
    use serde_json::json;

    fn answer() -> Value {
        json!({
            "entity": {"id": "a.py::f"},
            "callers": [{"id": "b.py::g"}],
            "total": 40, "truncated": true, "next_offset": 1,
            "source_uri": "codegraph://files/a.py#L1-L400",
            "provenance": {"revision": 7, "unsaved_files": ["b.py"], "stale_files": [],
                           "possible": [], "possible_total": 2},
        })
    }

    fn shaped(version: Option<&ProtocolVersion>, client: &str) -> CallToolResult {
        let client = Implementation::new(client, "1.0");
        let response = send_once(
            "find_callers",
            version,
            Some(&client),
            CallToolResult::structured(answer()).into(),
        );
        let CallToolResponse::Complete(result) = response else {
            panic!("complete");
        };
        result
    }

    #[test]
    fn clients_that_read_structured_content_get_the_payload_once_with_a_summary_and_links() {
        let result = shaped(Some(&ProtocolVersion::V_2026_07_28), "claude-code");
        assert_eq!(result.structured_content, Some(answer()));
        assert_eq!(
            result.content[0].as_text().unwrap().text,
            "find_callers: 1 callers; total 40; truncated, next_offset 1; revision 7; \
             unsaved: b.py; possible 2. The whole answer is in structuredContent."
        );
        let link = result.content[1].as_resource_link().unwrap();
        assert_eq!(link.uri, "codegraph://files/a.py#L1-L400");
        assert_eq!(link.name, "source");
        assert_eq!(result.content.len(), 2);
    }

    #[test]
    fn other_clients_get_the_whole_answer_as_text_too() {
        let result = shaped(Some(&ProtocolVersion::V_2025_06_18), "opencode");
        assert_eq!(result.structured_content, Some(answer()));
        let text = &result.content[0].as_text().unwrap().text;
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), answer());
        assert_eq!(
            result.content[1].as_resource_link().unwrap().uri,
            "codegraph://files/a.py#L1-L400"
        );
        assert_eq!(result.content.len(), 2);
    }

    #[test]
    fn clients_older_than_structured_content_get_the_json_text_alone() {
        let result = shaped(Some(&ProtocolVersion::V_2025_03_26), "claude-code");
        assert_eq!(result.structured_content, None);
        assert_eq!(result.content.len(), 1);
        let text = &result.content[0].as_text().unwrap().text;
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), answer());
    }

    #[test]
    fn errors_pass_untouched() {
        let error = CallToolResult::error(vec![ContentBlock::text("{\"error\": \"x\"}")]);
        let response = send_once("t", None, None, error.clone().into());
        let CallToolResponse::Complete(result) = response else {
            panic!("complete");
        };
        assert_eq!(result, error);
    }
}
