//! Which definitions are asked about: the project's source files in a seeded order, each
//! file's functions from the reference's documentSymbol.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::cxx;
use crate::servers::{ReferenceKind, Server};
use crate::{relative_to, uri};

pub(crate) struct Sample {
    pub(crate) file: PathBuf,
    pub(crate) relative: String,
    pub(crate) name: String,
    /// The name's position (LSP, UTF-16).
    pub(crate) line: u32,
    pub(crate) character: u32,
    /// The definition's first and last line, as documentSymbol gives them.
    pub(crate) span: (u32, u32),
}

pub(crate) fn source_files(root: &Path, language: &str) -> Vec<PathBuf> {
    let extensions: &[&str] = match language {
        "python" => &["py"],
        "javascript" => &["js", "mjs", "cjs"],
        "typescript" => &["ts", "tsx", "mts", "cts"],
        "rust" => &["rs"],
        "go" => &["go"],
        // Definitions in headers are declarations, or inline functions of many translation
        // units: the sample is the definitions of the translation units themselves.
        "c" => &["c"],
        "cpp" => &["cc", "cpp", "cxx"],
        _ => &[],
    };
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(directory) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                stack.push(path);
            } else if file_type.is_file()
                && !name.ends_with(".d.ts")
                && extensions
                    .iter()
                    .any(|extension| name.ends_with(&format!(".{extension}")))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// SplitMix64: a small seeded generator, so that the sample is the same on every run.
pub(crate) struct Random(u64);

impl Random {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// The project's definitions in sampling order: files in a seeded order, one definition per file
/// (chosen with the seed), then a second per file, and so on.
pub(crate) struct Sampler<'a> {
    pub(crate) root: &'a Path,
    pub(crate) random: Random,
    pub(crate) order: Vec<&'a PathBuf>,
    /// Each file's definitions not yet taken, shuffled; None until the file is read.
    pub(crate) definitions: HashMap<&'a PathBuf, Vec<Sample>>,
    pub(crate) next_file: usize,
    pub(crate) took_in_round: bool,
}

impl<'a> Sampler<'a> {
    pub(crate) fn new(root: &'a Path, files: &'a [PathBuf], seed: u64) -> Sampler<'a> {
        let mut random = Random(seed);
        let mut order: Vec<&PathBuf> = files.iter().collect();
        random.shuffle(&mut order);
        Sampler {
            root,
            random,
            order,
            definitions: HashMap::new(),
            next_file: 0,
            took_in_round: false,
        }
    }

    pub(crate) fn next(
        &mut self,
        reference: &mut Server,
        kind: ReferenceKind,
        failures: &mut Vec<String>,
    ) -> Option<Sample> {
        loop {
            if self.next_file == self.order.len() {
                if !self.took_in_round {
                    return None;
                }
                self.next_file = 0;
                self.took_in_round = false;
            }
            let file = self.order[self.next_file];
            self.next_file += 1;
            if !self.definitions.contains_key(file) {
                reference.open(file, kind.language_id(file));
                let answer = reference.request(
                    "textDocument/documentSymbol",
                    json!({"textDocument": {"uri": uri(file)}}),
                );
                reference.close(file);
                let mut found = Vec::new();
                match answer {
                    Ok(symbols) => collect_functions(&symbols, file, self.root, &mut found),
                    Err(error) => failures.push(format!(
                        "{}: reference documentSymbol: {error}",
                        relative_to(file, self.root)
                    )),
                }
                if kind == ReferenceKind::Clangd {
                    // clangd lists prototypes and declarations too.
                    found.retain(cxx::is_definition);
                }
                self.random.shuffle(&mut found);
                self.definitions.insert(file, found);
            }
            if let Some(sample) = self.definitions.get_mut(file).and_then(Vec::pop) {
                self.took_in_round = true;
                return Some(sample);
            }
        }
    }
}

/// Functions, methods and constructors of a documentSymbol answer (hierarchical or flat).
pub(crate) fn collect_functions(
    symbols: &Value,
    file: &Path,
    root: &Path,
    found: &mut Vec<Sample>,
) {
    for symbol in symbols.as_array().into_iter().flatten() {
        let kind = symbol["kind"].as_i64().unwrap_or(0);
        // DocumentSymbol has selectionRange; SymbolInformation only location.range.
        let range = if symbol.get("range").is_some() {
            &symbol["range"]
        } else {
            &symbol["location"]["range"]
        };
        let position = if symbol.get("selectionRange").is_some() {
            &symbol["selectionRange"]["start"]
        } else {
            &symbol["location"]["range"]["start"]
        };
        let name = symbol["name"].as_str().unwrap_or("");
        // tsserver lists anonymous functions as `<function>` and `xs.forEach() callback`: not
        // definitions one can name.
        if matches!(kind, 6 | 9 | 12)
            && !name.is_empty()
            && !name.starts_with('<')
            && !name.ends_with(" callback")
        {
            found.push(Sample {
                file: file.to_path_buf(),
                relative: relative_to(file, root),
                name: name.to_string(),
                line: position["line"].as_u64().unwrap_or(0) as u32,
                character: position["character"].as_u64().unwrap_or(0) as u32,
                span: (
                    range["start"]["line"].as_u64().unwrap_or(0) as u32,
                    range["end"]["line"].as_u64().unwrap_or(0) as u32,
                ),
            });
        }
        if let Some(children) = symbol.get("children") {
            collect_functions(children, file, root, found);
        }
    }
}
