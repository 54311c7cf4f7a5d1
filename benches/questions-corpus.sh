#!/usr/bin/env bash
# Fetches the repositories the question benchmark (benches/questions.rs, benches/questions.json)
# asks about, each whole, as its registry ships it: Django from PyPI (library, test suite, docs'
# code, vendored JavaScript), three.js from npm (sources, examples, build output), tokio from
# crates.io (sources, integration tests). Registries only: `pip download`, `npm pack`,
# `cargo vendor`. Nothing is pruned: telling tests, examples, generated and vendored files from
# production code is what the benchmark measures.
#
#   benches/questions-corpus.sh [DIR]   DIR defaults to $CODEGRAPH_QUESTIONS_CORPUS, then
#                                       /work/bench-questions
#
# Versions are pinned. Idempotent: a repository whose directory holds a `.complete` marker is
# skipped. Downloads live under DIR/.cache (hidden: the index walk skips hidden entries).
#
# Needs: bash, tar, python3 with pip, npm, cargo.

set -euo pipefail

corpus=${1:-${CODEGRAPH_QUESTIONS_CORPUS:-/work/bench-questions}}
mkdir -p "$corpus/.cache"
corpus=$(cd "$corpus" && pwd)
cache=$corpus/.cache

log() { printf '%s\n' "$*" >&2; }

# pypi NAME VERSION DIR: the source distribution, whole.
pypi() {
    local name=$1 version=$2 target=$corpus/$3
    if [[ -e $target/.complete ]]; then log "have   pypi $name==$version"; return; fi
    log "fetch  pypi $name==$version"
    local downloads=$cache/pypi-$name-$version
    mkdir -p "$downloads"
    if ! compgen -G "$downloads/*.tar.gz" >/dev/null; then
        pip download --quiet --no-deps --no-binary :all: "$name==$version" -d "$downloads"
    fi
    rm -rf "$target" && mkdir -p "$target"
    tar -xzf "$(compgen -G "$downloads/*.tar.gz" | head -n 1)" -C "$target" --strip-components=1
    touch "$target/.complete"
}

# npm SPEC DIR: the package tarball, whole.
npm_package() {
    local spec=$1 target=$corpus/$2
    if [[ -e $target/.complete ]]; then log "have   npm  $spec"; return; fi
    log "fetch  npm  $spec"
    local downloads=$cache/npm-$2
    mkdir -p "$downloads"
    if ! compgen -G "$downloads/*.tgz" >/dev/null; then
        (cd "$downloads" && npm pack --silent "$spec" >/dev/null)
    fi
    rm -rf "$target" && mkdir -p "$target"
    tar -xzf "$(compgen -G "$downloads/*.tgz" | head -n 1)" -C "$target" --strip-components=1
    touch "$target/.complete"
}

# crate NAME VERSION DIR: the crate's published source (what crates.io serves), through
# `cargo vendor` of a throwaway project that depends on exactly that version.
crate() {
    local name=$1 version=$2 target=$corpus/$3
    if [[ -e $target/.complete ]]; then log "have   crate $name $version"; return; fi
    log "fetch  crate $name $version"
    local project=$cache/crate-$name-$version
    rm -rf "$project" && mkdir -p "$project/src"
    printf '[package]\nname = "questions-corpus"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s = "=%s"\n\n[workspace]\n' \
        "$name" "$version" >"$project/Cargo.toml"
    printf 'fn main() {}\n' >"$project/src/main.rs"
    (cd "$project" && cargo vendor --quiet --versioned-dirs vendor >/dev/null)
    rm -rf "$target"
    cp -r "$project/vendor/$name-$version" "$target"
    rm -rf "$project"
    touch "$target/.complete"
}

pypi Django 5.1.4 django
npm_package three@0.170.0 three
crate tokio 1.41.1 tokio

for repository in django three tokio; do
    files=$(find "$corpus/$repository" -type f \( -name '*.py' -o -name '*.js' -o -name '*.rs' \) | wc -l)
    log "$repository: $files Python, JavaScript and Rust files"
done
