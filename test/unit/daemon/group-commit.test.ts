/**
 * Group commit (Storage.write) as the registry uses it: writes queued together share one COMMIT; a failing write is
 * rolled back alone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../../src/storage/open.ts';
import { REGISTRY_MIGRATIONS } from '../../../src/daemon/registry/migrations.ts';
import { Registry } from '../../../src/daemon/registry/index.ts';
import { DEFAULT_CONFIG } from '../../../src/daemon/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-gc-'));
const db = await openStorage({ location: join(dir, 'r.db'), migrations: { registry: REGISTRY_MIGRATIONS } });
const reg = new Registry(db, DEFAULT_CONFIG);
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Storage.write, with the registry', () => {
  it('settles each write with its own result; a failure leaves no trace and does not undo the others', async () => {
    const p = { keyId: 'k', did: 'did:example:a', roles: ['member' as const] };
    const ok1 = db.write(() => reg.domains.create(p, { type: 'Protocol', metadata: { name: 'one' } }));
    const bad = db.write(async () => {
      await reg.domains.create(p, { type: 'Protocol', metadata: { name: 'half' } });
      throw new Error('boom after a write');
    });
    const ok2 = db.write(() => reg.domains.create(p, { type: 'Protocol', metadata: { name: 'two' } }));
    const invalid = db.write(() => reg.domains.create(p, { type: 'Nope' }));
    const [a, b, c, d] = await Promise.allSettled([ok1, bad, ok2, invalid]);
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: { message: 'boom after a write' } });
    expect(c.status).toBe('fulfilled');
    expect(d).toMatchObject({ status: 'rejected', reason: { code: 'invalid_type' } });
    const names = (await db.all<{ name: string }>('SELECT name FROM domains ORDER BY seq')).map((r) => r.name);
    expect(names).toEqual(['one', 'two']);
    expect(db.inTransaction).toBe(false);
  });
});
