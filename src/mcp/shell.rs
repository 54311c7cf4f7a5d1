//! `execute_shell_command`, when an operator enabled it with `--allow-shell PROG,PROG`.
//!
//! No shell is involved: the command line is split into argv (quotes respected, no expansion,
//! no pipes or redirections), the program must be on the allow-list by its exact name, and
//! interpreters given inline code (`python -c`, `node -e`, `sh -c`, `bash -c`, `perl -e`,
//! `ruby -e`, ...) are refused even when allow-listed, since they would run anything. The
//! command runs in a directory inside the workspace, in its own process group that is killed
//! whole on timeout, with stdin closed and its output capped.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// At most this many bytes of stdout and of stderr come back.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// The default and the largest timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// The programs an operator allowed.
#[derive(Debug, Clone)]
pub struct ShellPolicy {
    pub programs: Vec<String>,
}

/// What a finished (or killed) command gave.
#[derive(Debug)]
pub struct Outcome {
    pub argv: Vec<String>,
    /// `None` when killed by a signal (the timeout included).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub truncated: bool,
    pub timed_out: bool,
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

/// Whether `argument` is a flag that makes `family` run the code that follows it.
fn is_inline_code_flag(family: &str, argument: &str) -> bool {
    // Clusters of short flags (`-Ic`, `-xec`) count when any of them is the code flag.
    let short_cluster_has = |letters: &[char]| {
        argument.len() > 1
            && argument.starts_with('-')
            && !argument.starts_with("--")
            && argument[1..]
                .chars()
                .any(|letter| letters.contains(&letter))
    };
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

/// Why a command is refused, or `Ok` with its argv.
pub fn check(policy: &ShellPolicy, line: &str) -> Result<Vec<String>, String> {
    let argv = split(line)?;
    let Some(program) = argv.first() else {
        return Err("empty command".to_string());
    };
    if !policy.programs.iter().any(|allowed| allowed == program) {
        return Err(format!(
            "'{program}' is not an allowed program (allowed: {}); the command runs without a shell, so pipes, redirections and `;` are not available",
            policy.programs.join(", ")
        ));
    }
    let name = Path::new(program)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(family) = interpreter(&name)
        && let Some(flag) = argv[1..]
            .iter()
            .find(|argument| is_inline_code_flag(family, argument))
    {
        return Err(format!(
            "'{program} {flag}' runs inline code, which is refused even for allowed programs"
        ));
    }
    Ok(argv)
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

/// Runs `argv` in `directory` (already checked to be inside the workspace).
pub async fn run(
    argv: Vec<String>,
    directory: &Path,
    timeout: Duration,
) -> Result<Outcome, String> {
    let mut command = tokio::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .current_dir(directory)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|error| format!("could not start '{}': {error}", argv[0]))?;
    let group = child.id().map(|pid| nix::unistd::Pid::from_raw(pid as i32));
    let stdout = tokio::spawn(read_capped(child.stdout.take().expect("piped")));
    let stderr = tokio::spawn(read_capped(child.stderr.take().expect("piped")));
    let (status, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => (status.ok(), false),
        Err(_) => (None, true),
    };
    // On timeout, and also after a normal exit: children the command left behind in its group
    // would otherwise hold the output pipes open.
    if let Some(group) = group {
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    }
    if timed_out {
        let _ = child.wait().await;
    }
    let (stdout, stdout_truncated) = stdout.await.unwrap_or_default();
    let (stderr, stderr_truncated) = stderr.await.unwrap_or_default();
    Ok(Outcome {
        argv,
        exit_code: status.and_then(|status| status.code()),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        truncated: stdout_truncated || stderr_truncated,
        timed_out,
    })
}

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
        };
        assert!(check(&policy, "python3.12 -Ic 'print(1)'").is_err());
        assert!(check(&policy, "bash -ec 'ls'").is_err());
        assert!(check(&policy, "node --eval=1").is_err());
        assert!(check(&policy, "python3.12 -m pytest").is_ok());
        assert!(check(&policy, "cargo -c").is_ok());
    }
}
