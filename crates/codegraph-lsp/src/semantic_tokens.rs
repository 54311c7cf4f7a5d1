//! `textDocument/semanticTokens` (full, range, full/delta): the document's syntax highlighted
//! by `lang::highlight` (each grammar's highlight queries), encoded as LSP relative tokens.
//!
//! The text is the server's current text of the file: the editor's buffer, unsaved edits
//! included, when it has the document open, else the file on disk. A document the world does not
//! hold (over the size cap, or not source) and a file on disk over the cap get no tokens, as a
//! highlight past [`HIGHLIGHT_DEADLINE`] does; the work runs through `Backend::query`, so a
//! `$/cancelRequest` stops it at its next checkpoint.
//!
//! Tokens never span lines (most clients do not support multi-line tokens): a block comment or a
//! multi-line string is one token per line. Lengths and columns count in the negotiated position
//! encoding (UTF-16 unless the client offered UTF-8). `full/delta` answers edits against the last
//! result sent for the document (its `resultId`): the common prefix and suffix of the two token
//! arrays are kept, the middle replaced, as rust-analyzer does.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tower_lsp_server::ls_types::{
    Range, SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens,
    SemanticTokensDelta, SemanticTokensEdit, SemanticTokensFullOptions, SemanticTokensLegend,
    SemanticTokensOptions, SemanticTokensServerCapabilities, Uri,
};

use codegraph_lang::Language;
use codegraph_lang::highlight::{self, Token, TokenModifier, TokenType};
use codegraph_world::buffer::ColumnEncoding;

use super::{State, proto};

/// A highlight that takes longer gives no tokens (the editor keeps its own colours).
const HIGHLIGHT_DEADLINE: Duration = Duration::from_secs(5);

/// The legend's name of a token type: the standard LSP names.
fn type_name(token_type: TokenType) -> SemanticTokenType {
    match token_type {
        TokenType::Namespace => SemanticTokenType::NAMESPACE,
        TokenType::Type => SemanticTokenType::TYPE,
        TokenType::Class => SemanticTokenType::CLASS,
        TokenType::Decorator => SemanticTokenType::DECORATOR,
        TokenType::Parameter => SemanticTokenType::PARAMETER,
        TokenType::Variable => SemanticTokenType::VARIABLE,
        TokenType::Property => SemanticTokenType::PROPERTY,
        TokenType::Function => SemanticTokenType::FUNCTION,
        TokenType::Method => SemanticTokenType::METHOD,
        TokenType::Macro => SemanticTokenType::MACRO,
        TokenType::Keyword => SemanticTokenType::KEYWORD,
        TokenType::Modifier => SemanticTokenType::MODIFIER,
        TokenType::Comment => SemanticTokenType::COMMENT,
        TokenType::String => SemanticTokenType::STRING,
        TokenType::Number => SemanticTokenType::NUMBER,
        TokenType::Regexp => SemanticTokenType::REGEXP,
        TokenType::Operator => SemanticTokenType::OPERATOR,
    }
}

fn modifier_name(modifier: TokenModifier) -> SemanticTokenModifier {
    match modifier {
        TokenModifier::Declaration => SemanticTokenModifier::DECLARATION,
        TokenModifier::Readonly => SemanticTokenModifier::READONLY,
        TokenModifier::DefaultLibrary => SemanticTokenModifier::DEFAULT_LIBRARY,
        TokenModifier::Documentation => SemanticTokenModifier::DOCUMENTATION,
    }
}

/// The legend: a token's type is its index in `TokenType::ALL`, its modifiers the bits of
/// `TokenModifier::ALL`.
pub(super) fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TokenType::ALL.into_iter().map(type_name).collect(),
        token_modifiers: TokenModifier::ALL.into_iter().map(modifier_name).collect(),
    }
}

/// What `initialize` announces: full (with delta) and range, with the legend.
pub(super) fn capability() -> SemanticTokensServerCapabilities {
    SemanticTokensServerCapabilities::SemanticTokensOptions(SemanticTokensOptions {
        legend: legend(),
        range: Some(true),
        full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
        ..SemanticTokensOptions::default()
    })
}

/// A token on one line, in the client's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineToken {
    line: u32,
    start: u32,
    length: u32,
    token_type: u32,
    modifiers: u32,
}

/// Walks a text once, keeping the line and the client column of a byte offset.
struct Walker<'a> {
    text: &'a str,
    byte: usize,
    line: u32,
    column: u32,
    encoding: ColumnEncoding,
}

impl Walker<'_> {
    fn advance(&mut self, target: usize) {
        for character in self.text[self.byte..target].chars() {
            if character == '\n' {
                self.line += 1;
                self.column = 0;
            } else {
                self.column += width(character, self.encoding);
            }
        }
        self.byte = target;
    }
}

fn width(character: char, encoding: ColumnEncoding) -> u32 {
    match encoding {
        ColumnEncoding::Utf8 => character.len_utf8() as u32,
        ColumnEncoding::Utf16 => character.len_utf16() as u32,
    }
}

/// The highlighter's tokens (byte ranges, in order) as tokens of one line each.
fn line_tokens(text: &str, tokens: &[Token], encoding: ColumnEncoding) -> Vec<LineToken> {
    let mut walker = Walker {
        text,
        byte: 0,
        line: 0,
        column: 0,
        encoding,
    };
    let mut found = Vec::with_capacity(tokens.len());
    for token in tokens {
        let (start, end) = (token.start as usize, token.end as usize);
        let fits = start >= walker.byte && end <= text.len();
        if !fits || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        walker.advance(start);
        let mut piece_start = start;
        while piece_start < end {
            let newline = text[piece_start..end].find('\n').map(|at| piece_start + at);
            let piece_end = newline.unwrap_or(end);
            let piece = &text[piece_start..piece_end];
            let piece = piece.strip_suffix('\r').unwrap_or(piece);
            let length: u32 = piece.chars().map(|c| width(c, encoding)).sum();
            if length > 0 {
                found.push(LineToken {
                    line: walker.line,
                    start: walker.column,
                    length,
                    token_type: token.token_type as u32,
                    modifiers: token.modifiers.0,
                });
            }
            piece_start = newline.map_or(end, |newline| newline + 1);
            walker.advance(piece_start);
        }
    }
    found
}

/// The tokens that overlap `range`.
fn within(tokens: Vec<LineToken>, range: Range) -> Vec<LineToken> {
    let start = (range.start.line, range.start.character);
    let end = (range.end.line, range.end.character);
    tokens
        .into_iter()
        .filter(|token| {
            (token.line, token.start + token.length) > start && (token.line, token.start) < end
        })
        .collect()
}

/// LSP's relative encoding: each token's line and start as deltas from the previous token.
fn relative(tokens: &[LineToken]) -> Vec<SemanticToken> {
    let (mut line, mut start) = (0, 0);
    tokens
        .iter()
        .map(|token| {
            let delta_line = token.line - line;
            let delta_start = if delta_line == 0 {
                token.start - start
            } else {
                token.start
            };
            (line, start) = (token.line, token.start);
            SemanticToken {
                delta_line,
                delta_start,
                length: token.length,
                token_type: token.token_type,
                token_modifiers_bitset: token.modifiers,
            }
        })
        .collect()
}

/// The edit that turns `old` into `new`: the common prefix and suffix kept, the middle replaced
/// (offsets and counts in the flat array's integers, five per token). None when they are equal.
fn edits(old: &[SemanticToken], new: &[SemanticToken]) -> Vec<SemanticTokensEdit> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    if prefix == old.len() && prefix == new.len() {
        return Vec::new();
    }
    vec![SemanticTokensEdit {
        start: 5 * prefix as u32,
        delete_count: 5 * (old.len() - prefix - suffix) as u32,
        data: Some(new[prefix..new.len() - suffix].to_vec()),
    }]
}

/// The last full result sent per document, for `full/delta`. A document's entry goes when it is
/// closed.
#[derive(Default)]
pub(super) struct SentTokens {
    sent: Mutex<HashMap<Uri, SemanticTokens>>,
    next_result: AtomicU64,
}

impl SentTokens {
    /// Keeps `data` as the document's last result; the result to send.
    fn remember(&self, uri: Uri, data: Vec<SemanticToken>) -> SemanticTokens {
        let number = self.next_result.fetch_add(1, Ordering::Relaxed);
        let tokens = SemanticTokens {
            result_id: Some(number.to_string()),
            data,
        };
        self.sent.lock().insert(uri, tokens.clone());
        tokens
    }

    pub(super) fn forget(&self, uri: &Uri) {
        self.sent.lock().remove(uri);
    }
}

/// What `full/delta` answers: the edits when the client's previous result is the one kept,
/// else the whole result.
pub(super) enum DeltaAnswer {
    Edits(SemanticTokensDelta),
    Whole(SemanticTokens),
}

impl State {
    /// The server's text of a document and its language: the editor's buffer when the world
    /// holds it, else the file on disk. `None` for a document the editor has open that the
    /// world refused (over the size cap, not source: its text is not known here), a file over
    /// the cap, or no language.
    fn document_text(&self, uri: &Uri) -> Option<(Language, String)> {
        let (root, relative) = self.root_of(&proto::path_of(uri)?)?;
        let text = match root.world.buffer_text(&relative) {
            Some(text) => text,
            None if self.diagnostics.is_open(uri) => return None,
            None => {
                let limit = root.world.config().max_file_size;
                let absolute = root.world.root().join(relative.as_str());
                let (bytes, truncated) =
                    codegraph_world::walk::read_prefix(&absolute, limit).ok()?;
                if truncated {
                    return None;
                }
                String::from_utf8(bytes).ok()?
            }
        };
        let indexed = root
            .world
            .snapshot()
            .file(&relative)
            .map(|file| file.language);
        let language = indexed.or_else(|| {
            codegraph_lang::header_language(Path::new(relative.as_str()), &text, false)
        })?;
        Some((language, text))
    }

    /// The document's tokens, one line each; `None` when it has none to give (see the module
    /// doc).
    fn line_tokens(&self, uri: &Uri) -> Option<Vec<LineToken>> {
        let (language, text) = self.document_text(uri)?;
        codegraph_world::work::slow_for_tests(&text);
        let deadline = Instant::now() + HIGHLIGHT_DEADLINE;
        match highlight::highlight(language, &text, deadline) {
            Ok(tokens) => Some(line_tokens(&text, &tokens, self.encoding())),
            Err(reason) => {
                tracing::warn!("semantic tokens of {}: {reason:?}", uri.as_str());
                None
            }
        }
    }

    /// `semanticTokens/full`, kept as the document's last result.
    pub(super) fn semantic_tokens_full(&self, uri: &Uri) -> Option<SemanticTokens> {
        let tokens = self.line_tokens(uri)?;
        Some(
            self.semantic_tokens
                .remember(uri.clone(), relative(&tokens)),
        )
    }

    /// `semanticTokens/range`: the tokens overlapping `range` (no result id: a range result is
    /// no base for a delta).
    pub(super) fn semantic_tokens_range(&self, uri: &Uri, range: Range) -> Option<SemanticTokens> {
        let tokens = within(self.line_tokens(uri)?, range);
        Some(SemanticTokens {
            result_id: None,
            data: relative(&tokens),
        })
    }

    /// `semanticTokens/full/delta` against `previous`, the client's last result id.
    pub(super) fn semantic_tokens_delta(&self, uri: &Uri, previous: &str) -> Option<DeltaAnswer> {
        let data = relative(&self.line_tokens(uri)?);
        let old = self.semantic_tokens.sent.lock().get(uri).cloned();
        let tokens = self.semantic_tokens.remember(uri.clone(), data);
        match old {
            Some(old) if old.result_id.as_deref() == Some(previous) => {
                Some(DeltaAnswer::Edits(SemanticTokensDelta {
                    edits: edits(&old.data, &tokens.data),
                    result_id: tokens.result_id,
                }))
            }
            _ => Some(DeltaAnswer::Whole(tokens)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codegraph_lang::highlight::TokenModifiers;

    fn token(start: u32, end: u32, token_type: TokenType) -> Token {
        Token {
            start,
            end,
            token_type,
            modifiers: TokenModifiers::NONE,
        }
    }

    fn show(tokens: &[LineToken]) -> Vec<(u32, u32, u32, u32)> {
        tokens
            .iter()
            .map(|token| (token.line, token.start, token.length, token.token_type))
            .collect()
    }

    /// A token over three lines is three tokens; columns and lengths count UTF-16 units (an
    /// emoji is two), or bytes for a UTF-8 client; a `\r` before a newline is no part of one.
    #[test]
    fn multi_line_tokens_split_per_line_in_the_clients_columns() {
        let text = "é = \"😀a\r\nbc\n\nd\" x";
        let string = text.find('"').unwrap() as u32;
        let end = text.rfind('"').unwrap() as u32 + 1;
        let tokens = [token(string, end, TokenType::String)];
        let string_type = TokenType::String as u32;
        assert_eq!(
            show(&line_tokens(text, &tokens, ColumnEncoding::Utf16)),
            [
                (0, 4, 4, string_type),
                (1, 0, 2, string_type),
                (3, 0, 2, string_type)
            ]
        );
        assert_eq!(
            show(&line_tokens(text, &tokens, ColumnEncoding::Utf8)),
            [
                (0, 5, 6, string_type),
                (1, 0, 2, string_type),
                (3, 0, 2, string_type)
            ]
        );
    }

    #[test]
    fn relative_encoding_and_the_delta_of_two_results() {
        let tokens = [
            LineToken {
                line: 0,
                start: 0,
                length: 2,
                token_type: 10,
                modifiers: 0,
            },
            LineToken {
                line: 0,
                start: 3,
                length: 4,
                token_type: 7,
                modifiers: 0,
            },
            LineToken {
                line: 2,
                start: 4,
                length: 1,
                token_type: 5,
                modifiers: 4,
            },
        ];
        let encoded = relative(&tokens);
        let flat: Vec<[u32; 5]> = encoded
            .iter()
            .map(|t| {
                [
                    t.delta_line,
                    t.delta_start,
                    t.length,
                    t.token_type,
                    t.token_modifiers_bitset,
                ]
            })
            .collect();
        assert_eq!(flat, [[0, 0, 2, 10, 0], [0, 3, 4, 7, 0], [2, 4, 1, 5, 4]]);

        let mut changed = encoded.clone();
        changed[1].length = 6;
        assert_eq!(
            edits(&encoded, &changed),
            [SemanticTokensEdit {
                start: 5,
                delete_count: 5,
                data: Some(vec![changed[1]]),
            }]
        );
        assert_eq!(edits(&encoded, &encoded), []);
        assert_eq!(
            edits(&encoded, &encoded[..2]),
            [SemanticTokensEdit {
                start: 10,
                delete_count: 5,
                data: Some(vec![]),
            }]
        );
    }
}
