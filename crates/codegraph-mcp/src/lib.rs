//! The MCP door: tools, resources and prompts over one [`World`], for AI assistants.
//!
//! Every tool is a thin adapter over a query in `graph::query` (or a small graph walk kept
//! here when no other door needs it yet); this is the only module that imports `rmcp`.
//! Conversions from core types to the JSON shapes of the API reference live in `convert`.
//!
//! Architecture invariant: no tool writes the graph except `reindex_repository`, which goes
//! through `World::index` like every other writer; handlers work on one snapshot each.

pub mod attach;
pub mod completions;
pub mod convert;
pub mod daemon;
pub mod envelope;
pub mod http;
pub mod lines;
pub mod paths;
pub mod prompts;
pub mod resources;
pub mod rules;
pub mod serve;
pub mod shared;
pub mod shell;
pub mod subscriptions;
pub mod tools;
pub mod toolset;

use std::sync::Arc;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, prompt_handler, tool_handler};

use codegraph_graph::query::{self, Lookup};
use codegraph_graph::{Entity, Graph};
use codegraph_world::{World, work};

/// What the server tells an AI client about itself when it connects: how ids work, which of
/// its listed tools to use when, and what every answer says about itself.
pub fn instructions(tools: &toolset::ToolSet) -> String {
    let when: Vec<&str> = WHICH_TOOL_WHEN
        .iter()
        .filter(|(names, _)| names.iter().any(|name| tools.contains(name)))
        .map(|(_, line)| *line)
        .collect();
    format!(
        "{INSTRUCTIONS_IDS}\n\nWhich tool when:\n{}\n\n{INSTRUCTIONS_ANSWERS}",
        when.join("\n")
    )
}

const INSTRUCTIONS_IDS: &str = "\
codegraph serves a live code graph of one repository (definitions, calls, imports, inheritance), \
built with tree-sitter; it follows the editor's unsaved edits when attached to one.

Ids: `path/to/file.py::Class.method` (a module's id is its file path). Every tool that takes an \
entity accepts an id, a qualified name or a plain name; an ambiguous name fails and lists the \
candidate ids (call again with one), an unknown one lists the closest names.";

/// One line of advice per group of tools, given when the session lists any of them.
const WHICH_TOOL_WHEN: &[(&[&str], &str)] = &[
    (
        &["query_codebase", "get_file_structure"],
        "- find an entity from words or a name: `query_codebase`; a file's outline and ids: \
         `get_file_structure`.",
    ),
    (
        &["find_callers", "find_callees", "find_implementations"],
        "- who calls it / what it calls: `find_callers` / `find_callees`; what implements or \
         overrides it: `find_implementations`.",
    ),
    (
        &["find_dependencies", "find_affected_tests"],
        "- impact of a change over every relation: `find_dependencies`; after editing, the tests \
         to run: `find_affected_tests`.",
    ),
    (
        &["analyze_module_structure"],
        "- how a file fits in (exports and their users, dependents, metrics): \
         `analyze_module_structure`.",
    ),
    (
        &["global_search", "local_search"],
        "- big-picture question (\"how does authentication work?\"): `global_search` \
         (`community_level: 1` for a subsystem); a question around one entity: `local_search`.",
    ),
    (
        &["get_code_snippet", "read_file_content"],
        "- read code: `get_code_snippet` for an entity, `read_file_content` for lines of a file.",
    ),
    (
        &["suggest_refactoring", "reindex_repository"],
        "- metrics and suggestions: `suggest_refactoring`. After large changes on disk: \
         `reindex_repository`.",
    ),
    (
        &["check_architecture"],
        "- before proposing an import across modules: `check_architecture` with `proposed` \
         contents says whether it would break the repository's architecture rules \
         (`codegraph://rules` lists them).",
    ),
];

const INSTRUCTIONS_ANSWERS: &str = "\
Every result carries `provenance`: the graph `revision`, `unsaved_files` (answer follows the \
editor's unsaved text) and `stale_files` (changed on disk since indexing: reindex). Edges carry \
their `resolution` (`unique_name` is a guess). Callers, callees and implementations add \
`possible`: references left aside as ambiguous or unresolved, so an empty list with possible \
ones means 'none proven', not 'none'. Lists are paged: `limit`, `offset`; a result says `total`, \
`truncated` and `next_offset`. Large bodies come back as `codegraph://files/...#Lstart-Lend` \
links unless `full: true`. The resource `codegraph://guide` repeats this guide.";

/// The MCP server: one world, shared by every session. Each transport serves every new session
/// with [`CodegraphMcp::session`], so that resource subscriptions stay per session.
#[derive(Clone)]
pub struct CodegraphMcp {
    world: Arc<World>,
    /// This session's resource subscriptions.
    subscriptions: Arc<subscriptions::Session>,
    /// `execute_shell_command` runs only when this is set (`--allow-shell`).
    shell: Option<Arc<shell::ShellPolicy>>,
    /// Where tools do their work: deadlines, and the bounded pool of heavy work, shared by all
    /// sessions of this server.
    pool: Arc<work::Pool>,
    /// The tools this session lists ([`toolset::ToolSet`]).
    tools: toolset::ToolSet,
    tool_router: ToolRouter<CodegraphMcp>,
    prompt_router: PromptRouter<CodegraphMcp>,
}

impl CodegraphMcp {
    pub fn new(world: Arc<World>) -> CodegraphMcp {
        CodegraphMcp {
            world,
            subscriptions: Arc::default(),
            shell: None,
            pool: Arc::new(work::Pool::new(work::Limits::default())),
            tools: toolset::ToolSet::default(),
            tool_router: tools::router(&toolset::ToolSet::default(), false),
            prompt_router: CodegraphMcp::prompt_router() + CodegraphMcp::rules_prompt_router(),
        }
    }

    /// Enables `execute_shell_command` for these programs.
    pub fn with_shell(mut self, policy: shell::ShellPolicy) -> CodegraphMcp {
        self.shell = Some(Arc::new(policy));
        let tools = self.tools.clone();
        self.with_tools(tools)
    }

    /// Lists these tools (the shell tool besides, when enabled).
    pub fn with_tools(mut self, tools: toolset::ToolSet) -> CodegraphMcp {
        self.tool_router = tools::router(&tools, self.shell.is_some());
        self.tools = tools;
        self
    }

    /// The tools this server lists.
    pub fn tools(&self) -> &toolset::ToolSet {
        &self.tools
    }

    /// Other bounds for the work of requests (how many heavy ones at once, the deadline).
    pub fn with_limits(mut self, limits: work::Limits) -> CodegraphMcp {
        self.pool = Arc::new(work::Pool::new(limits));
        self
    }

    /// Runs requests' work in `pool`, shared with another door (the language server's, whose
    /// folders are attached over MCP): one bound on the process's heavy work.
    pub fn with_pool(mut self, pool: Arc<work::Pool>) -> CodegraphMcp {
        self.pool = pool;
        self
    }

    /// The bounds of this server's work, and its heavy turns now free.
    pub fn pool(&self) -> &work::Pool {
        &self.pool
    }

    /// Runs a tool's work through the pool ([`work::Pool::run`]); a request that was stopped
    /// becomes an `isError` result.
    pub(crate) async fn work<T: Send + 'static>(
        &self,
        weight: work::Weight,
        cancel: &tokio_util::sync::CancellationToken,
        run: impl FnOnce() -> Result<T, CallToolResult> + Send + 'static,
    ) -> Result<T, CallToolResult> {
        self.pool
            .run(weight, cancel, run)
            .await
            .unwrap_or_else(|stopped| Err(tool_error(stopped.to_json())))
    }

    /// A search is cheap once the index of the current revision is built (and, for
    /// `global_search`, the communities); building them is heavy.
    pub(crate) fn weight_of_search(&self, needs: SearchNeeds) -> work::Weight {
        let graph = self.world.snapshot();
        let analysis = self.world.analysis();
        let built = analysis.has_search_index(&graph)
            && match needs {
                SearchNeeds::Index => true,
                SearchNeeds::IndexAndCommunities => analysis.has_communities(&graph),
            };
        if built {
            work::Weight::Cheap
        } else {
            work::Weight::Heavy
        }
    }

    /// The server for a new session: the same world and settings, no subscriptions yet.
    pub fn session(&self) -> CodegraphMcp {
        CodegraphMcp {
            subscriptions: Arc::default(),
            ..self.clone()
        }
    }

    pub fn world(&self) -> &Arc<World> {
        &self.world
    }
}

/// What a search reads besides the graph, built once per revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SearchNeeds {
    /// The search index.
    Index,
    /// The search index and the communities (`global_search`).
    IndexAndCommunities,
}

/// Serves MCP over stdin/stdout until the client goes away.
pub async fn serve_stdio(server: CodegraphMcp) -> anyhow::Result<()> {
    let service = server
        .serve(lines::answer_parse_errors(
            tokio::io::stdin(),
            tokio::io::stdout(),
        ))
        .await?;
    service.waiting().await?;
    Ok(())
}

/// A tool failure the AI should read: an `isError` result whose text is a JSON object.
pub(crate) fn tool_error(value: serde_json::Value) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(
        serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string()),
    )])
}

/// Why an entity could not be found, as data (each door words it its own way).
pub enum Unresolved {
    Ambiguous(Vec<Entity>),
    NotFound(Vec<String>),
    /// Longer than `query::MAX_NAME_BYTES` and not an exact id.
    TooLong(usize),
}

impl Unresolved {
    pub fn to_json(&self, text: &str) -> serde_json::Value {
        match self {
            Unresolved::Ambiguous(candidates) => serde_json::json!({
                "error": "Ambiguous entity name",
                "entity_id": text,
                "message": format!("'{text}' names {} entities; call again with one of these ids", candidates.len()),
                "candidates": candidates.iter().map(convert::EntitySummary::from).collect::<Vec<_>>(),
            }),
            Unresolved::NotFound(closest) => serde_json::json!({
                "error": "Entity not found",
                "entity_id": text,
                "closest": closest,
            }),
            Unresolved::TooLong(length) => serde_json::json!({
                "error": "Entity name too long",
                "entity_id": text.chars().take(64).collect::<String>() + "…",
                "message": format!(
                    "{length} bytes is not an entity id, and names are matched up to {} bytes",
                    query::MAX_NAME_BYTES
                ),
            }),
        }
    }
}

/// An id, a qualified name or a plain name → exactly one entity.
pub(crate) fn resolve(graph: &Graph, text: &str) -> Result<Entity, Unresolved> {
    match query::lookup(graph, text) {
        Lookup::Found(entity) => Ok(entity),
        Lookup::Ambiguous(candidates) => Err(Unresolved::Ambiguous(candidates)),
        Lookup::NotFound { closest } => Err(Unresolved::NotFound(closest)),
        Lookup::TooLong { length } => Err(Unresolved::TooLong(length)),
    }
}

/// [`resolve`] for tools: failure becomes an `isError` result.
pub(crate) fn resolve_for_tool(graph: &Graph, text: &str) -> Result<Entity, CallToolResult> {
    resolve(graph, text).map_err(|unresolved| tool_error(unresolved.to_json(text)))
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for CodegraphMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_prompts()
                .enable_completions()
                .build(),
        )
        .with_server_info(Implementation::new("codegraph", env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions(&self.tools))
    }

    /// The tool router's dispatch, after one normalisation every tool shares (an argument
    /// given under two of its names, [`tools::merge_spellings`]), and with the typed result
    /// shaped for the client ([`envelope::send_once`]).
    async fn call_tool(
        &self,
        mut request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        // Like arguments that do not deserialize, an `isError` result the model can act on.
        if let Some(arguments) = request.arguments.as_mut()
            && let Err(message) = tools::merge_spellings(arguments)
        {
            return Ok(tool_error(serde_json::json!({
                "error": "Conflicting arguments",
                "message": message,
            }))
            .into());
        }
        let tool = request.name.to_string();
        let version = context.protocol_version();
        let client = context.client_info();
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(call).await?;
        Ok(envelope::send_once(
            &tool,
            version.as_ref(),
            client.as_ref(),
            response,
        ))
    }

    /// Entity ids, file paths and community ids for prompt arguments and resource templates.
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let world = self.world.clone();
        // A community id needs the communities, seconds on a large repository the first time:
        // heavy work then; the rest is a lookup.
        let weight = match completions::completes(&request.r#ref, &request.argument.name) {
            completions::Completes::CommunityId
                if !world.analysis().has_communities(&world.snapshot()) =>
            {
                work::Weight::Heavy
            }
            _ => work::Weight::Cheap,
        };
        let completion = self
            .pool
            .run(weight, &context.ct, move || {
                let graph = world.snapshot();
                completions::complete(&graph, &request.r#ref, &request.argument, || {
                    world.analysis().communities(&graph)
                })
            })
            .await
            .map_err(|stopped| {
                let details = stopped.to_json();
                ErrorData::internal_error(
                    details["error"].as_str().unwrap_or_default().to_string(),
                    Some(details),
                )
            })?;
        Ok(CompleteResult::new(completion))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions
            .subscribe(&self.world, &request.uri, context.peer)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let uris = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| subscriptions::subscribable(uri))
            .cloned();
        Some(
            SubscriptionFilter::builder()
                .resource_subscriptions(uris)
                .build(),
        )
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        subscriptions::listen(
            self.world.clone(),
            uris,
            context.sink().clone(),
            context.cancelled(),
        )
        .await;
        Ok(())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let graph = self.world.snapshot();
        let uri = request.uri;
        if uri == rules::RULES_URI {
            return self.read_rules(uri, graph, &context.ct).await;
        }
        if let Some(rest) = uri.strip_prefix(resources::COMMUNITY_PREFIX) {
            let id = resources::community_id(&uri, rest)?;
            return self.read_community(&uri, id, graph, &context.ct).await;
        }
        self.pool
            .run(work::Weight::Cheap, &context.ct, move || {
                resources::read(&graph, &uri)
            })
            .await
            .map_err(stopped_error)?
            .map(Into::into)
    }
}

/// The resources whose reading is work for the pool.
impl CodegraphMcp {
    /// `codegraph://rules`. The first check after a change evaluates what changed (every file,
    /// the first time): off the runtime, with the request's cancellation.
    async fn read_rules(
        &self,
        uri: String,
        graph: Arc<Graph>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let world = self.world.clone();
        let value = self
            .pool
            .run(work::Weight::Cheap, cancel, move || {
                rules::read(&world, &graph)
            })
            .await
            .map_err(stopped_error)?;
        Ok(resources::json_contents(&uri, value).into())
    }

    /// `codegraph://communities/<id>`. Communities take seconds on a large repository the
    /// first time: heavy work.
    async fn read_community(
        &self,
        uri: &str,
        id: u32,
        graph: Arc<Graph>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let world = self.world.clone();
        let weight = if world.analysis().has_communities(&graph) {
            work::Weight::Cheap
        } else {
            work::Weight::Heavy
        };
        let found = self
            .pool
            .run(weight, cancel, move || {
                let communities = world.analysis().communities(&graph);
                resources::community(&graph, &communities, id)
            })
            .await
            .map_err(stopped_error)?;
        match found {
            Some(value) => Ok(resources::json_contents(uri, value).into()),
            None => Err(ErrorData::resource_not_found(
                format!("Community not found: {id}"),
                Some(serde_json::json!({"uri": uri})),
            )),
        }
    }
}

/// A resource read that was stopped (cancelled, or refused for load) as a protocol error.
fn stopped_error(stopped: work::Stopped) -> ErrorData {
    let value = stopped.to_json();
    ErrorData::internal_error(
        value["error"].as_str().unwrap_or_default().to_string(),
        Some(value),
    )
}
