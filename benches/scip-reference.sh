#!/usr/bin/env bash
# The outside check of `codegraph scip`: index DIR with scip-typescript (Sourcegraph's SCIP
# indexer for TypeScript and JavaScript, from npm, pinned) and compare codegraph's index with it.
#
#   benches/scip-reference.sh DIR        # DIR holds a tsconfig.json or package.json
#
# Prints what benches/scip.rs prints with CODEGRAPH_SCIP_REFERENCE: the definitions both have,
# precision and recall of codegraph's references against scip-typescript's, and the differences.
# Needs node 18+ and npm.
set -euo pipefail
dir=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
tools=${CODEGRAPH_SCIP_TOOLS:-$PWD/target/scip-reference}
mkdir -p "$tools"
if [[ ! -x $tools/node_modules/.bin/scip-typescript ]]; then
    (cd "$tools" && npm install --no-audit --no-fund --loglevel=error \
        @sourcegraph/scip-typescript@0.4.0 typescript@5.9.3)
fi
reference=$(mktemp --suffix=.scip)
trap 'rm -f "$reference"' EXIT
(cd "$dir" && "$tools/node_modules/.bin/scip-typescript" index --infer-tsconfig --output "$reference" >&2)
CODEGRAPH_SCIP_REFERENCE=$reference cargo bench --bench scip -- "$dir"
