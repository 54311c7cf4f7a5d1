//! The change set a change-impact answer starts from: the files that differ between a git base
//! revision and the working tree (untracked files included), and an editor's unsaved buffers,
//! each with its text at the base. Git is run as a process (`git diff`, `git ls-files`,
//! `git cat-file --batch`): the user's own git, its configuration and its ignore rules.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use codegraph_analysis::affected::FileChange;
use codegraph_graph::Graph;
use codegraph_lang::Language;

use crate::World;

/// The files a change touches, against one base revision.
#[derive(Debug, Clone)]
pub struct ChangeSet {
    /// The base as given (`HEAD`, `origin/main`).
    pub base: String,
    /// The commit compared with: where HEAD's history left the base (their merge base; the
    /// base itself when it is an ancestor of HEAD).
    pub commit: String,
    /// The changed files the graph models, with their text at the base.
    pub files: Vec<FileChange>,
    /// Changed files the graph does not model.
    pub unmodelled: Vec<String>,
    /// Open editor buffers with edits not saved to disk, part of the change.
    pub unsaved: Vec<String>,
}

impl World {
    /// The change set between `base` and what the graph holds now (the working tree, with the
    /// editor's unsaved buffers). An error when the root is not in a git repository or `base`
    /// names no commit.
    pub fn change_set(&self, graph: &Graph, base: &str) -> anyhow::Result<ChangeSet> {
        let root = self.root();
        if base.starts_with('-') {
            anyhow::bail!("{base}: not a revision");
        }
        let prefix = git(root, &["rev-parse", "--show-prefix"])
            .map_err(|error| {
                anyhow::anyhow!("{}: not in a git repository ({error})", root.display())
            })?
            .trim()
            .to_string();
        let revision = format!("{base}^{{commit}}");
        let commit = git(root, &["rev-parse", "--verify", "--quiet", &revision])
            .map(|commit| commit.trim().to_string())
            .unwrap_or_default();
        if commit.is_empty() {
            anyhow::bail!("{base}: no such revision in {}", root.display());
        }
        // A branch's change is what it did since it left the base (`git diff base...`): the
        // base's own later commits are not part of it.
        let commit = git(root, &["merge-base", &commit, "HEAD"])
            .map(|fork| fork.trim().to_string())
            .ok()
            .filter(|fork| !fork.is_empty())
            .unwrap_or(commit);
        let mut paths: Vec<String> = split_nul(&git(
            root,
            &[
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                "--relative",
                &commit,
                "--",
            ],
        )?);
        paths.extend(split_nul(&git(
            root,
            &["ls-files", "--others", "--exclude-standard", "-z"],
        )?));
        let unsaved: Vec<String> = self
            .unsaved_files()
            .iter()
            .map(|path| path.to_string())
            .collect();
        paths.extend(unsaved.iter().cloned());
        // The on-disk cache in the workspace is codegraph's own, not the user's change.
        paths.retain(|path| !path.starts_with(".codegraph/"));
        paths.sort();
        paths.dedup();

        let mut modelled = Vec::new();
        let mut unmodelled = Vec::new();
        for path in paths {
            let known = Language::from_path(Path::new(&path)).is_some();
            match graph.file(&path) {
                Some(_) => modelled.push(path),
                None if known && !root.join(&path).exists() => modelled.push(path),
                None => unmodelled.push(path),
            }
        }
        let texts = base_texts(root, &commit, &prefix, &modelled)?;
        let files = modelled
            .into_iter()
            .zip(texts)
            .filter(|(path, base)| !same_text(graph, path, base.as_deref()))
            .map(|(path, base)| FileChange { path, base })
            .collect();
        Ok(ChangeSet {
            base: base.to_string(),
            commit,
            files,
            unmodelled,
            unsaved,
        })
    }
}

/// The graph holds `path` with exactly the base's text (an unsaved buffer undone, a file
/// touched but not changed).
fn same_text(graph: &Graph, path: &str, base: Option<&str>) -> bool {
    match (graph.file(path), base) {
        (Some(file), Some(base)) => file.hash == *blake3::hash(base.as_bytes()).as_bytes(),
        _ => false,
    }
}

/// Runs git in `root`; its standard output, or its error.
fn git(root: &Path, arguments: &[&str]) -> anyhow::Result<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(arguments)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| anyhow::anyhow!("git: {error}"))?;
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr);
        anyhow::bail!("git {}: {}", arguments.join(" "), message.trim());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn split_nul(text: &str) -> Vec<String> {
    text.split('\0')
        .filter(|path| !path.is_empty())
        .map(str::to_string)
        .collect()
}

/// Each path's text at `commit` (`None` where the commit has no such file), through one
/// `git cat-file --batch`.
fn base_texts(
    root: &Path,
    commit: &str,
    prefix: &str,
    paths: &[String],
) -> anyhow::Result<Vec<Option<String>>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| anyhow::anyhow!("git cat-file: {error}"))?;
    let mut input = String::new();
    for path in paths {
        input.push_str(&format!("{commit}:{prefix}{path}\n"));
    }
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| anyhow::anyhow!("git cat-file: no stdin"))?;
    // Written from a thread: git answers while it reads, and a full pipe either way would block.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| anyhow::anyhow!("git cat-file: no stdout"))?;
    let mut reader = BufReader::new(stdout);
    let mut texts = Vec::with_capacity(paths.len());
    for _ in paths {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        match fields.as_slice() {
            [_, "blob", size] => {
                let size: usize = size.parse()?;
                let mut bytes = vec![0; size + 1];
                reader.read_exact(&mut bytes)?;
                bytes.pop();
                texts.push(Some(String::from_utf8_lossy(&bytes).into_owned()));
            }
            [_, _, size] => {
                // A tree or a submodule at that path: not a file at the base.
                let size: usize = size.parse()?;
                let mut skip = vec![0; size + 1];
                reader.read_exact(&mut skip)?;
                texts.push(None);
            }
            _ => texts.push(None),
        }
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(texts)
}

/// Where an impact answer comes from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Provenance {
    pub base: String,
    pub commit: String,
    /// The graph revision the answer was computed on.
    pub revision: u64,
    /// Unsaved editor buffers the change includes.
    pub unsaved: Vec<String>,
    /// Changed files the graph models.
    pub changed_files: usize,
    /// Time to compute the answer (the change set and the walk), in milliseconds.
    pub elapsed_ms: u64,
}

/// What a change since `base` affects, and its tests: the one function behind the CLI's
/// `codegraph affected`, the MCP tool and the editor command.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AffectedAnswer {
    #[serde(flatten)]
    pub impact: codegraph_analysis::affected::Impact,
    pub provenance: Provenance,
}

impl World {
    /// The impact of everything changed since `base` on the current snapshot, and that
    /// snapshot.
    pub fn affected(&self, base: &str) -> anyhow::Result<(std::sync::Arc<Graph>, AffectedAnswer)> {
        let started = std::time::Instant::now();
        let graph = self.snapshot();
        let set = self.change_set(&graph, base)?;
        let impact = codegraph_analysis::affected::impact(
            &graph,
            self.analysis().lexicon(),
            &set.files,
            set.unmodelled,
        );
        let provenance = Provenance {
            base: set.base,
            commit: set.commit,
            revision: graph.revision(),
            unsaved: set.unsaved,
            changed_files: set.files.len(),
            elapsed_ms: started.elapsed().as_millis() as u64,
        };
        Ok((graph, AffectedAnswer { impact, provenance }))
    }
}
