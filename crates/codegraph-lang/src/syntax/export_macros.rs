//! C and C++ export macros between `class` and the class's name.
//!
//! Libraries mark the classes they export with a macro that expands to a visibility attribute:
//! `class LEVELDB_EXPORT Slice {`, `class Q_CORE_EXPORT QString : public ...`, `struct
//! GTEST_API_ TestInfo {`. Without the preprocessor, tree-sitter reads the macro as the class's
//! name and the rest as a function definition, so the class, its members and every out-of-line
//! `Slice::size` are lost. The macro is blanked (spaces of the same length, so offsets stay
//! where they were) before the parse.

/// `text` with every export macro after `class`, `struct` or `union` blanked; `None` when there
/// is none.
pub(super) fn mask(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    for keyword in ["class", "struct", "union"] {
        for (at, _) in text.match_indices(keyword) {
            let before_is_word = at > 0 && is_word(bytes[at - 1]);
            let end = at + keyword.len();
            if before_is_word || bytes.get(end).is_none_or(|&byte| is_word(byte)) {
                continue;
            }
            macros_after(bytes, end, &mut spans);
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut masked = bytes.to_vec();
    for (start, end) in spans {
        masked[start..end].fill(b' ');
    }
    Some(String::from_utf8(masked).expect("ASCII identifiers replaced by spaces"))
}

/// After a class keyword at `at`: the macros (one or more) that stand between it and the
/// class's name, when a name and then `{`, `:` or `final` follow them.
fn macros_after(bytes: &[u8], at: usize, spans: &mut Vec<(usize, usize)>) {
    let mut found = Vec::new();
    let mut at = skip_spaces(bytes, at);
    loop {
        let end = word_end(bytes, at);
        if end == at {
            return;
        }
        let next = skip_spaces(bytes, end);
        let next_word = &bytes[next..word_end(bytes, next)];
        let follows_name = !next_word.is_empty() && next_word != b"final";
        if !follows_name {
            // `at..end` is the class's name: what follows it decides.
            let head = bytes.get(next).copied();
            let is_final = bytes[next..].starts_with(b"final")
                && bytes.get(next + 5).is_none_or(|&byte| !is_word(byte));
            if !found.is_empty() && (matches!(head, Some(b'{' | b':')) || is_final) {
                spans.extend(found);
            }
            return;
        }
        if !is_export_macro(&bytes[at..end]) {
            return;
        }
        found.push((at, end));
        at = next;
    }
}

/// An upper-case name of at least three characters that reads as a visibility macro: with an
/// underscore (`LEVELDB_EXPORT`, `GTEST_API_`), or ending in `API` or `EXPORT`.
fn is_export_macro(word: &[u8]) -> bool {
    word.len() >= 3
        && word[0].is_ascii_uppercase()
        && word
            .iter()
            .all(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit() || *byte == b'_')
        && (word.contains(&b'_') || word.ends_with(b"API") || word.ends_with(b"EXPORT"))
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

fn word_end(bytes: &[u8], mut at: usize) -> usize {
    if bytes.get(at).is_some_and(u8::is_ascii_digit) {
        return at;
    }
    while bytes.get(at).is_some_and(|&byte| is_word(byte)) {
        at += 1;
    }
    at
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::mask;

    #[test]
    fn the_macro_before_a_class_name_is_blanked() {
        assert_eq!(
            mask("class LEVELDB_EXPORT Slice {").as_deref(),
            Some("class                Slice {")
        );
        assert_eq!(
            mask("struct GTEST_API_ TestInfo : public Base {").as_deref(),
            Some("struct            TestInfo : public Base {")
        );
        assert_eq!(
            mask("class A_EXPORT B_DEPRECATED Widget final {").as_deref(),
            Some("class                       Widget final {")
        );
        assert_eq!(
            mask("namespace x {\nclass DLLEXPORT Reader;\nclass DLLEXPORT Reader {};\n}")
                .as_deref(),
            Some("namespace x {\nclass DLLEXPORT Reader;\nclass           Reader {};\n}")
        );
    }

    #[test]
    fn declarations_and_plain_classes_are_left_alone() {
        assert_eq!(mask("class Slice {"), None);
        assert_eq!(mask("struct POINT_T pt = {0};"), None);
        assert_eq!(mask("struct S s{1, 2};"), None);
        assert_eq!(mask("class Foo : public Bar {"), None);
        assert_eq!(mask("subclass MY_API Thing {"), None);
        assert_eq!(mask("template <class T_X> class Box {"), None);
    }
}
