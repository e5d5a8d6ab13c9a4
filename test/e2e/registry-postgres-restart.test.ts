/**
 * The registry while PostgreSQL goes away under a running
 * daemon process (dist/daemon/main.js on ORACLEKIT_DATABASE_URL).
 * - While the server is down, every request that needs the database gets
 *   503 `database_unavailable` with the one error body and X-Request-Id, a
 *   message naming what is down and never the password; `/health` still
 *   answers 200 (the CLI's liveness handshake) and says the database is
 *   unavailable; `/health/ready` answers 503.
 * - The daemon does not exit, and serves again by itself once the server is
 *   back (the pool reconnects): nothing to restart.
 * - Writers kept running through the outage: every write acknowledged (201
 *   or 200) is in the database afterwards; every other reply is a 503.
 * Both a clean stop (pg_ctl -m fast) and a crash (SIGKILL of the
 * postmaster, recovery at start) are run. Skipped only when the PostgreSQL
 * binaries are missing and CI is unset. And a server not there at start:
 * the daemon exits 1 naming it (never the password).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, spawnDaemon, tempHome, waitExit, type Spawned } from '../unit/daemon/harness.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { PostgresStorage } from '../../src/storage/postgres.ts';
import { freePort } from '../helpers/loopback.ts';

const PASSWORD = 'hunter2-never-shown';

describe.skipIf(!postgresAvailable())('the registry while PostgreSQL restarts', () => {
  let pg: PostgresServer;
  let url: string;
  let d: Spawned;
  let rep: string;
  let proto: string;
  const cleanups: (() => void)[] = [];
  let stderr = '';

  beforeAll(async () => {
    pg = await startPostgres();
    // trust auth on the loopback: the password is never asked for, but it is in the setting the daemon sees
    url = pg.createDatabase('restarts').replace('postgres@', `postgres:${PASSWORD}@`);
    const t = tempHome({ oracle: { enabled: false }, rateLimit: { max: 1_000_000 } });
    cleanups.push(t.cleanup);
    d = await spawnDaemon({ ...t.env, ORACLEKIT_DATABASE_URL: url }, t.home);
    d.child.stderr!.on('data', (x: string) => (stderr += x));
    rep = await adminKey(d, 'did:example:rep', 'representative', 'member');
    proto = (await d.call('POST', '/v1/domains', { key: rep, body: { type: 'Protocol' } })).body.id;
  }, 180_000);

  afterEach(() => {
    // a daemon that died: say how, rather than only "fetch failed"
    if (d && d.child.exitCode !== null)
      throw new Error(`the daemon exited (${d.child.exitCode ?? d.child.signalCode}): ${stderr}`);
  });

  afterAll(async () => {
    if (d) {
      d.child.kill('SIGTERM');
      await waitExit(d.child);
    }
    await pg?.stop();
    for (const c of cleanups) c();
  });

  /** Writers through the outage: what each reply was, and the ids acknowledged. */
  function writers(n: number) {
    const acked = { domains: [] as string[], designs: [] as string[] };
    const statuses = new Map<string, number>();
    const others: unknown[] = [];
    let stop = false;
    const run = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const r =
          i % 2 === 0
            ? await d.call('POST', '/v1/domains', {
                key: rep,
                body: { type: 'Project', class: proto, metadata: { name: `w${w}-${i}` } },
              })
            : await d.call('POST', '/v1/sampling', {
                key: rep,
                body: {
                  projectId: proto,
                  population: 1000 + w * 1000 + i,
                  expectedMean: 2,
                  expectedSD: 1,
                  dropoutRate: 0.1,
                },
              });
        const tag = `${r.status} ${r.body?.code ?? ''}`.trim();
        statuses.set(tag, (statuses.get(tag) ?? 0) + 1);
        if (r.status === 201)
          (i % 2 === 0 ? acked.domains : acked.designs).push(i % 2 === 0 ? r.body.id : r.body.designId);
        else if (r.status !== 503 || r.body?.code !== 'database_unavailable') others.push([r.status, r.body]);
        if (r.status === 503) await new Promise((res) => setTimeout(res, 20)); // as a client that backs off would
      }
    };
    const all = Array.from({ length: n }, (_, w) => run(w));
    return { acked, statuses, others, stop: async () => ((stop = true), await Promise.all(all)) };
  }

  async function until503(): Promise<void> {
    // the pool notices the server is gone at its next statement
    for (let i = 0; i < 400; i++) {
      const r = await d.call('GET', '/v1/domains?limit=1', { key: rep });
      if (r.status === 503) return;
      await new Promise((res) => setTimeout(res, 25));
    }
    throw new Error('the daemon never answered 503 while PostgreSQL was down');
  }

  async function untilServing(): Promise<number> {
    // reconnects by itself: a client retrying finds it serving again, without restarting the daemon
    for (let i = 0; i < 600; i++) {
      const r = await d.call('GET', '/v1/domains?limit=1', { key: rep });
      if (r.status === 200) return i;
      expect([r.status, r.body.code]).toEqual([503, 'database_unavailable']);
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error('the daemon did not serve again after PostgreSQL came back');
  }

  async function checkAcked(acked: { domains: string[]; designs: string[] }): Promise<void> {
    const db = new PostgresStorage({ url, max: 1 });
    try {
      const domains = new Set((await db.all<{ id: string }>('SELECT id FROM domains')).map((r) => r.id));
      const designs = new Set(
        (await db.all<{ design_id: string }>('SELECT design_id FROM designs')).map((r) => r.design_id),
      );
      expect(acked.domains.filter((id) => !domains.has(id))).toEqual([]);
      expect(acked.designs.filter((id) => !designs.has(id))).toEqual([]);
    } finally {
      await db.close();
    }
    // and through the daemon
    for (const id of acked.domains.slice(-5))
      expect((await d.call('GET', `/v1/domains/${id}`, { key: rep })).status).toBe(200);
    for (const id of acked.designs.slice(-5))
      expect((await d.call('GET', `/v1/sampling/${id}`, { key: rep })).status).toBe(200);
  }

  it('PostgreSQL stopped (fast shutdown): 503 database_unavailable with the one body, /health says so, then it serves again by itself', async () => {
    expect((await d.call('GET', '/health/ready')).body).toMatchObject({
      status: 'ok',
      database: { backend: 'postgres', status: 'ok' },
    });
    const w = writers(6);
    while (w.acked.domains.length + w.acked.designs.length < 30) await new Promise((r) => setTimeout(r, 10));
    await pg.halt();
    await until503();

    // every kind of request that needs the database: the one error body, X-Request-Id, what is down, no password
    const requests: [string, string, unknown?][] = [
      ['GET', '/v1/domains?limit=1'],
      ['GET', `/v1/domains/${proto}`],
      ['POST', '/v1/domains', { type: 'Project', class: proto }],
      ['POST', '/v1/sampling', { projectId: proto, population: 900, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 }],
    ];
    for (const [method, path, body] of requests) {
      const r = await d.call(method, path, { key: rep, body, headers: { 'x-request-id': 'pg-down-1' } });
      expect(r.status, `${method} ${path}`).toBe(503);
      expect(r.headers.get('x-request-id')).toBe('pg-down-1');
      expect(Object.keys(r.body).sort()).toEqual(expect.arrayContaining(['code', 'message', 'statusCode']));
      expect(r.body).toMatchObject({ statusCode: 503, code: 'database_unavailable' });
      expect(r.body.message).toContain(`PostgreSQL at 127.0.0.1:${pg.port}/restarts`);
      expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
    }
    // an admin request authenticated by the discovery token needs the database too
    expect((await d.call('GET', '/admin/v1/keys', { key: d.token })).body.code).toBe('database_unavailable');
    // liveness stays 200 (the CLI's handshake), readiness is 503
    const health = await d.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'ok',
      pid: d.pid,
      database: { backend: 'postgres', status: 'unavailable' },
    });
    const ready = await d.call('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ statusCode: 503, code: 'database_unavailable' });
    expect(JSON.stringify(ready.body)).not.toContain(PASSWORD);
    expect(d.child.exitCode).toBeNull();

    await pg.start();
    await untilServing();
    await w.stop();
    expect(d.child.exitCode).toBeNull();
    expect(w.others).toEqual([]);
    expect(w.statuses.get('503 database_unavailable')).toBeGreaterThan(0);
    expect((await d.call('GET', '/health/ready')).status).toBe(200);
    expect((await d.call('GET', '/health')).body.database).toEqual({ backend: 'postgres', status: 'ok' });
    await checkAcked(w.acked);
  });

  it('PostgreSQL killed (SIGKILL of the postmaster) mid-write: every acknowledged write survives its recovery', async () => {
    const w = writers(8);
    const before = w.acked.domains.length + w.acked.designs.length;
    while (w.acked.domains.length + w.acked.designs.length < before + 40) await new Promise((r) => setTimeout(r, 5));
    pg.kill();
    await until503();
    expect(d.child.exitCode).toBeNull();
    await pg.start();
    await untilServing();
    // the writers keep going for a while on the recovered server
    const mark = w.acked.domains.length + w.acked.designs.length;
    while (w.acked.domains.length + w.acked.designs.length < mark + 20) await new Promise((r) => setTimeout(r, 5));
    await w.stop();
    expect(w.others).toEqual([]);
    expect(d.child.exitCode).toBeNull();
    await checkAcked(w.acked);
  });
});

describe('PostgreSQL not there at start', () => {
  it('the daemon exits 1 naming the server it could not reach, never the password', async () => {
    const port = await freePort(); // nothing listens there
    const t = tempHome({ oracle: { enabled: false } });
    try {
      const r = spawnSync(process.execPath, [join(import.meta.dirname, '../../dist/daemon/main.js')], {
        env: {
          ...process.env,
          ...t.env,
          ORACLEKIT_DATABASE_URL: `postgres://u:${PASSWORD}@127.0.0.1:${port}/registry`,
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        `oraclekit daemon: the database (PostgreSQL at 127.0.0.1:${port}/registry) is unreachable (ECONNREFUSED); retry shortly`,
      );
      expect(r.stderr).not.toContain(PASSWORD);
    } finally {
      t.cleanup();
    }
  });
});
