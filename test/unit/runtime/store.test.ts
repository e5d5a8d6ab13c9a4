/**
 * The runtime's store (src/runtime/store.ts) on both backends: a SQLite file
 * and a fresh PostgreSQL database per test on a real server
 * (test/helpers/postgres.ts). Same rows read back, same order, same
 * isolation between users, on either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../../src/storage/open.ts';
import type { Storage } from '../../../src/storage/storage.ts';
import { RUNTIME_MIGRATIONS } from '../../../src/runtime/migrations.ts';
import { RuntimeStore } from '../../../src/runtime/store.ts';
import type { AnyEvent } from '../../../src/lib/protocol/index.ts';
import { BACKENDS, backendDatabases } from '../../helpers/postgres.ts';

const ORACLE = { did: 'did:key:oracle', name: 'Store Oracle' };

describe.each(BACKENDS)('RuntimeStore on %s', (backend) => {
  const databases = backendDatabases(backend);
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const d of opened.splice(0)) await d.close();
  });
  let files = 0;
  const open = async (location = databases.fresh('runtime_store') ?? join(dir, `rt-${++files}.db`)) => {
    const db = await openStorage({ location, migrations: { runtime: RUNTIME_MIGRATIONS }, max: 4 });
    opened.push(db);
    return { db, location, store: new RuntimeStore(db, ORACLE) };
  };

  it('migrates to the same version; sessions are the caller’s own, listed newest first, deleted with their messages and runs', async () => {
    const { db, store } = await open();
    expect(await db.schemaVersion('runtime')).toBe(RUNTIME_MIGRATIONS.length);
    const a = await store.createSession('did:key:alice', 'first');
    const b = await store.createSession('did:key:alice');
    await store.createSession('did:key:bob');
    expect(a).toMatchObject({ title: 'first', oracleName: 'Store Oracle', oracleDid: ORACLE.did });
    expect(b.title).toBe('New chat');
    await new Promise((r) => setTimeout(r, 2)); // a later updated_at
    await store.touchSession(a.sessionId, 'renamed');
    const list = await store.listSessions('did:key:alice', 10, 0);
    expect(list.total).toBe(2);
    expect(list.sessions.map((s) => s.title)).toEqual(['renamed', 'New chat']);
    expect((await store.listSessions('did:key:alice', 1, 1)).sessions.map((s) => s.sessionId)).toEqual([b.sessionId]);
    expect(await store.getSession('did:key:bob', a.sessionId)).toBeUndefined();
    expect(await store.deleteSession('did:key:bob', a.sessionId)).toBe(false);
    await store.setSessionState(a.sessionId, { n: 1, nested: { ok: true } });
    expect(await store.getSessionState(a.sessionId)).toEqual({ n: 1, nested: { ok: true } });
    await store.addMessages(a.sessionId, [{ id: 'm1', type: 'human', content: 'hi' }]);
    await store.createRun({
      id: 'r1',
      sessionId: a.sessionId,
      userDid: 'did:key:alice',
      requestId: 'q1',
      status: 'running',
    });
    expect(await store.deleteSession('did:key:alice', a.sessionId)).toBe(true);
    expect(await store.history(a.sessionId)).toEqual([]);
    expect(await store.getRun('did:key:alice', 'r1')).toBeUndefined();
  });

  it('messages: upserted by id in one transaction, read back in order with their fields, paged by sequence cursors', async () => {
    const { store } = await open();
    const s = await store.createSession('did:key:alice');
    await store.addMessages(s.sessionId, [
      { id: 'm1', type: 'human', content: 'one' },
      { id: 'm2', type: 'ai', content: 'two (partial)' },
    ]);
    await store.addMessages(s.sessionId, [
      {
        id: 'm2',
        type: 'ai',
        content: 'two',
        toolCalls: [{ id: 't1', name: 'get_weather', args: { city: 'Paris' }, status: 'done', output: '{}' } as never],
        reasoning: 'because',
      },
      { id: 'm3', type: 'human', content: [{ type: 'text', text: 'three' }] as never },
    ]);
    const all = await store.history(s.sessionId);
    expect(all.map((m) => [m.id, m.content])).toEqual([
      ['m1', 'one'],
      ['m2', 'two'],
      ['m3', [{ type: 'text', text: 'three' }]],
    ]);
    expect(all[1]).toMatchObject({ reasoning: 'because', toolCalls: [{ id: 't1', name: 'get_weather' }] });
    expect(all[0]!.reasoning).toBeUndefined();
    const last = await store.historyPage(s.sessionId, 2);
    expect(last.messages.map((m) => m.id)).toEqual(['m2', 'm3']);
    expect(last).toMatchObject({ hasOlder: true, hasNewer: false, nextCursor: null });
    const older = await store.historyPage(s.sessionId, 2, last.prevCursor!);
    expect(older.messages.map((m) => m.id)).toEqual(['m1']);
    expect(older).toMatchObject({ hasOlder: false, hasNewer: true });
    const newer = await store.historyPage(s.sessionId, 5, undefined, older.nextCursor!);
    expect(newer.messages.map((m) => m.id)).toEqual(['m2', 'm3']);
  });

  it('runs: the latest by insertion order on a tie, their event log replayed after an id, orphans failed', async () => {
    const { store } = await open();
    const s = await store.createSession('did:key:alice');
    // several runs within one millisecond: created_at ties, the insertion order decides
    await store.groupCommit(async () => {
      for (const id of ['r1', 'r2', 'r3'])
        await store.createRun({
          id,
          sessionId: s.sessionId,
          userDid: 'did:key:alice',
          requestId: `q-${id}`,
          status: 'queued',
        });
      await store.setRunStatus('r1', 'finished');
      await store.setRunStatus('r2', 'running');
    });
    expect(await store.latestRun(s.sessionId)).toEqual({ runId: 'r3', status: 'queued' });
    const events = [1, 2, 3].map((id) => ({ id, event: 'message', data: { n: id } })) as unknown as AnyEvent[];
    await store.finishRun('r1', 'finished', events);
    expect((await store.runEvents('r1', 1)).map((e) => e.id)).toEqual([2, 3]);
    expect(await store.runEvents('r2', 0)).toEqual([]);
    expect(await store.getRun('did:key:bob', 'r1')).toBeUndefined();
    await store.failOrphanRuns();
    expect(await store.getRun('did:key:alice', 'r2')).toMatchObject({ status: 'failed' });
    expect(await store.getRun('did:key:alice', 'r3')).toMatchObject({ status: 'failed' });
    expect(await store.getRun('did:key:alice', 'r1')).toEqual({
      runId: 'r1',
      sessionId: s.sessionId,
      requestId: 'q-r1',
      status: 'finished',
    });
    // the end of a run whose start was never stored (the database away then) writes its row; a deleted session's, none
    await store.endRun(
      { id: 'r4', sessionId: s.sessionId, userDid: 'did:key:alice', requestId: 'q-r4' },
      'failed',
      events,
    );
    expect(await store.getRun('did:key:alice', 'r4')).toEqual({
      runId: 'r4',
      sessionId: s.sessionId,
      requestId: 'q-r4',
      status: 'failed',
    });
    expect((await store.runEvents('r4', 0)).map((e) => e.id)).toEqual([1, 2, 3]);
    await store.endRun(
      { id: 'r1', sessionId: s.sessionId, userDid: 'did:key:alice', requestId: 'q-r1' },
      'aborted',
      [],
    );
    expect(await store.getRun('did:key:alice', 'r1')).toMatchObject({ status: 'aborted' });
    await store.endRun(
      { id: 'r5', sessionId: 'no-such-session', userDid: 'did:key:alice', requestId: 'q-r5' },
      'failed',
      events,
    );
    expect(await store.getRun('did:key:alice', 'r5')).toBeUndefined();
  });

  it('preferences and delegations are upserted per user × oracle; a revocation is recorded once; all of it survives a reopen', async () => {
    const { store, db, location } = await open();
    await store.setPreferences('did:key:alice', { theme: 'dark' });
    await store.setPreferences('did:key:alice', { theme: 'light', lang: 'fr' });
    expect(await store.getPreferences('did:key:alice')).toEqual({ theme: 'light', lang: 'fr' });
    expect(await store.getPreferences('did:key:bob')).toEqual({});
    const exp = 4_102_444_800; // 2100-01-01: past a 32-bit integer's range of seconds
    await store.saveDelegation('did:key:alice', 'cid-1', 'raw-1', null);
    await store.saveDelegation('did:key:alice', 'cid-2', 'raw-2', exp);
    expect(await store.getDelegation('did:key:alice')).toEqual({ cid: 'cid-2', raw: 'raw-2', expiration: exp });
    await store.revoke('cid-2');
    await store.revoke('cid-2');
    expect(await store.isRevoked('cid-2')).toBe(true);
    expect(await store.isRevoked('cid-1')).toBe(false);
    await db.close();
    opened.splice(opened.indexOf(db), 1);
    const again = (await open(location)).store;
    expect(await again.getPreferences('did:key:alice')).toEqual({ theme: 'light', lang: 'fr' });
    expect(await again.deleteDelegation('did:key:alice')).toBe('cid-2');
    expect(await again.getDelegation('did:key:alice')).toBeUndefined();
    expect(await again.isRevoked('cid-2')).toBe(true);
  });
});
