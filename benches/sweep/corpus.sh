#!/usr/bin/env bash
# Downloads the crash sweep's corpus: the sources of the packages pinned in
# benches/sweep/packages.txt (PyPI sdists, npm tarballs, crates, Debian 12 source packages), one
# directory per package, SOURCE/NAME-VERSION, under DIR.
#
#   benches/sweep/corpus.sh [-j JOBS] [DIR]
#       DIR   defaults to $CODEGRAPH_SWEEP_CORPUS, then /work/sweep-corpus (keep it outside the
#             repository: a few GB)
#       JOBS  parallel downloads (default 4)
#
# Resumable: a package whose directory holds a `.complete` marker (hidden, so the index never
# sees it) is skipped. Tolerant: a package that cannot be fetched is logged in DIR/.log/failed.txt
# (with the reason in DIR/.log/SOURCE-NAME.log) and the others go on; the list has slack.
# Files the index never reads are pruned when over 16 KiB (data, documentation, images), to keep
# the corpus small; minified and generated sources stay, on purpose.
#
# Debian packages need a deb-src entry for bookworm: when apt has none and we are root, the
# script writes /etc/apt/sources.list.d/sweep-deb-src.sources (the URIs of the deb entries but
# the security archive's, whose sources are not served here) and runs `apt-get update`. The
# pinned versions are those of the bookworm and bookworm-updates suites. Needs: bash, curl, tar, unzip, python3, npm, apt-get, dpkg-source.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jobs=4
if [[ ${1:-} == -j ]]; then jobs=$2; shift 2; fi
corpus=${1:-${CODEGRAPH_SWEEP_CORPUS:-/work/sweep-corpus}}
list=${SWEEP_PACKAGES:-$here/packages.txt}
mkdir -p "$corpus/.log" "$corpus/.tmp"
corpus=$(cd "$corpus" && pwd)
export corpus

log() { printf '%s\n' "$*" >&2; }

# --- deb-src -------------------------------------------------------------------------------

# shellcheck source=benches/support/deb-src.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/deb-src.sh"

# --- one package ---------------------------------------------------------------------------

# Only what the index reads matters, so other files over 16 KiB go (data, documentation,
# images, archives): source files stay whatever their size, and so do every .json and .toml
# (manifests, tsconfig), go.mod and go.work, and ignore files.
prune() {
    python3 - "$1" <<'EOF'
import os, sys
SOURCE = {"py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "mts", "cts", "tsx", "rs", "go", "java",
          "c", "h", "cpp", "cc", "cxx", "hpp", "hh", "hxx", "c++", "h++", "cs", "rb", "rake",
          "php", "kt", "kts", "swift", "scala", "sc", "lua", "sh", "bash", "json", "toml"}
KEEP = {"go.mod", "go.work", ".gitignore", ".ignore"}
for directory, _, names in os.walk(sys.argv[1]):
    for name in names:
        path = os.path.join(directory, name)
        if os.path.islink(path) or name in KEEP or name.rsplit(".", 1)[-1].lower() in SOURCE:
            continue
        try:
            if os.path.getsize(path) > 16 << 10:
                os.remove(path)
        except OSError:
            pass
EOF
}

# Unpacks archive $1 into the empty directory $2, dropping the archive's single top directory.
unpack() {
    local archive=$1 target=$2 scratch
    scratch=$(mktemp -d "$corpus/.tmp/unpack.XXXXXX")
    case $archive in
        *.zip | *.whl) unzip -q "$archive" -d "$scratch" ;;
        *) tar -xf "$archive" -C "$scratch" --no-same-owner ;;
    esac || { rm -rf "$scratch"; return 1; }
    local entries=("$scratch"/* "$scratch"/.[!.]*)
    local present=()
    for entry in "${entries[@]}"; do [[ -e $entry || -L $entry ]] && present+=("$entry"); done
    if [[ ${#present[@]} == 1 && -d ${present[0]} && ! -L ${present[0]} ]]; then
        mv "${present[0]}" "$target"
    else
        mkdir -p "$target" && mv "${present[@]}" "$target/"
    fi
    rm -rf "$scratch"
    chmod -R u+rwX "$target"
}

fetch_pypi() { # NAME VERSION TARGET WORK
    local name=$1 version=$2 target=$3 work=$4
    curl -sSfL --retry 3 -o "$work/meta.json" "https://pypi.org/pypi/$name/json" || return 1
    local line
    line=$(python3 - "$work/meta.json" "$version" "$name" <<'EOF'
import json, sys
from urllib.parse import urljoin
releases = json.load(open(sys.argv[1]))["releases"]
if sys.argv[2] not in releases:
    sys.exit(f"no version {sys.argv[2]}")
urls = [u for u in releases[sys.argv[2]] if u["packagetype"] == "sdist"]
if not urls:
    sys.exit("no sdist")
# The index may give the file's address relative to the metadata's.
url = urljoin(f"https://pypi.org/pypi/{sys.argv[3]}/json", urls[0]["url"])
print(url, urls[0]["digests"]["sha256"], urls[0]["filename"])
EOF
) || return 1
    local url sha filename
    read -r url sha filename <<<"$line"
    curl -sSfL --retry 3 -o "$work/$filename" "$url" || return 1
    echo "$sha  $work/$filename" | sha256sum -c --quiet - || return 1
    unpack "$work/$filename" "$target"
}

fetch_npm() {
    local name=$1 version=$2 target=$3 work=$4 packed
    packed=$(cd "$work" && npm pack --silent "$name@$version" 2>>"$work/npm.err" | tail -n 1) || return 1
    [[ -n $packed && -e $work/$packed ]] || return 1
    unpack "$work/$packed" "$target"
}

fetch_crates() {
    local name=$1 version=$2 target=$3 work=$4
    curl -sSfL --retry 3 -o "$work/$name-$version.crate" \
        "https://static.crates.io/crates/$name/$name-$version.crate" || return 1
    mv "$work/$name-$version.crate" "$work/$name-$version.tar.gz"
    unpack "$work/$name-$version.tar.gz" "$target"
}

fetch_debian() {
    local name=$1 version=$2 target=$3 work=$4
    (cd "$work" && apt-get source --download-only -qq "$name=$version") || return 1
    local dsc
    dsc=$(compgen -G "$work/*.dsc" | head -n 1)
    [[ -n $dsc ]] || return 1
    dpkg-source --no-check -x "$dsc" "$work/src" >/dev/null || return 1
    mv "$work/src" "$target"
    chmod -R u+rwX "$target"
}

# fetch SOURCE NAME VERSION: one package, into $corpus/SOURCE/NAME-VERSION.
fetch() {
    local source=$1 name=$2 version=$3
    local dir_name=${name#@}
    dir_name=${dir_name//\//__}-${version//:/_}
    local target=$corpus/$source/$dir_name
    [[ -e $target/.complete ]] && return 0
    local tag=$source-${dir_name}
    local work
    work=$(mktemp -d "$corpus/.tmp/$tag.XXXXXX")
    rm -rf "$target"
    mkdir -p "$corpus/$source"
    if "fetch_$source" "$name" "$version" "$target" "$work" >"$corpus/.log/$tag.log" 2>&1; then
        prune "$target"
        touch "$target/.complete"
        rm -f "$corpus/.log/$tag.log"
        printf 'fetched %s %s %s\n' "$source" "$name" "$version" >&2
    else
        rm -rf "$target"
        printf '%s %s %s\n' "$source" "$name" "$version" >>"$corpus/.log/failed.txt"
        printf 'FAILED  %s %s %s (see %s)\n' "$source" "$name" "$version" "$corpus/.log/$tag.log" >&2
    fi
    rm -rf "$work"
}
export -f fetch fetch_pypi fetch_npm fetch_crates fetch_debian unpack prune

# --- the corpus ----------------------------------------------------------------------------

if grep -q '^debian ' "$list"; then ensure_deb_src; fi
rm -f "$corpus/.log/failed.txt"
grep -v '^\s*\(#\|$\)' "$list" | awk '{print $1, $2, $3}' |
    xargs -P "$jobs" -L 1 bash -c 'fetch "$0" "$1" "$2"'
rm -rf "$corpus/.tmp"

# --- figures -------------------------------------------------------------------------------

python3 "$here/figures.py" "$corpus" "$list"
