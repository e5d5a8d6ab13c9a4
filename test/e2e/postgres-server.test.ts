/**
 * The PostgreSQL the tests start (test/helpers/postgres.ts) is a real server:
 * the driver the storage layer uses (`postgres`) connects, writes, survives a
 * restart and a kill -9 with its committed rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';

describe('a real PostgreSQL for the tests', () => {
  let pg: PostgresServer;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('accepts connections, keeps committed rows across a restart and a kill -9', async () => {
    const url = pg.createDatabase('helper_check');
    let sql = postgres(url, { max: 2, onnotice: () => {} });
    await sql`CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL)`;
    await sql`INSERT INTO t VALUES (1, 'one'), (2, 'two')`;
    await sql.end();
    await pg.restart();
    sql = postgres(url, { max: 2, onnotice: () => {} });
    expect((await sql`SELECT count(*)::int AS n FROM t`)[0]!.n).toBe(2);
    await sql`INSERT INTO t VALUES (3, 'three')`;
    await sql.end();
    pg.kill();
    await pg.start();
    sql = postgres(url, { max: 2, onnotice: () => {} });
    expect((await sql`SELECT v FROM t ORDER BY id`).map((r) => r.v)).toEqual(['one', 'two', 'three']);
    await sql.end();
  }, 120_000);
});
