//! Which tools a session lists, and what their definitions cost.
//!
//! Clients hand the model every listed tool's name, description and input schema on every turn,
//! so the surface is chosen ([`ToolSet`], `--tools`): the default set is the few tools an agent
//! uses in every session, the others are opt-in by name or all at once.
//! `execute_shell_command` is listed only when the operator enabled it (`--allow-shell`), in
//! every set: a tool that can only refuse is no use to a model.
//!
//! Definitions are written once, lean ([`lean_definition`]): input schemas keep their types,
//! defaults and descriptions but not schemars' integer formats; output schemas keep the shape
//! of the answer's top level (each field's type, the required ones), which is what clients
//! validate `structuredContent` against. The fields themselves are described in `docs/mcp.md`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The tools of the default set, in the order an agent reaches for them.
pub const DEFAULT_TOOLS: &[&str] = &[
    "find_callers",
    "find_callees",
    "find_implementations",
    "query_codebase",
    "get_code_snippet",
    "find_affected_tests",
];

/// The tools outside the default set, listed when asked for.
pub const OPT_IN_TOOLS: &[&str] = &[
    "get_file_structure",
    "read_file_content",
    "find_dependencies",
    "analyze_module_structure",
    "global_search",
    "local_search",
    "suggest_refactoring",
    "check_architecture",
    "reindex_repository",
    "execute_shell_command",
];

/// Every tool codegraph has: the default set, then the others.
pub fn all_tools() -> impl Iterator<Item = &'static str> {
    DEFAULT_TOOLS.iter().chain(OPT_IN_TOOLS).copied()
}

/// The shell tool, listed only when enabled.
pub const SHELL_TOOL: &str = "execute_shell_command";

/// The tools a session lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSet {
    names: BTreeSet<&'static str>,
}

impl Default for ToolSet {
    fn default() -> ToolSet {
        ToolSet::of(DEFAULT_TOOLS)
    }
}

impl ToolSet {
    /// Every tool.
    pub fn all() -> ToolSet {
        ToolSet {
            names: all_tools().collect(),
        }
    }

    fn of(names: &[&'static str]) -> ToolSet {
        ToolSet {
            names: names.iter().copied().collect(),
        }
    }

    /// `all`, `default`, tool names, or several of them comma-separated (`default,local_search`).
    /// An unknown name is an error that lists the known ones.
    pub fn parse(text: &str) -> Result<ToolSet, String> {
        let mut names = BTreeSet::new();
        for item in text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            match item {
                "all" => names.extend(all_tools()),
                "default" => names.extend(DEFAULT_TOOLS.iter().copied()),
                name => match all_tools().find(|known| *known == name) {
                    Some(known) => {
                        names.insert(known);
                    }
                    None => {
                        return Err(format!(
                            "unknown tool `{name}`: give `all`, `default` or tool names among {}",
                            all_tools().collect::<Vec<_>>().join(", ")
                        ));
                    }
                },
            }
        }
        if names.is_empty() {
            return Err("no tools named: give `all`, `default` or tool names".to_string());
        }
        Ok(ToolSet { names })
    }

    /// Whether the set lists `name` (the shell tool aside: see the module's documentation).
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The names, in [`all_tools`] order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        all_tools().filter(|name| self.names.contains(name))
    }

    /// How the set is written back on a command line (`default`, `all`, or names).
    pub fn to_arg(&self) -> String {
        if *self == ToolSet::default() {
            "default".to_string()
        } else if *self == ToolSet::all() {
            "all".to_string()
        } else {
            self.names().collect::<Vec<_>>().join(",")
        }
    }
}

/// A tool definition as listed: `format` and `$schema` dropped from the input schema, the
/// output schema reduced to its top level.
pub fn lean_definition(tool: &mut rmcp::model::Tool) {
    let mut input = Value::Object((*tool.input_schema).clone());
    drop_noise(&mut input);
    if let Value::Object(input) = input {
        tool.input_schema = std::sync::Arc::new(input);
    }
    if let Some(output) = &tool.output_schema {
        tool.output_schema = Some(std::sync::Arc::new(top_level(output)));
    }
}

/// Removes what schemars adds that no client needs: `$schema`, integer `format`s
/// (`uint32`) and the `minimum: 0` of unsigned integers.
fn drop_noise(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.remove("$schema");
            let integer = object.get("type").is_some_and(|kind| {
                kind == "integer"
                    || kind
                        .as_array()
                        .is_some_and(|kinds| kinds.contains(&"integer".into()))
            });
            if integer {
                object.remove("format");
                if object.get("minimum") == Some(&Value::from(0)) {
                    object.remove("minimum");
                }
            }
            object.values_mut().for_each(drop_noise);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_noise),
        _ => {}
    }
}

/// The top level of an output schema: each property's type (an array's items only by their
/// type), and the required properties.
fn top_level(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut lean = Map::new();
    lean.insert("type".into(), "object".into());
    let properties: Map<String, Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, property)| (name.clone(), shape(schema, property)))
        .collect();
    lean.insert("properties".into(), Value::Object(properties));
    if let Some(required) = schema.get("required") {
        lean.insert("required".into(), required.clone());
    }
    lean
}

/// A property's type alone, `$ref`s followed; an array says the type of its items.
fn shape(schema: &Map<String, Value>, property: &Value) -> Value {
    let property = follow(schema, property);
    let mut lean = Map::new();
    if let Some(kind) = property.get("type") {
        lean.insert("type".into(), kind.clone());
    } else if let Some(variants) = property.get("anyOf").and_then(Value::as_array) {
        // `Option<Struct>`: `anyOf: [{$ref}, {type: null}]`.
        let kinds: Vec<Value> = variants
            .iter()
            .filter_map(|variant| follow(schema, variant).get("type").cloned())
            .collect();
        if !kinds.is_empty() {
            lean.insert("type".into(), Value::Array(kinds));
        }
    }
    if let Some(items) = property.get("items") {
        let items = shape(schema, items);
        if items.as_object().is_some_and(|items| !items.is_empty()) {
            lean.insert("items".into(), items);
        }
    }
    if let Some(values) = property.get("enum") {
        lean.insert("enum".into(), values.clone());
    }
    Value::Object(lean)
}

/// `value`, or what its `$ref` (to the schema's own `$defs`) names.
fn follow<'a>(schema: &'a Map<String, Value>, value: &'a Value) -> &'a Value {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
        .and_then(|name| schema.get("$defs")?.get(name))
        .unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sets_are_parsed_from_presets_and_names() {
        assert_eq!(ToolSet::parse("default").unwrap(), ToolSet::default());
        assert_eq!(ToolSet::parse("all").unwrap(), ToolSet::all());
        let set = ToolSet::parse("default, local_search").unwrap();
        assert!(set.contains("local_search") && set.contains("find_callers"));
        assert!(!set.contains("global_search"));
        assert_eq!(
            ToolSet::parse("find_callers,local_search")
                .unwrap()
                .to_arg(),
            "find_callers,local_search"
        );
        let error = ToolSet::parse("find_callers,grep").unwrap_err();
        assert!(error.starts_with("unknown tool `grep`"), "{error}");
        assert!(ToolSet::parse(" , ").is_err());
    }

    #[test]
    fn an_output_schema_keeps_the_types_of_its_top_level() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"Entity": {"type": "object", "description": "An entity.",
                                 "properties": {"id": {"type": "string"}}, "required": ["id"]}},
            "type": "object",
            "properties": {
                "entity": {"$ref": "#/$defs/Entity"},
                "callers": {"type": "array", "items": {"$ref": "#/$defs/Entity"}},
                "total": {"type": "integer", "format": "uint", "minimum": 0, "description": "All."},
                "next_offset": {"type": ["integer", "null"], "format": "uint"},
                "source": {"anyOf": [{"$ref": "#/$defs/Entity"}, {"type": "null"}]},
            },
            "required": ["entity", "callers", "total"],
        });
        let lean = top_level(schema.as_object().unwrap());
        assert_eq!(
            Value::Object(lean),
            json!({
                "type": "object",
                "properties": {
                    "entity": {"type": "object"},
                    "callers": {"type": "array", "items": {"type": "object"}},
                    "total": {"type": "integer"},
                    "next_offset": {"type": ["integer", "null"]},
                    "source": {"type": ["object", "null"]},
                },
                "required": ["entity", "callers", "total"],
            })
        );
    }

    #[test]
    fn input_schemas_lose_integer_formats_but_keep_bounds_and_defaults() {
        let mut schema = json!({
            "$schema": "x",
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "format": "uint", "minimum": 0, "default": 25},
                "depth": {"type": "integer", "format": "uint32", "minimum": 1},
                "name": {"type": "string", "format": "uri"},
            },
        });
        drop_noise(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "default": 25},
                    "depth": {"type": "integer", "minimum": 1},
                    "name": {"type": "string", "format": "uri"},
                },
            })
        );
    }
}
