//! The accuracy benchmark: codegraph's call hierarchy against each language's own language
//! server, on real projects. A program that prints figures, never a test that fails.
//!
//!   benches/accuracy-servers.sh            # once: pyright, typescript-language-server, gopls,
//!                                          # rust-analyzer, clangd-19
//!   benches/accuracy-corpus.sh             # once: bench-accuracy/ (5 projects per language)
//!   cargo bench --bench accuracy [-- DIR]  # or CODEGRAPH_ACCURACY_CORPUS=DIR
//!
//! Knobs (environment): ACCURACY_SAMPLES (functions sampled per project, default 40),
//! ACCURACY_LANGUAGES (comma-separated, default all seven: python, javascript, typescript, rust,
//! go, c, cpp), ACCURACY_PROJECTS (comma-separated project names), ACCURACY_SEED (default 9),
//! ACCURACY_CODEGRAPH (another codegraph binary to measure, say an older build), ACCURACY_DEBUG
//! (print every answer to stderr).
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
//! C and C++ (`cxx.rs`): clangd 19 has no outgoing calls; they are built from its definitions at
//! the call expressions of the sampled body.
//!
//! Where a reference follows a convention of its own (see `print_conventions`), the edges it
//! lists by that convention are labelled `[convention: ...]` in the listing, not removed, and the
//! figures are printed twice: with every edge, and without the labelled ones.

#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

mod compare;
mod conventions;
mod cxx;
mod report;
mod sample;
mod servers;

use crate::compare::{Counts, Disagreement, compare};
use crate::conventions::print_conventions;
use crate::report::{print_causes, print_disagreements, print_failures, print_summary};
use crate::sample::{Sampler, source_files};
use crate::servers::{
    ReferenceKind, Server, codegraph_binary, reference_command, reference_version,
};

pub(crate) const LANGUAGES: [&str; 7] = [
    "python",
    "javascript",
    "typescript",
    "rust",
    "go",
    "c",
    "cpp",
];

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
        let project = Project {
            language,
            name,
            root: &root,
            corpus: &corpus,
            logs: &logs,
        };
        let result = run_project(&project, samples_per_project, seed);
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
    print_causes(&results);
    print_summary(&results);
}

pub(crate) struct ProjectResult {
    pub(crate) language: String,
    pub(crate) project: String,
    pub(crate) root: PathBuf,
    pub(crate) samples: usize,
    pub(crate) incoming: Counts,
    pub(crate) outgoing: Counts,
    pub(crate) disagreements: Vec<Disagreement>,
    pub(crate) failures: Vec<String>,
    pub(crate) reference_version: String,
}

/// One project of the corpus: its language, name and root, and where its servers' logs go.
pub(crate) struct Project<'a> {
    pub(crate) language: &'a str,
    pub(crate) name: &'a str,
    pub(crate) root: &'a Path,
    pub(crate) corpus: &'a Path,
    pub(crate) logs: &'a Path,
}

impl Project<'_> {
    fn log(&self, server: &str) -> PathBuf {
        self.logs
            .join(format!("{}-{}-{server}.log", self.language, self.name))
    }

    fn kind(&self) -> ReferenceKind {
        ReferenceKind::of(self.language)
    }

    /// Starts the reference server; `attempt` 0 is the first start, later ones restarts.
    fn start_reference(&self, attempt: usize) -> Result<Server, String> {
        let log = if attempt == 0 {
            self.log("reference")
        } else {
            self.log(&format!("reference-restart{attempt}"))
        };
        let kind = self.kind();
        Server::start(
            &reference_command(kind, self.corpus),
            self.root,
            &log,
            kind.initialization_options(self.corpus),
        )
    }
}

pub(crate) fn run_project(
    project: &Project,
    samples_per_project: usize,
    seed: u64,
) -> ProjectResult {
    let mut result = ProjectResult {
        language: project.language.to_string(),
        project: project.name.to_string(),
        root: project.root.to_path_buf(),
        samples: 0,
        incoming: Counts::default(),
        outgoing: Counts::default(),
        disagreements: Vec::new(),
        failures: Vec::new(),
        reference_version: String::new(),
    };
    let files = source_files(project.root, project.language);
    if files.is_empty() {
        result.failures.push("no source files".to_string());
        return result;
    }
    let Some((mut codegraph, mut reference)) = start_servers(project, &files[0], &mut result)
    else {
        return result;
    };
    let mut servers = (&mut codegraph, &mut reference);
    sample_and_compare(
        project,
        &files,
        &mut servers,
        samples_per_project,
        seed,
        &mut result,
    );
    codegraph.shutdown();
    reference.shutdown();
    result
}

/// Starts codegraph and the reference server and waits until both are ready. `first` is an
/// ordinary file of the project, opened on both servers while waiting: tsserver loads a project
/// only when one of its files is open, clangd finds the compilation database from it.
fn start_servers(
    project: &Project,
    first: &Path,
    result: &mut ProjectResult,
) -> Option<(Server, Server)> {
    let mut codegraph = match Server::start(
        &reference_command(ReferenceKind::Codegraph, project.corpus),
        project.root,
        &project.log("codegraph"),
        json!(null),
    ) {
        Ok(server) => server,
        Err(error) => {
            result.failures.push(format!("codegraph: {error}"));
            return None;
        }
    };
    let kind = project.kind();
    let mut reference = match project.start_reference(0) {
        Ok(server) => server,
        Err(error) => {
            result.failures.push(format!("reference server: {error}"));
            codegraph.shutdown();
            return None;
        }
    };
    result.reference_version = reference_version(kind, project.corpus);
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
        "[{}/{}] codegraph ready in {:.1} s, {} ready in {:.1} s",
        project.language,
        project.name,
        codegraph_ready.as_secs_f64(),
        reference.program,
        started.elapsed().as_secs_f64()
    );
    for server in [&mut codegraph, &mut reference] {
        server.close(first);
    }
    Some((codegraph, reference))
}

/// Compares candidates in sampling order; a candidate that fails on either side is reported
/// and the next one taken, until `samples_per_project` have been compared.
fn sample_and_compare(
    project: &Project,
    files: &[PathBuf],
    (codegraph, reference): &mut (&mut Server, &mut Server),
    samples_per_project: usize,
    seed: u64,
    result: &mut ProjectResult,
) {
    let kind = project.kind();
    let mut sampler = Sampler::new(project.root, files, seed);
    let mut first_sample = true;
    let mut restarts = 0;
    while result.samples < samples_per_project {
        if reference.exited || reference.connection.has_exited() {
            restarts += 1;
            if !restart_reference(project, &files[0], reference, restarts, result) {
                break;
            }
        }
        let Some(sample) = sampler.next(reference, kind, &mut result.failures) else {
            break;
        };
        for server in [&mut **codegraph, &mut **reference] {
            server.open(&sample.file, kind.language_id(&sample.file));
        }
        let outcome = compare(
            codegraph,
            reference,
            project.root,
            &sample,
            first_sample,
            result,
        );
        match outcome {
            Ok(()) => first_sample = false,
            Err(error) => result.failures.push(format!(
                "{}:{} {}: {error}",
                sample.relative,
                sample.line + 1,
                sample.name
            )),
        }
        for server in [&mut **codegraph, &mut **reference] {
            server.close(&sample.file);
        }
    }
}

/// The reference server crashed (gopls 0.5 does on some interface methods): the sample it
/// crashed on is among the failures; starts it again, a few times at most. False when it is
/// given up.
fn restart_reference(
    project: &Project,
    first: &Path,
    reference: &mut Server,
    restarts: usize,
    result: &mut ProjectResult,
) -> bool {
    result.failures.push(format!(
        "the reference server exited (see {}); restart {restarts}",
        project.log("reference").display()
    ));
    if restarts > 3 {
        return false;
    }
    *reference = match project.start_reference(restarts) {
        Ok(server) => server,
        Err(error) => {
            result.failures.push(format!("reference server: {error}"));
            return false;
        }
    };
    reference.open(first, project.kind().language_id(first));
    if let Err(error) = reference.wait_until_ready() {
        result.failures.push(format!("reference index: {error}"));
    }
    reference.close(first);
    true
}

pub(crate) fn debug(label: &str, value: &Value) {
    if std::env::var_os("ACCURACY_DEBUG").is_some() {
        eprintln!("{label}: {value}");
    }
}

pub(crate) fn uri(path: &Path) -> String {
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

pub(crate) fn path_of_uri(uri: &str) -> Option<PathBuf> {
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
pub(crate) fn relative_path(uri: &str, root: &Path) -> Option<String> {
    let path = path_of_uri(uri)?;
    let path = path.canonicalize().unwrap_or(path);
    path.strip_prefix(root)
        .ok()
        .map(|relative| relative.display().to_string())
}

pub(crate) fn relative_to(file: &Path, root: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// The first argument that is not a flag (`cargo bench` passes `--bench`), else
/// $CODEGRAPH_ACCURACY_CORPUS, else `bench-accuracy/` at the repository root.
pub(crate) fn corpus_dir() -> PathBuf {
    if let Some(arg) = std::env::args().skip(1).find(|arg| !arg.starts_with('-')) {
        return PathBuf::from(arg);
    }
    if let Some(dir) = std::env::var_os("CODEGRAPH_ACCURACY_CORPUS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-accuracy")
}

pub(crate) fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

pub(crate) fn env_list(name: &str) -> Option<Vec<String>> {
    let value = std::env::var(name).ok()?;
    let items: Vec<String> = value
        .split(',')
        .map(|item| item.trim().to_string())
        .filter(|item| !item.is_empty())
        .collect();
    (!items.is_empty()).then_some(items)
}
