//! The architecture rules for AI clients, besides the tool `check_architecture`: the resource
//! `codegraph://rules` (the parsed rules with their status, now against the baseline; its
//! subscribers hear when the violations change) and the prompt `place_shared_module` (where a
//! new module shared by some files should live: their lowest common ancestor, moved down the
//! layers when a rule says so).

use rmcp::ErrorData;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{PromptMessage, Role};
use rmcp::{prompt, prompt_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::CodegraphMcp;
use codegraph_analysis::modules;
use codegraph_analysis::rules::placement::Placement;
use codegraph_analysis::rules::{Rule, Status, display_path, placement, report};
use codegraph_graph::{FilePath, Graph};
use codegraph_world::World;

pub const RULES_URI: &str = "codegraph://rules";

/// How many violations the resource lists (the counts cover them all).
const RESOURCE_VIOLATIONS: usize = 200;

/// The resource's JSON: the rules with their status, or why there are none.
pub fn read(world: &World, graph: &Graph) -> serde_json::Value {
    let root = world.root();
    world
        .analysis()
        .rules()
        .with(root, graph, |status| match status {
            Status::NoRules { path } => json!({
                "rules_file": display_path(root, &path),
                "status": "no rules file",
                "message": "no architecture rules: write them in this file (TOML: [[layers]], [[forbid]], [[independent]], [cycles]; see the README, \"Architecture rules\")",
                "rules": [],
            }),
            Status::Ready { path, checker } => {
                let report = report::report(checker, root, &path, RESOURCE_VIOLATIONS);
                let mut value = serde_json::to_value(report).unwrap_or_default();
                value["status"] = json!(if checker.problems().is_empty() {
                    "ok"
                } else {
                    "the rules file has problems"
                });
                value
            }
        })
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PlaceSharedModuleArgs {
    /// The files (or entities) that will use the new module, comma-separated:
    /// `src/billing/invoice.py, src/auth/session.py`.
    pub users: String,
    /// The new module's name, without extension (default `common`).
    pub module_name: Option<String>,
    /// What the module is for.
    pub purpose: Option<String>,
}

/// A user named by the client: a file, or an entity whose file is meant.
fn user_file(graph: &Graph, text: &str) -> Result<FilePath, ErrorData> {
    if let Ok(file) = modules::find_file(graph, text) {
        return Ok(file);
    }
    super::resolve(graph, text)
        .map(|entity| entity.file_path)
        .map_err(|unresolved| {
            ErrorData::invalid_params(
                format!("'{text}' is neither a file nor an entity of the repository"),
                Some(unresolved.to_json(text)),
            )
        })
}

#[prompt_router(router = "rules_prompt_router", vis = "pub(crate)")]
impl CodegraphMcp {
    #[prompt(
        description = "Where should a new module shared by some files live? The lowest common ancestor of its users (as suggest_refactoring computes for moves), moved down the layers of the architecture rules until every user may depend on it"
    )]
    async fn place_shared_module(
        &self,
        Parameters(args): Parameters<PlaceSharedModuleArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let world = self.world.clone();
        tokio::task::spawn_blocking(move || place(&world, args))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
    }
}

fn place(world: &World, args: PlaceSharedModuleArgs) -> Result<Vec<PromptMessage>, ErrorData> {
    let graph = world.snapshot();
    let users = named_users(&graph, &args.users)?;
    let module_name = args
        .module_name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or("common")
        .to_string();
    let root = world.root();
    let (placement, rules) = world
        .analysis()
        .rules()
        .with(root, &graph, |status| match status {
            Status::NoRules { path } => (
                placement::place(None, &users, &module_name),
                format!("(no rules file: {})", display_path(root, &path)),
            ),
            Status::Ready { checker, .. } => {
                let rules: Vec<String> = checker.rules().rules.iter().map(rule_line).collect();
                (
                    placement::place(Some(checker), &users, &module_name),
                    rules.join("\n"),
                )
            }
        });
    let text = prompt_text(&args, &module_name, &users, &placement, &rules);
    Ok(vec![PromptMessage::new_text(Role::User, text)])
}

/// The distinct users named in `text`, comma-separated: at least one.
fn named_users(graph: &Graph, text: &str) -> Result<Vec<FilePath>, ErrorData> {
    let mut users: Vec<FilePath> = Vec::new();
    for text in text
        .split(',')
        .map(str::trim)
        .filter(|text| !text.is_empty())
    {
        let file = user_file(graph, text)?;
        if !users.contains(&file) {
            users.push(file);
        }
    }
    if users.is_empty() {
        return Err(ErrorData::invalid_params(
            "name at least one file that will use the module (`users`)",
            None,
        ));
    }
    Ok(users)
}

/// A rule as the prompt lists it: `` - `name` (kind, severity): reason ``.
fn rule_line(rule: &Rule) -> String {
    let reason = rule
        .reason
        .as_deref()
        .map(|reason| format!(": {reason}"))
        .unwrap_or_default();
    format!(
        "- `{}` ({}, {}){reason}",
        rule.name,
        rule.kind_name(),
        rule.severity.as_str()
    )
}

/// `items` as a Markdown list, or `(none)`.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items
            .iter()
            .map(|item| format!("- {item}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The prompt: the users, the placement the graph and the rules suggest, and the task.
fn prompt_text(
    args: &PlaceSharedModuleArgs,
    module_name: &str,
    users: &[FilePath],
    placement: &Placement,
    rules: &str,
) -> String {
    let users_list: Vec<String> = users.iter().map(|user| format!("`{user}`")).collect();
    let lowest = if placement.lowest_common_directory.is_empty() {
        "(the repository root)".to_string()
    } else {
        format!("`{}/`", placement.lowest_common_directory)
    };
    format!(
        "# Where should a new shared module live?\n\n\
         A new module `{module_name}`{purpose} will be used by:\n{users}\n\n\
         ## What the graph and the rules say\n\
         - Lowest common ancestor of the users: {lowest}\n\
         - Suggested path: `{suggested}`\n\n\
         Notes:\n{notes}\n\n\
         Rules a user would still break by importing it there:\n{conflicts}\n\n\
         ## The architecture rules\n{rules}\n\n\
         ## Task\n\
         Decide where the module goes. Prefer the suggested path unless the code says otherwise \
         (an existing shared package nearby, a naming convention). Before writing anything, call \
         `check_architecture` with `proposed` set to the new module and the users' edited \
         imports: it answers whether the change would break a rule, without writing to disk.",
        purpose = args
            .purpose
            .as_deref()
            .map(|purpose| format!(" ({purpose})"))
            .unwrap_or_default(),
        users = list(&users_list),
        suggested = placement.suggested_path,
        notes = list(&placement.notes),
        conflicts = list(&placement.conflicts),
    )
}
