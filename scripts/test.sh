#!/usr/bin/env bash
# The whole test suite: lint, typecheck, build, unit and end-to-end tests on Node 24, then the Node 22 pass: the
# paths users take (test/node22/vitest.config.ts: the CLI installed from its tarball, a scaffold, the client in
# Chromium) on Node 22.22.2, the oldest Node users may run, fetched from the npm registry into .tools/node22.
#   bash scripts/test.sh              everything
#   bash scripts/test.sh <files…>     those test files (vitest's filters), on Node 24 only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
echo "== lint"; npm run --silent lint
echo "== build"; npm run --silent build
echo "== typecheck"; npm run --silent typecheck   # after build: bench/chat.ts imports the built TUI
echo "== tests"; npx vitest run "$@"
if [ $# -eq 0 ]; then
  (
    ORACLEKIT_NODE_LINE=22 source scripts/node-env.sh
    echo "== tests on Node $(node --version): the paths users take"
    npx vitest run --config test/node22/vitest.config.ts
  )
fi
