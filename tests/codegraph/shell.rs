//! `execute_shell_command` with an allow-list: each refusal, an allowed run, the working
//! directory guard, the timeout that kills the whole process group, the supervisor that kills
//! what left the group (`setsid`) when the command ends, times out or is cancelled, and the
//! output cap.

use std::time::{Duration, Instant};

use codegraph::mcp::shell::ShellPolicy;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::attach::{Client, mcp_child};
use crate::cache::copy_tree;
use crate::lsp::LspClient;
use crate::support;
use crate::support::mcp::McpSetup;

/// The real binary, as the server's command line uses it.
fn supervisor() -> Option<std::path::PathBuf> {
    Some(env!("CARGO_BIN_EXE_codegraph").into())
}

async fn start(programs: &[&str]) -> (Client, tempfile::TempDir, std::path::PathBuf) {
    start_with(programs, supervisor()).await
}

async fn start_with(
    programs: &[&str],
    supervisor: Option<std::path::PathBuf>,
) -> (Client, tempfile::TempDir, std::path::PathBuf) {
    let programs: Vec<String> = programs.iter().map(|program| program.to_string()).collect();
    let session = McpSetup::copy_of("python")
        .server(move |server| {
            server.with_shell(ShellPolicy {
                programs,
                supervisor,
            })
        })
        .start()
        .await;
    (session.client, session.dir, session.repo)
}

/// A refused command's error object.
async fn refused(client: &Client, arguments: Value) -> Value {
    client.error("execute_shell_command", arguments).await
}

/// An allowed command's structured answer.
async fn ran(client: &Client, arguments: Value) -> Value {
    client.ok("execute_shell_command", arguments).await
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_even_for_allow_listed_interpreters() {
    let allowed = [
        "echo", "sh", "bash", "python3", "python", "node", "perl", "ruby",
    ];
    let (client, _directory, _repo) = start(&allowed).await;
    let not_allowed = refused(&client, json!({"command": "ls -la"})).await;
    assert_eq!(not_allowed["error"], "Command refused");
    assert!(
        not_allowed["message"]
            .as_str()
            .unwrap()
            .contains("'ls' is not an allowed program")
    );
    // A shell line is not a shell: `;` is just an argument, and `/bin/echo` is not `echo`.
    let by_path = refused(&client, json!({"command": "/bin/echo hi"})).await;
    assert_eq!(by_path["error"], "Command refused");
    for command in [
        "python -c 'print(1)'",
        "python3 -Ic 'import os'",
        "node -e 'process.exit(1)'",
        "node --eval=1",
        "sh -c 'echo hi'",
        "bash -c 'echo hi'",
        "bash -ec 'echo hi'",
        "perl -e 'print 1'",
        "ruby -e 'puts 1'",
    ] {
        let error = refused(&client, json!({ "command": command })).await;
        assert_eq!(error["error"], "Command refused", "{command}");
        assert!(
            error["message"].as_str().unwrap().contains("inline code"),
            "{command}: {error}"
        );
    }
    for directory in ["..", "../..", "/etc", "shop/../.."] {
        let error = refused(
            &client,
            json!({"command": "echo hi", "working_directory": directory}),
        )
        .await;
        assert_eq!(error["error"], "Access denied", "{directory}");
    }
    let unterminated = refused(&client, json!({"command": "echo 'open"})).await;
    assert_eq!(unterminated["message"], "unterminated single quote");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_run_in_a_workspace_directory() {
    let (client, _directory, repo) = start(&["echo", "pwd"]).await;
    let echoed = ran(&client, json!({"command": "echo hello 'a  b' ; x"})).await;
    assert_eq!(echoed["exit_code"], 0);
    assert_eq!(echoed["stdout"], "hello a  b ; x\n");
    assert_eq!(echoed["argv"], json!(["echo", "hello", "a  b", ";", "x"]));
    assert_eq!(echoed["timed_out"], false);
    let inside = ran(&client, json!({"command": "pwd", "cwd": "shop/util"})).await;
    assert_eq!(
        inside["stdout"],
        format!("{}\n", repo.join("shop/util").display())
    );
}

/// Gone, or a zombie waiting for its new parent to reap it, within twenty seconds.
fn assert_dies(pid: u32, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        let dead = state.as_deref().is_none_or(|stat| {
            stat.rsplit(')')
                .next()
                .unwrap()
                .trim_start()
                .starts_with('Z')
        });
        if dead {
            return;
        }
        assert!(Instant::now() < deadline, "{what} ({pid}) survived");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pid a script wrote to `file`, waiting for it to be written.
fn pid_in(file: &std::path::Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never written",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_timeout_kills_the_whole_process_group_and_output_is_capped() {
    // With the supervisor (Linux) and without it (the process group alone).
    for supervisor in [supervisor(), None] {
        let (client, _directory, repo) = start_with(&["sh", "seq"], supervisor.clone()).await;
        // A script (not inline code) that leaves a background child holding the output pipe.
        std::fs::write(
            repo.join("linger.sh"),
            "sleep 60 &\necho $! > background.pid\nsleep 60\n",
        )
        .unwrap();
        let started = Instant::now();
        let killed = ran(&client, json!({"command": "sh linger.sh", "timeout": 1})).await;
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(killed["timed_out"], true, "{supervisor:?}");
        assert_eq!(killed["exit_code"], -1, "{supervisor:?}");
        assert_dies(pid_in(&repo.join("background.pid")), "the background child");
        let long = ran(&client, json!({"command": "seq 1 200000"})).await;
        assert_eq!(long["exit_code"], 0);
        assert_eq!(long["truncated"], true);
        let stdout = long["stdout"].as_str().unwrap();
        assert_eq!(stdout.len(), codegraph::mcp::shell::MAX_OUTPUT_BYTES);
        assert!(stdout.starts_with("1\n2\n3\n"));
    }
}

/// A process that leaves the command's process group and session (`setsid`), even through a
/// double fork that hands it to init, is killed when the command times out, and also when the
/// command exits on its own; the answer does not wait for it.
#[tokio::test(flavor = "multi_thread")]
async fn a_setsid_escape_dies_with_the_command() {
    let (client, _directory, repo) = start(&["sh", "echo"]).await;
    // `setsid -f` forks, so the escaped process's parent exits at once: it is an orphan in its
    // own session, holding (or not) the command's stdout.
    std::fs::write(
        repo.join("escape.sh"),
        "setsid -f sh escaped.sh \"$1\"\nsleep \"$2\"\n",
    )
    .unwrap();
    std::fs::write(repo.join("escaped.sh"), "echo $$ > \"$1\"\nexec sleep 60\n").unwrap();

    let started = Instant::now();
    let timed_out = ran(
        &client,
        json!({"command": "sh escape.sh on-timeout.pid 60", "timeout": 1}),
    )
    .await;
    assert_eq!(timed_out["timed_out"], true);
    assert!(started.elapsed() < Duration::from_secs(20));
    let escaped = pid_in(&repo.join("on-timeout.pid"));
    assert_dies(escaped, "the process that called setsid, after the timeout");

    // The command exits at once; the escaped process would hold stdout open for 60 s.
    let started = Instant::now();
    let exited = ran(&client, json!({"command": "sh escape.sh on-exit.pid 0.2"})).await;
    assert_eq!(exited["exit_code"], 0, "{exited}");
    assert_eq!(exited["timed_out"], false);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_dies(
        pid_in(&repo.join("on-exit.pid")),
        "the process that called setsid, after the command exited",
    );

    // A program that is not there: the supervisor says so, as a shell would.
    let (missing, _directory, _repo) = start(&["no-such-program-here"]).await;
    let result = ran(&missing, json!({"command": "no-such-program-here"})).await;
    assert_eq!(result["exit_code"], 127);
    assert!(
        result["stderr"]
            .as_str()
            .unwrap()
            .contains("could not start 'no-such-program-here'"),
        "{result}"
    );
}

/// A command stops when its request does: at `notifications/cancelled`, and when the client goes
/// away (rmcp then cancels what is in flight, after giving answers 5 s to be written), long
/// before its 600 s timeout.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_request_or_a_client_gone_stops_its_command() {
    use rmcp::model::{CallToolRequest, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    let (client, _directory, repo) = start(&["sh"]).await;
    std::fs::write(repo.join("wait.sh"), "echo $$ > \"$1\"\nexec sleep 600\n").unwrap();
    let send = |pid_file: &str| {
        ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("execute_shell_command").with_arguments(
                json!({"command": format!("sh wait.sh {pid_file}"), "timeout": 600})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        ))
    };
    let handle = client
        .peer()
        .send_cancellable_request(send("cancelled.pid"), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let pid = pid_in(&repo.join("cancelled.pid"));
    handle.cancel(None).await.unwrap();
    assert_dies(pid, "the command of a cancelled request");

    let _in_flight = client
        .peer()
        .send_cancellable_request(send("gone.pid"), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let pid = pid_in(&repo.join("gone.pid"));
    client.cancel().await.unwrap();
    assert_dies(pid, "the command of a client that went away");
}

/// `codegraph lsp --allow-shell` passes the allow-list to the MCP sessions `codegraph mcp`
/// attaches over the unix socket; without the flag the tool stays disabled there.
#[test]
fn an_attached_language_server_runs_allowed_programs_only_when_told() {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    copy_tree(&support::fixture("python"), &repo);
    let repo = repo.canonicalize().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();

    let (mut lsp, _) = LspClient::start_with(&[&repo], false, &["--allow-shell", "echo,pwd"]);
    runtime.block_on(async {
        let client = mcp_child(&repo, lsp.runtime_dir(), &[]).await;
        let echoed = ran(&client, json!({"command": "echo attached"})).await;
        assert_eq!(echoed["stdout"], "attached\n");
        let inside = ran(&client, json!({"command": "pwd", "cwd": "shop"})).await;
        assert_eq!(
            inside["stdout"],
            format!("{}\n", repo.join("shop").display())
        );
        let not_listed = refused(&client, json!({"command": "ls"})).await;
        assert_eq!(not_listed["error"], "Command refused");
        client.cancel().await.unwrap();
    });
    assert!(lsp.shutdown().success());

    let (mut lsp, _) = LspClient::start(&[&repo], false);
    runtime.block_on(async {
        let client = mcp_child(&repo, lsp.runtime_dir(), &[]).await;
        // Not enabled: not listed, and a call of it is refused.
        let disabled = client
            .try_call("execute_shell_command", json!({"command": "echo attached"}))
            .await;
        assert!(disabled.is_err(), "{disabled:?}");
        client.cancel().await.unwrap();
    });
    assert!(lsp.shutdown().success());
}

/// Refused with the rule it broke, as the `rule` field and in the message.
async fn refused_by(client: &Client, command: &str, rule: &str) {
    let error = refused(client, json!({ "command": command })).await;
    assert_eq!(error["error"], "Command refused", "{command}");
    assert_eq!(error["rule"], rule, "{command}: {error}");
}

/// With `git` allowed, the arguments are the attack surface: configuration on the command line
/// (an alias running `!cmd`, `core.fsmonitor`, `core.sshCommand`), another exec path, remote
/// commands, the ext:: transport, and paths outside the workspace are each refused by a named
/// rule; ordinary local use still runs.
#[tokio::test(flavor = "multi_thread")]
async fn git_is_allowed_by_subcommand_and_argument_not_by_name() {
    let (client, directory, repo) = start(&["git"]).await;
    let git = |arguments: &[&str]| {
        let status = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(arguments)
            .current_dir(&repo)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "git {arguments:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "fixture"]);
    let outside = directory.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), repo.join("link.txt")).unwrap();
    let pwned = directory.path().join("pwned");
    let touch = format!("touch {}", pwned.display());

    for (command, rule) in [
        (format!("git -c alias.x='!{touch}' x"), "git-config"),
        (
            format!("git -c core.fsmonitor='{touch}' status"),
            "git-config",
        ),
        (
            format!("git -c core.sshCommand='{touch}' status"),
            "git-config",
        ),
        (format!("git -c diff.external='{touch}' diff"), "git-config"),
        (
            // Refused twice over; the URL is the rule that speaks first.
            format!("git -c protocol.ext.allow=always clone 'ext::sh -c {touch}' copy"),
            "git-transport",
        ),
        (
            "git --config-env=core.pager=HOME log".to_string(),
            "git-config",
        ),
        ("git --exec-path=. status".to_string(), "git-exec-path"),
        (
            format!("git clone --upload-pack='{touch}' . copy"),
            "git-remote-command",
        ),
        (
            format!("git push --receive-pack='{touch}' . HEAD"),
            "git-remote-command",
        ),
        (
            format!("git clone 'ext::sh -c {touch}' copy"),
            "git-transport",
        ),
        ("git log fd::3".to_string(), "git-transport"),
        ("git config core.fsmonitor x".to_string(), "git-subcommand"),
        ("git fetch origin".to_string(), "git-subcommand"),
        (format!("git grep -O'{touch}' def"), "git-runs-command"),
        (format!("git rebase -x '{touch}' HEAD"), "git-runs-command"),
        (
            "git diff --no-index /dev/null /etc/passwd".to_string(),
            "path-outside-workspace",
        ),
        (
            "git diff --no-index shop/app/main.py link.txt".to_string(),
            "path-outside-workspace",
        ),
        ("git -C .. status".to_string(), "path-outside-workspace"),
        ("git -C /etc status".to_string(), "path-outside-workspace"),
        (
            "git --git-dir=/tmp/.git log".to_string(),
            "path-outside-workspace",
        ),
        (
            "git log --output=../out.txt".to_string(),
            "path-outside-workspace",
        ),
    ] {
        refused_by(&client, &command, rule).await;
    }
    assert!(!pwned.exists());

    let status = ran(&client, json!({"command": "git status --short"})).await;
    assert_eq!(status["exit_code"], 0, "{status}");
    assert_eq!(status["stdout"], "?? link.txt\n");
    let log = ran(&client, json!({"command": "git -C shop log --format=%s"})).await;
    assert_eq!(log["stdout"], "fixture\n");
    let diff = ran(
        &client,
        json!({"command": "git diff --no-index --stat shop/app/main.py shop/util/math.py"}),
    )
    .await;
    assert_eq!(diff["exit_code"], 1, "{diff}");
    assert!(
        diff["stdout"]
            .as_str()
            .unwrap()
            .starts_with(" shop/{app/main.py => util/math.py} |"),
        "{diff}"
    );
}

/// Interpreters refuse modules and stdin as well as inline code (`python3 -m timeit` ran code
/// although `-c` was refused), and no program reads a path outside the workspace by argument.
#[tokio::test(flavor = "multi_thread")]
async fn interpreter_modules_stdin_and_outside_paths_are_refused_by_rule() {
    let (client, directory, repo) = start(&["python3", "node", "perl", "bash", "ls", "cat"]).await;
    std::os::unix::fs::symlink(directory.path(), repo.join("up")).unwrap();
    for (command, rule) in [
        (
            "python3 -m timeit -n1 -r1 'open(\"/etc/passwd\")'",
            "interpreter-module",
        ),
        ("python3 -Im http.server", "interpreter-module"),
        ("node -r ./x.js app.js", "interpreter-module"),
        (
            "node --import=data:text/javascript,1 app.js",
            "interpreter-module",
        ),
        ("perl -MPOSIX app.pl", "interpreter-module"),
        ("python3 -", "interpreter-stdin"),
        ("bash /dev/stdin", "interpreter-stdin"),
        ("python3 -c 'print(1)'", "interpreter-inline-code"),
        ("ls /root", "path-outside-workspace"),
        ("cat ../../etc/passwd", "path-outside-workspace"),
        ("cat up/repo/../secret", "path-outside-workspace"),
        ("cat up", "path-outside-workspace"),
    ] {
        refused_by(&client, command, rule).await;
    }
    let listed = ran(&client, json!({"command": "ls shop"})).await;
    assert!(
        listed["stdout"].as_str().unwrap().contains("util\n"),
        "{listed}"
    );
    let error = refused(&client, json!({"command": "cat /etc/passwd"})).await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("'/etc/passwd' names a path outside the workspace"),
        "{error}"
    );
}

/// A command sees only the passed variables and the ones the policy sets: not the server's
/// whole environment (`git -c alias.e=!env e` would print it).
#[tokio::test(flavor = "multi_thread")]
async fn the_command_environment_is_scrubbed() {
    let (client, _directory, _repo) = start(&["env"]).await;
    let printed = ran(&client, json!({"command": "env"})).await;
    let mut names: Vec<String> = printed["stdout"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, _)| name.to_string()))
        .collect();
    names.sort();
    let mut expected: Vec<String> = codegraph::mcp::shell::PASSED_ENVIRONMENT
        .iter()
        .filter(|name| std::env::var_os(name).is_some())
        .chain(
            codegraph::mcp::shell::SET_ENVIRONMENT
                .iter()
                .map(|(name, _)| name),
        )
        .map(|name| name.to_string())
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    let stdout = printed["stdout"].as_str().unwrap();
    assert!(stdout.contains("GIT_CONFIG_NOSYSTEM=1\n"));
    assert!(stdout.contains("GIT_CONFIG_GLOBAL=/dev/null\n"));
    assert!(stdout.contains("GIT_TERMINAL_PROMPT=0\n"));
}
