/**
 * The runtime tells the truth about its storage (docs/runtime.md, "Storage faults"):
 * - the entry `npm start` runs (a scaffolded project's src/main.ts) refuses a database that fails PRAGMA
 *   quick_check (page 2 overwritten) and one in a directory other users may write to: a `[boot-error]` line, exit 1;
 * - a run whose process was killed (kill -9) replays, after the restart, as `error run_interrupted` then
 *   `done {status: failed}` — not an empty stream;
 * - on a full disk (a tmpfs this test mounts, holding the runtime's SQLite file) writes answer 507 storage_full,
 *   a turn whose message cannot be stored is refused with it, `/ready` says 503 with the code until space is freed,
 *   and every turn either finishes with all of it stored or ends `failed`: read back from the file afterwards,
 *   nothing reported finished is missing; a priced oracle's credits routes and turn gate answer 507 too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createOracleApp } from '../../src/runtime/app.ts';
import { generateMnemonic, signerFromMnemonic } from '../../src/lib/keys/keys.ts';
import { messageIds, type AnyEvent } from '../../src/lib/protocol/index.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { readSse, startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { newUser, spawnInstance, until, type Instance } from '../helpers/runtime-cluster.ts';
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../helpers/tmpfs.ts';

const root = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'oraclekit-rt-storage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A project as `oraclekit new` makes it, enough for `npm start`: the template's src/, an oracle.config.json, and
 * node_modules pointing at this checkout (its dist/) and its zod.
 */
function project(): string {
  const dir = join(work, 'project');
  cpSync(join(root, 'templates/oracle/src'), join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'oracle.config.json'), JSON.stringify({ name: 'Storage Oracle' }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules/oraclekit'));
  symlinkSync(join(root, 'node_modules/zod'), join(dir, 'node_modules/zod'));
  return dir;
}

/** `npm start`'s command in the project, until it exits or says it listens (then it is stopped). */
async function start(dir: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const seen = (d: Buffer) => {
    out += d.toString();
    if (out.includes('oracle listening on')) child.kill('SIGTERM');
  };
  child.stdout.on('data', seen);
  child.stderr.on('data', seen);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  return { code, out };
}

describe('the database at boot', () => {
  let dir: string;
  beforeAll(() => {
    dir = project();
  });

  it('a database whose page 2 is overwritten is refused: a [boot-error] line naming the file, exit 1', async () => {
    const db = join(work, 'data', 'oracle.db');
    const first = await start(dir, { ORACLE_DB_PATH: db });
    expect(first.out).toContain('oracle listening on');
    const raw = new DatabaseSync(db);
    const pageSize = (raw.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    expect((raw.prepare('PRAGMA page_count').get() as { page_count: number }).page_count).toBeGreaterThan(2);
    raw.close();
    const fd = openSync(db, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, pageSize); // bytes page_size .. 2 × page_size
    closeSync(fd);
    const r = await start(dir, { ORACLE_DB_PATH: db });
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('oracle listening on');
    expect(r.out).toMatch(
      new RegExp(
        `^\\[boot-error\\] ORACLE_DB_PATH: the database ${db} fails its integrity check \\(PRAGMA quick_check: .+\\); it is not served\\. Restore it from a backup, or move it and its -wal and -shm files aside to start with an empty database$`,
        'm',
      ),
    );
  });

  it('a database directory other users may write to is refused as the daemon refuses it: [boot-error], exit 1', async () => {
    const shared = join(work, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const r = await start(dir, { ORACLE_DB_PATH: join(shared, 'oracle.db') });
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `[boot-error] ORACLE_DB_PATH: the database directory ${shared} is writable by other users (mode 0777); refusing to keep the database there. Run \`chmod o-w ${shared}\`, or point ORACLE_DB_PATH at a file in a directory of your own (e.g. mode 0700)`,
    );
    expect(() => new DatabaseSync(join(shared, 'oracle.db'), { readOnly: true })).toThrow(); // nothing created there
    // the option names itself
    expect(() =>
      createOracleApp({ config: { name: 'x' }, dbPath: join(shared, 'o.db'), logger: { info() {}, error() {} } }),
    ).toThrow(/^\[boot-error\] dbPath: the database directory .+ is writable by other users \(mode 0777\)/);
    chmodSync(shared, 0o755);
    expect((await start(dir, { ORACLE_DB_PATH: join(shared, 'oracle.db') })).out).toContain('oracle listening on');
  });
});

describe('a run whose process was killed', () => {
  let model: ScriptedModelServer;
  let a: Instance | undefined;
  let b: Instance | undefined;
  beforeAll(async () => {
    model = await startScriptedModelServer();
  });
  afterAll(async () => {
    for (const i of [a, b]) i?.child.kill('SIGKILL');
    await model.close();
  });

  it('replays after the restart as run_interrupted then done {status: failed}, numbered after what the client saw', async () => {
    const mnemonic = generateMnemonic();
    const oracleDid = (await signerFromMnemonic(mnemonic)).did();
    // one instance: no Redis (its boot marks the runs its killed predecessor left running failed)
    const ctx = { database: join(work, 'killed.db'), mnemonic, oracleDid, redisUrl: '', modelBaseURL: model.baseURL };
    a = await spawnInstance(ctx, { env: { ORACLE_REDIS_URL: '' } });
    const u = await newUser(oracleDid);
    const sessionId = await u.session(a.url);
    model.enqueue({ steps: [{ type: 'endless', text: 'tick ', everyMs: 20 }] });
    const seen = await u.stream(a.url, sessionId, 'count for ever', {
      stopAfter: (e) => e.event === 'message' && e.id >= 4,
    });
    const runId = (seen.events[0]!.data as { runId: string }).runId;
    const last = seen.events.at(-1)!.id;
    a.child.kill('SIGKILL');
    await new Promise((r) => a!.child.once('exit', r));

    b = await spawnInstance(ctx, { env: { ORACLE_REDIS_URL: '' } });
    const replay = await u.sse(b.url, `/runs/${runId}?after=${last}`);
    expect(replay.map((e) => [e.id, e.event])).toEqual([
      [last + 1, 'error'],
      [last + 2, 'done'],
    ]);
    expect(replay[0]!.data).toMatchObject({ code: 'run_interrupted', kind: 'internal', retryable: true });
    expect(replay[1]!.data).toMatchObject({ status: 'failed' });
    expect((await u.sse(b.url, `/runs/${runId}`)).map((e) => e.event)).toEqual(['error', 'done']);
    expect((await u.req(b.url, 'GET', `/sessions/${sessionId}/run`)).body).toEqual({
      run: { runId, status: 'failed' },
    });
    // the message was durable before its run frame went out
    const history = (await u.req(b.url, 'GET', `/messages/${sessionId}`)).body.messages as { content: string }[];
    expect(history.map((m) => m.content)).toEqual(['count for ever']);
  });
});

const skipWhy = tmpfsUnavailable ? ` (${tmpfsUnavailable})` : '';
describe.skipIf(tmpfsUnavailable !== undefined)(`the runtime on a full disk${skipWhy}`, () => {
  let fs: Tmpfs;
  let h: Harness;
  beforeAll(async () => {
    fs = mountTmpfs(6144);
    // the tmpfs is 6 MiB: ready above 1 MiB free
    h = await startHarness({ dbPath: join(fs.dir, 'oracle.db'), env: { ORACLE_READY_MIN_FREE_BYTES: '1048576' } });
  });
  afterAll(async () => {
    await h?.close();
    fs?.unmount();
  });

  /** A streamed turn, or the reply that refused it. */
  async function turn(
    u: Awaited<ReturnType<Harness['user']>>,
    sessionId: string,
    message: string,
  ): Promise<{ status: number; body?: { code: string }; events: AnyEvent[] }> {
    const res = await fetch(`${h.url}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...(await u.headers()), 'content-type': 'application/json' },
      body: JSON.stringify({ message, stream: true }),
    });
    if (res.status !== 200) return { status: res.status, body: (await res.json()) as { code: string }, events: [] };
    return { status: 200, events: (await readSse(res)).events };
  }

  let u: Awaited<ReturnType<Harness['user']>>;
  const sessions: string[] = [];
  type Turn = { sessionId: string; message: string; answer: string; events: AnyEvent[]; status: number };
  const turns: Turn[] = [];
  const doneOf = (t: Turn) => t.events.find((e) => e.event === 'done')?.data as { status: string };
  const requestOf = (t: Turn) => (t.events[0]!.data as { requestId: string }).requestId;

  it('writes answer 507 storage_full naming the cause, not a 500', async () => {
    u = await h.user();
    for (let i = 0; i < 6; i++) sessions.push(await u.newSession());
    expect((await fetch(`${h.url}/ready`)).status).toBe(200);
    // no room at all: the WAL emptied into the file, then the disk filled to its last byte
    await h.app.runtime.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    fs.fill();
    const created = await u.req('POST', '/sessions', {});
    expect([created.status, created.body]).toMatchObject([
      507,
      { statusCode: 507, code: 'storage_full', details: { cause: 'SQLITE_FULL' } },
    ]);
    expect(created.body.message).toBe(
      'the disk that holds the database is full (SQLITE_FULL); nothing was stored. Retry once space is freed',
    );
    const deleted = await u.req('DELETE', `/sessions/${sessions[5]}`);
    expect([deleted.status, deleted.body.code]).toEqual([507, 'storage_full']);
  });

  it('a turn whose message cannot be stored is refused with 507, streamed or not; the message is not in the history', async () => {
    const refused = await turn(u, sessions[0]!, 'hello on a full disk');
    expect([refused.status, refused.body?.code]).toEqual([507, 'storage_full']);
    const plain = await u.req('POST', `/messages/${sessions[0]}`, { message: 'and without a stream' });
    expect([plain.status, plain.body.code]).toEqual([507, 'storage_full']);
    expect((await u.req('GET', `/messages/${sessions[0]}`)).body.messages).toEqual([]);
  });

  it('/ready is 503 with the code while writes fail', async () => {
    const ready = await fetch(`${h.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      ready: false,
      pending: ['storage'],
      storage: { ready: false, code: 'storage_full' },
    });
  });

  it('with a little room each turn finishes with all of it stored, ends failed (storage_failed) or is refused', async () => {
    // 160 kB: a short turn may fit, a long answer does not
    fs.free();
    expect(fs.fill(160 * 1024)).toBeGreaterThan(0);
    const long = 'a long answer that will not fit. '.repeat(4000); // 132 kB
    for (const [i, answer] of ['short answer one', long, 'short answer two', long, 'short answer three'].entries()) {
      const sessionId = sessions[i]!;
      const message = `question ${i}`;
      h.model.enqueue({ steps: [{ type: 'text', text: answer, chunkSize: 4096 }] });
      const r = await turn(u, sessionId, message);
      turns.push({ sessionId, message, answer, events: r.events, status: r.status });
      if (r.status !== 200) expect([r.status, r.body?.code]).toEqual([507, 'storage_full']);
      else expect(['finished', 'failed']).toContain(doneOf(turns.at(-1)!).status);
    }
    // the long answers cannot be stored: their turns end failed with storage_failed, never finished
    for (const t of turns.filter((t) => t.answer === long && t.status === 200)) expect(doneOf(t).status).toBe('failed');
    for (const t of turns.filter((t) => t.status === 200 && doneOf(t).status === 'failed'))
      expect(t.events.find((e) => e.event === 'error')?.data).toMatchObject({ code: 'storage_failed' });
    // some of each: what fitted finished, what did not failed after its message was stored, or was refused
    expect(turns.some((t) => t.status === 200 && doneOf(t).status === 'finished')).toBe(true);
    expect(turns.some((t) => t.status === 200 && doneOf(t).status === 'failed')).toBe(true);
    expect(turns.some((t) => t.status === 507)).toBe(true);
  });

  it('once space is freed /ready is 200 again by itself, and a turn finishes', async () => {
    fs.free();
    const back = await fetch(`${h.url}/ready`);
    expect([back.status, ((await back.json()) as { storage: unknown }).storage]).toEqual([200, { ready: true }]);
    h.model.enqueue({ steps: [{ type: 'text', text: 'space again' }] });
    const after = await turn(u, sessions[5]!, 'and now?');
    expect(after.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    await until(
      async () => ((await h.app.runtime.store.latestRun(sessions[5]!))?.status === 'finished' ? 1 : undefined),
      'the last run stored',
    );
  });

  it('/ready is 503 while the disk has less free than ORACLE_READY_MIN_FREE_BYTES, before any write fails', async () => {
    fs.fill(256 * 1024);
    try {
      const ready = await fetch(`${h.url}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        ready: false,
        pending: ['storage'],
        storage: {
          ready: false,
          code: 'storage_full',
          message: expect.stringContaining('ORACLE_READY_MIN_FREE_BYTES'),
        },
      });
    } finally {
      fs.free();
    }
    expect((await fetch(`${h.url}/ready`)).status).toBe(200);
  });

  it("readiness's probe is a write the size of a real one: a disk's last kilobytes do not pass it", async () => {
    await h.app.runtime.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    fs.fill(8 * 1024);
    try {
      await expect(h.app.runtime.db.probe()).rejects.toMatchObject({ code: 'storage_full' });
    } finally {
      fs.free();
    }
    await h.app.runtime.db.probe();
  });

  it('read back from the file: every turn reported finished is stored whole; none that failed is stored as finished', () => {
    const file = new DatabaseSync(join(fs.dir, 'oracle.db'), { readOnly: true });
    const rows = (sessionId: string) =>
      file
        .prepare('SELECT id, type, content, turn FROM runtime_messages WHERE session_id = ? ORDER BY seq')
        .all(sessionId) as { id: string; type: string; content: string; turn: string | null }[];
    expect(turns.length).toBe(5);
    for (const t of turns.filter((t) => t.status === 200 && doneOf(t).status === 'finished')) {
      const stored = rows(t.sessionId);
      expect(stored.find((r) => r.id === messageIds.human(requestOf(t)))).toMatchObject({
        content: JSON.stringify(t.message),
        turn: expect.stringContaining('"status":"finished"'),
      });
      expect(stored.find((r) => r.id === requestOf(t))).toMatchObject({
        type: 'ai',
        content: JSON.stringify(t.answer),
      });
    }
    for (const t of turns.filter((t) => t.status === 200 && doneOf(t).status === 'failed')) {
      expect(rows(t.sessionId).find((r) => r.id === requestOf(t))).toBeUndefined();
      expect(rows(t.sessionId).some((r) => (r.turn ?? '').includes('"finished"'))).toBe(false);
    }
    // a refused turn left nothing
    for (const t of turns.filter((t) => t.status === 507)) expect(rows(t.sessionId)).toEqual([]);
    file.close();
  });
});

describe.skipIf(tmpfsUnavailable !== undefined)(`a priced oracle's credits on a full disk${skipWhy}`, () => {
  let fs: Tmpfs;
  let h: Harness;
  beforeAll(async () => {
    fs = mountTmpfs(4096);
    h = await startHarness({
      dbPath: join(fs.dir, 'oracle.db'),
      config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 },
    });
  });
  afterAll(async () => {
    await h?.close();
    fs?.unmount();
  });

  it("the credits plugin's routes and its turn gate answer 507 storage_full; with space again they serve", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    expect((await u.req('GET', '/credits/contract')).status).toBe(200); // the credits tables are migrated
    await h.app.runtime.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    fs.fill();
    const contract = await u.req('POST', '/credits/contract', {});
    expect([contract.status, contract.body.code]).toEqual([507, 'storage_full']);
    // the gate's claim cannot be written: the storage's answer, not a 402 naming a claim that does not exist
    const gated = await u.req('POST', `/messages/${sessionId}`, { message: 'hello' });
    expect([gated.status, gated.body.code]).toEqual([507, 'storage_full']);
    fs.free();
    expect((await u.req('POST', '/credits/contract', {})).status).toBe(201);
    expect((await u.req('POST', `/messages/${sessionId}`, { message: 'hello' })).status).toBe(402);
  });
});
