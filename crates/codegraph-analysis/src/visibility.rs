//! Visibility as each language writes it: whether a top-level definition is part of its
//! module's public surface. The graph's own notion (`NameEntry::exported`) is what an import can
//! reach; this one is what the author published, read from the keywords before the name
//! (`pub`, `export`, `public`/`private`/`internal`, `static`, `local`), Go's capitalisation,
//! Python's `_` and `__all__`, and JavaScript's `export { .. }` lists and `module.exports`.

use codegraph_graph::{Entity, Graph};
use codegraph_lang::Language;

/// The words written between the start of the definition's first line and its name:
/// modifiers, `export`, `def`/`fn`/`class` and the like.
fn head_words(text: &str, entity: &Entity) -> Vec<String> {
    let start = (entity.span.start_byte as usize).min(text.len());
    let name = (entity.name_span.start_byte as usize).clamp(start, text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    let Some(head) = text.get(line_start..name) else {
        return Vec::new();
    };
    head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the author made `entity` (a definition of `graph`) visible outside its module, as
/// its language says. Definitions of languages without such a notion count as published.
pub fn is_published(graph: &Graph, entity: &Entity) -> bool {
    let Some(file) = graph.file(&entity.file_path) else {
        return false;
    };
    let Some(text) = file.text() else {
        return false;
    };
    let text = &*text;
    let words = head_words(text, entity);
    let has = |word: &str| words.iter().any(|written| written == word);
    let name = entity.name.as_str();
    match entity.language {
        // `pub(crate)`, `pub(super)`, `pub(in path)` stay inside the crate.
        Language::Rust => has("pub") && !has("crate") && !has("super") && !has("in"),
        Language::Go => name.chars().next().is_some_and(char::is_uppercase),
        Language::Python => {
            if name.starts_with('_') && !name.ends_with("__") {
                return false;
            }
            match python_all(text) {
                Some(listed) => listed.iter().any(|listed| listed == name),
                None => true,
            }
        }
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            has("export") || javascript_exports(text, name)
        }
        Language::Java | Language::CSharp => has("public"),
        Language::Kotlin | Language::Scala | Language::Swift => {
            !(has("private") || has("internal") || has("fileprivate") || has("protected"))
        }
        Language::Php => !(has("private") || has("protected")),
        Language::C | Language::Cpp => !has("static"),
        Language::Lua => !has("local"),
        _ => true,
    }
}

/// The names of a Python module's `__all__ = [...]` (or tuple), if it has one.
fn python_all(text: &str) -> Option<Vec<String>> {
    let start = text.find("__all__")?;
    let rest = &text[start + "__all__".len()..];
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let close = match rest.chars().next()? {
        '[' => ']',
        '(' => ')',
        _ => return None,
    };
    let body = &rest[1..rest.find(close)?];
    Some(
        body.split(',')
            .map(|item| {
                item.trim()
                    .trim_matches(|c| c == '"' || c == '\'')
                    .to_string()
            })
            .filter(|item| !item.is_empty())
            .collect(),
    )
}

/// Whether a JavaScript module exports `name` other than by a keyword on its definition:
/// `export { name }`, `export { name as other }`, `export default name`, `module.exports = {
/// name }`, `module.exports.name =`, `exports.name =`.
fn javascript_exports(text: &str, name: &str) -> bool {
    let is_word = |item: &str| item.split_whitespace().next() == Some(name);
    let mut rest = text;
    while let Some(position) = rest.find("export") {
        let after = rest[position + "export".len()..].trim_start();
        if let Some(list) = after.strip_prefix('{')
            && let Some(end) = list.find('}')
            && list[..end].split(',').any(is_word)
        {
            return true;
        }
        if let Some(default) = after.strip_prefix("default")
            && default
                .trim_start()
                .trim_end_matches(';')
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .next()
                == Some(name)
        {
            return true;
        }
        rest = &rest[position + "export".len()..];
    }
    text.contains(&format!("exports.{name}"))
        || text.find("module.exports").is_some_and(|position| {
            let after = text[position..]
                .trim_start_matches("module.exports")
                .trim_start();
            after.strip_prefix('=').is_some_and(|value| {
                let value = value.trim_start();
                value.starts_with('{')
                    && value[1..value.find('}').unwrap_or(value.len())]
                        .split(',')
                        .any(|item| item.split(':').next().map(str::trim) == Some(name))
                    || value
                        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                        .next()
                        == Some(name)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_all_and_javascript_export_lists() {
        assert_eq!(
            python_all("import x\n__all__ = ['run', \"stop\"]\n"),
            Some(vec!["run".to_string(), "stop".to_string()])
        );
        assert_eq!(python_all("def f(): pass\n"), None);
        let module = "function a() {}\nfunction b() {}\nfunction c() {}\nexport { a, b as bee };\n";
        assert!(javascript_exports(module, "a"));
        assert!(javascript_exports(module, "b"));
        assert!(!javascript_exports(module, "c"));
        assert!(javascript_exports(
            "function f() {}\nexport default f;\n",
            "f"
        ));
        assert!(javascript_exports(
            "function g() {}\nmodule.exports = { g, h: 1 };\n",
            "g"
        ));
        assert!(javascript_exports(
            "function g() {}\nmodule.exports = g;\n",
            "g"
        ));
        assert!(javascript_exports("exports.k = function () {};\n", "k"));
        assert!(!javascript_exports("module.exports = { g };\n", "k"));
    }
}
