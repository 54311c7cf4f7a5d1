//! Rust modules declared with a `#[path]` attribute (`#[path = "../src/lexical/mod.rs"] mod
//! lexical;`): the file named is a module of the declaring file's crate, wherever it lies. Which
//! file that is, and the module paths it answers, the graph's module map works out
//! (`graph/modules.rs`); here only what the declaring file says is read.

use codegraph_model::Name;
use tree_sitter::Node;

use super::PathModule;

/// The `#[path]` modules of a file, at the top level and inside inline modules (`mod outer {
/// #[path = "x.rs"] mod inner; }` is `outer::inner`), except those the default build leaves out
/// (`disabled`: the ranges of `lang::rust_cfg`).
pub(super) fn path_modules(
    root: Node<'_>,
    text: &str,
    disabled: &[std::ops::Range<u32>],
) -> Vec<PathModule> {
    let is_disabled = |node: Node<'_>| {
        let start = node.start_byte() as u32;
        disabled.iter().any(|range| range.contains(&start))
    };
    let mut found = Vec::new();
    let mut lists: Vec<(Node<'_>, String)> = vec![(root, String::new())];
    while let Some((list, prefix)) = lists.pop() {
        let mut cursor = list.walk();
        let mut pending: Option<&str> = None;
        for child in list.named_children(&mut cursor) {
            match child.kind() {
                "attribute_item" => {
                    if let Some(path) = text.get(child.byte_range()).and_then(path_attribute) {
                        pending = Some(path);
                    }
                }
                "line_comment" | "block_comment" => {}
                "mod_item" => {
                    let name = child
                        .child_by_field_name("name")
                        .and_then(|name| text.get(name.byte_range()));
                    if let Some(name) = name
                        && !is_disabled(child)
                    {
                        let module = if prefix.is_empty() {
                            name.to_string()
                        } else {
                            format!("{prefix}::{name}")
                        };
                        match child.child_by_field_name("body") {
                            Some(body) => lists.push((body, module)),
                            None => {
                                if let Some(path) = pending {
                                    found.push(PathModule {
                                        module: Name::new(module),
                                        path: Name::new(path),
                                    });
                                }
                            }
                        }
                    }
                    pending = None;
                }
                _ => pending = None,
            }
        }
    }
    found.sort_by_key(|left| left.module);
    found
}

/// The file of `#[path = "file.rs"]`; `None` for any other attribute.
fn path_attribute(attribute: &str) -> Option<&str> {
    let inner = attribute
        .trim()
        .strip_prefix("#[")?
        .strip_suffix(']')?
        .trim();
    let value = inner.strip_prefix("path")?.trim_start().strip_prefix('=')?;
    let path = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_lang::Language;

    fn modules(text: &str) -> Vec<(String, String)> {
        let (summary, _) = crate::extract_text(Language::Rust, text);
        summary
            .path_modules
            .iter()
            .map(|module| (module.module.to_string(), module.path.to_string()))
            .collect()
    }

    #[test]
    fn path_attributes_name_the_modules_files() {
        let text = r#"
#[path = "../src/lexical/mod.rs"]
mod lexical;

#[cfg(windows)]
#[path = "windows.rs"]
mod imp;

#[path = "plain.rs"]
#[allow(dead_code)]
pub(crate) mod plain;

mod outer {
    #[path = "inner_file.rs"]
    mod inner;
}

mod ordinary;

#[doc = "path"]
mod documented;
"#;
        assert_eq!(
            modules(text),
            vec![
                ("lexical".to_string(), "../src/lexical/mod.rs".to_string()),
                ("outer::inner".to_string(), "inner_file.rs".to_string()),
                ("plain".to_string(), "plain.rs".to_string()),
            ]
        );
        assert_eq!(path_attribute("#[path=\"x.rs\"]"), Some("x.rs"));
        assert_eq!(path_attribute("#[pathological = \"x.rs\"]"), None);
    }
}
