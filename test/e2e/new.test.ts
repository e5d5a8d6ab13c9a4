/**
 * `oraclekit new` and `oraclekit update-oracle-api-url` through the real CLI
 * against a real local daemon (auto-started in a temporary ORACLEKIT_HOME),
 * a loopback Matrix homeserver, and a loopback oracle /health.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { parseDotEnv } from '../../src/lib/project-files.ts';
import { startHomeserver } from '../helpers/matrix-account-server.ts';
import { scaffoldEnv } from '../helpers/scaffold-env.ts';

const home = mkdtempSync(join(tmpdir(), 'ok-new-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-new-work-'));
const env = scaffoldEnv(home, { CI: '', ORACLEKIT_AUTOSTART: '', MATRIX_BOT_PASSWORD: '' });
const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCli(args, { env: { ...env, ...extra }, cwd: work, timeoutMs: 30_000 });
const json = (s: string) => JSON.parse(s);

let first: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const apiKey = () => json(readFileSync(join(home, 'config/settings.json'), 'utf8')).networks.local.apiKey as string;
async function domain(did: string) {
  const r = await fetch(`${first.registry}/v1/domains/${encodeURIComponent(did)}`, {
    headers: { authorization: `Bearer ${apiKey()}` },
  });
  expect(r.status).toBe(200);
  return r.json() as Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
async function domainsNamed(name: string) {
  const r = await fetch(`${first.registry}/v1/domains?type=Oracle&q=${encodeURIComponent(name)}`, {
    headers: { authorization: `Bearer ${apiKey()}` },
  });
  return ((await r.json()) as { items: Record<string, any>[] }).items; // eslint-disable-line @typescript-eslint/no-explicit-any
}

beforeAll(async () => {
  const r = await cli(['new', 'demo', '--yes', '--no-install', '--no-git', '--json']);
  expect(r.code, r.stderr).toBe(0);
  first = json(r.stdout);
});
afterAll(async () => {
  await cli(['daemon', 'stop', '--grace', '1']);
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('oraclekit new --yes on a first run', () => {
  it('creates an identity, an API key and the oracle protocol class, and registers the oracle with #api and #ws', async () => {
    expect(first).toMatchObject({
      project: 'demo',
      dir: join(work, 'demo'),
      network: 'local',
      apiUrl: 'http://localhost:3000',
      wsUrl: 'http://localhost:3000',
      port: 3000,
      apiKeyCreated: true,
      classCreated: true,
      installed: false,
      git: false,
    });
    expect(first.identity).toMatchObject({ method: 'mnemonic', source: 'generated', created: true });
    expect(first.matrix).toMatchObject({ provisioned: false, reason: 'no Matrix homeserver configured' });
    const d = await domain(first.did);
    expect(d).toMatchObject({
      id: first.did,
      type: 'Oracle',
      class: first.class,
      state: 'registered',
      active: true,
      controllers: [first.identity.did],
      metadata: { name: 'demo', price: 0 },
    });
    expect(d.services).toEqual([
      { id: '#api', type: 'oracleService', serviceEndpoint: 'http://localhost:3000' },
      { id: '#ws', type: 'oracleService', serviceEndpoint: 'http://localhost:3000' },
    ]);
    expect(await domain(first.class)).toMatchObject({ type: 'Protocol', alsoKnownAs: 'oraclekit:oracle-protocol:v1' });
  });

  it('writes the project: the DID in oracle.config.json, PORT agreeing with #api, .env 0600 with a signing key', () => {
    const dir = first.dir as string;
    const config = json(readFileSync(join(dir, 'oracle.config.json'), 'utf8'));
    expect(config).toMatchObject({
      name: 'demo',
      oracleDid: first.did,
      price: 0,
      model: 'openai/gpt-4o-mini',
      apiUrl: 'http://localhost:3000',
    });
    const dotenv = readFileSync(join(dir, '.env'), 'utf8');
    expect(parseDotEnv(dotenv).PORT).toBe('3000');
    expect(parseDotEnv(dotenv).SIGNING_MNEMONIC!.split(' ')).toHaveLength(24);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    // the user's own mnemonic is not in the project
    const userMnemonic = json(readFileSync(join(home, 'config/identity.json'), 'utf8')).mnemonic as string;
    for (const f of first.files as string[]) expect(readFileSync(join(dir, f), 'utf8')).not.toContain(userMnemonic);
    // the CLI under test runs from this source checkout (oraclekit is not published yet): the project carries a pack
    // of it and names it by a relative path, which a teammate's clone installs too
    const pkg = readFileSync(join(dir, 'package.json'), 'utf8');
    expect(json(pkg).dependencies.oraclekit).toBe('file:vendor/oraclekit-0.1.0.tgz');
    expect(pkg).not.toContain(ROOT);
    expect(first.files).toContain('vendor/oraclekit-0.1.0.tgz');
    expect(statSync(join(dir, 'vendor/oraclekit-0.1.0.tgz')).size).toBeGreaterThan(100_000);
  });

  it('a second project reuses the identity, the key and the class', async () => {
    const r = await cli([
      'new',
      'second',
      '--yes',
      '--no-install',
      '--no-git',
      '--json',
      '--name',
      'Second Oracle',
      '--description',
      'Weather for farmers',
      '--price',
      '2.5',
      '--model',
      'llama3',
      '--url',
      'http://localhost:3456',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const s = json(r.stdout);
    expect(s).toMatchObject({
      apiKeyCreated: false,
      classCreated: false,
      class: first.class,
      port: 3456,
      identity: { did: first.identity.did, source: 'saved' },
    });
    expect(await domain(s.did)).toMatchObject({
      metadata: { name: 'Second Oracle', description: 'Weather for farmers', price: 2.5, model: 'llama3' },
    });
    expect(parseDotEnv(readFileSync(join(s.dir, '.env'), 'utf8')).PORT).toBe('3456');
  });
});

describe('the oracle key and install', () => {
  it('--oracle-key identity writes your mnemonic (asked for) into .env, 0600; none leaves it blank', async () => {
    const a = await cli(['new', 'mine', '--yes', '--no-install', '--no-git', '--oracle-key', 'identity', '--json']);
    expect(a.code, a.stderr).toBe(0);
    const dir = json(a.stdout).dir as string;
    const userMnemonic = json(readFileSync(join(home, 'config/identity.json'), 'utf8')).mnemonic as string;
    expect(parseDotEnv(readFileSync(join(dir, '.env'), 'utf8')).SIGNING_MNEMONIC).toBe(userMnemonic);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).not.toContain(userMnemonic);
    const b = await cli(['new', 'keyless', '--yes', '--no-install', '--no-git', '--oracle-key', 'none', '--json']);
    expect(parseDotEnv(readFileSync(join(json(b.stdout).dir, '.env'), 'utf8')).SIGNING_MNEMONIC).toBe('');
  });

  it('a failed npm install is a warning: the project stays, complete and registered', async () => {
    // offline: npm fails on the missing tarball at once instead of first fetching the other dependencies (where the
    // registry is slow or unreachable, e.g. without the machine's CA bundle, that took longer than the test's 30 s)
    const r = await cli(
      ['new', 'no-deps', '--yes', '--no-git', '--oraclekit-version', 'file:/nonexistent/oraclekit.tgz', '--json'],
      { npm_config_offline: 'true' },
    );
    expect(r.code, r.stderr).toBe(0);
    const o = json(r.stdout);
    expect(o).toMatchObject({ installed: false });
    expect(o.warnings[0]).toMatch(/npm install failed/);
    expect(existsSync(join(o.dir, 'oracle.config.json'))).toBe(true);
    expect(await domain(o.did)).toMatchObject({ state: 'registered' });
  });
});

describe('refusals', () => {
  it('refuses a non-empty directory unless --force', async () => {
    mkdirSync(join(work, 'busy'));
    writeFileSync(join(work, 'busy/keep.txt'), 'mine');
    const r = await cli(['new', 'busy', '--yes', '--no-install', '--no-git', '--json']);
    expect(r.code).toBe(4);
    expect(json(r.stderr)).toMatchObject({ code: 'directory_not_empty', field: 'force' });
    const f = await cli(['new', 'busy', '--yes', '--no-install', '--no-git', '--force', '--json']);
    expect(f.code, f.stderr).toBe(0);
    expect(readFileSync(join(work, 'busy/keep.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(work, 'busy/oracle.config.json'))).toBe(true);
  });

  it('without a terminal, a missing answer is an error naming its flag', async () => {
    const r = await cli(['new', 'asked', '--no-install', '--no-git', '--json']);
    expect(r.code).toBe(3);
    expect(json(r.stderr)).toMatchObject({ code: 'missing_answer', field: 'network' });
    expect(existsSync(join(work, 'asked'))).toBe(false);
  });

  it('without a terminal, a missing project name names the argument, and an unusable one suggests a usable one', async () => {
    const none = await cli(['new', '--no-install', '--no-git', '--json']);
    expect(none.code).toBe(3);
    expect(json(none.stderr)).toMatchObject({ code: 'missing_answer', field: 'project-name' });
    const bad = await cli(['new', 'Bad Name', '--yes', '--no-install', '--no-git', '--json']);
    expect(bad.code).toBe(3);
    expect(json(bad.stderr)).toMatchObject({
      code: 'invalid_project_name',
      field: 'project-name',
      message: 'project name "Bad Name" is not valid; try bad-name',
    });
    expect(existsSync(join(work, 'Bad Name'))).toBe(false);
  });

  it('a local URL and a different --port disagree', async () => {
    const r = await cli([
      'new',
      'ports',
      '--yes',
      '--no-install',
      '--no-git',
      '--url',
      'http://localhost:3456',
      '--port',
      '3000',
      '--json',
    ]);
    expect(r.code).toBe(3);
    expect(json(r.stderr)).toMatchObject({ code: 'port_mismatch', field: 'port' });
  });

  it('refuses a price the credits ledger cannot keep exactly, naming the flag, the value and what is valid', async () => {
    for (const price of ['0.0000001', '1000000001', '-1', '1e3']) {
      const r = await cli(['new', 'bad-price', '--yes', '--no-install', '--no-git', '--price', price, '--json']);
      expect(r.code, price).toBe(3);
      expect(json(r.stderr)).toMatchObject({
        code: 'invalid_flag',
        field: 'price',
        details: { value: price, valid: 'a number from 0 to 1000000000 with at most 6 decimals (0 = free)' },
      });
    }
    expect(existsSync(join(work, 'bad-price'))).toBe(false);
  });

  it('refuses 0.0.0.0 as the registered URL (an address to bind, not to reach)', async () => {
    for (const url of ['http://0.0.0.0:3000', 'http://[::]:3000']) {
      const r = await cli(['new', 'anywhere', '--yes', '--no-install', '--no-git', '--url', url, '--json']);
      expect(r.code, url).toBe(3);
      expect(json(r.stderr)).toMatchObject({ code: 'invalid_url', field: 'url', details: { value: url } });
      expect(json(r.stderr).message).toContain('not one a client can reach');
    }
    expect(existsSync(join(work, 'anywhere'))).toBe(false);
  });

  it("says that a local URL without a port means port 80, and binds the URL's address (HOST in .env)", async () => {
    const r = await cli(['new', 'port-80', '--yes', '--no-install', '--no-git', '--url', 'http://localhost', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const o = json(r.stdout);
    expect(o).toMatchObject({ apiUrl: 'http://localhost', port: 80 });
    expect(o.warnings).toEqual([expect.stringContaining('--url http://localhost has no port, so it means port 80')]);
    expect(o.warnings[0]).toContain('http://localhost:3000');
    expect(parseDotEnv(readFileSync(join(o.dir, '.env'), 'utf8')).PORT).toBe('80');
    expect(parseDotEnv(readFileSync(join(o.dir, '.env'), 'utf8')).HOST).toBe('127.0.0.1');
    // without --json: a warning line on stderr
    const h = await cli(['new', 'port-80-text', '--yes', '--no-install', '--no-git', '--url', 'http://127.0.0.5']);
    expect(h.code, h.stderr).toBe(0);
    expect(h.stderr).toContain('warning: --url http://127.0.0.5 has no port, so it means port 80');
    expect(parseDotEnv(readFileSync(join(work, 'port-80-text/.env'), 'utf8')).HOST).toBe('127.0.0.5');
    // an explicit :80 is not a surprise
    const e = await cli([
      'new',
      'port-80-explicit',
      '--yes',
      '--no-install',
      '--no-git',
      '--url',
      'http://localhost:80',
      '--json',
    ]);
    expect(json(e.stdout).warnings).toEqual([]);
  });

  it('prints "Next:" with a cd relative to where it ran', async () => {
    mkdirSync(join(work, 'nested'), { recursive: true });
    const r = await cli(['new', 'rel', '--yes', '--no-install', '--no-git', '--dir', 'nested/rel-oracle']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Next:\n {2}cd nested\/rel-oracle\n/);
    expect(r.stdout).not.toContain(`cd ${join(work, 'nested/rel-oracle')}`);
  });

  it('a remote network needs its registry URL; an unreachable one is exit 9', async () => {
    const a = await cli(['new', 'remote', '--yes', '--no-install', '--no-git', '--network', 'devnet', '--json']);
    expect(a.code).toBe(3);
    expect(json(a.stderr)).toMatchObject({ code: 'unknown_network_registry', field: 'registry' });
    const b = await cli([
      'new',
      'remote',
      '--yes',
      '--no-install',
      '--no-git',
      '--network',
      'testnet',
      '--registry',
      'http://127.0.0.1:1',
      '--api-key',
      'k',
      '--json',
    ]);
    expect(b.code).toBe(9);
    expect(json(b.stderr).message).toMatch(/cannot reach the testnet registry at http:\/\/127\.0\.0\.1:1/);
    expect(existsSync(join(work, 'remote'))).toBe(false);
  });

  it('registers on a remote network through --registry and --api-key (a devnet registry that is a daemon)', async () => {
    const r = await cli([
      'new',
      'on-devnet',
      '--yes',
      '--no-install',
      '--no-git',
      '--network',
      'devnet',
      '--registry',
      first.registry,
      '--api-key',
      apiKey(),
      '--class',
      first.class,
      '--url',
      'https://oracle.example.org',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const o = json(r.stdout);
    expect(o).toMatchObject({
      network: 'devnet',
      registry: first.registry,
      apiUrl: 'https://oracle.example.org',
      port: 3000,
    });
    expect(json(readFileSync(join(o.dir, 'oracle.config.json'), 'utf8'))).toMatchObject({
      network: 'devnet',
      registry: first.registry,
    });
    expect(json(readFileSync(join(home, 'config/settings.json'), 'utf8')).networks.devnet).toMatchObject({
      registry: first.registry,
      apiKey: apiKey(),
    });
  });
});

describe('Matrix bot provisioning', () => {
  it('registers the bot on the configured homeserver and stores its credentials in .env', async () => {
    const hs = await startHomeserver();
    try {
      const r = await cli(['new', 'chatty', '--yes', '--no-install', '--no-git', '--json'], {
        MATRIX_BASE_URL: hs.url,
      });
      expect(r.code, r.stderr).toBe(0);
      const o = json(r.stdout);
      expect(o.matrix).toEqual({ provisioned: true, userId: '@oracle-chatty:localhost', created: true });
      const dotenv = readFileSync(join(o.dir, '.env'), 'utf8');
      expect(parseDotEnv(dotenv).MATRIX_BASE_URL).toBe(hs.url);
      expect(parseDotEnv(dotenv).MATRIX_ORACLE_ADMIN_USER_ID).toBe('@oracle-chatty:localhost');
      expect(hs.tokens.get(parseDotEnv(dotenv).MATRIX_ORACLE_ADMIN_ACCESS_TOKEN!)).toBe('@oracle-chatty:localhost');
      expect(hs.users.get('oracle-chatty')!.password).toBe(parseDotEnv(dotenv).MATRIX_ORACLE_ADMIN_PASSWORD);
      expect(parseDotEnv(readFileSync(join(o.dir, '.env.example'), 'utf8')).MATRIX_ORACLE_ADMIN_ACCESS_TOKEN).toBe('');
    } finally {
      await hs.close();
    }
  });

  it('a failure after registration removes the project and deactivates the domain', async () => {
    const r = await cli([
      'new',
      'broken',
      '--yes',
      '--no-install',
      '--no-git',
      '--matrix-homeserver',
      'http://127.0.0.1:1',
      '--json',
    ]);
    expect(r.code).toBe(9);
    expect(existsSync(join(work, 'broken'))).toBe(false);
    const ds = await domainsNamed('broken');
    expect(ds.length).toBe(1);
    expect(ds[0]).toMatchObject({ state: 'deactivated', active: false });
  });

  it('Ctrl+C (SIGINT) mid-run removes the project and deactivates the domain', async () => {
    const hs = await startHomeserver();
    let release!: () => void;
    const released = new Promise<void>((ok) => (release = ok));
    hs.gate = () => released;
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'new', 'interrupted', '--yes', '--no-install', '--no-git', '--matrix-homeserver', hs.url],
        { cwd: work, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      let killed = false;
      const cancelling = new Promise<void>((ok) =>
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          if (!killed && stderr.includes('Registered interrupted')) {
            killed = true;
            child.kill('SIGINT');
          }
          if (stderr.includes('Cancelling')) ok();
        }),
      );
      const closed = new Promise<number>((ok) => child.on('close', (c) => ok(c ?? -1)));
      await cancelling;
      release();
      expect(await closed, stderr).toBe(130);
      expect(existsSync(join(work, 'interrupted'))).toBe(false);
      expect((await domainsNamed('interrupted'))[0], stderr).toMatchObject({ state: 'deactivated' });
    } finally {
      release();
      await hs.close();
    }
  });
});

describe('oraclekit update-oracle-api-url', () => {
  let server: Server;
  let url: string;
  let served = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/health')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'ok', name: 'demo', oracleDid: served, version: '1.0.0' }));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it('checks /health, moves #api and #ws, and updates oracle.config.json and PORT', async () => {
    served = first.did;
    const r = await runCli(['update-oracle-api-url', url, '--json'], { env, cwd: first.dir });
    expect(r.code, r.stderr).toBe(0);
    const port = Number(new URL(url).port);
    expect(json(r.stdout)).toMatchObject({
      did: first.did,
      previous: { apiUrl: 'http://localhost:3000', wsUrl: 'http://localhost:3000' },
      apiUrl: url,
      wsUrl: url,
      checked: true,
      port: { from: '3000', to: port },
    });
    const d = await domain(first.did);
    expect(d.services).toEqual([
      { id: '#api', type: 'oracleService', serviceEndpoint: url },
      { id: '#ws', type: 'oracleService', serviceEndpoint: url },
    ]);
    expect(json(readFileSync(join(first.dir, 'oracle.config.json'), 'utf8'))).toMatchObject({
      apiUrl: url,
      wsUrl: url,
    });
    expect(parseDotEnv(readFileSync(join(first.dir, '.env'), 'utf8')).PORT).toBe(String(port));
  });

  it('keeps every file that names the URL or port in step: .env, README.md, package.json (the chat script reads .env)', async () => {
    const dir = first.dir as string;
    const pkg = () => json(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // the chat script of a new project names no URL or port: `oraclekit chat` in the project reads oracle.config.json
    // and PORT from .env
    expect(pkg().scripts.chat).toBe('oraclekit chat');
    const port = Number(new URL(url).port);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain(url); // moved by the test above
    expect(readme).not.toContain('http://localhost:3000');
    // a project made before: its chat script named the port, its README the URL
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify(
        { ...pkg(), scripts: { ...pkg().scripts, chat: `oraclekit chat --oracle http://localhost:\${PORT:-${port}}` } },
        null,
        2,
      ),
    );
    writeFileSync(join(dir, 'README.md'), `${readme}\noraclekit chat --oracle ${url}\n`);
    const other = await new Promise<Server>((ok) => {
      const s2 = createServer((_req, res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'ok', oracleDid: first.did })),
      );
      s2.listen(0, '127.0.0.1', () => ok(s2));
    });
    try {
      const next = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const r = await runCli(['update-oracle-api-url', next, '--json'], { env, cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const o = json(r.stdout);
      expect(o.updated).toEqual(['oracle.config.json', '.env', 'README.md', 'package.json']);
      const nextPort = new URL(next).port;
      expect(parseDotEnv(readFileSync(join(dir, '.env'), 'utf8')).PORT).toBe(nextPort);
      expect(pkg().scripts.chat).toBe(`oraclekit chat --oracle http://localhost:\${PORT:-${nextPort}}`);
      const after = readFileSync(join(dir, 'README.md'), 'utf8');
      expect(after).not.toContain(url);
      expect(after).toContain(`| API (\`#api\`) | ${next} |`);
      expect(after).toContain(`oraclekit chat --oracle ${next}\n`);
      // the human output says which files it rewrote
      const h = await runCli(['update-oracle-api-url', url], { env: { ...env }, cwd: dir });
      expect(h.code, h.stderr).toBe(0);
      expect(h.stdout).toContain('updated README.md, package.json (they named the old URL or port)');
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).not.toContain(next);
      // a URL on another loopback address: HOST follows it, so the runtime binds where the URL points
      const on5 = await runCli(['update-oracle-api-url', 'http://127.0.0.5:3999', '--no-check', '--json'], {
        env,
        cwd: dir,
      });
      expect(on5.code, on5.stderr).toBe(0);
      expect(parseDotEnv(readFileSync(join(dir, '.env'), 'utf8')).HOST).toBe('127.0.0.5');
      const back = await runCli(['update-oracle-api-url', url, '--json'], { env, cwd: dir });
      expect(back.code, back.stderr).toBe(0);
      expect(parseDotEnv(readFileSync(join(dir, '.env'), 'utf8')).HOST).toBe('127.0.0.1');
    } finally {
      await new Promise<void>((ok) => other.close(() => ok()));
    }
  });

  it('says that a local URL without a port means port 80', async () => {
    const r = await runCli(['update-oracle-api-url', 'http://localhost', '--no-check', '--did', first.did, '--json'], {
      env,
      cwd: work,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout).warnings).toEqual([
      expect.stringContaining('--url http://localhost has no port, so it means port 80'),
    ]);
    const z = await runCli(
      ['update-oracle-api-url', 'http://0.0.0.0:3000', '--no-check', '--did', first.did, '--json'],
      { env, cwd: work },
    );
    expect(z.code).toBe(3);
    expect(json(z.stderr)).toMatchObject({ code: 'invalid_url', field: 'url' });
  });

  it('refuses a URL that does not answer (exit 9) or serves another oracle (exit 4), unless --no-check', async () => {
    const down = await runCli(['update-oracle-api-url', 'http://127.0.0.1:1', '--json'], { env, cwd: first.dir });
    expect(down.code).toBe(9);
    expect(json(down.stderr)).toMatchObject({ code: 'health_check_failed', field: 'url' });
    served = 'did:ixo:entity:ffffffffffffffffffffffffffffffff';
    const other = await runCli(['update-oracle-api-url', url, '--json'], { env, cwd: first.dir });
    expect(other.code).toBe(4);
    expect(json(other.stderr)).toMatchObject({ code: 'oracle_did_mismatch' });
    const forced = await runCli(['update-oracle-api-url', 'https://oracle.example.org', '--no-check', '--json'], {
      env,
      cwd: first.dir,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(json(forced.stdout)).toMatchObject({ apiUrl: 'https://oracle.example.org', checked: false, port: null });
    expect((await domain(first.did)).services[0].serviceEndpoint).toBe('https://oracle.example.org');
  });

  it('takes --did outside a project, and says what is missing without one', async () => {
    const none = await runCli(['update-oracle-api-url', 'http://localhost:3000', '--no-check', '--json'], {
      env,
      cwd: work,
    });
    expect(none.code).toBe(3);
    expect(json(none.stderr)).toMatchObject({ code: 'missing_did', field: 'did' });
    const r = await runCli(
      ['update-oracle-api-url', 'http://localhost:3000', '--no-check', '--did', first.did, '--json'],
      { env, cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ config: null, port: null, apiUrl: 'http://localhost:3000' });
  });
});

// last: it changes the saved identity to a wallet's
describe('oraclekit new --auth qr', () => {
  it('signs in with a wallet (the test plays it) and registers the oracle under the wallet’s DID', async () => {
    const { testWallet } = await import('../helpers/wallet.ts');
    const { parseSignInLink } = await import('../../src/cli/identity/qr.ts');
    const wallet = testWallet();
    const walletDid = wallet.did;
    const child = spawn(
      process.execPath,
      [BIN, 'new', 'by-wallet', '--yes', '--auth', 'qr', '--no-install', '--no-git', '--json'],
      { cwd: work, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const closed = new Promise<number>((ok) => child.on('close', (c) => ok(c ?? -1)));
    const link = await new Promise<string>((ok, ko) => {
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /oraclekit:signin\?\S+/.exec(stderr);
        if (m) ok(m[0]);
      });
      void closed.then(() => ko(new Error(stderr)));
    });
    const req = parseSignInLink(link);
    expect(req.aud).toBe(first.identity.did); // the saved local key is the one the wallet vouches for
    const res = await wallet.approve(req);
    expect(res.status).toBe(200);
    expect(await closed, stderr).toBe(0);
    const o = json(stdout);
    expect(o).toMatchObject({
      identity: { did: walletDid, method: 'qr', source: 'wallet' },
      apiKeyCreated: true,
      classCreated: false,
    });
    expect(await domain(o.did)).toMatchObject({ type: 'Oracle', controllers: [walletDid] });
  });
});
