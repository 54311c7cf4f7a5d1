//! Python's share of receiver inference: what the generic rules of `infer.rs` do not say.
//!
//! - A conditional or `or` expression holds one of its operands (`get_console() if file is None
//!   else Console(file=file)`, `options or self.options`): the values of all of them, merged.
//! - `with X as y` binds `y` to `X.__enter__()` (see the `@binding.entered` capture): a context
//!   manager's `__enter__` usually returns the manager itself, and says so only sometimes.
//! - `pkg.sub` where `pkg` is a package names its submodule `sub`, imported or not
//!   (`import flask` then `flask.helpers.make_response()`): importing a package's `__init__.py`
//!   that imports its own submodules makes them attributes of the package.
//! - A special method (`__eq__`, `__reduce__`, `__enter__`) is defined by every class through
//!   `object`: a receiver of unknown type never guesses one by its unique name.

use codegraph_model::Name;

use super::Resolver;
use super::infer::Value;
use crate::FilePath;
use codegraph_index::Import;
use codegraph_model::Span;

/// The special methods, `__name__`: every object has them, so their name says nothing about
/// the receiver's type.
pub(crate) fn is_special_method(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// The operands of a conditional (`a if c else b`) or `or` expression at the top level of
/// `text` (a receiver's compact text: spaces only between words), the condition left out;
/// `None` when it is neither.
pub(super) fn alternatives(text: &str) -> Option<Vec<&str>> {
    let keywords = top_level_keywords(text);
    if let Some(&(if_start, if_end)) = keywords
        .iter()
        .find(|(start, end)| &text[*start..*end] == "if")
        && let Some(&(_, else_end)) = keywords
            .iter()
            .find(|(start, end)| *start > if_end && &text[*start..*end] == "else")
        && if_start > 0
    {
        return Some(vec![text[..if_start].trim(), text[else_end..].trim()]);
    }
    let mut operands = Vec::new();
    let mut from = 0;
    for (start, end) in keywords {
        if &text[start..end] == "or" {
            operands.push(text[from..start].trim());
            from = end;
        }
    }
    if operands.is_empty() {
        return None;
    }
    operands.push(text[from..].trim());
    operands
        .iter()
        .all(|operand| !operand.is_empty())
        .then_some(operands)
}

/// The byte ranges of the words `if`, `else` and `or` outside brackets and string literals.
fn top_level_keywords(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80;
    let mut found = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if let Some(open) = quote {
            if byte == b'\\' {
                index += 2;
                continue;
            }
            if byte == open {
                quote = None;
            }
            index += 1;
            continue;
        }
        match byte {
            b'\'' | b'"' => quote = Some(byte),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ if depth == 0 && is_word(byte) && (index == 0 || !is_word(bytes[index - 1])) => {
                let end = bytes[index..]
                    .iter()
                    .position(|byte| !is_word(*byte))
                    .map_or(bytes.len(), |length| index + length);
                if matches!(&text[index..end], "if" | "else" | "or") {
                    found.push((index, end));
                }
                index = end;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    found
}

impl<'a> Resolver<'a> {
    /// The value of `expression` where it is a conditional or `or` expression: its operands'
    /// values merged.
    pub(super) fn python_alternatives_value(
        &self,
        expression: &str,
        scope: Option<u32>,
        depth: u32,
    ) -> Option<Value> {
        let _step = codegraph_model::walk::enter()?;
        let operands = alternatives(expression)?;
        Some(Value::merge(
            operands
                .into_iter()
                .map(|operand| self.value_of(operand, scope, depth + 1))
                .collect(),
        ))
    }

    /// What `with` binds (`X.__enter__()`): the value `__enter__` returns where the manager's
    /// type declares it, else the manager itself.
    pub(super) fn python_entered_value(&self, manager: Value) -> Value {
        match self.method_value(manager.clone(), "__enter__") {
            Value::Unknown => manager,
            known => known,
        }
    }

    /// `.name` on a package that is not a definition or binding of its `__init__.py`: its
    /// submodule `name`, when there is one.
    pub(super) fn python_submodule(&self, files: &[FilePath], name: &str) -> Option<Vec<FilePath>> {
        let _step = codegraph_model::walk::enter()?;
        let mut found: Vec<FilePath> = Vec::new();
        for path in files {
            let is_package = path.ends_with("/__init__.py")
                || path.ends_with("/__init__.pyi")
                || &**path == "__init__.py";
            let Some(file) = self.graph.files.get(path).filter(|_| is_package) else {
                continue;
            };
            let relative = Import {
                path: Name::new(format!(".{name}")),
                name: None,
                alias: None,
                wildcard: false,
                span: Span::default(),
                scope: None,
            };
            found.extend(self.resolver_for(file).files_of_import(&relative));
        }
        found.sort();
        found.dedup();
        (!found.is_empty()).then_some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditional_and_or_expressions_split_into_their_operands() {
        assert_eq!(
            alternatives("get_console()if file is None else Console(file=file)"),
            Some(vec!["get_console()", "Console(file=file)"])
        );
        assert_eq!(
            alternatives("options or self.options"),
            Some(vec!["options", "self.options"])
        );
        assert_eq!(
            alternatives("a if b else c if d else e"),
            Some(vec!["a", "c if d else e"])
        );
        assert_eq!(alternatives("make(x if y else z)"), None);
        assert_eq!(alternatives("\"a or b\".upper()"), None);
        assert_eq!(alternatives("self.format(orientation)"), None);
        assert_eq!(alternatives("[x for x in items if x]"), None);
        assert_eq!(alternatives("or_else"), None);
    }

    #[test]
    fn special_methods_are_told_apart() {
        assert!(is_special_method("__eq__"));
        assert!(is_special_method("__reduce__"));
        assert!(!is_special_method("__init"));
        assert!(!is_special_method("____"));
        assert!(!is_special_method("_private"));
    }
}
