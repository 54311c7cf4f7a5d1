#!/usr/bin/env bash
# Assembles the corpus of the accuracy benchmark (benches/accuracy.rs): several real projects per
# language, each a directory that both codegraph and the language's own server open as their
# workspace root. Sources come from package registries only: PyPI sdists (`pip download`), npm
# tarballs (`npm pack`), crates.io (`cargo vendor`), Debian's golang-*-dev packages (which ship Go
# sources under /usr/share/gocode/src). No other hosts, no git clones.
#
#   benches/accuracy-corpus.sh [DIR]   DIR defaults to $CODEGRAPH_ACCURACY_CORPUS, then
#                                      <repo>/bench-accuracy
#
# Every version is pinned (crates transitively through the lock this script writes next to each
# crate; Debian's packages by version). Idempotent: a project whose directory holds a `.complete`
# marker is skipped. Downloads live under DIR/.cache.
#
# Layout: DIR/<language>/<project>/ for Python, JavaScript, TypeScript and Rust; Go projects sit in
# a GOPATH, DIR/go/gopath/src/<import path>/, so that gopls loads them (and their dependencies,
# copied from the same Debian packages) in GOPATH mode. DIR/projects.tsv lists every project as
# `language<TAB>name<TAB>path relative to DIR`; the benchmark reads it.
#
# What the reference servers need besides the sources, written here and documented as such:
# - JavaScript: a jsconfig.json at the project root (allowJs, every .js file), else
#   typescript-language-server builds an inferred project per open file and misses the callers in
#   files that the open file does not import.
# - TypeScript: a tsconfig.json at the project root when the package ships none with its sources,
#   with `paths` that map the package's own name (`import * as z from "zod/v3"`) to its sources.
# - Rust: `[workspace]` appended to each crate's Cargo.toml (a workspace of its own), and the lock
#   of the vendoring project copied in, so that rust-analyzer's `cargo metadata` resolves the same
#   dependency versions every time.
#
# The servers themselves: benches/accuracy-servers.sh.
# Needs: bash, tar, python3 with pip, npm, cargo, apt-get (as root, for the Go sources).

set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-${CODEGRAPH_ACCURACY_CORPUS:-$repo_root/bench-accuracy}}
mkdir -p "$corpus"
corpus=$(cd "$corpus" && pwd)
cache=$corpus/.cache
mkdir -p "$cache"
projects_file=$corpus/projects.tsv
projects_list=()

log() { printf '%s\n' "$*" >&2; }

project() { projects_list+=("$1	$2	$3"); }

# pypi NAME VERSION: the source distribution, whole (library and its tests).
pypi() {
    local name=$1 version=$2
    local relative=python/$name-$version
    local target=$corpus/$relative
    project python "$name-$version" "$relative"
    if [[ -e $target/.complete ]]; then log "have   pypi $name==$version"; return; fi
    log "fetch  pypi $name==$version"
    local downloads=$cache/pypi/$name-$version
    mkdir -p "$downloads"
    if ! compgen -G "$downloads/*.tar.gz" >/dev/null; then
        pip download --quiet --no-deps --no-binary :all: "$name==$version" -d "$downloads"
    fi
    local sdist
    sdist=$(compgen -G "$downloads/*.tar.gz" | head -n 1)
    rm -rf "$target" && mkdir -p "$target"
    tar -xzf "$sdist" -C "$target" --strip-components=1
    touch "$target/.complete"
}

# npm LANGUAGE SPEC SUBPATH...: the package tarball reduced to SUBPATHs, its hand-written sources
# (not the compiled or bundled dist/ output).
npm_package() {
    local language=$1 spec=$2; shift 2
    local dir_name=${spec#@}; dir_name=${dir_name//\//-}; dir_name=${dir_name/@/-}
    local relative=$language/$dir_name
    local target=$corpus/$relative
    project "$language" "$dir_name" "$relative"
    if [[ -e $target/.complete ]]; then log "have   npm  $spec"; return; fi
    log "fetch  npm  $spec"
    local downloads=$cache/npm
    mkdir -p "$downloads"
    local tarball=$downloads/$dir_name.tgz
    if [[ ! -e $tarball ]]; then
        local packed
        packed=$(cd "$downloads" && npm pack --silent --pack-destination "$downloads" "$spec" | tail -n 1)
        [[ $downloads/$packed == "$tarball" ]] || mv "$downloads/$packed" "$tarball"
    fi
    rm -rf "$target" && mkdir -p "$target"
    local members=()
    for subpath in "$@"; do members+=("package/$subpath"); done
    tar -xzf "$tarball" -C "$target" --strip-components=1 "${members[@]}"
    find "$target" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.min.js' -o -name '*.map' \) -delete
    if [[ $language == javascript ]]; then
        cat >"$target/jsconfig.json" <<'EOF'
{
  "compilerOptions": {"allowJs": true, "checkJs": false, "noEmit": true, "target": "es2022",
                      "module": "commonjs", "moduleResolution": "node"},
  "include": ["**/*.js", "**/*.mjs", "**/*.cjs"]
}
EOF
    fi
    touch "$target/.complete"
}

# tsconfig DIR NAME: the TypeScript project's tsconfig.json, unless the package ships one. Its
# `paths` map the package's own name to its sources, for the files (tests, sub-packages) that
# import the package by name: without node_modules, tsserver would not resolve them.
tsconfig() {
    local target=$corpus/typescript/$1 name=$2
    local config=$target/tsconfig.json
    if [[ -e $config ]] && ! head -n 1 "$config" | grep -q 'accuracy-corpus.sh'; then return; fi
    local base=${name##*/}
    cat >"$config" <<EOF
// Written by benches/accuracy-corpus.sh for the reference server (tsserver).
{
  "compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
                      "moduleResolution": "bundler", "jsx": "react-jsx", "skipLibCheck": true,
                      "experimentalDecorators": true, "baseUrl": ".",
                      "paths": {"$name": ["src/index.ts", "src/$base.ts"], "$name/*": ["src/*"]}},
  "include": ["**/*.ts", "**/*.tsx"]
}
EOF
}

# Rust: a throwaway project depending on the crates at exact versions; `cargo vendor` fetches
# them, and each is copied out as a project of its own with the throwaway's lock.
crates_manifest='[package]
name = "codegraph-accuracy-corpus"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
serde_json = "=1.0.133"
regex-syntax = "=0.8.5"
regex-automata = "=0.4.9"
clap_builder = "=4.5.21"
itertools = "=0.13.0"

[workspace]
'
crates_keep=(serde_json-1.0.133 regex-syntax-0.8.5 regex-automata-0.4.9 clap_builder-4.5.21
    itertools-0.13.0)

crates() {
    local name
    for name in "${crates_keep[@]}"; do project rust "$name" "rust/$name"; done
    local missing=0
    for name in "${crates_keep[@]}"; do
        [[ -e $corpus/rust/$name/.complete ]] || missing=1
    done
    if [[ $missing == 0 ]]; then log "have   crates"; return; fi
    log "fetch  crates"
    local scratch=$cache/crates-project
    rm -rf "$scratch" && mkdir -p "$scratch/src"
    printf '%s' "$crates_manifest" >"$scratch/Cargo.toml"
    printf 'fn main() {}\n' >"$scratch/src/main.rs"
    local vendor=$cache/crates-vendor
    rm -rf "$vendor"
    (cd "$scratch" && cargo vendor --quiet --versioned-dirs "$vendor" >/dev/null)
    mkdir -p "$corpus/rust"
    for name in "${crates_keep[@]}"; do
        local target=$corpus/rust/$name
        rm -rf "$target"
        cp -r "$vendor/$name" "$target"
        rm -f "$target/.cargo-checksum.json"
        grep -q '^\[workspace\]' "$target/Cargo.toml" || printf '\n[workspace]\n' >>"$target/Cargo.toml"
        cp "$scratch/Cargo.lock" "$target/Cargo.lock"
        touch "$target/.complete"
    done
    rm -rf "$vendor"
}

# Go: Debian's packages of Go libraries, at the versions of Debian 12 (bookworm). Their sources
# and those of their dependencies are copied into one GOPATH.
go_packages=(
    golang-github-spf13-cobra-dev=1.6.1-1
    golang-github-sirupsen-logrus-dev=1.9.0-1
    golang-github-burntsushi-toml-dev=1.2.0-2
    golang-github-google-go-cmp-dev=0.5.9-1
    golang-github-hashicorp-hcl-dev=1.0.0-1.1
)
go_projects=(github.com/spf13/cobra github.com/sirupsen/logrus github.com/BurntSushi/toml
    github.com/google/go-cmp github.com/hashicorp/hcl)

go_sources() {
    local path
    for path in "${go_projects[@]}"; do project go "${path##*/}" "go/gopath/src/$path"; done
    if [[ -e $corpus/go/.complete ]]; then log "have   go"; return; fi
    log "fetch  go (Debian's packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${go_packages[@]}" >/dev/null
    rm -rf "$corpus/go" && mkdir -p "$corpus/go/gopath"
    # -L: some Debian packages link a directory to another package's copy.
    cp -rL /usr/share/gocode/src "$corpus/go/gopath/src"
    touch "$corpus/go/.complete"
}

# --- The corpus -----------------------------------------------------------------------------

pypi requests 2.32.3
pypi rich 13.9.4
pypi attrs 24.2.0
pypi click 8.1.7
pypi flask 3.1.0

# JavaScript with plain, hand-written sources: CommonJS (express, mocha, postcss) and ES modules
# (handlebars, moment).
npm_package javascript express@4.21.1 index.js lib
npm_package javascript mocha@10.8.2 lib
npm_package javascript postcss@8.4.49 lib
npm_package javascript handlebars@4.7.8 lib
npm_package javascript moment@2.30.1 src/moment.js src/lib

# TypeScript: packages that ship their .ts sources.
npm_package typescript rxjs@7.8.1 src
npm_package typescript mobx@6.13.5 src
npm_package typescript zod@3.25.76 src/v3
npm_package typescript immer@10.1.1 src
npm_package typescript @reduxjs/toolkit@2.5.0 src
tsconfig rxjs-7.8.1 rxjs
tsconfig mobx-6.13.5 mobx
tsconfig zod-3.25.76 zod
tsconfig immer-10.1.1 immer
tsconfig reduxjs-toolkit-2.5.0 @reduxjs/toolkit

crates
go_sources

printf '%s\n' "${projects_list[@]}" >"$projects_file"

# --- Figures --------------------------------------------------------------------------------

python3 - "$corpus" "$projects_file" <<'EOF'
import os, sys
root, listing = sys.argv[1], sys.argv[2]
EXTENSIONS = {"python": (".py",), "javascript": (".js", ".mjs", ".cjs"),
              "typescript": (".ts", ".tsx", ".mts", ".cts"), "rust": (".rs",), "go": (".go",)}
print(f"{'language':<11} {'project':<24} {'files':>6} {'lines':>8}")
for line in open(listing):
    language, name, relative = line.rstrip("\n").split("\t")
    files = lines = 0
    for directory, dirs, names in os.walk(os.path.join(root, relative)):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for file in names:
            if file.endswith(EXTENSIONS[language]) and not file.endswith(".d.ts"):
                files += 1
                with open(os.path.join(directory, file), "rb") as handle:
                    lines += handle.read().count(b"\n")
    print(f"{language:<11} {name:<24} {files:>6} {lines:>8}")
EOF
