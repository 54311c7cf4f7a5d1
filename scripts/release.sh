#!/usr/bin/env bash
# Builds the release artifacts, reproducibly, into OUT (default target/dist):
#
#   codegraph-<version>-<target triple>.tar.gz   the stripped release binaries (codegraph and
#                                                codegraph-relay, what an attached
#                                                `codegraph mcp` becomes), with the README, the
#                                                changelog and the licenses
#   codegraph-<platform>-<version>.vsix          the VS Code extension with those binaries in bin/
#                                                (platform: linux-x64)
#   codegraph-<version>.vsix                     the VS Code extension without a binary (it uses
#                                                codegraph.server.path or PATH)
#   SHA256SUMS                                   sha256sum of the three
#
#   scripts/release.sh [OUT]
#
# Reproducible: the same commit and toolchain give byte-identical artifacts.
# - The binary is built with `--locked` in a target directory of its own
#   ($CODEGRAPH_DIST_TARGET_DIR, default target/dist-build), with the clone's path and cargo's
#   home remapped out of it (rustc --remap-path-prefix, the C compiler's -ffile-prefix-map:
#   panic messages and the grammars' assertions name /codegraph/... and /cargo/...). Its own
#   target directory keeps these flags from rebuilding the one `cargo build` uses.
# - Timestamps in the archives are the last commit's (SOURCE_DATE_EPOCH, which vsce honours
#   too), entries are sorted, owners are 0.
# - The extension is packaged from a copy of its tracked files with its locked production
#   dependencies (`npm ci --omit=dev`), compiled afresh with the extension's pinned TypeScript.
#
# Only the host's platform is built (the release machine has no other Rust target installed).
# Needs: cargo, npm (node 20+), tar, gzip, sha256sum, git.
set -euo pipefail

repository=$(cd "$(dirname "$0")/.." && pwd)
cd "$repository"
out=$(mkdir -p "${1:-target/dist}" && cd "${1:-target/dist}" && pwd)
target_dir=${CODEGRAPH_DIST_TARGET_DIR:-$repository/target/dist-build}
cargo_home=${CARGO_HOME:-$HOME/.cargo}

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
triple=$(rustc -vV | sed -n 's/^host: //p')
case "$triple" in
    x86_64-unknown-linux-gnu) platform=linux-x64 ;;
    aarch64-unknown-linux-gnu) platform=linux-arm64 ;;
    x86_64-apple-darwin) platform=darwin-x64 ;;
    aarch64-apple-darwin) platform=darwin-arm64 ;;
    *) echo "release.sh: no VS Code platform for $triple" >&2; exit 1 ;;
esac
source_date_epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export TZ=UTC LC_ALL=C

echo "release.sh: codegraph $version for $triple ($platform), timestamps $source_date_epoch, into $out"

# 1. The binary.
remap="--remap-path-prefix=$repository=/codegraph --remap-path-prefix=$cargo_home=/cargo"
prefix_map="-ffile-prefix-map=$repository=/codegraph -ffile-prefix-map=$cargo_home=/cargo"
started=$(date +%s)
# Without SOURCE_DATE_EPOCH: the grammars' build scripts (cc) would compile again whenever it
# changes, that is at every commit, and their archives are deterministic without it.
env -u SOURCE_DATE_EPOCH RUSTFLAGS="$remap" CFLAGS="$prefix_map" CXXFLAGS="$prefix_map" \
    cargo build --release --locked --bin codegraph --bin codegraph-relay --target-dir "$target_dir"
echo "release.sh: binary built in $(( $(date +%s) - started )) s"
binary=$target_dir/release/codegraph
relay=$target_dir/release/codegraph-relay
for built in "$binary" "$relay"; do
    if readelf -S "$built" 2>/dev/null | grep -q '\.symtab'; then
        echo "release.sh: $built has a symbol table; the release profile should strip it" >&2
        exit 1
    fi
    if grep -q -a -F "$cargo_home/registry" "$built"; then
        echo "release.sh: $built still names $cargo_home/registry" >&2
        exit 1
    fi
done
"$binary" --version

export SOURCE_DATE_EPOCH=$source_date_epoch
stage=$(mktemp -d "${TMPDIR:-/tmp}/codegraph-release.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# A directory tree as a reproducible archive: sorted entries, fixed times and owners.
reproducible_tar() {
    local archive=$1 directory=$2 name=$3
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
        --mode='u+rwX,go+rX,go-w' --format=gnu -C "$directory" -cf - "$name" | gzip -n -9 > "$archive"
}

# 2. The binary's archive.
name=codegraph-$version-$triple
mkdir -p "$stage/$name"
install -m 755 "$binary" "$stage/$name/codegraph"
install -m 755 "$relay" "$stage/$name/codegraph-relay"
install -m 644 README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE "$stage/$name/"
reproducible_tar "$out/$name.tar.gz" "$stage" "$name"

# 3. The VS Code packages, from the extension's tracked files.
extension=$repository/editors/vscode
if [ ! -x "$extension/node_modules/.bin/vsce" ] || [ ! -x "$extension/node_modules/.bin/tsc" ]; then
    (cd "$extension" && npm ci --no-audit --no-fund)
fi
# Compiled once, from the tracked sources, into a fresh directory (no stale output).
"$extension/node_modules/.bin/tsc" -p "$extension" --outDir "$stage/compiled"
package_extension() {
    local directory=$1 output=$2
    shift 2
    mkdir -p "$directory"
    (cd "$extension" && git ls-files -z) | (cd "$extension" && xargs -0 cp --parents -t "$directory")
    cp LICENSE-MIT LICENSE-APACHE "$directory/"
    cp -r "$stage/compiled" "$directory/out"
    (cd "$directory" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
    (cd "$directory" && "$extension/node_modules/.bin/vsce" package --skip-license "$@" --out "$output")
}
package_extension "$stage/vscode-generic" "$out/codegraph-$version.vsix"
mkdir -p "$stage/vscode-$platform/bin"
install -m 755 "$binary" "$stage/vscode-$platform/bin/codegraph"
install -m 755 "$relay" "$stage/vscode-$platform/bin/codegraph-relay"
package_extension "$stage/vscode-$platform" "$out/codegraph-$platform-$version.vsix" --target "$platform"

# 4. Checksums.
(cd "$out" && sha256sum "$name.tar.gz" "codegraph-$platform-$version.vsix" "codegraph-$version.vsix" > SHA256SUMS)
cat "$out/SHA256SUMS"
