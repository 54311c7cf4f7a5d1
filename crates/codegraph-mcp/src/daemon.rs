//! The shared server: when `codegraph mcp` finds no live server for its repository, it starts
//! one, `codegraph serve --shared`, detached from it, and attaches; every later `codegraph mcp`
//! of the repository attaches to the same process, so the repository is indexed once and every
//! session sees one graph. The shared server serves MCP on its unix socket only (`mcp::attach`)
//! and exits once it has had no session for its idle time.
//!
//! Invariants:
//! - One start at a time per root: the client that starts a server holds an exclusive lock on
//!   `<runtime dir>/<root key>.lock` from its second look for a live server until the new one is
//!   published or has failed. A client racing it waits on the lock, then finds the server and
//!   attaches. The lock is the kernel's (`flock`), so a client that dies holding it frees it.
//! - A server publishes its discovery entry only once its graph is indexed: a client never
//!   attaches to a half-built graph.
//! - A server outlives the client that started it, even before it is ready: the client marks
//!   the start (`<root key>.starting`, the server's pid) while it waits, and a client that takes
//!   the lock after it died waits for that server instead of starting another.
//! - One server per repository: a root that is a `git worktree` of a repository whose shared
//!   server runs is served by that server (asked over its socket, `mcp::shared`), not by a new
//!   one.
//! - The server runs in its own process group with no terminal, stdin or stdout; its stderr (the
//!   log) is `<runtime dir>/<root key>.log`, rewritten at each start. It outlives the client that
//!   started it, and exits after its idle time with no session, on SIGTERM (`codegraph stop`)
//!   or on SIGINT, removing its entry. A crashed server's entry is removed by the next reader of
//!   the directory, and the next client starts a new server.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::attach::{self, Entry};

/// How long a shared server stays with no session, by default.
pub const DEFAULT_IDLE_SECONDS: u64 = 300;

/// How long a client waits for the server it started to index and publish.
const READY_LIMIT: Duration = Duration::from_secs(30 * 60);

/// A live server for a root, found or started.
pub struct Served {
    pub entry: Entry,
    /// Started by this call, with its log here.
    pub started: Option<PathBuf>,
}

/// What a shared server is started with: the starting client's own settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Seconds with no client before it exits.
    pub idle_exit: u64,
    pub max_file_size: u64,
    pub no_cache: bool,
    /// Its cache directory instead of `<root>/.codegraph` (made absolute here).
    pub cache_dir: Option<PathBuf>,
}

impl Settings {
    /// `codegraph serve --shared`'s arguments for these settings, `--repo` aside.
    fn arguments(&self) -> Vec<OsString> {
        let mut arguments: Vec<OsString> = vec![
            "--idle-exit".into(),
            self.idle_exit.to_string().into(),
            "--max-file-size".into(),
            self.max_file_size.to_string().into(),
        ];
        if self.no_cache {
            arguments.push("--no-cache".into());
        } else if let Some(directory) = &self.cache_dir {
            arguments.push("--cache-dir".into());
            arguments.push(
                std::path::absolute(directory)
                    .unwrap_or(directory.clone())
                    .into(),
            );
        }
        arguments
    }
}

/// [`ensure`] for a door (`door` is its command, `codegraph mcp`), saying on stderr that it
/// started a server (and its log), or that none could be had and the door serves in-process.
/// Whether a server of `repo` runs now.
pub fn ensure_said(door: &str, repo: &Path, settings: &Settings) -> bool {
    match ensure(repo, settings) {
        Ok(served) => {
            if let Some(log) = &served.started {
                eprintln!(
                    "{door}: started the shared server of {} (process {}, log {}); it exits {} s after its last client",
                    served.entry.root.display(),
                    served.entry.pid,
                    log.display(),
                    settings.idle_exit
                );
            }
            true
        }
        Err(error) => {
            eprintln!("{door}: no shared server ({error:#}); serving in-process");
            false
        }
    }
}

/// Says on stderr which server a door attached to.
pub fn say_attached(door: &str, entry: &Entry) {
    eprintln!(
        "{door}: attached to the {} server of {} (process {})",
        entry.kind.name(),
        entry.root.display(),
        entry.pid
    );
}

/// The live server of `repo`, starting this program's `serve --shared` with `settings` when
/// there is none. Blocks while another client starts one, and while the started one indexes.
pub fn ensure(repo: &Path, settings: &Settings) -> anyhow::Result<Served> {
    let program = std::env::current_exe().context("this program's path")?;
    let directory = attach::runtime_dir()?;
    let root = repo
        .canonicalize()
        .with_context(|| format!("the repository {}", repo.display()))?;
    let key = attach::root_key(&root);
    let lock = private_file(&directory.join(format!("{key}.lock")), false)?;
    lock.lock().context("locking the shared server's start")?;
    if let Some(entry) = served_without_start(&directory, &root, &key) {
        return Ok(Served {
            entry,
            started: None,
        });
    }
    let log = directory.join(format!("{key}.log"));
    let mut child = std::process::Command::new(&program)
        .arg("serve")
        .arg("--shared")
        .args(settings.arguments())
        .arg("--repo")
        .arg(&root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(private_file(&log, true)?)
        .process_group(0)
        .spawn()
        .with_context(|| format!("starting {} serve --shared", program.display()))?;
    // Should this client die before the server is ready, the next one waits for that server.
    let marker = directory.join(format!("{key}.starting"));
    let marked = private_file(&marker, true)
        .and_then(|mut file| Ok(file.write_all(child.id().to_string().as_bytes())?));
    let entry = wait_ready(&directory, &root, &mut child, &log);
    if marked.is_ok() {
        let _ = std::fs::remove_file(&marker);
    }
    // Reap the server when it exits while this client still runs.
    std::thread::spawn(move || child.wait());
    Ok(Served {
        entry: entry?,
        started: Some(log),
    })
}

/// A server of `root` without starting one: a live entry; the server a client started and died
/// before it was ready, once it is (its `<key>.starting` marker); or a sibling worktree's shared
/// server, asked to serve `root` too.
fn served_without_start(directory: &Path, root: &Path, key: &str) -> Option<Entry> {
    if let Some((_, entry)) = attach::find(directory, root) {
        return Some(entry);
    }
    if let Some(entry) = starting(directory, root, key) {
        return Some(entry);
    }
    let repository = repository_of(root)?;
    let sibling = sibling(directory, &repository)?;
    match ask_to_serve(&sibling, root) {
        Ok(()) => attach::find(directory, root).map(|(_, entry)| entry),
        Err(error) => {
            tracing::warn!(
                "the shared server of {} does not serve {}: {error:#}",
                sibling.root.display(),
                root.display()
            );
            None
        }
    }
}

/// Waits for the server a `<key>.starting` marker names, while it is alive and is the shared
/// server of `root` (a pid reused by another process is not waited for).
fn starting(directory: &Path, root: &Path, key: &str) -> Option<Entry> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(directory.join(format!("{key}.starting")))
        .ok()?
        .take(64)
        .read_to_string(&mut text)
        .ok()?;
    let pid: u32 = text.trim().parse().ok()?;
    let serves_root = || {
        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|line| {
            let words: Vec<&[u8]> = line.split(|byte| *byte == 0).collect();
            words.contains(&&b"--shared"[..])
                && words.contains(&root.as_os_str().as_encoded_bytes())
        })
    };
    let began = Instant::now();
    while serves_root() && began.elapsed() < READY_LIMIT {
        if let Some((_, entry)) = attach::find(directory, root) {
            return Some(entry);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    attach::find(directory, root).map(|(_, entry)| entry)
}

/// Waits until `child` publishes its entry for `root`.
fn wait_ready(
    directory: &Path,
    root: &Path,
    child: &mut std::process::Child,
    log: &Path,
) -> anyhow::Result<Entry> {
    let began = Instant::now();
    loop {
        if let Some((_, entry)) = attach::find(directory, root) {
            return Ok(entry);
        }
        if let Some(status) = child.try_wait()? {
            anyhow::bail!(
                "the shared server exited ({status}) before serving; its log {}:\n{}",
                log.display(),
                tail(log)
            );
        }
        if began.elapsed() > READY_LIMIT {
            anyhow::bail!(
                "the shared server (process {}) did not serve within {} s; its log is {}",
                child.id(),
                READY_LIMIT.as_secs(),
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A file of the runtime directory, mode 0600, never opened through a symlink; emptied first
/// when `truncate`.
fn private_file(path: &Path, truncate: bool) -> anyhow::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(truncate)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
        .with_context(|| format!("opening {}", path.display()))
}

/// The last lines of a log.
fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// A connection to `entry`'s socket, checked by its peer credentials to be served by the
/// entry's own process (a pid reused by another process is not it) of this user.
fn connect_checked(entry: &Entry) -> anyhow::Result<std::os::unix::net::UnixStream> {
    let stream = std::os::unix::net::UnixStream::connect(&entry.socket)
        .with_context(|| format!("connecting to {}", entry.socket.display()))?;
    let peer = nix::sys::socket::getsockopt(&stream, nix::sys::socket::sockopt::PeerCredentials)?;
    if peer.uid() != nix::unistd::geteuid().as_raw() {
        anyhow::bail!("{} is served by another user", entry.socket.display());
    }
    if u32::try_from(peer.pid()).ok() != Some(entry.pid) {
        anyhow::bail!("its socket is served by process {}", peer.pid());
    }
    Ok(stream)
}

/// Stops the server of `entry`: SIGTERM to the process serving its socket, checked (by the
/// socket's peer credentials) to be the entry's own process, then waits for it to exit.
pub fn stop(entry: &Entry) -> anyhow::Result<()> {
    use nix::sys::signal::{Signal, kill};
    drop(connect_checked(entry)?);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(entry.pid)?);
    kill(pid, Signal::SIGTERM)?;
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(10) {
        if kill(pid, None).is_err() || !Path::new(&format!("/proc/{pid}")).exists() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    anyhow::bail!("still running 10 s after SIGTERM")
}

/// The repository a worktree's root belongs to: git's common directory (the main worktree's
/// `.git`), canonical. `None` when `root` holds no `.git` (not a worktree's root).
pub fn repository_of(root: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let dotgit = root.join(".git");
    let metadata = dotgit.symlink_metadata().ok()?;
    if metadata.is_dir() {
        return dotgit.canonicalize().ok();
    }
    // A linked worktree's `.git` is a file: `gitdir: <its directory under the common one>`,
    // which names the common directory in `commondir`.
    let mut text = String::new();
    std::fs::File::open(&dotgit)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    let gitdir = root.join(text.strip_prefix("gitdir:")?.trim());
    let common = match std::fs::read_to_string(gitdir.join("commondir")) {
        Ok(common) => gitdir.join(common.trim()),
        Err(_) => gitdir,
    };
    common.canonicalize().ok()
}

/// Asks `sibling`'s server, a shared server of the same repository, to serve `root` too; returns
/// once it does (it has indexed the worktree's difference and published its entry).
fn ask_to_serve(sibling: &Entry, root: &Path) -> anyhow::Result<()> {
    use std::io::BufRead;
    let stream = connect_checked(sibling)?;
    stream.set_read_timeout(Some(READY_LIMIT))?;
    let hello = attach::Hello {
        attach: attach::HelloSettings {
            worktree: Some(root.to_path_buf()),
            ..attach::HelloSettings::default()
        },
    };
    (&stream).write_all(format!("{}\n", serde_json::to_string(&hello)?).as_bytes())?;
    let mut answer = String::new();
    std::io::BufReader::new(&stream).read_line(&mut answer)?;
    let answer: serde_json::Value = serde_json::from_str(&answer)
        .with_context(|| format!("the answer of process {}", sibling.pid))?;
    match answer["error"].as_str() {
        None if answer["ok"] == true => Ok(()),
        Some(error) => anyhow::bail!("{error}"),
        None => anyhow::bail!("process {} answered {answer}", sibling.pid),
    }
}

/// A shared server of this version serving another worktree of `repository`.
fn sibling(directory: &Path, repository: &Path) -> Option<Entry> {
    attach::entries(directory)
        .into_iter()
        .map(|(_, entry)| entry)
        .filter(|entry| {
            entry.kind == attach::Kind::Shared
                && entry.attachable()
                && entry.repository.as_deref() == Some(repository)
        })
        .max_by_key(|entry| entry.started)
}
