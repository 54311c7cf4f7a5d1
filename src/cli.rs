//! The command-line door. Every query command calls the same protocol-agnostic function as the
//! LSP and MCP doors (`graph::query`); this module parses flags and formats answers, nothing else.
//!
//! One file per command under `cli/` (its flags, as a clap `Args` struct with `ValueEnum`s for
//! enumerated flags, and what it prints); the flags every command shares, the dispatch and the
//! helpers that load a workspace, find an entity and print are here.

pub mod affected;
pub mod calls;
pub mod check;
pub mod communities;
pub mod debug;
pub mod deps;
pub mod impls;
pub mod index;
pub mod lsp;
pub mod mcp;
pub mod mcp_config;
pub mod module;
pub mod refactor;
pub mod scip;
pub mod search;
pub mod serve;
pub mod servers;
pub mod show;
pub mod symbols;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};

pub use index::format_report;
pub use mcp_config::{McpClient, McpSnippet, mcp_config};
pub use serve::ServeArgs;

use crate::graph::query::{self, Lookup};
use crate::graph::{Entity, Graph};
use crate::world::{CacheLocation, IndexReport, World, WorldConfig};

#[derive(Parser, Debug)]
#[command(
    name = "codegraph",
    version,
    about = "A live code graph for editors (LSP) and AI assistants (MCP)"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// With `--mcp-only` and no command: the headless MCP server (as `codegraph serve`).
    #[command(flatten)]
    pub serve: ServeArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Args, Debug, Clone)]
pub struct ShellArgs {
    /// Enable the `execute_shell_command` tool for exactly these programs (comma-separated,
    /// matched by name). They run without a shell, inside the repository, with a timeout;
    /// interpreters given inline code (`python -c`, `sh -c`, ...) are refused. Over HTTP only the
    /// shell-scoped token (in the discovery file) may use it.
    #[arg(long, value_name = "PROG,PROG", value_delimiter = ',')]
    pub allow_shell: Vec<String>,
}

impl ShellArgs {
    fn policy(&self) -> Option<crate::mcp::shell::ShellPolicy> {
        let programs: Vec<String> = self
            .allow_shell
            .iter()
            .map(|program| program.trim().to_string())
            .filter(|program| !program.is_empty())
            .collect();
        (!programs.is_empty()).then(|| crate::mcp::shell::ShellPolicy::for_this_binary(programs))
    }

    fn apply(&self, server: crate::mcp::CodegraphMcp) -> crate::mcp::CodegraphMcp {
        match self.policy() {
            Some(policy) => server.with_shell(policy),
            None => server,
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct ToolsArgs {
    /// The MCP tools to list: `default` (find_callers, find_callees, find_implementations,
    /// query_codebase, get_code_snippet, find_affected_tests), `all`, or tool names,
    /// comma-separated (`default,local_search`).
    #[arg(long, value_name = "SET", env = "CODEGRAPH_TOOLS", default_value = "default", value_parser = crate::mcp::toolset::ToolSet::parse)]
    pub tools: crate::mcp::toolset::ToolSet,
}

#[derive(Args, Debug, Clone)]
pub struct WorkspaceArgs {
    /// The repository to work on.
    #[arg(long, short = 'r', default_value = ".")]
    pub repo: PathBuf,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_file_size: u64,
    /// Keep the cache in this directory instead of `<repo>/.codegraph`.
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the on-disk cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build or refresh the index of a repository and print what it holds.
    Index(index::IndexArgs),
    /// Who calls NAME (an id, a qualified name or a plain name).
    Callers(calls::CallsArgs),
    /// What NAME calls.
    Callees(calls::CallsArgs),
    /// Types implementing or extending NAME; for a method, its overrides.
    Impls(impls::ImplsArgs),
    /// Symbols matching QUERY (exact, prefix, camel humps, subsequence), best first.
    Symbols(symbols::SymbolsArgs),
    /// Entities matching QUERY in plain words or names (BM25 over name words, paths,
    /// signatures and docstrings), best first, with relevance 0..1.
    Search(search::SearchArgs),
    /// Communities of connected code (Leiden over production code, tests attached to what they
    /// exercise): level 0 fine, 1 and 2 coarser.
    Communities(communities::CommunitiesArgs),
    /// Refactoring suggestions for NAME (an entity or a file path), with its metrics. With
    /// `--dead`, every entity that looks unused; with `--cycles`, the import cycles.
    Refactor(refactor::RefactorArgs),
    /// What the change since a git revision (`--base`, default HEAD; untracked files included)
    /// affects, and the tests to run: as a list, or as pytest, cargo, go or jest take them
    /// (`--format`); `--json` for everything with the paths that reach each test.
    Affected(affected::AffectedArgs),
    /// What NAME depends on (downstream: calls, imports, uses, extends, implements) and what
    /// depends on it (upstream), breadth first.
    Deps(deps::DepsArgs),
    /// How FILE fits in the codebase: its definitions, imports, exported API (and unused public
    /// definitions), the files it depends on and that depend on it, and its metrics. FILE is a
    /// path relative to the repository or a dotted module name.
    Module(module::ModuleArgs),
    /// One entity: where it is, its signature, its relations.
    Show(show::ShowArgs),
    /// Check the architecture rules of `.codegraph/rules.toml` (layers, forbidden dependencies,
    /// independent modules, cycles): prints `path:line:col: severity rule: message` and exits 1
    /// when an error is new against the baseline.
    Check(check::CheckArgs),
    /// Statistics of the index.
    Stats(index::StatsArgs),
    /// Write the graph as a SCIP index (for Sourcegraph: `src code-intel upload -file
    /// index.scip`): definitions, proven references, relationships, package symbols.
    Scip(scip::ScipArgs),
    /// Serve editors over the Language Server Protocol on stdin/stdout. The workspace folders
    /// come from the client's `initialize` request.
    Lsp(lsp::LspArgs),
    /// Serve the repository to AI assistants over MCP on stdin/stdout. Attaches to a running
    /// `codegraph lsp` (or `codegraph serve`) of the repository when there is one, so the AI sees
    /// the editor's unsaved edits; otherwise indexes and serves in-process.
    Mcp(mcp::McpArgs),
    /// The headless MCP server: indexes the repository, watches the file system so the graph
    /// stays current, and serves MCP on stdio (or HTTP with `--http PORT`) and on the unix
    /// socket `codegraph mcp` attaches to. `--mcp-only` is accepted.
    Serve(ServeArgs),
    /// Print the MCP configuration that makes an AI client launch `codegraph mcp` for this
    /// repository (this binary's absolute path, the repository's canonical path). With
    /// `--client`, stdout is exactly the file's content and the hint goes to stderr.
    McpConfig(mcp_config::McpConfigArgs),
    /// The codegraph servers running for this user: each one's root, process, kind (an
    /// editor's `lsp`, a `serve` started by hand, or the `shared` server `codegraph mcp`
    /// starts), clients, uptime and memory.
    Status(servers::StatusArgs),
    /// Stop the servers of a repository (`--repo`, default the current directory) or `--all`;
    /// an editor's language server is left to its editor.
    Stop(servers::StopArgs),
    /// Print what extraction finds in one file, as JSON (for writing language queries).
    #[command(hide = true)]
    DebugExtract { file: PathBuf },
    /// Print a file's syntax tree as an S-expression (for writing language queries).
    #[command(hide = true)]
    DebugTree { file: PathBuf },
}

pub fn main() -> i32 {
    // Not a command line of a user: the server running one shell command (see `mcp::shell`).
    #[cfg(target_os = "linux")]
    {
        let arguments: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        if arguments
            .first()
            .is_some_and(|first| first == crate::mcp::shell::SUPERVISOR_ARGUMENT)
        {
            return crate::mcp::shell::supervisor::main(&arguments[1..]);
        }
    }
    init_logging();
    crate::walk::init_thread_pool();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("codegraph: {error:#}");
            1
        }
    }
}

/// Logs go to stderr (stdout is the protocol for `lsp` and `mcp`), filtered by `CODEGRAPH_LOG`
/// or `RUST_LOG`, warnings by default.
pub fn init_logging() {
    let filter = std::env::var("CODEGRAPH_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        // notify warns when it removes a watch twice, which it does for every deleted directory
        // once each directory has its own watch (`world/watch.rs`): noise, not a problem.
        .unwrap_or_else(|_| "warn,notify=error".to_string());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        // Colours on a terminal only: a shared server's stderr is its log file.
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

fn open_world(workspace: &WorkspaceArgs) -> anyhow::Result<World> {
    let cache = if workspace.no_cache {
        CacheLocation::Disabled
    } else if let Some(directory) = &workspace.cache_dir {
        CacheLocation::Directory(directory.clone())
    } else {
        CacheLocation::InWorkspace
    };
    World::open(
        &workspace.repo,
        WorldConfig {
            max_file_size: workspace.max_file_size,
            cache,
        },
    )
}

/// Indexes with a progress bar on a terminal, quietly otherwise.
fn index_world(world: &World, full: bool) -> IndexReport {
    if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} indexing {pos}/{len} files {wide_bar} {eta}",
            )
            .expect("valid template"),
        );
        let report = world.index(full, &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        });
        bar.finish_and_clear();
        report
    } else {
        world.index(full, &|_, _| {})
    }
}

fn load(workspace: &WorkspaceArgs) -> anyhow::Result<(&'static World, Arc<Graph>)> {
    let world = keep_until_exit(open_world(workspace)?);
    index_world(world, false);
    let graph = world.snapshot();
    Ok((world, graph))
}

/// A one-shot command's world lives until the process exits and is never dropped: freeing a
/// large graph piece by piece costs a noticeable part of a warm start, and the operating
/// system takes the memory back at once.
fn keep_until_exit(world: World) -> &'static World {
    Box::leak(Box::new(world))
}

fn find(graph: &Graph, name: &str) -> anyhow::Result<Entity> {
    match query::lookup(graph, name) {
        Lookup::Found(entity) => Ok(entity),
        Lookup::Ambiguous(candidates) => {
            let list: Vec<String> = candidates
                .iter()
                .map(|entity| entity.id.to_string())
                .collect();
            bail!("'{name}' is ambiguous; use one of: {}", list.join(", "))
        }
        Lookup::NotFound { closest } if closest.is_empty() => bail!("no entity named '{name}'"),
        Lookup::NotFound { closest } => {
            bail!("no entity named '{name}'; closest: {}", closest.join(", "))
        }
        Lookup::TooLong { length } => bail!(
            "a name of {length} bytes is not an entity id, and names are matched up to {} bytes",
            query::MAX_NAME_BYTES
        ),
    }
}

fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}") {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to stdout"),
    }
}

fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    print(&serde_json::to_string_pretty(value)?)
}

/// Prints a JSON answer (an object) with its trust stamp added as `provenance`: the graph
/// revision, and the files among `files` whose text on disk is not the graph's.
fn print_stamped<'a>(
    world: &World,
    graph: &Graph,
    files: impl IntoIterator<Item = &'a str>,
    mut value: serde_json::Value,
) -> anyhow::Result<()> {
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "provenance".to_string(),
            serde_json::to_value(world.stamp(graph, files))?,
        );
    }
    print_json(&value)
}

fn location(entity: &Entity) -> String {
    format!("{}:{}", entity.file_path, entity.start_line)
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    let Some(command) = cli.command else {
        if cli.serve.mcp_only {
            serve::run(cli.serve)?;
            return Ok(0);
        }
        Cli::parse_from(["codegraph", "--help"]);
        return Ok(2);
    };
    match command {
        Command::Serve(arguments) => serve::run(arguments)?,
        Command::Lsp(arguments) => return lsp::run(arguments),
        Command::Check(arguments) => return check::run(&arguments),
        Command::Index(arguments) => index::run(arguments)?,
        Command::Callers(arguments) => calls::run(&arguments, query::CallDirection::Callers)?,
        Command::Callees(arguments) => calls::run(&arguments, query::CallDirection::Callees)?,
        Command::Impls(arguments) => impls::run(&arguments)?,
        Command::Symbols(arguments) => symbols::run(&arguments)?,
        Command::Search(arguments) => search::run(&arguments)?,
        Command::Communities(arguments) => communities::run(&arguments)?,
        Command::Refactor(arguments) => refactor::run(&arguments)?,
        Command::Deps(arguments) => deps::run(&arguments)?,
        Command::Affected(arguments) => affected::run(&arguments)?,
        Command::Module(arguments) => module::run(&arguments)?,
        Command::Show(arguments) => show::run(&arguments)?,
        Command::Stats(arguments) => index::stats(&arguments)?,
        Command::Scip(arguments) => scip::run(&arguments)?,
        Command::Mcp(arguments) => mcp::run(arguments)?,
        Command::McpConfig(arguments) => mcp_config::run(arguments)?,
        Command::Status(arguments) => servers::status(&arguments)?,
        Command::Stop(arguments) => servers::stop(&arguments)?,
        Command::DebugExtract { file } => debug::extract(&file)?,
        Command::DebugTree { file } => debug::tree(&file)?,
    }
    Ok(0)
}
