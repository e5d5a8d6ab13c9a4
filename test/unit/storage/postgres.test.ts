/**
 * The PostgreSQL implementation of the storage seam on a real server
 * (test/helpers/postgres.ts): migrations applied once, `?` parameters, group
 * commit with a savepoint per write, prepared statements, tx joining a write, reads outside a
 * write seeing committed rows only, and a server that goes away answering
 * 503 database_unavailable and coming back by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage, toPositional } from '../../../src/storage/postgres.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';

const migrations = [
  {
    version: 1,
    description: 'a table',
    sql: {
      sqlite: 'unused',
      postgres:
        "CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v TEXT NOT NULL UNIQUE); INSERT INTO t (v) VALUES ('seed')",
    },
  },
];

describe('toPositional', () => {
  it('numbers the ? placeholders, not those inside quotes', () => {
    expect(toPositional('SELECT * FROM t WHERE a = ? AND b = \'?\' AND "c?" = ? ')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b = \'?\' AND "c?" = $2 ',
    );
  });
});

describe.skipIf(!postgresAvailable())('PostgresStorage on a real server', () => {
  let pg: PostgresServer;
  let db: PostgresStorage;
  beforeAll(async () => {
    pg = await startPostgres();
    db = new PostgresStorage({ url: pg.createDatabase('storage_seam'), max: 4 });
    await db.migrate('t', migrations);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await pg?.stop();
  });

  it('applies a migration once (again on a second connection) and records it', async () => {
    const other = new PostgresStorage({ url: pg.url.replace(/\/[^/]*$/, '/storage_seam'), max: 1 });
    await other.migrate('t', migrations);
    expect(await other.schemaVersion('t')).toBe(1);
    expect(await db.all('SELECT v FROM t')).toEqual([{ v: 'seed' }]);
    await other.close();
  });

  it('runs a statement as a prepared statement of its connection, still right after a migration changes its table', async () => {
    const one = new PostgresStorage({ url: pg.url.replace(/\/[^/]*$/, '/storage_seam'), max: 1 });
    await one.migrate('p', [
      {
        version: 1,
        description: 'a table',
        sql: "CREATE TABLE p (id INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO p VALUES (1, 'a')",
      },
    ]);
    expect(await one.all('SELECT * FROM p WHERE id = ?', [1])).toEqual([{ id: 1, v: 'a' }]);
    expect(await one.all('SELECT * FROM p WHERE id = ?', [1])).toEqual([{ id: 1, v: 'a' }]);
    // one connection: the text was prepared once on it, with `$1`
    expect(
      await one.get('SELECT COUNT(*) AS n FROM pg_prepared_statements WHERE statement = ?', [
        'SELECT * FROM p WHERE id = $1',
      ]),
    ).toEqual({ n: 1 });
    await one.migrate('p', [
      { version: 2, description: 'a column', sql: "ALTER TABLE p ADD COLUMN w TEXT NOT NULL DEFAULT 'b'" },
    ]);
    expect(await one.all('SELECT * FROM p WHERE id = ?', [1])).toEqual([{ id: 1, v: 'a', w: 'b' }]);
    await one.close();
  });

  it('group commit: each write settles with its own result; a failing write is rolled back alone', async () => {
    const ok1 = db.write(async () => (await db.run('INSERT INTO t (v) VALUES (?)', ['one'])).changes);
    const bad = db.write(async () => {
      await db.run('INSERT INTO t (v) VALUES (?)', ['half']);
      await db.run('INSERT INTO t (v) VALUES (?)', ['seed']); // unique violation
    });
    const ok2 = db.write(async () =>
      db.tx(async () => (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))!.n),
    );
    const [a, b, c] = await Promise.allSettled([ok1, bad, ok2]);
    expect(a).toEqual({ status: 'fulfilled', value: 1 });
    expect(b.status).toBe('rejected');
    expect(c).toEqual({ status: 'fulfilled', value: 2 }); // seed + one: the failed write left nothing
    expect((await db.all<{ v: string }>('SELECT v FROM t ORDER BY id')).map((r) => r.v)).toEqual(['seed', 'one']);
    expect(db.inTransaction).toBe(false);
  });

  it('a read outside the write does not see its uncommitted row', async () => {
    let seen: unknown;
    let release!: () => void;
    // registered out here, so the read runs outside the write's async context (on the pool)
    const outside = new Promise<void>((r) => (release = r)).then(() =>
      db.all('SELECT v FROM t WHERE v = ?', ['pending']),
    );
    await db.write(async () => {
      await db.run('INSERT INTO t (v) VALUES (?)', ['pending']);
      seen = await db.get('SELECT v FROM t WHERE v = ?', ['pending']);
      release();
      expect(await outside).toEqual([]);
    });
    expect(seen).toEqual({ v: 'pending' });
    expect(await db.get('SELECT v FROM t WHERE v = ?', ['pending'])).toEqual({ v: 'pending' });
  });

  it('two storages whose groups deadlock: the victim write runs again in its next group, every write succeeds', async () => {
    const url = pg.createDatabase('deadlock');
    const a = new PostgresStorage({ url, max: 2 });
    const b = new PostgresStorage({ url, max: 2 });
    try {
      await a.migrate('d', [
        {
          version: 1,
          description: 'two rows',
          sql: {
            sqlite: 'unused',
            postgres:
              "CREATE TABLE d (k TEXT PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO d VALUES ('x', 0), ('y', 0)",
          },
        },
      ]);
      // each storage's first write locks one row and waits until the other's has locked the other row;
      // their second writes then want the row the other group holds: a deadlock PostgreSQL breaks with 40P01
      let locked = 0;
      let bothLocked!: () => void;
      const barrier = new Promise<void>((r) => (bothLocked = r));
      const first = (db: PostgresStorage, k: string) =>
        db.write(async () => {
          await db.run('UPDATE d SET n = n + 1 WHERE k = ?', [k]);
          if (++locked === 2) bothLocked();
          await barrier;
        });
      const second = (db: PostgresStorage, k: string) =>
        db.write(async () => (await db.run('UPDATE d SET n = n + 1 WHERE k = ?', [k])).changes);
      const writes = [first(a, 'x'), second(a, 'y'), first(b, 'y'), second(b, 'x')];
      expect(await Promise.all(writes)).toEqual([undefined, 1, undefined, 1]);
      expect(await a.all('SELECT k, n FROM d ORDER BY k')).toEqual([
        { k: 'x', n: 2 },
        { k: 'y', n: 2 },
      ]);
      expect(a.groupCount + b.groupCount).toBe(3); // one group each, and the victim's write again in a second one
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('an unreachable server is 503 database_unavailable; the pool recovers when it is back', async () => {
    pg.kill();
    await expect(db.get('SELECT 1 AS x')).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });
    await expect(db.write(() => db.run('INSERT INTO t (v) VALUES (?)', ['lost']))).rejects.toMatchObject({
      status: 503,
      code: 'database_unavailable',
    });
    await pg.start();
    expect(await db.get('SELECT 1 AS x')).toEqual({ x: 1 });
    expect(await db.get('SELECT v FROM t WHERE v = ?', ['lost'])).toBeUndefined();
  }, 120_000);
});
