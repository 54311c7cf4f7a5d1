#!/usr/bin/env bash
# Installs the tokenizer the MCP benchmark counts the tool surface with: gpt-tokenizer (npm,
# pure JavaScript, its o200k_base encoding bundled, so no download at run time), into
# benches/.tokenizer/. Needs node and npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/.tokenizer"
cd "$here/.tokenizer"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --ignore-scripts gpt-tokenizer@3.4.0 >/dev/null
echo "installed gpt-tokenizer into $here/.tokenizer"
