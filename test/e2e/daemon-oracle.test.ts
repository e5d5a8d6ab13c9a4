/**
 * The daemon's default oracle through the real CLI (dist/): `daemon start`
 * with LLM_BASE_URL at the scripted model server, then `oraclekit chat`
 * piped with no --oracle and no oracle.config.json in its cwd streams the
 * scripted answer; `daemon status --json` reports the oracle; a second chat
 * reuses the saved identity; the registry API still works beside it; under
 * CI=true without a daemon the chat says how to start it (exit 9). On both
 * backends: the daemon's SQLite file, and a PostgreSQL database
 * (ORACLEKIT_DATABASE_URL) that holds the registry and the oracle's tables.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { rawRequest, SOCKET_IO_UPGRADE } from '../helpers/raw-http.ts';
import { say, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempHome } from '../unit/daemon/harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';

const json = (s: string) => JSON.parse(s);

describe.each(BACKENDS)("the daemon's default oracle on %s", (backend) => {
  const databases = backendDatabases(backend);
  const t = tempHome();
  const cwd = mkdtempSync(join(tmpdir(), 'oraclekit-noproject-'));
  let model: ScriptedModelServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    const url = databases.fresh('daemon_oracle');
    // the chat's own environment carries no model settings: the daemon's does
    env = {
      ...t.env,
      LLM_BASE_URL: '',
      LLM_PROVIDER_API_KEY: '',
      LLM_MODEL: '',
      ORACLE_DB_PATH: '',
      ...(url ? { ORACLEKIT_DATABASE_URL: url } : {}),
    };
  });
  afterAll(async () => {
    await runCli(['daemon', 'stop', '--grace', '2'], { env: t.env });
    await model?.close();
    t.cleanup();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('under CI=true with no daemon running, the chat says how to start it (exit 9)', async () => {
    const r = await runCli(['chat'], { input: 'hi\n', env: { ...env, CI: 'true' }, cwd });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('[no_oracle]');
    expect(r.stderr).toContain('oraclekit daemon start');
    expect(r.stderr).toContain('--oracle');
  });

  it('daemon start hosts it: status --json reports its DID, URL and plugins; its key is saved 0600', async () => {
    const start = await runCli(['daemon', 'start', '--json'], {
      env: { ...env, LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'sk-test-secret', LLM_MODEL: 'scripted-model' },
    });
    expect(start.code, start.stderr).toBe(0);
    const st = await runCli(['daemon', 'status', '--json'], { env });
    expect(st.code).toBe(0);
    const s = json(st.stdout);
    expect(s.oracle).toMatchObject({
      url: `${s.url}/oracle`,
      name: 'oraclekit default oracle',
      model: 'scripted-model',
    });
    expect(s.oracle.did).toMatch(/^did:key:z6Mk/);
    expect(s.oracle.plugins.loaded).toEqual(expect.arrayContaining(['user-preferences', 'weather']));
    const key = join(t.home, 'config/oracle-key.json');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(json(readFileSync(key, 'utf8')).did).toBe(s.oracle.did);
    const d = json(readFileSync(join(t.home, 'state/daemon.json'), 'utf8'));
    expect(d.oracle).toEqual({ url: `${s.url}/oracle`, wsUrl: s.url, did: s.oracle.did });
    const text = await runCli(['daemon', 'status'], { env });
    expect(text.stdout).toContain(
      `oracle: oraclekit default oracle ${s.oracle.did} at ${s.url}/oracle, model scripted-model`,
    );
    // neither the mnemonic nor the model key reaches the log
    const log = readFileSync(join(t.home, 'state/daemon.log'), 'utf8');
    expect(log).toContain('[boot] loaded: user-preferences');
    expect(log).not.toContain(json(readFileSync(key, 'utf8')).mnemonic);
    expect(log).not.toContain('sk-test-secret');
  });

  it('answers 421 to a rebound host name (DNS rebinding) on its routes, the oracle and the socket.io upgrade', async () => {
    const s = json((await runCli(['daemon', 'status', '--json'], { env })).stdout) as { url: string };
    const port = new URL(s.url).port;
    for (const path of ['/health', '/v1/designs', '/oracle/sessions', '/oracle/messages/x']) {
      const r = await rawRequest(s.url + path, { host: `rebound.example:${port}` });
      expect([r.status, JSON.parse(r.body).code], path).toEqual([421, 'misdirected_host']);
    }
    const up = await rawRequest(s.url + SOCKET_IO_UPGRADE, { host: `rebound.example:${port}`, upgrade: true });
    expect(up.status).toBe(421);
    expect((await rawRequest(`${s.url}/health`, { host: `localhost:${port}` })).status).toBe(200);
  });

  it('chat with no --oracle and no oracle.config.json streams the answer; a second run reuses the identity', async () => {
    model.enqueue(say('Hello from the daemon.'));
    const r = await runCli(['chat'], { input: 'hello?\n', env, cwd });
    expect(r.stdout, r.stderr).toBe('Hello from the daemon.\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Created your identity did:key:z6Mk');
    // the model got the oracle's system prompt and the user's message, with the daemon's key
    const req = model.requests.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer sk-test-secret');
    expect(JSON.stringify(req.body.messages)).toContain('hello?');
    const did = json(readFileSync(join(t.home, 'config/identity.json'), 'utf8')).did as string;

    model.enqueue(say('Again.'));
    const r2 = await runCli(['--chat'], { input: '/sessions\nonce more\n', env, cwd });
    expect(r2.stderr).not.toContain('Created your identity');
    expect(r2.stderr).toMatch(/1 session:/);
    expect(r2.stdout).toBe('Again.\n');
    expect(json(readFileSync(join(t.home, 'config/identity.json'), 'utf8')).did).toBe(did);
  });

  it('the registry API still works beside it', async () => {
    const d = json(readFileSync(join(t.home, 'state/daemon.json'), 'utf8'));
    const ok = await fetch(`${d.url}/v1/domains?limit=1`);
    expect(ok.status).not.toBe(404);
    const keys = await runCli(['daemon', 'keys', 'list', '--json'], { env });
    expect(keys.code, keys.stderr).toBe(0);
    const docs = await fetch(`${d.url}/docs/json`);
    expect(docs.status).toBe(200);
    expect(Object.keys(((await docs.json()) as { paths: object }).paths)).toContain('/v1/sampling');
    const h = (await (await fetch(`${d.url}/oracle/health`)).json()) as { oracleDid: string };
    expect(h.oracleDid).toBe(d.oracle.did);
  });

  it('daemon stop closes the oracle too', async () => {
    const d = json(readFileSync(join(t.home, 'state/daemon.json'), 'utf8'));
    const stop = await runCli(['daemon', 'stop', '--json'], { env });
    expect(stop.code, stop.stderr).toBe(0);
    expect(json(stop.stdout)).toMatchObject({ stopped: true, forced: false });
    await expect(fetch(`${d.url}/oracle/health`)).rejects.toThrow();
    expect(readFileSync(join(t.home, 'state/daemon.log'), 'utf8')).toContain('"msg":"stopped"');
  });

  it("a chat with no daemon running starts it (with the model settings of the chat's environment) and uses its oracle", async () => {
    model.enqueue(say('Auto-started.'));
    const r = await runCli(['chat'], {
      input: 'hi\n',
      env: { ...env, LLM_BASE_URL: model.baseURL, LLM_MODEL: 'scripted-model' },
      cwd,
    });
    expect(r.stdout, r.stderr).toBe('Auto-started.\n');
    expect(r.stderr).toMatch(/Started the local daemon; its default oracle is at http:\/\/127\.0\.0\.1:\d+\/oracle/);
    const st = json((await runCli(['daemon', 'status', '--json'], { env })).stdout);
    expect(st.oracle.model).toBe('scripted-model');
  });
});
