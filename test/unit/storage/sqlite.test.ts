/** SQLite's durability modes (src/storage/sqlite.ts): fsync off the event loop before acknowledging, grouped. */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openStorage } from '../../../src/storage/open.ts';
import type { SqliteStorage } from '../../../src/storage/sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const migrations = {
  t: [{ version: 1, description: 'a table', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)' }],
};
const openSqlite = async (o: { path: string; migrations: typeof migrations; synchronous?: 'FULL' | 'NORMAL' }) =>
  (await openStorage({ ...o, location: o.path })) as SqliteStorage;
const pragma = async (db: { get<T>(sql: string): Promise<T | undefined> }) =>
  (await db.get<{ synchronous: number }>('PRAGMA synchronous'))!.synchronous;

describe('Database durability', () => {
  it("'async' (default): NORMAL commits, and one fsync of the WAL serves every writer waiting when it starts", async () => {
    const path = join(dir, 'async.db');
    const db = await openSqlite({ path, migrations });
    expect(await pragma(db)).toBe(1); // NORMAL: COMMIT itself does not fsync
    const before = db.fsyncCount;
    const acks = [];
    for (let i = 0; i < 50; i++) {
      await db.run('INSERT INTO t (v) VALUES (?)', [`row ${i}`]);
      acks.push(db.durable());
    }
    await Promise.all(acks);
    const used = db.fsyncCount - before;
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThanOrEqual(3);
    // committed rows are in the WAL, readable by another connection
    const other = new DatabaseSync(path);
    expect(other.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 50 });
    other.close();
    await db.close();
    expect(existsSync(`${path}-wal`)).toBe(false); // the last close checkpointed and removed the WAL
  });

  it('a transaction nobody awaits is still fsynced in the background', async () => {
    const db = await openSqlite({ path: join(dir, 'bg.db'), migrations });
    await db.durable(); // the migrations' commits
    const before = db.fsyncCount;
    await db.tx(() => db.run('INSERT INTO t (v) VALUES (?)', ['x']));
    expect(db.fsyncCount).toBe(before + 1);
    await db.durable();
    await db.close();
  });

  it('an fsync that started after a commit acknowledges it: one fsync per write, none when nothing is new', async () => {
    const db = await openSqlite({ path: join(dir, 'seq.db'), migrations });
    await db.durable();
    const before = db.fsyncCount;
    await db.run('INSERT INTO t (v) VALUES (?)', ['a']); // starts an fsync at once
    await db.durable(); // served by that fsync
    expect(db.fsyncCount).toBe(before + 1);
    await db.durable(); // nothing committed since
    expect(db.fsyncCount).toBe(before + 1);
    await db.close();
  });

  it('close() settles writers still waiting for their fsync', async () => {
    const db = await openSqlite({ path: join(dir, 'close.db'), migrations });
    await db.run('INSERT INTO t (v) VALUES (?)', ['y']);
    const waiting = db.durable();
    await db.close();
    await expect(waiting).resolves.toBeUndefined();
  });

  it("'FULL' fsyncs inside COMMIT and 'NORMAL' not at all: durable() has nothing to wait for", async () => {
    for (const [mode, level] of [
      ['FULL', 2],
      ['NORMAL', 1],
    ] as const) {
      const db = await openSqlite({ path: join(dir, `${mode}.db`), migrations, synchronous: mode });
      expect(await pragma(db)).toBe(level);
      await db.run('INSERT INTO t (v) VALUES (?)', ['z']);
      await db.durable();
      expect(db.fsyncCount).toBe(0);
      await db.close();
    }
  });

  it('an in-memory database has no WAL to fsync', async () => {
    const db = await openSqlite({ path: ':memory:', migrations });
    await db.run('INSERT INTO t (v) VALUES (?)', ['m']);
    await db.durable();
    expect(db.fsyncCount).toBe(0);
    await db.close();
  });
});
