#!/usr/bin/env bash
# Assembles the benchmark corpus: real, hand-written source code (Python, JavaScript, TypeScript,
# TSX, Rust, plus some Java, C and C++) from package registries only — PyPI via `pip download`,
# the npm registry via `npm pack`, crates.io via `cargo vendor`. No other hosts, no git clones.
#
#   benches/corpus.sh [DIR]        DIR defaults to $CODEGRAPH_BENCH_CORPUS, then <repo>/bench-corpus
#   benches/corpus.sh --kernel [DIR]
#                                  the Linux kernel 6.12 (Debian's linux-source-6.12, fetched with
#                                  `apt-get download`; about 35 M lines of C, 1.5 GB unpacked) for
#                                  the growth series of benches/index.rs; DIR defaults to
#                                  $CODEGRAPH_BENCH_KERNEL, then <repo>/bench-kernel
#
# Every package version is pinned (crates transitively, through benches/corpus-crates.lock).
# Idempotent: a package whose directory holds a `.complete` marker is skipped, so a re-run only
# fetches what is missing. Downloads and scratch space live under DIR/.cache (hidden: the
# benchmark walk skips hidden entries).
#
# Files the benchmark should not see are deleted after extraction: minified or generated files
# (any line longer than 1000 bytes, names ending in .min.js) and TypeScript declaration files
# (.d.ts, .d.mts, .d.cts). At the end the script prints files and lines per language and checks
# that the corpus holds at least 1,000,000 lines of source.
#
# Needs: bash, tar, python3 with pip, npm, cargo.

set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The Linux kernel: Debian's source package, as the kernel's own tree (`linux-source-6.12` ships
# `/usr/src/linux-source-6.12.tar.xz`). Debian's packaging appends `/*` and `!/debian/` to the
# top-level .gitignore, which would ignore the whole tree; upstream has neither, so they go.
if [[ ${1:-} == --kernel ]]; then
    kernel=${2:-${CODEGRAPH_BENCH_KERNEL:-$repo_root/bench-kernel}}
    if [[ -e $kernel/.complete ]]; then printf 'have   %s\n' "$kernel" >&2; exit 0; fi
    mkdir -p "$kernel/.cache"
    kernel=$(cd "$kernel" && pwd)
    package=linux-source-6.12
    (cd "$kernel/.cache" && { compgen -G "${package}_*.deb" >/dev/null || apt-get download "$package"; })
    deb=$(compgen -G "$kernel/.cache/${package}_*.deb" | head -n 1)
    printf 'fetch  %s\n' "$(basename "$deb")" >&2
    scratch=$kernel/.cache/unpacked
    rm -rf "$scratch" && mkdir -p "$scratch"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$scratch" "./usr/src/$package.tar.xz"
    find "$kernel" -mindepth 1 -maxdepth 1 ! -name .cache -exec rm -rf {} +
    tar -xJf "$scratch/usr/src/$package.tar.xz" -C "$kernel" --strip-components=1
    rm -rf "$scratch"
    sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$kernel/.gitignore"
    touch "$kernel/.complete"
    printf '%s: %s files\n' "$kernel" "$(find "$kernel" -name '*.[ch]' -not -path '*/.cache/*' | wc -l)" >&2
    exit 0
fi
corpus=${1:-${CODEGRAPH_BENCH_CORPUS:-$repo_root/bench-corpus}}
cache=$corpus/.cache
crates_lock=$repo_root/benches/corpus-crates.lock
min_lines=1000000

mkdir -p "$corpus" "$cache"
corpus=$(cd "$corpus" && pwd)
cache=$corpus/.cache

log() { printf '%s\n' "$*" >&2; }

# Deletes, under $1, files the benchmark should not parse: declarations, minified and generated
# files (see the header).
prune() {
    find "$1" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.min.js' \) -delete
    python3 - "$1" <<'EOF'
import os, sys
EXTENSIONS = {"py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "mts", "cts", "tsx", "rs", "go", "java",
              "c", "h", "cpp", "cc", "cxx", "hpp", "hh", "hxx", "c++", "h++", "cs", "rb", "rake",
              "php", "kt", "kts", "swift", "scala", "sc", "lua", "sh", "bash"}
for directory, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.rsplit(".", 1)[-1].lower() not in EXTENSIONS:
            continue
        path = os.path.join(directory, name)
        with open(path, "rb") as file:
            if any(len(line) > 1000 for line in file):
                os.remove(path)
EOF
}

# pypi NAME VERSION: the source distribution, whole (library, tests, docs' code).
pypi() {
    local name=$1 version=$2
    local target=$corpus/pypi/$name-$version
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
    prune "$target"
    touch "$target/.complete"
}

# npm SPEC [SUBPATH...]: the package tarball, reduced to SUBPATHs (its hand-written sources, not
# the compiled dist/ output) when given.
npm_package() {
    local spec=$1; shift
    local dir_name=${spec#@}; dir_name=${dir_name//\//-}; dir_name=${dir_name/@/-}
    local target=$corpus/npm/$dir_name
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
    prune "$target"
    touch "$target/.complete"
}

# Rust: a throwaway project depending on well-known crates; `cargo vendor` fetches them and their
# dependencies at the versions in benches/corpus-crates.lock, and the crates named in
# `crates_keep` are kept (not the platform bindings such as windows-sys, which are generated).
# An entry `name@major` keeps only that major version (the lock holds two major versions of syn).
crates_manifest='[package]
name = "codegraph-bench-corpus"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
tokio = { version = "=1.41.1", features = ["full"] }
serde = { version = "=1.0.215", features = ["derive"] }
serde_json = "=1.0.133"
syn = { version = "=2.0.89", features = ["full", "visit", "visit-mut", "fold"] }
regex = "=1.11.1"
clap = { version = "=4.5.21", features = ["derive"] }
rayon = "=1.10.0"
chrono = "=0.4.38"
nom = "=7.1.3"
itertools = "=0.13.0"
futures = "=0.3.31"
'
crates_keep=(tokio tokio-macros serde serde_derive serde_json syn@2 proc-macro2 quote regex
    regex-automata regex-syntax aho-corasick memchr clap clap_builder clap_derive clap_lex rayon
    rayon-core crossbeam-deque crossbeam-epoch crossbeam-utils chrono nom itertools futures
    futures-core futures-util futures-channel futures-executor bytes mio)

crates() {
    local target=$corpus/crates
    if [[ -e $target/.complete ]]; then log "have   crates"; return; fi
    log "fetch  crates"
    local project=$cache/crates-project
    rm -rf "$project" && mkdir -p "$project/src"
    printf '%s' "$crates_manifest" >"$project/Cargo.toml"
    printf 'fn main() {}\n' >"$project/src/main.rs"
    # A workspace of its own, so that cargo does not look for one above the corpus directory.
    printf '\n[workspace]\n' >>"$project/Cargo.toml"
    local locked=()
    if [[ -e $crates_lock ]]; then
        cp "$crates_lock" "$project/Cargo.lock"
        locked=(--locked)
    fi
    local vendor=$cache/crates-vendor
    (cd "$project" && cargo vendor --quiet "${locked[@]}" --versioned-dirs "$vendor" >/dev/null)
    if [[ ! -e $crates_lock ]]; then
        cp "$project/Cargo.lock" "$crates_lock"
        log "wrote  $crates_lock (commit it to pin the crate versions)"
    fi
    rm -rf "$target" && mkdir -p "$target"
    local name dir pattern
    for name in "${crates_keep[@]}"; do
        if [[ $name == *@* ]]; then pattern="${name%@*}-${name#*@}.*"; else pattern="$name-[0-9]*"; fi
        for dir in "$vendor"/$pattern; do
            [[ -d $dir ]] && cp -r "$dir" "$target/"
        done
    done
    rm -rf "$vendor"
    prune "$target"
    touch "$target/.complete"
}

# --- The corpus -----------------------------------------------------------------------------

# Python: Django (library and its test suite); JPype (Python, Java, C, C++).
pypi Django 5.1.4
pypi JPype1 1.5.1

# JavaScript: three.js (library and examples), lodash (modular build, hand-written).
npm_package three@0.170.0 src examples
npm_package lodash@4.17.21
# TypeScript: Effect and RxJS ship their TypeScript sources in src/.
npm_package effect@3.10.15 src
npm_package rxjs@7.8.1 src
# TSX: Blueprint's React components ship their sources in src/.
npm_package @blueprintjs/core@5.16.0 src
npm_package @blueprintjs/table@5.3.8 src

# Rust.
crates

# --- Figures --------------------------------------------------------------------------------

python3 - "$corpus" "$min_lines" <<'EOF'
import collections, os, sys
root, min_lines = sys.argv[1], int(sys.argv[2])
LANGUAGES = {
    "python": "py pyi", "javascript": "js jsx mjs cjs", "typescript": "ts mts cts", "tsx": "tsx",
    "rust": "rs", "go": "go", "java": "java", "c": "c h",
    "cpp": "cpp cc cxx hpp hh hxx c++ h++", "csharp": "cs", "ruby": "rb rake", "php": "php",
    "kotlin": "kt kts", "swift": "swift", "scala": "scala sc", "lua": "lua", "bash": "sh bash",
}
by_extension = {ext: lang for lang, exts in LANGUAGES.items() for ext in exts.split()}
files, lines, size = collections.Counter(), collections.Counter(), collections.Counter()
for directory, dirs, names in os.walk(root):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for name in names:
        if name.startswith("."):
            continue
        lang = by_extension.get(name.rsplit(".", 1)[-1].lower()) if "." in name else None
        if lang is None:
            continue
        with open(os.path.join(directory, name), "rb") as file:
            data = file.read()
        files[lang] += 1
        size[lang] += len(data)
        lines[lang] += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
print(f"{'language':<12} {'files':>8} {'lines':>10} {'MiB':>8}")
for lang in sorted(lines, key=lambda lang: -lines[lang]):
    print(f"{lang:<12} {files[lang]:>8} {lines[lang]:>10} {size[lang] / 2**20:>8.1f}")
total = sum(lines.values())
print(f"{'total':<12} {sum(files.values()):>8} {total:>10} {sum(size.values()) / 2**20:>8.1f}")
if total < min_lines:
    sys.exit(f"corpus has {total} lines of source, fewer than {min_lines}")
EOF
