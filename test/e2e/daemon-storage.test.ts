/**
 * The daemon on a failing database (docs/daemon.md, docs/storage.md "Faults"): a registry file that fails
 * PRAGMA quick_check stops the daemon at start (exit 1, the message on its last line); on a full disk (a tmpfs this
 * test mounts) a write answers 507 storage_full and /health/ready says so until space is freed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { spawnDaemon, startInProcess, tempHome, waitExit, type InProcess } from '../unit/daemon/harness.ts';
import { mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../helpers/tmpfs.ts';
import { generateSigner } from '../../src/lib/keys/keys.ts';

const homes: (() => void)[] = [];
afterAll(() => homes.forEach((c) => c()));

describe('the daemon at start', () => {
  it('a registry file whose page 2 is overwritten: exit 1, naming the file and the integrity check', async () => {
    const t = tempHome();
    homes.push(t.cleanup);
    const file = join(t.home, 'data/registry.db');
    const d = await spawnDaemon(t.env, t.home);
    d.child.kill('SIGTERM');
    await waitExit(d.child);
    const raw = new DatabaseSync(file);
    const pageSize = (raw.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    raw.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, pageSize);
    closeSync(fd);
    const refused = await spawnDaemon(t.env, t.home).then(
      () => ({ started: true, message: '' }),
      (e: Error) => ({ started: false, message: e.message }),
    );
    expect(refused.started).toBe(false);
    expect(refused.message).toContain(`the database ${file} fails its integrity check (PRAGMA quick_check: `);
  });
});

const skipWhy = tmpfsUnavailable ? ` (${tmpfsUnavailable})` : '';
describe.skipIf(tmpfsUnavailable !== undefined)(`the daemon on a full disk${skipWhy}`, () => {
  let fs: Tmpfs;
  let s: InProcess | undefined;
  beforeAll(() => {
    fs = mountTmpfs(4096);
  });
  afterAll(async () => {
    await s?.close();
    fs?.unmount();
  });

  it('a write answers 507 storage_full, /health/ready too, until space is freed; then both work again', async () => {
    s = await startInProcess({}, { dbPath: join(fs.dir, 'registry.db') });
    const did = (await generateSigner()).did();
    const create = () => s!.call('POST', '/admin/v1/keys', { key: 'admin-token', body: { did, roles: ['member'] } });
    expect((await s.call('GET', '/health/ready')).status).toBe(200);
    await s.registry.db.exec('PRAGMA wal_checkpoint(TRUNCATE)'); // no room left in the WAL either
    fs.fill();
    const refused = await create();
    expect([refused.status, refused.body]).toMatchObject([
      507,
      { statusCode: 507, code: 'storage_full', details: { cause: 'SQLITE_FULL' } },
    ]);
    const ready = await s.call('GET', '/health/ready');
    expect([ready.status, ready.body.code]).toEqual([507, 'storage_full']);
    expect((await s.call('GET', '/health')).body.database).toEqual({
      backend: 'sqlite',
      status: 'unavailable',
      code: 'storage_full',
    });
    fs.free();
    expect((await s.call('GET', '/health/ready')).status).toBe(200);
    expect((await create()).status).toBe(201);
  });
});
