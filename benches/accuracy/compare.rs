//! One sampled definition asked of both servers, and their answers compared: the edges of a
//! call hierarchy answer, names normalised, the reference's edges paired with codegraph's.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::conventions::{
    OVERLOAD_SIGNATURE, inside_rust_macro, label_by_declaration, label_conventions,
    label_inactive_cfg, parse_rust, python_defines,
};
use crate::cxx;
use crate::sample::Sample;
use crate::servers::{ReferenceKind, Server};
use crate::{ProjectResult, debug, relative_path, uri};

#[derive(Default, Clone, Copy)]
pub(crate) struct Counts {
    pub(crate) agreed: usize,
    pub(crate) reference: usize,
    pub(crate) codegraph: usize,
    /// The reference's edges that codegraph misses and that carry a convention label.
    pub(crate) convention: usize,
    /// Codegraph's edges that the reference lacks and that carry a convention label.
    pub(crate) convention_extra: usize,
}

impl Counts {
    pub(crate) fn add(&mut self, other: Counts) {
        self.agreed += other.agreed;
        self.reference += other.reference;
        self.codegraph += other.codegraph;
        self.convention += other.convention;
        self.convention_extra += other.convention_extra;
    }
}

/// One edge as a server reported it.
#[derive(Clone, Debug)]
pub(crate) struct Edge {
    /// Path relative to the project root.
    pub(crate) file: String,
    /// The normalised name (see `normalise_name`).
    pub(crate) name: String,
    /// The name as the server gave it, and its symbol kind.
    pub(crate) raw_name: String,
    pub(crate) kind: i64,
    /// 0-based line of the item's name.
    pub(crate) line: u32,
    /// The item's whole range, first and last line (0-based).
    pub(crate) span: (u32, u32),
    /// Where the call is: file relative to the root and 0-based line (the first call site).
    pub(crate) site: Option<(String, u32)>,
    /// The first call site's UTF-16 column, and the lines of every call site.
    pub(crate) site_character: u32,
    pub(crate) site_lines: Vec<u32>,
    /// pyright named a declaration in a `.pyi` stub that the `.py` module beside it does not
    /// define (a name the package re-exports from elsewhere).
    pub(crate) stub_declaration: bool,
    /// Whether any call site is call syntax (`f(`, `f::<T>(`, `new F`, `@f`, `f!(`), as opposed
    /// to a mention of the function as a value (`register(self.f)`, `g = x.f`).
    pub(crate) call_syntax: bool,
    /// Whether the first call site's line starts with `@`.
    pub(crate) decorator: bool,
    /// Whether every call site lies inside the arguments of a Rust macro (`assert!(f(x))`).
    pub(crate) in_macro: bool,
    /// Why the reference may list this edge by a convention codegraph does not share.
    pub(crate) convention: Option<&'static str>,
}

pub(crate) struct Disagreement {
    /// The sampled definition: file, 0-based line, name.
    pub(crate) definition: (String, u32, String),
    pub(crate) direction: &'static str,
    pub(crate) missing: Vec<Edge>,
    pub(crate) extra: Vec<Edge>,
}

/// Asks both servers about one definition and adds what they say to the result.
pub(crate) fn compare(
    codegraph: &mut Server,
    reference: &mut Server,
    root: &Path,
    sample: &Sample,
    settle: bool,
    result: &mut ProjectResult,
) -> Result<(), String> {
    let reference_item = reference_item(reference, sample)?;
    let codegraph_item = codegraph_item(codegraph, sample, &reference_item)?;
    let reference_answers = reference_calls(
        reference,
        root,
        sample,
        &reference_item,
        settle,
        &result.language,
    )?;
    // No item: codegraph does not know this definition; all the reference's edges are missing.
    let codegraph_answers = codegraph_calls(codegraph, codegraph_item.as_ref())?;
    let sampled = Sampled {
        sample,
        root,
        reference_span: reference_span(&reference_item, sample),
        overload_signature: overload_signature(sample, &reference_item, codegraph_item.as_ref()),
        language: result.language.clone(),
    };
    result.samples += 1;
    let mut definition = (sample.relative.clone(), sample.line, sample.name.clone());
    if codegraph_item.is_none() {
        definition.2 = format!("{} (codegraph: no call hierarchy item)", sample.name);
    }
    for direction in ["incoming", "outgoing"] {
        let (side, caller_file, reference_answer, codegraph_answer) = match direction {
            "incoming" => (
                "from",
                None,
                &reference_answers.incoming,
                &codegraph_answers.incoming,
            ),
            _ => (
                "to",
                Some(sample.relative.as_str()),
                &reference_answers.outgoing,
                &codegraph_answers.outgoing,
            ),
        };
        let reference_edges = edges(reference_answer, side, root, caller_file);
        let codegraph_edges = edges(codegraph_answer, side, root, caller_file);
        let (counts, missing, extra) = compare_direction(
            reference,
            &sampled,
            direction,
            &reference_edges,
            &codegraph_edges,
        );
        match direction {
            "incoming" => result.incoming.add(counts),
            _ => result.outgoing.add(counts),
        }
        if !missing.is_empty() || !extra.is_empty() {
            result.disagreements.push(Disagreement {
                definition: definition.clone(),
                direction,
                missing,
                extra,
            });
        }
    }
    Ok(())
}

/// A definition's incoming and outgoing calls, as a server answered them.
struct Calls {
    incoming: Value,
    outgoing: Value,
}

/// What the comparison of one direction needs to know about the sampled definition.
struct Sampled<'a> {
    sample: &'a Sample,
    root: &'a Path,
    /// The definition's first and last line, as the reference sees them.
    reference_span: (u32, u32),
    /// tsserver answered with an overload signature's item (see [`overload_signature`]).
    overload_signature: bool,
    language: String,
}

/// The reference's call hierarchy item for the sampled definition.
fn reference_item(reference: &mut Server, sample: &Sample) -> Result<Value, String> {
    let position = json!({
        "textDocument": {"uri": uri(&sample.file)},
        "position": {"line": sample.line, "character": sample.character},
    });
    let answer = reference
        .request("textDocument/prepareCallHierarchy", position)
        .map_err(|error| format!("reference prepareCallHierarchy: {error}"))?;
    debug("reference prepareCallHierarchy", &answer);
    let mut item = pick_item(&answer, sample.line).filter(|item| is_item_of(item, sample));
    if item.is_none() {
        // tsserver has no item at the name of `exports.f = function () {}` or `obj.f = () =>`,
        // but has one at the function expression itself.
        if let Some(character) =
            function_expression_column(&sample.file, sample.line, sample.character)
        {
            let answer = reference
                .request(
                    "textDocument/prepareCallHierarchy",
                    json!({
                        "textDocument": {"uri": uri(&sample.file)},
                        "position": {"line": sample.line, "character": character},
                    }),
                )
                .map_err(|error| format!("reference prepareCallHierarchy: {error}"))?;
            debug(
                "reference prepareCallHierarchy (function expression)",
                &answer,
            );
            item = pick_item(&answer, sample.line).filter(|item| is_item_of(item, sample));
        }
    }
    item.ok_or_else(|| {
        "the reference server has no call hierarchy item for this definition".to_string()
    })
}

/// Codegraph's call hierarchy item for the sampled definition, None when it has none.
fn codegraph_item(
    codegraph: &mut Server,
    sample: &Sample,
    reference_item: &Value,
) -> Result<Option<Value>, String> {
    let position = json!({
        "textDocument": {"uri": uri(&sample.file)},
        "position": {"line": sample.line, "character": sample.character},
    });
    let answer = codegraph
        .request("textDocument/prepareCallHierarchy", position)
        .map_err(|error| format!("codegraph prepareCallHierarchy: {error}"))?;
    let item = pick_item(&answer, sample.line);
    let reference_selection = &reference_item["selectionRange"]["start"];
    if item.is_some()
        || (reference_selection["line"].as_u64() == Some(sample.line as u64)
            && reference_selection["character"].as_u64() == Some(sample.character as u64))
    {
        return Ok(item);
    }
    // Where the reference names the item, when that is not where the sample is (the name of a
    // JavaScript constructor function that tsserver lists as `constructor`).
    let answer = codegraph
        .request(
            "textDocument/prepareCallHierarchy",
            json!({
                "textDocument": {"uri": uri(&sample.file)},
                "position": reference_selection,
            }),
        )
        .map_err(|error| format!("codegraph prepareCallHierarchy: {error}"))?;
    Ok(pick_item(&answer, sample.line))
}

/// The reference's incoming and outgoing calls of its item. clangd 19 has no outgoing calls:
/// they are built from its definitions at the call sites (`cxx::outgoing_calls`).
fn reference_calls(
    reference: &mut Server,
    root: &Path,
    sample: &Sample,
    item: &Value,
    settle: bool,
    language: &str,
) -> Result<Calls, String> {
    let mut incoming = reference
        .request("callHierarchy/incomingCalls", json!({"item": item}))
        .map_err(|error| format!("reference incomingCalls: {error}"))?;
    if settle {
        // The first answer after indexing: ask again until two answers agree, in case the
        // server was still loading.
        for _ in 0..5 {
            std::thread::sleep(Duration::from_secs(2));
            let again = reference
                .request("callHierarchy/incomingCalls", json!({"item": item}))
                .map_err(|error| format!("reference incomingCalls: {error}"))?;
            if again == incoming {
                break;
            }
            incoming = again;
        }
    }
    let outgoing = if ReferenceKind::of(language) == ReferenceKind::Clangd {
        cxx::outgoing_calls(reference, root, sample, item, language)?
    } else {
        reference
            .request("callHierarchy/outgoingCalls", json!({"item": item}))
            .map_err(|error| format!("reference outgoingCalls: {error}"))?
    };
    debug("reference incomingCalls", &incoming);
    debug("reference outgoingCalls", &outgoing);
    Ok(Calls { incoming, outgoing })
}

/// Codegraph's incoming and outgoing calls of its item; none without an item.
fn codegraph_calls(codegraph: &mut Server, item: Option<&Value>) -> Result<Calls, String> {
    let calls = match item {
        Some(item) => Calls {
            incoming: codegraph
                .request("callHierarchy/incomingCalls", json!({"item": item}))
                .map_err(|error| format!("codegraph incomingCalls: {error}"))?,
            outgoing: codegraph
                .request("callHierarchy/outgoingCalls", json!({"item": item}))
                .map_err(|error| format!("codegraph outgoingCalls: {error}"))?,
        },
        None => Calls {
            incoming: json!([]),
            outgoing: json!([]),
        },
    };
    debug("codegraph incomingCalls", &calls.incoming);
    debug("codegraph outgoingCalls", &calls.outgoing);
    Ok(calls)
}

fn line_of(position: &Value) -> u32 {
    position["line"].as_u64().unwrap_or(0) as u32
}

/// The wider of the reference item's range and the documentSymbol's: gopls 0.5 gives an item
/// the range of its name only.
fn reference_span(reference_item: &Value, sample: &Sample) -> (u32, u32) {
    (
        line_of(&reference_item["range"]["start"]).min(sample.span.0),
        line_of(&reference_item["range"]["end"]).max(sample.span.1),
    )
}

/// A TypeScript overload signature: tsserver's item is a signature, which calls nothing (asked
/// at a signature, the signature itself; asked at the implementation of an overloaded function,
/// its first signature); codegraph's is the function they declare.
fn overload_signature(
    sample: &Sample,
    reference_item: &Value,
    codegraph_item: Option<&Value>,
) -> bool {
    let typescript = sample
        .file
        .extension()
        .is_some_and(|extension| matches!(extension.to_str(), Some("ts" | "tsx" | "mts" | "cts")));
    typescript
        && codegraph_item.is_some_and(|item| {
            line_of(&item["selectionRange"]["start"])
                != line_of(&reference_item["selectionRange"]["start"])
                && item["uri"] == reference_item["uri"]
        })
}

/// Pairs one direction's edges, labels the disagreeing ones, and counts them; with the
/// unmatched edges (missing, extra).
fn compare_direction(
    reference: &mut Server,
    sampled: &Sampled,
    direction: &'static str,
    reference_edges: &[Edge],
    codegraph_edges: &[Edge],
) -> (Counts, Vec<Edge>, Vec<Edge>) {
    let (sample, root, reference_span) = (sampled.sample, sampled.root, sampled.reference_span);
    let (agreed, mut missing, mut extra) = match_edges(reference_edges, codegraph_edges);
    label_conventions(&mut missing, &mut extra, direction, sample, reference_span);
    if sampled.language == "rust" {
        label_inactive_cfg(&mut extra, root);
    }
    if matches!(sampled.language.as_str(), "c" | "cpp") {
        let language = sampled.language.as_str();
        cxx::label_conventions(
            reference,
            root,
            direction,
            &mut missing,
            &mut extra,
            language,
            called_name(&sample.name),
        );
    }
    if direction == "outgoing" && sampled.overload_signature && reference_edges.is_empty() {
        for edge in extra.iter_mut() {
            edge.convention.get_or_insert(OVERLOAD_SIGNATURE);
        }
    }
    // Python (pyright) and JavaScript/TypeScript (tsserver): what the reference declares at the
    // call site of each extra edge.
    if sample.file.extension().is_some_and(|extension| {
        ["py", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx"]
            .iter()
            .any(|known| extension == *known)
    }) {
        // The called name: the sample's for its callers, each callee's own otherwise.
        let called = (direction == "incoming").then_some(sample.name.as_str());
        let sampled_definition = (direction == "incoming").then_some((
            sample.relative.as_str(),
            (reference_span.0, reference_span.1),
        ));
        label_by_declaration(
            reference,
            root,
            called,
            sampled_definition,
            reference_edges,
            &mut extra,
        );
    }
    let counts = Counts {
        agreed,
        reference: agreed + missing.len(),
        codegraph: agreed + extra.len(),
        convention: missing
            .iter()
            .filter(|edge| edge.convention.is_some())
            .count(),
        convention_extra: extra
            .iter()
            .filter(|edge| edge.convention.is_some())
            .count(),
    };
    (counts, missing, extra)
}

/// Whether a reference item is the sampled definition: its name, or a function-like item named
/// on the definition's line.
pub(crate) fn is_item_of(item: &Value, sample: &Sample) -> bool {
    let kind = item["kind"].as_i64().unwrap_or(0);
    let name = item["name"].as_str().unwrap_or("");
    normalise_name(name, kind) == normalise_name(&sample.name, 12)
        || (matches!(kind, 6 | 9 | 12)
            && item["selectionRange"]["start"]["line"].as_u64() == Some(sample.line as u64))
}

/// The UTF-16 column of the `function` keyword or of the `=>` after the name on the same line.
pub(crate) fn function_expression_column(file: &Path, line: u32, character: u32) -> Option<u32> {
    let text = std::fs::read_to_string(file).ok()?;
    let line_text = text.lines().nth(line as usize)?;
    let units: Vec<u16> = line_text.encode_utf16().collect();
    let after: String = String::from_utf16_lossy(units.get(character as usize..)?);
    let offset = after.find("function").or_else(|| after.find("=>"))?;
    Some(character + after[..offset].encode_utf16().count() as u32)
}

/// The item of a prepareCallHierarchy answer: the one named on `line` when there are several.
pub(crate) fn pick_item(answer: &Value, line: u32) -> Option<Value> {
    let items = answer.as_array()?;
    items
        .iter()
        .find(|item| item["selectionRange"]["start"]["line"].as_u64() == Some(line as u64))
        .or_else(|| items.first())
        .cloned()
}

/// The edges of an incomingCalls (`side` = "from") or outgoingCalls (`side` = "to") answer,
/// inside `root`, one per (file, name). Call sites of incoming calls are in the caller's file,
/// those of outgoing calls in `caller_file`.
pub(crate) fn edges(
    answer: &Value,
    side: &str,
    root: &Path,
    caller_file: Option<&str>,
) -> Vec<Edge> {
    let mut sources = Sources::default();
    let mut edges: Vec<Edge> = Vec::new();
    for call in answer.as_array().into_iter().flatten() {
        let Some(edge) = edge_of(call, side, root, caller_file, &mut sources) else {
            continue;
        };
        let site_file = caller_file.map_or_else(|| edge.file.clone(), str::to_string);
        match edges
            .iter_mut()
            .find(|other| other.file == edge.file && other.name == edge.name)
        {
            None => edges.push(edge),
            Some(other) => {
                other.call_syntax |= edge.call_syntax;
                other.in_macro &= edge.in_macro;
                if other.site.as_ref().map(|(file, _)| file) == Some(&site_file) {
                    other.site_lines.extend(edge.site_lines);
                }
            }
        }
    }
    edges
}

/// The files an answer's call sites are in: their lines, and Rust files' syntax trees.
#[derive(Default)]
struct Sources {
    texts: HashMap<String, Vec<String>>,
    trees: HashMap<String, Option<tree_sitter::Tree>>,
}

/// The edge of one entry of an incomingCalls or outgoingCalls answer; None when its item is
/// outside `root`.
fn edge_of(
    call: &Value,
    side: &str,
    root: &Path,
    caller_file: Option<&str>,
    sources: &mut Sources,
) -> Option<Edge> {
    let item = &call[side];
    let ItemName {
        file,
        name,
        raw_name,
        stub_declaration,
    } = item_name(item, root)?;
    let kind = item["kind"].as_i64().unwrap_or(0);
    let line_of = |position: &Value| position["line"].as_u64().unwrap_or(0) as u32;
    let line = line_of(&item["selectionRange"]["start"]);
    let span = (
        line_of(&item["range"]["start"]),
        line_of(&item["range"]["end"]),
    );
    let site_file = caller_file.map_or_else(|| file.clone(), str::to_string);
    let ranges: Vec<&Value> = call["fromRanges"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let site = ranges
        .first()
        .map(|range| (site_file.clone(), line_of(&range["start"])));
    let site_character = ranges.first().map_or(0, |range| {
        range["start"]["character"].as_u64().unwrap_or(0) as u32
    });
    let site_lines: Vec<u32> = ranges
        .iter()
        .map(|range| line_of(&range["start"]))
        .collect();
    let lines = sources.texts.entry(site_file.clone()).or_insert_with(|| {
        std::fs::read_to_string(root.join(&site_file))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    });
    let call_syntax = ranges.is_empty() || ranges.iter().any(|range| is_call_syntax(lines, range));
    let decorator = site
        .as_ref()
        .and_then(|(_, line)| lines.get(*line as usize))
        .is_some_and(|text| text.trim_start().starts_with('@'));
    let in_macro = site_file.ends_with(".rs")
        && !ranges.is_empty()
        && ranges.iter().all(|range| {
            let tree = sources
                .trees
                .entry(site_file.clone())
                .or_insert_with(|| parse_rust(&root.join(&site_file)));
            inside_rust_macro(tree.as_ref(), lines, range)
        });
    Some(Edge {
        file,
        name,
        raw_name,
        kind,
        line,
        span,
        site,
        site_character,
        site_lines,
        stub_declaration,
        call_syntax,
        decorator,
        in_macro,
        convention: None,
    })
}

/// What an answer's item is called, and where: its file relative to the root (None outside
/// it) and its normalised name.
struct ItemName {
    file: String,
    name: String,
    raw_name: String,
    stub_declaration: bool,
}

fn item_name(item: &Value, root: &Path) -> Option<ItemName> {
    let mut file = item["uri"]
        .as_str()
        .and_then(|uri| relative_path(uri, root))?;
    let kind = item["kind"].as_i64().unwrap_or(0);
    let raw_name = item["name"].as_str().unwrap_or("").to_string();
    // pyright names the declaration in a `.pyi` stub beside the module: the same function.
    let mut stub_declaration = false;
    if let Some(stem) = file.strip_suffix(".pyi")
        && root.join(format!("{stem}.py")).is_file()
    {
        file = format!("{stem}.py");
        stub_declaration = !python_defines(&root.join(&file), &raw_name);
    }
    let base_name = Path::new(&file)
        .file_name()
        .map_or(String::new(), |name| name.to_string_lossy().to_string());
    // tsserver names a file-level caller after the file.
    let name = if raw_name == base_name {
        "<module>".to_string()
    } else {
        normalise_name(&raw_name, kind)
    };
    Some(ItemName {
        file,
        name,
        raw_name,
        stub_declaration,
    })
}

/// Whether the range (a name at a call site, as servers give it) is called there: followed by
/// `(`, generic arguments and `(`, `!` (a macro), a template literal; or preceded by `new` or `@`.
/// A range that spans more than the name (a whole call) counts as a call.
pub(crate) fn is_call_syntax(lines: &[String], range: &Value) -> bool {
    let start_line = range["start"]["line"].as_u64().unwrap_or(0) as usize;
    let end_line = range["end"]["line"].as_u64().unwrap_or(0) as usize;
    let column = |position: &Value| position["character"].as_u64().unwrap_or(0) as usize;
    let (Some(first), Some(last)) = (lines.get(start_line), lines.get(end_line)) else {
        return true;
    };
    let utf16_to_byte = |text: &str, units: usize| {
        let mut count = 0;
        for (byte, character) in text.char_indices() {
            if count >= units {
                return byte;
            }
            count += character.len_utf16();
        }
        text.len()
    };
    let start = utf16_to_byte(first, column(&range["start"]));
    let end = utf16_to_byte(last, column(&range["end"]));
    let named = if start_line == end_line {
        &first[start.min(end)..end]
    } else {
        ""
    };
    if named.contains('(') || named.ends_with(')') {
        return true;
    }
    let before = first[..start].trim_end();
    if before.ends_with('@') || before.ends_with("new") {
        return true;
    }
    // What follows on the line, then on the next lines (a call's arguments may start there).
    let mut after = last[end..].to_string();
    for next in lines.iter().skip(end_line + 1).take(2) {
        after.push(' ');
        after.push_str(next);
    }
    let mut rest = after.trim_start();
    if let Some(generic) = rest.strip_prefix("::") {
        rest = generic.trim_start();
    }
    if rest.starts_with('<') {
        // Skip balanced generic arguments.
        let mut depth = 0;
        for (index, character) in rest.char_indices() {
            match character {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        rest = rest[index + 1..].trim_start();
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    rest.starts_with('(')
        || rest.starts_with('!')
        || rest.starts_with('`')
        || rest.starts_with("?.(")
}

/// The last segment of a name, so that servers' qualified and unqualified names compare equal;
/// `<module>` for a file or module item (a call at the top level of a file).
pub(crate) fn normalise_name(name: &str, kind: i64) -> String {
    // File, Module, Namespace, Package.
    if matches!(kind, 1 | 2 | 4) {
        return "<module>".to_string();
    }
    let mut name = name.trim();
    // gopls names a function literal after the function around it, `log.func()` or `log.func1`:
    // at the (file, function) level it is part of that function, as it is for codegraph.
    while let Some((outer, inner)) = name.rsplit_once('.') {
        if inner == "func()"
            || (inner.starts_with("func") && inner[4..].chars().all(|c| c.is_ascii_digit()))
        {
            name = outer;
        } else {
            break;
        }
    }
    // Drop a parameter list or generic arguments: `f(x)`, `f<T>`.
    let name = name
        .split(['(', '<'])
        .find(|part| !part.is_empty())
        .unwrap_or(name);
    let name = name.trim_end_matches(')');
    let last = name
        .rsplit(['.', ':', ' '])
        .find(|part| !part.is_empty())
        .unwrap_or(name);
    last.to_string()
}

/// Pairs the reference's edges with codegraph's: same (file, name), else same file and line.
/// Returns the number agreed, the reference's unmatched edges and codegraph's.
pub(crate) fn match_edges(reference: &[Edge], codegraph: &[Edge]) -> (usize, Vec<Edge>, Vec<Edge>) {
    let mut used = vec![false; codegraph.len()];
    let mut missing = Vec::new();
    let mut agreed = 0;
    let mut unmatched = Vec::new();
    for edge in reference {
        match codegraph
            .iter()
            .enumerate()
            .position(|(i, other)| !used[i] && other.file == edge.file && other.name == edge.name)
        {
            Some(i) => {
                used[i] = true;
                agreed += 1;
            }
            None => unmatched.push(edge),
        }
    }
    for edge in unmatched {
        match codegraph
            .iter()
            .enumerate()
            .position(|(i, other)| !used[i] && other.file == edge.file && other.line == edge.line)
        {
            Some(i) => {
                used[i] = true;
                agreed += 1;
            }
            None => missing.push(edge.clone()),
        }
    }
    // A constructor is named after its class by tsserver and pyright, `constructor` or
    // `__init__` by codegraph: the same edge when the class contains the constructor.
    let is_constructor =
        |edge: &Edge| edge.kind == 9 || edge.name == "constructor" || edge.name == "__init__";
    let mut still_missing = Vec::new();
    for edge in missing {
        match codegraph.iter().enumerate().position(|(i, other)| {
            !used[i]
                && other.file == edge.file
                && ((edge.kind == 5
                    && is_constructor(other)
                    && edge.span.0 <= other.line
                    && other.line <= edge.span.1)
                    || (other.kind == 5
                        && is_constructor(&edge)
                        && other.span.0 <= edge.line
                        && edge.line <= other.span.1))
        }) {
            Some(i) => {
                used[i] = true;
                agreed += 1;
            }
            None => still_missing.push(edge),
        }
    }
    let missing = still_missing;
    let extra = codegraph
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(edge, _)| edge.clone())
        .collect();
    (agreed, missing, extra)
}

/// The last segment of a C++ name (`method` of `Class::method`), as a call writes it.
fn called_name(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}
