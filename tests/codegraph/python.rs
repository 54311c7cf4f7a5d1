//! Python venvs for the end-to-end tests that drive the binary with third-party clients.
//!
//! Each test installs its client itself, pinned (a `requirements.txt` under `tests/e2e/`), into a
//! venv under the cargo target directory, once: a later run reuses the venv while the
//! requirements are unchanged. It needs `python3` (3.10 or later; `CODEGRAPH_PYTHON` names
//! another) and, for the first run, access to PyPI. Without them the test fails and says so; it
//! never passes silently.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> String {
    std::env::var("CODEGRAPH_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// A finished process's status and output, for failure messages.
pub fn shown(output: &Output) -> String {
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

/// The venv `name` holding `requirements` (the text of `requirements_path`, relative to the
/// repository), created and filled on first use; `client` names what is installed, for errors.
pub fn venv(name: &str, requirements_path: &str, requirements: &str, client: &str) -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let marker = venv.join("codegraph-requirements.txt");
    if std::fs::read_to_string(&marker).is_ok_and(|installed| installed == requirements) {
        return venv;
    }
    let python = python();
    let venv_python = venv.join("bin/python");
    let requirements_file = manifest_dir().join(requirements_path);
    let pip_install = [
        "install",
        "--disable-pip-version-check",
        "-q",
        "-r",
        requirements_file.to_str().expect("UTF-8 path"),
    ];
    // A venv with its own pip; where `ensurepip` is missing (Debian without python3-venv), a
    // venv without pip, filled by the system's pip.
    let installed = run(Command::new(&python).args(["-m", "venv", "--clear"]).arg(&venv), "creating the venv")
        .and_then(|_| {
            run(
                Command::new(&venv_python).args(["-m", "pip"]).args(pip_install),
                &format!("installing {client} from PyPI (network access needed once)"),
            )
        })
        .or_else(|first_error| {
            run(
                Command::new(&python).args(["-m", "venv", "--clear", "--without-pip"]).arg(&venv),
                "creating the venv without pip",
            )
            .and_then(|_| {
                run(
                    Command::new(&python).args(["-m", "pip", "--python"]).arg(&venv_python).args(pip_install),
                    &format!("installing {client} from PyPI with the system's pip (network access needed once)"),
                )
            })
            .map_err(|second_error| format!("{first_error}\n\n{second_error}"))
        });
    if let Err(error) = installed {
        panic!(
            "this end-to-end test needs python3 (3.10+) with venv or pip, and PyPI for the first \
             run, to install its client ({client}):\n{error}"
        );
    }
    std::fs::write(&marker, requirements).expect("venv marker written");
    venv
}
