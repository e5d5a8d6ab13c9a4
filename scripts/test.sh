#!/usr/bin/env bash
# The whole test suite: lint, typecheck, build, unit and end-to-end tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
echo "== lint"; npm run --silent lint
echo "== build"; npm run --silent build
echo "== typecheck"; npm run --silent typecheck   # after build: bench/chat.ts imports the built TUI
echo "== tests"; npx vitest run "$@"
