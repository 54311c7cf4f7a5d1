//! codegraph: a live code graph of a repository, served to editors (LSP) and AI assistants (MCP).
//!
//! # Code map
//!
//! A Cargo workspace, one crate per layer; each arrow is a dependency edge in the crates'
//! `Cargo.toml`, so no layer can reach up:
//!
//! ```text
//! codegraph (this crate: the cli, main.rs)
//!   -> codegraph-lsp -> codegraph-mcp -> codegraph-world -> codegraph-analysis -> codegraph-graph
//!   -> codegraph-export -> codegraph-graph
//! codegraph-graph -> codegraph-index -> codegraph-lang -> codegraph-model
//! ```
//!
//! | crate | directory | modules (as this crate re-exports them) |
//! |---|---|---|
//! | `codegraph-model` | `crates/codegraph-model` | `model` (its root), `walk`, `cancel`, `contain` |
//! | `codegraph-lang` | `crates/codegraph-lang` | `lang` (its root, with `queries/`), `syntax` |
//! | `codegraph-index` | `crates/codegraph-index` | `index` |
//! | `codegraph-graph` | `crates/codegraph-graph` | `graph` |
//! | `codegraph-analysis` | `crates/codegraph-analysis` | `analysis` |
//! | `codegraph-export` | `crates/codegraph-export` | `export` |
//! | `codegraph-world` | `crates/codegraph-world` | `world` |
//! | `codegraph-mcp` | `crates/codegraph-mcp` | `mcp` |
//! | `codegraph-lsp` | `crates/codegraph-lsp` | `lsp` |
//! | `codegraph-live` (this one) | `src` | `cli`, and every layer re-exported under its module name |
//! | `codegraph-testkit` | `crates/codegraph-testkit` | none: development only (the tests' and benchmarks' LSP and MCP clients, inline fixtures) |
//!
//! Each crate's `lib.rs` opens with what that layer is and its invariants. Below, a path such as
//! `graph/resolve/infer.rs` is a file of that module's crate (`crates/codegraph-graph/src/resolve/infer.rs`;
//! `syntax/...` is `crates/codegraph-lang/src/syntax/...`).
//!
//! - `model`    entity and relation kinds, resolution kinds, spans, and `Name` (`model/name.rs`):
//!   the interned string every name, entity id and file path of summaries and the graph is
//!   (a four-byte number; each text stored once for the process, never freed, in
//!   `model/name/table.rs`: read by number without a lock, interned under one of 64 shards). A stored `Span` is a
//!   byte range; its lines and columns come from the file's `LineTable` (`model/lines.rs`,
//!   about a byte per line, kept in the summary: `FileSummary::locate`), and answers carry a
//!   `LineSpan`. No protocol types.
//! - `lang`     the language registry; `lang/queries/<language>/*.scm` hold all language knowledge
//!   that is syntax (definitions, references, imports, inheritance), plus a few resolution facts.
//!   Languages that share syntax share files rather than copy them, as helix's `; inherits:`
//!   does: `queries/ecma/` (JavaScript, TypeScript, TSX), `queries/_jsx/` (JavaScript, TSX),
//!   `queries/c_common/` (C, C++); each language's `query_source` lists the shared file before
//!   its own of the same kind (the `queries!` macro);
//!   `lang/file_class.rs` says what a file is for (production, test, fixture, example, generated,
//!   vendored) from each ecosystem's path conventions, stored on the file when it is indexed
//!   (a file a workspace package publishes through `package.json` `exports` is production: the
//!   writer applies that from the manifests, `graph::build::published_class`).
//! - `syntax`   parsing (one parser per thread, incremental reparse), UTF-8/UTF-16 positions;
//!   `syntax::macro_items`: Rust items inside item-wrapping macros (`cfg_rt! { .. }`) parsed
//!   as items, in place (invariant: the extraction tree is the tree of the text with the
//!   wrappers' headers and closing braces blanked; offsets, lines and columns are the text's);
//!   `syntax::export_macros`: C and C++ export macros between `class` and a class's name
//!   (`class LEVELDB_EXPORT Slice {`) blanked before the parse, length for length; a file so
//!   masked (like Python's long comment runs and Bash's brace lookahead) is parsed from scratch
//!   on every edit, not incrementally.
//! - `index`    per-file extraction: syntax tree → `FileSummary`. Never fails; problems are data.
//!   `index/extract.rs` runs a file's extraction; `index/captures.rs` (+ `captures/bindings.rs`,
//!   `captures/imports.rs`) reads the query's matches by capture family; `index/build.rs` builds
//!   the summary from them; `index/reextract.rs` re-extracts an editor buffer after an edit.
//!   `index/rust.rs` reads what Rust's token trees and types say (calls and functions inside
//!   macro arguments, collections' element types, the `match` arm a pattern's binding holds
//!   in); `index/go.rs` the type a Go type switch's variable has in each case;
//!   `index/rust_path.rs` the modules declared with `#[path]`, whose files
//!   `graph/modules.rs` places in the declaring crate's module tree.
//! - `graph`    the immutable graph snapshot (its indices are `graph/sharded.rs` maps: an `Arc`
//!   of shards, each an `Arc`'d hash map, a write copying the shards it touches; the files
//!   are kept twice, `graph/files.rs`, in path order for listing and hashed for look-ups; the edge
//!   indices list, for each entity, the files whose edges reach it or leave it, so an edit
//!   writes them only where a file starts or stops reaching an entity, and a file finds its
//!   edges of an entity by an order of its own computed on first use, `Resolved::edges_to`;
//!   an edge names its site by the record of the holding file's summary that made it,
//!   `graph::Site`, so text that only moves leaves edges as they are), scope-based resolution (`graph/resolve.rs`) with
//!   receiver-type inference (`graph/resolve/infer.rs`: declared and assigned bindings,
//!   constructors, return types, field chains; Rust's elements, patterns and generic bounds in
//!   `graph/resolve/rust.rs`), the single writer's transaction
//!   (`graph/build.rs`, `graph/build/transaction.rs`, its steps in `graph/build/transaction/`; each snapshot lists the files its last
//!   transactions changed, `Graph::changed_since`, which the rules checker reads; what each file mentions, the writer's
//!   own index, in `graph/build/mentions.rs`, built by the first change to a graph that has
//!   files, `GraphWriter::prepare_changes`, which servers call after their initial index and
//!   one-shot commands never do; an edit that only moved text keeps its old
//!   resolution, moved to the new sites, `graph/build/moved.rs`, and one that changed only
//!   references, or only renamed functions, resolves only those references (and the renamed
//!   functions' own), `graph/resolve/partial.rs`; the packages an edited
//!   file's imports reach are kept while the writer's imports epoch holds), and the queries every door shares
//!   (callers, callees, implementations, symbols, ...; Go's implicit interfaces by method sets
//!   and the references left aside, ambiguous or unresolved (`graph/query/possible.rs`), are
//!   computed there at query time, never stored as edges). What differs between languages in
//!   resolution is in `graph/semantics.rs`, one implementation per family in
//!   `graph/semantics/<family>.rs`, chosen once per file: the module system (the keys a file
//!   answers to, the keys an import looks up), the import form, build variants, the questions
//!   receiver typing asks, and implementations and dispatch (Rust's trait methods, TypeScript's
//!   overrides, Go's implicit interfaces, Python's calls written inside a function). Invariant:
//!   shared resolution and query code asks the file's `Semantics`; it never compares
//!   `Language` values. `lang/go_build.rs` says which Go files are in the chosen
//!   build, `lang/c_build.rs` which C and C++ platform files (`arch/<arch>/`, `_win32.c`). `graph/aliases.rs` is where bare JavaScript/TypeScript specifiers land (tsconfig
//!   `paths`, workspace packages): a table `world` reads from the manifests
//!   (`world/manifests.rs`) and hands to the writer (`GraphWriter::set_aliases`, which
//!   re-resolves the JavaScript family when it changes).
//! - `analysis` protocol-agnostic analysis over a snapshot: ranked search (BM25, per-file
//!   postings, re-ranked by name match, phrase and graph prior in `analysis/search/rank.rs`),
//!   production first (`analysis/filter.rs`: the file-class filter every search and analysis
//!   tool takes), communities (hand-written Leiden over production code, three levels, tests
//!   attached afterwards in `communities/attach.rs`, named in `communities/describe.rs`),
//!   extractive global search (level chosen from the question) and local search
//!   (`rag/local.rs`: what an entity uses before who uses it),
//!   refactoring metrics and suggestions (`refactor/facts.rs`: import cycles, as strongly
//!   connected components from petgraph's iterative `kosaraju_scc`, and duplicate bodies;
//!   `refactor/dead.rs`: dead code), module-level views (`analysis/modules.rs`: an
//!   entity's dependencies both ways, a file's outline, exported API, dependents and metrics),
//!   each language's visibility rules (`analysis/visibility.rs`: what "exported" means);
//!   architecture rules (`analysis/rules.rs` + `analysis/rules/`: `.codegraph/rules.toml`
//!   parsed with its problems, an incremental checker, baselines and drift, placement of a
//!   shared module, proposed contents checked against now), the one checker behind the LSP
//!   diagnostics, `check_architecture` and `codegraph check`; a per-revision cache computed by
//!   readers on demand (the rules checker lives there too, `analysis::Cache::rules`);
//!   change impact (`analysis/affected.rs`: the changed entities from a file's text at a base
//!   and now, `affected/changes.rs`; the reverse walk to a fixed point, proven before possible,
//!   `affected/walk.rs`, calls that name their class (`super().m()`, `Base.m(self)`) told from
//!   calls on a value in `affected/walk/dispatch.rs`, names used as values found by
//!   `affected/mentions.rs` on what `affected/lexicon.rs` keeps of each file across answers (a
//!   filter of its words, the holders of each name asked; valid while the file is unchanged),
//!   skipping Python prose and header annotations (`affected/prose.rs`,
//!   `affected/annotations.rs`); each language's tests and the runners' selections,
//!   `affected/tests.rs`; a changed method's tests narrowed to those that may hold an instance
//!   of its class, `affected/instances.rs`).
//! - `walk`     bounded recursion: the one gate (`walk::enter`, `walk::enter_keyed`) every
//!   recursive walk over code takes a step through, with a depth limit, a cycle check and a
//!   budget of steps per reference resolved; `walk::STACK_SIZE`, the stack of the threads that
//!   extract, resolve and answer.
//! - `contain`  one bad file never takes the process down: each file's extraction and
//!   resolution runs through `contain::file`, which turns a panic into the file's failure
//!   (`FileSummary::failure`, `Resolved::failure`), reported by every door.
//! - `cancel`   stopping a request's work: a flag the door sets (client cancelled or gone,
//!   deadline passed) and checkpoints in long loops (`analysis`, `graph::query`) that unwind to
//!   the door's `cancel::run`; no-ops outside one (the CLI).
//! - `world`    the single writer: the workspace walk, change application, the on-disk cache,
//!   the file watcher of the headless server (`world/watch.rs`), a revision counter
//!   (`World::changes`) bumped after each stored snapshot, for whoever wants to hear of changes,
//!   the trust stamp every door puts on its answers (`world/stamp.rs`: the revision, and
//!   which files of the answer have unsaved editor edits or changed on disk since indexing),
//!   `World::proposed`, the graph proposed contents would give, never stored, the change set
//!   against a git revision and its impact (`world/changes.rs`: `World::affected`, the one
//!   function behind `codegraph affected`, `find_affected_tests` and `codegraph.affectedTests`), where every
//!   request of both doors runs its work (`world/work.rs`: blocking threads, a deadline,
//!   cancellation through a `cancel::Flag`, a bounded pool for heavy work), and
//!   `world/trim.rs`, which gives freed memory back to the system once the graph has been
//!   quiet for a second, and after an index's parse (glibc's `malloc_trim`; the crate's one
//!   `unsafe` call).
//! - `export`   the graph written for other tools: a SCIP index (`export/scip.rs`: documents,
//!   definitions, the proven references only (no ambiguous reference, no unique-name guess),
//!   symbol information with relationships, references into dependencies as their packages'
//!   symbols; package names from the manifests, `export/scip/packages.rs`).
//! - `cli`      the command-line door (`codegraph index`, `callers`, `deps`, `module`, ...): flags
//!   in, the same `graph::query` and `analysis` functions as the other doors, text or JSON out;
//!   one file per command under `cli/` (`cli/servers.rs`: `status` and `stop`), the shared
//!   flags and the dispatch in `cli.rs`.
//! - `lsp`      the editor door (`codegraph lsp`): thin handlers over `graph::query`, each query
//!   run through `world::work` (`Backend::query`: a blocking thread, the deadline, heavy work in
//!   the pool it shares with the folders' MCP sessions, stopped when tower-lsp-server drops a
//!   request cancelled by `$/cancelRequest`); the only
//!   module that imports LSP types, converted in `lsp/proto.rs`; `lsp/framing.rs` is the
//!   transport (frames each message, answers malformed input, hands decoded messages to
//!   tower-lsp-server's service, four requests at once, a `$/cancelRequest` as soon as it is
//!   read); `lsp/diagnostics.rs` turns the rules'
//!   violations into diagnostics (pulled or published after every change) and quick fixes, and
//!   the rules file's own problems into diagnostics on it. Handlers per feature in
//!   `lsp/navigation.rs`, `lsp/call_hierarchy.rs`, `lsp/semantic_tokens.rs` (semantic tokens
//!   over `lang::highlight`, which runs each grammar's highlight queries with
//!   `tree-sitter-highlight`); text sync in arrival order in `lsp/ordered.rs`; state in
//!   `lsp/state.rs`; `lsp/shared.rs` is `codegraph lsp --shared`: a relay of the editor's
//!   session to the folder's shared server, and that session served there on the server's
//!   world.
//! - `mcp`      the MCP door (tools, resources, prompts; `rmcp` is imported only here; one file
//!   per tool under `mcp/tools/`, registered in one table in `mcp/tools.rs`; which tools a
//!   session lists and their lean definitions in `mcp/toolset.rs`, chosen per session, a
//!   relay's first line carrying its set to the server it attaches to) and its
//!   transports: stdio and the unix socket `codegraph mcp` attaches to (`mcp/attach.rs`: the
//!   discovery entries; `attach/socket.rs` the sessions each socket counts and serves,
//!   `attach/relay.rs` the client's relay, handed to the std-only `codegraph-relay` binary,
//!   `src/bin/relay.rs`, by exec once connected), the shared server
//!   `codegraph mcp` starts when none runs (`mcp/daemon.rs`: the start lock, the detached
//!   `codegraph serve --shared`, a sibling worktree's server asked to serve another,
//!   `codegraph stop`'s signal) and the worktrees it serves (`mcp/shared.rs`), both
//!   through `mcp/lines.rs` (-32700 for a line that is not JSON, -32602 for bad params), HTTP
//!   and legacy SSE (`mcp/http.rs`), the headless server (`mcp/serve.rs`), the shell tool's
//!   guard (`mcp/shell.rs`; `shell/run.rs` runs a command, `shell/supervisor.rs` is the
//!   `codegraph` process that contains one as a child subreaper), resource subscriptions
//!   (`mcp/subscriptions.rs`, woken by `World::changes`), the typed result shaped for what
//!   the client hands its model (`mcp/envelope.rs`: `structuredContent` with a one-line summary
//!   for clients known to read it, with the whole answer as text too for the others, JSON text
//!   alone for pre-2025-06-18 clients), completions of prompt arguments and resource-template
//!   variables (`mcp/completions.rs`), every request's work run through `world::work`, and the
//!   architecture rules' resource and prompt (`mcp/rules.rs`).
//!
//! Process model: one serving process per repository root, every session of the root attached
//! to it over its unix socket (`mcp::attach`): an editor's `codegraph lsp`, a `codegraph serve`,
//! or the shared server (`codegraph serve --shared`) that the first `codegraph mcp` or
//! `codegraph lsp --shared` starts when none runs (`mcp::daemon`). Invariants: at most one
//! shared server is started per root at a time (an exclusive `flock` held from the second look
//! until the new server is published, and a marker of the start that outlives a starter that
//! dies); a server publishes its entry only once its graph is indexed; each connection is a session the server counts in its entry, freed when the
//! connection closes; a shared server exits after its idle time with no session, removing its
//! entry; an editor session's unsaved buffers are closed when it ends. The worktrees of one
//! repository share one shared server: each worktree after the first is a world derived from
//! the first (`World::derive`: the first's graph plus the worktree's difference, as one
//! transaction, sharing summaries and untouched index shards; no cache of its own).
//!
//! Architecture invariants:
//! - The layers are crates: a lower one cannot name a higher one (the `Cargo.toml` edges above).
//! - Never die on code. Every function of `index`, `syntax`, `lang` and `graph` that may
//!   recurse over code-derived data (types through aliases and bounds, return types, fields,
//!   re-exports, module paths, inheritance, dispatch) takes a `walk` step first, and answers
//!   "not known" when the step is refused: a cycle or an absurd depth ends a walk, never the
//!   stack. Checked on this crate's own call graph (`tests/codegraph/walks.rs`: with the
//!   functions that take a step removed, those layers' calls have no cycle). A reference whose
//!   walk ran out of depth or budget is left aside as bounded (`Resolved::bounded`), never
//!   trusted half-walked; a memo keeps only values computed with no step refused
//!   (`walk::cuts`). A panic in one file's extraction or resolution is that file's failure
//!   (`contain`), and every other file is indexed.
//! - `analysis` reads snapshots only; nothing on the edit path waits for it.
//! - A `cancel::checkpoint` never runs inside the writer's transaction: a stopped request must
//!   not leave a half-applied change (the writer runs outside any `cancel::run`, or under a
//!   flag nobody sets).
//! - `index` knows nothing of other files; `graph` knows nothing of files on disk or of protocols.
//! - Only `world` writes. A change (a file's new text, or its deletion) is applied as one
//!   transaction that produces a new immutable `graph::Graph`; readers clone an `Arc` and never see
//!   half a change.
//! - The graph after any sequence of incremental changes equals the graph built from scratch from
//!   the same texts (a property test checks this). The writer's shortcuts keep it: a file's
//!   resolution is a function of its summary without positions, of the rest of the graph and
//!   of which `match`-arm regions hold each reference, so an edit that changed none of these
//!   but positions reuses it, and a reference equal to an old one (and the arms that hold it)
//!   in a file nothing widened in resolves as before. (`Resolved::extra_names` may then keep
//!   a name only a removed reference read: a superset only re-resolves more.)
//! - `lsp` applies text changes in arrival order before any later request takes a snapshot.
//! - An ambiguous reference never becomes an edge; it is kept with its candidates.
//! - A call on a receiver whose type is known to come from outside the workspace never becomes
//!   an edge to a same-named workspace method; a unique-name guess is the last resort.
//! - Resolution reads other files only through the name index, the module map, the bases and
//!   other files' import targets, and records what it read (`Resolved::extra_names`,
//!   `extra_modules`), so incremental re-resolution follows inferred types across files.
//! - What widens an edit (`graph/build/transaction.rs`): a changed export re-resolves the files
//!   that mention its name; a change of which files answer a module key (or of a file's
//!   package, path modules or wildcard imports) every file that mentions the key; a changed
//!   import elsewhere only the files that mention a name its binding changed. The
//!   reachable-packages walk of unique-name guesses reads the import targets of the files it
//!   passes (`Resolved::import_targets`, recorded as `resolve::walk_key`): when a file's
//!   targets change, the walks through it are walked again on the graph before and after (the
//!   walks "after" of the last transaction are kept, by the revision of the graph they were
//!   made on, as the next one's walks "before": `GraphWriter::last_walks`), and
//!   a walker is re-resolved only if a package it gained or lost defines a name it guessed
//!   (`Transaction::walk_again`, `Resolved::guessed`: the walk's packages are read by the
//!   guesses alone, each testing candidates of its own name), and then only the references
//!   that guessed such a name (`Resolved::guessed_by`, per reference, the guesses behind a
//!   memoised receiver value included; `Resolver::resolve_again`), unless a guess was made
//!   outside any reference; a resolution that read another file's walk is always re-resolved
//!   whole (`Resolved::reachable` 0). The writer also keeps, between transactions, every
//!   file's import targets by path (`GraphWriter::last_targets`) and the mentions of the
//!   walkers it resolved by reference (`GraphWriter::walker_mentions`), each valid only for the
//!   graph revision, or the summary and aliases, it was made from.
//! - The rules checker (`analysis/rules/checker.rs`) evaluates a file again when its text or
//!   edges changed, not merely its node (a walker's record of what it read): a file's verdicts
//!   are a function of its text, its summary and its edges (`checker::same_dependencies`).
//! - A warm start (`World::index` over the on-disk cache, `world/cache.rs`) trusts a cached
//!   summary only for a file whose content hash equals the cached one, or, without reading
//!   it, whose stamp (device, inode, length, modification and change times) equals the
//!   settled stamp the cache recorded: one taken before the read whose content the cache
//!   holds, both times at least `stamp::SETTLE` old then (`DiskStamp::settled`), under the
//!   same C/C++ header setting. The cache writes each distinct name once (its meta record's
//!   table) and the file records as indices into it (`model::NameCodec`). `GraphWriter::load` numbers the loaded files in path order,
//!   so their entities' lists of files need no sort, and builds the name and module indices on
//!   threads of their own while the first requests are answered (a reader of one waits for it).

pub use codegraph_analysis as analysis;
pub use codegraph_export as export;
pub use codegraph_graph as graph;
pub use codegraph_index as index;
pub use codegraph_lang as lang;
pub use codegraph_lang::syntax;
pub use codegraph_lsp as lsp;
pub use codegraph_mcp as mcp;
pub use codegraph_model as model;
pub use codegraph_model::{cancel, contain, walk};
pub use codegraph_world as world;

pub mod cli;
