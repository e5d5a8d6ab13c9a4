/**
 * The one migration runner (src/storage/migrate.ts), on SQLite: pending migrations in order, all or none, recorded
 * once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../../src/storage/open.ts';
import type { Migration } from '../../../src/storage/storage.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const v1: Migration = { version: 1, description: 'a', sql: 'CREATE TABLE a (x TEXT)' };
const v2: Migration = { version: 2, description: 'b', sql: { sqlite: 'CREATE TABLE b (y TEXT)', postgres: 'unused' } };

describe('migrations', () => {
  it('applies the pending ones in version order, records each once, and skips them at the next open', async () => {
    const location = join(dir, 'order.db');
    const db = await openStorage({ location, migrations: { one: [v2, v1] } });
    expect(await db.schemaVersion('one')).toBe(2);
    expect(await db.schemaVersion('other')).toBe(0);
    await db.run('INSERT INTO b (y) VALUES (?)', ['kept']);
    await db.close();
    const again = await openStorage({ location, migrations: { one: [v1, v2] } });
    expect(await again.all('SELECT area, version, description FROM schema_version ORDER BY version')).toEqual([
      { area: 'one', version: 1, description: 'a' },
      { area: 'one', version: 2, description: 'b' },
    ]);
    expect(await again.get('SELECT y FROM b')).toEqual({ y: 'kept' });
    await again.close();
  });

  it('a failing migration applies none of the pending ones, and the open fails', async () => {
    const location = join(dir, 'fail.db');
    const bad: Migration = { version: 3, description: 'bad', sql: 'CREATE TABLE c (z TEXT); SELECT * FROM nowhere' };
    await expect(openStorage({ location, migrations: { one: [v1, v2, bad] } })).rejects.toThrow(/nowhere/);
    const db = await openStorage({ location, migrations: {} });
    expect(await db.schemaVersion('one')).toBe(0);
    expect(await db.get("SELECT name FROM sqlite_master WHERE name IN ('a', 'b', 'c')")).toBeUndefined();
    await db.migrate('one', [v1]); // later, on the open storage (a plugin's tables)
    expect(await db.schemaVersion('one')).toBe(1);
    await db.close();
  });
});
