//! The accuracy benchmark: codegraph's call hierarchy against each language's own language
//! server, on real projects. A program that prints figures, never a test that fails.
//!
//!   benches/accuracy-servers.sh            # once: pyright, typescript-language-server, gopls,
//!                                          # rust-analyzer
//!   benches/accuracy-corpus.sh             # once: bench-accuracy/ (5 projects per language)
//!   cargo bench --bench accuracy [-- DIR]  # or CODEGRAPH_ACCURACY_CORPUS=DIR
//!
//! Knobs (environment): ACCURACY_SAMPLES (functions sampled per project, default 40),
//! ACCURACY_LANGUAGES (comma-separated, default all five), ACCURACY_PROJECTS (comma-separated
//! project names), ACCURACY_SEED (default 9), ACCURACY_CODEGRAPH (another codegraph binary to
//! measure, say an older build), ACCURACY_DEBUG (print every answer to stderr).
//!
//! For each project of DIR/projects.tsv (written by accuracy-corpus.sh), it starts
//! `codegraph lsp --stdio --no-cache` (the binary of this package) and the reference server, both
//! over pipes with the project as the workspace root, waits for both to finish indexing, then
//! samples function and method definitions with a fixed seed: the project's source files in a
//! seeded order, one definition per file (a second per file only once every file has given one),
//! taken from the REFERENCE server's `textDocument/documentSymbol` (kinds Function, Method,
//! Constructor). So the sample is what the language's server calls a function, and a definition
//! codegraph does not know counts against codegraph.
//!
//! For each sampled definition it asks both servers `textDocument/prepareCallHierarchy` at the
//! definition's name, then `callHierarchy/incomingCalls` and `callHierarchy/outgoingCalls`, and
//! compares at the (file, function) level: an incoming edge is (caller file, caller name), an
//! outgoing edge (callee file, callee name). Items outside the project root (the standard library,
//! dependencies) are dropped from both sides. Names are compared by their last segment
//! (`Foo.bar`, `Foo::bar`, `(*Foo).bar` are `bar`); a file-level or module-level caller is
//! `<module>`; an item whose name differs but whose name sits on the same line of the same file
//! counts as the same edge (servers name anonymous functions differently). Precision and recall
//! are micro-averaged over the sampled definitions, per language and direction; then every
//! disagreeing edge is listed with file:line and the source line of the call, "missing" when the
//! reference has it and codegraph not, "extra" the other way round. A constructor matches the
//! class that contains it (tsserver names a constructor's item after its class), and pyright's
//! declarations in a `.pyi` stub count as the `.py` module beside it. A definition for which
//! codegraph has no call hierarchy item counts all the reference's edges as missing.
//!
//! A request that fails or times out on either side is reported and its sample left out of the
//! figures; the next definition in sampling order takes its place. Readiness: a server is ready
//! once no `$/progress` is under way, rust-analyzer says it is quiescent, and it has been silent
//! for a few seconds; the first sample's incoming calls are asked again until two answers agree;
//! ContentModified answers are retried. A reference server that crashes is restarted.
//!
//! Where a reference follows a convention of its own (see `print_conventions`), the edges it
//! lists by that convention are labelled `[convention: ...]` in the listing, not removed, and the
//! figures are printed twice: with every edge, and without the labelled ones.

#![allow(clippy::print_stdout)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use codegraph_testkit::lsp::{LspConnection, LspError, Notifications};
use serde_json::{Value, json};

/// The longest wait for a server's initial index.
const INDEX_TIMEOUT: Duration = Duration::from_secs(900);
/// The longest wait for one answer. Reference servers compute call hierarchies on demand, some
/// of them over the whole project: generous.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(180);
/// A server counts as ready once no progress is under way and it has been silent this long.
const QUIET: Duration = Duration::from_secs(3);

const LANGUAGES: [&str; 5] = ["python", "javascript", "typescript", "rust", "go"];

fn main() {
    let corpus = corpus_dir();
    let listing = corpus.join("projects.tsv");
    if !listing.is_file() {
        eprintln!(
            "no accuracy corpus at {}: run benches/accuracy-servers.sh and benches/accuracy-corpus.sh, or pass a directory (cargo bench --bench accuracy -- DIR, or CODEGRAPH_ACCURACY_CORPUS=DIR)",
            corpus.display()
        );
        std::process::exit(2);
    }
    let corpus = corpus.canonicalize().expect("corpus path");
    let samples_per_project: usize = env_or("ACCURACY_SAMPLES", 40);
    let seed: u64 = env_or("ACCURACY_SEED", 9);
    let languages = env_list("ACCURACY_LANGUAGES");
    let project_names = env_list("ACCURACY_PROJECTS");
    let logs = corpus.join(".logs");
    std::fs::create_dir_all(&logs).expect("log directory");

    println!("corpus     {}", corpus.display());
    println!("codegraph  {}", codegraph_binary());
    println!(
        "sampling   {samples_per_project} definitions per project, seed {seed}, from the reference server's documentSymbol"
    );
    println!("servers' stderr in {}\n", logs.display());
    print_conventions();

    let text = std::fs::read_to_string(&listing).expect("projects.tsv");
    let mut results: Vec<ProjectResult> = Vec::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [language, name, relative] = fields[..] else {
            continue;
        };
        if languages
            .as_ref()
            .is_some_and(|wanted| !wanted.iter().any(|l| l == language))
            || project_names
                .as_ref()
                .is_some_and(|wanted| !wanted.iter().any(|n| n == name))
        {
            continue;
        }
        let root = corpus.join(relative);
        let Ok(root) = root.canonicalize() else {
            println!("{language:<11} {name}: missing directory {relative}, skipped");
            continue;
        };
        let started = Instant::now();
        let result = run_project(
            language,
            name,
            &root,
            &corpus,
            &logs,
            samples_per_project,
            seed,
        );
        println!(
            "{language:<11} {name:<24} {} sampled, {} failed, incoming {}/{}/{} outgoing {}/{}/{} (agree/reference/codegraph), {:.0} s",
            result.samples,
            result.failures.len(),
            result.incoming.agreed,
            result.incoming.reference,
            result.incoming.codegraph,
            result.outgoing.agreed,
            result.outgoing.reference,
            result.outgoing.codegraph,
            started.elapsed().as_secs_f64()
        );
        results.push(result);
    }

    print_disagreements(&results);
    print_failures(&results);
    print_summary(&results);
}

fn print_conventions() {
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
        "  - {VALUE_REFERENCE}: pyright, rust-analyzer and gopls 0.5 list `register(self.f)` or `g = x.f` among the incoming calls of f;"
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
    println!(
        "Not measurable: tsserver has no call hierarchy item at `exports.f = function` or `obj.m = function (...)` (it answers with the file); such samples are listed among the failed requests and the next definition is taken.\n"
    );
}

// --- One project -------------------------------------------------------------------------------

#[derive(Default, Clone, Copy)]
struct Counts {
    agreed: usize,
    reference: usize,
    codegraph: usize,
    /// The reference's edges that codegraph misses and that carry a convention label.
    convention: usize,
    /// Codegraph's edges that the reference lacks and that carry a convention label.
    convention_extra: usize,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.agreed += other.agreed;
        self.reference += other.reference;
        self.codegraph += other.codegraph;
        self.convention += other.convention;
        self.convention_extra += other.convention_extra;
    }
}

/// One edge as a server reported it.
#[derive(Clone, Debug)]
struct Edge {
    /// Path relative to the project root.
    file: String,
    /// The normalised name (see `normalise_name`).
    name: String,
    /// The name as the server gave it, and its symbol kind.
    raw_name: String,
    kind: i64,
    /// 0-based line of the item's name.
    line: u32,
    /// The item's whole range, first and last line (0-based).
    span: (u32, u32),
    /// Where the call is: file relative to the root and 0-based line (the first call site).
    site: Option<(String, u32)>,
    /// The first call site's UTF-16 column, and the lines of every call site.
    site_character: u32,
    site_lines: Vec<u32>,
    /// pyright named a declaration in a `.pyi` stub that the `.py` module beside it does not
    /// define (a name the package re-exports from elsewhere).
    stub_declaration: bool,
    /// Whether any call site is call syntax (`f(`, `f::<T>(`, `new F`, `@f`, `f!(`), as opposed
    /// to a mention of the function as a value (`register(self.f)`, `g = x.f`).
    call_syntax: bool,
    /// Whether the first call site's line starts with `@`.
    decorator: bool,
    /// Whether every call site lies inside the arguments of a Rust macro (`assert!(f(x))`).
    in_macro: bool,
    /// Why the reference may list this edge by a convention codegraph does not share.
    convention: Option<&'static str>,
}

const VALUE_REFERENCE: &str =
    "not call syntax: the function passed or stored as a value, or a getter read";
const DECORATOR: &str = "a decorator, which pyright counts as a call by the decorated function";
const COARSER_CALLER: &str = "the same call site, which the reference gives to the file, a class body or an enclosing function, and codegraph to a function or class inside it";
const LOCAL_CALLEE: &str = "a call of a parameter or local variable of the caller";
const OVERLOAD_SIGNATURE: &str = "an overloaded function, whose item tsserver answers with a signature's (the first, when asked at the implementation) and no outgoing calls, and codegraph with the function's";
const CONSTRUCTOR: &str = "a tuple-struct or enum-variant constructor";
const MACRO_ARGUMENT: &str = "a call inside a macro's arguments (`assert!(f(x))`), which rust-analyzer lists among the callee's incoming calls but leaves out of the caller's outgoing calls";
const INACTIVE_CFG: &str = "a call in code that a `#[cfg]` leaves out of the crate's default build (a feature outside `[features] default` in Cargo.toml), which rust-analyzer does not analyse and codegraph keeps, as a build variant's call";
const NESTED_CALLER: &str = "a call inside a function or class nested in the sampled one, which pyright counts among the outer function's outgoing calls and codegraph among the nested one's";
const STUB: &str = "pyright answers with the declaration in a `.pyi` stub that re-declares a name the package re-exports, codegraph with the definition the name is imported from";
const CALL_HIERARCHY_OMITS: &str = "tsserver's own textDocument/definition at the call site is this very function, yet its call hierarchy lists the call under no caller (a function assigned to a prototype, a property or `exports`, a member taken from a `require`, a reassigned `let`): the call is real by the reference's own reading; labels codegraph's edge";
const NO_DECLARATION: &str = "the reference finds no declaration for the called name (a receiver it cannot type: for pyright an untyped parameter such as a pytest fixture, a dependency that is not installed, a stub that leaves the member out; for tsserver a receiver of type `any`, such as an untyped parameter or `var self = this` in CommonJS code), so it lists no edge; codegraph's is a guess by unique name or its own typing";

struct Disagreement {
    /// The sampled definition: file, 0-based line, name.
    definition: (String, u32, String),
    direction: &'static str,
    missing: Vec<Edge>,
    extra: Vec<Edge>,
}

struct ProjectResult {
    language: String,
    project: String,
    root: PathBuf,
    samples: usize,
    incoming: Counts,
    outgoing: Counts,
    disagreements: Vec<Disagreement>,
    failures: Vec<String>,
    reference_version: String,
}

struct Sample {
    file: PathBuf,
    relative: String,
    name: String,
    /// The name's position (LSP, UTF-16).
    line: u32,
    character: u32,
    /// The definition's first and last line, as documentSymbol gives them.
    span: (u32, u32),
}

fn run_project(
    language: &str,
    project: &str,
    root: &Path,
    corpus: &Path,
    logs: &Path,
    samples_per_project: usize,
    seed: u64,
) -> ProjectResult {
    let mut result = ProjectResult {
        language: language.to_string(),
        project: project.to_string(),
        root: root.to_path_buf(),
        samples: 0,
        incoming: Counts::default(),
        outgoing: Counts::default(),
        disagreements: Vec::new(),
        failures: Vec::new(),
        reference_version: String::new(),
    };
    let files = source_files(root, language);
    if files.is_empty() {
        result.failures.push("no source files".to_string());
        return result;
    }
    // An ordinary file of the project, opened on both servers before waiting: tsserver loads a
    // project only when one of its files is open.
    let first = &files[0];

    let log_name = |server: &str| logs.join(format!("{language}-{project}-{server}.log"));
    let mut codegraph = match Server::start(
        &reference_command(ReferenceKind::Codegraph, corpus),
        root,
        &log_name("codegraph"),
        json!(null),
    ) {
        Ok(server) => server,
        Err(error) => {
            result.failures.push(format!("codegraph: {error}"));
            return result;
        }
    };
    let kind = ReferenceKind::of(language);
    let start_reference = |attempt: usize| {
        let log = if attempt == 0 {
            log_name("reference")
        } else {
            log_name(&format!("reference-restart{attempt}"))
        };
        Server::start(
            &reference_command(kind, corpus),
            root,
            &log,
            kind.initialization_options(corpus),
        )
    };
    let mut reference = match start_reference(0) {
        Ok(server) => server,
        Err(error) => {
            result.failures.push(format!("reference server: {error}"));
            codegraph.shutdown();
            return result;
        }
    };
    result.reference_version = reference_version(kind, corpus);
    for server in [&mut codegraph, &mut reference] {
        server.open(first, kind.language_id(first));
    }
    let started = Instant::now();
    if let Err(error) = codegraph.wait_until_ready() {
        result.failures.push(format!("codegraph index: {error}"));
    }
    let codegraph_ready = started.elapsed();
    if let Err(error) = reference.wait_until_ready() {
        result.failures.push(format!("reference index: {error}"));
    }
    eprintln!(
        "[{language}/{project}] codegraph ready in {:.1} s, {} ready in {:.1} s",
        codegraph_ready.as_secs_f64(),
        reference.program,
        started.elapsed().as_secs_f64()
    );
    for server in [&mut codegraph, &mut reference] {
        server.close(first);
    }

    // Candidates in sampling order; a candidate that fails on either side is reported and the
    // next one taken, until `samples_per_project` have been compared.
    let mut sampler = Sampler::new(root, &files, seed);
    let mut first_sample = true;
    let mut restarts = 0;
    while result.samples < samples_per_project {
        if reference.exited || reference.connection.has_exited() {
            // The reference server crashed (gopls 0.5 does on some interface methods): the
            // sample it crashed on is among the failures; start it again, a few times at most.
            restarts += 1;
            result.failures.push(format!(
                "the reference server exited (see {}); restart {restarts}",
                log_name("reference").display()
            ));
            if restarts > 3 {
                break;
            }
            reference = match start_reference(restarts) {
                Ok(server) => server,
                Err(error) => {
                    result.failures.push(format!("reference server: {error}"));
                    break;
                }
            };
            reference.open(first, kind.language_id(first));
            if let Err(error) = reference.wait_until_ready() {
                result.failures.push(format!("reference index: {error}"));
            }
            reference.close(first);
        }
        let Some(sample) = sampler.next(&mut reference, kind, &mut result.failures) else {
            break;
        };
        for server in [&mut codegraph, &mut reference] {
            server.open(&sample.file, kind.language_id(&sample.file));
        }
        let outcome = compare(
            &mut codegraph,
            &mut reference,
            root,
            &sample,
            first_sample,
            &mut result,
        );
        if outcome.is_ok() {
            first_sample = false;
        }
        if let Err(error) = outcome {
            result.failures.push(format!(
                "{}:{} {}: {error}",
                sample.relative,
                sample.line + 1,
                sample.name
            ));
        }
        for server in [&mut codegraph, &mut reference] {
            server.close(&sample.file);
        }
    }
    codegraph.shutdown();
    reference.shutdown();
    result
}

/// Asks both servers about one definition and adds what they say to the result.
fn compare(
    codegraph: &mut Server,
    reference: &mut Server,
    root: &Path,
    sample: &Sample,
    settle: bool,
    result: &mut ProjectResult,
) -> Result<(), String> {
    let position = json!({
        "textDocument": {"uri": uri(&sample.file)},
        "position": {"line": sample.line, "character": sample.character},
    });
    let reference_item = reference
        .request("textDocument/prepareCallHierarchy", position.clone())
        .map_err(|error| format!("reference prepareCallHierarchy: {error}"))?;
    debug("reference prepareCallHierarchy", &reference_item);
    let mut reference_item =
        pick_item(&reference_item, sample.line).filter(|item| is_item_of(item, sample));
    if reference_item.is_none() {
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
            reference_item =
                pick_item(&answer, sample.line).filter(|item| is_item_of(item, sample));
        }
    }
    let Some(reference_item) = reference_item else {
        return Err(
            "the reference server has no call hierarchy item for this definition".to_string(),
        );
    };
    let codegraph_item = codegraph
        .request("textDocument/prepareCallHierarchy", position)
        .map_err(|error| format!("codegraph prepareCallHierarchy: {error}"))?;
    let mut codegraph_item = pick_item(&codegraph_item, sample.line);
    let reference_selection = &reference_item["selectionRange"]["start"];
    if codegraph_item.is_none()
        && (reference_selection["line"].as_u64() != Some(sample.line as u64)
            || reference_selection["character"].as_u64() != Some(sample.character as u64))
    {
        // Where the reference names the item, when that is not where the sample is (the name of
        // a JavaScript constructor function that tsserver lists as `constructor`).
        let answer = codegraph
            .request(
                "textDocument/prepareCallHierarchy",
                json!({
                    "textDocument": {"uri": uri(&sample.file)},
                    "position": reference_selection,
                }),
            )
            .map_err(|error| format!("codegraph prepareCallHierarchy: {error}"))?;
        codegraph_item = pick_item(&answer, sample.line);
    }

    let mut reference_incoming = reference
        .request(
            "callHierarchy/incomingCalls",
            json!({"item": reference_item}),
        )
        .map_err(|error| format!("reference incomingCalls: {error}"))?;
    if settle {
        // The first answer after indexing: ask again until two answers agree, in case the
        // server was still loading.
        for _ in 0..5 {
            std::thread::sleep(Duration::from_secs(2));
            let again = reference
                .request(
                    "callHierarchy/incomingCalls",
                    json!({"item": reference_item}),
                )
                .map_err(|error| format!("reference incomingCalls: {error}"))?;
            if again == reference_incoming {
                break;
            }
            reference_incoming = again;
        }
    }
    let reference_outgoing = reference
        .request(
            "callHierarchy/outgoingCalls",
            json!({"item": reference_item}),
        )
        .map_err(|error| format!("reference outgoingCalls: {error}"))?;
    let (codegraph_incoming, codegraph_outgoing) = match &codegraph_item {
        Some(item) => (
            codegraph
                .request("callHierarchy/incomingCalls", json!({"item": item}))
                .map_err(|error| format!("codegraph incomingCalls: {error}"))?,
            codegraph
                .request("callHierarchy/outgoingCalls", json!({"item": item}))
                .map_err(|error| format!("codegraph outgoingCalls: {error}"))?,
        ),
        // No item: codegraph does not know this definition; all the reference's edges are
        // missing.
        None => (json!([]), json!([])),
    };
    debug("reference incomingCalls", &reference_incoming);
    debug("reference outgoingCalls", &reference_outgoing);
    debug("codegraph incomingCalls", &codegraph_incoming);
    debug("codegraph outgoingCalls", &codegraph_outgoing);
    let sample_file = sample.relative.clone();
    let incoming_reference = edges(&reference_incoming, "from", root, None);
    let incoming_codegraph = edges(&codegraph_incoming, "from", root, None);
    let outgoing_reference = edges(&reference_outgoing, "to", root, Some(&sample_file));
    let outgoing_codegraph = edges(&codegraph_outgoing, "to", root, Some(&sample_file));

    let line_of = |position: &Value| position["line"].as_u64().unwrap_or(0) as u32;
    // The wider of the item's range and the documentSymbol's: gopls 0.5 gives an item the
    // range of its name only.
    let reference_span = (
        line_of(&reference_item["range"]["start"]).min(sample.span.0),
        line_of(&reference_item["range"]["end"]).max(sample.span.1),
    );
    // A TypeScript overload signature: tsserver's item is a signature, which calls nothing
    // (asked at a signature, the signature itself; asked at the implementation of an
    // overloaded function, its first signature); codegraph's is the function they declare.
    let typescript = sample
        .file
        .extension()
        .is_some_and(|extension| matches!(extension.to_str(), Some("ts" | "tsx" | "mts" | "cts")));
    let overload_signature = typescript
        && codegraph_item.as_ref().is_some_and(|item| {
            line_of(&item["selectionRange"]["start"])
                != line_of(&reference_item["selectionRange"]["start"])
                && item["uri"] == reference_item["uri"]
        });
    result.samples += 1;
    let definition = (sample.relative.clone(), sample.line, sample.name.clone());
    let mut definition_note = definition.clone();
    if codegraph_item.is_none() {
        definition_note.2 = format!("{} (codegraph: no call hierarchy item)", sample.name);
    }
    let rust = result.language == "rust";
    for (direction, reference_edges, codegraph_edges, counts) in [
        (
            "incoming",
            incoming_reference,
            incoming_codegraph,
            &mut result.incoming,
        ),
        (
            "outgoing",
            outgoing_reference,
            outgoing_codegraph,
            &mut result.outgoing,
        ),
    ] {
        let (agreed, mut missing, mut extra) = match_edges(&reference_edges, &codegraph_edges);
        label_conventions(&mut missing, &mut extra, direction, sample, reference_span);
        if rust {
            label_inactive_cfg(&mut extra, root);
        }
        if direction == "outgoing" && overload_signature && reference_edges.is_empty() {
            for edge in extra.iter_mut() {
                edge.convention.get_or_insert(OVERLOAD_SIGNATURE);
            }
        }
        // Python (pyright) and JavaScript/TypeScript (tsserver): what the reference declares at
        // the call site of each extra edge.
        if sample.file.extension().is_some_and(|extension| {
            ["py", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx"]
                .iter()
                .any(|known| extension == *known)
        }) {
            // The called name: the sample's for its callers, each callee's own otherwise.
            let called = (direction == "incoming").then_some(sample.name.as_str());
            let sampled = (direction == "incoming").then_some((
                sample.relative.as_str(),
                (reference_span.0, reference_span.1),
            ));
            label_by_declaration(
                reference,
                root,
                called,
                sampled,
                &reference_edges,
                &mut extra,
            );
        }
        counts.add(Counts {
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
        });
        if !missing.is_empty() || !extra.is_empty() {
            result.disagreements.push(Disagreement {
                definition: definition_note.clone(),
                direction,
                missing,
                extra,
            });
        }
    }
    Ok(())
}

/// Labels the disagreeing edges that follow a convention of the reference (see
/// `print_conventions`): the reference's missing edges by themselves, codegraph's extra edges
/// when they share a call site with a labelled missing edge.
fn label_conventions(
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

/// Whether a Python module defines `name` itself (a `def`, `class` or top-level assignment),
/// as opposed to importing it.
fn python_defines(file: &Path, name: &str) -> bool {
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
fn label_by_declaration(
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
fn names_callee(location: &Value, root: &Path, callee: (&str, (u32, u32))) -> bool {
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
fn reference_lists_call(
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
fn shares_a_site(left: &Edge, right: &Edge) -> bool {
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
fn macro_invocation_lines(sample: &Sample, file: &str, line: u32) -> Option<(u32, u32)> {
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
fn label_inactive_cfg(extra: &mut [Edge], root: &Path) {
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
fn default_features(root: &Path) -> HashSet<String> {
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
fn convention_of(
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
fn inside_nested_python_block(file: &Path, span: (u32, u32), line: u32) -> bool {
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

/// Whether a reference item is the sampled definition: its name, or a function-like item named
/// on the definition's line.
fn is_item_of(item: &Value, sample: &Sample) -> bool {
    let kind = item["kind"].as_i64().unwrap_or(0);
    let name = item["name"].as_str().unwrap_or("");
    normalise_name(name, kind) == normalise_name(&sample.name, 12)
        || (matches!(kind, 6 | 9 | 12)
            && item["selectionRange"]["start"]["line"].as_u64() == Some(sample.line as u64))
}

/// The UTF-16 column of the `function` keyword or of the `=>` after the name on the same line.
fn function_expression_column(file: &Path, line: u32, character: u32) -> Option<u32> {
    let text = std::fs::read_to_string(file).ok()?;
    let line_text = text.lines().nth(line as usize)?;
    let units: Vec<u16> = line_text.encode_utf16().collect();
    let after: String = String::from_utf16_lossy(units.get(character as usize..)?);
    let offset = after.find("function").or_else(|| after.find("=>"))?;
    Some(character + after[..offset].encode_utf16().count() as u32)
}

fn debug(label: &str, value: &Value) {
    if std::env::var_os("ACCURACY_DEBUG").is_some() {
        eprintln!("{label}: {value}");
    }
}

/// The item of a prepareCallHierarchy answer: the one named on `line` when there are several.
fn pick_item(answer: &Value, line: u32) -> Option<Value> {
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
fn edges(answer: &Value, side: &str, root: &Path, caller_file: Option<&str>) -> Vec<Edge> {
    let mut seen = HashSet::new();
    let mut edges = Vec::new();
    let mut texts: HashMap<String, Vec<String>> = HashMap::new();
    let mut trees: HashMap<String, Option<tree_sitter::Tree>> = HashMap::new();
    for call in answer.as_array().into_iter().flatten() {
        let item = &call[side];
        let Some(mut file) = item["uri"]
            .as_str()
            .and_then(|uri| relative_path(uri, root))
        else {
            continue;
        };
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
        let lines = texts.entry(site_file.clone()).or_insert_with(|| {
            std::fs::read_to_string(root.join(&site_file))
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect()
        });
        let call_syntax =
            ranges.is_empty() || ranges.iter().any(|range| is_call_syntax(lines, range));
        let decorator = site
            .as_ref()
            .and_then(|(_, line)| lines.get(*line as usize))
            .is_some_and(|text| text.trim_start().starts_with('@'));
        let in_macro = site_file.ends_with(".rs")
            && !ranges.is_empty()
            && ranges.iter().all(|range| {
                let tree = trees
                    .entry(site_file.clone())
                    .or_insert_with(|| parse_rust(&root.join(&site_file)));
                inside_rust_macro(tree.as_ref(), lines, range)
            });
        if seen.insert((file.clone(), name.clone())) {
            edges.push(Edge {
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
            });
        } else if let Some(edge) = edges
            .iter_mut()
            .find(|edge| edge.file == file && edge.name == name)
        {
            edge.call_syntax |= call_syntax;
            edge.in_macro &= in_macro;
            if edge.site.as_ref().map(|(file, _)| file) == Some(&site_file) {
                edge.site_lines.extend(site_lines);
            }
        }
    }
    edges
}

fn parse_rust(path: &Path) -> Option<tree_sitter::Tree> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .ok()?;
    parser.parse(&text, None)
}

/// Whether the start of the range (a call site) lies inside a macro invocation's token tree,
/// within the function around it.
fn inside_rust_macro(tree: Option<&tree_sitter::Tree>, lines: &[String], range: &Value) -> bool {
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

/// Whether the range (a name at a call site, as servers give it) is called there: followed by
/// `(`, generic arguments and `(`, `!` (a macro), a template literal; or preceded by `new` or `@`.
/// A range that spans more than the name (a whole call) counts as a call.
fn is_call_syntax(lines: &[String], range: &Value) -> bool {
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
fn normalise_name(name: &str, kind: i64) -> String {
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
fn match_edges(reference: &[Edge], codegraph: &[Edge]) -> (usize, Vec<Edge>, Vec<Edge>) {
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

// --- Sampling ----------------------------------------------------------------------------------

fn source_files(root: &Path, language: &str) -> Vec<PathBuf> {
    let extensions: &[&str] = match language {
        "python" => &["py"],
        "javascript" => &["js", "mjs", "cjs"],
        "typescript" => &["ts", "tsx", "mts", "cts"],
        "rust" => &["rs"],
        "go" => &["go"],
        _ => &[],
    };
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(directory) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                stack.push(path);
            } else if file_type.is_file()
                && !name.ends_with(".d.ts")
                && extensions
                    .iter()
                    .any(|extension| name.ends_with(&format!(".{extension}")))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// SplitMix64: a small seeded generator, so that the sample is the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// The project's definitions in sampling order: files in a seeded order, one definition per file
/// (chosen with the seed), then a second per file, and so on.
struct Sampler<'a> {
    root: &'a Path,
    random: Random,
    order: Vec<&'a PathBuf>,
    /// Each file's definitions not yet taken, shuffled; None until the file is read.
    definitions: HashMap<&'a PathBuf, Vec<Sample>>,
    next_file: usize,
    took_in_round: bool,
}

impl<'a> Sampler<'a> {
    fn new(root: &'a Path, files: &'a [PathBuf], seed: u64) -> Sampler<'a> {
        let mut random = Random(seed);
        let mut order: Vec<&PathBuf> = files.iter().collect();
        random.shuffle(&mut order);
        Sampler {
            root,
            random,
            order,
            definitions: HashMap::new(),
            next_file: 0,
            took_in_round: false,
        }
    }

    fn next(
        &mut self,
        reference: &mut Server,
        kind: ReferenceKind,
        failures: &mut Vec<String>,
    ) -> Option<Sample> {
        loop {
            if self.next_file == self.order.len() {
                if !self.took_in_round {
                    return None;
                }
                self.next_file = 0;
                self.took_in_round = false;
            }
            let file = self.order[self.next_file];
            self.next_file += 1;
            if !self.definitions.contains_key(file) {
                reference.open(file, kind.language_id(file));
                let answer = reference.request(
                    "textDocument/documentSymbol",
                    json!({"textDocument": {"uri": uri(file)}}),
                );
                reference.close(file);
                let mut found = Vec::new();
                match answer {
                    Ok(symbols) => collect_functions(&symbols, file, self.root, &mut found),
                    Err(error) => failures.push(format!(
                        "{}: reference documentSymbol: {error}",
                        relative_to(file, self.root)
                    )),
                }
                self.random.shuffle(&mut found);
                self.definitions.insert(file, found);
            }
            if let Some(sample) = self.definitions.get_mut(file).and_then(Vec::pop) {
                self.took_in_round = true;
                return Some(sample);
            }
        }
    }
}

/// Functions, methods and constructors of a documentSymbol answer (hierarchical or flat).
fn collect_functions(symbols: &Value, file: &Path, root: &Path, found: &mut Vec<Sample>) {
    for symbol in symbols.as_array().into_iter().flatten() {
        let kind = symbol["kind"].as_i64().unwrap_or(0);
        // DocumentSymbol has selectionRange; SymbolInformation only location.range.
        let range = if symbol.get("range").is_some() {
            &symbol["range"]
        } else {
            &symbol["location"]["range"]
        };
        let position = if symbol.get("selectionRange").is_some() {
            &symbol["selectionRange"]["start"]
        } else {
            &symbol["location"]["range"]["start"]
        };
        let name = symbol["name"].as_str().unwrap_or("");
        // tsserver lists anonymous functions as `<function>` and `xs.forEach() callback`: not
        // definitions one can name.
        if matches!(kind, 6 | 9 | 12)
            && !name.is_empty()
            && !name.starts_with('<')
            && !name.ends_with(" callback")
        {
            found.push(Sample {
                file: file.to_path_buf(),
                relative: relative_to(file, root),
                name: name.to_string(),
                line: position["line"].as_u64().unwrap_or(0) as u32,
                character: position["character"].as_u64().unwrap_or(0) as u32,
                span: (
                    range["start"]["line"].as_u64().unwrap_or(0) as u32,
                    range["end"]["line"].as_u64().unwrap_or(0) as u32,
                ),
            });
        }
        if let Some(children) = symbol.get("children") {
            collect_functions(children, file, root, found);
        }
    }
}

// --- The servers -------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum ReferenceKind {
    Codegraph,
    Pyright,
    TypeScript,
    RustAnalyzer,
    Gopls,
}

impl ReferenceKind {
    fn of(language: &str) -> ReferenceKind {
        match language {
            "python" => ReferenceKind::Pyright,
            "javascript" | "typescript" => ReferenceKind::TypeScript,
            "rust" => ReferenceKind::RustAnalyzer,
            "go" => ReferenceKind::Gopls,
            other => panic!("no reference server for {other}"),
        }
    }

    fn language_id(self, file: &Path) -> &'static str {
        match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
            "py" => "python",
            "js" | "mjs" | "cjs" => "javascript",
            "ts" | "mts" | "cts" => "typescript",
            "tsx" => "typescriptreact",
            "rs" => "rust",
            "go" => "go",
            _ => "plaintext",
        }
    }

    fn initialization_options(self, corpus: &Path) -> Value {
        match self {
            ReferenceKind::TypeScript => json!({
                "tsserver": {"path": corpus.join(".servers/node_modules/typescript/lib").display().to_string()},
                "maxTsServerMemory": 8192,
            }),
            // No build scripts, no proc macros, no `cargo check`: what is left is name
            // resolution and type inference, which is what the call hierarchy needs. The cfgs
            // of a plain build: rust-analyzer's default also sets `miri`, which hides every
            // `#[cfg(not(miri))]` item (regex-automata's whole test suite) from its answers.
            ReferenceKind::RustAnalyzer => json!({
                "cargo": {"buildScripts": {"enable": false}, "cfgs": ["debug_assertions"]},
                "procMacro": {"enable": false},
                "checkOnSave": false,
                "cachePriming": {"enable": true, "numThreads": 2},
            }),
            _ => json!(null),
        }
    }
}

/// The reference server and its version, as its package says.
fn reference_version(kind: ReferenceKind, corpus: &Path) -> String {
    let npm_version = |package: &str| {
        std::fs::read_to_string(
            corpus
                .join(".servers/node_modules")
                .join(package)
                .join("package.json"),
        )
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|json| json["version"].as_str().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
    };
    let output = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .ok()
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
            .unwrap_or_else(|| "?".to_string())
    };
    match kind {
        ReferenceKind::Codegraph => "codegraph".to_string(),
        ReferenceKind::Pyright => format!("pyright {}", npm_version("pyright")),
        ReferenceKind::TypeScript => format!(
            "typescript-language-server {} (typescript {})",
            npm_version("typescript-language-server"),
            npm_version("typescript")
        ),
        ReferenceKind::RustAnalyzer => output("rust-analyzer", &["--version"]),
        ReferenceKind::Gopls => format!(
            "gopls {} (Debian), {}",
            output("dpkg-query", &["-W", "-f", "${Version}", "gopls"]),
            output("go", &["version"])
        ),
    }
}

/// The codegraph binary measured: this package's, or $ACCURACY_CODEGRAPH (to compare builds).
fn codegraph_binary() -> String {
    std::env::var("ACCURACY_CODEGRAPH")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_codegraph").to_string())
}

struct ServerCommand {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

fn reference_command(kind: ReferenceKind, corpus: &Path) -> ServerCommand {
    let node_bin = |name: &str| {
        corpus
            .join(".servers/node_modules/.bin")
            .join(name)
            .display()
            .to_string()
    };
    let command = |program: String, args: &[&str]| ServerCommand {
        program,
        args: args.iter().map(|arg| arg.to_string()).collect(),
        env: Vec::new(),
    };
    match kind {
        ReferenceKind::Codegraph => command(
            codegraph_binary(),
            &["lsp", "--stdio", "--no-cache", "--no-mcp-socket"],
        ),
        ReferenceKind::Pyright => command(node_bin("pyright-langserver"), &["--stdio"]),
        ReferenceKind::TypeScript => command(node_bin("typescript-language-server"), &["--stdio"]),
        ReferenceKind::RustAnalyzer => command("rust-analyzer".to_string(), &[]),
        ReferenceKind::Gopls => {
            let mut gopls = command("gopls".to_string(), &["serve"]);
            // The Go projects live in a GOPATH (see accuracy-corpus.sh); nothing is fetched.
            gopls.env = vec![
                (
                    "GOPATH".to_string(),
                    corpus.join("go/gopath").display().to_string(),
                ),
                ("GO111MODULE".to_string(), "off".to_string()),
                ("GOPROXY".to_string(), "off".to_string()),
                ("GOFLAGS".to_string(), String::new()),
            ];
            gopls
        }
    }
}

/// An LSP server over pipes (the tests' language-server client), and what its notifications
/// said about its readiness.
struct Server {
    program: String,
    connection: LspConnection,
    /// Progress tokens begun and not yet ended.
    progress: BTreeSet<String>,
    /// rust-analyzer's `experimental/serverStatus`: quiescent or not (None before the first).
    quiescent: Option<bool>,
    last_message: Instant,
    opened: HashSet<PathBuf>,
    /// Its output closed or its input broke: the process is gone.
    exited: bool,
}

/// The client capabilities announced to every server.
fn client_capabilities() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-16"]},
        "window": {"workDoneProgress": true},
        "workspace": {"configuration": true, "workspaceFolders": true},
        "textDocument": {
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "callHierarchy": {"dynamicRegistration": false},
            "synchronization": {"didSave": false},
        },
        "experimental": {"serverStatusNotification": true},
    })
}

impl Server {
    fn start(
        command: &ServerCommand,
        root: &Path,
        log: &Path,
        initialization_options: Value,
    ) -> Result<Server, String> {
        let stderr = File::create(log).map_err(|error| format!("{}: {error}", log.display()))?;
        let mut process = Command::new(&command.program);
        process
            .args(&command.args)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .current_dir(root)
            .stderr(stderr);
        let connection = LspConnection::spawn(&mut process, Notifications::Keep)
            .map_err(|error| format!("{} does not start: {error}", command.program))?;
        let program = Path::new(&command.program)
            .file_name()
            .map_or(command.program.clone(), |name| {
                name.to_string_lossy().to_string()
            });
        let mut server = Server {
            program,
            connection,
            progress: BTreeSet::new(),
            quiescent: None,
            last_message: Instant::now(),
            opened: HashSet::new(),
            exited: false,
        };
        let root_uri = uri(root);
        server.request_with_timeout(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": root_uri,
                "rootPath": root.display().to_string(),
                "capabilities": client_capabilities(),
                "initializationOptions": initialization_options,
                "workspaceFolders": [{"uri": root_uri, "name": root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default()}],
            }),
            INDEX_TIMEOUT,
        )?;
        server.notify("initialized", json!({}));
        Ok(server)
    }

    /// Waits until no progress is under way (and rust-analyzer says it is quiescent) and the
    /// server has been silent for `QUIET`.
    fn wait_until_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + INDEX_TIMEOUT;
        // Some servers start their progress a moment after `initialized`.
        let earliest = Instant::now() + QUIET;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "not ready after {} s (progress under way: {:?})",
                    INDEX_TIMEOUT.as_secs(),
                    self.progress
                ));
            }
            let quiet_for = now.duration_since(self.last_message);
            if now >= earliest
                && self.progress.is_empty()
                && self.quiescent != Some(false)
                && quiet_for >= QUIET
            {
                return Ok(());
            }
            match self
                .connection
                .next_message(Instant::now() + Duration::from_millis(250))
            {
                Ok(message) => self.observe(&message),
                Err(LspError::Closed) => {
                    self.exited = true;
                    return Err(format!("{} exited", self.program));
                }
                Err(_) => {}
            }
        }
    }

    /// Keeps track of progress and status notifications.
    fn observe(&mut self, message: &Value) {
        self.last_message = Instant::now();
        match message["method"].as_str() {
            Some("$/progress") => {
                let token = message["params"]["token"].to_string();
                match message["params"]["value"]["kind"].as_str() {
                    Some("begin") => {
                        self.progress.insert(token);
                    }
                    Some("end") => {
                        self.progress.remove(&token);
                    }
                    _ => {}
                }
            }
            Some("experimental/serverStatus") => {
                self.quiescent = message["params"]["quiescent"].as_bool();
            }
            _ => {}
        }
    }

    /// Observes the messages read while waiting for an answer, and lets them go.
    fn observe_stashed(&mut self) {
        for message in self.connection.take_stash() {
            self.observe(&message);
        }
    }

    fn notify(&self, method: &str, params: Value) {
        let _ = self.connection.notify(method, params);
    }

    fn open(&mut self, file: &Path, language_id: &str) {
        if !self.opened.insert(file.to_path_buf()) {
            return;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(file), "languageId": language_id, "version": 1, "text": text}}),
        );
    }

    fn close(&mut self, file: &Path) {
        if self.opened.remove(file) {
            self.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri(file)}}),
            );
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.request_with_timeout(method, params, REQUEST_TIMEOUT)
    }

    /// Sends a request and waits for its answer. ContentModified, RequestCancelled and
    /// ServerCancelled answers (the server was busy: rust-analyzer while it still loads) are
    /// asked again after two seconds while time remains; a request that times out is cancelled.
    fn request_with_timeout(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let answer = self
                .connection
                .send_request(method, params.clone())
                .map(|id| (id, self.connection.response(id, deadline)));
            self.observe_stashed();
            let message = match answer {
                Ok((_, Ok(message))) => message,
                Ok((id, Err(LspError::Timeout))) => {
                    // Tell the server to stop working on it.
                    self.notify("$/cancelRequest", json!({"id": id}));
                    return Err(format!("no answer within {} s", timeout.as_secs()));
                }
                Ok((_, Err(error))) | Err(error) => return Err(self.gone(error)),
            };
            self.observe(&message);
            let Some(error) = message.get("error") else {
                return Ok(message["result"].clone());
            };
            let code = error["code"].as_i64().unwrap_or(0);
            if (-32802..=-32800).contains(&code)
                && Instant::now() + Duration::from_secs(2) < deadline
            {
                std::thread::sleep(Duration::from_secs(2));
                continue;
            }
            return Err(format!("error {error}"));
        }
    }

    /// The server is gone (its output closed, or it does not read): noted, and said.
    fn gone(&mut self, error: LspError) -> String {
        self.exited = true;
        match error {
            LspError::Write(error) => format!("{} does not read: {error}", self.program),
            _ => format!("{} exited", self.program),
        }
    }

    fn shutdown(mut self) {
        let _ = self.request_with_timeout("shutdown", Value::Null, Duration::from_secs(20));
        self.notify("exit", Value::Null);
        // A server still running after ten seconds is killed when the connection drops.
        self.connection.exit_status(Duration::from_secs(10));
    }
}

// --- Paths and text ----------------------------------------------------------------------------

fn uri(path: &Path) -> String {
    let mut encoded = String::from("file://");
    for byte in path.display().to_string().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

fn path_of_uri(uri: &str) -> Option<PathBuf> {
    let encoded = uri.strip_prefix("file://")?;
    let bytes = encoded.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&encoded[i + 1..i + 3], 16)
        {
            decoded.push(byte);
            i += 3;
            continue;
        }
        decoded.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8(decoded).ok()?))
}

/// The path of `uri` relative to `root`, or None when it is outside.
fn relative_path(uri: &str, root: &Path) -> Option<String> {
    let path = path_of_uri(uri)?;
    let path = path.canonicalize().unwrap_or(path);
    path.strip_prefix(root)
        .ok()
        .map(|relative| relative.display().to_string())
}

fn relative_to(file: &Path, root: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// Line `line` (0-based) of `file` under `root`, trimmed and shortened.
fn source_line(
    cache: &mut HashMap<PathBuf, Vec<String>>,
    root: &Path,
    file: &str,
    line: u32,
) -> String {
    let path = root.join(file);
    let lines = cache.entry(path.clone()).or_insert_with(|| {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    });
    let text = lines
        .get(line as usize)
        .map_or("", |text| text.trim())
        .to_string();
    if text.chars().count() > 110 {
        format!("{}…", text.chars().take(110).collect::<String>())
    } else {
        text
    }
}

// --- Output ------------------------------------------------------------------------------------

fn kind_name(kind: i64) -> &'static str {
    match kind {
        1 => "file",
        2 => "module",
        5 => "class",
        6 => "method",
        9 => "constructor",
        10 => "enum",
        11 => "interface",
        12 => "function",
        13 => "variable",
        14 => "constant",
        22 => "enum member",
        23 => "struct",
        _ => "item",
    }
}

fn print_disagreements(results: &[ProjectResult]) {
    let mut cache = HashMap::new();
    println!(
        "\nDISAGREEMENTS (missing = the reference server has it, codegraph not; extra = codegraph has it, the reference not)"
    );
    for result in results {
        if result.disagreements.is_empty() {
            continue;
        }
        println!(
            "\n== {} {} ({})",
            result.language,
            result.project,
            result.root.display()
        );
        for disagreement in &result.disagreements {
            let (file, line, name) = &disagreement.definition;
            println!(
                "  {} {file}:{} {name}   `{}`",
                disagreement.direction,
                line + 1,
                source_line(&mut cache, &result.root, file, *line)
            );
            for (label, edges) in [
                ("missing", &disagreement.missing),
                ("extra  ", &disagreement.extra),
            ] {
                for edge in edges {
                    let (site, site_text) = match &edge.site {
                        Some((site_file, site_line)) => (
                            format!("{site_file}:{}", site_line + 1),
                            source_line(&mut cache, &result.root, site_file, *site_line),
                        ),
                        None => ("?".to_string(), String::new()),
                    };
                    let convention = edge
                        .convention
                        .map_or(String::new(), |why| format!("   [convention: {why}]"));
                    println!(
                        "    {label} {} {} ({}) at {}:{}; call at {site}: `{site_text}`{convention}",
                        if disagreement.direction == "incoming" {
                            "from"
                        } else {
                            "to"
                        },
                        edge.raw_name,
                        kind_name(edge.kind),
                        edge.file,
                        edge.line + 1,
                    );
                }
            }
        }
    }
}

fn print_failures(results: &[ProjectResult]) {
    let failures: usize = results.iter().map(|result| result.failures.len()).sum();
    println!("\nFAILED REQUESTS ({failures}; those samples are left out of the figures)");
    for result in results {
        for failure in &result.failures {
            println!("  {} {}: {failure}", result.language, result.project);
        }
    }
}

fn ratio(numerator: usize, denominator: usize) -> String {
    if denominator == 0 {
        "   -".to_string()
    } else {
        format!("{:.2}", numerator as f64 / denominator as f64)
    }
}

fn print_summary(results: &[ProjectResult]) {
    let mut by_language: BTreeMap<usize, (String, usize, Counts, Counts, BTreeSet<String>)> =
        BTreeMap::new();
    for result in results {
        let order = LANGUAGES
            .iter()
            .position(|l| *l == result.language)
            .unwrap_or(LANGUAGES.len());
        let entry = by_language.entry(order).or_insert_with(|| {
            (
                result.language.clone(),
                0,
                Counts::default(),
                Counts::default(),
                BTreeSet::new(),
            )
        });
        entry.1 += result.samples;
        entry.2.add(result.incoming);
        entry.3.add(result.outgoing);
        if !result.reference_version.is_empty() {
            entry.4.insert(result.reference_version.clone());
        }
    }
    println!("\nPER PROJECT (precision / recall; edges agreed, reference, codegraph)");
    for result in results {
        println!(
            "  {:<11} {:<24} {:>3} sampled  incoming {} / {} ({}, {}, {})  outgoing {} / {} ({}, {}, {})",
            result.language,
            result.project,
            result.samples,
            ratio(result.incoming.agreed, result.incoming.codegraph),
            ratio(result.incoming.agreed, result.incoming.reference),
            result.incoming.agreed,
            result.incoming.reference,
            result.incoming.codegraph,
            ratio(result.outgoing.agreed, result.outgoing.codegraph),
            ratio(result.outgoing.agreed, result.outgoing.reference),
            result.outgoing.agreed,
            result.outgoing.reference,
            result.outgoing.codegraph,
        );
    }
    println!(
        "\nSUMMARY (micro-averaged over sampled definitions; precision = agreed / codegraph's edges, recall = agreed / the reference's edges; in brackets: edges agreed, the reference's, codegraph's)"
    );
    println!(
        "| language | sampled | incoming precision / recall | outgoing precision / recall | reference server |"
    );
    println!("|---|---|---|---|---|");
    for (language, samples, incoming, outgoing, versions) in by_language.values() {
        println!(
            "| {language} | {samples} | {} / {} ({}, {}, {}) | {} / {} ({}, {}, {}) | {} |",
            ratio(incoming.agreed, incoming.codegraph),
            ratio(incoming.agreed, incoming.reference),
            incoming.agreed,
            incoming.reference,
            incoming.codegraph,
            ratio(outgoing.agreed, outgoing.codegraph),
            ratio(outgoing.agreed, outgoing.reference),
            outgoing.agreed,
            outgoing.reference,
            outgoing.codegraph,
            versions.iter().cloned().collect::<Vec<_>>().join(", "),
        );
    }
    println!(
        "\nWITHOUT THE CONVENTION-LABELLED EDGES (the edges marked [convention: ...] above left out of both sides' counts)"
    );
    println!(
        "| language | incoming precision / recall | outgoing precision / recall | left out: reference's, codegraph's edges (incoming; outgoing) |"
    );
    println!("|---|---|---|---|");
    for (language, _, incoming, outgoing, _) in by_language.values() {
        println!(
            "| {language} | {} / {} | {} / {} | {}, {}; {}, {} |",
            ratio(
                incoming.agreed,
                incoming.codegraph - incoming.convention_extra
            ),
            ratio(incoming.agreed, incoming.reference - incoming.convention),
            ratio(
                outgoing.agreed,
                outgoing.codegraph - outgoing.convention_extra
            ),
            ratio(outgoing.agreed, outgoing.reference - outgoing.convention),
            incoming.convention,
            incoming.convention_extra,
            outgoing.convention,
            outgoing.convention_extra,
        );
    }
}

// --- Arguments ---------------------------------------------------------------------------------

/// The first argument that is not a flag (`cargo bench` passes `--bench`), else
/// $CODEGRAPH_ACCURACY_CORPUS, else `bench-accuracy/` at the repository root.
fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_ACCURACY_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-accuracy")
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn env_list(name: &str) -> Option<Vec<String>> {
    let value = std::env::var(name).ok()?;
    let items: Vec<String> = value
        .split(',')
        .map(|item| item.trim().to_string())
        .filter(|item| !item.is_empty())
        .collect();
    (!items.is_empty()).then_some(items)
}
