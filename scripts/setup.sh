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
with_progress "installing dependencies (npm $install, about a minute)" "installed dependencies" npm "$install" --no-audit --no-fund
with_progress "building (TypeScript, about a minute)" "built" npm run build
bash scripts/system-deps.sh
echo
echo "setup: done. A first design (8,000 households, mean 3.1 h/day, SD 1.7, 10 % dropout):"
echo "\$ ./bin/run.js sample calc --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1"
./bin/run.js sample calc --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1
