/**
 * The daemon's lifecycle through the real CLI (dist/): start, status, the
 * discovery file, keys, logs, stop, stale files after kill -9, version
 * handshake, auto-start on first use (never under CI=true unless asked),
 * graceful shutdown.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { tempHome } from '../unit/daemon/harness.ts';

const t = tempHome();
const env = t.env;
const discovery = join(t.home, 'state/daemon.json');
const json = (s: string) => JSON.parse(s);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const gone = async (pid: number) => {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
};

beforeAll(async () => {
  await runCli(['daemon', 'stop'], { env });
});
afterAll(async () => {
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  t.cleanup();
});

describe('daemon lifecycle', () => {
  it('status says not running (exit 9)', async () => {
    const r = await runCli(['daemon', 'status', '--json'], { env });
    expect(r.code).toBe(9);
    expect(json(r.stdout)).toMatchObject({ running: false });
  });

  it('start writes a 0600 discovery file after listen; status --json; health answers', async () => {
    const r = await runCli(['daemon', 'start', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const s = json(r.stdout);
    expect(s).toMatchObject({ running: true, healthy: true, version: '0.1.0' });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const d = json(readFileSync(discovery, 'utf8'));
    expect(Object.keys(d).sort()).toEqual(['host', 'oracle', 'pid', 'port', 'started', 'token', 'url', 'version']);
    expect(statSync(discovery).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.home, 'state')).mode & 0o777).toBe(0o700);
    const h = await (await fetch(d.url + '/health')).json();
    expect(h).toMatchObject({ status: 'ok', version: '0.1.0', pid: d.pid });
    const again = await runCli(['daemon', 'start', '--json'], { env });
    expect(json(again.stdout)).toMatchObject({ alreadyRunning: true, pid: d.pid });
    const st = await runCli(['daemon', 'status'], { env });
    expect(st.code).toBe(0);
    expect(st.stdout).toContain(`pid ${d.pid}`);
  });

  it('keys: create (shown once, saved 0600), list without secrets, revoke → 401; logs never hold secrets', async () => {
    const c = await runCli(
      [
        'daemon',
        'keys',
        'create',
        '--did',
        'did:example:alice',
        '--role',
        'admin',
        '--role',
        'representative',
        '--json',
        '--save',
      ],
      { env },
    );
    expect(c.code, c.stderr).toBe(0);
    const key = json(c.stdout);
    expect(key.key).toMatch(/^ok_/);
    expect(statSync(key.savedTo).mode & 0o777).toBe(0o600);
    const reg = await runCli(['domain', 'register', '--type', 'Protocol', '--name', 'Stoves', '--json'], { env });
    expect(reg.code, reg.stderr).toBe(0);
    const l = await runCli(['daemon', 'keys', 'list', '--json'], { env });
    expect(l.stdout).not.toContain(key.key);
    // (the daemon's own default oracle has a read-only key of its own, made at start)
    expect(json(l.stdout).items.find((k: { id: string }) => k.id === key.id)).toMatchObject({
      id: key.id,
      did: 'did:example:alice',
      roles: ['admin', 'representative'],
    });
    const other = json(
      (await runCli(['daemon', 'keys', 'create', '--did', 'did:example:bob', '--role', 'member', '--json'], { env }))
        .stdout,
    );
    const ok = await runCli(['domain', 'list', '--json', '--api-key', other.key], { env });
    expect(ok.code).toBe(0);
    const rv = await runCli(['daemon', 'keys', 'revoke', other.id], { env });
    expect(rv.code).toBe(0);
    const no = await runCli(['domain', 'list', '--json', '--api-key', other.key], { env });
    expect(no.code).toBe(7);
    expect(json(no.stderr)).toMatchObject({ statusCode: 401, code: 'unauthenticated' });
    // a path with characters JSON must escape: its request line is still one valid JSON object
    const odd = '/v1/x%22y\\z"w';
    const d0 = json(readFileSync(discovery, 'utf8'));
    await new Promise<void>((resolve, reject) => {
      const r = httpRequest(
        d0.url + '/v1/placeholder',
        { method: 'GET', path: odd },
        (res) => (res.resume(), res.on('end', resolve)),
      );
      r.on('error', reject);
      r.end();
    });
    // an admin key sent in the query string: the request line has the path only
    const queryKey = `ok_admin_${'q'.repeat(24)}`;
    await fetch(`${d0.url}/admin/v1/keys?api_key=${queryKey}&page=2`).then((r) => r.arrayBuffer());
    const logs = await runCli(['daemon', 'logs', '-n', '1000'], { env });
    // one line per request: its request id, method, path (never the query), status and time
    const access = logs.stdout
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => json(l) as { path: string; method: string; status: number } & Record<string, unknown>);
    expect(access.length).toBeGreaterThan(0);
    for (const a of access) expect(a).toMatchObject({ reqId: expect.any(String), ms: expect.any(Number) });
    expect(access.find((a) => a.path === odd)).toMatchObject({ level: 30, pid: d0.pid, method: 'GET', status: 401 });
    expect(access.findLast((a) => a.path === '/admin/v1/keys' && a.method === 'GET')).toMatchObject({ status: 401 });
    expect(logs.stdout).not.toContain(queryKey);
    expect(logs.stdout).not.toContain('api_key');
    expect(logs.stdout).not.toContain('"msg":"incoming request"');
    const d = json(readFileSync(discovery, 'utf8'));
    for (const secret of [key.key, other.key, d.token]) expect(logs.stdout).not.toContain(secret);
  });

  it('stop is graceful and removes the discovery file', async () => {
    const d = json(readFileSync(discovery, 'utf8'));
    const r = await runCli(['daemon', 'stop', '--json'], { env });
    expect(json(r.stdout)).toMatchObject({ stopped: true, forced: false, pid: d.pid });
    expect(existsSync(discovery)).toBe(false);
    expect(alive(d.pid)).toBe(false);
    expect((await runCli(['daemon', 'logs'], { env })).stdout).toContain('shutting down');
  });

  it('stale discovery after kill -9 is recovered; data survives; first use auto-starts', async () => {
    const s = json((await runCli(['daemon', 'start', '--json'], { env })).stdout);
    process.kill(s.pid, 'SIGKILL');
    await gone(s.pid);
    expect(existsSync(discovery)).toBe(true);
    const st = await runCli(['daemon', 'status', '--json'], { env });
    expect(json(st.stdout)).toMatchObject({ running: false, stale: true });
    expect(existsSync(discovery)).toBe(false);
    const l = await runCli(['domain', 'list', '--json'], { env });
    expect(l.code, l.stderr).toBe(0);
    expect(json(l.stdout).items.map((d: { metadata: { name: string } }) => d.metadata.name)).toContain('Stoves');
  });

  it('a daemon of another version is replaced', async () => {
    const d = json(readFileSync(discovery, 'utf8'));
    writeFileSync(discovery, JSON.stringify({ ...d, version: '0.0.1-old' }), { mode: 0o600 });
    const l = await runCli(['domain', 'list', '--json'], { env });
    expect(l.code, l.stderr).toBe(0);
    const d2 = json(readFileSync(discovery, 'utf8'));
    expect(d2.pid).not.toBe(d.pid);
    expect(d2.version).toBe('0.1.0');
    await gone(d.pid);
  });

  it('CI=true never auto-starts (exit 9) unless ORACLEKIT_AUTOSTART=1', async () => {
    await runCli(['daemon', 'stop'], { env });
    const r = await runCli(['domain', 'list', '--json'], { env: { ...env, CI: 'true' } });
    expect(r.code).toBe(9);
    expect(json(r.stderr)).toMatchObject({ statusCode: 503, code: 'unavailable' });
    const a = await runCli(['domain', 'list', '--json'], { env: { ...env, CI: 'true', ORACLEKIT_AUTOSTART: '1' } });
    expect(a.code, a.stderr).toBe(0);
  });

  it('logs -f follows new lines', async () => {
    const d = json(readFileSync(discovery, 'utf8'));
    const follow = runCli(['daemon', 'logs', '-f', '-n', '0'], { env, timeoutMs: 4000 });
    await new Promise((r) => setTimeout(r, 1500));
    await fetch(d.url + '/v1/domains?marker=follow-me');
    const r = await follow;
    expect(r.stdout).toContain('"statusCode":401');
  });

  it('stop forces with SIGKILL when the daemon does not exit in the grace period', async () => {
    const d = json(readFileSync(discovery, 'utf8'));
    process.kill(d.pid, 'SIGSTOP'); // hung: cannot handle SIGTERM
    const r = await runCli(['daemon', 'stop', '--grace', '1', '--json'], { env });
    expect(json(r.stdout)).toMatchObject({ stopped: true, forced: true, pid: d.pid });
    await gone(d.pid);
    expect(existsSync(discovery)).toBe(false);
  });

  it('a port in use: start fails with the reason (exit 9)', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['daemon', 'start', '--port', String(port), '--json'], { env });
      expect(r.code).toBe(9);
      expect(json(r.stderr)).toMatchObject({ code: 'daemon_start_failed' });
      expect(json(r.stderr).message).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
    const again = await runCli(['daemon', 'start', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
  });

  it('an unreachable --registry is exit 9', async () => {
    const r = await runCli(['domain', 'list', '--registry', 'http://127.0.0.1:1', '--api-key', 'x', '--json'], { env });
    expect(r.code).toBe(9);
  });

  it('concurrent first uses start one daemon', async () => {
    await runCli(['daemon', 'stop'], { env });
    const rs = await Promise.all([0, 1, 2].map(() => runCli(['domain', 'list', '--json'], { env })));
    for (const r of rs) expect(r.code, r.stderr).toBe(0);
    const st = json((await runCli(['daemon', 'status', '--json'], { env })).stdout);
    expect(st).toMatchObject({ running: true, healthy: true });
  });

  it('graceful shutdown finishes in-flight requests', async () => {
    const d = json(readFileSync(discovery, 'utf8'));
    const settings = json(readFileSync(join(t.home, 'config/settings.json'), 'utf8'));
    const headers = { authorization: `Bearer ${settings.apiKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({
      projectId: 'did:example:p',
      population: 10_000,
      expectedMean: 2,
      expectedSD: 1,
      dropoutRate: 0.1,
    });
    // 1. a request genuinely in flight: headers and half of the body sent
    const req = httpRequest(d.url + '/v1/sampling', {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (r) => {
        let text = '';
        r.setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 20));
    // 2. a complete request on another connection: once it is answered, the first one's headers have been read
    expect((await fetch(d.url + '/v1/sampling', { method: 'POST', headers, body })).status).toBe(201);
    // 3. SIGTERM, and wait until the daemon refuses new connections (it is shutting down)
    process.kill(d.pid, 'SIGTERM');
    for (;;) {
      const r = await fetch(d.url + '/health').then(
        (x) => x.status,
        (e: { cause?: { code?: string } }) => e.cause?.code,
      );
      if (r === 'ECONNREFUSED' || r === 503) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    // 4. the in-flight request still completes
    req.end(body.slice(20));
    const done = await reply;
    expect(done.status, done.body).toBe(201);
    expect(json(done.body).parameters.population).toBe(10_000);
    await gone(d.pid);
    expect(existsSync(discovery)).toBe(false);
  });
});
