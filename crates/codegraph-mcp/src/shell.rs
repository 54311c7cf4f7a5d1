//! `execute_shell_command`, when an operator enabled it with `--allow-shell PROG,PROG`.
//!
//! No shell is involved: the command line is split into argv (quotes respected, no expansion,
//! no pipes or redirections) and must pass a policy whose every refusal names its rule
//! ([`Refusal::rule`]). An allow-list of program names is not a policy on its own, since the
//! arguments are the attack surface, so:
//! - `allow-list`: the program must be on the list by its exact name;
//! - `path-outside-workspace`: an argument (or an option's `=value`) that is an absolute path,
//!   has a `..` component, or names something that exists must resolve inside the workspace
//!   (canonically, so a symlink in the repository that leads out is refused like its target);
//! - interpreters (python, node, sh and the other shells, perl, ruby, php, lua, ...), anywhere on
//!   the line: `interpreter-inline-code` (`-c`, `-e` and their kin, in flag clusters too),
//!   `interpreter-module` (`-m`, `-r`, `-M`, `-l`, `--require`, `--import`, ...) and
//!   `interpreter-stdin` (`-` as the script);
//! - git: `git-config` (`-c`, `--config-env`), `git-exec-path` (`--exec-path`),
//!   `git-remote-command` (`--upload-pack`, `--receive-pack`, `--exec`, `-u` of clone and
//!   ls-remote), `git-transport` (`ext::` and `fd::` URLs), `git-runs-command` (`grep -O`,
//!   `rebase -x`), and `git-subcommand`: only the subcommands in [`GIT_SUBCOMMANDS`], which
//!   leave out the network (`fetch`, `push`, `clone`, ...) and `config`.
//!
//! The command runs in a directory inside the workspace, with stdin closed, its output capped,
//! and a scrubbed environment: only the variables in [`PASSED_ENVIRONMENT`], plus git's system
//! and global configuration turned off, no terminal prompt, every transport but `file` refused,
//! no fsmonitor, no hooks and `cat` as the pager, whatever a repository's own `.git/config`
//! says. How it runs, and how everything it started is killed when it ends, times out or is
//! cancelled (a `setsid` included), is in `shell/run.rs` and `shell/supervisor.rs`.
//!
//! Limits: an allowed interpreter runs any script that is in the workspace; a `.git/config`
//! planted in the workspace (a clone never carries one) can still name diff, textconv and
//! filter drivers; options with attached short values (`-ofile`) are not read as paths; the
//! policy reads
//! arguments, not what a program does with files it opens itself (a build tool runs the
//! repository's build scripts).

mod run;
#[cfg(target_os = "linux")]
pub mod supervisor;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use run::{Outcome, run};

/// At most this many bytes of stdout and of stderr come back.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// The default and the largest timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// The first argument that makes the `codegraph` binary a command's supervisor.
pub const SUPERVISOR_ARGUMENT: &str = "__codegraph-shell-supervisor";

/// The programs an operator allowed, and how their commands are contained.
#[derive(Debug, Clone)]
pub struct ShellPolicy {
    pub programs: Vec<String>,
    /// The `codegraph` binary, run as each command's supervisor (Linux): a child subreaper
    /// that kills everything the command started, `setsid` escapes included, when it ends
    /// ([`supervisor`]). `None`: the command runs directly in its own process group, and a
    /// process that leaves the group outlives it.
    pub supervisor: Option<PathBuf>,
}

impl ShellPolicy {
    /// The policy of this process's command line: the running binary is the supervisor
    /// (`/proc/self/exe`, which names it even after it was replaced on disk).
    pub fn for_this_binary(programs: Vec<String>) -> ShellPolicy {
        ShellPolicy {
            programs,
            supervisor: cfg!(target_os = "linux").then(|| PathBuf::from("/proc/self/exe")),
        }
    }
}

/// Splits a command line into words: whitespace separates, single quotes keep everything
/// literal, double quotes keep everything but `\"` and `\\`, a backslash outside quotes
/// escapes the next character. Nothing is expanded.
pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut characters = line.chars();
    while let Some(character) = characters.next() {
        match character {
            '\'' => {
                in_word = true;
                loop {
                    match characters.next() {
                        Some('\'') => break,
                        Some(inner) => word.push(inner),
                        None => return Err("unterminated single quote".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match characters.next() {
                        Some('"') => break,
                        Some('\\') => match characters.next() {
                            Some(escaped @ ('"' | '\\')) => word.push(escaped),
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err("unterminated double quote".to_string()),
                        },
                        Some(inner) => word.push(inner),
                        None => return Err("unterminated double quote".to_string()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match characters.next() {
                    Some(escaped) => word.push(escaped),
                    None => return Err("a trailing backslash".to_string()),
                }
            }
            space if space.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The interpreter family of a program name (`python3.12` → `python`), if it runs inline code.
fn interpreter(program: &str) -> Option<&'static str> {
    let base =
        program.trim_end_matches(|character: char| character.is_ascii_digit() || character == '.');
    Some(match base {
        "python" | "pypy" => "python",
        "node" | "nodejs" | "deno" | "bun" => "node",
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "fish" | "ash" | "busybox" => "sh",
        "perl" => "perl",
        "ruby" => "ruby",
        "php" => "php",
        "lua" | "luajit" => "lua",
        "osascript" | "pwsh" | "powershell" => "script",
        _ => return None,
    })
}

/// Whether `argument` is a cluster of short flags (`-Ic`, `-xec`) with one of `letters`: a
/// flag counts inside a cluster as alone.
fn short_cluster_has(argument: &str, letters: &[char]) -> bool {
    argument.len() > 1
        && argument.starts_with('-')
        && !argument.starts_with("--")
        && argument[1..]
            .chars()
            .any(|letter| letters.contains(&letter))
}

/// Whether `argument` is a flag that makes `family` run the code that follows it.
fn is_inline_code_flag(family: &str, argument: &str) -> bool {
    let short_cluster_has = |letters: &[char]| short_cluster_has(argument, letters);
    match family {
        "python" => short_cluster_has(&['c']),
        "sh" => short_cluster_has(&['c']) || argument == "--command",
        "node" => {
            short_cluster_has(&['e', 'p'])
                || matches!(argument, "--eval" | "--print" | "eval")
                || argument.starts_with("--eval=")
                || argument.starts_with("--print=")
        }
        "perl" => short_cluster_has(&['e', 'E']),
        "ruby" => short_cluster_has(&['e']),
        "php" => short_cluster_has(&['r']),
        "lua" => short_cluster_has(&['e']),
        "script" => short_cluster_has(&['e', 'c']) || argument.eq_ignore_ascii_case("-command"),
        _ => false,
    }
}

/// Whether `argument` makes `family` load and run a module or library named next to it.
fn is_module_flag(family: &str, argument: &str) -> bool {
    let short_cluster_has = |letters: &[char]| short_cluster_has(argument, letters);
    let long = |names: &[&str]| {
        names.iter().any(|name| {
            argument == *name
                || argument
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('='))
        })
    };
    // `-m` for every interpreter: the first thing the brief of this policy names.
    short_cluster_has(&['m'])
        || match family {
            "node" => {
                short_cluster_has(&['r'])
                    || long(&["--require", "--import", "--loader", "--experimental-loader"])
            }
            "perl" => short_cluster_has(&['M']),
            "ruby" => short_cluster_has(&['r']) || long(&["--require"]),
            "lua" => short_cluster_has(&['l']),
            "php" => short_cluster_has(&['d']),
            "sh" => short_cluster_has(&['s']),
            _ => false,
        }
}

/// A refused command: the rule that refused it and a sentence for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub rule: &'static str,
    pub message: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "refused by rule `{}`: {}",
            self.rule, self.message
        )
    }
}

fn refuse(rule: &'static str, message: String) -> Result<(), Refusal> {
    Err(Refusal { rule, message })
}

/// The git subcommands the shell tool runs: reading history and the working tree, and local
/// changes to them. Not the network (`fetch`, `pull`, `push`, `clone`, `ls-remote`, `remote`,
/// `submodule`), not `config`, not the ones that run other programs (`difftool`, `bisect`,
/// `filter-branch`).
pub const GIT_SUBCOMMANDS: &[&str] = &[
    "add",
    "annotate",
    "blame",
    "branch",
    "cat-file",
    "check-ignore",
    "checkout",
    "cherry-pick",
    "commit",
    "count-objects",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "for-each-ref",
    "grep",
    "help",
    "log",
    "ls-files",
    "ls-tree",
    "merge",
    "merge-base",
    "mv",
    "name-rev",
    "rebase",
    "reflog",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-ref",
    "stash",
    "status",
    "switch",
    "tag",
    "version",
    "whatchanged",
];

/// Git's options before the subcommand that take the next argument as their value.
const GIT_GLOBAL_WITH_VALUE: &[&str] = &["-C", "-c", "--git-dir", "--work-tree", "--namespace"];

/// Refuses the git command lines that can run other commands: remote helpers and transports,
/// configuration, another exec path, a subcommand outside [`GIT_SUBCOMMANDS`], and the
/// subcommands' own options that run a command.
fn check_git(argv: &[String]) -> Result<(), Refusal> {
    check_git_remote_commands(&argv[1..])?;
    let index = git_subcommand_index(argv)?;
    let Some(subcommand) = argv.get(index) else {
        return Ok(()); // `git --version`, `git --help`
    };
    if !GIT_SUBCOMMANDS.contains(&subcommand.as_str()) {
        return refuse(
            "git-subcommand",
            format!(
                "'git {subcommand}' is not one of the git subcommands the shell tool runs ({})",
                GIT_SUBCOMMANDS.join(", ")
            ),
        );
    }
    let rest = &argv[index + 1..];
    let runs_command = |argument: &String| match subcommand.as_str() {
        "grep" => argument.starts_with("-O") || argument.starts_with("--open-files-in-pager"),
        "rebase" => argument == "-x" || (argument.starts_with("-x") && argument.len() > 2),
        _ => false,
    };
    if let Some(argument) = rest.iter().find(|argument| runs_command(argument)) {
        return refuse(
            "git-runs-command",
            format!("'git {subcommand} {argument}' runs a command"),
        );
    }
    Ok(())
}

/// Refuses, anywhere in git's `arguments`, an option naming a command for git to run on the
/// remote side, and the `ext::` and `fd::` transports.
fn check_git_remote_commands(arguments: &[String]) -> Result<(), Refusal> {
    for argument in arguments {
        let value = argument
            .split_once('=')
            .map_or(argument.as_str(), |(_, value)| value);
        if ["--upload-pack", "--receive-pack", "--exec"]
            .iter()
            .any(|option| argument == option || argument.starts_with(&format!("{option}=")))
        {
            return refuse(
                "git-remote-command",
                format!("'{argument}' names a command for git to run"),
            );
        }
        let lowered = value.to_ascii_lowercase();
        if lowered.starts_with("ext::") || lowered.starts_with("fd::") {
            return refuse(
                "git-transport",
                format!("'{argument}' uses git's ext:: or fd:: transport, which runs commands"),
            );
        }
    }
    Ok(())
}

/// Where git's subcommand is in `argv`, past the global options; refuses the global options
/// that set configuration or the exec path.
fn git_subcommand_index(argv: &[String]) -> Result<usize, Refusal> {
    let mut index = 1;
    while let Some(argument) = argv.get(index) {
        if !argument.starts_with('-') {
            break;
        }
        if argument == "-c" || argument.starts_with("--config-env") {
            refuse(
                "git-config",
                format!("'{argument}' sets git configuration, which can name commands to run"),
            )?;
        }
        if argument.starts_with("--exec-path") {
            refuse(
                "git-exec-path",
                format!("'{argument}' changes where git finds its programs"),
            )?;
        }
        index += if GIT_GLOBAL_WITH_VALUE.contains(&argument.as_str()) {
            2
        } else {
            1
        };
    }
    Ok(index)
}

/// `Err` when `value`, an argument run from `directory`, is a path that leads outside `root`.
fn check_path(root: &Path, directory: &Path, argument: &str, value: &str) -> Result<(), Refusal> {
    if value.is_empty() || value == "-" {
        return Ok(());
    }
    let path = Path::new(value);
    let candidate = directory.join(path);
    let is_path = path.is_absolute()
        || path
            .components()
            .any(|component| matches!(component, std::path::Component::ParentDir))
        || candidate.symlink_metadata().is_ok();
    if !is_path {
        return Ok(());
    }
    match codegraph_world::walk::contained(root, &candidate) {
        Ok(()) => Ok(()),
        Err(reason) => refuse(
            "path-outside-workspace",
            format!("'{argument}' names a path outside the workspace ({reason})"),
        ),
    }
}

/// Refuses an interpreter's arguments that give it a program other than a file: inline code,
/// a module named on the command line, or stdin.
fn check_interpreter(family: &str, argv: &[String]) -> Result<(), Refusal> {
    let program = &argv[0];
    for argument in &argv[1..] {
        if is_inline_code_flag(family, argument) {
            refuse(
                "interpreter-inline-code",
                format!(
                    "'{program} {argument}' runs inline code, which is refused even for allowed programs"
                ),
            )?;
        }
        if is_module_flag(family, argument) {
            refuse(
                "interpreter-module",
                format!(
                    "'{program} {argument}' loads and runs a module named on the command line, which is refused even for allowed programs"
                ),
            )?;
        }
        if matches!(
            argument.as_str(),
            "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        ) {
            refuse(
                "interpreter-stdin",
                format!("'{program} {argument}' reads its program from stdin"),
            )?;
        }
    }
    Ok(())
}

/// Checks `line` against the policy for a run in `directory` (inside `root`, both canonical):
/// its argv, or the rule that refuses it.
pub fn check(
    policy: &ShellPolicy,
    line: &str,
    root: &Path,
    directory: &Path,
) -> Result<Vec<String>, Refusal> {
    let argv = split(line).map_err(|message| Refusal {
        rule: "syntax",
        message,
    })?;
    let Some(program) = argv.first() else {
        return Err(Refusal {
            rule: "syntax",
            message: "empty command".to_string(),
        });
    };
    if !policy.programs.iter().any(|allowed| allowed == program) {
        refuse(
            "allow-list",
            format!(
                "'{program}' is not an allowed program (allowed: {}); the command runs without a shell, so pipes, redirections and `;` are not available",
                policy.programs.join(", ")
            ),
        )?;
    }
    let name = Path::new(program)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(family) = interpreter(&name) {
        check_interpreter(family, &argv)?;
    }
    if name == "git" {
        check_git(&argv)?;
    }
    for argument in &argv[1..] {
        let value = if argument.starts_with('-') {
            match argument.split_once('=') {
                Some((_, value)) => value,
                None => continue,
            }
        } else {
            argument.as_str()
        };
        check_path(root, directory, argument, value)?;
    }
    Ok(argv)
}

/// The variables of the server's environment a command sees; everything else (tokens, keys,
/// `GIT_*`, `LD_PRELOAD`, ...) is dropped.
pub const PASSED_ENVIRONMENT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOCACHE",
    "GOMODCACHE",
];

/// What every command's environment says, after [`PASSED_ENVIRONMENT`]: git reads no system
/// or global configuration, never prompts, refuses every transport but `file`, and runs no
/// fsmonitor, hook or pager that configuration (the repository's own included) names. (An
/// empty `diff.external` would break `git diff`, so a repository's own `.git/config`, which a
/// clone never carries, is still trusted for diff and filter drivers.)
pub const SET_ENVIRONMENT: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_EDITOR", "true"),
    ("GIT_CONFIG_COUNT", "5"),
    ("GIT_CONFIG_KEY_0", "protocol.allow"),
    ("GIT_CONFIG_VALUE_0", "never"),
    ("GIT_CONFIG_KEY_1", "protocol.file.allow"),
    ("GIT_CONFIG_VALUE_1", "always"),
    ("GIT_CONFIG_KEY_2", "core.fsmonitor"),
    ("GIT_CONFIG_VALUE_2", "false"),
    ("GIT_CONFIG_KEY_3", "core.hooksPath"),
    ("GIT_CONFIG_VALUE_3", "/dev/null"),
    ("GIT_CONFIG_KEY_4", "core.pager"),
    ("GIT_CONFIG_VALUE_4", "cat"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_respects_quotes_and_escapes() {
        assert_eq!(
            split(r#"git log --format="%h %s" 'a b' c\ d"#).unwrap(),
            ["git", "log", "--format=%h %s", "a b", "c d"]
        );
        assert_eq!(split("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split("''").unwrap(), [""]);
        assert!(split("echo 'open").is_err());
    }

    #[test]
    fn inline_code_flags_are_recognised_in_clusters_and_versions() {
        let policy = ShellPolicy {
            programs: ["python3.12", "bash", "node", "cargo"]
                .map(String::from)
                .to_vec(),
            supervisor: None,
        };
        let root = std::env::temp_dir().canonicalize().unwrap();
        let rule = |line: &str| check(&policy, line, &root, &root).map_err(|refusal| refusal.rule);
        assert_eq!(
            rule("python3.12 -Ic 'print(1)'"),
            Err("interpreter-inline-code")
        );
        assert_eq!(rule("bash -ec 'ls'"), Err("interpreter-inline-code"));
        assert_eq!(rule("node --eval=1"), Err("interpreter-inline-code"));
        assert_eq!(rule("python3.12 -m pytest"), Err("interpreter-module"));
        assert_eq!(
            rule("node --require=./x.js app.js"),
            Err("interpreter-module")
        );
        assert_eq!(rule("bash -"), Err("interpreter-stdin"));
        assert!(check(&policy, "cargo -c", &root, &root).is_ok());
    }
}
