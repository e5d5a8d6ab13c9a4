/**
 * Where the runtime keeps its state: `dbPath` / ORACLE_DB_PATH (a SQLite
 * file) or `databaseUrl` / ORACLE_DATABASE_URL (PostgreSQL, on a real server:
 * test/helpers/postgres.ts). Naming both is invalid_config; a malformed URL
 * names the setting; a password never reaches the log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { isOracleKitError } from '../../../src/lib/errors.ts';
import { scriptedModel } from '../../../src/testing.ts';
import { postgresAvailable, startPostgres } from '../../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-rtdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = {
  config: { name: 'D', oracleDid: 'did:key:z6Mkoracle' },
  model: scriptedModel(),
  signingMnemonic: '',
  logger: { info: () => {}, error: () => {} },
};

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('choosing the runtime database', () => {
  it('dbPath and databaseUrl together are invalid_config naming the field, the password hidden', () => {
    const e = thrown(() =>
      createOracle({
        ...base,
        env: {},
        dbPath: join(dir, 'a.db'),
        databaseUrl: 'postgres://oracle:hunter2@127.0.0.1:1/oracle',
      }),
    );
    expect(isOracleKitError(e)).toBe(true);
    expect(e).toMatchObject({ code: 'invalid_config', status: 400, field: 'databaseUrl' });
    expect((e as Error).message).toContain('postgres://oracle:***@127.0.0.1:1/oracle');
    expect((e as Error).message).not.toContain('hunter2');
  });

  it('ORACLE_DATABASE_URL with ORACLE_DB_PATH is invalid_config too; the options win over the environment', () => {
    const env = { ORACLE_DATABASE_URL: 'postgres://o@127.0.0.1:1/o', ORACLE_DB_PATH: join(dir, 'b.db') };
    expect(thrown(() => createOracle({ ...base, env }))).toMatchObject({
      code: 'invalid_config',
      field: 'ORACLE_DATABASE_URL',
    });
    const o = createOracle({ ...base, env, dbPath: join(dir, 'c.db') });
    expect(o.runtime.db.dialect).toBe('sqlite');
    return o.close();
  });

  it('a malformed URL: from the option, invalid_config naming databaseUrl; from the environment, the boot error naming the variable', () => {
    expect(
      thrown(() => createOracle({ ...base, env: {}, databaseUrl: 'postgres://u:pw@127.0.0.1:5432/' })),
    ).toMatchObject({ code: 'invalid_config', field: 'databaseUrl' });
    const e = thrown(() => createOracle({ ...base, env: { ORACLE_DATABASE_URL: 'mysql://u:pw@h/db' } })) as Error;
    expect(e.name).toBe('BootError');
    expect(e.message).toContain("'ORACLE_DATABASE_URL'");
    expect(e.message).not.toContain('pw');
  });

  it.skipIf(!postgresAvailable())(
    'ORACLE_DATABASE_URL opens PostgreSQL: migrated before serving, the password not logged, closed with the oracle',
    async () => {
      const pg = await startPostgres();
      try {
        const url = pg.createDatabase('runtime_env').replace('postgres@', 'postgres:not-a-secret-at-all@');
        const lines: string[] = [];
        const o = createOracle({
          ...base,
          env: { ORACLE_DATABASE_URL: url },
          logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
        });
        expect(o.runtime.db.dialect).toBe('postgres');
        await o.runtime.storeReady;
        expect(await o.runtime.db.schemaVersion('runtime')).toBe(3);
        const s = await o.runtime.store.createSession('did:key:z6Mkuser');
        expect(
          (await o.runtime.store.listSessions('did:key:z6Mkuser', 10, 0)).sessions.map((x) => x.sessionId),
        ).toEqual([s.sessionId]);
        expect(lines.join('\n')).toContain('postgres://postgres:***@127.0.0.1');
        expect(lines.join('\n')).not.toContain('not-a-secret-at-all');
        await o.close();
        await expect(o.runtime.db.get('SELECT 1')).rejects.toThrow();
      } finally {
        await pg.stop();
      }
    },
    120_000,
  );
});
