//! The LSP door driven by a third-party client: pytest-lsp (pygls, with Neovim 0.11's client
//! capabilities) runs `tests/e2e/lsp/test_*.py` against the real `codegraph lsp` binary.
//!
//! The test installs the client itself, pinned (`tests/e2e/lsp/requirements.txt`), into a venv
//! under the cargo target directory, once: a later run reuses the venv while the requirements
//! are unchanged. It needs `python3` (3.10 or later; `CODEGRAPH_PYTHON` names another) and, for
//! the first run, access to PyPI. Without them it fails and says so; it never passes silently.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> String {
    std::env::var("CODEGRAPH_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

pub(crate) fn shown(output: &Output) -> String {
    format!(
        "exit status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run(command: &mut Command, what: &str) -> Result<Output, String> {
    let output = command
        .output()
        .map_err(|error| format!("{what}: cannot run {command:?}: {error}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(format!("{what}: {command:?} failed\n{}", shown(&output)))
    }
}

/// The venv holding pytest-lsp, created and filled on first use.
fn client_venv() -> PathBuf {
    venv(
        "e2e-lsp-venv",
        "tests/e2e/lsp/requirements.txt",
        "pytest-lsp",
    )
}

/// A venv named `name` under the cargo target directory holding the pinned `requirements` (a
/// path relative to the package), created and filled on first use and reused while the
/// requirements are unchanged. Panics with a clear message when python3 or PyPI is missing.
pub(crate) fn venv(name: &str, requirements: &str, what: &str) -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let marker = venv.join("codegraph-requirements.txt");
    let requirements = manifest_dir().join(requirements);
    let wanted = std::fs::read_to_string(&requirements).expect("the requirements file exists");
    if std::fs::read_to_string(&marker).is_ok_and(|installed| installed == wanted) {
        return venv;
    }
    let python = python();
    let venv_python = venv.join("bin/python");
    let pip_install = [
        "install",
        "--disable-pip-version-check",
        "-q",
        "-r",
        requirements.to_str().expect("UTF-8 path"),
    ];
    // A venv with its own pip; where `ensurepip` is missing (Debian without python3-venv), a
    // venv without pip, filled by the system's pip.
    let with_pip = run(
        Command::new(&python)
            .args(["-m", "venv", "--clear"])
            .arg(&venv),
        "creating the venv",
    );
    let installed = match with_pip {
        Ok(_) => run(
            Command::new(&venv_python)
                .args(["-m", "pip"])
                .args(pip_install),
            &format!("installing {what} from PyPI (network access needed once)"),
        ),
        Err(first_error) => run(
            Command::new(&python)
                .args(["-m", "venv", "--clear", "--without-pip"])
                .arg(&venv),
            "creating the venv without pip",
        )
        .and_then(|_| {
            run(
                Command::new(&python)
                    .args(["-m", "pip", "--python"])
                    .arg(&venv_python)
                    .args(pip_install),
                &format!(
                    "installing {what} from PyPI with the system's pip (network access needed once)"
                ),
            )
        })
        .map_err(|second_error| format!("{first_error}\n\n{second_error}")),
    };
    if let Err(error) = installed {
        panic!(
            "this end-to-end test needs python3 (3.10+) with venv or pip, and PyPI for the \
             first run, to install {what}:\n{error}"
        );
    }
    std::fs::write(&marker, wanted).expect("venv marker written");
    venv
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
