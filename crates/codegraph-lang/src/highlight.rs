//! Syntax highlighting for the editor's semantic tokens: each language's highlight queries run
//! by tree-sitter's highlighter (`tree-sitter-highlight`), the captures mapped to a small set of
//! token types and modifiers, flattened into non-overlapping byte ranges.
//!
//! The queries are the grammars' own (`HIGHLIGHTS_QUERY`, with their locals and injections
//! queries where they ship them), composed as each grammar's `tree-sitter.json` composes them
//! (C++ over C, TypeScript and TSX over JavaScript); Kotlin's grammar ships none, so
//! `queries/kotlin/highlights.scm` is ours. Each language's configuration is compiled on first
//! use; every one is compiled in a test.
//!
//! Bounded: a highlight checks the request's cancellation (`cancel::checkpoint`) and its
//! deadline every few events, and a deadline passed is an ordinary [`NotHighlighted`] answer.
//! (Parsing itself is bounded by the size cap the callers apply.)
//!
//! Architecture invariant: no protocol types. The token types are named after what they mean;
//! the LSP door maps them to its legend.

use std::sync::OnceLock;
use std::time::Instant;

use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use crate::{LANGUAGES, Language};

/// What a token is, for the editor's colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenType {
    Namespace,
    Type,
    Class,
    Decorator,
    Parameter,
    Variable,
    Property,
    Function,
    Method,
    Macro,
    Keyword,
    Modifier,
    Comment,
    String,
    Number,
    Regexp,
    Operator,
}

impl TokenType {
    /// Every token type a highlight can give, in a fixed order (the LSP legend's).
    pub const ALL: [TokenType; 17] = [
        TokenType::Namespace,
        TokenType::Type,
        TokenType::Class,
        TokenType::Decorator,
        TokenType::Parameter,
        TokenType::Variable,
        TokenType::Property,
        TokenType::Function,
        TokenType::Method,
        TokenType::Macro,
        TokenType::Keyword,
        TokenType::Modifier,
        TokenType::Comment,
        TokenType::String,
        TokenType::Number,
        TokenType::Regexp,
        TokenType::Operator,
    ];
}

/// A set of [`TokenModifier`]s, one bit each (bit `n` is `TokenModifier::ALL[n]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TokenModifiers(pub u32);

/// What more a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenModifier {
    /// The name being defined (`type.definition`, `property.definition`).
    Declaration,
    /// A constant.
    Readonly,
    /// The language's own (`function.builtin`, `self`, `true`).
    DefaultLibrary,
    /// A documentation comment.
    Documentation,
}

impl TokenModifier {
    pub const ALL: [TokenModifier; 4] = [
        TokenModifier::Declaration,
        TokenModifier::Readonly,
        TokenModifier::DefaultLibrary,
        TokenModifier::Documentation,
    ];

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl TokenModifiers {
    pub const NONE: TokenModifiers = TokenModifiers(0);

    const fn of(modifiers: &[TokenModifier]) -> TokenModifiers {
        let mut bits = 0;
        let mut index = 0;
        while index < modifiers.len() {
            bits |= modifiers[index].bit();
            index += 1;
        }
        TokenModifiers(bits)
    }

    pub fn contains(self, modifier: TokenModifier) -> bool {
        self.0 & modifier.bit() != 0
    }
}

/// One highlighted range of a text: bytes `start..end`, never overlapping another token, in
/// order. It may span lines (a block comment, a multi-line string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub start: u32,
    pub end: u32,
    pub token_type: TokenType,
    pub modifiers: TokenModifiers,
}

/// Why a text has no tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotHighlighted {
    /// The highlight ran past its deadline.
    DeadlinePassed,
    /// The language's highlight queries do not compile (a bug: the tests compile every one).
    Query(String),
    /// The highlighter failed on this text.
    Failed,
}

use TokenModifier::{Declaration, DefaultLibrary, Documentation, Readonly};
use TokenType as T;

/// The capture names we recognise and what each gives. tree-sitter-highlight matches a capture
/// (`function.method.builtin`) to the recognised name with the most of its dotted parts; on a tie
/// the earlier one here wins (so `keyword.operator` is a keyword, `keyword.type` too). Captures
/// that match none (punctuation, `embedded`, `label`, `tag`, `escape` on its own) give no token:
/// the enclosing capture's token goes on over them, or the editor's own grammar colours them.
const HIGHLIGHT_NAMES: &[(&str, TokenType, TokenModifiers)] = &[
    ("keyword", T::Keyword, TokenModifiers::NONE),
    ("conditional", T::Keyword, TokenModifiers::NONE),
    ("repeat", T::Keyword, TokenModifiers::NONE),
    ("include", T::Keyword, TokenModifiers::NONE),
    ("exception", T::Keyword, TokenModifiers::NONE),
    ("preproc", T::Keyword, TokenModifiers::NONE),
    ("keyword.modifier", T::Modifier, TokenModifiers::NONE),
    ("type.qualifier", T::Modifier, TokenModifiers::NONE),
    ("storageclass", T::Modifier, TokenModifiers::NONE),
    ("attribute", T::Decorator, TokenModifiers::NONE),
    ("comment", T::Comment, TokenModifiers::NONE),
    (
        "comment.documentation",
        T::Comment,
        TokenModifiers::of(&[Documentation]),
    ),
    ("constant", T::Variable, TokenModifiers::of(&[Readonly])),
    (
        "constant.builtin",
        T::Variable,
        TokenModifiers::of(&[Readonly, DefaultLibrary]),
    ),
    (
        "boolean",
        T::Variable,
        TokenModifiers::of(&[Readonly, DefaultLibrary]),
    ),
    ("constant.macro", T::Macro, TokenModifiers::NONE),
    ("constructor", T::Class, TokenModifiers::NONE),
    ("function", T::Function, TokenModifiers::NONE),
    (
        "function.builtin",
        T::Function,
        TokenModifiers::of(&[DefaultLibrary]),
    ),
    ("function.macro", T::Macro, TokenModifiers::NONE),
    ("function.special", T::Macro, TokenModifiers::NONE),
    ("function.method", T::Method, TokenModifiers::NONE),
    (
        "function.method.builtin",
        T::Method,
        TokenModifiers::of(&[DefaultLibrary]),
    ),
    ("method", T::Method, TokenModifiers::NONE),
    ("module", T::Namespace, TokenModifiers::NONE),
    (
        "module.builtin",
        T::Namespace,
        TokenModifiers::of(&[DefaultLibrary]),
    ),
    ("namespace", T::Namespace, TokenModifiers::NONE),
    ("number", T::Number, TokenModifiers::NONE),
    ("float", T::Number, TokenModifiers::NONE),
    ("operator", T::Operator, TokenModifiers::NONE),
    ("property", T::Property, TokenModifiers::NONE),
    (
        "property.definition",
        T::Property,
        TokenModifiers::of(&[Declaration]),
    ),
    ("field", T::Property, TokenModifiers::NONE),
    ("variable.member", T::Property, TokenModifiers::NONE),
    ("tag.attribute", T::Property, TokenModifiers::NONE),
    ("string", T::String, TokenModifiers::NONE),
    ("character", T::String, TokenModifiers::NONE),
    ("string.regexp", T::Regexp, TokenModifiers::NONE),
    ("string.special.regex", T::Regexp, TokenModifiers::NONE),
    ("type", T::Type, TokenModifiers::NONE),
    (
        "type.builtin",
        T::Type,
        TokenModifiers::of(&[DefaultLibrary]),
    ),
    (
        "type.definition",
        T::Type,
        TokenModifiers::of(&[Declaration]),
    ),
    ("variable", T::Variable, TokenModifiers::NONE),
    (
        "variable.builtin",
        T::Variable,
        TokenModifiers::of(&[DefaultLibrary]),
    ),
    ("variable.parameter", T::Parameter, TokenModifiers::NONE),
    ("parameter", T::Parameter, TokenModifiers::NONE),
];

/// Where a language's highlight queries come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryOrigin {
    /// The grammar crate's own `HIGHLIGHTS_QUERY` (composed as its `tree-sitter.json` says).
    Grammar,
    /// Ours, `queries/<language>/highlights.scm`: the grammar ships none.
    Codegraph,
}

/// A language's highlight queries: highlights, injections, locals (each possibly several files,
/// concatenated in this order; a later pattern wins over an earlier one for the same node).
pub struct HighlightSources {
    pub origin: QueryOrigin,
    pub highlights: &'static [&'static str],
    pub injections: &'static [&'static str],
    pub locals: &'static [&'static str],
}

/// The grammar's own queries, or ours where it ships none (Kotlin).
pub fn sources(language: Language) -> HighlightSources {
    let grammar = |highlights, injections, locals| HighlightSources {
        origin: QueryOrigin::Grammar,
        highlights,
        injections,
        locals,
    };
    match language {
        Language::Python => grammar(&[tree_sitter_python::HIGHLIGHTS_QUERY], &[], &[]),
        Language::JavaScript | Language::TypeScript | Language::Tsx => ecma_sources(language),
        Language::Rust => grammar(
            &[tree_sitter_rust::HIGHLIGHTS_QUERY],
            &[tree_sitter_rust::INJECTIONS_QUERY],
            &[],
        ),
        Language::Go => grammar(&[tree_sitter_go::HIGHLIGHTS_QUERY], &[], &[]),
        Language::Java => grammar(&[tree_sitter_java::HIGHLIGHTS_QUERY], &[], &[]),
        Language::C => grammar(&[tree_sitter_c::HIGHLIGHT_QUERY], &[], &[]),
        Language::Cpp => grammar(
            &[
                tree_sitter_c::HIGHLIGHT_QUERY,
                tree_sitter_cpp::HIGHLIGHT_QUERY,
            ],
            &[],
            &[],
        ),
        Language::CSharp => grammar(&[tree_sitter_c_sharp::HIGHLIGHTS_QUERY], &[], &[]),
        Language::Ruby => grammar(
            &[tree_sitter_ruby::HIGHLIGHTS_QUERY],
            &[],
            &[tree_sitter_ruby::LOCALS_QUERY],
        ),
        Language::Php => grammar(
            &[tree_sitter_php::HIGHLIGHTS_QUERY],
            &[tree_sitter_php::INJECTIONS_QUERY],
            &[],
        ),
        Language::Kotlin => HighlightSources {
            origin: QueryOrigin::Codegraph,
            highlights: &[include_str!("queries/kotlin/highlights.scm")],
            injections: &[],
            locals: &[],
        },
        Language::Swift => grammar(
            &[tree_sitter_swift::HIGHLIGHTS_QUERY],
            &[tree_sitter_swift::INJECTIONS_QUERY],
            &[tree_sitter_swift::LOCALS_QUERY],
        ),
        Language::Scala => grammar(
            &[tree_sitter_scala::HIGHLIGHTS_QUERY],
            &[],
            &[tree_sitter_scala::LOCALS_QUERY],
        ),
        Language::Lua => grammar(
            &[tree_sitter_lua::HIGHLIGHTS_QUERY],
            &[tree_sitter_lua::INJECTIONS_QUERY],
            &[tree_sitter_lua::LOCALS_QUERY],
        ),
        Language::Bash => grammar(&[tree_sitter_bash::HIGHLIGHT_QUERY], &[], &[]),
    }
}

/// JavaScript, TypeScript and TSX, composed as each grammar's `tree-sitter.json` does.
fn ecma_sources(language: Language) -> HighlightSources {
    use tree_sitter_javascript as js;
    use tree_sitter_typescript as ts;
    let grammar = |highlights, injections, locals| HighlightSources {
        origin: QueryOrigin::Grammar,
        highlights,
        injections,
        locals,
    };
    match language {
        Language::JavaScript => grammar(
            &[js::HIGHLIGHT_QUERY, js::JSX_HIGHLIGHT_QUERY],
            &[js::INJECTIONS_QUERY],
            &[js::LOCALS_QUERY],
        ),
        Language::TypeScript => grammar(
            &[ts::HIGHLIGHTS_QUERY, js::HIGHLIGHT_QUERY],
            &[js::INJECTIONS_QUERY],
            &[ts::LOCALS_QUERY, js::LOCALS_QUERY],
        ),
        // TSX.
        _ => grammar(
            &[
                ts::HIGHLIGHTS_QUERY,
                js::JSX_HIGHLIGHT_QUERY,
                js::HIGHLIGHT_QUERY,
            ],
            &[js::INJECTIONS_QUERY],
            &[js::LOCALS_QUERY],
        ),
    }
}

type Configuration = Result<HighlightConfiguration, String>;

static CONFIGURATIONS: [OnceLock<Configuration>; LANGUAGES.len()] =
    [const { OnceLock::new() }; LANGUAGES.len()];

/// The language's highlight configuration, compiled on first use.
pub fn configuration(language: Language) -> Result<&'static HighlightConfiguration, &'static str> {
    let index = LANGUAGES
        .iter()
        .position(|spec| spec.language == language)
        .expect("every language has a spec");
    CONFIGURATIONS[index]
        .get_or_init(|| compile(language))
        .as_ref()
        .map_err(String::as_str)
}

fn compile(language: Language) -> Configuration {
    let sources = sources(language);
    let spec = language.spec();
    let mut configuration = HighlightConfiguration::new(
        (spec.grammar)(),
        spec.name,
        &sources.highlights.concat(),
        &sources.injections.concat(),
        &sources.locals.concat(),
    )
    .map_err(|error| format!("{} highlight queries: {error}", spec.name))?;
    let names: Vec<&str> = HIGHLIGHT_NAMES.iter().map(|(name, ..)| *name).collect();
    configuration.configure(&names);
    Ok(configuration)
}

/// The language an injection names (`#set! injection.language "rust"`), among ours.
fn injected(name: &str) -> Option<&'static HighlightConfiguration> {
    let language = match name {
        "js" | "jsx" => Language::JavaScript,
        "ts" => Language::TypeScript,
        "sh" | "shell" => Language::Bash,
        "c++" => Language::Cpp,
        "c_sharp" | "cs" => Language::CSharp,
        "py" => Language::Python,
        "rb" => Language::Ruby,
        "kt" => Language::Kotlin,
        name => Language::from_name(name)?,
    };
    configuration(language).ok()
}

/// How many highlight events pass between two checks of the deadline and the cancellation.
const EVENTS_PER_CHECK: usize = 64;

/// The tokens of `text` in `language`, or why there are none (the deadline passed, the
/// highlighter failed). A cancelled request unwinds at a checkpoint (`cancel::run`).
pub fn highlight(
    language: Language,
    text: &str,
    deadline: Instant,
) -> Result<Vec<Token>, NotHighlighted> {
    let configuration =
        configuration(language).map_err(|error| NotHighlighted::Query(error.into()))?;
    let mut highlighter = Highlighter::new();
    let events = highlighter
        .highlight(configuration, text.as_bytes(), None, None, |name| {
            injected(name)
        })
        .map_err(|_| NotHighlighted::Failed)?;
    let mut tokens = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (step, event) in events.enumerate() {
        if step.is_multiple_of(EVENTS_PER_CHECK) {
            codegraph_model::cancel::checkpoint();
            if Instant::now() >= deadline {
                return Err(NotHighlighted::DeadlinePassed);
            }
        }
        match event.map_err(|_| NotHighlighted::Failed)? {
            HighlightEvent::HighlightStart(highlight) => open.push(highlight.0),
            HighlightEvent::HighlightEnd => {
                open.pop();
            }
            HighlightEvent::Source { start, end } => {
                if let Some(&name) = open.last() {
                    let (_, token_type, modifiers) = HIGHLIGHT_NAMES[name];
                    push(&mut tokens, start as u32, end as u32, token_type, modifiers);
                }
            }
        }
    }
    Ok(tokens)
}

/// Adds a token, joined to the previous one when it goes on from it with the same type (a string
/// cut where an escape inside it matched the same name).
fn push(
    tokens: &mut Vec<Token>,
    start: u32,
    end: u32,
    token_type: TokenType,
    modifiers: TokenModifiers,
) {
    if start >= end {
        return;
    }
    if let Some(last) = tokens.last_mut()
        && last.end == start
        && last.token_type == token_type
        && last.modifiers == modifiers
    {
        last.end = end;
        return;
    }
    tokens.push(Token {
        start,
        end,
        token_type,
        modifiers,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Every language's highlight queries compile against its grammar.
    #[test]
    fn every_configuration_compiles() {
        let failures: Vec<String> = LANGUAGES
            .iter()
            .filter_map(|spec| configuration(spec.language).err().map(str::to_string))
            .collect();
        assert_eq!(failures, Vec::<String>::new());
    }

    fn show(language: Language, text: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        highlight(language, text, deadline)
            .unwrap()
            .iter()
            .map(|token| {
                let modifiers: Vec<String> = TokenModifier::ALL
                    .iter()
                    .filter(|modifier| token.modifiers.contains(**modifier))
                    .map(|modifier| format!(" {modifier:?}"))
                    .collect();
                format!(
                    "{} {:?}{}",
                    &text[token.start as usize..token.end as usize],
                    token.token_type,
                    modifiers.concat()
                )
            })
            .collect()
    }

    /// Kotlin's grammar ships no highlights: ours name its declarations, calls, types and
    /// keywords.
    #[test]
    fn kotlin_uses_our_queries() {
        assert_eq!(
            show(
                Language::Kotlin,
                "package a.b\n\nclass Greeter(val name: String) {\n    fun greet(times: Int): String = \"hi $name\" // twice\n}\n"
            ),
            [
                "package Keyword",
                "a Namespace",
                "b Namespace",
                "class Keyword",
                "Greeter Type Declaration",
                "val Keyword",
                "name Parameter",
                "String Type",
                "fun Keyword",
                "greet Function",
                "times Parameter",
                "Int Type",
                "String Type",
                "= Operator",
                "\"hi $name\" String",
                "// twice Comment",
            ]
        );
        assert_eq!(sources(Language::Kotlin).origin, QueryOrigin::Codegraph);
        assert_eq!(sources(Language::Rust).origin, QueryOrigin::Grammar);
    }

    /// A deadline already passed gives no tokens, not a hang.
    #[test]
    fn a_passed_deadline_gives_no_tokens() {
        assert_eq!(
            highlight(Language::Rust, "fn main() {}", Instant::now()),
            Err(NotHighlighted::DeadlinePassed)
        );
    }
}
