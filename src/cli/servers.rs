//! `codegraph status` and `codegraph stop`: the servers running for this user, as their
//! discovery entries in the runtime directory say (`mcp::attach`).

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::{print, print_json};
use crate::mcp::attach::{self, Entry, Kind};

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct StopArgs {
    /// Stop the servers of this repository (its canonical path).
    #[arg(long, short = 'r', default_value = ".")]
    pub repo: PathBuf,
    /// Stop every server of this user instead, but editors' language servers.
    #[arg(long)]
    pub all: bool,
}

/// One running server, as `codegraph status --json` prints it.
#[derive(Serialize)]
struct Running {
    root: PathBuf,
    pid: u32,
    /// `lsp` (an editor's), `serve` (started by hand) or `shared` (started by `codegraph mcp`).
    kind: &'static str,
    /// MCP sessions attached to its socket.
    clients: usize,
    /// The serving codegraph's version.
    version: String,
    uptime_seconds: u64,
    /// Resident memory, from `/proc`; absent where that cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    rss_bytes: Option<u64>,
    socket: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    http: Option<String>,
    /// A shared server's log.
    #[serde(skip_serializing_if = "Option::is_none")]
    log: Option<PathBuf>,
}

fn running(directory: &Path, entry: Entry) -> Running {
    let log = directory.join(format!("{}.log", attach::root_key(&entry.root)));
    Running {
        pid: entry.pid,
        kind: entry.kind.name(),
        clients: entry.clients,
        version: entry.version,
        uptime_seconds: attach::now_seconds().saturating_sub(entry.started),
        rss_bytes: resident_bytes(entry.pid),
        socket: entry.socket,
        http: entry.http,
        log: (entry.kind == Kind::Shared).then_some(log),
        root: entry.root,
    }
}

/// The live servers, by root then pid.
fn live() -> anyhow::Result<(PathBuf, Vec<Entry>)> {
    let directory = attach::runtime_dir()?;
    let mut entries: Vec<Entry> = attach::entries(&directory)
        .into_iter()
        .map(|(_, entry)| entry)
        .collect();
    entries.sort_by(|a, b| (&a.root, a.pid).cmp(&(&b.root, b.pid)));
    Ok((directory, entries))
}

pub fn status(arguments: &StatusArgs) -> anyhow::Result<()> {
    let (directory, entries) = live()?;
    let running: Vec<Running> = entries
        .into_iter()
        .map(|entry| running(&directory, entry))
        .collect();
    if arguments.json {
        return print_json(&running);
    }
    if running.is_empty() {
        print("no codegraph server is running")?;
    }
    for server in &running {
        let memory = server.rss_bytes.map_or(String::new(), |bytes| {
            format!(", {} MB resident", bytes >> 20)
        });
        print(&format!(
            "{}\n  process {} ({}, version {}), up {}, {} client{}{memory}\n  socket {}",
            server.root.display(),
            server.pid,
            server.kind,
            server.version,
            duration(server.uptime_seconds),
            server.clients,
            if server.clients == 1 { "" } else { "s" },
            server.socket.display()
        ))?;
        if let Some(http) = &server.http {
            print(&format!("  http {http}"))?;
        }
        if let Some(log) = &server.log {
            print(&format!("  log {}", log.display()))?;
        }
    }
    Ok(())
}

pub fn stop(arguments: &StopArgs) -> anyhow::Result<()> {
    let (_, entries) = live()?;
    let repo = arguments.repo.canonicalize().ok();
    let mut chosen: Vec<Entry> = entries
        .into_iter()
        .filter(|entry| arguments.all || repo.as_deref() == Some(entry.root.as_path()))
        .collect();
    chosen.sort_by(|left, right| left.root.cmp(&right.root));
    if chosen.is_empty() {
        match (&repo, arguments.all) {
            (Some(repo), false) => print(&format!(
                "no codegraph server of {} is running",
                repo.display()
            ))?,
            _ => print("no codegraph server is running")?,
        }
    }
    // A shared server serving several worktrees has an entry for each: stopped once.
    let mut stopped: Vec<u32> = Vec::new();
    for entry in chosen {
        if stopped.contains(&entry.pid) {
            print(&format!(
                "{}: stopped with process {}, which served it too",
                entry.root.display(),
                entry.pid
            ))?;
            continue;
        }
        if entry.kind == Kind::Lsp {
            print(&format!(
                "{}: process {} is an editor's language server; not stopped (close the folder in the editor)",
                entry.root.display(),
                entry.pid
            ))?;
            continue;
        }
        print(&match crate::mcp::daemon::stop(&entry) {
            Ok(()) => {
                stopped.push(entry.pid);
                format!("{}: stopped process {}", entry.root.display(), entry.pid)
            }
            Err(error) => format!(
                "{}: process {} not stopped: {error:#}",
                entry.root.display(),
                entry.pid
            ),
        })?;
    }
    Ok(())
}

/// A process's resident memory, from `/proc/<pid>/status`.
fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

/// `1h 2m`, `3m 4s`, `5s`.
fn duration(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m {}s", seconds / 60, seconds % 60),
        _ => format!("{}h {}m", seconds / 3600, seconds % 3600 / 60),
    }
}
