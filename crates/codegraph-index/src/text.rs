//! The text of what a capture names: a type as a value's type ([`value_type`]), a base type's
//! name, a receiver or expression with whitespace collapsed, a path without its quotes.

use codegraph_model::Name;
use tree_sitter::Node;

/// The longest receiver or bound expression kept; a longer one is cut (or, for a value,
/// kept without its call arguments).
pub(crate) const MAX_RECEIVER: usize = 120;

pub(crate) fn node_text<'text>(node: Node<'_>, text: &'text str) -> &'text str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

pub(crate) fn strip_quotes(text: &str) -> String {
    text.trim()
        .trim_matches(|character| matches!(character, '"' | '\'' | '`' | '<' | '>'))
        .to_string()
}

/// Wrappers whose value is their first type argument, for the purpose of calling methods on
/// it: `x?`, `.unwrap()`, `await`, auto-deref and optional chaining see through them.
const TRANSPARENT_WRAPPERS: &[&str] = &[
    "Result",
    "Option",
    "Box",
    "Rc",
    "Arc",
    "RefCell",
    "Cell",
    "Mutex",
    "RwLock",
    "Ref",
    "RefMut",
    "MutexGuard",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "Cow",
    "Pin",
    "Promise",
    "Awaited",
    "Readonly",
    "Optional",
    "Union",
    "ClassVar",
    "Final",
    "Annotated",
    "Type",
    "type",
    "Awaitable",
    "Coroutine",
    "NonNull",
    "ManuallyDrop",
];

/// The type a value of the written type is used as, qualification kept: references, pointers,
/// `mut`, `dyn`, `impl` and the annotation colon removed; transparent wrappers
/// (`Result<Foo, E>`, `Option<&Self>`, `Promise<Foo>`, `Optional[Foo]`) unwrapped; the first of
/// a Go result list (`(*Foo, error)`); `Foo | null` → `Foo`; generic arguments dropped.
pub fn value_type(text: &str) -> Name {
    let Some(_step) = codegraph_model::walk::enter() else {
        return Name::default();
    };
    let mut text = text.trim();
    for _ in 0..8 {
        text = text.trim_start_matches([':', '-', '>']).trim();
        text = text.trim_matches(|character| matches!(character, '"' | '\''));
        if let Some(inner) = text
            .strip_prefix('(')
            .and_then(|rest| rest.strip_suffix(')'))
        {
            text = first_result(inner);
            continue;
        }
        let next = without_modifiers(text);
        if next == text {
            break;
        }
        text = next;
    }
    if let Some(argument) = transparent_argument(text) {
        return value_type(argument);
    }
    Name::new(type_base_name_qualified(text))
}

/// The type of the first of Go's `(T, error)` results, or of a parenthesised type. Named
/// results share a type (`(vx, vy reflect.Value)`): a bare first name takes the type of the
/// first element that has one.
fn first_result(inner: &str) -> &str {
    let elements: Vec<&str> = top_level_split(inner, ',').map(str::trim).collect();
    let first = elements.first().copied().unwrap_or("");
    let named = elements.iter().copied().find(|element| {
        element.contains(char::is_whitespace)
            && !element.starts_with("chan")
            && !element.starts_with("map")
            && !element.starts_with("func")
    });
    let text = match named {
        Some(named) if !first.contains(char::is_whitespace) && elements.len() > 1 => named,
        _ => first,
    };
    // A named result (`f *File`): its type is the last word.
    text.rsplit_once(|character: char| character.is_whitespace())
        .filter(|(first, _)| !matches!(first.trim(), "chan" | "map" | "func"))
        .map_or(text, |(_, last)| last)
}

/// One round of removing what does not change the type a value is used as: pointers and
/// references (a Rust lifetime too), `mut`, `dyn`, `impl`, `const`, `readonly`, and a null
/// alternative (`Foo | null`).
fn without_modifiers(text: &str) -> &str {
    let stripped = text.trim_start_matches(['*', '&', '^']).trim();
    let stripped = stripped
        .strip_prefix("'")
        .map_or(stripped, |rest| {
            rest.split_once(' ').map_or(rest, |(_, after)| after)
        })
        .trim();
    let mut next = stripped;
    for keyword in ["mut ", "dyn ", "impl ", "const ", "readonly "] {
        next = next.strip_prefix(keyword).unwrap_or(next).trim();
    }
    // `Foo | null`, `Foo | undefined`: the first alternative that is not a null type.
    let alternatives: Vec<&str> = top_level_split(next, '|').map(str::trim).collect();
    if alternatives.len() > 1 {
        next = alternatives
            .iter()
            .copied()
            .find(|alternative| !matches!(*alternative, "null" | "undefined" | "None" | "void"))
            .unwrap_or(next);
    }
    next
}

/// A transparent wrapper's first generic argument (`<...>` or Python's `[...]`).
fn transparent_argument(text: &str) -> Option<&str> {
    let open = text.find(['<', '['])?;
    if !text.ends_with(['>', ']']) {
        return None;
    }
    let head = text[..open].trim();
    let last = head.rsplit(['.', ':']).next().unwrap_or(head);
    if !TRANSPARENT_WRAPPERS.contains(&last) {
        return None;
    }
    top_level_split(&text[open + 1..text.len() - 1], ',').next()
}

/// Splits at `separator` outside brackets.
pub fn top_level_split(text: &str, separator: char) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (offset, character) in text.char_indices() {
        match character {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            _ if character == separator && depth == 0 => {
                parts.push(&text[start..offset]);
                start = offset + character.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter()
}

/// `Foo<T>`, `*Foo`, `&mut Foo`, `Foo[]`, `pkg.Foo` → `Foo`.
pub(crate) fn type_base_name(text: &str) -> String {
    let qualified = type_base_name_qualified(text);
    let last = qualified
        .rsplit(['.', ':', '\\'])
        .next()
        .unwrap_or(&qualified);
    last.to_string()
}

/// `Foo<T>`, `*pkg.Foo`, `&mut Foo` → `Foo` or `pkg.Foo`: generic arguments, pointers and
/// references removed, qualification kept.
pub(crate) fn type_base_name_qualified(text: &str) -> String {
    let mut text = text.trim();
    if let Some(index) = text.find(['<', '[', '(']) {
        text = &text[..index];
    }
    let text = text.trim_start_matches(['*', '&', '?', '^']).trim();
    // A Rust lifetime: `&'a mut I`.
    let text = match text.strip_prefix('\'') {
        Some(rest) => rest.split_once(' ').map_or(rest, |(_, after)| after).trim(),
        None => text,
    };
    let text = text.strip_prefix("mut ").unwrap_or(text).trim();
    let text = text.strip_prefix("dyn ").unwrap_or(text).trim();
    text.trim_end_matches(['?', '!', '*', '&'])
        .trim()
        .to_string()
}

/// An expression's text with the contents of its argument lists and subscripts removed
/// (`f(a, [b]).g(c)` → `f().g()`); a bracket that opens an expression keeps its contents
/// (`(a as T).f()`). String literals are skipped whole.
pub(crate) fn without_arguments(text: &str) -> String {
    let mut kept = String::with_capacity(text.len().min(4 * MAX_RECEIVER));
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut previous = ' ';
    for character in text.chars() {
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if character == '\\' {
                escaped = true;
            } else if character == open {
                quote = None;
            }
            if depth == 0 {
                kept.push(character);
            }
            continue;
        }
        match character {
            '\'' | '"' | '`' => quote = Some(character),
            '(' | '[' | '{'
                if depth > 0
                    || previous.is_alphanumeric()
                    || matches!(previous, '_' | ')' | ']') =>
            {
                if depth == 0 {
                    kept.push(character);
                }
                depth += 1;
                previous = character;
                continue;
            }
            ')' | ']' | '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    kept.push(character);
                }
                previous = character;
                continue;
            }
            _ => {}
        }
        if depth == 0 {
            kept.push(character);
            if !character.is_whitespace() {
                previous = character;
            }
        }
        if kept.len() > 4 * MAX_RECEIVER {
            break;
        }
    }
    kept
}

/// An expression's text with whitespace removed, but for one space between two words
/// (`new Foo()`, `&mut self`, `await fetch()` keep theirs).
pub(crate) fn receiver_text(text: &str) -> Name {
    // Most receivers and names hold no whitespace: nothing to collapse, nothing to copy.
    if text.len() <= MAX_RECEIVER && !text.contains(char::is_whitespace) {
        return Name::new(text);
    }
    let is_word = |character: char| character.is_alphanumeric() || character == '_';
    let mut compact = String::with_capacity(text.len().min(MAX_RECEIVER + 8));
    let mut pending_space = false;
    for character in text.chars() {
        if character.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && compact.ends_with(is_word) && is_word(character) {
            compact.push(' ');
        }
        pending_space = false;
        compact.push(character);
        if compact.len() > MAX_RECEIVER * 4 {
            break;
        }
    }
    if compact.len() > MAX_RECEIVER {
        Name::new(&compact[..codegraph_lang::syntax::floor_char_boundary(&compact, MAX_RECEIVER)])
    } else {
        Name::new(compact)
    }
}

#[cfg(test)]
mod tests {
    use super::without_arguments;

    #[test]
    fn long_values_keep_their_calls_without_arguments() {
        assert_eq!(
            without_arguments(
                "Palette(\n    [\n        (0, 0, 0),\n        (128, 0, 0),\n    ]\n)"
            ),
            "Palette()"
        );
        assert_eq!(
            without_arguments("make(a, \"(\", [b]).build(c)[0]"),
            "make().build()[]"
        );
        assert_eq!(without_arguments("(x as Foo).get(y)"), "(x as Foo).get()");
        assert_eq!(without_arguments("Foo { a: g(1) }"), "Foo {}");
    }
}
