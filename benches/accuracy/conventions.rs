//! The conventions of the reference servers that codegraph does not share: each labels the
//! disagreeing edges it explains (`[convention: ...]`), checked against the reference itself.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::compare::{Edge, normalise_name};
use crate::sample::Sample;
use crate::servers::{ReferenceKind, Server};
use crate::{debug, relative_path, uri};

pub(crate) fn print_conventions() {
    println!(
        "C and C++ (clangd 19, which has incoming calls but no callHierarchy/outgoingCalls): the reference's outgoing calls are built from clangd's textDocument/definition at the called name of every call expression in the sampled body (`f(x)`, `o.m(x)`, `p->m(x)`, `ns::f(x)`, `f<T>(x)`; found with tree-sitter), each kept when it lands on a function definition's name in the project; calls a macro's expansion makes, constructors, destructors and operators are not call expressions there. Samples are function definitions in .c/.cc/.cpp files; clangd answers after its background index is complete.\n"
    );
    println!("How edges are compared (applied to both sides alike):");
    println!(
        "  - names by their last segment; a caller at the top level of a file is <module> (tsserver names it after the file, pyright and codegraph after the module);"
    );
    println!(
        "  - gopls names a function literal after the function around it (`log.func()`, `log.func1`): it counts as that function, as codegraph counts it;"
    );
    println!(
        "  - a constructor matches the class that contains it (tsserver names a constructor's item after its class);"
    );
    println!(
        "  - an edge whose name differs but whose item is named on the same line of the same file is the same edge."
    );
    println!(
        "Labelled, not removed: [convention: ...] marks a reference edge that codegraph misses and that the reference lists by a convention codegraph does not share:"
    );
    println!(
        "  - {VALUE_REFERENCE}: pyright, rust-analyzer and gopls 0.5 list `register(self.f)` or `g = x.f` among the incoming calls of f, and clangd `{{\"print\", luaB_print}}` in a table of function pointers (its caller then the table, a variable);"
    );
    println!(
        "  - {LOCAL_CALLEE}: gopls 0.5 lists `callback(x)` as a callee when callback is a parameter of function type;"
    );
    println!(
        "  - {CONSTRUCTOR}: rust-analyzer lists `Some(x)`, `Diff::Longer(..)`, `Wrapper(x)` among the outgoing calls;"
    );
    println!("  - {MACRO_ARGUMENT} (labelled on codegraph's extra outgoing edge);");
    println!(
        "  - {INACTIVE_CFG} (`#[cfg(feature = \"float_roundtrip\")] fn f64_from_parts`; labelled on codegraph's extra edge);"
    );
    println!("  - {DECORATOR} (`@click.command()` above `def cli`);");
    println!(
        "  - {OVERLOAD_SIGNATURE} (`function f(a: string): void;` above `function f(a) {{}}`);"
    );
    println!(
        "  - {STUB} (`attr.asdict(...)`: pyright's `asdict` in `attr/__init__.pyi`, codegraph's in `attr/_funcs.py`);"
    );
    println!(
        "  - {NO_DECLARATION} (`runner.isolated_filesystem()` with a fixture `runner`, `instance.registerHelper()` on an untyped JavaScript parameter): labels codegraph's edge, read with textDocument/definition at the call;"
    );
    println!(
        "  - {CALL_HIERARCHY_OMITS} (`this.lookup(name)` for `View.prototype.lookup = function lookup`; asked again with callHierarchy/incomingCalls at that declaration for codegraph's outgoing edges);"
    );
    println!("  - {NESTED_CALLER} (`def test(): @click.command() def cli(): click.echo(...)`);");
    println!(
        "  - {COARSER_CALLER}: tsserver has no item for `exports.f = function` or `obj.m = function () {{}}` and gives calls inside them to the file, and gives calls inside `{{ key: () => ... }}` to the function around the object literal; pyright gives calls in a class body to the module; rust-analyzer gives calls in a function written inside a macro's arguments to the function the macro expands it to, named after the expansion at the macro's line (`prop` for every property of `quickcheck! {{ fn size_zip(..) {{ .. }} }}`)."
    );
    println!(
        "The file of a pyright item in a `.pyi` stub is the `.py` module beside it, when there is one."
    );
    println!("  - {MACRO_EXPANSION};");
    println!("  - {MACRO_IN_THIS_BUILD};");
    println!("  - {INACTIVE_PREPROCESSOR};");
    println!("  - {MACRO_DROPS_ARGUMENTS};");
    println!("  - {CONSTRUCTOR_CALL};");
    println!("  - {MACRO_DEFINED_CALLER};");
    println!("  - {ONE_SYMBOL_PER_NAME}.");
    println!(
        "Not measurable: tsserver has no call hierarchy item at `exports.f = function` or `obj.m = function (...)` (it answers with the file); such samples are listed among the failed requests and the next definition is taken.\n"
    );
}

pub(crate) const VALUE_REFERENCE: &str =
    "not call syntax: the function passed or stored as a value, or a getter read";

pub(crate) const DECORATOR: &str =
    "a decorator, which pyright counts as a call by the decorated function";

pub(crate) const COARSER_CALLER: &str = "the same call site, which the reference gives to the file, a class body or an enclosing function, and codegraph to a function or class inside it";

pub(crate) const LOCAL_CALLEE: &str = "a call of a parameter or local variable of the caller";

pub(crate) const OVERLOAD_SIGNATURE: &str = "an overloaded function, whose item tsserver answers with a signature's (the first, when asked at the implementation) and no outgoing calls, and codegraph with the function's";

pub(crate) const CONSTRUCTOR: &str = "a tuple-struct or enum-variant constructor";

pub(crate) const MACRO_ARGUMENT: &str = "a call inside a macro's arguments (`assert!(f(x))`), which rust-analyzer lists among the callee's incoming calls but leaves out of the caller's outgoing calls";

pub(crate) const INACTIVE_CFG: &str = "a call in code that a `#[cfg]` leaves out of the crate's default build (a feature outside `[features] default` in Cargo.toml), which rust-analyzer does not analyse and codegraph keeps, as a build variant's call";

pub(crate) const NESTED_CALLER: &str = "a call inside a function or class nested in the sampled one, which pyright counts among the outer function's outgoing calls and codegraph among the nested one's";

pub(crate) const STUB: &str = "pyright answers with the declaration in a `.pyi` stub that re-declares a name the package re-exports, codegraph with the definition the name is imported from";

pub(crate) const CALL_HIERARCHY_OMITS: &str = "tsserver's own textDocument/definition at the call site is this very function, yet its call hierarchy lists the call under no caller (a function assigned to a prototype, a property or `exports`, a member taken from a `require`, a reassigned `let`): the call is real by the reference's own reading; labels codegraph's edge";

pub(crate) const MACRO_EXPANSION: &str = "a call that a macro's expansion makes (`new_localvarliteral(ls, \"self\")` expands to a call of `luaX_newstring`), which clangd lists at the macro's invocation and codegraph does not see, as it does not expand macros; checked with clangd's textDocument/definition at the call, a `#define`";
pub(crate) const MACRO_IN_THIS_BUILD: &str = "a name that the build defines as a macro (`firsttry(g, block, os, ns)` in lua's lmem.c), which codegraph resolves to a function of the same name defined under another branch of an `#if`; checked with clangd's textDocument/definition at the call, a `#define`; labels codegraph's edge";
pub(crate) const INACTIVE_PREPROCESSOR: &str = "a call in code that an `#if` leaves out of the build (`#ifdef SQLITE_DEBUG`, a whole file under `#if SQLITE_OS_WIN`), which clangd does not parse and codegraph keeps; checked with clangd's inactive regions of the call's file; labels codegraph's edge";
pub(crate) const MACRO_DROPS_ARGUMENTS: &str = "a call inside the arguments of a macro whose expansion in this build drops them (`assert( sqlite3_mutex_held(db->mutex) )` with NDEBUG); checked with clangd's textDocument/definition at the enclosing name, a `#define`; labels codegraph's edge";
pub(crate) const CONSTRUCTOR_CALL: &str = "a constructor call (`Slice(*scratch)`), which clangd's textDocument/definition answers with the class, not a constructor, so that the outgoing calls built from it list no edge; labels codegraph's edge";
pub(crate) const MACRO_DEFINED_CALLER: &str = "the same calls, in a function that a macro defines (`TEST_F(DepsLogTest, Recompact) { .. }`): clangd names the caller after the expansion (`Run`, at the macro's definition in test.h), codegraph after the macro at the invocation; checked with clangd's textDocument/definition at codegraph's caller, a `#define`";
pub(crate) const ONE_SYMBOL_PER_NAME: &str = "the same calls, which clangd gives to another program's function of the same name: its index keeps one symbol for the external functions of one name (every `main` of redis-server, redis-cli, redis-benchmark), located at one of them";
pub(crate) const NO_DECLARATION: &str = "the reference finds no declaration for the called name (a receiver it cannot type: for pyright an untyped parameter such as a pytest fixture, a dependency that is not installed, a stub that leaves the member out; for tsserver a receiver of type `any`, such as an untyped parameter or `var self = this` in CommonJS code), so it lists no edge; codegraph's is a guess by unique name or its own typing";

/// Labels the disagreeing edges that follow a convention of the reference (see
/// `print_conventions`): the reference's missing edges by themselves, codegraph's extra edges
/// when they share a call site with a labelled missing edge.
pub(crate) fn label_conventions(
    missing: &mut [Edge],
    extra: &mut [Edge],
    direction: &str,
    sample: &Sample,
    sample_span: (u32, u32),
) {
    for edge in missing.iter_mut() {
        edge.convention = convention_of(edge, direction, sample, sample_span);
    }
    for edge in extra.iter_mut() {
        if direction == "outgoing" && edge.in_macro {
            edge.convention = Some(MACRO_ARGUMENT);
        }
    }
    if direction == "incoming" {
        label_coarser_callers(missing, extra, sample);
    }
    // An extra caller at the call site of a labelled missing caller (a decorator's line, say)
    // is the same call seen by the other convention. Outgoing edges are not paired so: one line
    // may hold several calls.
    for edge in extra.iter_mut().filter(|_| direction == "incoming") {
        if edge.convention.is_none() {
            edge.convention = missing
                .iter()
                .find(|other| other.convention.is_some() && shares_a_site(other, edge))
                .and_then(|other| other.convention);
        }
    }
    // Codegraph's edge for a call that pyright gives to a stub's re-declaration: the same call,
    // same name, same site.
    for edge in extra.iter_mut() {
        if edge.convention.is_none()
            && missing.iter().any(|other| {
                other.convention == Some(STUB) && other.name == edge.name && other.site == edge.site
            })
        {
            edge.convention = Some(STUB);
        }
    }
}

/// Pairs the reference's missing callers with codegraph's extra callers that are the same call
/// sites seen at a finer grain ([`COARSER_CALLER`]).
fn label_coarser_callers(missing: &mut [Edge], extra: &mut [Edge], sample: &Sample) {
    for edge in missing.iter_mut() {
        if edge.convention.is_some() {
            continue;
        }
        // The reference's caller is the file, a class body, or a function around
        // codegraph's caller (tsserver has no item for a function stored in an object
        // literal's property).
        let encloses = |other: &Edge| {
            edge.name == "<module>"
                || edge.kind == 5
                || (other.file == edge.file
                    && other.line != edge.line
                    && edge.span.0 <= other.line
                    && other.line <= edge.span.1)
        };
        // Every finer caller whose call sites are among the reference's caller's (tsserver
        // lists one caller for the file, codegraph each function of the file that calls).
        let mut paired = false;
        for finer in extra.iter_mut().filter(|other| {
            other.convention.is_none()
                && other.name != "<module>"
                && shares_a_site(edge, other)
                && encloses(other)
        }) {
            finer.convention = Some(COARSER_CALLER);
            paired = true;
        }
        if paired {
            edge.convention = Some(COARSER_CALLER);
            continue;
        }
        // rust-analyzer names a function written inside a macro's arguments after the
        // macro's expansion, at the macro's line (every `quickcheck! { fn size_zip(..) }`
        // property is `prop` at `quickcheck! {`): codegraph's callers inside that
        // invocation are the same calls.
        let Some(invocation) = macro_invocation_lines(sample, &edge.file, edge.line) else {
            continue;
        };
        let inside = |line: u32| invocation.0 < line && line <= invocation.1;
        for finer in extra.iter_mut().filter(|other| {
            other.convention.is_none()
                && other.name != "<module>"
                && other.file == edge.file
                && inside(other.line)
                && other
                    .site
                    .as_ref()
                    .is_some_and(|(file, line)| *file == edge.file && inside(*line))
        }) {
            edge.convention = Some(COARSER_CALLER);
            finer.convention = Some(COARSER_CALLER);
        }
    }
}

/// Whether a Python module defines `name` itself (a `def`, `class` or top-level assignment),
/// as opposed to importing it.
pub(crate) fn python_defines(file: &Path, name: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(file) else {
        return true;
    };
    text.lines().any(|line| {
        let trimmed = line.trim_start();
        let rest = trimmed
            .strip_prefix("async ")
            .unwrap_or(trimmed)
            .strip_prefix("def ")
            .or_else(|| trimmed.strip_prefix("class "));
        let named = |rest: &str| {
            rest.strip_prefix(name)
                .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        };
        match rest {
            Some(rest) => named(rest),
            None => {
                line == trimmed
                    && named(line)
                    && line[name.len()..].trim_start().starts_with(['=', ':'])
            }
        }
    })
}

/// Labels codegraph's Python, JavaScript and TypeScript edges that the reference (pyright,
/// tsserver) lacks by what it declares at the call site (`textDocument/definition` at the
/// called name): nothing ([`NO_DECLARATION`]), or a stub's re-declaration of a re-exported name
/// ([`STUB`], Python only).
///
/// For tsserver also: a definition at the call site that is the callee codegraph has (the
/// sampled definition for its callers, codegraph's callee item otherwise), while the
/// reference's call hierarchy lists that call under no caller ([`CALL_HIERARCHY_OMITS`]).
/// `sampled` is the sampled definition's file and lines when the edges are its callers;
/// `reference_edges` are the reference's edges in the same direction.
pub(crate) fn label_by_declaration(
    reference: &mut Server,
    root: &Path,
    called: Option<&str>,
    sampled: Option<(&str, (u32, u32))>,
    reference_edges: &[Edge],
    extra: &mut [Edge],
) {
    for edge in extra.iter_mut().filter(|edge| edge.convention.is_none()) {
        let called_name = called.unwrap_or(&edge.raw_name).to_string();
        let Some((site_file, site_line)) = edge.site.clone() else {
            continue;
        };
        let path = root.join(&site_file);
        let opened_here = !reference.opened.contains(&path);
        let language_id = ReferenceKind::TypeScript.language_id(&path);
        reference.open(&path, language_id);
        let answer = reference.request(
            "textDocument/definition",
            json!({
                "textDocument": {"uri": uri(&path)},
                "position": {"line": site_line, "character": edge.site_character},
            }),
        );
        if opened_here {
            reference.close(&path);
        }
        let Ok(answer) = answer else {
            continue;
        };
        debug("reference definition at an extra edge's call site", &answer);
        let locations: Vec<&Value> = match &answer {
            Value::Array(items) => items.iter().collect(),
            Value::Null => Vec::new(),
            single => vec![single],
        };
        let in_stub = |location: &&Value| {
            location["uri"]
                .as_str()
                .or_else(|| location["targetUri"].as_str())
                .and_then(|uri| relative_path(uri, root))
                .and_then(|file| {
                    let stem = file.strip_suffix(".pyi")?.to_string();
                    let module = root.join(format!("{stem}.py"));
                    Some(module.is_file() && !python_defines(&module, &called_name))
                })
                .unwrap_or(false)
        };
        if locations.is_empty() {
            edge.convention = Some(NO_DECLARATION);
        } else if locations.iter().all(in_stub) {
            edge.convention = Some(STUB);
        } else if language_id != "python"
            && let Some(location) = locations.iter().find(|location| {
                names_callee(location, root, sampled.unwrap_or((&edge.file, edge.span)))
            })
        {
            // tsserver's definition at the call is the callee codegraph has: the call is real
            // by the reference's own reading. Labelled only when the reference's call hierarchy
            // lists the call nowhere (not under another caller either).
            let listed = match sampled {
                Some(_) => reference_edges
                    .iter()
                    .any(|other| shares_a_site(other, edge)),
                None => reference_lists_call(reference, root, location, &site_file, site_line),
            };
            if !listed {
                edge.convention = Some(CALL_HIERARCHY_OMITS);
            }
        }
    }
}

/// Whether a location of a definition answer lies in the callee: its file, within its lines.
pub(crate) fn names_callee(location: &Value, root: &Path, callee: (&str, (u32, u32))) -> bool {
    let Some(file) = location["uri"]
        .as_str()
        .or_else(|| location["targetUri"].as_str())
        .and_then(|uri| relative_path(uri, root))
    else {
        return false;
    };
    let range = if location["range"].is_object() {
        &location["range"]
    } else {
        &location["targetSelectionRange"]
    };
    let Some(line) = range["start"]["line"].as_u64() else {
        return false;
    };
    let (callee_file, (first, last)) = callee;
    file == callee_file && u64::from(first) <= line && line <= u64::from(last)
}

/// Whether the reference's incoming calls of the definition at `location` list a call at
/// `site_file:site_line`, under any caller.
pub(crate) fn reference_lists_call(
    reference: &mut Server,
    root: &Path,
    location: &Value,
    site_file: &str,
    site_line: u32,
) -> bool {
    let uri_text = location["uri"]
        .as_str()
        .or_else(|| location["targetUri"].as_str())
        .unwrap_or_default()
        .to_string();
    let range = if location["range"].is_object() {
        location["range"].clone()
    } else {
        location["targetSelectionRange"].clone()
    };
    let Ok(items) = reference.request(
        "textDocument/prepareCallHierarchy",
        json!({"textDocument": {"uri": uri_text}, "position": range["start"]}),
    ) else {
        // Unknown: count it as listed, so that nothing is labelled on a guess.
        return true;
    };
    let Some(item) = items.as_array().and_then(|items| items.first()).cloned() else {
        return false;
    };
    let Ok(calls) = reference.request("callHierarchy/incomingCalls", json!({"item": item})) else {
        return true;
    };
    calls.as_array().into_iter().flatten().any(|call| {
        call["from"]["uri"]
            .as_str()
            .and_then(|uri| relative_path(uri, root))
            .is_some_and(|file| file == site_file)
            && call["fromRanges"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|range| range["start"]["line"].as_u64() == Some(u64::from(site_line)))
    })
}

/// Whether two incoming edges have a call site in common (same file, same line).
pub(crate) fn shares_a_site(left: &Edge, right: &Edge) -> bool {
    match (&left.site, &right.site) {
        (Some((left_file, _)), Some((right_file, _))) if left_file == right_file => left
            .site_lines
            .iter()
            .any(|line| right.site_lines.contains(line)),
        _ => false,
    }
}

/// The lines (0-based, first and last) of the Rust macro invocation that opens at `line` of the
/// project's `file` (`quickcheck! {`), when that line opens one.
pub(crate) fn macro_invocation_lines(sample: &Sample, file: &str, line: u32) -> Option<(u32, u32)> {
    if !file.ends_with(".rs") {
        return None;
    }
    let root = sample.file.to_str()?.strip_suffix(&sample.relative)?;
    let text = std::fs::read_to_string(Path::new(root).join(file)).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let opening = lines.get(line as usize)?;
    let bang = opening.find('!')?;
    let head = opening[..bang].trim();
    let after = opening[bang + 1..].trim_start();
    if head.is_empty()
        || !head
            .chars()
            .all(|character| character.is_alphanumeric() || matches!(character, '_' | ':'))
        || !(after.starts_with('{') || after.starts_with('('))
    {
        return None;
    }
    // Brackets counted from the `!` on (strings and comments are not told apart: a rough end).
    let mut depth = 0i64;
    for (number, current) in lines.iter().enumerate().skip(line as usize) {
        let from = if number == line as usize { bang } else { 0 };
        for character in current[from..].chars() {
            match character {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some((line, number as u32));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Labels codegraph's extra Rust edges whose call site a `#[cfg]` leaves out of the default
/// build: the crate's `default` features on (read from its Cargo.toml), as rust-analyzer
/// builds it (`lang::rust_cfg` for the platform and the rest).
pub(crate) fn label_inactive_cfg(extra: &mut [Edge], root: &Path) {
    let features = default_features(root);
    let on = |feature: &str| features.contains(feature);
    for edge in extra.iter_mut().filter(|edge| edge.convention.is_none()) {
        let Some((file, line)) = &edge.site else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let start: usize = text
            .split_inclusive('\n')
            .take(*line as usize)
            .map(str::len)
            .sum();
        let line_text = text[start..].lines().next().unwrap_or("");
        let byte = start + (line_text.len() - line_text.trim_start().len());
        let Some(tree) = codegraph::syntax::parse(codegraph::lang::Language::Rust, &text) else {
            continue;
        };
        if codegraph::lang::rust_cfg::disabled_at(tree.root_node(), &text, byte, &on) {
            edge.convention = Some(INACTIVE_CFG);
        }
    }
}

/// The features a crate's default build turns on: `[features] default` in its Cargo.toml and
/// what they turn on, transitively (a dependency's features, `dep:x` and `x/y`, left out).
pub(crate) fn default_features(root: &Path) -> HashSet<String> {
    let mut on: HashSet<String> = HashSet::new();
    let Ok(text) = std::fs::read_to_string(root.join("Cargo.toml")) else {
        return on;
    };
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return on;
    };
    let Some(features) = manifest.get("features").and_then(|value| value.as_table()) else {
        return on;
    };
    let mut pending = vec!["default".to_string()];
    while let Some(feature) = pending.pop() {
        let Some(list) = features.get(&feature).and_then(|value| value.as_array()) else {
            continue;
        };
        for item in list.iter().filter_map(|item| item.as_str()) {
            if item.starts_with("dep:") || item.contains('/') {
                continue;
            }
            if on.insert(item.to_string()) {
                pending.push(item.to_string());
            }
        }
    }
    on
}

/// The label of a reference edge that codegraph misses when the reference lists it by a
/// convention codegraph does not share (see `print_conventions`).
pub(crate) fn convention_of(
    edge: &Edge,
    direction: &str,
    sample: &Sample,
    sample_span: (u32, u32),
) -> Option<&'static str> {
    if edge.decorator {
        return Some(DECORATOR);
    }
    if edge.stub_declaration {
        return Some(STUB);
    }
    if !edge.call_syntax {
        return Some(VALUE_REFERENCE);
    }
    if direction == "outgoing" {
        if matches!(edge.kind, 22 | 23) {
            return Some(CONSTRUCTOR);
        }
        if let Some((_, site_line)) = &edge.site
            && sample
                .file
                .extension()
                .is_some_and(|extension| extension == "py")
            && inside_nested_python_block(&sample.file, sample_span, *site_line)
        {
            return Some(NESTED_CALLER);
        }
        if edge.file == sample.relative
            && sample_span.0 <= edge.line
            && edge.line <= sample_span.1
            && edge.name != normalise_name(&sample.name, 12)
        {
            return Some(LOCAL_CALLEE);
        }
    }
    None
}

/// Whether `line` (0-based) lies in a `def` or `class` nested inside the Python definition that
/// spans `span`: a deeper-indented `def`/`class` line before it whose block has not ended.
pub(crate) fn inside_nested_python_block(file: &Path, span: (u32, u32), line: u32) -> bool {
    let Ok(text) = std::fs::read_to_string(file) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().collect();
    let indent = |text: &str| text.len() - text.trim_start().len();
    let Some(outer) = lines.get(span.0 as usize) else {
        return false;
    };
    let outer_indent = indent(outer);
    let mut open: Option<usize> = None;
    let last = (line as usize).min(lines.len().saturating_sub(1));
    for (number, current) in lines
        .iter()
        .enumerate()
        .take(last + 1)
        .skip(span.0 as usize + 1)
    {
        if current.trim().is_empty() {
            continue;
        }
        let current_indent = indent(current);
        if let Some(nested) = open
            && current_indent <= nested
            && number != line as usize
        {
            open = None;
        }
        let trimmed = current.trim_start();
        if open.is_none()
            && current_indent > outer_indent
            && number != line as usize
            && (trimmed.starts_with("def ")
                || trimmed.starts_with("async def ")
                || trimmed.starts_with("class "))
        {
            open = Some(current_indent);
        }
    }
    open.is_some_and(|nested| indent(lines.get(line as usize).unwrap_or(&"")) > nested)
}

pub(crate) fn parse_rust(path: &Path) -> Option<tree_sitter::Tree> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .ok()?;
    parser.parse(&text, None)
}

/// Whether the start of the range (a call site) lies inside a macro invocation's token tree,
/// within the function around it.
pub(crate) fn inside_rust_macro(
    tree: Option<&tree_sitter::Tree>,
    lines: &[String],
    range: &Value,
) -> bool {
    let Some(tree) = tree else {
        return false;
    };
    let line = range["start"]["line"].as_u64().unwrap_or(0) as usize;
    let units = range["start"]["character"].as_u64().unwrap_or(0) as usize;
    let Some(text) = lines.get(line) else {
        return false;
    };
    // UTF-16 units to a byte column.
    let mut column = text.len();
    let mut count = 0;
    for (byte, character) in text.char_indices() {
        if count >= units {
            column = byte;
            break;
        }
        count += character.len_utf16();
    }
    let point = tree_sitter::Point::new(line, column);
    let mut node = tree.root_node().descendant_for_point_range(point, point);
    while let Some(current) = node {
        match current.kind() {
            "macro_invocation" => return true,
            "function_item" => return false,
            _ => node = current.parent(),
        }
    }
    false
}
