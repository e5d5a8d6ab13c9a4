/**
 * src/daemon/registry/domains.ts: the ids found not to be domains are
 * remembered (SQLite: one writer), so the ownership check of POST
 * /v1/sampling for a project that is not a registered domain reads nothing;
 * a domain saved under such an id is seen at once, and a rolled-back write
 * forgets them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcess } from '../harness.ts';

describe('Domains: ids that are not domains', () => {
  let s: InProcess;
  beforeAll(async () => {
    s = await startInProcess();
  });
  afterAll(async () => s?.close());

  it('a miss is remembered; a save under that id replaces it; a rollback forgets', async () => {
    const domains = s.registry.domains;
    const db = s.registry.db;
    const p = { keyId: 'k1', did: 'did:example:admin', roles: ['admin' as const] };
    const proto = await db.write(() => domains.create(p, { type: 'Protocol', metadata: { name: 'stoves' } }));

    const id = 'did:ixo:entity:' + 'ab'.repeat(16);
    expect(domains.known(id)).toBeUndefined();
    expect(await domains.find(id)).toBeUndefined();
    expect(domains.known(id)).toBeNull();

    // a domain saved under the id (as create does, with a fresh id) is found, not the remembered miss
    const saved = { ...(await domains.find(proto.id))!, id };
    await db.write(() => domains.save(saved, true));
    expect(domains.known(id)).toBeUndefined();
    expect((await domains.find(id))?.id).toBe(id);
    expect(domains.known(id)).toMatchObject({ id });

    // a rolled-back write clears what the caches hold
    const other = 'did:example:not-a-domain';
    expect(await domains.find(other)).toBeUndefined();
    expect(domains.known(other)).toBeNull();
    await expect(
      db.write(() => {
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(domains.known(other)).toBeUndefined();
  });
});
