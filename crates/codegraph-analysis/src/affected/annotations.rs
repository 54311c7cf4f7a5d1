//! Python's type annotations in a definition's header: a class named in one
//! (`self: Serializer[str]`, `signer: type[Signer] | None = None`, `-> Signer`) is a type,
//! never a value the definition holds or passes. (Its default, after `=`, is a value.)

use super::prose::string_end;

/// Whether `byte` of `text` is in an annotation of the header of the Python definition whose
/// name ends at `name_end`: a parameter's (after its `:`, up to its `=` or `,`) or the return's
/// (after `->`, up to the header's `:`). One pass from the name to `byte` or the header's end.
pub(crate) fn in_header_annotation(text: &str, name_end: usize, byte: usize) -> bool {
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
            b':' if depth == 0 && opened => return false,
            b':' if depth == 1 => annotation = true,
            b',' if depth == 1 => annotation = false,
            b'=' if depth == 1 && !comparison(bytes, at) => annotation = false,
            b'-' if depth == 0 && bytes.get(at + 1) == Some(&b'>') => annotation = true,
            b'\n' if !opened && depth == 0 => return false,
            _ => {}
        }
        at += 1;
    }
    at == byte && annotation
}

/// Whether the `=` at `at` is part of `==`, `<=`, `>=`, `!=` or `:=`.
fn comparison(bytes: &[u8], at: usize) -> bool {
    bytes.get(at + 1) == Some(&b'=')
        || at > 0 && matches!(bytes[at - 1], b'=' | b'<' | b'>' | b'!' | b':')
}

#[cfg(test)]
mod tests {
    use super::in_header_annotation;

    /// Which of the header's mentions of `Signer` are annotations.
    fn annotated(header: &str) -> Vec<bool> {
        let name_end = header.find('(').unwrap();
        header
            .match_indices("Signer")
            .map(|(at, _)| in_header_annotation(header, name_end, at))
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
