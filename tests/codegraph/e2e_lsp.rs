//! The LSP door driven by a third-party client: pytest-lsp (pygls, with Neovim 0.11's client
//! capabilities) runs `tests/e2e/lsp/test_*.py` against the real `codegraph lsp` binary.
//!
//! The test installs the client itself, pinned (`tests/e2e/lsp/requirements.txt`), into a venv
//! under the cargo target directory, once: a later run reuses the venv while the requirements
//! are unchanged. It needs `python3` (3.10 or later; `CODEGRAPH_PYTHON` names another) and, for
//! the first run, access to PyPI. Without them it fails and says so; it never passes silently.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::python::{self, manifest_dir, shown};

const REQUIREMENTS: &str = include_str!("../e2e/lsp/requirements.txt");

/// The venv holding the client, created and filled on first use.
fn client_venv() -> PathBuf {
    python::venv(
        "e2e-lsp-venv",
        "tests/e2e/lsp/requirements.txt",
        REQUIREMENTS,
        "pytest-lsp",
    )
}

#[test]
fn pytest_lsp_drives_the_binary_on_python_and_typescript() {
    let venv = client_venv();
    let base_temp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-lsp-pytest");
    let output = Command::new(venv.join("bin/python"))
        .current_dir(manifest_dir())
        .args(["-m", "pytest", "-p", "no:cacheprovider", "-q", "--basetemp"])
        .arg(&base_temp)
        .arg("tests/e2e/lsp/")
        .env("CODEGRAPH_BIN", env!("CARGO_BIN_EXE_codegraph"))
        // No `__pycache__` in the source tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("the venv's python runs");
    assert!(
        output.status.success(),
        "pytest-lsp tests failed\n{}",
        shown(&output)
    );
    // The run tested something and skipped nothing.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(" passed") && !stdout.contains("skipped"),
        "{stdout}"
    );
}
