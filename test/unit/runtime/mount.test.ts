import { afterAll, expect, it } from 'vitest';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handshake } from '../../helpers/runtime-harness.ts';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { generateMnemonic, generateSigner } from '../../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../../src/lib/ucan/ucan.ts';
import { openStorage } from '../../../src/storage/open.ts';
import { RUNTIME_MIGRATIONS } from '../../../src/runtime/migrations.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-mount-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("mounts onto a host's fastify and database, with its own routes, auth and socket.io", async () => {
  const host = Fastify();
  host.get('/health', async () => ({ host: true }));
  const db = await openStorage({
    location: join(dir, 'daemon.db'),
    migrations: { registry: [{ version: 1, description: 'x', sql: 'CREATE TABLE registry_x (a TEXT)' }] },
  });
  const lines: string[] = [];
  const oracle = createOracle({
    config: { name: 'Default oracle', model: 'm' },
    database: db,
    signingMnemonic: generateMnemonic(),
    env: {},
    logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
  });
  await host.register(oracle.plugin, { rootRoutes: false, cors: false });
  await host.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(host.server.address() as { port: number }).port}`;
  try {
    for (let i = 0; i < 200 && !oracle.runtime.signingKeyLoaded; i++) await new Promise((r) => setTimeout(r, 5));
    expect(lines[0]).toBe('runtime v1.0.0');
    expect(await db.schemaVersion('runtime')).toBe(RUNTIME_MIGRATIONS.at(-1)!.version);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ host: true });
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect((await fetch(`${url}/sessions`)).status).toBe(401);
    const user = await generateSigner();
    const oracleDid = oracle.runtime.oracleDid;
    const res = await fetch(`${url}/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
        'x-auth-type': 'ucan',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(res.status).toBe(201);
    const { sessionId } = (await res.json()) as { sessionId: string };
    const invocation = await mintInvocation({ issuer: user, audience: oracleDid });
    const hs = await handshake(url, sessionId, { invocation });
    if (hs.ok) hs.socket.close();
    expect(hs).toMatchObject({ ok: true });
  } finally {
    // the host's close closes the oracle (its onClose); closing it again is a no-op
    await host.close();
    await oracle.close();
    await db.close();
  }
});

it('registers under a prefix with its public routes still public', async () => {
  const host = Fastify();
  const oracle = createOracle({
    config: { name: 'P' },
    dbPath: join(dir, 'p.db'),
    env: {},
    logger: { info: () => {}, error: () => {} },
    signingMnemonic: '',
  });
  await host.register(oracle.plugin, { prefix: '/oracle' });
  const h = await host.inject({ method: 'GET', url: '/oracle/health' });
  expect(h.statusCode).toBe(200);
  const s = await host.inject({ method: 'GET', url: '/oracle/sessions' });
  expect(s.statusCode).toBe(401);
  expect(s.json()).toMatchObject({ code: 'signing_key_missing' });
  await host.close();
});
