//! The supervisor of one shell command (Linux): the `codegraph` binary started as
//! `codegraph __codegraph-shell-supervisor -- PROGRAM ARGS...` by `run.rs`.
//!
//! A process group does not hold a command: any process in it can call `setsid` (or
//! `setpgid`) and leave, and a double fork hands it to init, so killing the group misses it and
//! it outlives the timeout. A child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`) does hold it:
//! an orphan below a subreaper is re-parented to the subreaper, not to init, whatever session
//! or group it is in. Making the server itself the subreaper would hand it the orphans of
//! every command at once, with no telling whose they are, and reaping them with `waitpid(-1)`
//! would steal the exit statuses tokio waits for; one small process per command has none of
//! these problems and needs no privilege (a cgroup would, unless one is delegated).
//!
//! The supervisor runs the command with stdin closed and the output pipes it was given, and
//! watches its own stdin, the lifeline: when it closes (the server's timeout or a cancelled
//! request, or the server died), the command and everything below it are killed. When the
//! command has exited, for whatever reason, every descendant still alive is killed and reaped
//! before the supervisor exits with the command's status, so nothing the command started
//! survives it.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, raise};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

/// Runs the command `arguments` (after an optional `--`) and returns the exit code to exit
/// with (when the command died of a signal, the same signal ends the supervisor first).
pub fn main(arguments: &[OsString]) -> i32 {
    let arguments = match arguments.first() {
        Some(first) if first == "--" => &arguments[1..],
        _ => arguments,
    };
    let Some((program, rest)) = arguments.split_first() else {
        eprintln!("codegraph: the shell supervisor needs a command");
        return 126;
    };
    if let Err(error) = nix::sys::prctl::set_child_subreaper(true) {
        eprintln!("codegraph: cannot supervise the command (child subreaper: {error})");
        return 126;
    }
    let mut child = match Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            eprintln!(
                "codegraph: could not start '{}': {error}",
                program.to_string_lossy()
            );
            return 127;
        }
    };
    std::thread::spawn(|| {
        let mut lifeline = std::io::stdin();
        let mut buffer = [0u8; 64];
        while matches!(lifeline.read(&mut buffer), Ok(read) if read > 0) {}
        kill_children(Signal::SIGKILL);
    });
    let status = child.wait();
    kill_descendants();
    match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => code,
            (None, Some(signal)) => {
                if let Ok(signal) = Signal::try_from(signal) {
                    let _ = raise(signal);
                }
                128 + signal
            }
            (None, None) => 1,
        },
        Err(error) => {
            eprintln!("codegraph: waiting for the command failed: {error}");
            1
        }
    }
}

/// Kills, then reaps, every process below this one until none is left. Killing a process hands
/// its own children to this subreaper, so the loop goes on until `waitpid` says there are no
/// children at all.
fn kill_descendants() {
    loop {
        kill_children(Signal::SIGKILL);
        match waitpid(Pid::from_raw(-1), None) {
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(_) => break,
        }
    }
}

/// Sends `signal` to every live child of this process.
fn kill_children(signal: Signal) {
    for child in children_of(std::process::id()) {
        let _ = kill(Pid::from_raw(child), signal);
    }
}

/// The processes whose parent is `parent`, from `/proc/<pid>/stat`.
fn children_of(parent: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| parent_of(pid) == Some(parent))
        .collect()
}

/// The parent of `pid`: the field after the state, past the `(comm)` that may hold anything.
fn parent_of(pid: i32) -> Option<u32> {
    parent_in_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn parent_in_stat(stat: &str) -> Option<u32> {
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_command_name_with_spaces_and_parentheses() {
        assert_eq!(
            parent_in_stat("4242 (a b) (c)) S 17 4242 4242 0 -1"),
            Some(17)
        );
        assert_eq!(parent_in_stat("4242 (x"), None);
        assert_eq!(
            parent_of(std::process::id() as i32),
            Some(nix::unistd::getppid().as_raw() as u32)
        );
    }

    #[test]
    fn a_child_is_found_among_the_children() {
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        assert!(children_of(std::process::id()).contains(&(child.id() as i32)));
        let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
        let _ = child.wait();
    }
}
