//! Shared helpers: loading fixtures into a graph, reading expectations; the MCP door in process
//! (`support/mcp.rs`) and language-server answers written as text (`support/render.rs`).

pub mod mcp;
pub mod render;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use codegraph::graph::Graph;
use codegraph::world::{CacheLocation, World, WorldConfig};

/// What a file holds to make the server's extraction of it panic, in the servers the tests
/// start (`codegraph::contain::INJECT_PANIC`): only the containment tests write it.
pub const INJECTED_PANIC: &str = "codegraph-test-injected-panic";

/// The query text whose work the servers the tests start make slow
/// (`codegraph::world::work::SLOW_WORK`): it runs, at checkpoints, until cancelled.
pub const SLOW_QUERY: &str = "codegraph-test-slow-query";

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

pub fn fixture(name: &str) -> PathBuf {
    fixtures_dir().join(name)
}

/// Indexes a directory with no cache and returns its graph.
pub fn index(root: &Path) -> (World, Arc<Graph>) {
    let world = World::open(
        root,
        WorldConfig {
            cache: CacheLocation::Disabled,
            ..WorldConfig::default()
        },
    )
    .expect("fixture opens");
    world.index(false, &|_, _| {});
    let graph = world.snapshot();
    (world, graph)
}

/// Makes `root` a git repository with one commit holding all its files (a base that change
/// impact compares with).
pub fn commit_all(root: &Path) {
    let author = ["-c", "user.name=t", "-c", "user.email=t@t"];
    for arguments in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[&author[..], &["commit", "-qm", "base"]].concat(),
    ] {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(arguments)
            .status();
        assert!(status.unwrap().success(), "git {arguments:?}");
    }
}

/// Every fixture directory (one per language).
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures/ exists")
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().join("expected.txt").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Compares `actual` with the file at `path`; with `UPDATE_EXPECT=1`, rewrites the file.
pub fn check_snapshot(path: &Path, actual: &str) -> Result<(), String> {
    let actual = format!("{}\n", actual.trim_end());
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(path, &actual).expect("snapshot written");
        return Ok(());
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected == actual {
        return Ok(());
    }
    let mut report = format!(
        "{}: snapshot differs (run with UPDATE_EXPECT=1 to accept):\n",
        path.display()
    );
    let expected_lines: std::collections::BTreeSet<&str> = expected.lines().collect();
    let actual_lines: std::collections::BTreeSet<&str> = actual.lines().collect();
    for line in expected_lines.difference(&actual_lines) {
        report.push_str(&format!("  - {line}\n"));
    }
    for line in actual_lines.difference(&expected_lines) {
        report.push_str(&format!("  + {line}\n"));
    }
    Err(report)
}
