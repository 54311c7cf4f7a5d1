//! Where a text is prose rather than code: comments and strings, in which a name mentioned
//! (`See also: thread_last`, `# calls parse`) is read by no one. The mention search skips them,
//! so that a docstring's cross-reference is not taken for a function held as a value.
//!
//! Python only, where the lexical rules are few and fixed. What stays code: f-strings (their
//! `{...}` parts are expressions) and, inside a string, a doctest's lines (`>>> ` and `... `),
//! which a doctest runner executes.

use codegraph_lang::Language;

use super::lexicon::identifier_byte;

/// The prose spans of `text`, in order and disjoint, for a file of `language` (none where the
/// language's rules are not known here).
pub(crate) fn spans(language: Language, text: &str) -> Vec<(u32, u32)> {
    match language {
        Language::Python => python(text.as_bytes()),
        _ => Vec::new(),
    }
}

/// What the text at a byte is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Code,
    Prose,
    /// A doctest's line in a string: code a doctest runner executes, where a name is used
    /// however it is written (called, bound, passed).
    Doctest,
}

/// What `byte` of `text` is, given the prose `spans` [`spans`] made for it.
pub(crate) fn part(text: &str, spans: &[(u32, u32)], byte: u32) -> Part {
    let after = spans.partition_point(|(start, _)| *start <= byte);
    if after == 0 || byte >= spans[after - 1].1 {
        return Part::Code;
    }
    let line_start = text[..byte as usize].rfind('\n').map_or(0, |at| at + 1);
    let line = text[line_start..byte as usize].trim_start();
    if line.starts_with(">>>") || line.starts_with("...") {
        Part::Doctest
    } else {
        Part::Prose
    }
}

/// Whether `text` has a doctest's line (`>>> ` opening a line, spaces aside).
pub(crate) fn has_doctest(text: &str) -> bool {
    text.match_indices(">>>").any(|(at, _)| {
        text[..at]
            .rsplit('\n')
            .next()
            .is_some_and(|before| before.trim().is_empty())
    })
}

/// Python's comments and strings but f-strings: one pass, from one `#` or quote to the next.
fn python(bytes: &[u8]) -> Vec<(u32, u32)> {
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(next) = memchr::memchr3(b'#', b'"', b'\'', &bytes[at..]) {
        at += next;
        match bytes[at] {
            b'#' => {
                let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
                spans.push((at as u32, end as u32));
                at = end;
            }
            quote @ (b'"' | b'\'') => {
                let end = string_end(bytes, at, quote);
                if !formatted(bytes, at) {
                    spans.push((at as u32, end as u32));
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    spans
}

/// Where the string opening with `quote` at `at` ends (past its closing quote; at the line's
/// end for an unterminated one-line string, at the text's end for an unterminated long one).
/// A backslash always takes the next byte with it, as in raw strings.
pub(crate) fn string_end(bytes: &[u8], at: usize, quote: u8) -> usize {
    let long = bytes.get(at..at + 3) == Some(&[quote; 3][..]);
    let mut next = at + if long { 3 } else { 1 };
    while next < bytes.len() {
        // The next byte that may end the string or escape one.
        let found = if long {
            memchr::memchr2(quote, b'\\', &bytes[next..])
        } else {
            memchr::memchr3(quote, b'\\', b'\n', &bytes[next..])
        };
        let Some(found) = found else {
            return bytes.len();
        };
        next += found;
        match bytes[next] {
            b'\\' => next += 2,
            byte if byte == quote && !long => return next + 1,
            byte if byte == quote && bytes.get(next..next + 3) == Some(&[quote; 3][..]) => {
                return next + 3;
            }
            b'\n' if !long => return next,
            _ => next += 1,
        }
    }
    bytes.len()
}

/// Whether the string opening at `at` has an `f` among its prefix letters (`f"`, `rf'`, `Fr"`).
fn formatted(bytes: &[u8], at: usize) -> bool {
    let mut start = at;
    while start > 0 && at - start < 2 && b"rRbBuUfF".contains(&bytes[start - 1]) {
        start -= 1;
    }
    if start > 0 && identifier_byte(bytes[start - 1]) {
        return false;
    }
    bytes[start..at]
        .iter()
        .any(|byte| matches!(byte, b'f' | b'F'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose_words(text: &str) -> Vec<&str> {
        let spans = spans(Language::Python, text);
        ["thread_last", "pipe", "compose", "inc", "double"]
            .into_iter()
            .filter(|word| {
                text.find(word)
                    .is_some_and(|byte| part(text, &spans, byte as u32) == Part::Prose)
            })
            .collect()
    }

    #[test]
    fn comments_and_docstrings_are_prose_but_doctest_lines_and_f_strings_are_code() {
        let text = "def pipe(data):\n    \"\"\"See Also:\n        thread_last\n    >>> compose(1)\n    \"\"\"\n    x = f\"{inc(data)}\"  # double it\n";
        assert_eq!(prose_words(text), ["thread_last", "double"]);
    }

    #[test]
    fn a_doctest_is_a_line_opening_with_three_brackets() {
        assert!(has_doctest("def f():\n    \"\"\"\n    >>> f()\n    \"\"\""));
        assert!(!has_doctest("x = a >>> b"));
    }

    #[test]
    fn a_string_ends_at_its_own_quote_and_escapes_do_not_end_it() {
        let text = "a = 'it\\'s pipe' + compose\nb = \"\"\"one ' two \" inc\"\"\" + thread_last";
        assert_eq!(prose_words(text), ["pipe", "inc"]);
    }

    #[test]
    fn an_unterminated_string_ends_with_its_line() {
        let text = "a = 'pipe\nthread_last(1)";
        assert_eq!(prose_words(text), ["pipe"]);
    }

    #[test]
    fn prefixes_are_read_only_as_prefixes() {
        let text = "x = rb'pipe' + b\"compose\" + Rf'{inc}'";
        assert_eq!(prose_words(text), ["pipe", "compose"]);
    }
}
