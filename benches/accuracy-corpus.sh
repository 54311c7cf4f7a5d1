#!/usr/bin/env bash
# Assembles the corpus of the accuracy benchmark (benches/accuracy/): several real projects per
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
# - C and C++: a compilation database (compile_commands.json at the project's root, or in the
#   directory above when the project is a build tree's `src/`), which clangd needs to parse a file
#   as the build does. Each project is built once, offline, from Debian's source package (upstream
#   sources as Debian ships them, Debian's patches not applied: they adapt the build to Debian's):
#     lua 5.4.4 (lua5.4)       `bear -- make posix` in src/ (plain Makefile, no configure)
#     redis 7.0.15 (redis)     `bear -- make MALLOC=libc BUILD_TLS=no` at the top (its bundled
#                              deps are built too, for their headers and generated files); the
#                              project is src/ (the deps, outside it, are dropped from both sides)
#     sqlite 3.40.1 (sqlite3)  the split sources, not the amalgamation: `./configure
#                              --disable-amalgamation`, then `bear -- make libsqlite3.la`, which
#                              generates parse.c, opcodes.c, sqlite3.h and keywordhash.h (tclsh)
#                              and compiles every src/*.c file separately
#     leveldb 1.23 (leveldb)   CMake configure only (-DCMAKE_EXPORT_COMPILE_COMMANDS=ON, which
#                              also writes port_config.h); tests and benchmarks off: their
#                              googletest and benchmark submodules are not in the tarball
#     ninja 1.11.1 (ninja-build) CMake configure only, tests on (ninja's own test framework); the
#                              pre-generated lexers are used (no re2c)
#   Objects and binaries are deleted after the build, and so is every .c/.cc/.cpp file that the
#   compilation database does not compile (Windows ports, tests left out of the build, tools):
#   clangd's background index only reads the files of the database, and a file it never indexes
#   would give codegraph callers the reference cannot have. Test data and documentation are
#   dropped. The languages are `c` and `cpp`: DIR/c/<project>/, DIR/cpp/<project>/.
#
# ACCURACY_LANGUAGES=c,cpp (comma-separated) assembles only those languages' projects; the other
# languages' rows of an existing projects.tsv are kept.
#
# The servers themselves: benches/accuracy-servers.sh.
# Needs: bash, tar, python3 with pip, npm, cargo, apt-get (as root, for the Go sources and the
# Debian source packages; deb-src is enabled as benches/sweep/corpus.sh does), and for C and C++
# make, cmake, gcc, g++, tclsh and bear (accuracy-servers.sh installs cmake and bear).

set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ACCURACY_SET=held-out assembles the held-out set instead: other projects of the same
# languages, measured only once the work is done, never tuned on (default corpus directory
# bench-accuracy-held-out/).
set_name=${ACCURACY_SET:-benchmark}
case $set_name in
    benchmark) default_corpus=$repo_root/bench-accuracy ;;
    held-out) default_corpus=$repo_root/bench-accuracy-held-out ;;
    *) printf 'ACCURACY_SET is benchmark or held-out, not %s\n' "$set_name" >&2; exit 2 ;;
esac
corpus=${1:-${CODEGRAPH_ACCURACY_CORPUS:-$default_corpus}}
mkdir -p "$corpus"
corpus=$(cd "$corpus" && pwd)
cache=$corpus/.cache
mkdir -p "$cache"
projects_file=$corpus/projects.tsv
projects_list=()

log() { printf '%s\n' "$*" >&2; }

project() { projects_list+=("$1	$2	$3"); }

# wants LANGUAGE: whether ACCURACY_LANGUAGES (comma-separated; default every language) names it.
wants() { [[ -z ${ACCURACY_LANGUAGES:-} || ,${ACCURACY_LANGUAGES// /}, == *,$1,* ]]; }

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
'
crates_keep=(serde_json-1.0.133 regex-syntax-0.8.5 regex-automata-0.4.9 clap_builder-4.5.21
    itertools-0.13.0)
if [[ $set_name == held-out ]]; then crates_keep=(anyhow-1.0.93 semver-1.0.23); fi
# Each kept crate NAME-VERSION as an exact dependency.
for kept in "${crates_keep[@]}"; do
    crates_manifest+="${kept%-*} = \"=${kept##*-}\""$'\n'
done
crates_manifest+=$'\n[workspace]\n'

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
if [[ $set_name == held-out ]]; then
    go_packages=(
        golang-github-fsnotify-fsnotify-dev=1.6.0-2
        golang-github-spf13-pflag-dev=1.0.6~git20210604-d5e0c0615ace-1
    )
    go_projects=(github.com/fsnotify/fsnotify github.com/spf13/pflag)
fi

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

# C and C++: Debian's source packages, pinned, unpacked without Debian's patches, built once.

# shellcheck source=benches/support/deb-src.sh
source "$repo_root/benches/support/deb-src.sh"

# debian_source NAME VERSION TARGET: the source package's upstream tree in TARGET.
debian_source() {
    local name=$1 version=$2 target=$3
    local downloads=$cache/debian/$name-${version//:/_}
    mkdir -p "$downloads"
    if ! compgen -G "$downloads/*.dsc" >/dev/null; then
        ensure_deb_src
        (cd "$downloads" && apt-get source --download-only -qq "$name=$version" >&2)
    fi
    local dsc
    dsc=$(compgen -G "$downloads/*.dsc" | head -n 1)
    rm -rf "$target" "$downloads/src"
    mkdir -p "$(dirname "$target")"
    # Unpacked beside the downloads (dpkg-source links the tarballs into the parent directory).
    dpkg-source --no-check --skip-patches -x "$dsc" "$downloads/src" >/dev/null
    mv "$downloads/src" "$target"
    chmod -R u+rwX "$target"
    rm -rf "$target/debian"
}

# prune_to_database ROOT DATABASE: deletes the objects, archives and binaries the build left, and
# every C or C++ source under ROOT that DATABASE does not compile.
prune_to_database() {
    local root=$1 database=$2
    find "$root" -type f \( -name '*.o' -o -name '*.lo' -o -name '*.a' -o -name '*.so' \
        -o -name '*.la' -o -name '*.d' \) -delete
    find "$root" -type d -name .libs -prune -exec rm -rf {} +
    python3 - "$root" "$database" <<'PYTHON'
import json, os, sys
root, database = sys.argv[1], sys.argv[2]
compiled = set()
for entry in json.load(open(database)):
    path = os.path.join(entry["directory"], entry["file"])
    compiled.add(os.path.realpath(path))
removed = 0
for directory, dirs, names in os.walk(root):
    for name in names:
        path = os.path.join(directory, name)
        with open(path, "rb") as handle:
            if handle.read(4) == b"\x7fELF":  # a binary the build linked
                os.remove(path)
                continue
        if name.endswith((".c", ".cc", ".cpp", ".cxx")):
            path = os.path.realpath(os.path.join(directory, name))
            if path not in compiled:
                os.remove(path)
                removed += 1
print(f"       {len(compiled)} files compiled, {removed} sources outside the build removed",
      file=sys.stderr)
PYTHON
}

# c_row LANGUAGE NAME PACKAGE VERSION [SUBDIR]: the row of a C or C++ project (SUBDIR of the
# unpacked tree when given); fails when the project is already complete.
c_row() {
    local language=$1 name=$2 subdir=${5:-}
    project "$language" "$name" "$language/$name${subdir:+/$subdir}"
    if [[ -e $corpus/$language/$name/.complete ]]; then log "have   debian $3=$4"; return 1; fi
    log "fetch  debian $3=$4 (and build it for its compile_commands.json)"
}

c_lua() {
    local target=$corpus/c/lua-5.4.4
    c_row c lua-5.4.4 lua5.4 5.4.4-3+deb12u1 || return 0
    debian_source lua5.4 5.4.4-3+deb12u1 "$target"
    (cd "$target/src" && bear --output "$target/compile_commands.json" -- \
        make -j2 posix MYCFLAGS=-O0 >&2)
    rm -rf "$target/doc"
    prune_to_database "$target" "$target/compile_commands.json"
    touch "$target/.complete"
}

c_redis() {
    local target=$corpus/c/redis-7.0.15
    c_row c redis-7.0.15 redis 5:7.0.15-1~deb12u7 src || return 0
    debian_source redis 5:7.0.15-1~deb12u7 "$target"
    rm -rf "$target/deps/jemalloc" "$target/tests"
    (cd "$target" && bear --output "$target/compile_commands.json" -- \
        make -j2 MALLOC=libc BUILD_TLS=no OPTIMIZATION=-O0 >&2)
    rm -rf "$target/utils"
    prune_to_database "$target" "$target/compile_commands.json"
    touch "$target/.complete"
}

c_sqlite() {
    local target=$corpus/c/sqlite-3.40.1
    c_row c sqlite-3.40.1 sqlite3 3.40.1-2+deb12u2 || return 0
    debian_source sqlite3 3.40.1-2+deb12u2 "$target"
    rm -rf "$target/test" "$target/doc" "$target/art" "$target/vsixtest" "$target/autoconf" \
        "$target/www"
    (cd "$target" && ./configure --disable-amalgamation --disable-tcl --disable-readline \
        --disable-load-extension CFLAGS=-O0 >&2 &&
        bear --output "$target/compile_commands.json" -- make -j2 libsqlite3.la >&2)
    prune_to_database "$target" "$target/compile_commands.json"
    touch "$target/.complete"
}

cmake_database() {
    local target=$1; shift
    (cd "$target" && cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >&2)
    cp "$target/build/compile_commands.json" "$target/compile_commands.json"
    prune_to_database "$target" "$target/compile_commands.json"
}

cpp_leveldb() {
    local target=$corpus/cpp/leveldb-1.23
    c_row cpp leveldb-1.23 leveldb 1.23-4 || return 0
    debian_source leveldb 1.23-4 "$target"
    cmake_database "$target" -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF \
        -DLEVELDB_INSTALL=OFF
    rm -rf "$target/doc"
    touch "$target/.complete"
}

cpp_ninja() {
    local target=$corpus/cpp/ninja-1.11.1
    c_row cpp ninja-1.11.1 ninja-build 1.11.1-2~deb12u1 || return 0
    debian_source ninja-build 1.11.1-2~deb12u1 "$target"
    cmake_database "$target" -DBUILD_TESTING=ON
    rm -rf "$target/doc" "$target/misc"
    touch "$target/.complete"
}

# --- The corpus -----------------------------------------------------------------------------

if [[ $set_name == held-out ]]; then
    # Held out: a template engine and a serialisation library; a CLI parser and a WebSocket
    # library; effect (a large code base of heavy generics: pipe, overloads, mapped types); anyhow
    # and semver; fsnotify (a file per platform) and pflag.
    if wants python; then
        pypi jinja2 3.1.4
        pypi marshmallow 3.23.1
    fi
    if wants javascript; then
        npm_package javascript commander@12.1.0 index.js lib
        npm_package javascript ws@8.18.0 index.js lib
    fi
    if wants typescript; then
        npm_package typescript effect@3.10.0 src
        tsconfig effect-3.10.0 effect
    fi
    if wants rust; then crates; fi
    if wants go; then go_sources; fi
elif wants python; then
    pypi requests 2.32.3
    pypi rich 13.9.4
    pypi attrs 24.2.0
    pypi click 8.1.7
    pypi flask 3.1.0
fi

# JavaScript with plain, hand-written sources: CommonJS (express, mocha, postcss) and ES modules
# (handlebars, moment).
if [[ $set_name == benchmark ]] && wants javascript; then
    npm_package javascript express@4.21.1 index.js lib
    npm_package javascript mocha@10.8.2 lib
    npm_package javascript postcss@8.4.49 lib
    npm_package javascript handlebars@4.7.8 lib
    npm_package javascript moment@2.30.1 src/moment.js src/lib
fi

# TypeScript: packages that ship their .ts sources.
if [[ $set_name == benchmark ]] && wants typescript; then
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
fi

if [[ $set_name == benchmark ]] && wants rust; then crates; fi
if [[ $set_name == benchmark ]] && wants go; then go_sources; fi

# C (an interpreter, a server, a database engine) and C++ (a storage library, a build tool).
if [[ $set_name == benchmark ]] && wants c; then
    c_lua
    c_redis
    c_sqlite
fi
if [[ $set_name == benchmark ]] && wants cpp; then
    cpp_leveldb
    cpp_ninja
fi

# The rows of the languages assembled now, after the other languages' rows already listed.
{
    if [[ -n ${ACCURACY_LANGUAGES:-} && -e $projects_file ]]; then
        while IFS= read -r row; do
            wants "${row%%	*}" || printf '%s\n' "$row"
        done <"$projects_file"
    fi
    printf '%s\n' "${projects_list[@]}"
} >"$projects_file.new"
mv "$projects_file.new" "$projects_file"

# --- Figures --------------------------------------------------------------------------------

python3 - "$corpus" "$projects_file" <<'EOF'
import os, sys
root, listing = sys.argv[1], sys.argv[2]
EXTENSIONS = {"python": (".py",), "javascript": (".js", ".mjs", ".cjs"),
              "typescript": (".ts", ".tsx", ".mts", ".cts"), "rust": (".rs",), "go": (".go",),
              "c": (".c", ".h"), "cpp": (".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp")}
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
