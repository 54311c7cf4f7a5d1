//! The `codegraph` binary: command-line parsing, logging to stderr, the runtime. Nothing else.

fn main() {
    std::process::exit(codegraph::cli::main());
}
