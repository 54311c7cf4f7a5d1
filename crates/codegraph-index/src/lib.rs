//! Per-file extraction: one pass of the language's query over a syntax tree yields a
//! [`FileSummary`] (definitions, references, imports, inheritance, bindings). It never fails: a
//! file with syntax errors yields what parses plus a list of [`Problem`]s.
//!
//! Architecture invariant: a summary depends on the file's own text only, so it can be cached by
//! content hash and computed in parallel. Everything that needs other files is in `graph`.

use codegraph_model::Name;
use serde::{Deserialize, Serialize};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCursor, Tree};

use codegraph_lang::Language;
use codegraph_model::{EntityKind, FileClass, LineSpan, LineTable, Span};

mod go;
mod javascript;
pub mod rust;
mod rust_path;

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

const MAX_SIGNATURE: usize = 240;
/// Comment nodes read back from a definition for its doc.
const MAX_DOC_COMMENTS: usize = 64;
/// Matches start at most this deep in the syntax tree. Past about 2^15 levels tree-sitter's
/// query cursor slows down sharply (a `g(g(g(…)))` 45,000 deep would take seconds for one
/// 130 KiB file, an easy way for a hostile repository to stall indexing); real code is a few hundred
/// levels deep at most.
const MAX_START_DEPTH: u32 = 16_384;
const MAX_DOC: usize = 2000;
const MAX_RECEIVER: usize = 120;
const MAX_PROBLEMS: usize = 20;

/// Parses and extracts in one step.
pub fn extract_text(language: Language, text: &str) -> (FileSummary, Option<Tree>) {
    match codegraph_lang::syntax::parse(language, text) {
        Some(tree) => (extract(language, text, &tree), Some(tree)),
        None => {
            let mut summary = FileSummary::empty(language, text);
            summary.problems.push(Problem {
                line: 0,
                message: format!("the {} grammar could not be loaded", language.name()),
            });
            (summary, None)
        }
    }
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
                Language::Go => codegraph_lang::go_build::constraint_line(text).map(Name::new),
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
        innermost(&self.defs, byte, byte)
    }

    /// The names of `index` and its ancestors joined with dots (`Outer.Inner.method`).
    pub fn nested_name(&self, index: u32) -> String {
        let mut parts = Vec::new();
        let mut current = Some(index);
        while let Some(position) = current {
            let def = &self.defs[position as usize];
            parts.push(def.name.as_str());
            if let Some(owner) = &def.owner {
                parts.push(owner.as_str());
            }
            current = def.parent;
        }
        parts.reverse();
        parts.join(".")
    }
}

fn count_lines(text: &str) -> u32 {
    if text.is_empty() {
        return 0;
    }
    let newlines = text.bytes().filter(|byte| *byte == b'\n').count();
    (newlines + usize::from(!text.ends_with('\n'))) as u32
}

/// Extracts the summary of one parsed file.
pub fn extract(language: Language, text: &str, tree: &Tree) -> FileSummary {
    extract_with(language, text, tree, false).0
}

/// What extraction found before building the summary, kept by an editor buffer so that the next
/// edit re-runs the query only over the part of the file it touched ([`reextract`]).
#[derive(Clone, Default)]
pub struct Captures {
    raw: RawCaptures,
    /// The extraction these would have come from failed: the next one starts afresh.
    failed: bool,
}

/// Extracts a file and keeps the captures for [`reextract`].
pub fn extract_keeping(language: Language, text: &str, tree: &Tree) -> (FileSummary, Captures) {
    extract_with(language, text, tree, true)
}

/// Extracts a file; the captures are kept (a copy of them: `build` consumes its own) only when
/// `keep` asks, an editor buffer's case.
fn extract_with(
    language: Language,
    text: &str,
    tree: &Tree,
    keep: bool,
) -> (FileSummary, Captures) {
    contained(language, text, || {
        extract_unguarded(language, text, tree, keep)
    })
}

/// Runs one file's extraction at the file's boundary (`contain`): a panic in it leaves the
/// file a summary that says so, and nothing else.
fn contained(
    language: Language,
    text: &str,
    work: impl FnOnce() -> (FileSummary, Captures),
) -> (FileSummary, Captures) {
    let work = || {
        codegraph_model::contain::inject(text);
        work()
    };
    match codegraph_model::contain::file(work) {
        Ok(extracted) => extracted,
        Err(message) => {
            let mut summary = FileSummary::empty(language, text);
            summary.failure = Some(message.into());
            let captures = Captures {
                raw: RawCaptures::default(),
                failed: true,
            };
            (summary, captures)
        }
    }
}

fn extract_unguarded(
    language: Language,
    text: &str,
    tree: &Tree,
    keep: bool,
) -> (FileSummary, Captures) {
    let mut summary = FileSummary::empty(language, text);
    let spec = language.spec();
    let query = match spec.query() {
        Ok(query) => query,
        Err(error) => {
            summary.problems.push(Problem {
                line: 0,
                message: error.to_string(),
            });
            return (summary, Captures::default());
        }
    };
    let root = tree.root_node();
    collect_syntax_errors(root, &mut summary.problems);
    let raw = run_query(query, root, text, None, language);
    let disabled = disabled_ranges(language, root, text);
    let kept = if keep {
        raw.clone()
    } else {
        Default::default()
    };
    build(&mut summary, raw, text, spec.self_receivers, &disabled);
    summary.path_modules = path_modules(language, root, text, &disabled);
    summary.shrink_to_fit();
    (
        summary,
        Captures {
            raw: kept,
            failed: false,
        },
    )
}

fn run_query(
    query: &tree_sitter::Query,
    root: Node<'_>,
    text: &str,
    range: Option<std::ops::Range<usize>>,
    language: Language,
) -> RawCaptures {
    let capture_names = query.capture_names();
    let mut raw = RawCaptures {
        rust: language == Language::Rust,
        ..RawCaptures::default()
    };
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(MAX_START_DEPTH));
    if let Some(range) = range {
        cursor.set_byte_range(range);
    }
    let mut matches = cursor.matches(query, root, text.as_bytes());
    while let Some(found) = matches.next() {
        let mut item = MatchItem::default();
        for capture in found.captures() {
            let name = capture_names[capture.index as usize];
            item.assign(name, capture.node);
        }
        if !item.rejected {
            raw.add(item, text);
        }
    }
    raw
}

impl Captures {
    /// Moves every capture after an edit to where its text now is, and drops the captures the
    /// edit cuts into ([`reextract`] reads the edited region again).
    pub fn shift(&mut self, edit: &tree_sitter::InputEdit) {
        // A capture the edit cuts into is gone; [`reextract`] reads that region again.
        // A capture that strictly contains the edit (a container whose member is edited)
        // stretches with it; [`reextract`] keeps it when it re-reads only inside.
        let untouched = |span: &Span| {
            let (start, end) = (span.start_byte as usize, span.end_byte as usize);
            end <= edit.start_byte
                || start >= edit.old_end_byte.max(edit.start_byte + 1)
                || (start < edit.start_byte && edit.old_end_byte < end)
        };
        let shift = |span: &mut Span| {
            shift_byte(edit, &mut span.start_byte);
            shift_byte(edit, &mut span.end_byte);
        };
        let raw = &mut self.raw;
        raw.defs.retain(|def| untouched(&def.span));
        raw.impls.retain(|item| untouched(&item.span));
        raw.refs.retain(|item| untouched(&item.3));
        raw.bindings.retain(|item| untouched(&item.span));
        raw.imports.retain(|item| untouched(&item.4));
        raw.inherits.retain(|item| untouched(&item.3));
        raw.package.retain(|item| untouched(&item.1));
        for def in &mut raw.defs {
            shift(&mut def.span);
            shift(&mut def.name_span);
        }
        raw.impls.iter_mut().for_each(|item| shift(&mut item.span));
        raw.refs.iter_mut().for_each(|item| shift(&mut item.3));
        raw.bindings.iter_mut().for_each(|item| {
            shift(&mut item.span);
            if let Some(region) = &mut item.region {
                shift(region);
            }
            if let Some(declaration) = &mut item.declared_in {
                shift(declaration);
            }
        });
        raw.imports.iter_mut().for_each(|item| shift(&mut item.4));
        raw.inherits.iter_mut().for_each(|item| shift(&mut item.3));
        raw.package.iter_mut().for_each(|item| shift(&mut item.1));
    }
}

/// Tree-sitter's own rule for moving a byte past an edit.
fn shift_byte(edit: &tree_sitter::InputEdit, byte: &mut u32) {
    let offset = *byte as usize;
    if offset >= edit.old_end_byte {
        *byte = (offset + edit.new_end_byte - edit.old_end_byte) as u32;
    } else if offset > edit.start_byte {
        *byte = edit.new_end_byte as u32;
    }
}

/// Re-extracts after edits: the query runs only over the top-level nodes around `dirty` (the
/// edited bytes, in the new text), the captures elsewhere are reused (already [`Captures::shift`]ed).
/// Falls back to a full extraction when a capture reaches outside the re-read region.
pub fn reextract(
    language: Language,
    text: &str,
    tree: &Tree,
    captures: &mut Captures,
    dirty: std::ops::Range<usize>,
) -> FileSummary {
    if captures.failed {
        let (summary, fresh) = extract_keeping(language, text, tree);
        *captures = fresh;
        return summary;
    }
    let (summary, fresh) = contained(language, text, || {
        let summary = reextract_unguarded(language, text, tree, captures, dirty);
        (summary, std::mem::take(captures))
    });
    *captures = fresh;
    summary
}

fn reextract_unguarded(
    language: Language,
    text: &str,
    tree: &Tree,
    captures: &mut Captures,
    dirty: std::ops::Range<usize>,
) -> FileSummary {
    let spec = language.spec();
    let Ok(query) = spec.query() else {
        let (summary, fresh) = extract_keeping(language, text, tree);
        *captures = fresh;
        return summary;
    };
    let root = tree.root_node();
    let region = reread_region(root, dirty, text.len());
    let fresh = run_query(query, root, text, Some(region.clone()), language);
    let inside = |span: &Span| {
        region.start <= span.start_byte as usize && span.end_byte as usize <= region.end
    };
    // A container around the region (the `impl` whose method is re-read): its old capture,
    // stretched by `shift`, stays; the query finds it again, and that copy is dropped.
    let around = |span: &Span| {
        (span.start_byte as usize) <= region.start
            && region.end <= span.end_byte as usize
            && !inside(span)
    };
    // Each fresh capture is inside the region, or around it with its old copy still there.
    fn usable<T>(
        fresh: &[T],
        old: &[T],
        span: impl Fn(&T) -> Span,
        inside: impl Fn(&Span) -> bool,
        around: impl Fn(&Span) -> bool,
    ) -> bool {
        fresh.iter().all(|item| {
            let item_span = span(item);
            inside(&item_span)
                || (around(&item_span) && old.iter().any(|kept| span(kept) == item_span))
        })
    }
    let old = &captures.raw;
    let all_usable = usable(&fresh.defs, &old.defs, |def| def.span, inside, around)
        && usable(&fresh.impls, &old.impls, |item| item.span, inside, around)
        && usable(&fresh.refs, &old.refs, |item| item.3, inside, around)
        && usable(
            &fresh.bindings,
            &old.bindings,
            |item| item.span,
            inside,
            around,
        )
        && usable(&fresh.imports, &old.imports, |item| item.4, inside, around)
        && usable(
            &fresh.inherits,
            &old.inherits,
            |item| item.3,
            inside,
            around,
        )
        && usable(&fresh.package, &old.package, |item| item.1, inside, around);
    if !all_usable {
        let (summary, fresh) = extract_keeping(language, text, tree);
        *captures = fresh;
        return summary;
    }
    let old = std::mem::take(&mut captures.raw);
    // At the file's edges the region covers everything: a zero-width capture there (a MISSING
    // node of error recovery) is not "outside" the re-read region, whatever its offset.
    let before = |span: &Span| region.start > 0 && (span.end_byte as usize) <= region.start;
    let after = |span: &Span| region.end < text.len() && (span.start_byte as usize) >= region.end;
    // Old captures before the region and around it, then the region's, then those after: the
    // order of a full extraction (matches come by their start).
    let keep_before = |span: &Span| before(span) || around(span);
    fn splice<T>(
        old: Vec<T>,
        fresh: Vec<T>,
        span: impl Fn(&T) -> Span,
        before: impl Fn(&Span) -> bool,
        after: impl Fn(&Span) -> bool,
        inside: impl Fn(&Span) -> bool,
    ) -> Vec<T> {
        let mut head = Vec::with_capacity(old.len() + fresh.len());
        let mut tail = Vec::new();
        for item in old {
            let item_span = span(&item);
            if before(&item_span) {
                head.push(item);
            } else if after(&item_span) {
                tail.push(item);
            }
        }
        head.extend(fresh.into_iter().filter(|item| inside(&span(item))));
        head.extend(tail);
        head
    }
    let merged = RawCaptures {
        rust: fresh.rust,
        macro_rules: fresh.macro_rules.clone(),
        defs: splice(
            old.defs,
            fresh.defs,
            |def| def.span,
            keep_before,
            after,
            inside,
        ),
        impls: splice(
            old.impls,
            fresh.impls,
            |item| item.span,
            keep_before,
            after,
            inside,
        ),
        refs: splice(
            old.refs,
            fresh.refs,
            |item| item.3,
            keep_before,
            after,
            inside,
        ),
        bindings: splice(
            old.bindings,
            fresh.bindings,
            |item| item.span,
            keep_before,
            after,
            inside,
        ),
        imports: splice(
            old.imports,
            fresh.imports,
            |item| item.4,
            keep_before,
            after,
            inside,
        ),
        inherits: splice(
            old.inherits,
            fresh.inherits,
            |item| item.3,
            keep_before,
            after,
            inside,
        ),
        package: splice(
            old.package,
            fresh.package,
            |item| item.1,
            keep_before,
            after,
            inside,
        ),
    };
    let mut summary = FileSummary::empty(language, text);
    collect_syntax_errors(root, &mut summary.problems);
    let disabled = disabled_ranges(language, root, text);
    build(
        &mut summary,
        merged.clone(),
        text,
        spec.self_receivers,
        &disabled,
    );
    summary.path_modules = path_modules(language, root, text, &disabled);
    summary.shrink_to_fit();
    captures.raw = merged;
    summary
}

/// The bytes to re-read for an edit of `dirty`: the top-level nodes it touches, widened by the
/// comments next to them and one more node on each side (a definition's doc comment, patterns
/// that look at a neighbouring statement; before it, not a container, whose captures an edit
/// after it cannot change), from the end of the node before to the start of the node after.
/// An edit strictly inside the body of one container (an `impl`, a class, a module:
/// a `body` that is a declaration list) narrows to the members of that body it touches, and so
/// on down: typing in one method of a 5,000-line `impl` re-reads that method, not the `impl`.
/// The containers around the region keep their captures ([`Captures::shift`] stretches them).
fn reread_region(
    root: Node<'_>,
    dirty: std::ops::Range<usize>,
    text_len: usize,
) -> std::ops::Range<usize> {
    let mut list = root;
    let (mut list_start, mut list_end) = (0, text_len);
    loop {
        let mut cursor = list.walk();
        let children: Vec<Node<'_>> = list.children(&mut cursor).collect();
        if children.is_empty() {
            return list_start.min(dirty.start)..list_end.max(dirty.end).min(text_len);
        }
        let first = children
            .iter()
            .position(|child| child.end_byte() >= dirty.start)
            .unwrap_or(children.len() - 1);
        let last = children
            .iter()
            .rposition(|child| child.start_byte() <= dirty.end)
            .unwrap_or(0)
            .max(first);
        if first == last
            && let Some(body) = container_body(children[first])
            && body.start_byte() < dirty.start
            && dirty.end < body.end_byte()
        {
            list = body;
            (list_start, list_end) = (body.start_byte(), body.end_byte());
            continue;
        }
        let mut first = first;
        while first > 0 && children[first - 1].kind().contains("comment") {
            first -= 1;
        }
        // One more node before, unless it is a container (an `impl`, a class, a module): the
        // captures of what comes after do not depend on it, and a container before a small
        // edited item (a function after a 4,000-line `impl`) is most of the file.
        if first > 0 && container_body(children[first - 1]).is_none() {
            first -= 1;
        }
        let mut last = last;
        while last + 1 < children.len() && children[last + 1].kind().contains("comment") {
            last += 1;
        }
        last = (last + 1).min(children.len() - 1);
        let start = if first == 0 {
            list_start
        } else {
            children[first - 1].end_byte()
        };
        let end = if last + 1 >= children.len() {
            list_end
        } else {
            children[last + 1].start_byte()
        };
        return start.min(dirty.start)..end.max(dirty.end).min(text_len);
    }
}

/// The member list of a container whose captures do not depend on its members: an `impl`,
/// trait or inline module, a class, a namespace (`body` fields that are declaration lists; a
/// Python class body is a block whose first statement is the class's docstring, so it is not one).
fn container_body(node: Node<'_>) -> Option<Node<'_>> {
    let body = node.child_by_field_name("body")?;
    matches!(body.kind(), "declaration_list" | "class_body").then_some(body)
}

/// The captures of one match, by role.
#[derive(Default)]
struct MatchItem<'tree> {
    definition: Option<(EntityKind, Node<'tree>)>,
    impl_scope: Option<Node<'tree>>,
    name: Option<Node<'tree>>,
    doc: Option<Node<'tree>>,
    owner: Option<Node<'tree>>,
    call: Option<Node<'tree>>,
    type_ref: Option<Node<'tree>>,
    receiver: Option<Node<'tree>>,
    binding: Option<Node<'tree>>,
    binding_name: Option<Node<'tree>>,
    binding_type: Option<Node<'tree>>,
    binding_value: Option<Node<'tree>>,
    binding_bound: Option<Node<'tree>>,
    binding_field: bool,
    binding_local: bool,
    binding_alias: bool,
    binding_entered: bool,
    binding_decorated: bool,
    binding_callback: Option<Node<'tree>>,
    binding_variant: Option<Node<'tree>>,
    binding_pattern: Option<Node<'tree>>,
    /// A Go type switch's value (`switch v := x.(type)`): `v` is bound once per case.
    binding_switch: Option<Node<'tree>>,
    import: Option<Node<'tree>>,
    import_tree: Option<Node<'tree>>,
    /// First and last capture: some grammars give a dotted path as sibling identifiers.
    import_path: Option<(Node<'tree>, Node<'tree>)>,
    import_name: Option<Node<'tree>>,
    import_alias: Option<Node<'tree>>,
    /// A JavaScript `export { a, b as c } from`'s clause: one import per specifier.
    import_specifiers: Option<Node<'tree>>,
    import_wildcard: bool,
    /// The default export: as an import, the name `default` (`import x from`), as a local
    /// alias, the name the module exports as `default`.
    import_default: bool,
    package: Option<Node<'tree>>,
    extends: Option<Node<'tree>>,
    implements: Option<Node<'tree>>,
    child: Option<Node<'tree>>,
    /// A capture failed a check the query leaves to the code: the match is no match.
    rejected: bool,
}

impl<'tree> MatchItem<'tree> {
    fn assign(&mut self, capture: &str, node: Node<'tree>) {
        match capture {
            "name" => self.name = Some(node),
            "doc" => self.doc = Some(node),
            "owner" => self.owner = Some(node),
            "scope.impl" => self.impl_scope = Some(node),
            "reference.call" => self.call = Some(node),
            "reference.type" => self.type_ref = Some(node),
            "receiver" => self.receiver = Some(node),
            "binding" => self.binding = Some(node),
            "binding.name" => self.binding_name = Some(node),
            "binding.type" => self.binding_type = Some(node),
            // A type the query leaves open (`type: (_)`: an alternation of kinds there kept a
            // state alive through every node of the `let`'s value, a sixth of Rust's query
            // time), checked here.
            "binding.declared" => {
                if rust::binding_type_kind(node) {
                    self.binding_type = Some(node);
                } else {
                    self.rejected = true;
                }
            }
            "binding.value" => self.binding_value = Some(node),
            "binding.bound" => self.binding_bound = Some(node),
            "binding.field" => self.binding_field = true,
            "binding.local" => self.binding_local = true,
            "binding.alias" => self.binding_alias = true,
            "binding.entered" => self.binding_entered = true,
            "binding.decorated" => self.binding_decorated = true,
            "binding.callback" => self.binding_callback = Some(node),
            "binding.variant" => self.binding_variant = Some(node),
            "binding.pattern" => self.binding_pattern = Some(node),
            "binding.switch" => self.binding_switch = Some(node),
            "import.tree" => self.import_tree = Some(node),
            "import" => self.import = Some(node),
            "import.path" => {
                self.import_path = Some(match self.import_path {
                    Some((first, last)) => (
                        if node.start_byte() < first.start_byte() {
                            node
                        } else {
                            first
                        },
                        if node.end_byte() > last.end_byte() {
                            node
                        } else {
                            last
                        },
                    ),
                    None => (node, node),
                })
            }
            "import.name" => self.import_name = Some(node),
            "import.alias" => self.import_alias = Some(node),
            "import.specifiers" => self.import_specifiers = Some(node),
            "import.wildcard" => self.import_wildcard = true,
            "import.default" => self.import_default = true,
            "package" => self.package = Some(node),
            "extends" => self.extends = Some(node),
            "implements" => self.implements = Some(node),
            "child" => self.child = Some(node),
            other => {
                if let Some(kind) = other
                    .strip_prefix("definition.")
                    .and_then(EntityKind::parse)
                {
                    self.definition = Some((kind, node));
                }
                // Other captures (helpers for predicates, `_`-prefixed) carry no role.
            }
        }
    }
}

#[derive(Clone)]
struct RawDef {
    kind: EntityKind,
    span: Span,
    name_span: Span,
    name: Name,
    owner: Option<Name>,
    signature: String,
    doc: Option<String>,
    returns: Option<Name>,
    /// A function of a JavaScript/TypeScript object literal: a member of its owner wherever it
    /// is nested (see `javascript::object_literal_owner`); a method when the object is a
    /// prototype, a function otherwise.
    object_member: bool,
    prototype_member: bool,
    arrow: bool,
}

#[derive(Clone)]
struct RawImpl {
    span: Span,
    type_name: Name,
    /// The trait an `impl Trait for Type` block implements, as written.
    trait_name: Option<Name>,
}

/// (path, name, alias, wildcard, span)
type RawImport = (Name, Option<Name>, Option<Name>, bool, Span);

/// A binding as captured, before its scope is known.
#[derive(Clone)]
struct RawBinding {
    name: Name,
    /// The type or value expression.
    type_name: Name,
    kind: BindingKind,
    span: Span,
    /// The region where it holds, when not its whole scope (a `match` arm, a type switch's case).
    region: Option<Span>,
    /// For a type parameter's bound, the declaration that introduces the parameter: the bound
    /// holds there only.
    declared_in: Option<Span>,
}

impl RawBinding {
    fn new(name: Name, type_name: Name, kind: BindingKind, span: Span) -> RawBinding {
        RawBinding {
            name,
            type_name,
            kind,
            span,
            region: None,
            declared_in: None,
        }
    }

    fn within(mut self, region: Option<Span>) -> RawBinding {
        self.region = region;
        self
    }
}

#[derive(Clone, Default)]
struct RawCaptures {
    defs: Vec<RawDef>,
    impls: Vec<RawImpl>,
    /// (kind, name, receiver, span, the receiver is a path)
    refs: Vec<(RefKind, Name, Option<Name>, Span, bool)>,
    bindings: Vec<RawBinding>,
    imports: Vec<RawImport>,
    inherits: Vec<(Name, InheritKind, Option<Name>, Span)>,
    /// Package declarations in match order; the first one counts.
    package: Vec<(Name, Span)>,
    /// Rust keeps a collection's element type in declared types (`Vec<Foo>`).
    rust: bool,
    /// Whether the file's text holds `macro_rules` (only there can a token be inside a macro's
    /// definition, `rust::token_tree_call`): looked for once, at the first Rust token tree
    /// that asks, so that a file (or an edit) without one scans nothing.
    macro_rules: std::cell::OnceCell<bool>,
}

impl RawCaptures {
    /// See [`RawCaptures::macro_rules`].
    fn defines_macros(&self, text: &str) -> bool {
        *self
            .macro_rules
            .get_or_init(|| text.contains("macro_rules"))
    }

    fn add(&mut self, item: MatchItem<'_>, text: &str) {
        if let Some((kind, node)) = item.definition {
            let Some(name_node) = item.name else { return };
            let name = node_text(name_node, text);
            if name.is_empty() {
                return;
            }
            // A function inside a macro's arguments: the query matched its name only.
            if node.kind() == "identifier" && self.rust {
                if let Some(function) = rust::macro_function(node, text, self.defines_macros(text))
                {
                    self.defs.push(RawDef {
                        kind,
                        span: function.span,
                        name_span: Span::from_node(name_node),
                        name: Name::new(name),
                        object_member: false,
                        prototype_member: false,
                        arrow: false,
                        owner: None,
                        signature: function.signature,
                        doc: None,
                        returns: None,
                    });
                }
                return;
            }
            let object_owner = match item.owner {
                None => javascript::object_literal_owner(node, text),
                Some(_) => None,
            };
            let prototype_member = object_owner.as_ref().is_some_and(|owner| owner.prototype);
            self.defs.push(RawDef {
                kind,
                span: definition_span(node),
                name_span: Span::from_node(name_node),
                name: Name::new(name),
                object_member: object_owner.is_some(),
                prototype_member,
                arrow: javascript::is_arrow_function(node),
                owner: item
                    .owner
                    .map(|owner| Name::new(type_base_name(node_text(owner, text))))
                    .or(object_owner.map(|owner| owner.name)),
                signature: signature(node, text),
                doc: item
                    .doc
                    .map(|doc| clean_doc(node_text(doc, text)))
                    .or_else(|| leading_comment(node, text)),
                returns: declared_return(node, text),
            });
        } else if let Some(node) = item.impl_scope {
            if let Some(name_node) = item.name {
                self.impls.push(RawImpl {
                    span: Span::from_node(node),
                    type_name: Name::new(type_base_name(node_text(name_node, text))),
                    trait_name: node
                        .child_by_field_name("trait")
                        .map(|trait_node| Name::new(node_text(trait_node, text))),
                });
            }
        } else if item.call.is_some() || item.type_ref.is_some() {
            let Some(name_node) = item.name else { return };
            let kind = if item.call.is_some() {
                RefKind::Call
            } else {
                RefKind::Type
            };
            let name = node_text(name_node, text);
            if name.is_empty() {
                return;
            }
            let mut receiver = item
                .receiver
                .map(|receiver| receiver_text(node_text(receiver, text)));
            // What joins receiver and name: `::` (or PHP's `\`) makes the receiver a path.
            let mut path = item.receiver.is_some_and(|receiver| {
                text.get(receiver.end_byte()..name_node.start_byte())
                    .is_some_and(|between| between.contains("::") || between.contains('\\'))
            });
            // A Rust macro's arguments: the tokens around the name say what it calls.
            if item.call.is_some_and(|call| call.kind() == "token_tree") {
                let Some(call) = rust::token_tree_call(name_node, text, self.defines_macros(text))
                else {
                    return;
                };
                (receiver, path) = (call.receiver, call.path);
            }
            self.refs.push((
                kind,
                Name::new(name),
                receiver,
                Span::from_node(name_node),
                path,
            ));
        } else if let Some(binding) = item.binding {
            let Some(name) = item.binding_name else {
                return;
            };
            // A parameter of a signature without a body (`cb: (builder: Builder) => void`, an
            // interface's method) binds nothing where it is written.
            if javascript::parameter_of_signature(binding) {
                return;
            }
            if let Some(value) = item.binding_switch {
                let bound = receiver_text(node_text(name, text));
                for (type_name, kind, region) in go::type_switch_cases(binding, value, text) {
                    self.bindings.push(
                        RawBinding::new(bound, type_name, kind, Span::from_node(name))
                            .within(Some(Span::from_node(region))),
                    );
                }
                return;
            }
            if let Some(type_node) = item.binding_type.or(item.binding_bound) {
                let type_name = if self.rust {
                    rust::declared_type(node_text(type_node, text))
                } else if type_node.kind() == "union_type" {
                    // TypeScript's `A | B | null`: each alternative (`A | B`), resolved apart.
                    javascript::union_alternatives(node_text(type_node, text))
                } else {
                    value_type(node_text(type_node, text))
                };
                if !type_name.is_empty() {
                    let kind = if item.binding_bound.is_some() {
                        BindingKind::Bound
                    } else if item.binding_alias {
                        BindingKind::Alias
                    } else {
                        BindingKind::Type
                    };
                    let mut bound_name = receiver_text(node_text(name, text));
                    if let Some(list) = item.binding_variant {
                        // The field's position in the variant: `Number(0)`.
                        let mut cursor = list.walk();
                        let Some(position) = list
                            .children_by_field_name("type", &mut cursor)
                            .position(|field| field.id() == type_node.id())
                        else {
                            return;
                        };
                        bound_name = Name::new(format!("{bound_name}({position})"));
                    }
                    // A trait's `type Bound: Bound;` binds `Self::Bound`.
                    if item
                        .binding
                        .is_some_and(|binding| binding.kind() == "associated_type")
                    {
                        bound_name = Name::new(format!("Self::{bound_name}"));
                    }
                    if item.binding_field {
                        // A field declared by a constructor parameter: `this.name`, which
                        // `build` binds for the whole class.
                        bound_name = Name::new(format!("this.{bound_name}"));
                    }
                    let mut raw =
                        RawBinding::new(bound_name, type_name, kind, Span::from_node(name));
                    if kind == BindingKind::Bound {
                        raw.declared_in = item
                            .binding
                            .and_then(type_parameter_declaration)
                            .map(Span::from_node);
                    }
                    self.bindings.push(raw);
                }
            } else if let Some(variant) = item.binding_pattern {
                // `Value::Number(n)`: `Value::Number(0)`, the variant's field `n` binds.
                let Some(pattern) = variant.parent() else {
                    return;
                };
                if pattern.kind() == "struct_pattern" {
                    // `Self { pool, .. }`: `Self{pool}`.
                    if let Some(site) = rust::struct_pattern_site(variant, name, text)
                        && site.len() < MAX_RECEIVER
                    {
                        self.bindings.push(
                            RawBinding::new(
                                receiver_text(node_text(name, text)),
                                site,
                                BindingKind::Variant,
                                Span::from_node(name),
                            )
                            .within(rust::pattern_region(pattern).map(Span::from_node)),
                        );
                    }
                    return;
                }
                let mut element = name;
                while let Some(parent) = element.parent() {
                    if parent.id() == pattern.id() {
                        break;
                    }
                    element = parent;
                }
                // Every element counts, `_` (an unnamed node) included; after a `..` the
                // position is unknown.
                let mut cursor = pattern.walk();
                let elements: Vec<Node> = pattern
                    .children(&mut cursor)
                    .filter(|child| {
                        child.id() != variant.id()
                            && !matches!(child.kind(), "(" | ")" | "," | "comment")
                    })
                    .collect();
                let Some(position) = elements.iter().position(|child| child.id() == element.id())
                else {
                    return;
                };
                if elements[..position]
                    .iter()
                    .any(|child| child.kind() == "remaining_field_pattern")
                {
                    return;
                }
                let path = receiver_text(node_text(variant, text));
                if path.len() < MAX_RECEIVER {
                    self.bindings.push(
                        RawBinding::new(
                            receiver_text(node_text(name, text)),
                            Name::new(format!("{path}({position})")),
                            BindingKind::Variant,
                            Span::from_node(name),
                        )
                        .within(rust::pattern_region(pattern).map(Span::from_node)),
                    );
                }
            } else if let Some(function) = item.binding_callback {
                if let Some(site) = callback_site(function, name, text) {
                    self.bindings.push(RawBinding::new(
                        receiver_text(node_text(name, text)),
                        site,
                        BindingKind::Callback,
                        Span::from_node(name),
                    ));
                }
            } else if item.binding_local {
                self.bindings.push(RawBinding::new(
                    receiver_text(node_text(name, text)),
                    Name::default(),
                    BindingKind::Local,
                    Span::from_node(name),
                ));
            } else if let Some(value) = item.binding_value {
                let mut expression = receiver_text(node_text(value, text));
                if expression.len() >= MAX_RECEIVER {
                    // Its type does not depend on call arguments: `Palette([(0, 0, 0), ...])`
                    // is kept as `Palette()`.
                    expression = receiver_text(&without_arguments(node_text(value, text)));
                }
                // `for x in items`: `x` is an element, `items[..]`.
                if item
                    .binding
                    .is_some_and(|binding| binding.kind() == "for_expression")
                {
                    expression = Name::new(format!("{expression}[..]"));
                } else if item.binding_entered {
                    // `with X as y`: what `__enter__` returns (see `graph::resolve::python`).
                    expression = Name::new(format!("{expression}.__enter__()"));
                } else if let Some(element) = rust::tuple_element(name, binding) {
                    // `let (tx, rx) = channel();`: `tx` is element 0 of what the call returns.
                    expression = Name::new(format!("{expression}.{element}"));
                } else if item.binding_decorated && value.kind() != "call" {
                    // `@group def cli()`: `cli` holds what `group(cli)` returns. (A decorator
                    // factory's call, `@click.group()`, is taken as what its decorator returns.)
                    expression = Name::new(format!("{expression}()"));
                }
                if !expression.is_empty() && expression.len() < MAX_RECEIVER {
                    self.bindings.push(RawBinding::new(
                        receiver_text(node_text(name, text)),
                        expression,
                        BindingKind::Value,
                        Span::from_node(name),
                    ));
                }
            }
        } else if let Some(tree) = item.import_tree {
            // A Rust `use` tree: one import per leaf, at any depth.
            let span = Span::from_node(item.import.unwrap_or(tree));
            let mut leaves = Vec::new();
            use_tree_leaves(tree, text, "", &mut leaves);
            for (path, name, alias, wildcard) in leaves {
                self.imports.push((path, name, alias, wildcard, span));
            }
        } else if let Some(import) = item.import {
            let path = item
                .import_path
                .map(|(mut first, last)| {
                    // Grammars that keep a dotted path as flat siblings (Scala): extend it back.
                    while let Some(previous) = first.prev_named_sibling() {
                        if previous.kind() != first.kind()
                            || previous.end_byte() + 1 < first.start_byte()
                        {
                            break;
                        }
                        first = previous;
                    }
                    strip_quotes(text.get(first.start_byte()..last.end_byte()).unwrap_or(""))
                })
                .unwrap_or_default();
            let mut name = item
                .import_name
                .map(|name| Name::new(node_text(name, text).trim()));
            let mut alias = item
                .import_alias
                .map(|alias| Name::new(node_text(alias, text).trim()));
            if item.import_default {
                if item.import_path.is_some() {
                    // `import x from './x'`: the default export, bound to x.
                    name = Some(Name::new("default"));
                } else {
                    // `export default origin`: origin, exported as `default`.
                    alias = Some(Name::new("default"));
                }
            }
            if let Some(clause) = item.import_specifiers {
                let mut cursor = clause.walk();
                for specifier in clause.named_children(&mut cursor) {
                    let part = |field| {
                        specifier
                            .child_by_field_name(field)
                            .map(|node| Name::new(node_text(node, text).trim()))
                    };
                    if specifier.kind() == "export_specifier"
                        && let Some(name) = part("name")
                    {
                        self.imports.push((
                            Name::new(&path),
                            Some(name),
                            part("alias"),
                            false,
                            Span::from_node(import),
                        ));
                    }
                }
                return;
            }
            if path.is_empty() && name.is_none() {
                return;
            }
            self.imports.push((
                Name::new(path),
                name,
                alias,
                item.import_wildcard,
                Span::from_node(import),
            ));
        } else if let Some(package) = item.package {
            self.package.push((
                Name::new(strip_quotes(node_text(package, text))),
                Span::from_node(package),
            ));
        } else if let Some((node, kind)) = item
            .extends
            .map(|node| (node, InheritKind::Extends))
            .or_else(|| item.implements.map(|node| (node, InheritKind::Implements)))
        {
            let base = type_base_name_qualified(node_text(node, text));
            if !base.is_empty() {
                let child = item
                    .child
                    .map(|child| Name::new(type_base_name(node_text(child, text))));
                self.inherits
                    .push((Name::new(base), kind, child, Span::from_node(node)));
            }
        }
    }
}

/// The byte ranges of items the default build leaves out (Rust `#[cfg]`; see `lang::rust_cfg`).
fn disabled_ranges(language: Language, root: Node<'_>, text: &str) -> Vec<std::ops::Range<u32>> {
    match language {
        // Most files have no `#[cfg]`: a text search is cheaper than walking every item.
        Language::Rust if text.contains("cfg") => {
            codegraph_lang::rust_cfg::disabled_ranges(root, text)
        }
        _ => Vec::new(),
    }
}

/// Rust's `#[path]` modules of the default build (see [`PathModule`]).
fn path_modules(
    language: Language,
    root: Node<'_>,
    text: &str,
    disabled: &[std::ops::Range<u32>],
) -> Vec<PathModule> {
    match language {
        Language::Rust if text.contains("path") => rust_path::path_modules(root, text, disabled),
        _ => Vec::new(),
    }
}

fn build(
    summary: &mut FileSummary,
    mut raw: RawCaptures,
    _text: &str,
    self_receivers: &[&str],
    disabled: &[std::ops::Range<u32>],
) {
    // Definitions sorted outer-first; the same node matched by two patterns counts once.
    raw.defs.sort_by(|left, right| {
        (left.span.start_byte, std::cmp::Reverse(left.span.end_byte)).cmp(&(
            right.span.start_byte,
            std::cmp::Reverse(right.span.end_byte),
        ))
    });
    raw.defs
        .dedup_by(|later, earlier| later.span == earlier.span);
    raw.impls.sort_by_key(|scope| {
        (
            scope.span.start_byte,
            std::cmp::Reverse(scope.span.end_byte),
        )
    });

    let mut stack: Vec<u32> = Vec::new();
    for raw_def in raw.defs {
        while let Some(top) = stack.last() {
            if summary.defs[*top as usize].span.contains(&raw_def.span) {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().copied();
        let mut owner = raw_def.owner;
        let mut implements = None;
        if owner.is_none() {
            // Inside an `impl`-like block that is itself inside no nearer definition?
            let parent_start =
                parent.map_or(0, |index| summary.defs[index as usize].span.start_byte);
            let block = raw.impls.iter().rev().find(|scope| {
                scope.span.contains(&raw_def.span) && scope.span.start_byte >= parent_start
            });
            owner = block.map(|scope| scope.type_name);
            implements = block.and_then(|scope| scope.trait_name);
        }
        let mut kind = raw_def.kind;
        let parent_is_type =
            parent.is_some_and(|index| summary.defs[index as usize].kind.is_type());
        // A function of a plain object literal stays a function (a guess by method name never
        // lands on it), even in a class body; a prototype's is a method, like
        // `Foo.prototype.m = function`.
        let method = if raw_def.object_member {
            raw_def.prototype_member
        } else {
            parent_is_type || (parent.is_none() && owner.is_some())
        };
        if kind == EntityKind::Function && method {
            kind = EntityKind::Method;
        }
        let index = summary.defs.len() as u32;
        let mut def = Def {
            kind,
            name: raw_def.name,
            parent,
            // An object literal's function keeps its object wherever it is nested; other
            // owners (an `impl` block's type) only hold at the top level.
            owner: if parent.is_none() || raw_def.object_member {
                owner
            } else {
                None
            },
            span: raw_def.span,
            name_span: raw_def.name_span,
            text: Box::default(),
            doc_at: u32::MAX,
            returns: raw_def.returns,
            implements: if parent.is_none() { implements } else { None },
            disabled: disabled.iter().any(|range| {
                range.start <= raw_def.span.start_byte && raw_def.span.end_byte <= range.end
            }),
            arrow: raw_def.arrow,
        };
        def.with_text(raw_def.signature, raw_def.doc);
        summary.defs.push(def);
        stack.push(index);
    }

    summary.package = raw.package.into_iter().next().map(|(package, _)| package);
    raw.refs.sort_by_key(|reference| reference.3.start_byte);
    raw.refs
        .dedup_by(|later, earlier| later.3 == earlier.3 && later.0 == earlier.0);
    for (kind, name, receiver, span, path) in raw.refs {
        let mut scope = innermost(&summary.defs, span.start_byte, span.end_byte);
        // A definition's own name is not a reference to itself.
        if scope.is_some_and(|index| summary.defs[index as usize].name_span == span) {
            continue;
        }
        // A Python decorator (before the decorated function's name, inside its extent) is
        // called by the scope around the definition, where it runs.
        if summary.language == Language::Python
            && let Some(index) = scope
            && span.start_byte < summary.defs[index as usize].name_span.start_byte
        {
            scope = summary.defs[index as usize].parent;
        }
        summary
            .refs
            .push(Ref::new(kind, name, receiver, span, scope, path));
    }
    // Bindings already kept, to drop repeats in O(1) (a file can hold tens of thousands).
    let mut seen: rustc_hash::FxHashSet<Binding> = summary.bindings.iter().cloned().collect();
    for raw_binding in raw.bindings {
        let RawBinding {
            name,
            type_name,
            kind,
            span,
            region,
            declared_in,
        } = raw_binding;
        let region = region.map(|region| (region.start_byte, region.end_byte));
        let mut scope = innermost(&summary.defs, span.start_byte, span.end_byte);
        // A Python definition's own name (a decorated function's value) is bound around it.
        if summary.language == Language::Python
            && let Some(index) = scope
            && summary.defs[index as usize].name_span == span
        {
            scope = summary.defs[index as usize].parent;
        }
        // A bound on an `impl` block's type parameter (`impl<I: PeekingNext> .. where I: ..`)
        // holds in that block's methods, not in the rest of the file.
        if kind == BindingKind::Bound
            && let Some(methods) = rust::impl_methods(&raw.impls, &summary.defs, scope, span)
        {
            for method in methods {
                let binding = Binding::new(name, type_name, Some(method), kind, region);
                if seen.insert(binding.clone()) {
                    summary.bindings.push(binding);
                }
            }
            continue;
        }
        // A type parameter's bound holds in the definition that declares the parameter; one
        // declared where no definition is (an overload signature, a function type, a type
        // alias) binds nothing: it would otherwise hold in the enclosing scope, where another
        // declaration's parameters of the same names may bound it the other way round.
        if let Some(declaration) = declared_in
            && !declares(&summary.defs, scope, declaration)
        {
            continue;
        }
        let original_scope = scope;
        // `self.field = Foo()` in a method binds the field for the whole type.
        if let Some((first, _)) = name.split_once('.')
            && self_receivers.contains(&first)
        {
            while let Some(index) = scope {
                if summary.defs[index as usize].kind.is_type() {
                    break;
                }
                scope = summary.defs[index as usize].parent;
            }
        }
        // `self.x = x` in a constructor: the parameter's declared type is the field's.
        let (mut type_name, mut kind) = (type_name, kind);
        if kind == BindingKind::Value
            && scope != original_scope
            && let Some(parameter) = summary.bindings.iter().find(|binding| {
                binding.name == type_name
                    && binding.scope() == original_scope
                    && binding.kind == BindingKind::Type
            })
        {
            type_name = parameter.type_name;
            kind = BindingKind::Type;
        }
        let binding = Binding::new(name, type_name, scope, kind, region);
        if seen.insert(binding.clone()) {
            summary.bindings.push(binding);
        }
    }
    if summary.language == Language::Rust {
        rust::drop_conflicting_bindings(&mut summary.bindings);
    }
    for (path, name, alias, wildcard, span) in raw.imports {
        let scope = innermost(&summary.defs, span.start_byte, span.end_byte);
        let import = Import {
            path,
            name,
            alias,
            wildcard,
            span,
            scope,
        };
        if !summary.imports.iter().any(|existing| {
            existing.path == import.path
                && existing.name == import.name
                && existing.alias == import.alias
        }) {
            summary.imports.push(import);
        }
    }
    for (base, kind, child_name, span) in raw.inherits {
        let child = if child_name.is_some() {
            None
        } else {
            let mut scope = innermost(&summary.defs, span.start_byte, span.end_byte);
            while let Some(index) = scope {
                if summary.defs[index as usize].kind.is_type() {
                    break;
                }
                scope = summary.defs[index as usize].parent;
            }
            match scope {
                Some(index) => Some(index),
                None => continue,
            }
        };
        let inherit = Inherit {
            child,
            child_name,
            base,
            kind,
            span,
        };
        if !summary.inherits.iter().any(|existing| {
            existing.child == inherit.child
                && existing.child_name == inherit.child_name
                && existing.base == inherit.base
        }) {
            summary.inherits.push(inherit);
        }
    }
}

/// The innermost definition containing the byte range, given definitions sorted outer-first.
/// The declaration that introduces a type parameter whose bound `binding` captures (`<T
/// extends E>`, `[T C]`, `where T: C`): the parent of its parameter list or `where` clause.
/// `None` for a bound that no parameter list holds (a Rust trait's associated type).
fn type_parameter_declaration(binding: Node<'_>) -> Option<Node<'_>> {
    let mut node = binding;
    // The list is at most two levels up (a `where` predicate's clause, a parameter's list).
    for _ in 0..3 {
        node = node.parent()?;
        if matches!(
            node.kind(),
            "type_parameters" | "type_parameter_list" | "where_clause"
        ) {
            return node.parent();
        }
    }
    None
}

/// Whether the definition `scope` is the declaration at `declaration` (its name is written in
/// it), rather than a definition around it.
fn declares(defs: &[Def], scope: Option<u32>, declaration: Span) -> bool {
    scope.is_some_and(|index| {
        let name = defs[index as usize].name_span;
        declaration.start_byte <= name.start_byte && name.end_byte <= declaration.end_byte
    })
}

fn innermost(defs: &[Def], start: u32, end: u32) -> Option<u32> {
    let after = defs.partition_point(|def| def.span.start_byte <= start);
    let mut candidate = after.checked_sub(1).map(|index| index as u32);
    while let Some(index) = candidate {
        let def = &defs[index as usize];
        if def.span.start_byte <= start && end <= def.span.end_byte {
            return Some(index);
        }
        candidate = def.parent;
    }
    None
}

fn node_text<'text>(node: Node<'_>, text: &'text str) -> &'text str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

fn strip_quotes(text: &str) -> String {
    text.trim()
        .trim_matches(|character| matches!(character, '"' | '\'' | '`' | '<' | '>'))
        .to_string()
}

/// The declared return type of a definition node, normalised by [`value_type`]: the grammars
/// name it `return_type` (Rust, Python, TypeScript, ...) or `result` (Go); a variable holding a
/// function (`const f = (): Foo => ...`) has it on its value.
fn declared_return(node: Node<'_>, text: &str) -> Option<Name> {
    // `const make = (): Store => ...`: the function is the declarator's value (maybe cast).
    let function = match node.kind() {
        "lexical_declaration" | "variable_declaration" => javascript::declared_function(node),
        _ => None,
    };
    let returned = node
        .child_by_field_name("return_type")
        .or_else(|| node.child_by_field_name("result"))
        .or_else(|| {
            node.child_by_field_name("value")
                .and_then(|value| value.child_by_field_name("return_type"))
        })
        .or_else(|| function.and_then(|function| function.child_by_field_name("return_type")))?;
    let normalised = if matches!(node.kind(), "function_item" | "function_signature_item") {
        if returned.kind() == "tuple_type" {
            // `-> (Sender<T>, Receiver<T>)`: each element, for `let (tx, rx) = channel()`.
            let mut cursor = returned.walk();
            let elements: Vec<Name> = returned
                .named_children(&mut cursor)
                .map(|element| rust::declared_type(node_text(element, text)))
                .collect();
            Name::new(format!("({})", elements.join(", ")))
        } else {
            rust::declared_type(node_text(returned, text))
        }
    } else {
        value_type(node_text(returned, text))
    };
    (!normalised.is_empty()).then_some(normalised)
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
            // Go's `(T, error)` results and parenthesised types. Named results share a type
            // (`(vx, vy reflect.Value)`): a bare first name takes the type of the first
            // element that has one.
            let elements: Vec<&str> = top_level_split(inner, ',').map(str::trim).collect();
            let first = elements.first().copied().unwrap_or("");
            let named = elements.iter().copied().find(|element| {
                element.contains(char::is_whitespace)
                    && !element.starts_with("chan")
                    && !element.starts_with("map")
                    && !element.starts_with("func")
            });
            text = match named {
                Some(named) if !first.contains(char::is_whitespace) && elements.len() > 1 => named,
                _ => first,
            };
            // A named result (`f *File`): its type is the last word.
            text = text
                .rsplit_once(|character: char| character.is_whitespace())
                .filter(|(first, _)| !matches!(first.trim(), "chan" | "map" | "func"))
                .map_or(text, |(_, last)| last);
            continue;
        }
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
        if next == text {
            break;
        }
        text = next;
    }
    // Transparent wrappers: their first generic argument (`<...>` or Python's `[...]`).
    if let Some(open) = text.find(['<', '['])
        && text.ends_with(['>', ']'])
    {
        let head = text[..open].trim();
        let last = head.rsplit(['.', ':']).next().unwrap_or(head);
        if TRANSPARENT_WRAPPERS.contains(&last) {
            let inner = &text[open + 1..text.len() - 1];
            if let Some(first) = top_level_split(inner, ',').next() {
                return value_type(first);
            }
        }
    }
    Name::new(type_base_name_qualified(text))
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

/// The leaves of a Rust `use` tree below `prefix`: `(path, name, alias, wildcard)`, with `name`
/// the last segment (`use a::{b::{self, C as D}, e::*}` gives `a::b`, `a` + `b`, `a::b` + `C`
/// as `D`, `a::e` + `*`).
fn use_tree_leaves(
    node: Node<'_>,
    text: &str,
    prefix: &str,
    leaves: &mut Vec<(Name, Option<Name>, Option<Name>, bool)>,
) {
    let Some(_step) = codegraph_model::walk::enter() else {
        return;
    };
    let join = |prefix: &str, path: &str| -> String {
        match (prefix.is_empty(), path.is_empty()) {
            (true, _) => path.to_string(),
            (_, true) => prefix.to_string(),
            _ => format!("{prefix}::{path}"),
        }
    };
    let split_last = |full: String| -> (Name, Option<Name>) {
        match full.rsplit_once("::") {
            Some((path, name)) => (Name::new(path), Some(Name::new(name))),
            None => (Name::default(), Some(Name::new(full))),
        }
    };
    match node.kind() {
        "identifier" | "scoped_identifier" | "crate" | "super" | "self" | "metavariable" => {
            // `use a::b::{self}` is the module `a::b` itself.
            let full = if node.kind() == "self" && !prefix.is_empty() {
                prefix.to_string()
            } else {
                join(prefix, node_text(node, text))
            };
            let (path, name) = split_last(full);
            leaves.push((path, name, None, false));
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (
                node.child_by_field_name("path"),
                node.child_by_field_name("alias"),
            ) else {
                return;
            };
            let full = if path.kind() == "self" {
                prefix.to_string()
            } else {
                join(prefix, node_text(path, text))
            };
            let (path, name) = split_last(full);
            leaves.push((path, name, Some(Name::new(node_text(alias, text))), false));
        }
        "use_wildcard" => {
            let mut cursor = node.walk();
            let inner = node
                .named_children(&mut cursor)
                .next()
                .map_or(String::new(), |path| node_text(path, text).to_string());
            leaves.push((Name::new(join(prefix, &inner)), None, None, true));
        }
        "scoped_use_list" => {
            let path = node
                .child_by_field_name("path")
                .map_or(String::new(), |path| node_text(path, text).to_string());
            let next_prefix = join(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                use_tree_leaves(list, text, &next_prefix, leaves);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                use_tree_leaves(child, text, prefix, leaves);
            }
        }
        _ => {}
    }
}

/// `Foo<T>`, `*Foo`, `&mut Foo`, `Foo[]`, `pkg.Foo` → `Foo`.
fn type_base_name(text: &str) -> String {
    let qualified = type_base_name_qualified(text);
    let last = qualified
        .rsplit(['.', ':', '\\'])
        .next()
        .unwrap_or(&qualified);
    last.to_string()
}

/// `Foo<T>`, `*pkg.Foo`, `&mut Foo` → `Foo` or `pkg.Foo`: generic arguments, pointers and
/// references removed, qualification kept.
fn type_base_name_qualified(text: &str) -> String {
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
fn without_arguments(text: &str) -> String {
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
/// Where a callback's untyped parameter sits (`operate((source, subscriber) => ...)`): the
/// callee's text (`new C` for a constructor), the callback's argument position and the
/// parameter's position, as `callee\u{1}argument\u{1}parameter` for resolution to read the
/// callee's declared parameter type.
fn callback_site(function: Node, name: Node, text: &str) -> Option<Name> {
    let position = |parent: Node, child: Node| {
        let mut cursor = parent.walk();
        parent
            .named_children(&mut cursor)
            .filter(|node| node.kind() != "comment")
            .position(|node| node.id() == child.id())
    };
    let arguments = function.parent()?;
    if arguments.kind() != "arguments" {
        return None;
    }
    let argument = position(arguments, function)?;
    let call = arguments.parent()?;
    let callee = match call.kind() {
        "call_expression" => receiver_text(node_text(call.child_by_field_name("function")?, text)),
        "new_expression" => Name::new(format!(
            "new {}",
            receiver_text(node_text(call.child_by_field_name("constructor")?, text))
        )),
        _ => return None,
    };
    let parameter = if function
        .child_by_field_name("parameter")
        .is_some_and(|parameter| parameter.id() == name.id())
    {
        0
    } else {
        let parameters = function.child_by_field_name("parameters")?;
        // The parameter that holds `name` (walking down: `parent` walks down from the root).
        let node = parameters
            .child_with_descendant(name)
            .filter(|node| node.id() != parameters.id())?;
        position(parameters, node)?
    };
    (!callee.is_empty() && callee.len() < MAX_RECEIVER)
        .then(|| Name::new(format!("{callee}\u{1}{argument}\u{1}{parameter}")))
}

fn receiver_text(text: &str) -> Name {
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

/// The definition's head: its text up to its body, whitespace collapsed; comments between the
/// head and the body (Python's after the `:`) are left out.
fn signature(node: Node<'_>, text: &str) -> String {
    let end = node
        .child_by_field_name("body")
        .map(|body| {
            let mut cursor = node.walk();
            node.children(&mut cursor)
                .take_while(|child| child.id() != body.id())
                .filter(|child| !child.kind().contains("comment"))
                .map(|child| child.end_byte())
                .max()
                .unwrap_or(body.start_byte())
        })
        .unwrap_or_else(|| {
            let node_text = node_text(node, text);
            node.start_byte() + node_text.find('\n').unwrap_or(node_text.len())
        });
    let head = text
        .get(node.start_byte()..end.max(node.start_byte()))
        .unwrap_or("");
    let mut collapsed = String::with_capacity(head.len().min(MAX_SIGNATURE + 4));
    for word in head.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
        if collapsed.len() > MAX_SIGNATURE {
            let cut = codegraph_lang::syntax::floor_char_boundary(&collapsed, MAX_SIGNATURE);
            collapsed.truncate(cut);
            collapsed.push('…');
            break;
        }
    }
    collapsed
}

/// A docstring literal without its quotes and indentation.
fn clean_doc(raw: &str) -> String {
    let trimmed = raw.trim();
    let without_prefix = trimmed.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let unquoted = without_prefix
        .strip_prefix("\"\"\"")
        .and_then(|rest| rest.strip_suffix("\"\"\""))
        .or_else(|| {
            without_prefix
                .strip_prefix("'''")
                .and_then(|rest| rest.strip_suffix("'''"))
        })
        .or_else(|| {
            without_prefix
                .strip_prefix('"')
                .and_then(|rest| rest.strip_suffix('"'))
        })
        .or_else(|| {
            without_prefix
                .strip_prefix('\'')
                .and_then(|rest| rest.strip_suffix('\''))
        })
        .unwrap_or(trimmed);
    truncate_doc(dedent(unquoted))
}

fn dedent(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let start = lines
        .iter()
        .position(|line| !line.is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|line| !line.is_empty())
        .map_or(start, |index| index + 1);
    lines[start..end].join("\n")
}

fn truncate_doc(mut doc: String) -> String {
    if doc.len() > MAX_DOC {
        let cut = codegraph_lang::syntax::floor_char_boundary(&doc, MAX_DOC);
        doc.truncate(cut);
        doc.push('…');
    }
    doc
}

/// A definition's extent. A Python function's decorators are part of it, as in pyright's
/// ranges; the calls in them are still made by the scope around it (see `build`). A class's
/// decorators stay outside, as in pyright.
fn definition_span(node: Node<'_>) -> Span {
    let mut span = Span::from_node(node);
    if node.kind() == "function_definition"
        && let Some(parent) = node.parent()
        && parent.kind() == "decorated_definition"
    {
        let outer = Span::from_node(parent);
        span.start_byte = outer.start_byte;
    }
    span
}

/// Whether a comment can end right above `start` (or before it on its line): the text from two
/// lines above to `start` holds a comment marker of one of the languages. Without one, the
/// walk back over the siblings (each step a walk from the parent's first child) is skipped.
fn may_follow_comment(text: &str, start: usize) -> bool {
    const MARKERS: [&str; 7] = ["//", "/*", "*/", "#", "--", "]]", "=end"];
    let before = text.get(..start).unwrap_or(text);
    let mut from = before.len();
    for _ in 0..3 {
        from = before[..from].rfind('\n').unwrap_or(0);
    }
    let region = &before[from..];
    MARKERS.iter().any(|marker| region.contains(marker))
}

/// Comments directly above a definition (or above the export or decorator that wraps it).
fn leading_comment(node: Node<'_>, text: &str) -> Option<String> {
    let mut anchor = node;
    if let Some(parent) = node.parent()
        && matches!(
            parent.kind(),
            "export_statement"
                | "decorated_definition"
                | "template_declaration"
                | "attributed_declaration"
        )
    {
        anchor = parent;
    }
    if !may_follow_comment(text, anchor.start_byte()) {
        return None;
    }
    let mut comments: Vec<&str> = Vec::new();
    let mut expected_row = anchor.start_position().row;
    let mut sibling = anchor.prev_sibling();
    // Each step back costs tree-sitter a walk from the parent's first child: a doc is the
    // last few comments (30,000 comment lines above a function would take seconds to walk
    // whole).
    while let Some(previous) = sibling
        && comments.len() < MAX_DOC_COMMENTS
    {
        let kind = previous.kind();
        if !(kind.contains("comment")) || previous.end_position().row + 1 < expected_row {
            break;
        }
        comments.push(node_text(previous, text));
        expected_row = previous.start_position().row;
        sibling = previous.prev_sibling();
    }
    if comments.is_empty() {
        return None;
    }
    comments.reverse();
    let mut lines = Vec::new();
    for comment in comments {
        for line in comment.lines() {
            let cleaned = line
                .trim()
                .trim_start_matches("/**")
                .trim_start_matches("/*")
                .trim_end_matches("*/")
                .trim_start_matches("///")
                .trim_start_matches("//!")
                .trim_start_matches("//")
                .trim_start_matches("--")
                .trim_start_matches('#')
                .trim_start_matches('*')
                .trim();
            lines.push(cleaned);
        }
    }
    let doc = dedent(&lines.join("\n"));
    if doc.is_empty() {
        None
    } else {
        Some(truncate_doc(doc))
    }
}

fn collect_syntax_errors(root: Node<'_>, problems: &mut Vec<Problem>) {
    if !root.has_error() {
        return;
    }
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if problems.len() >= MAX_PROBLEMS {
            return;
        }
        if node.is_error() || node.is_missing() {
            let what = if node.is_missing() {
                format!("missing {}", node.kind())
            } else {
                "syntax error".to_string()
            };
            problems.push(Problem {
                line: node.start_position().row as u32,
                message: format!("{what} at line {}", node.start_position().row + 1),
            });
            continue;
        }
        if node.has_error() {
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_arguments;

    /// An edit re-reads its item and the nodes next to it, but not a container before it (a
    /// function after a long `impl`), and re-reads a container after it (an attribute edited
    /// above an `impl` may change it).
    #[test]
    fn the_reread_region_skips_a_container_before_the_edit() {
        let text =
            "struct S;\nimpl S {\n    fn a() {}\n    fn b() {}\n}\nfn f() { g(); }\nfn h() {}\n";
        let tree =
            codegraph_lang::syntax::parse(codegraph_lang::Language::Rust, text).expect("parses");
        let at = |needle: &str| text.find(needle).expect("in the text");
        let region = super::reread_region(tree.root_node(), at("g()")..at("g()") + 1, text.len());
        assert_eq!(&text[region], "\nfn f() { g(); }\nfn h() {}\n");
        let before = "struct S;\nfn f() { g(); }\nimpl S {\n    fn a() {}\n}\n";
        let tree =
            codegraph_lang::syntax::parse(codegraph_lang::Language::Rust, before).expect("parses");
        let g = before.find("g()").expect("in the text");
        let region = super::reread_region(tree.root_node(), g..g + 1, before.len());
        assert_eq!(&before[region], before);
    }

    #[test]
    fn a_signature_stops_before_the_comments_that_open_the_body() {
        let text = "class A:\n    def get(cls):  # why\n        # Avoids a circular import.\n        return A\n";
        let (summary, _) = super::extract_text(codegraph_lang::Language::Python, text);
        let signatures: Vec<&str> = summary.defs.iter().map(super::Def::signature).collect();
        assert_eq!(signatures, ["class A:", "def get(cls):"]);
    }

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
