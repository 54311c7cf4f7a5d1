//! A Python definition's header: a class named in a type annotation (`self: Serializer[str]`,
//! `signer: type[Signer] | None = None`, `-> Signer`) is a type, never a value the definition
//! holds or passes (its default, after `=`, is a value); a parameter's name in the body is the
//! parameter, not the function or class of that name (`shell_complete=None`, then
//! `self.complete = shell_complete`).

use super::prose::string_end;

/// Where a byte is in a Python definition: in its header, an annotation (a parameter's, after
/// its `:` up to its `=` or `,`; the return's, after `->` up to the header's `:`) or another part;
/// or past the header, in its body.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Annotation,
    OtherHeader,
    Body,
}

/// Where `byte` is in the definition whose name ends at `name_end`: one pass from the name to
/// `byte` or the header's end.
pub(crate) fn place(text: &str, name_end: usize, byte: usize) -> Place {
    let bytes = text.as_bytes();
    let mut at = name_end;
    let mut depth = 0usize;
    let mut annotation = false;
    let mut opened = false;
    while at < bytes.len() && at < byte {
        match bytes[at] {
            quote @ (b'"' | b'\'') => {
                at = string_end(bytes, at, quote);
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                opened |= bytes[at] == b'(';
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b':' if depth == 0 && opened => return Place::Body,
            b':' if depth == 1 => annotation = true,
            b',' if depth == 1 => annotation = false,
            b'=' if depth == 1 && !comparison(bytes, at) => annotation = false,
            b'-' if depth == 0 && bytes.get(at + 1) == Some(&b'>') => annotation = true,
            b'\n' if !opened && depth == 0 => return Place::Body,
            _ => {}
        }
        at += 1;
    }
    match (at == byte, annotation) {
        (true, true) => Place::Annotation,
        (true, false) => Place::OtherHeader,
        (false, _) => Place::Body,
    }
}

/// Whether the `=` at `at` is part of `==`, `<=`, `>=`, `!=` or `:=`.
fn comparison(bytes: &[u8], at: usize) -> bool {
    bytes.get(at + 1) == Some(&b'=')
        || at > 0 && matches!(bytes[at - 1], b'=' | b'<' | b'>' | b'!' | b':')
}

/// Whether `byte` of `text` is in the annotation of an annotated assignment on its line
/// (`self.algorithm: SigningAlgorithm = algorithm`): after the target's `:`, before the `=`.
/// A line without that `=` is not read as one (a dictionary's `key: value,` line looks alike).
pub(crate) fn in_assignment_annotation(text: &str, byte: usize) -> bool {
    let bytes = text.as_bytes();
    let start = text[..byte].rfind('\n').map_or(0, |at| at + 1);
    let mut at = start;
    while at < byte && matches!(bytes[at], b' ' | b'\t') {
        at += 1;
    }
    let target = at;
    while at < byte && (super::lexicon::identifier_byte(bytes[at]) || bytes[at] == b'.') {
        at += 1;
    }
    if at == target || bytes[target].is_ascii_digit() {
        return false;
    }
    while at < byte && bytes[at] == b' ' {
        at += 1;
    }
    if bytes.get(at) != Some(&b':') || bytes.get(at + 1) == Some(&b'=') || at >= byte {
        return false;
    }
    let mut depth = 0usize;
    for (offset, current) in bytes[at + 1..].iter().enumerate() {
        let position = at + 1 + offset;
        match current {
            b'\n' | b'#' => return false,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'=' if depth == 0 && !comparison(bytes, position) => return byte < position,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{Place, place};

    /// Which of the header's mentions of `Signer` are annotations.
    fn annotated(header: &str) -> Vec<bool> {
        let name_end = header.find('(').unwrap();
        header
            .match_indices("Signer")
            .map(|(at, _)| place(header, name_end, at) == Place::Annotation)
            .collect()
    }

    #[test]
    fn parameters_and_returns_are_annotated_defaults_are_values() {
        assert_eq!(
            annotated("def make(self: Signer, signer: type[Signer] | None = Signer) -> Signer:"),
            [true, true, false, true]
        );
        assert_eq!(
            annotated("def make(key=Signer, *, other: dict[str, Signer] = {\"a\": Signer}):"),
            [false, true, false]
        );
    }

    #[test]
    fn the_body_starts_after_the_headers_colon() {
        let text =
            "def make(key: int = shell_complete) -> dict[str, int]:\n    return shell_complete\n";
        let name_end = text.find('(').unwrap();
        let at: Vec<bool> = text
            .match_indices("shell_complete")
            .map(|(at, _)| place(text, name_end, at) == Place::Body)
            .collect();
        assert_eq!(at, [false, true]);
    }

    #[test]
    fn an_annotated_assignment_annotates_up_to_its_equals_sign() {
        let text = "    self.algorithm: Signer | None = Signer()\n    KEY: Signer,\n";
        let at: Vec<bool> = text
            .match_indices("Signer")
            .map(|(at, _)| super::in_assignment_annotation(text, at))
            .collect();
        assert_eq!(at, [true, false, false]);
    }

    #[test]
    fn the_body_is_not_the_header() {
        assert_eq!(
            annotated("def make(x: int):\n    y: Signer = Signer()\n"),
            [false, false]
        );
        assert_eq!(
            annotated("def make(x: int) -> None: return Signer"),
            [false]
        );
    }
}
