#!/usr/bin/env node
// Installs the published IXO client SDK into a scratch directory for the
// end-to-end suite test/e2e/ixo-sdk (issue #14): @ixo/oracles-client-sdk
// 1.4.0 with React 18, react-dom 18 and @testing-library/react, isolated from
// the project's React 19 (the suite loads them from the scratch directory).
//
// @ixo/oracles-client-sdk depends on @ixo/oracles-chain-client 2.1.2, whose
// package.json pulls packages the npm registry does not serve
// (@ixo/impactxclient-sdk 3.0.0, …). The SDK's react entry only imports
// @ixo/oracles-chain-client/react, so the chain client is installed from its
// own tarball (npm pack) with its dependencies trimmed to what that entry
// imports, and @ixo/impactxclient-sdk is a small local stand-in
// (scripts/ixo-sdk/stand-ins/impactxclient-sdk) whose names throw when used.
//
// Usage: node scripts/ixo-sdk/install.mjs [--force]
//   IXO_SDK_DIR   scratch directory (default <repo>/.cache/ixo-sdk)
// Idempotent: a complete install (same stamp) is reused without the network.
// Exit codes: 0 ready; 75 the npm registry is unreachable (the suite skips);
// 1 anything else (the suite fails).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXIT_REGISTRY_UNREACHABLE = 75;

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const dir = resolve(process.env.IXO_SDK_DIR ?? join(root, '.cache', 'ixo-sdk'));
const force = process.argv.includes('--force');

const SDK = { name: '@ixo/oracles-client-sdk', version: '1.4.0' };
const CHAIN_CLIENT = { name: '@ixo/oracles-chain-client', version: '2.1.2' };
// What @ixo/oracles-chain-client/react (dist/react/index.js and the modules it
// reaches) imports from other packages; everything else in its package.json is
// for its other entries (matrix bot, credentials, veramo, cosmjs).
const CHAIN_CLIENT_REACT_DEPS = {
  'graphql-request': '7.1.2',
  graphql: '^16.10.0',
  'graphql-tag': '^2.12.6',
  zod: '^4.3.6',
  bs58: '^6.0.0',
  eciesjs: '^0.4.15',
  '@ixo/impactxclient-sdk': '3.0.0', // as published; the scratch project overrides it with the stand-in
};
const SCRATCH_DEPS = {
  [SDK.name]: SDK.version,
  react: '18.3.1',
  'react-dom': '18.3.1',
  '@testing-library/react': '16.3.2',
  '@testing-library/dom': '10.4.1',
  zod: '^4.4.3', // the SDK's peer
};

const log = (line) => process.stderr.write(`ixo-sdk: ${line}\n`);

function npmCommand() {
  // the npm of the Node running this script (node-env.sh may have put another first on PATH)
  const cli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  return existsSync(cli) ? [process.execPath, [cli]] : ['npm', []];
}

function npm(args, cwd, timeoutMs = 600_000) {
  const [cmd, pre] = npmCommand();
  return new Promise((resolvePromise, reject) => {
    execFile(
      cmd,
      [...pre, ...args],
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          npm_config_update_notifier: 'false',
          npm_config_fund: 'false',
          npm_config_audit: 'false',
        },
      },
      (err, stdout, stderr) => {
        if (err) {
          const e = new Error(`npm ${args.join(' ')} failed: ${err.message}\n${stderr}`);
          e.stderr = `${stderr}\n${err.message}`;
          e.timedOut = err.killed === true;
          reject(e);
        } else resolvePromise(stdout);
      },
    );
  });
}

const NETWORK_ERROR =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|socket hang up|network|request to .* failed/i;

function isNetworkError(e) {
  return e.timedOut === true || NETWORK_ERROR.test(String(e.stderr ?? e.message));
}

/** The line of npm's output that says what failed. */
function why(e) {
  const lines = String(e.stderr ?? e.message)
    .split('\n')
    .map((l) => l.replace(/^npm error\s*/, '').trim())
    .filter(Boolean);
  return (
    (e.timedOut ? 'no answer in time' : undefined) ??
    lines.find((l) => NETWORK_ERROR.test(l) && !/proxy/.test(l)) ??
    lines[0] ??
    'unknown error'
  );
}

function stamp() {
  const h = createHash('sha256');
  h.update(JSON.stringify({ SDK, CHAIN_CLIENT, CHAIN_CLIENT_REACT_DEPS, SCRATCH_DEPS }));
  h.update(readFileSync(fileURLToPath(import.meta.url)));
  const standIns = join(here, 'stand-ins');
  for (const pkg of readdirSync(standIns).sort())
    for (const f of readdirSync(join(standIns, pkg)).sort()) h.update(readFileSync(join(standIns, pkg, f)));
  return h.digest('hex');
}

function complete(want) {
  try {
    return (
      readFileSync(join(dir, '.complete'), 'utf8').trim() === want &&
      existsSync(join(dir, 'node_modules', SDK.name, 'package.json')) &&
      existsSync(join(dir, 'node_modules', CHAIN_CLIENT.name, 'dist', 'react', 'index.js'))
    );
  } catch {
    return false;
  }
}

/** `npm pack <spec>` into `dest`; returns the tarball's path. */
async function pack(spec, dest, cwd) {
  const out = await npm(['pack', spec, '--pack-destination', dest, '--json'], cwd);
  const [info] = JSON.parse(out);
  return join(dest, info.filename);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * One installer at a time per scratch directory (vitest runs the suite's
 * files in parallel workers, each calling this script): a lock directory
 * holding the owner's pid, taken over when that process is gone.
 */
async function withLock(fn) {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  for (let waited = false; ; waited = true) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        /* being created */
      }
      if (Number.isInteger(owner) && !alive(owner)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waited) log(`waiting for another install into ${dir}`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function main() {
  const want = stamp();
  if (!force && complete(want)) {
    log(`ready (reused ${dir})`);
    return 0;
  }
  return withLock(() => install(want));
}

async function install(want) {
  // another process may have finished it while this one waited for the lock
  if (!force && complete(want)) {
    log(`ready (installed by another process into ${dir})`);
    return 0;
  }
  const started = Date.now();
  // the registry first: unreachable is the one failure the suite skips on
  try {
    await npm(
      [
        'view',
        `${SDK.name}@${SDK.version}`,
        'version',
        '--fetch-retries=1',
        '--fetch-retry-mintimeout=1000',
        '--fetch-timeout=20000',
      ],
      root,
      60_000,
    );
  } catch (e) {
    if (isNetworkError(e)) {
      log(`the npm registry is unreachable, cannot install ${SDK.name}@${SDK.version} (${why(e)})`);
      return EXIT_REGISTRY_UNREACHABLE;
    }
    throw e;
  }

  rmSync(join(dir, '.complete'), { force: true });
  mkdirSync(dir, { recursive: true });
  // the scratch directory is not the project's: git ignores all of it
  writeFileSync(join(dir, '.gitignore'), '*\n');
  const work = join(dir, 'work');
  const vendor = join(dir, 'vendor');
  rmSync(work, { recursive: true, force: true });
  rmSync(vendor, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  mkdirSync(vendor, { recursive: true });

  // 1. the stand-in, packed so the scratch directory holds no loose sources
  const standIn = await pack(join(here, 'stand-ins', 'impactxclient-sdk'), vendor, work);
  renameSync(standIn, join(vendor, 'impactxclient-sdk-stand-in.tgz'));

  // 2. the chain client's own tarball, its package.json trimmed, repacked
  const original = await pack(`${CHAIN_CLIENT.name}@${CHAIN_CLIENT.version}`, work, work);
  const unpacked = join(work, 'chain-client');
  mkdirSync(unpacked);
  await new Promise((res, rej) =>
    execFile('tar', ['xzf', original, '-C', unpacked, '--strip-components=1'], (err) => (err ? rej(err) : res())),
  );
  const pkgPath = join(unpacked, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  pkg.description = `${CHAIN_CLIENT.name} ${CHAIN_CLIENT.version} with its dependencies trimmed to what its react entry imports (oraclekit scripts/ixo-sdk/install.mjs)`;
  pkg.dependencies = { ...CHAIN_CLIENT_REACT_DEPS };
  delete pkg.devDependencies;
  delete pkg.scripts;
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  const trimmed = await pack(unpacked, vendor, work);
  renameSync(trimmed, join(vendor, 'oracles-chain-client-trimmed.tgz'));

  // 3. the scratch project: the SDK's own dependency on the chain client is overridden with the trimmed tarball
  const scratch = {
    name: 'oraclekit-ixo-sdk-scratch',
    private: true,
    description: 'Scratch install for test/e2e/ixo-sdk (made by scripts/ixo-sdk/install.mjs; not part of the project)',
    type: 'module',
    dependencies: {
      ...SCRATCH_DEPS,
      [CHAIN_CLIENT.name]: 'file:vendor/oracles-chain-client-trimmed.tgz',
      '@ixo/impactxclient-sdk': 'file:vendor/impactxclient-sdk-stand-in.tgz',
    },
    overrides: { [CHAIN_CLIENT.name]: `$${CHAIN_CLIENT.name}`, '@ixo/impactxclient-sdk': '$@ixo/impactxclient-sdk' },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(scratch, null, 2)}\n`);
  rmSync(join(dir, 'package-lock.json'), { force: true });
  try {
    await npm(['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error'], dir);
  } catch (e) {
    if (isNetworkError(e)) {
      log(`the npm registry became unreachable during the install (${why(e)})`);
      return EXIT_REGISTRY_UNREACHABLE;
    }
    throw e;
  }
  rmSync(work, { recursive: true, force: true });
  writeFileSync(join(dir, '.complete'), `${want}\n`);
  log(
    `installed ${SDK.name}@${SDK.version} with React 18 into ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    log(`install failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
