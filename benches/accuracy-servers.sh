#!/usr/bin/env bash
# Installs the ground-truth language servers of the accuracy benchmark (benches/accuracy/), each
# from a registry, at pinned versions where the registry allows it:
#
#   pyright                     npm, into DIR/.servers/node_modules
#   typescript-language-server  npm, with typescript (its tsserver), same place
#   gopls                       Debian's package (with golang-go, its `go list`)
#   rust-analyzer               rustup's component of the machine's toolchain
#   clangd-19                   Debian's package (bookworm's `clangd` is 14), for C and C++; with
#                               bear and cmake, which write the C and C++ projects' compilation
#                               databases (benches/accuracy-corpus.sh)
#
#   benches/accuracy-servers.sh [DIR]   DIR as for benches/accuracy-corpus.sh
#
# typescript-language-server stays on 5.x: 6.x needs Node.js 22 and the machine has 20; typescript
# stays on 5.x, whose tsserver it drives. Idempotent. Needs npm, apt-get (as root), rustup.

set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-${CODEGRAPH_ACCURACY_CORPUS:-$repo_root/bench-accuracy}}
mkdir -p "$corpus/.servers"
servers=$(cd "$corpus/.servers" && pwd)

log() { printf '%s\n' "$*" >&2; }

npm_servers=(pyright@1.1.414 typescript-language-server@5.1.3 typescript@5.9.3)
if [[ -x $servers/node_modules/.bin/pyright-langserver && -x $servers/node_modules/.bin/typescript-language-server ]]; then
    log "have   ${npm_servers[*]}"
else
    log "fetch  ${npm_servers[*]}"
    [[ -e $servers/package.json ]] || printf '{"private": true}\n' >"$servers/package.json"
    (cd "$servers" && npm install --silent --no-audit --no-fund --save-exact "${npm_servers[@]}")
fi

if command -v gopls >/dev/null && command -v go >/dev/null; then
    log "have   gopls, go"
else
    log "fetch  gopls golang-go (Debian's packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gopls golang-go >&2
fi

if rust-analyzer --version >/dev/null 2>&1; then
    log "have   rust-analyzer"
else
    log "fetch  rust-analyzer (rustup component)"
    rustup component add rust-analyzer
fi

if command -v clangd-19 >/dev/null && command -v bear >/dev/null && command -v cmake >/dev/null; then
    log "have   clangd-19, bear, cmake"
else
    log "fetch  clangd-19 bear cmake (Debian's packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clangd-19 bear cmake >&2
fi

printf 'pyright                     %s\n' "$("$servers/node_modules/.bin/pyright-langserver" --version 2>/dev/null || jq -r .version "$servers/node_modules/pyright/package.json" 2>/dev/null || echo '?')"
printf 'typescript-language-server  %s (typescript %s)\n' \
    "$("$servers/node_modules/.bin/typescript-language-server" --version)" \
    "$(node -p 'require(process.argv[1]).version' "$servers/node_modules/typescript/package.json")"
printf 'gopls                       %s\n' "$(dpkg-query -W -f '${Version}' gopls 2>/dev/null || gopls version | head -n 1)"
printf 'rust-analyzer               %s\n' "$(rust-analyzer --version)"
printf 'clangd                      %s\n' "$(clangd-19 --version | head -n 1)"
