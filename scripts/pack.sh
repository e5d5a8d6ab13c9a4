#!/usr/bin/env bash
# Writes the tarballs a user installs, one per package of this repository (the
# CLI and runtime, and each workspace package), into a folder (default packs/),
# from a fresh build. Prints one line per tarball: "<package name> <path>".
#   bash scripts/pack.sh [dest-dir]        (npm run pack -- [dest-dir])
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
dest="$(mkdir -p "${1:-packs}" && cd "${1:-packs}" && pwd)"
[ "${PACK_SKIP_BUILD:-}" = 1 ] || npm run --silent build >&2
npm pack --workspaces --include-workspace-root --pack-destination "$dest" --json 2>/dev/null |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const p of JSON.parse(s))console.log(p.name+" "+process.argv[1]+"/"+p.filename)})' "$dest"
