#!/usr/bin/env bash
# Assembles the corpus of the test-selection benchmark (benches/affected/run.py): real projects
# with their own test suites, each a git repository of one commit (so that `git diff HEAD` is
# exactly a mutant), with what its suite needs installed, so that the suite then runs offline.
#
#   benches/affected-corpus.sh [DIR]   DIR defaults to $CODEGRAPH_AFFECTED_CORPUS, then
#                                      <repo>/bench-affected
#
# Sources come from package registries only: PyPI sdists (`pip download`), an npm tarball
# (`npm pack`), crates.io (`cargo vendor`), a Debian golang-*-dev package (its Go sources under
# /usr/share/gocode/src). Every version is pinned, and so is every tool the suites run with.
#
#   python      cachetools 5.5.0, click 8.1.7, itsdangerous 2.2.0, more-itertools 10.5.0,
#               toolz 1.0.0 (sdists, with their tests/); each gets a venv DIR/.venvs/NAME with
#               pytest 8.3.5, pytest-testmon 2.1.3, coverage 7.6.10 and the suite's own test
#               dependencies, and a .pth file that puts the project's import root (src/ or the
#               root) on sys.path: the sources are tested where they lie, nothing is built
#   rust        semver 1.0.23 (no dev-dependencies; `cargo fetch` once, then --offline);
#               its target directory is DIR/.targets/semver, outside the repository
#   go          github.com/dustin/go-humanize 1.0.0 (Debian's 1.0.0-3; the standard library
#               only, so no module download; a go.mod is written, Go is Debian's golang-go)
#   typescript  zod 3.25.76, its src/v3 with its 58 vitest files (src/v3/tests/*.test.ts; the
#               language-server test is left out: it type-checks with ts-morph for minutes);
#               vitest 3.2.4 installed with `npm install`, a vitest.config.ts that maps `zod/v3`
#               to src/v3/index.ts (the package's own `@zod/source` export) and a tsconfig.json
#               whose `paths` say the same for the tools that read it
#   tools       typescript 5.6.3 in DIR/.tools, with which the benchmark lists TypeScript functions
#
# Idempotent: a project whose directory holds `.complete` is skipped (delete the directory to
# build it again). DIR/projects.tsv lists every project: name, language, version, directory
# (relative to DIR), import root (Python). Downloads live under DIR/.cache.
#
# Needs: bash, tar, git, python3 with pip and venv, npm, cargo, apt-get (as root, for Go and the
# Go sources).

set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-${CODEGRAPH_AFFECTED_CORPUS:-$repo_root/bench-affected}}
mkdir -p "$corpus"
corpus=$(cd "$corpus" && pwd)
cache=$corpus/.cache
mkdir -p "$cache" "$corpus/.venvs" "$corpus/.targets"
rows=()

log() { printf '%s\n' "$*" >&2; }

# The tools every Python suite runs with.
python_tools=(pytest==8.3.5 pytest-testmon==2.1.3 coverage==7.6.10)

# What a project's repository leaves out: build products and the tools' state. (codegraph reads
# none of these either way; git must not see them as the mutant.)
write_gitignore() {
    cat >"$1/.gitignore" <<'EOF'
__pycache__/
*.pyc
.pytest_cache/
.testmondata*
node_modules/
target/
.codegraph/
*.egg-info/
.complete
EOF
}

# commit_once DIR: DIR as a git repository of one commit, its files as fetched.
commit_once() {
    local dir=$1
    rm -rf "$dir/.git"
    git -C "$dir" init --quiet
    git -C "$dir" add -A
    git -C "$dir" -c user.name=bench -c user.email=bench@localhost \
        commit --quiet --no-gpg-sign -m "as fetched"
}

# python NAME VERSION IMPORT_ROOT TEST_DEPENDENCY...: the sdist, whole, and its venv.
python_project() {
    local name=$1 version=$2 import_root=$3; shift 3
    local target=$corpus/$name
    rows+=("$name	python	$version	$name	$import_root")
    if [[ -e $target/.complete ]]; then log "have   $name $version"; return; fi
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
    # A stale cache some sdists ship.
    find "$target" -name .pytest_cache -type d -prune -exec rm -rf {} +
    write_gitignore "$target"
    commit_once "$target"
    local venv=$corpus/.venvs/$name
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${python_tools[@]}" "$@"
    local site
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    if [[ $import_root == . ]]; then
        printf '%s\n' "$target" >"$site/bench-affected.pth"
    else
        printf '%s\n' "$target/$import_root" >"$site/bench-affected.pth"
    fi
    log "check  $name: its suite passes"
    (cd "$target" && "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:randomly >/dev/null)
    touch "$target/.complete"
}

# Rust: semver from crates.io through a throwaway project's `cargo vendor`.
rust_project() {
    local name=semver version=1.0.23
    local target=$corpus/$name
    rows+=("$name	rust	$version	$name	")
    if [[ -e $target/.complete ]]; then log "have   $name $version"; return; fi
    log "fetch  crates.io $name $version"
    local scratch=$cache/crates-project
    rm -rf "$scratch" && mkdir -p "$scratch/src"
    printf '[package]\nname = "scratch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s = "=%s"\n\n[workspace]\n' \
        "$name" "$version" >"$scratch/Cargo.toml"
    printf 'fn main() {}\n' >"$scratch/src/main.rs"
    local vendor=$cache/crates-vendor
    rm -rf "$vendor"
    (cd "$scratch" && cargo vendor --quiet --versioned-dirs "$vendor" >/dev/null)
    rm -rf "$target"
    cp -r "$vendor/$name-$version" "$target"
    rm -rf "$vendor"
    rm -f "$target/.cargo-checksum.json"
    grep -q '^\[workspace\]' "$target/Cargo.toml" || printf '\n[workspace]\n' >>"$target/Cargo.toml"
    (cd "$target" && cargo generate-lockfile --quiet && cargo fetch --quiet)
    write_gitignore "$target"
    commit_once "$target"
    log "check  $name: its suite passes"
    (cd "$target" && CARGO_TARGET_DIR=$corpus/.targets/$name cargo test --offline --quiet --lib --tests >/dev/null 2>&1)
    touch "$target/.complete"
}

# Go: go-humanize from Debian's package, as a module of its own.
go_project() {
    local name=go-humanize version=1.0.0 package=golang-github-dustin-go-humanize-dev=1.0.0-3
    local target=$corpus/$name
    rows+=("$name	go	$version	$name	")
    if [[ -e $target/.complete ]]; then log "have   $name $version"; return; fi
    log "fetch  debian $package and golang-go"
    if ! command -v go >/dev/null || ! dpkg -s golang-github-dustin-go-humanize-dev >/dev/null 2>&1; then
        [[ $(id -u) == 0 ]] || { log "need root to apt-get install golang-go $package"; exit 1; }
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            golang-go "$package" >/dev/null
    fi
    rm -rf "$target"
    cp -rL /usr/share/gocode/src/github.com/dustin/go-humanize "$target"
    [[ -e $target/go.mod ]] || printf 'module github.com/dustin/go-humanize\n\ngo 1.19\n' >"$target/go.mod"
    write_gitignore "$target"
    commit_once "$target"
    log "check  $name: its suite passes"
    (cd "$target" && GOPROXY=off GOFLAGS=-mod=mod go test ./... >/dev/null)
    touch "$target/.complete"
}

# TypeScript: zod's v3 sources and tests from its npm tarball, run with vitest.
typescript_project() {
    local name=zod version=3.25.76
    local target=$corpus/$name
    rows+=("$name	typescript	$version	$name	")
    if [[ -e $target/.complete ]]; then log "have   $name $version"; return; fi
    log "fetch  npm $name@$version"
    local downloads=$cache/npm
    mkdir -p "$downloads"
    local tarball=$downloads/$name-$version.tgz
    if [[ ! -e $tarball ]]; then
        (cd "$downloads" && npm pack --silent "$name@$version" >/dev/null)
    fi
    rm -rf "$target" && mkdir -p "$target"
    tar -xzf "$tarball" -C "$target" --strip-components=1 package/src/v3 package/LICENSE
    rm -rf "$target/src/v3/benchmarks" "$target/src/v3/tests/language-server.test.ts" \
        "$target/src/v3/tests/language-server.source.ts"
    cat >"$target/package.json" <<EOF
{
  "name": "zod",
  "version": "$version",
  "private": true,
  "type": "module",
  "scripts": {"test": "vitest run"},
  "devDependencies": {"vitest": "3.2.4", "@standard-schema/spec": "1.0.0"}
}
EOF
    cat >"$target/vitest.config.ts" <<'EOF'
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// zod's own tests import the package by name; its `@zod/source` export is src/v3/index.ts.
export default defineConfig({
  resolve: { alias: { "zod/v3": fileURLToPath(new URL("./src/v3/index.ts", import.meta.url)) } },
  test: { include: ["src/**/*.test.ts"] },
});
EOF
    cat >"$target/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "es2020", "module": "esnext", "moduleResolution": "bundler", "strict": true,
    "noEmit": true, "skipLibCheck": true, "baseUrl": ".",
    "paths": {"zod/v3": ["./src/v3/index.ts"]}
  },
  "include": ["src/**/*.ts", "vitest.config.ts"]
}
EOF
    (cd "$target" && npm install --silent --no-audit --no-fund >/dev/null)
    write_gitignore "$target"
    commit_once "$target"
    log "check  $name: its suite passes"
    (cd "$target" && npx --no-install vitest run --no-isolate --pool=threads >/dev/null 2>&1)
    touch "$target/.complete"
}

# The TypeScript compiler, only to list a TypeScript project's functions (ts_functions.cjs).
tools() {
    if [[ -e $corpus/.tools/.complete ]]; then log "have   tools"; return; fi
    log "fetch  npm typescript@5.6.3 (the benchmark's function lister)"
    mkdir -p "$corpus/.tools"
    printf '{"private": true}\n' >"$corpus/.tools/package.json"
    (cd "$corpus/.tools" && npm install --silent --no-audit --no-fund --save-exact typescript@5.6.3 >/dev/null)
    touch "$corpus/.tools/.complete"
}

tools
python_project cachetools 5.5.0 src
python_project click 8.1.7 src
python_project itsdangerous 2.2.0 src freezegun==1.5.1
python_project more-itertools 10.5.0 .
python_project toolz 1.0.0 .
rust_project
go_project
typescript_project

{
    printf '# name\tlanguage\tversion\tdirectory\timport root\n'
    printf '%s\n' "${rows[@]}"
} >"$corpus/projects.tsv"
log "corpus ready: $corpus/projects.tsv"
