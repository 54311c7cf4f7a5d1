//! The command-line door. Every query command calls the same protocol-agnostic function as the
//! LSP and MCP doors (`graph::query`); this module parses flags and formats answers, nothing else.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};

use crate::graph::query::{self, Lookup};
use crate::graph::{Entity, Graph};
use crate::lang::Language;
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
pub struct ServeArgs {
    /// Serve MCP only, no editor (LSP): index, watch the file system, serve.
    #[arg(long)]
    pub mcp_only: bool,
    /// Serve MCP over HTTP on this port (Streamable HTTP at /mcp, legacy SSE at /sse) instead
    /// of stdio; 0 picks a free port (published in the discovery file).
    #[arg(long, value_name = "PORT")]
    pub http: Option<u16>,
    /// Same as `--http PORT`.
    #[arg(long, value_name = "PORT", conflicts_with = "http")]
    pub port: Option<u16>,
    /// The address to bind for HTTP. Anything but loopback requires a bearer token, generated
    /// for the run and written to the discovery file.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Require a bearer token on loopback too.
    #[arg(long)]
    pub auth: bool,
    /// Also accept this name in the HTTP `Host` header (with the port); repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    #[command(flatten)]
    pub shell: ShellArgs,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
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
        (!programs.is_empty()).then_some(crate::mcp::shell::ShellPolicy { programs })
    }

    fn apply(&self, server: crate::mcp::CodegraphMcp) -> crate::mcp::CodegraphMcp {
        match self.policy() {
            Some(policy) => server.with_shell(policy),
            None => server,
        }
    }
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
    Index {
        /// The repository (default: the current directory).
        path: Option<PathBuf>,
        /// Re-parse every file, ignoring the cache.
        #[arg(long)]
        full: bool,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Who calls NAME (an id, a qualified name or a plain name).
    Callers {
        name: String,
        /// Follow callers of callers up to this many hops.
        #[arg(long, default_value_t = 1)]
        depth: u32,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// What NAME calls.
    Callees {
        name: String,
        #[arg(long, default_value_t = 1)]
        depth: u32,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Types implementing or extending NAME; for a method, its overrides.
    Impls {
        name: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Symbols matching QUERY (exact, prefix, camel humps, subsequence), best first.
    Symbols {
        query: String,
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Entities matching QUERY in plain words or names (BM25 over name words, paths,
    /// signatures and docstrings), best first, with relevance 0..1.
    Search {
        query: String,
        /// all, functions, classes or files.
        #[arg(long, default_value = "all")]
        scope: String,
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Which code: production_first (default), all, or classes, comma-separated
        /// (production, test, fixture, example, generated, vendored).
        #[arg(long, default_value = "production_first")]
        filter: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Communities of connected code (Leiden over production code, tests attached to what they
    /// exercise): level 0 fine, 1 and 2 coarser.
    Communities {
        /// The level to list (default 0) or to answer from (default: chosen from the question).
        #[arg(long)]
        level: Option<u8>,
        /// Also list single-entity communities.
        #[arg(long)]
        all: bool,
        /// Answer this question from the communities (global search) instead of listing them.
        #[arg(long)]
        ask: Option<String>,
        /// Which code: production_first (default), all, or classes, comma-separated
        /// (production, test, fixture, example, generated, vendored).
        #[arg(long, default_value = "production_first")]
        filter: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Refactoring suggestions for NAME (an entity or a file path), with its metrics. With
    /// `--dead`, every entity that looks unused; with `--cycles`, the import cycles.
    Refactor {
        name: Option<String>,
        /// Only this kind: extract, rename, move, simplify, inline, remove.
        #[arg(long = "type")]
        kind: Option<String>,
        #[arg(long)]
        dead: bool,
        #[arg(long)]
        cycles: bool,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// What NAME depends on (downstream: calls, imports, uses, extends, implements) and what
    /// depends on it (upstream), breadth first.
    Deps {
        name: String,
        /// upstream, downstream or both.
        #[arg(long, default_value = "both")]
        direction: String,
        /// Hops to follow (at most 10).
        #[arg(long, default_value_t = 2)]
        depth: u32,
        /// Which code: production_first (default), all, or classes, comma-separated
        /// (production, test, fixture, example, generated, vendored).
        #[arg(long, default_value = "production_first")]
        filter: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// How FILE fits in the codebase: its definitions, imports, exported API (and unused public
    /// definitions), the files it depends on and that depend on it, and its metrics. FILE is a
    /// path relative to the repository or a dotted module name.
    Module {
        file: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// One entity: where it is, its signature, its relations.
    Show {
        name: String,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Statistics of the index.
    Stats {
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Serve editors over the Language Server Protocol on stdin/stdout. The workspace folders
    /// come from the client's `initialize` request.
    Lsp {
        /// Accepted for editors that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
        /// Skip files larger than this many bytes.
        #[arg(long, default_value_t = 1024 * 1024)]
        max_file_size: u64,
        /// Neither read nor write the on-disk cache (`<folder>/.codegraph`).
        #[arg(long)]
        no_cache: bool,
        /// Do not serve MCP on a unix socket (by default `codegraph mcp` can attach to this
        /// process and see the editor's unsaved edits).
        #[arg(long)]
        no_mcp_socket: bool,
        /// On the MCP socket: `codegraph mcp` clients attached to this process may run these
        /// programs (off by default; see `codegraph serve --help`).
        #[command(flatten)]
        shell: ShellArgs,
    },
    /// Serve the repository to AI assistants over MCP on stdin/stdout. Attaches to a running
    /// `codegraph lsp` (or `codegraph serve`) of the repository when there is one, so the AI sees
    /// the editor's unsaved edits; otherwise indexes and serves in-process.
    Mcp {
        /// Never attach to a running server; always index and serve in-process.
        #[arg(long)]
        no_attach: bool,
        /// (In-process only: an attached server keeps its own setting.)
        #[command(flatten)]
        shell: ShellArgs,
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// The headless MCP server: indexes the repository, watches the file system so the graph
    /// stays current, and serves MCP on stdio (or HTTP with `--http PORT`) and on the unix
    /// socket `codegraph mcp` attaches to. `--mcp-only` is accepted.
    Serve(ServeArgs),
    /// Print the MCP configuration that makes an AI client launch `codegraph mcp` for this
    /// repository (this binary's absolute path, the repository's canonical path). With
    /// `--client`, stdout is exactly the file's content and the hint goes to stderr.
    McpConfig {
        /// Only this client's configuration.
        #[arg(long, value_enum)]
        client: Option<McpClient>,
        /// The repository the AI client should see.
        #[arg(long, short = 'r', default_value = ".")]
        repo: PathBuf,
    },
    /// Print what extraction finds in one file, as JSON (for writing language queries).
    #[command(hide = true)]
    DebugExtract { file: PathBuf },
    /// Print a file's syntax tree as an S-expression (for writing language queries).
    #[command(hide = true)]
    DebugTree { file: PathBuf },
}

pub fn main() -> i32 {
    init_logging();
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
        .unwrap_or_else(|_| "warn".to_string());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
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

fn load(workspace: &WorkspaceArgs) -> anyhow::Result<(World, Arc<Graph>)> {
    let world = open_world(workspace)?;
    index_world(&world, false);
    let graph = world.snapshot();
    Ok((world, graph))
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

fn location(entity: &Entity) -> String {
    format!("{}:{}", entity.file_path, entity.start_line)
}

fn serve(arguments: ServeArgs) -> anyhow::Result<()> {
    let world = open_world(&arguments.workspace)?;
    let front = match arguments.http.or(arguments.port) {
        None => crate::mcp::serve::Front::Stdio,
        Some(port) => {
            let beyond_loopback = !arguments.host.is_loopback();
            let with_shell = arguments.shell.policy().is_some();
            // Shell over HTTP always takes the shell-scoped token.
            let tokens = if arguments.auth || beyond_loopback || with_shell {
                Some(crate::mcp::http::Tokens::generate(with_shell)?)
            } else {
                None
            };
            crate::mcp::serve::Front::Http(crate::mcp::http::HttpOptions {
                host: arguments.host,
                port,
                tokens,
                extra_hosts: arguments.allow_host.clone(),
            })
        }
    };
    let shell = arguments.shell.clone();
    crate::mcp::serve::run(world, move |server| shell.apply(server), front)
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    let Some(command) = cli.command else {
        if cli.serve.mcp_only {
            serve(cli.serve)?;
            return Ok(0);
        }
        Cli::parse_from(["codegraph", "--help"]);
        return Ok(2);
    };
    match command {
        Command::Serve(arguments) => serve(arguments)?,
        Command::Lsp {
            stdio: _,
            max_file_size,
            no_cache,
            no_mcp_socket,
            shell,
        } => {
            let cache = if no_cache {
                CacheLocation::Disabled
            } else {
                CacheLocation::InWorkspace
            };
            // 1 when the client said `exit` (or went away) without `shutdown` first.
            return crate::lsp::run_stdio(
                WorldConfig {
                    max_file_size,
                    cache,
                },
                !no_mcp_socket,
                shell.policy(),
            );
        }
        Command::Index {
            path,
            full,
            mut workspace,
        } => {
            if let Some(path) = path {
                workspace.repo = path;
            }
            let world = open_world(&workspace)?;
            let report = index_world(&world, full);
            if workspace.json {
                print_json(&report)?;
            } else {
                print(&format_report(&report))?;
            }
        }
        Command::Callers {
            name,
            depth,
            workspace,
        } => calls(&name, depth, &workspace, true)?,
        Command::Callees {
            name,
            depth,
            workspace,
        } => calls(&name, depth, &workspace, false)?,
        Command::Impls { name, workspace } => {
            let (_world, graph) = load(&workspace)?;
            let entity = find(&graph, &name)?;
            let found = query::implementations(&graph, &entity.id);
            if workspace.json {
                print_json(&serde_json::json!({ "entity": entity, "implementations": found }))?;
            } else if found.is_empty() {
                print(&format!("{} has no implementations", entity.id))?;
            } else {
                for item in found {
                    print(&format!("{}  {} {}", item.id, item.kind, location(&item)))?;
                }
            }
        }
        Command::Symbols {
            query: text,
            limit,
            workspace,
        } => {
            let (_world, graph) = load(&workspace)?;
            let found = query::symbols(&graph, &text, limit);
            if workspace.json {
                print_json(&found)?;
            } else {
                for item in found {
                    print(&format!(
                        "{:.2}  {}  {} {}",
                        item.score,
                        item.entity.id,
                        item.entity.kind,
                        location(&item.entity)
                    ))?;
                }
            }
        }
        Command::Search {
            query: text,
            scope,
            limit,
            filter,
            workspace,
        } => search(&text, &scope, limit, &filter, &workspace)?,
        Command::Communities {
            level,
            all,
            ask,
            filter,
            workspace,
        } => communities(level, all, ask.as_deref(), &filter, &workspace)?,
        Command::Refactor {
            name,
            kind,
            dead,
            cycles,
            workspace,
        } => refactor(name.as_deref(), kind.as_deref(), dead, cycles, &workspace)?,
        Command::Deps {
            name,
            direction,
            depth,
            filter,
            workspace,
        } => dependencies(&name, &direction, depth, &filter, &workspace)?,
        Command::Module { file, workspace } => module(&file, &workspace)?,
        Command::Show { name, workspace } => {
            let (_world, graph) = load(&workspace)?;
            let entity = find(&graph, &name)?;
            let callers = query::callers(&graph, &entity.id);
            let callees = query::callees(&graph, &entity.id);
            let bases = query::supertypes(&graph, &entity.id);
            if workspace.json {
                let bases: Vec<serde_json::Value> = bases
                    .iter()
                    .map(|(base, kind)| serde_json::json!({ "id": base.id, "relation": kind }))
                    .collect();
                print_json(
                    &serde_json::json!({ "entity": entity, "callers": callers, "callees": callees, "bases": bases }),
                )?;
            } else {
                print(&format!(
                    "{} ({}) {}-{}",
                    entity.id,
                    entity.kind,
                    location(&entity),
                    entity.end_line
                ))?;
                print(&format!("  qualified name: {}", entity.qualified_name))?;
                if let Some(signature) = &entity.signature {
                    print(&format!("  signature: {signature}"))?;
                }
                if let Some(doc) = &entity.docstring {
                    print(&format!("  doc: {}", doc.lines().next().unwrap_or("")))?;
                }
                for (base, kind) in bases {
                    print(&format!("  {kind} {}", base.id))?;
                }
                for call in callers {
                    print(&format!(
                        "  called by {} ({})",
                        call.entity.id, call.resolution
                    ))?;
                }
                for call in callees {
                    print(&format!("  calls {} ({})", call.entity.id, call.resolution))?;
                }
            }
        }
        Command::Stats { workspace } => {
            let world = open_world(&workspace)?;
            let report = index_world(&world, false);
            if workspace.json {
                print_json(&report)?;
            } else {
                print(&format_report(&report))?;
            }
        }
        Command::DebugTree { file } => {
            let language = Language::from_path(&file).ok_or_else(|| {
                anyhow::anyhow!("{}: not a language codegraph parses", file.display())
            })?;
            let text = crate::syntax::decode_lossy(
                std::fs::read(&file).with_context(|| file.display().to_string())?,
            );
            let tree = crate::syntax::parse(language, &text, None)
                .context("the grammar could not be loaded")?;
            print(&tree.root_node().to_sexp())?;
        }
        Command::Mcp {
            no_attach,
            shell,
            workspace,
        } => {
            let runtime = tokio::runtime::Runtime::new()?;
            if !no_attach
                && runtime.block_on(crate::mcp::attach::relay_if_served(&workspace.repo))?
            {
                return Ok(0);
            }
            let world = open_world(&workspace)?;
            // stdout is the protocol: index quietly.
            let report = world.index(false, &|_, _| {});
            tracing::info!(
                "indexed {} files, {} entities; serving MCP on stdio",
                report.files,
                report.entities
            );
            let server = shell.apply(crate::mcp::CodegraphMcp::new(Arc::new(world)));
            runtime.block_on(crate::mcp::serve_stdio(server))?;
        }
        Command::McpConfig { client, repo } => {
            let binary = std::env::current_exe().context("locating the codegraph binary")?;
            let repo = std::fs::canonicalize(&repo)
                .with_context(|| format!("{}: no such repository", repo.display()))?;
            match client {
                Some(client) => {
                    let snippet = mcp_config(client, &binary, &repo);
                    print(&snippet.text)?;
                    eprintln!("{}", snippet.hint());
                }
                None => {
                    let all: Vec<String> = McpClient::ALL
                        .iter()
                        .map(|client| {
                            let snippet = mcp_config(*client, &binary, &repo);
                            format!("{}\n{}", snippet.hint(), snippet.text)
                        })
                        .collect();
                    print(&all.join("\n\n"))?;
                }
            }
        }
        Command::DebugExtract { file } => {
            let language = Language::from_path(&file).ok_or_else(|| {
                anyhow::anyhow!("{}: not a language codegraph parses", file.display())
            })?;
            let bytes = std::fs::read(&file)
                .map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
            let text = crate::syntax::decode_lossy(bytes);
            let (summary, _) = crate::index::extract_text(language, &text);
            print_json(&summary)?;
        }
    }
    Ok(0)
}

fn calls(name: &str, depth: u32, workspace: &WorkspaceArgs, incoming: bool) -> anyhow::Result<()> {
    let (_world, graph) = load(workspace)?;
    let entity = find(&graph, name)?;
    let reached = query::call_closure(&graph, &entity.id, incoming, depth.max(1));
    let label = if incoming { "callers" } else { "callees" };
    // Ambiguous references left aside: calls that may be there but are no edges.
    let possible = if incoming {
        query::possible_callers(&graph, &entity.id)
    } else {
        query::possible_callees(&graph, &entity.id)
    };
    if workspace.json {
        return print_json(&serde_json::json!({
            "entity": entity,
            label: reached,
            "possible": possible,
            "revision": graph.revision(),
        }));
    }
    if reached.is_empty() {
        let proven = if possible.is_empty() { "" } else { " proven" };
        print(&format!("{} has no {label}{proven}", entity.id))?;
    }
    for item in reached {
        let indent = "  ".repeat(item.depth as usize - 1);
        print(&format!(
            "{indent}{}  {} {}",
            item.entity.id,
            item.entity.kind,
            location(&item.entity)
        ))?;
    }
    if !possible.is_empty() {
        print("possible (ambiguous references, not edges):")?;
        for call in possible {
            let candidates: Vec<&str> = call.candidates.iter().map(|id| &**id).collect();
            print(&format!(
                "  {}  {} at {}:{} could be {}",
                call.from,
                call.name,
                call.file,
                call.line,
                candidates.join(" | ")
            ))?;
        }
    }
    Ok(())
}

fn dependencies(
    name: &str,
    direction: &str,
    depth: u32,
    filter: &str,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    use crate::analysis::modules::{self, Direction};
    let direction = Direction::parse(direction).ok_or_else(|| {
        anyhow::anyhow!("unknown direction '{direction}': use upstream, downstream or both")
    })?;
    let (_world, graph) = load(workspace)?;
    let entity = find(&graph, name)?;
    let filter = crate::analysis::filter::FileFilter::parse(filter).map_err(anyhow::Error::msg)?;
    let found = modules::find_dependencies_filtered(&graph, &entity, direction, depth, filter);
    if workspace.json {
        return print_json(&serde_json::json!({ "entity": entity, "dependencies": found }));
    }
    if found.is_empty() {
        return print(&format!(
            "{} has no {} dependencies",
            entity.id,
            direction.as_str()
        ));
    }
    for item in found {
        print(&format!(
            "{} {}  {} {}  ({} {} via {})",
            item.direction.as_str(),
            item.depth,
            item.entity.id,
            item.entity.kind,
            location(&item.entity),
            item.relation,
            item.via
        ))?;
    }
    Ok(())
}

fn module(file: &str, workspace: &WorkspaceArgs) -> anyhow::Result<()> {
    use crate::analysis::modules;
    let (_world, graph) = load(workspace)?;
    let path = modules::find_file(&graph, file).map_err(|closest| {
        if closest.is_empty() {
            anyhow::anyhow!("'{file}' is not an indexed file")
        } else {
            anyhow::anyhow!(
                "'{file}' is not an indexed file; closest: {}",
                closest.join(", ")
            )
        }
    })?;
    let module = modules::analyze_module_structure(&graph, &path)
        .context("the file left the graph while it was read")?;
    if workspace.json {
        return print_json(&module);
    }
    let metrics = &module.metrics;
    let mut out = format!(
        "{} ({}, {} lines)\n",
        module.file,
        module.language.name(),
        metrics.lines
    );
    let entities = module.entities.iter().map(|entry| {
        format!(
            "{}{} {} {}-{}",
            "  ".repeat(entry.depth as usize),
            entry.entity.kind,
            entry.entity.name,
            entry.entity.start_line,
            entry.entity.end_line
        )
    });
    section(&mut out, "Entities", entities);
    let imports = module.imports.iter().map(|import| {
        let mut text = import.module.to_string();
        if let Some(name) = &import.name {
            text.push_str(&format!(" {name}"));
        }
        if let Some(alias) = &import.alias {
            text.push_str(&format!(" as {alias}"));
        }
        format!("{text} (line {})", import.line)
    });
    section(&mut out, "Imports", imports);
    let exports = module.exported_api.iter().map(|export| {
        let users: Vec<&str> = export.used_by.iter().map(|file| &**file).collect();
        format!(
            "{} {}  {} references from {}",
            export.entity.kind,
            export.entity.id,
            export.references,
            users.join(", ")
        )
    });
    section(&mut out, "Exported API", exports);
    let unused = module
        .unused_exports
        .iter()
        .map(|entity| format!("{} {}", entity.kind, entity.id));
    section(&mut out, "Unused public definitions", unused);
    section(&mut out, "Depends on", module.dependencies.iter());
    section(&mut out, "Depended on by", module.dependents.iter());
    let kinds: Vec<String> = metrics
        .entities_by_kind
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect();
    out.push_str(&format!(
        "Metrics: {}; cyclomatic complexity total {} over {} functions, max {}{}; file fan-in {}, fan-out {}; {}",
        kinds.join(", "),
        metrics.total_complexity,
        metrics.functions,
        metrics.max_complexity,
        metrics
            .most_complex
            .as_ref()
            .map_or(String::new(), |id| format!(" ({id})")),
        metrics.fan_in,
        metrics.fan_out,
        if metrics.in_import_cycle {
            let cycle: Vec<&str> = metrics.import_cycle.iter().map(|file| &**file).collect();
            format!("import cycle: {}", cycle.join(" -> "))
        } else {
            "in no import cycle".to_string()
        }
    ));
    print(&out)
}

/// `Header:` and its items indented, or `(none)`.
fn section(out: &mut String, header: &str, items: impl Iterator<Item = impl std::fmt::Display>) {
    out.push_str(header);
    out.push_str(":\n");
    let before = out.len();
    for item in items {
        out.push_str(&format!("  {item}\n"));
    }
    if out.len() == before {
        out.push_str("  (none)\n");
    }
}

fn search(
    text: &str,
    scope: &str,
    limit: usize,
    filter: &str,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    use crate::analysis::search::SearchScope;
    let scope = match scope {
        "all" => SearchScope::All,
        "functions" => SearchScope::Functions,
        "classes" => SearchScope::Classes,
        "files" => SearchScope::Files,
        other => bail!("unknown scope '{other}': use all, functions, classes or files"),
    };
    let filter = crate::analysis::filter::FileFilter::parse(filter).map_err(anyhow::Error::msg)?;
    let (world, graph) = load(workspace)?;
    let index = world.analysis().search_index(&graph);
    let options = crate::analysis::search::SearchOptions::new(&graph, scope, limit);
    let results = index.search_with(text, &options.with_filter(filter));
    let found: Vec<(f64, Entity)> = results
        .hits
        .iter()
        .filter_map(|hit| Some((hit.relevance, graph.entity(&hit.id)?)))
        .collect();
    if workspace.json {
        let entities: Vec<serde_json::Value> = found
            .iter()
            .map(|(relevance, entity)| serde_json::json!({ "entity": entity, "relevance": relevance }))
            .collect();
        return print_json(&serde_json::json!({
            "terms": results.terms,
            "entities": entities,
            "total_count": results.total_count,
        }));
    }
    if found.is_empty() {
        return print(&format!("nothing matches {:?}", results.terms));
    }
    for (relevance, entity) in found {
        let class = graph.class_of(&entity.id);
        print(&format!(
            "{relevance:.2}  {}  {} {}{}",
            entity.id,
            entity.kind,
            location(&entity),
            if class == crate::model::FileClass::Production {
                String::new()
            } else {
                format!("  [{class}]")
            }
        ))?;
    }
    Ok(())
}

fn communities(
    level: Option<u8>,
    all: bool,
    ask: Option<&str>,
    filter: &str,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    let filter = crate::analysis::filter::FileFilter::parse(filter).map_err(anyhow::Error::msg)?;
    let (world, graph) = load(workspace)?;
    let found = world.analysis().communities(&graph);
    let chosen = level.map(|level| (level as usize).min(crate::analysis::communities::LEVELS - 1));
    let level = chosen.unwrap_or(0);
    if let Some(question) = ask {
        let index = world.analysis().search_index(&graph);
        let options = crate::analysis::rag::GlobalOptions {
            level: chosen,
            filter,
        };
        let answer =
            crate::analysis::rag::global_search(&graph, &index, &found, question, &options);
        if workspace.json {
            return print_json(&answer);
        }
        print(&answer.answer)?;
        print(&format!(
            "(confidence {:.2}, {} communities searched)",
            answer.confidence, answer.communities_searched
        ))?;
        return Ok(());
    }
    let listed: Vec<&crate::analysis::communities::Community> = found
        .at_level(level)
        .filter(|community| all || community.member_count > 1)
        .collect();
    if workspace.json {
        return print_json(&serde_json::json!({
            "levels": found.levels,
            "duration_ms": found.duration_ms,
            "communities": listed,
        }));
    }
    for info in &found.levels {
        print(&format!(
            "level {}: {} communities ({} with 2+ members), modularity {:.3}",
            info.level, info.community_count, info.nontrivial_count, info.modularity
        ))?;
    }
    print(&format!("computed in {:.0} ms\n", found.duration_ms))?;
    for community in listed {
        print(&format!(
            "#{} {} ({} members)\n  {}",
            community.id, community.name, community.member_count, community.summary
        ))?;
    }
    Ok(())
}

fn refactor(
    name: Option<&str>,
    kind: Option<&str>,
    dead: bool,
    cycles: bool,
    workspace: &WorkspaceArgs,
) -> anyhow::Result<()> {
    use crate::analysis::refactor;
    let only = match kind {
        None => None,
        Some(text) => Some(refactor::SuggestionKind::parse(text).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown type '{text}': extract, rename, move, simplify, inline or remove"
            )
        })?),
    };
    let (world, graph) = load(workspace)?;
    let facts = world.analysis().repo_facts(&graph);
    if cycles {
        if workspace.json {
            return print_json(&facts.import_cycles);
        }
        if facts.import_cycles.is_empty() {
            print("no import cycles")?;
        }
        for cycle in &facts.import_cycles {
            let path: Vec<&str> = cycle.cycle.iter().map(|file| &**file).collect();
            print(&format!(
                "{} files: {}",
                cycle.files.len(),
                path.join(" -> ")
            ))?;
        }
        return Ok(());
    }
    if dead {
        let found = refactor::dead_code(&graph, &facts);
        if workspace.json {
            let list: Vec<serde_json::Value> = found
                .iter()
                .map(|(entity, confidence, reason)| serde_json::json!({ "entity": entity, "confidence": confidence, "reason": reason }))
                .collect();
            return print_json(&list);
        }
        for (entity, confidence, reason) in found {
            print(&format!(
                "{confidence:.2}  {}  {}: {reason}",
                entity.id,
                location(&entity)
            ))?;
        }
        return Ok(());
    }
    let Some(name) = name else {
        bail!("give an entity (or a file path), or --dead, or --cycles");
    };
    let entity = find(&graph, name)?;
    let report = refactor::suggest(&graph, &facts, &entity, only);
    if workspace.json {
        return print_json(&report);
    }
    let metrics = &report.metrics;
    let optional = |value: Option<u32>| value.map_or("-".to_string(), |value| value.to_string());
    print(&format!(
        "{} ({}) {}\n  lines {}, complexity {}, nesting {}, parameters {}, fan-in {}, fan-out {}",
        entity.id,
        entity.kind,
        location(&entity),
        metrics.lines,
        optional(metrics.cyclomatic_complexity),
        optional(metrics.max_nesting),
        optional(metrics.parameters),
        metrics.fan_in,
        metrics.fan_out
    ))?;
    if report.suggestions.is_empty() {
        print("  no suggestions")?;
    }
    for suggestion in &report.suggestions {
        let kind = serde_json::to_value(suggestion.kind)?;
        print(&format!(
            "  {} ({:.2}): {}",
            kind.as_str().unwrap_or_default(),
            suggestion.confidence,
            suggestion.reason
        ))?;
    }
    Ok(())
}

/// The index report for humans.
pub fn format_report(report: &IndexReport) -> String {
    let mut out = String::new();
    let seconds = report.duration_ms / 1000.0;
    out.push_str(&format!(
        "Indexed {} files ({} lines) in {:.2} s: {} parsed, {} from cache, {} removed\n",
        report.files, report.lines, seconds, report.parsed, report.from_cache, report.removed
    ));
    out.push_str(&format!("Entities: {}\n", report.entities));
    for (kind, count) in &report.entities_by_type {
        if *count > 0 {
            out.push_str(&format!("  {kind:<10} {count}\n"));
        }
    }
    out.push_str(&format!("Relations: {}\n", report.relations));
    for (kind, count) in &report.relations_by_type {
        if *count > 0 {
            out.push_str(&format!("  {kind:<10} {count}\n"));
        }
    }
    out.push_str("Languages:");
    for (language, count) in &report.languages {
        out.push_str(&format!(" {language} {count}"));
    }
    out.push_str("\nFiles by class:");
    for (class, count) in &report.files_by_class {
        out.push_str(&format!(" {class} {count}"));
    }
    out.push('\n');
    out.push_str(&format!(
        "Unresolved: {} ambiguous references (no edge made), {} external references\n",
        report.ambiguous_references, report.external_references
    ));
    if report.files_with_problems > 0 {
        out.push_str(&format!(
            "{} files have syntax errors (indexed what parses)\n",
            report.files_with_problems
        ));
    }
    if !report.skipped.is_empty() {
        out.push_str(&format!("Skipped {} files:\n", report.skipped.len()));
        for skipped in report.skipped.iter().take(10) {
            out.push_str(&format!("  {} ({})\n", skipped.path, skipped.reason));
        }
        if report.skipped.len() > 10 {
            out.push_str(&format!("  ... and {} more\n", report.skipped.len() - 10));
        }
    }
    out.trim_end().to_string()
}

/// The AI clients `codegraph mcp-config` knows.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpClient {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    Vscode,
}

impl McpClient {
    pub const ALL: [McpClient; 4] = [
        McpClient::ClaudeCode,
        McpClient::ClaudeDesktop,
        McpClient::Cursor,
        McpClient::Vscode,
    ];
}

/// One client's MCP configuration: the file it reads and the JSON to put there.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSnippet {
    pub client: McpClient,
    /// Where the client reads it (a path, or a description for Claude Desktop).
    pub file: String,
    /// The file's content: pretty JSON, keys in the order the clients' documentation shows.
    pub text: String,
    /// A command that registers the server instead (Claude Code's `claude mcp add`).
    pub command: Option<String>,
}

impl McpSnippet {
    /// One comment line saying where the JSON goes (and the command, if any).
    pub fn hint(&self) -> String {
        let name = match self.client {
            McpClient::ClaudeCode => "Claude Code",
            McpClient::ClaudeDesktop => "Claude Desktop",
            McpClient::Cursor => "Cursor",
            McpClient::Vscode => "VS Code",
        };
        match &self.command {
            Some(command) => format!("# {name}: {}, or run: {command}", self.file),
            None => format!("# {name}: {}", self.file),
        }
    }
}

/// A stdio MCP server entry (typed so the keys keep this order in the output).
#[derive(serde::Serialize)]
struct StdioServer<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    command: &'a str,
    args: [&'a str; 3],
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct McpServers<'a> {
    mcp_servers: std::collections::BTreeMap<&'static str, StdioServer<'a>>,
}

#[derive(serde::Serialize)]
struct VscodeServers<'a> {
    servers: std::collections::BTreeMap<&'static str, StdioServer<'a>>,
}

/// The MCP configuration making `client` launch `binary mcp --repo repo` (both paths absolute,
/// so it works whatever directory the client starts servers in). Every client but VS Code reads
/// the `mcpServers` shape; VS Code's `mcp.json` uses `servers` with an explicit `type`. The
/// VS Code extension (`editors/vscode/src/mcpConfig.ts`) writes the same shapes.
pub fn mcp_config(
    client: McpClient,
    binary: &std::path::Path,
    repo: &std::path::Path,
) -> McpSnippet {
    let binary = binary.display().to_string();
    let repo = repo.display().to_string();
    let server = |kind| {
        std::collections::BTreeMap::from([(
            "codegraph",
            StdioServer {
                kind,
                command: &binary,
                args: ["mcp", "--repo", &repo],
            },
        )])
    };
    let standard = pretty(&McpServers {
        mcp_servers: server(None),
    });
    let (file, text, command) = match client {
        McpClient::ClaudeCode => (
            format!("{repo}/.mcp.json"),
            standard,
            Some(format!(
                "claude mcp add codegraph -- {} mcp --repo {}",
                shell_quote(&binary),
                shell_quote(&repo)
            )),
        ),
        McpClient::ClaudeDesktop => (
            "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, \
             Windows: %APPDATA%\\Claude\\), merged into its mcpServers"
                .to_string(),
            standard,
            None,
        ),
        McpClient::Cursor => (format!("{repo}/.cursor/mcp.json"), standard, None),
        McpClient::Vscode => (
            format!("{repo}/.vscode/mcp.json"),
            pretty(&VscodeServers {
                servers: server(Some("stdio")),
            }),
            None,
        ),
    };
    McpSnippet {
        client,
        file,
        text,
        command,
    }
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).expect("configuration structs serialise")
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn json(snippet: &McpSnippet) -> serde_json::Value {
        serde_json::from_str(&snippet.text).unwrap()
    }

    fn snippet(client: McpClient) -> McpSnippet {
        mcp_config(
            client,
            Path::new("/opt/bin/codegraph"),
            Path::new("/home/me/shop"),
        )
    }

    #[test]
    fn claude_code_gets_mcp_servers_and_the_claude_command() {
        let claude = snippet(McpClient::ClaudeCode);
        assert_eq!(
            json(&claude),
            serde_json::json!({"mcpServers": {"codegraph": {
                "command": "/opt/bin/codegraph", "args": ["mcp", "--repo", "/home/me/shop"]}}})
        );
        assert_eq!(claude.file, "/home/me/shop/.mcp.json");
        assert_eq!(
            claude.command.as_deref(),
            Some("claude mcp add codegraph -- /opt/bin/codegraph mcp --repo /home/me/shop")
        );
    }

    #[test]
    fn cursor_and_claude_desktop_share_the_mcp_servers_shape() {
        let cursor = snippet(McpClient::Cursor);
        assert_eq!(cursor.file, "/home/me/shop/.cursor/mcp.json");
        assert_eq!(cursor.text, snippet(McpClient::ClaudeCode).text);
        assert_eq!(snippet(McpClient::ClaudeDesktop).text, cursor.text);
        assert_eq!(cursor.command, None);
    }

    #[test]
    fn vscode_gets_servers_with_a_stdio_type() {
        let vscode = snippet(McpClient::Vscode);
        assert_eq!(vscode.file, "/home/me/shop/.vscode/mcp.json");
        assert_eq!(
            vscode.text,
            r#"{
  "servers": {
    "codegraph": {
      "type": "stdio",
      "command": "/opt/bin/codegraph",
      "args": [
        "mcp",
        "--repo",
        "/home/me/shop"
      ]
    }
  }
}"#
        );
    }

    #[test]
    fn paths_with_spaces_are_quoted_in_the_command() {
        let claude = mcp_config(
            McpClient::ClaudeCode,
            Path::new("/Applications/My Tools/codegraph"),
            Path::new("/home/me/it's here"),
        );
        assert_eq!(
            claude.command.as_deref(),
            Some(
                r"claude mcp add codegraph -- '/Applications/My Tools/codegraph' mcp --repo '/home/me/it'\''s here'"
            )
        );
    }
}
