/**
 * Faults of the database itself (src/storage/faults.ts, sqlite.ts): a full disk is 507 storage_full, a file that
 * cannot be used 503 storage_unavailable, a bug stays a bug; the storage keeps the last fault until a commit
 * succeeds and `probe()` says when it takes writes again — on a real full disk (a tmpfs this test mounts); a file
 * that fails PRAGMA quick_check is refused when it is opened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, openSync, closeSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openStorage } from '../../../src/storage/open.ts';
import { storageFault } from '../../../src/storage/faults.ts';
import { SqliteStorage } from '../../../src/storage/sqlite.ts';
import { HTTP_ERRORS, isOracleKitError, STORAGE_ERRORS, toErrorBody } from '../../../src/lib/errors.ts';
import { RUNTIME_ERRORS } from '../../../src/lib/protocol/errors.ts';
import { REGISTRY_ERRORS } from '../../../src/lib/registry/errors.ts';
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../../helpers/tmpfs.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const migrations = {
  t: [{ version: 1, description: 'a table', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)' }],
};

/** An error as node:sqlite throws it. */
const sqliteError = (errcode: number, errstr: string) =>
  Object.assign(new Error(errstr), { code: 'ERR_SQLITE_ERROR', errcode, errstr });

describe('what a database error means', () => {
  it('a full disk is 507 storage_full; an unusable file 503 storage_unavailable; a constraint is no fault', () => {
    const full = storageFault(sqliteError(13, 'database or disk is full'))!;
    expect(toErrorBody(full)).toMatchObject({
      statusCode: 507,
      code: 'storage_full',
      details: { cause: 'SQLITE_FULL' },
    });
    expect(storageFault(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toMatchObject({ status: 507 });
    expect(storageFault(Object.assign(new Error('could not extend file'), { code: '53100' }))).toMatchObject({
      code: 'storage_full',
    });
    // SQLITE_IOERR_FSYNC (10 | 4 << 8): the extended code shares the primary one
    expect(storageFault(sqliteError(10 | (4 << 8), 'disk I/O error'))).toMatchObject({
      status: 503,
      code: 'storage_unavailable',
      details: { cause: 'SQLITE_IOERR' },
    });
    expect(storageFault(sqliteError(8, 'attempt to write a readonly database'))).toMatchObject({ status: 503 });
    expect(storageFault(Object.assign(new Error('i/o'), { code: 'EIO' }))).toMatchObject({ status: 503 });
    expect(storageFault(sqliteError(19, 'UNIQUE constraint failed'))).toBeUndefined();
    expect(storageFault(new TypeError('x is undefined'))).toBeUndefined();
    // the message names the cause, never a path
    expect(full.message).toBe(
      'the disk that holds the database is full (SQLITE_FULL); nothing was stored. Retry once space is freed',
    );
  });

  it('the codes are in the tables of the runtime, the registry and storage, with their statuses', () => {
    for (const table of [HTTP_ERRORS, RUNTIME_ERRORS, REGISTRY_ERRORS, STORAGE_ERRORS]) {
      expect(table.storage_full.status).toBe(507);
      expect(table.storage_unavailable.status).toBe(503);
    }
    expect(STORAGE_ERRORS.database_corrupt.status).toBe(500);
  });
});

describe('a SQLite file that fails its integrity check', () => {
  it('page 2 overwritten: refused when opened with database_corrupt naming the file; an intact file opens', async () => {
    const path = join(dir, 'corrupt.db');
    const db = await openStorage({ location: path, migrations });
    for (let i = 0; i < 50; i++) await db.run('INSERT INTO t (v) VALUES (?)', [`row ${i}`]);
    await db.close();
    const raw = new DatabaseSync(path);
    const pageSize = (raw.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    raw.close();
    expect(() => new SqliteStorage({ path }).close()).not.toThrow();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, pageSize);
    closeSync(fd);
    let err: unknown;
    try {
      new SqliteStorage({ path });
    } catch (e) {
      err = e;
    }
    expect(isOracleKitError(err) && err.code).toBe('database_corrupt');
    expect((err as Error).message).toMatch(
      new RegExp(
        `^the database ${path} fails its integrity check \\(PRAGMA quick_check: .+\\); it is not served\\. Restore it from a backup`,
      ),
    );
  });
});

const skipWhy = tmpfsUnavailable ? ` (${tmpfsUnavailable})` : '';
describe.skipIf(tmpfsUnavailable !== undefined)(`a SQLite database on a full disk${skipWhy}`, () => {
  let fs: Tmpfs;
  beforeAll(() => {
    fs = mountTmpfs(2048);
  });
  afterAll(() => fs?.unmount());

  it('writes reject with 507 storage_full and nothing is stored; probe() fails until space is freed, then the fault clears', async () => {
    const db = (await openStorage({ location: join(fs.dir, 'full.db'), migrations })) as SqliteStorage;
    await db.write(() => db.run('INSERT INTO t (v) VALUES (?)', ['before']));
    await db.exec('PRAGMA wal_checkpoint(TRUNCATE)'); // no room left in the WAL: the next write needs new pages
    expect(fs.fill()).toBeGreaterThan(0);
    expect(db.fault).toBeUndefined();
    const big = 'x'.repeat(64 * 1024);
    await expect(db.write(() => db.run('INSERT INTO t (v) VALUES (?)', [big]))).rejects.toMatchObject({
      status: 507,
      code: 'storage_full',
    });
    await expect(db.run('INSERT INTO t (v) VALUES (?)', [big])).rejects.toMatchObject({ code: 'storage_full' });
    expect(db.fault?.code).toBe('storage_full');
    await expect(db.probe()).rejects.toMatchObject({ code: 'storage_full' });
    // reads still answer, and saw nothing of the refused writes
    expect(await db.all('SELECT v FROM t')).toEqual([{ v: 'before' }]);
    fs.free();
    await db.probe();
    expect(db.fault).toBeUndefined();
    await db.write(() => db.run('INSERT INTO t (v) VALUES (?)', [big]));
    expect((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))!.n).toBe(2);
    await db.close();
  });
});
