//! Running a command the policy admitted, and stopping everything it started.
//!
//! With a supervisor (Linux, the `codegraph` binary itself; see `supervisor.rs`), the server
//! starts `codegraph <supervisor::ARGUMENT> -- argv...` in a new process group, with a pipe as
//! its stdin: the lifeline. The supervisor is a child subreaper, so every process the command
//! starts stays its descendant even after a `setsid` and a double fork; when the command exits,
//! or when the lifeline closes (the timeout, a cancelled request, the server gone), it kills
//! and reaps every one of them before it exits itself. Without a supervisor the command runs
//! directly in its own process group, killed whole at the end, and a process that leaves the
//! group survives.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use super::{MAX_OUTPUT_BYTES, PASSED_ENVIRONMENT, SET_ENVIRONMENT, ShellPolicy};

/// How long a supervisor gets to kill what the command left and exit, after its lifeline
/// closed, before its process group is killed instead.
const SUPERVISOR_GRACE: Duration = Duration::from_secs(5);

/// What a finished (or killed) command gave.
#[derive(Debug)]
pub struct Outcome {
    pub argv: Vec<String>,
    /// `None` when killed by a signal (the timeout and cancellation included).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub truncated: bool,
    pub timed_out: bool,
    /// The request was cancelled (or its client went away) before the command ended.
    pub cancelled: bool,
}

/// Reads a pipe to the end, keeping the first [`MAX_OUTPUT_BYTES`].
async fn read_capped(mut pipe: impl tokio::io::AsyncRead + Unpin) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut truncated = false;
    let mut buffer = [0u8; 8192];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => {
                let room = MAX_OUTPUT_BYTES.saturating_sub(kept.len());
                if read > room {
                    truncated = true;
                }
                kept.extend_from_slice(&buffer[..read.min(room)]);
            }
        }
    }
    (kept, truncated)
}

/// Why the wait for the command ended.
enum Ended {
    Exited(Option<std::process::ExitStatus>),
    TimedOut,
    Cancelled,
}

/// Runs `argv` in `directory` (already checked to be inside the workspace) until it exits,
/// `timeout` passes or `cancel` fires; nothing the command started outlives this (with a
/// supervisor), not even when this future is dropped half way.
pub async fn run(
    policy: &ShellPolicy,
    argv: Vec<String>,
    directory: &Path,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Outcome, String> {
    let mut child =
        command(policy, &argv, directory)
            .spawn()
            .map_err(|error| match &policy.supervisor {
                Some(supervisor) => format!(
                    "could not start the command's supervisor {}: {error}",
                    supervisor.display()
                ),
                None => format!("could not start '{}': {error}", argv[0]),
            })?;
    let lifeline = child.stdin.take();
    let group = child.id().map(|pid| Pid::from_raw(pid as i32));
    let stdout = tokio::spawn(read_capped(child.stdout.take().expect("piped")));
    let stderr = tokio::spawn(read_capped(child.stderr.take().expect("piped")));
    let ended = tokio::select! {
        status = child.wait() => Ended::Exited(status.ok()),
        () = tokio::time::sleep(timeout) => Ended::TimedOut,
        () = cancel.cancelled() => Ended::Cancelled,
    };
    let timed_out = matches!(ended, Ended::TimedOut);
    let cancelled = matches!(ended, Ended::Cancelled);
    let status = stop(policy, &mut child, lifeline, group, ended).await;
    let (stdout, stdout_truncated) = stdout.await.unwrap_or_default();
    let (stderr, stderr_truncated) = stderr.await.unwrap_or_default();
    Ok(Outcome {
        argv,
        exit_code: status.and_then(|status| status.code()),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        truncated: stdout_truncated || stderr_truncated,
        timed_out,
        cancelled,
    })
}

/// The command that runs `argv` in `directory`: under the supervisor when there is one, in a
/// process group of its own, with only the passed and set environment, its output piped.
fn command(policy: &ShellPolicy, argv: &[String], directory: &Path) -> tokio::process::Command {
    let mut command = match &policy.supervisor {
        Some(supervisor) => {
            let mut command = tokio::process::Command::new(supervisor);
            command
                .arg(super::SUPERVISOR_ARGUMENT)
                .arg("--")
                .args(argv)
                .stdin(Stdio::piped())
                // Dropping the child closes the lifeline instead: the supervisor then kills
                // what the command started, which killing the supervisor would not.
                .kill_on_drop(false);
            command
        }
        None => {
            let mut command = tokio::process::Command::new(&argv[0]);
            command
                .args(&argv[1..])
                .stdin(Stdio::null())
                .kill_on_drop(true);
            command
        }
    };
    command.env_clear();
    for name in PASSED_ENVIRONMENT {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command
        .envs(SET_ENVIRONMENT.iter().copied())
        .current_dir(directory)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    command
}

/// Stops everything the command started, however the wait `ended`; its exit status when it
/// exited by itself.
async fn stop(
    policy: &ShellPolicy,
    child: &mut tokio::process::Child,
    lifeline: Option<tokio::process::ChildStdin>,
    group: Option<Pid>,
    ended: Ended,
) -> Option<std::process::ExitStatus> {
    match ended {
        Ended::Exited(status) => {
            // A supervisor has already killed what the command left; without one, children
            // left in the group would otherwise hold the output pipes open.
            if policy.supervisor.is_none()
                && let Some(group) = group
            {
                let _ = killpg(group, Signal::SIGKILL);
            }
            status
        }
        Ended::TimedOut | Ended::Cancelled => {
            drop(lifeline);
            let stopped = policy.supervisor.is_some()
                && tokio::time::timeout(SUPERVISOR_GRACE, child.wait())
                    .await
                    .is_ok();
            if !stopped {
                if let Some(group) = group {
                    let _ = killpg(group, Signal::SIGKILL);
                }
                let _ = child.wait().await;
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[tokio::test]
    async fn a_missing_supervisor_is_named_in_the_error_not_the_command() {
        let policy = ShellPolicy {
            programs: vec!["true".to_string()],
            supervisor: Some(PathBuf::from("/nonexistent/codegraph-supervisor")),
        };
        let directory = std::env::temp_dir();
        let error = run(
            &policy,
            vec!["true".to_string()],
            &directory,
            Duration::from_secs(5),
            &CancellationToken::new(),
        )
        .await
        .expect_err("a supervisor that does not exist cannot start");
        assert!(
            error.starts_with(
                "could not start the command's supervisor /nonexistent/codegraph-supervisor: "
            ),
            "{error}"
        );
    }
}
