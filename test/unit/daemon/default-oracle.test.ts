/**
 * The default oracle mounted in the daemon's own server (buildServer +
 * mountDefaultOracle, in process, real SQLite file, loopback): its routes
 * answer under /oracle with UCAN auth, socket.io's handshake works at the
 * daemon's /socket.io/, the registry's /v1 and /health are untouched, the
 * runtime's tables live in the daemon's database file, and a turn without a
 * model configured gets the clear `model_not_configured` error.
 */
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { handshake } from '../../helpers/runtime-harness.ts';
import { buildServer } from '../../../src/daemon/server.ts';
import { Registry } from '../../../src/daemon/registry/index.ts';
import { openStorage } from '../../../src/storage/open.ts';
import { REGISTRY_MIGRATIONS } from '../../../src/daemon/registry/migrations.ts';
import { DEFAULT_CONFIG, parseConfig } from '../../../src/daemon/config.ts';
import { loadOracleKey, mountDefaultOracle, type DefaultOracle } from '../../../src/daemon/oracle.ts';
import { generateSigner } from '../../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../../src/lib/ucan/ucan.ts';
import { tempHome } from './harness.ts';

const t = tempHome();
afterAll(() => t.cleanup());

it('parses the oracle section of daemon.json and refuses unknown keys', () => {
  expect(parseConfig({}).oracle).toEqual({ enabled: true, name: 'oraclekit default oracle' });
  expect(parseConfig({ oracle: { model: 'm', features: { weather: false } } }).oracle).toMatchObject({
    enabled: true,
    model: 'm',
    features: { weather: false },
  });
  expect(() => parseConfig({ oracle: { modle: 'm' } })).toThrow(/oracle\.modle is unknown/);
  expect(() => parseConfig({ oracle: { features: { weather: 'no' } } })).toThrow(/oracle\.features/);
});

it('creates the signing key once, 0600, and reads the same one back', async () => {
  const a = await loadOracleKey(t.env);
  expect(a.created).toBe(true);
  expect(statSync(a.path).mode & 0o777).toBe(0o600);
  expect(a.path).toBe(join(t.home, 'config/oracle-key.json'));
  const b = await loadOracleKey(t.env);
  expect(b).toMatchObject({ created: false, did: a.did, mnemonic: a.mnemonic });
});

it("answers under /oracle beside /v1, with socket.io at the daemon's /socket.io/", async () => {
  const db = await openStorage({
    location: join(t.home, 'registry.db'),
    migrations: { registry: REGISTRY_MIGRATIONS },
  });
  const config = { ...DEFAULT_CONFIG, oracle: { ...DEFAULT_CONFIG.oracle } };
  const mounted: { oracle?: DefaultOracle } = {};
  const app = await buildServer({
    registry: new Registry(db, config),
    config,
    version: 'test',
    token: 'admin-token',
    healthExtra: () => (mounted.oracle ? { oracle: mounted.oracle.info() } : {}),
  });
  const lines: string[] = [];
  const key = await loadOracleKey(t.env);
  // no LLM_* at all: the oracle still mounts, a turn says what to set
  const oracle = (mounted.oracle = await mountDefaultOracle(app, {
    database: db,
    config: config.oracle,
    env: {},
    key,
    log: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
  }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  try {
    expect(lines).toContain('[boot] loaded: user-preferences');
    expect(await db.schemaVersion('runtime')).toBeGreaterThanOrEqual(1);
    expect(await (await fetch(`${url}/oracle/health`)).json()).toMatchObject({
      status: 'ok',
      oracleDid: key.did,
      name: 'oraclekit default oracle',
    });
    const health = (await (await fetch(`${url}/health`)).json()) as {
      name: string;
      oracle: { did: string; path: string; model: string | null };
    };
    expect(health).toMatchObject({ name: 'oraclekit', oracle: { did: key.did, path: '/oracle', model: null } });
    expect((await fetch(`${url}/admin/v1/keys`, { headers: { authorization: 'Bearer admin-token' } })).status).toBe(
      200,
    );
    expect(((await (await fetch(`${url}/v1/domains`)).json()) as { code: string }).code).not.toMatch(/ucan|signing/); // the registry's own auth, not the runtime's
    expect((await fetch(`${url}/oracle/sessions`)).status).toBe(401);
    expect(((await (await fetch(`${url}/docs/json`)).json()) as { openapi: string }).openapi).toBe('3.1.0');

    while (!(await fetch(`${url}/oracle/ready`)).ok) await new Promise((r) => setTimeout(r, 10));
    const user = await generateSigner();
    const auth = async () => ({
      authorization: `Bearer ${await mintInvocation({ issuer: user, audience: key.did })}`,
      'x-auth-type': 'ucan',
      'content-type': 'application/json',
    });
    const created = await fetch(`${url}/oracle/sessions`, { method: 'POST', headers: await auth(), body: '{}' });
    expect(created.status).toBe(201);
    const { sessionId } = (await created.json()) as { sessionId: string };

    const invocation = await mintInvocation({ issuer: user, audience: key.did });
    const signed = await handshake(url, sessionId, { invocation });
    if (signed.ok) signed.socket.close();
    expect(signed).toMatchObject({ ok: true });
    const unsigned = await handshake(url, sessionId, {});
    if (unsigned.ok) unsigned.socket.close();
    expect(unsigned).toMatchObject({ ok: false });

    const turn = await fetch(`${url}/oracle/messages/${sessionId}`, {
      method: 'POST',
      headers: await auth(),
      body: JSON.stringify({ message: 'hi' }),
    });
    const body = (await turn.json()) as { code: string; message: string };
    expect(body.code).toBe('model_not_configured');
    expect(body.message).toContain("LLM_MODEL in the daemon's environment");
  } finally {
    oracle.quiesce();
    await app.close();
    await oracle.close();
    await db.close();
  }
});
