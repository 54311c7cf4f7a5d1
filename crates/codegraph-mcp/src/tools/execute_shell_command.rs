//! Running an allowed program in the repository: `execute_shell_command` (the guard is
//! `mcp/shell.rs`).

use std::path::PathBuf;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use rmcp::model::CallToolResult;

use super::{Provenance, provenance};
use crate::paths::{self};
use crate::shell::ShellPolicy;
use crate::{CodegraphMcp, tool_error};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellParams {
    /// A program and its arguments, split as a shell would (quotes respected), run without one.
    pub command: String,
    /// Seconds. Default 30, at most 600.
    pub timeout: Option<u32>,
    /// A directory inside the repository. Default: its root.
    #[serde(alias = "cwd")]
    pub working_directory: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ShellResult {
    /// The exit code; -1 when the command was killed (`timed_out` says whether by the timeout).
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The argv that ran.
    pub argv: Vec<String>,
    pub timed_out: bool,
    /// stdout or stderr was cut at 64 KiB.
    pub truncated: bool,
    /// The graph revision when the command ended; `unsaved_files`: files open in an editor
    /// with edits not on disk, which the command did not see.
    pub provenance: Provenance,
}

#[tool_router(router = execute_shell_command_router, vis = "pub(super)")]
impl CodegraphMcp {
    #[tool(
        description = "Run an allowed program in the repository (e.g. `git status`, `cargo test -p foo`): its exit code, stdout and stderr. Only the programs the server was started with (`--allow-shell`) run, without a shell (no pipes, redirections or `;`); inline interpreter code (`python -c`, `sh -c`) is refused; killed after `timeout` seconds.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn execute_shell_command(
        &self,
        Parameters(params): Parameters<ShellParams>,
        extensions: rmcp::model::Extensions,
        cancel: CancellationToken,
    ) -> Result<Json<ShellResult>, CallToolResult> {
        let admitted = self.admit(&params, &extensions)?;
        let timeout = params
            .timeout
            .map(|seconds| std::time::Duration::from_secs(seconds.max(1) as u64))
            .unwrap_or(crate::shell::DEFAULT_TIMEOUT)
            .min(crate::shell::MAX_TIMEOUT);
        let outcome = crate::shell::run(
            admitted.policy,
            admitted.argv,
            &admitted.directory,
            timeout,
            &cancel,
        )
        .await
        .map_err(|message| refusal(&params.command, "Command failed to start", message))?;
        let graph = self.world.snapshot();
        let unsaved = self.world.unsaved_files();
        let provenance = provenance(&self.world, &graph, unsaved.iter().map(|path| &**path));
        Ok(Json(ShellResult {
            exit_code: outcome.exit_code.unwrap_or(-1),
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            argv: outcome.argv,
            timed_out: outcome.timed_out,
            truncated: outcome.truncated,
            provenance,
        }))
    }
}

/// A command the policy admitted: what runs, and where.
struct Admitted<'a> {
    policy: &'a ShellPolicy,
    argv: Vec<String>,
    /// Inside the workspace.
    directory: PathBuf,
}

impl CodegraphMcp {
    /// The command of `params` if it may run: shell commands enabled, the client's token
    /// scoped for them over HTTP, the directory inside the workspace, the command line
    /// allowed by the policy.
    fn admit(
        &self,
        params: &ShellParams,
        extensions: &rmcp::model::Extensions,
    ) -> Result<Admitted<'_>, CallToolResult> {
        let refuse = |error: &str, message: String| refusal(&params.command, error, message);
        let Some(policy) = &self.shell else {
            return Err(refuse(
                "Shell commands are disabled",
                "This server does not run shell commands. An operator can enable them by starting it with --allow-shell PROG,PROG (for example `codegraph serve --allow-shell git,cargo`). Use the graph tools and read_file_content instead.".to_string(),
            ));
        };
        if crate::http::Scope::of_request(extensions)
            .is_some_and(|scope| scope != crate::http::Scope::Shell)
        {
            return Err(refuse(
                "Forbidden",
                "This HTTP client's token does not carry the shell scope.".to_string(),
            ));
        }
        let directory = paths::resolve_directory_in_workspace(
            self.world.root(),
            params.working_directory.as_deref().unwrap_or("."),
        )
        .map_err(|error| refuse("Access denied", error.to_string()))?;
        let argv = crate::shell::check(
            policy,
            &params.command,
            self.world.root(),
            &directory.absolute,
        )
        .map_err(|refusal| {
            tool_error(serde_json::json!({
                "error": "Command refused",
                "rule": refusal.rule,
                "command": params.command,
                "message": refusal.message,
            }))
        })?;
        Ok(Admitted {
            policy,
            argv,
            directory: directory.absolute,
        })
    }
}

/// The `isError` result of a command that did not run.
fn refusal(command: &str, error: &str, message: String) -> CallToolResult {
    tool_error(serde_json::json!({
        "error": error,
        "command": command,
        "message": message,
    }))
}
