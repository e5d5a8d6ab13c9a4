import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../../src/storage/db.ts';
import { RUNTIME_MIGRATIONS } from '../../../../../src/runtime/migrations.ts';
import { CreditsLedger } from '../../../../../src/runtime/plugins/credits/ledger.ts';

const db = () => openDatabase({ path: ':memory:', migrations: { runtime: RUNTIME_MIGRATIONS } });

describe('CreditsLedger', () => {
  it('fractional prices sum exactly; every movement balances; earnings = price × used turns', async () => {
    const d = db();
    const l = new CreditsLedger(d, { oracleDid: 'did:key:oracle', price: 0.1, denom: 'credit' });
    await l.accept('did:key:u');
    for (let i = 0; i < 3; i++) {
      const g = await l.gate('did:key:u', 's1');
      expect(g.ok).toBe(false);
      if (g.ok) return;
      await l.pay('did:key:u', g.claims, 0.1);
      expect((await l.gate('did:key:u', 's1')).ok).toBe(true);
    }
    expect(await l.total()).toBe(0);
    expect(await l.balance('oracle:did:key:oracle')).toBeCloseTo(0.3, 12);
    expect(Number((await d.get<{ s: number }>("SELECT SUM(amount_micro) AS s FROM credits_ledger WHERE account = 'oracle:did:key:oracle'"))!.s)).toBe(300_000);
    expect(await l.summary('did:key:u')).toMatchObject({ paid: 0.3, prepaidBalance: 0, usedTurns: 3, prepaidTurns: 0, owed: 0 });
    expect(await d.schemaVersion('credits')).toBe(1);
    // a second ledger on the same database does not migrate again
    const again = new CreditsLedger(d, { oracleDid: 'did:key:oracle', price: 0.1, denom: 'credit' });
    await expect(again.total()).resolves.toBe(0);
  });

  it('one outstanding claim at a time; several claims paid at once; a failed payment changes nothing', async () => {
    const d = db();
    const l = new CreditsLedger(d, { oracleDid: 'did:key:o', price: 2, denom: 'uixo' });
    const a = await l.gate('did:key:u', 's');
    const b = await l.gate('did:key:u', 's');
    expect(!a.ok && !b.ok && a.claims[0] === b.claims[0]).toBe(true);
    await l.accept('did:key:u');
    await expect(l.pay('did:key:u', [...(a.ok ? [] : a.claims), 'claim-missing'], 4)).rejects.toThrow(/no claim claim-missing/);
    expect(await l.total()).toBe(0);
    expect(await l.claims('did:key:u', 'outstanding')).toHaveLength(1);
    // other oracles' claims and users are separate
    const other = new CreditsLedger(d, { oracleDid: 'did:key:other', price: 2, denom: 'uixo' });
    expect(await other.claims('did:key:u')).toEqual([]);
    await expect(other.pay('did:key:u', a.ok ? [] : a.claims, 2)).rejects.toThrow(/accept this oracle's contract first/);
  });
});
