#!/usr/bin/env bash
# One command on a fresh machine: Node >= 24.15 (from the npm registry when the
# system Node is older), dependencies, build, then a first `sample calc`. Each slow
# step says so and how long it took (scripts/progress.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
source scripts/progress.sh
echo "setup: using Node $(node --version) at $(command -v node)"
if [ -f package-lock.json ]; then install=ci; else install=install; fi
# --prefer-offline: what npm's cache holds is used without asking the registry whether it changed (the lock file pins
# every version and its integrity), so a second setup on the same machine installs from the cache alone
with_progress "installing dependencies (npm $install, about a minute)" "installed dependencies" npm "$install" --prefer-offline --no-audit --no-fund
# compiled without type-checking (the same JavaScript in about half the time); `npm run typecheck`, the lint and the
# tests check the types, and `npm run build` (what is packed) compiles with them
with_progress "building (TypeScript, under a minute)" "built" npm run build -- --no-check
bash scripts/system-deps.sh
echo
echo "setup: done. A first design (8,000 households, mean 3.1 h/day, SD 1.7, 10 % dropout):"
echo "\$ ./bin/run.js sample calc --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1"
./bin/run.js sample calc --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1
