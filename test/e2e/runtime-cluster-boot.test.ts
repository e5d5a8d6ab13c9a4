/**
 * How an instance joins the others (docs/scaling.md): without ORACLE_REDIS_URL
 * a runtime loads nothing of Redis (the daemon's idle RSS); with it, Redis and
 * socket.io's adapter are loaded and connected before the oracle serves; a
 * bad URL or a Redis that is not there is a boot error that says what to do.
 * Nor does a runtime load the calls' voice-activity model (sherpa-onnx) at boot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createOracleApp } from '../../src/runtime/app.ts';
import { BootError } from '../../src/runtime/boot.ts';
import { generateMnemonic, signerFromMnemonic } from '../../src/lib/keys/keys.ts';
import { freePort } from '../helpers/loopback.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';

const root = join(import.meta.dirname, '..', '..');

let redis: RedisServer;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'oraclekit-cluster-boot-'));
});
afterAll(async () => {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Boots createOracleApp of dist/ in a child that records every module it resolves; resolves with those URLs once it
 * serves.
 */
async function modulesOfAnInstance(env: Record<string, string>): Promise<string[]> {
  const trace = join(dir, `imports-${Math.random().toString(36).slice(2)}.txt`);
  const script = `
    const { createOracleApp } = await import(process.env.T_ENTRY);
    const app = createOracleApp({ config: { name: 'Boot Oracle' }, dbPath: process.env.T_DB, logger: { info() {}, error() {} } });
    await app.listen(0, '127.0.0.1');
    await app.close();
    process.stdout.write('served\\n');
  `;
  const child = spawn(
    process.execPath,
    ['--import', join(root, 'test/helpers/trace-imports.mjs'), '--input-type=module', '-e', script],
    {
      env: {
        PATH: process.env.PATH,
        TRACE_IMPORTS_FILE: trace,
        T_ENTRY: pathToFileURL(join(root, 'dist', 'index.js')).href,
        T_DB: join(dir, `o-${Math.random().toString(36).slice(2)}.db`),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d.toString()));
  child.stderr.on('data', (d) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  // the oracle's own log (pino's JSON lines: the server listening) goes to stdout too; the script's word is the rest
  const said = out
    .split('\n')
    .filter((l) => !l.startsWith('{'))
    .join('\n');
  expect({ code, out: said, err }).toMatchObject({ code: 0, out: 'served\n' });
  return readFileSync(trace, 'utf8').trim().split('\n');
}

const REDIS_MODULES = [
  /\/node_modules\/redis\//,
  /\/node_modules\/@redis\//,
  /\/node_modules\/@socket\.io\/redis-adapter\//,
  /\/dist\/runtime\/cluster\//,
];

describe("the calls' voice-activity model", () => {
  it('is not loaded when a runtime boots (a call loads it when its agent starts listening)', async () => {
    const booted = await modulesOfAnInstance({});
    // the calls plugin (the workspace package @oraclekit/calls) and its voice are loaded, so a static import of the
    // model would show here
    expect(booted.some((u) => u.endsWith('/src/calls/dist/voice.js'))).toBe(true);
    expect(booted.filter((u) => /onnxruntime|sherpa|silero/.test(u))).toEqual([]);
  });
});

describe('joining the instances of an oracle', () => {
  it('without ORACLE_REDIS_URL a runtime loads nothing of Redis; with it, it does (so the check can see them)', async () => {
    const alone = await modulesOfAnInstance({});
    for (const re of REDIS_MODULES) expect(alone.filter((u) => re.test(u))).toEqual([]);
    const joined = await modulesOfAnInstance({ ORACLE_REDIS_URL: redis.url });
    for (const re of REDIS_MODULES) expect(joined.some((u) => re.test(u))).toBe(true);
  });

  it('an ORACLE_REDIS_URL that is not a redis URL is a boot error naming it, its value and what is valid', () => {
    expect(() =>
      createOracleApp({
        config: { name: 'x' },
        dbPath: ':memory:',
        logger: { info() {}, error() {} },
        env: { ORACLE_REDIS_URL: 'http://cache:6379' },
      }),
    ).toThrow(
      /^\[boot-error\] Runtime env validation failed for 'ORACLE_REDIS_URL' = "http:\/\/cache:6379": .+\. Set 'ORACLE_REDIS_URL' to a redis:\/\/ or rediss:\/\/ URL shared by every instance/,
    );
    expect(() =>
      createOracleApp({
        config: { name: 'x' },
        dbPath: ':memory:',
        logger: { info() {}, error() {} },
        env: { ORACLE_INSTANCE_LEASE_MS: '10' },
      }),
    ).toThrow(/'ORACLE_INSTANCE_LEASE_MS' = "10": .+ an integer from 1000 to 600000/);
  });

  it('a Redis that is not there fails the boot (listen) with what to do, its password not shown', async () => {
    const port = await freePort();
    const mnemonic = generateMnemonic();
    const app = createOracleApp({
      config: { name: 'x', oracleDid: (await signerFromMnemonic(mnemonic)).did() },
      dbPath: join(dir, 'down.db'),
      logger: { info() {}, error() {} },
      env: { ORACLE_REDIS_URL: `redis://:s3cret@127.0.0.1:${port}` },
    });
    const err = await app.listen(0, '127.0.0.1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BootError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^\\[boot-error\\] ORACLE_REDIS_URL: Redis at redis://…@127\\.0\\.0\\.1:${port} is unreachable \\(.+\\)\\. Start Redis, or set 'ORACLE_REDIS_URL' to the Redis every instance of this oracle shares, or unset it for one instance$`,
      ),
    );
    expect((err as Error).message).not.toContain('s3cret');
    await app.close();
  });
});
