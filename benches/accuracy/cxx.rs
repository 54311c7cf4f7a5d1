//! C and C++ against clangd. clangd 19 answers `callHierarchy/incomingCalls` from its background
//! index but has no `callHierarchy/outgoingCalls` (that arrived in clangd 20), so the outgoing
//! truth is built from what clangd does answer: every call expression in the sampled function's
//! body (found with tree-sitter's C or C++ grammar), clangd's `textDocument/definition` at the
//! called name, and the function definition that location names. The result is shaped as an
//! outgoingCalls answer, so that it is compared like every other server's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use codegraph::lang::Language;
use serde_json::{Value, json};
use tree_sitter::{Node, Point, Tree};

use crate::compare::Edge;
use crate::conventions::{
    CONSTRUCTOR_CALL, INACTIVE_PREPROCESSOR, MACRO_DEFINED_CALLER, MACRO_DROPS_ARGUMENTS,
    MACRO_EXPANSION, MACRO_IN_THIS_BUILD, ONE_SYMBOL_PER_NAME,
};
use crate::sample::Sample;
use crate::servers::{ReferenceKind, Server};
use crate::{debug, relative_path, uri};

/// The grammar of a C or C++ file: C for `.c`, and for headers when the project is C.
pub(crate) fn grammar(file: &Path, project_language: &str) -> Language {
    match file.extension().and_then(|extension| extension.to_str()) {
        Some("c") => Language::C,
        Some("h") if project_language == "c" => Language::C,
        _ => Language::Cpp,
    }
}

/// A parsed file: its text, lines and tree.
pub(crate) struct Parsed {
    text: String,
    line_starts: Vec<usize>,
    tree: Tree,
}

impl Parsed {
    pub(crate) fn read(file: &Path, language: Language) -> Option<Parsed> {
        let text = std::fs::read_to_string(file).ok()?;
        let tree = codegraph::syntax::parse(language, &text)?;
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(index, _)| index + 1));
        Some(Parsed {
            text,
            line_starts,
            tree,
        })
    }

    fn line_text(&self, line: usize) -> &str {
        let start = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |next| next - 1);
        &self.text[start..end.max(start)]
    }

    /// The tree-sitter point of an LSP position (UTF-16 column).
    fn point(&self, line: u32, character: u32) -> Point {
        let text = self.line_text(line as usize);
        let mut units = 0;
        let mut column = text.len();
        for (byte, character_here) in text.char_indices() {
            if units >= character as usize {
                column = byte;
                break;
            }
            units += character_here.len_utf16();
        }
        Point::new(line as usize, column)
    }

    /// The LSP position (line, UTF-16 column) of a tree-sitter point.
    fn position(&self, point: Point) -> Value {
        let text = self.line_text(point.row);
        let prefix = &text[..point.column.min(text.len())];
        json!({"line": point.row, "character": prefix.encode_utf16().count()})
    }

    fn range(&self, node: Node) -> Value {
        json!({"start": self.position(node.start_position()), "end": self.position(node.end_position())})
    }

    fn node_text(&self, node: Node) -> &str {
        &self.text[node.byte_range()]
    }
}

/// The function definition whose declarator names the function at `point`, when the name there
/// is a definition's (not a prototype's, a macro's or a variable's).
fn definition_named_at(tree: &Tree, point: Point) -> Option<Node<'_>> {
    let mut node = tree.root_node().descendant_for_point_range(point, point)?;
    let mut in_declarator = false;
    loop {
        match node.kind() {
            "function_declarator" => {
                let name = node.child_by_field_name("declarator")?;
                if !(name.start_position() <= point && point <= name.end_position()) {
                    return None;
                }
                in_declarator = true;
            }
            "function_definition" => return in_declarator.then_some(node),
            "compound_statement"
            | "declaration"
            | "field_declaration"
            | "parameter_list"
            | "translation_unit"
            | "preproc_function_def"
            | "preproc_def" => return None,
            _ => {}
        }
        node = node.parent()?;
    }
}

/// The name node of a function definition's declarator (`f`, `Class::method`, `operator==`).
fn definition_name(definition: Node) -> Option<Node> {
    let mut declarator = definition.child_by_field_name("declarator")?;
    while declarator.kind() != "function_declarator" {
        declarator = declarator.child_by_field_name("declarator")?;
    }
    declarator.child_by_field_name("declarator")
}

/// Whether a documentSymbol entry of clangd's is a function definition (clangd also lists
/// prototypes and declarations).
/// A function that a macro defines (`TEST(StateTest, Basic) { .. }`, whose symbol clangd names
/// `StateTestBasic::Run` at the macro) is left out: no item names it there.
pub(crate) fn is_definition(sample: &Sample) -> bool {
    // A sampled file is a `.c` file (C) or a C++ source file, never a header.
    Parsed::read(&sample.file, grammar(&sample.file, "cpp")).is_some_and(|parsed| {
        let point = parsed.point(sample.line, sample.character);
        definition_named_at(&parsed.tree, point)
            .and_then(definition_name)
            .is_some_and(|name| {
                let text = parsed.node_text(name);
                let last = sample.name.rsplit("::").next().unwrap_or(&sample.name);
                text == sample.name || text.rsplit("::").next() == Some(last)
            })
    })
}

/// The node a call expression calls by name: `f` in `f(x)`, `m` in `o.m(x)` and `p->m(x)`,
/// `f` in `ns::f(x)` and `f<T>(x)`, `fp` in `(*fp)(x)`.
fn called_name(function: Node) -> Option<Node> {
    match function.kind() {
        "identifier" | "field_identifier" | "operator_name" | "destructor_name" => Some(function),
        "field_expression" => function.child_by_field_name("field").and_then(called_name),
        "qualified_identifier" | "template_function" | "template_method" => {
            function.child_by_field_name("name").and_then(called_name)
        }
        "parenthesized_expression" | "pointer_expression" => function
            .named_child(
                u32::try_from(function.named_child_count())
                    .ok()?
                    .checked_sub(1)?,
            )
            .and_then(called_name),
        _ => None,
    }
}

/// The called names of every call expression inside `node` that start between `from` and `to`,
/// in source order.
fn call_sites<'tree>(node: Node<'tree>, from: Point, to: Point, sites: &mut Vec<Node<'tree>>) {
    if node.end_position() < from || node.start_position() > to {
        return;
    }
    if node.kind() == "call_expression"
        && let Some(name) = node.child_by_field_name("function").and_then(called_name)
        && from <= name.start_position()
        && name.start_position() <= to
    {
        sites.push(name);
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        call_sites(child, from, to, sites);
    }
}

/// The call hierarchy item of the function definition that a definition location names, read
/// from the file with tree-sitter; None when the location is not a function definition's name.
fn item_at(parsed: &Parsed, file: &Path, start: &Value) -> Option<Value> {
    let line = start["line"].as_u64()? as u32;
    let character = start["character"].as_u64()? as u32;
    let definition = definition_named_at(&parsed.tree, parsed.point(line, character))?;
    let name = definition_name(definition)?;
    let qualified = matches!(name.kind(), "qualified_identifier")
        || definition
            .parent()
            .is_some_and(|parent| parent.kind() == "field_declaration_list");
    Some(json!({
        "name": parsed.node_text(name),
        "kind": if qualified { 6 } else { 12 },
        "uri": uri(file),
        "range": parsed.range(definition),
        "selectionRange": parsed.range(name),
    }))
}

/// The locations of a definition answer (Location, Location[] or LocationLink[]): uri and start.
fn locations(answer: &Value) -> Vec<(String, Value)> {
    let list: Vec<&Value> = match answer {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        single => vec![single],
    };
    list.into_iter()
        .filter_map(|location| {
            let uri = location["uri"]
                .as_str()
                .or_else(|| location["targetUri"].as_str())?;
            let range = if location["range"].is_object() {
                &location["range"]
            } else {
                &location["targetSelectionRange"]
            };
            Some((uri.to_string(), range["start"].clone()))
        })
        .collect()
}

/// clangd's outgoing calls of the sampled function, built from `textDocument/definition` at the
/// name of every call expression in its body; shaped as a `callHierarchy/outgoingCalls` answer
/// (one entry per callee, with every call site's range). Callees outside `root` are kept here
/// and dropped by the comparison, as for every server.
///
/// The body is the range of clangd's own item (tree-sitter may end a function early or late
/// where an `#if` splits its braces), and a call in a region clangd reports inactive (left out
/// by an `#if`) is not asked about: clangd would answer it by a textual guess.
pub(crate) fn outgoing_calls(
    reference: &mut Server,
    root: &Path,
    sample: &Sample,
    item: &Value,
    project_language: &str,
) -> Result<Value, String> {
    let language = grammar(&sample.file, project_language);
    let parsed = Parsed::read(&sample.file, language).ok_or("the sampled file does not parse")?;
    let position = |at: &Value| {
        let line = at["line"].as_u64().unwrap_or(0) as u32;
        parsed.point(line, at["character"].as_u64().unwrap_or(0) as u32)
    };
    let (from, to) = (
        position(&item["range"]["start"]),
        position(&item["range"]["end"]),
    );
    let inactive = reference.inactive_lines(&sample.file).unwrap_or_default();
    let mut sites = Vec::new();
    call_sites(parsed.tree.root_node(), from, to, &mut sites);
    sites.retain(|site| !in_regions(&inactive, site.start_position().row as u32));
    let mut files: HashMap<PathBuf, Option<Parsed>> = HashMap::new();
    let mut calls: Vec<Value> = Vec::new();
    for site in sites {
        let position = parsed.position(site.start_position());
        let answer = reference
            .request(
                "textDocument/definition",
                json!({"textDocument": {"uri": uri(&sample.file)}, "position": position}),
            )
            .map_err(|error| format!("reference definition: {error}"))?;
        debug("reference definition at a call", &answer);
        for (target_uri, start) in locations(&answer) {
            if relative_path(&target_uri, root).is_none() {
                continue;
            }
            let Some(file) = crate::path_of_uri(&target_uri) else {
                continue;
            };
            let target = files
                .entry(file.clone())
                .or_insert_with(|| Parsed::read(&file, grammar(&file, project_language)));
            let Some(item) = target
                .as_ref()
                .and_then(|target| item_at(target, &file, &start))
            else {
                continue;
            };
            let from = parsed.range(site);
            match calls.iter_mut().find(|call| call["to"] == item) {
                Some(call) => call["fromRanges"]
                    .as_array_mut()
                    .expect("fromRanges")
                    .push(from),
                None => calls.push(json!({"to": item, "fromRanges": [from]})),
            }
        }
    }
    Ok(Value::Array(calls))
}

fn in_regions(regions: &[(u32, u32)], line: u32) -> bool {
    regions
        .iter()
        .any(|(first, last)| *first <= line && line <= *last)
}

/// Labels the disagreeing C and C++ edges that clangd's own answers explain: macros
/// ([`label_macros`]), code an `#if` leaves out ([`INACTIVE_PREPROCESSOR`], from clangd's
/// inactive regions of the call site's file), and calls inside the arguments of a macro that
/// drops them ([`MACRO_DROPS_ARGUMENTS`]).
pub(crate) fn label_conventions(
    reference: &mut Server,
    root: &Path,
    direction: &str,
    missing: &mut [Edge],
    extra: &mut [Edge],
    project_language: &str,
    called: &str,
) {
    label_macros(reference, root, direction, called, missing, extra);
    if direction == "incoming" {
        label_same_calls(reference, root, missing, extra);
    }
    for edge in extra.iter_mut().filter(|edge| edge.convention.is_none()) {
        let Some((file, line)) = edge.site.clone() else {
            continue;
        };
        let path = root.join(&file);
        let inactive = reference.inactive_lines(&path).unwrap_or_default();
        if edge
            .site_lines
            .iter()
            .all(|line| in_regions(&inactive, *line))
        {
            edge.convention = Some(INACTIVE_PREPROCESSOR);
            continue;
        }
        let Some(parsed) = Parsed::read(&path, grammar(&path, project_language)) else {
            continue;
        };
        let macros = enclosing_calls(&parsed, line, edge.site_character);
        // The macro drops the call only if clangd finds nothing at the call itself.
        let dropped = !macros.is_empty()
            && site_definition(reference, root, &file, line, edge.site_character)
                == SiteDefinition::Nothing;
        if dropped
            && macros.into_iter().any(|(line, character)| {
                site_definition(reference, root, &file, line, character) == SiteDefinition::Macro
            })
        {
            edge.convention = Some(MACRO_DROPS_ARGUMENTS);
        }
    }
}

/// Pairs the reference's missing callers with codegraph's extra callers that make the same
/// calls (the same lines) under another name: a function that a macro defines
/// ([`MACRO_DEFINED_CALLER`]: codegraph's caller is named at a macro invocation, as clangd's
/// definition there says), or clangd's one symbol for every `main` ([`ONE_SYMBOL_PER_NAME`]).
fn label_same_calls(reference: &mut Server, root: &Path, missing: &mut [Edge], extra: &mut [Edge]) {
    let lines = |edge: &Edge| {
        let mut lines = edge.site_lines.clone();
        lines.sort_unstable();
        lines.dedup();
        lines
    };
    for finer in extra.iter_mut().filter(|edge| edge.convention.is_none()) {
        let same_lines = lines(finer);
        let Some(coarser) = missing.iter_mut().find(|other| {
            other.convention.is_none() && !same_lines.is_empty() && lines(other) == same_lines
        }) else {
            continue;
        };
        let label = if coarser.name == finer.name && coarser.file != finer.file {
            ONE_SYMBOL_PER_NAME
        } else {
            let text = std::fs::read_to_string(root.join(&finer.file)).unwrap_or_default();
            let line_text = text.lines().nth(finer.line as usize).unwrap_or("");
            let Some(column) = line_text.find(&finer.raw_name) else {
                continue;
            };
            let character = line_text[..column].encode_utf16().count() as u32;
            let file = finer.file.clone();
            if site_definition(reference, root, &file, finer.line, character)
                != SiteDefinition::Macro
            {
                continue;
            }
            MACRO_DEFINED_CALLER
        };
        coarser.convention = Some(label);
        finer.convention = Some(label);
    }
}

/// The positions of the called names of the calls whose arguments hold the call at `line` and
/// `character` (`assert` in `assert( f(x) )`), innermost first.
fn enclosing_calls(parsed: &Parsed, line: u32, character: u32) -> Vec<(u32, u32)> {
    let point = parsed.point(line, character);
    let mut found = Vec::new();
    let Some(mut node) = parsed
        .tree
        .root_node()
        .descendant_for_point_range(point, point)
    else {
        return found;
    };
    while let Some(parent) = node.parent() {
        if parent.kind() == "call_expression"
            && parent
                .child_by_field_name("arguments")
                .is_some_and(|arguments| arguments.id() == node.id())
            && let Some(name) = parent.child_by_field_name("function").and_then(called_name)
        {
            let position = parsed.position(name.start_position());
            found.push((
                position["line"].as_u64().unwrap_or(0) as u32,
                position["character"].as_u64().unwrap_or(0) as u32,
            ));
        }
        node = parent;
    }
    found
}

/// Labels the disagreeing C and C++ edges that a macro or a constructor explains, by what
/// clangd's own `textDocument/definition` says at the call site: a macro's definition means the
/// call site is a macro invocation in this build; a class's, that the call constructs one
/// ([`CONSTRUCTOR_CALL`], on codegraph's edge). The reference's missing callers so are calls that the
/// macro's expansion makes ([`MACRO_EXPANSION`]); codegraph's extra edges so are a name this
/// build defines as a macro, which codegraph resolves to a function of the same name
/// ([`MACRO_IN_THIS_BUILD`]).
///
/// A missing caller whose call is written in the macro's arguments (`EXPECT_TRUE(p.Parse(x))`,
/// the called name on the invocation's line) is not labelled: codegraph could see that call.
fn label_macros(
    reference: &mut Server,
    root: &Path,
    direction: &str,
    called: &str,
    missing: &mut [Edge],
    extra: &mut [Edge],
) {
    let mut verdicts: HashMap<(String, u32, u32), SiteDefinition> = HashMap::new();
    let mut check = |edge: &Edge, reference: &mut Server| {
        let (file, line) = edge.site.clone()?;
        let key = (file, line, edge.site_character);
        if let Some(verdict) = verdicts.get(&key) {
            return Some(*verdict);
        }
        let verdict = site_definition(reference, root, &key.0, line, edge.site_character);
        verdicts.insert(key, verdict);
        Some(verdict)
    };
    if direction == "incoming" {
        for edge in missing.iter_mut().filter(|edge| edge.convention.is_none()) {
            if check(edge, reference) == Some(SiteDefinition::Macro)
                && !written_in_invocation(root, edge, called)
            {
                edge.convention = Some(MACRO_EXPANSION);
            }
        }
    }
    for edge in extra.iter_mut().filter(|edge| edge.convention.is_none()) {
        match check(edge, reference) {
            Some(SiteDefinition::Macro) => edge.convention = Some(MACRO_IN_THIS_BUILD),
            Some(SiteDefinition::Type) => edge.convention = Some(CONSTRUCTOR_CALL),
            _ => {}
        }
    }
}

/// Whether `called` is written, as a whole name, on the line of an edge's call site after the
/// site itself (in the arguments of the macro invoked there).
fn written_in_invocation(root: &Path, edge: &Edge, called: &str) -> bool {
    let Some((file, line)) = &edge.site else {
        return false;
    };
    let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
    let line_text = text.lines().nth(*line as usize).unwrap_or("");
    let from = line_text
        .char_indices()
        .scan(0usize, |units, (byte, character)| {
            let here = *units;
            *units += character.len_utf16();
            Some((byte, here))
        })
        .find(|(_, units)| *units >= edge.site_character as usize)
        .map_or(line_text.len(), |(byte, _)| byte);
    let identifier = |character: char| character.is_alphanumeric() || character == '_';
    line_text[from..].match_indices(called).any(|(at, _)| {
        let rest = &line_text[from..];
        let before = rest[..at].chars().next_back();
        let after = rest[at + called.len()..].chars().next();
        !before.is_some_and(identifier) && !after.is_some_and(identifier)
    })
}

/// What clangd's definition of the name at a call site is.
#[derive(Clone, Copy, PartialEq)]
enum SiteDefinition {
    /// A macro's `#define`: the site is a macro invocation in this build.
    Macro,
    /// A class, struct or union: the site constructs one (`Slice(x)`).
    Type,
    /// Anything else.
    Other,
    /// No definition: clangd has no declaration at the site (a token a macro's expansion
    /// drops, code an `#if` leaves out).
    Nothing,
}

/// clangd's definition of the name at a call site (`file` relative to `root`).
fn site_definition(
    reference: &mut Server,
    root: &Path,
    file: &str,
    line: u32,
    character: u32,
) -> SiteDefinition {
    let path = root.join(file);
    let opened_here = !reference.opened.contains(&path);
    reference.open(&path, ReferenceKind::Clangd.language_id(&path));
    let answer = reference.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri(&path)}, "position": {"line": line, "character": character}}),
    );
    if opened_here {
        reference.close(&path);
    }
    let Ok(answer) = answer else {
        return SiteDefinition::Other;
    };
    debug(
        "reference definition at a disagreeing edge's call site",
        &answer,
    );
    let kinds: Vec<SiteDefinition> = locations(&answer)
        .iter()
        .map(|(target, start)| definition_kind(target, start))
        .collect();
    if kinds.is_empty() {
        return SiteDefinition::Nothing;
    }
    [SiteDefinition::Macro, SiteDefinition::Type]
        .into_iter()
        .find(|kind| kinds.contains(kind))
        .unwrap_or(SiteDefinition::Other)
}

/// What the definition at a location is: a `#define`, the name of a class, struct or union, or
/// something else.
fn definition_kind(target: &str, start: &Value) -> SiteDefinition {
    let Some(target) = crate::path_of_uri(target) else {
        return SiteDefinition::Other;
    };
    let line = start["line"].as_u64().unwrap_or(0) as u32;
    let character = start["character"].as_u64().unwrap_or(0) as u32;
    let Some(parsed) = Parsed::read(&target, Language::Cpp) else {
        return SiteDefinition::Other;
    };
    let define = parsed
        .line_text(line as usize)
        .trim_start()
        .strip_prefix('#');
    if define.is_some_and(|rest| rest.trim_start().starts_with("define")) {
        return SiteDefinition::Macro;
    }
    // `class LEVELDB_EXPORT Slice {`: an export macro before the name, which tree-sitter
    // does not parse as a class's name.
    let before_name = &parsed.line_text(line as usize)[..parsed.point(line, character).column];
    let export_macro = |word: &&str| {
        word.chars()
            .all(|character| character.is_ascii_uppercase() || character == '_')
    };
    let keyword = before_name
        .split(|character: char| !(character.is_alphanumeric() || character == '_'))
        .filter(|word| !word.is_empty())
        .rev()
        .find(|word| !export_macro(word));
    if !before_name.contains('(') && matches!(keyword, Some("class" | "struct" | "union")) {
        return SiteDefinition::Type;
    }
    let point = parsed.point(line, character);
    let named = parsed
        .tree
        .root_node()
        .descendant_for_point_range(point, point)
        .and_then(|node| node.parent());
    match named.map(|node| node.kind()) {
        Some("class_specifier" | "struct_specifier" | "union_specifier") => SiteDefinition::Type,
        _ => SiteDefinition::Other,
    }
}
