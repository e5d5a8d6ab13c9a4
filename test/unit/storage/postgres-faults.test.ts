/**
 * PostgresStorage when a transaction's connection closes under it (a server
 * stopping, a backend terminated): the write is refused with 503
 * database_unavailable, nothing of it is committed, no statement is issued
 * on the closed connection (postgres 3.4.9 would write it from a
 * setImmediate with no socket: an uncaught TypeError that ended the daemon,
 * src/storage/postgres.ts "TxState"), and the next write succeeds on a new
 * connection. Against a real PostgreSQL (test/helpers/postgres.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../src/storage/postgres.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';

describe.skipIf(!postgresAvailable())('PostgresStorage: a transaction whose connection closes', () => {
  let pg: PostgresServer;
  let db: PostgresStorage;
  let admin: PostgresStorage;

  beforeAll(async () => {
    pg = await startPostgres();
    const url = pg.createDatabase('tx_faults');
    db = new PostgresStorage({ url, max: 2 });
    admin = new PostgresStorage({ url, max: 1 });
    await db.run('CREATE TABLE t (x INTEGER NOT NULL)');
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await admin?.close();
    await pg?.stop();
  });

  /** The pid of the backend whose transaction is idle (our group, waiting on its write's callback). */
  async function idleInTransaction(): Promise<number> {
    for (let i = 0; i < 400; i++) {
      const r = await admin.get<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE state = 'idle in transaction' AND datname = current_database() AND pid <> pg_backend_pid()",
      );
      if (r) return r.pid;
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error('no transaction became idle');
  }

  for (const where of ['write', 'tx'] as const) {
    it(`${where}: terminated between two statements → 503, nothing committed, no statement on the closed connection, the next one works`, async () => {
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => (release = r));
      const body = async () => {
        await db.run('INSERT INTO t (x) VALUES (1)');
        await gate;
        await db.run('INSERT INTO t (x) VALUES (2)'); // its connection is gone by now
      };
      const pending = where === 'write' ? db.write(body) : db.tx(body);
      const outcome = pending.then(
        () => 'resolved',
        (e: unknown) => e,
      );
      const pid = await idleInTransaction();
      await admin.run('SELECT pg_terminate_backend(?)', [pid]);
      expect(await outcome).toMatchObject({ status: 503, code: 'database_unavailable' });
      release();
      // the body goes on: its next statement must not reach the closed connection (the driver would write it
      // from a setImmediate and throw there, outside any promise: vitest reports that as an unhandled error)
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      await db.write(() => db.run('INSERT INTO t (x) VALUES (3)'));
      expect(await db.all('SELECT x FROM t ORDER BY x')).toEqual([{ x: 3 }]);
      await db.run('DELETE FROM t');
    });
  }
});
