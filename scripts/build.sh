#!/usr/bin/env bash
# The build: the CLI and runtime (dist/), each workspace package's dist/, then oclif's command manifest.
#   bash scripts/build.sh              (npm run build) type-checks as it compiles: what is packed and published
#   bash scripts/build.sh --no-check   compiles without type-checking (tsc --noCheck: the same JavaScript, in about
#                                      half the time): scripts/setup.sh, whose checkout then type-checks with
#                                      `npm run typecheck` and the tests
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
check=()
[ "${1:-}" = --no-check ] && check=(--noCheck)
tsc -p tsconfig.build.json "${check[@]}"
tsc -p src/client/tsconfig.json "${check[@]}"
tsc -p src/calls/tsconfig.json "${check[@]}"
oclif manifest >/dev/null
