//! The command-line door. Every query command calls the same protocol-agnostic function as the
//! LSP and MCP doors; this module only parses flags and formats answers.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::lang::Language;

#[derive(Parser, Debug)]
#[command(
    name = "codegraph",
    version,
    about = "A live code graph for editors (LSP) and AI assistants (MCP)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print what extraction finds in one file, as JSON (for writing language queries).
    #[command(hide = true)]
    DebugExtract { file: PathBuf },
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("codegraph: {error:#}");
            1
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::DebugExtract { file } => {
            let language = Language::from_path(&file).ok_or_else(|| {
                anyhow::anyhow!("{}: not a language codegraph parses", file.display())
            })?;
            let bytes = std::fs::read(&file)
                .map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
            let text = crate::syntax::decode_lossy(bytes);
            let (summary, _) = crate::index::extract_text(language, &text);
            let json = serde_json::to_string_pretty(&summary)?;
            use std::io::Write;
            writeln!(std::io::stdout(), "{json}")?;
            Ok(0)
        }
    }
}
