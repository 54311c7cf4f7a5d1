//! Per-file extraction: one pass of the language's query over a syntax tree yields a
//! [`FileSummary`] (definitions, references, imports, inheritance, bindings). It never fails: a
//! file with syntax errors yields what parses plus a list of [`Problem`]s.
//!
//! Architecture invariant: a summary depends on the file's own text only, so it can be cached by
//! content hash and computed in parallel. Everything that needs other files is in `graph`.
//!
//! The crate's files, in the order extraction runs:
//! - `extract.rs`: the entry points ([`extract`], [`extract_text`], [`extract_keeping`]), the
//!   file's boundary (`contain`) and the steps around the query (syntax errors, Rust's
//!   `#[cfg]`-disabled items and `#[path]` modules).
//! - `captures.rs`: the query's matches read by role and gathered per capture family
//!   (`captures/bindings.rs`, `captures/imports.rs`); `definition.rs` reads a definition's
//!   signature, doc and return type, `text.rs` the text of names, types and receivers.
//! - `build.rs`: the summary built from the captures (parents, scopes, owners, repeats dropped).
//! - `reextract.rs`: an editor buffer's re-extraction after an edit ([`reextract`]), the query
//!   re-run over the edited region only.
//! - `rust.rs`, `rust_path.rs`, `go.rs`, `javascript.rs`: what each language's syntax says that
//!   its queries alone cannot.

use codegraph_model::Name;
use serde::{Deserialize, Serialize};

use codegraph_lang::Language;
use codegraph_model::{EntityKind, FileClass, LineSpan, LineTable, Span};

mod build;
mod captures;
mod definition;
mod extract;
mod go;
mod javascript;
mod reextract;
pub mod rust;
mod rust_path;
mod text;

pub use extract::{extract, extract_keeping, extract_text};
pub use reextract::{Captures, reextract};
pub use text::{top_level_split, value_type};

/// Everything extracted from one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileSummary {
    pub language: Language,
    /// The declared package or namespace (Java, Kotlin, Scala, C#, Go, PHP).
    pub package: Option<Name>,
    /// Definitions in document order; parents come before their children.
    pub defs: Vec<Def>,
    pub refs: Vec<Ref>,
    pub imports: Vec<Import>,
    pub inherits: Vec<Inherit>,
    pub bindings: Vec<Binding>,
    pub problems: Vec<Problem>,
    pub line_count: u32,
    /// Where the text's lines start: the lines and columns of every span here.
    pub lines: LineTable,
    /// Go's `//go:build` expression, when the file has one (see `lang::go_build`).
    pub build_constraint: Option<Name>,
    /// Rust modules declared with a `#[path]` attribute, in the default build
    /// (`index/rust_path.rs`).
    pub path_modules: Vec<PathModule>,
    /// Extraction failed on this file (a bug of ours, caught at the file's boundary:
    /// `contain`): the summary holds nothing else, and the doors report the file.
    pub failure: Option<Box<str>>,
}

/// A Rust `#[path = "../src/lexical/mod.rs"] mod lexical;`: the file is a module of this one's
/// crate at `module`, wherever it lies.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PathModule {
    /// The module's path below this file's module: the inline modules around the declaration,
    /// then its name (`lexical`, `outer::lexical`).
    pub module: Name,
    /// The file, as written, relative to the directory the declaration reads from (this file's
    /// directory, and for a declaration inside inline modules, their directories below it).
    pub path: Name,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub kind: EntityKind,
    pub name: Name,
    /// Index of the enclosing definition in [`FileSummary::defs`].
    pub parent: Option<u32>,
    /// The type this definition belongs to when it is not lexically inside it (set at the top
    /// level only), or the object literal that holds a JavaScript/TypeScript function, at any
    /// depth (`const traps = { get() {} }`: `traps`; `{}` for an object that holds no name).
    pub owner: Option<Name>,
    pub span: Span,
    pub name_span: Span,
    /// The signature, then the doc: one allocation for both ([`Def::signature`], [`Def::doc`];
    /// two strings would be two allocations and about a quarter of a definition's memory).
    pub text: Box<str>,
    /// Where the doc starts in `text`; `u32::MAX` when there is none.
    pub doc_at: u32,
    /// The declared return type of a function or method, normalised by [`value_type`]
    /// (`Result<Foo, E>` and `Option<&mut Self>` are `Foo` and `Self`); resolution types call
    /// chains with it.
    pub returns: Option<Name>,
    /// The trait of the `impl Trait for Type` block an out-of-line method is in, as written
    /// (`Automaton`, `fmt::Debug`, `From<f64>`); `None` in an inherent `impl Type`.
    pub implements: Option<Name>,
    /// Left out of the default build by a Rust `#[cfg(...)]` on it or around it (see
    /// `lang::rust_cfg`): a variant that loses to its active twin.
    pub disabled: bool,
    /// A JavaScript/TypeScript arrow function: `this` inside is the enclosing function's, not
    /// its owner's (`{ now: () => this.clock() }` in a method of a class).
    #[serde(default)]
    pub arrow: bool,
}

impl Def {
    /// The definition's header as written, whitespace collapsed (`def get(cls):`).
    pub fn signature(&self) -> &str {
        match self.doc() {
            Some(_) => &self.text[..self.doc_at as usize],
            None => &self.text,
        }
    }

    /// The comment or docstring that documents it, cleaned.
    pub fn doc(&self) -> Option<&str> {
        self.text.get(self.doc_at as usize..)
    }

    fn with_text(&mut self, signature: String, doc: Option<String>) {
        match doc {
            Some(doc) => {
                let mut text = signature;
                self.doc_at = text.len() as u32;
                text.push_str(&doc);
                self.text = text.into_boxed_str();
            }
            None => {
                self.doc_at = u32::MAX;
                self.text = signature.into_boxed_str();
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RefKind {
    Call,
    Type,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ref {
    pub kind: RefKind,
    pub name: Name,
    /// Source text of the receiver (`self`, `os.path`, `user`), whitespace removed.
    pub receiver: Option<Name>,
    /// The span of the called or referenced name.
    pub span: Span,
    /// The innermost enclosing definition, [`Ref::scope`]: `u32::MAX` at the top level of the
    /// file (four bytes where an `Option<u32>` took eight; references are the graph's most
    /// numerous record).
    pub scope: u32,
    /// The receiver is a path (`util::f()`, `Type::new()`, `\\App\\f()`), not a value.
    pub path: bool,
}

impl Ref {
    pub fn new(
        kind: RefKind,
        name: Name,
        receiver: Option<Name>,
        span: Span,
        scope: Option<u32>,
        path: bool,
    ) -> Ref {
        Ref {
            kind,
            name,
            receiver,
            span,
            // No file has four billion definitions: the index of one is never the marker.
            scope: scope.unwrap_or(u32::MAX),
            path,
        }
    }

    /// The innermost enclosing definition (its index in [`FileSummary::defs`]); `None` at the
    /// top level of the file.
    pub fn scope(&self) -> Option<u32> {
        (self.scope != u32::MAX).then_some(self.scope)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Import {
    /// Module path or file specifier, quotes stripped (`os.path`, `./util`, `crate::a::b`).
    pub path: Name,
    /// An imported name (`from m import name`, `import a.b.Name` in Java is split by resolution).
    pub name: Option<Name>,
    pub alias: Option<Name>,
    pub wildcard: bool,
    pub span: Span,
    pub scope: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InheritKind {
    Extends,
    Implements,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inherit {
    /// Index of the inheriting type in [`FileSummary::defs`], when it is defined in this file.
    pub child: Option<u32>,
    /// The child's name when it is given explicitly (`impl Trait for Type`).
    pub child_name: Option<Name>,
    /// The base's name as written, maybe qualified (`models.Base`).
    pub base: Name,
    pub kind: InheritKind,
    pub span: Span,
}

/// `name` holds a value of type `type_name` within `scope` (a function, or a type for fields).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Binding {
    pub name: Name,
    pub type_name: Name,
    /// [`Binding::scope`], `u32::MAX` for the file's top level (as [`Ref::scope`]; with
    /// [`Binding::region`] packed, a binding takes 24 bytes; as two options they alone would
    /// take 20).
    pub scope: u32,
    pub kind: BindingKind,
    /// [`Binding::region`]: the start and one past the end, so that `None` takes no room.
    pub region: Option<(u32, std::num::NonZeroU32)>,
}

impl Binding {
    pub fn new(
        name: Name,
        type_name: Name,
        scope: Option<u32>,
        kind: BindingKind,
        region: Option<(u32, u32)>,
    ) -> Binding {
        Binding {
            name,
            type_name,
            scope: scope.unwrap_or(u32::MAX),
            kind,
            // A region ends inside a file, below `u32::MAX` (`World::open` caps file sizes).
            region: region.and_then(|(start, end)| {
                Some((start, std::num::NonZeroU32::MIN.checked_add(end)?))
            }),
        }
    }

    /// The innermost definition it holds in (its index in [`FileSummary::defs`]: a function,
    /// or a type for fields); `None` at the top level of the file.
    pub fn scope(&self) -> Option<u32> {
        (self.scope != u32::MAX).then_some(self.scope)
    }

    /// The bytes of [`Binding::scope`] where it holds, when not all of them: a Rust pattern's
    /// binding in its `match` arm or `if let`/`while let` body (`ClassSet::Item(ref x) =>
    /// x.span()`, the next arm binding `x` to another variant's field).
    pub fn region(&self) -> Option<(u32, u32)> {
        self.region.map(|(start, end)| (start, end.get() - 1))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BindingKind {
    /// A declared type: a typed parameter, field or variable, a constructor call.
    Type,
    /// `type_name` is the expression the name was assigned (`let x = self.make()?`,
    /// `x := NewFoo()`), whose type resolution infers in one step.
    Value,
    /// `name` is a type parameter bounded by `type_name` (`A: Automaton`, `T extends Base`).
    Bound,
    /// `name` is bound by a variant pattern: `type_name` is the variant and the position
    /// (`Value::Number(0)` for `Value::Number(n)`), whose declared field type is its type.
    Variant,
    /// `name` is an untyped parameter of a callback passed to a call: `type_name` says where
    /// (see `callback_site`), and the callee's declared parameter type gives its type.
    Callback,
    /// `name` is a parameter or local of unknown type (`type_name` is empty): it shadows outer
    /// definitions of that name (`def run(callback): callback()` calls no `callback` function).
    Local,
    /// `name` is a type alias of `type_name` (TypeScript's `type ZodTypeAny = ZodType<any>`): a
    /// name in the type space, never a value's binding.
    Alias,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub line: u32,
    pub message: String,
}

impl FileSummary {
    /// The class of definition `index` of a file of class `file_class`: the file's class,
    /// except that a definition inside a test module (Rust's `#[cfg(test)] mod tests { ... }`)
    /// is a test.
    pub fn definition_class(&self, file_class: FileClass, index: u32) -> FileClass {
        if file_class != FileClass::Production {
            return file_class;
        }
        let mut current = Some(index);
        while let Some(position) = current {
            let Some(def) = self.defs.get(position as usize) else {
                break;
            };
            if def.kind == EntityKind::Module && matches!(def.name.as_str(), "tests" | "test") {
                return FileClass::Test;
            }
            current = def.parent;
        }
        file_class
    }

    pub fn empty(language: Language, text: &str) -> FileSummary {
        FileSummary {
            language,
            package: None,
            defs: Vec::new(),
            refs: Vec::new(),
            imports: Vec::new(),
            inherits: Vec::new(),
            bindings: Vec::new(),
            problems: Vec::new(),
            line_count: count_lines(text),
            lines: LineTable::new(text),
            build_constraint: match language {
                Language::Go => {
                    codegraph_lang::go_build::constraint_line(text).map(|line| Name::new(&line))
                }
                _ => None,
            },
            path_modules: Vec::new(),
            failure: None,
        }
    }

    /// Gives back the lists' spare capacity: a summary is built by pushing and then kept for
    /// as long as its file is indexed (a full index holds one per file; the slack of doubling
    /// growth is about a quarter of them).
    pub fn shrink_to_fit(&mut self) {
        self.defs.shrink_to_fit();
        self.refs.shrink_to_fit();
        self.imports.shrink_to_fit();
        self.inherits.shrink_to_fit();
        self.bindings.shrink_to_fit();
        self.problems.shrink_to_fit();
        self.path_modules.shrink_to_fit();
    }

    /// A span of this file with its lines and columns.
    pub fn locate(&self, span: Span) -> LineSpan {
        self.lines.locate(span)
    }

    /// The innermost definition whose span contains `byte`.
    pub fn innermost_def_at(&self, byte: u32) -> Option<u32> {
        build::innermost(&self.defs, byte, byte)
    }

    /// The names of `index` and its ancestors joined with dots (`Outer.Inner.method`).
    pub fn nested_name(&self, index: u32) -> String {
        let mut name = String::new();
        self.write_nested_name(index, &mut name);
        name
    }

    /// [`FileSummary::nested_name`], appended to `out`.
    pub fn write_nested_name(&self, index: u32, out: &mut String) {
        let mut parts: Vec<&str> = Vec::with_capacity(4);
        let mut current = Some(index);
        while let Some(position) = current {
            let def = &self.defs[position as usize];
            parts.push(def.name.as_str());
            if let Some(owner) = &def.owner {
                parts.push(owner.as_str());
            }
            current = def.parent;
        }
        for (at, part) in parts.iter().rev().enumerate() {
            if at > 0 {
                out.push('.');
            }
            out.push_str(part);
        }
    }
}

fn count_lines(text: &str) -> u32 {
    if text.is_empty() {
        return 0;
    }
    let newlines = text.bytes().filter(|byte| *byte == b'\n').count();
    (newlines + usize::from(!text.ends_with('\n'))) as u32
}
