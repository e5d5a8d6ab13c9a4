import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../../src/storage/db.ts';
import { RUNTIME_MIGRATIONS } from '../../../../../src/runtime/migrations.ts';
import { CreditsLedger } from '../../../../../src/runtime/plugins/credits/ledger.ts';

const db = () => openDatabase({ path: ':memory:', migrations: { runtime: RUNTIME_MIGRATIONS } });

describe('CreditsLedger', () => {
  it('fractional prices sum exactly; every movement balances; earnings = price × used turns', () => {
    const d = db();
    const l = new CreditsLedger(d, { oracleDid: 'did:key:oracle', price: 0.1, denom: 'credit' });
    l.accept('did:key:u');
    for (let i = 0; i < 3; i++) {
      const g = l.gate('did:key:u', 's1');
      expect(g.ok).toBe(false);
      if (g.ok) return;
      l.pay('did:key:u', g.claims, 0.1);
      expect(l.gate('did:key:u', 's1').ok).toBe(true);
    }
    expect(l.total()).toBe(0);
    expect(l.balance('oracle:did:key:oracle')).toBeCloseTo(0.3, 12);
    expect(d.get<{ s: number }>("SELECT SUM(amount_micro) AS s FROM credits_ledger WHERE account = 'oracle:did:key:oracle'")!.s).toBe(300_000);
    expect(l.summary('did:key:u')).toMatchObject({ paid: 0.3, prepaidBalance: 0, usedTurns: 3, prepaidTurns: 0, owed: 0 });
    expect(d.schemaVersion('credits')).toBe(1);
    // a second ledger on the same database does not migrate again
    expect(() => new CreditsLedger(d, { oracleDid: 'did:key:oracle', price: 0.1, denom: 'credit' })).not.toThrow();
  });

  it('one outstanding claim at a time; several claims paid at once; a failed payment changes nothing', () => {
    const d = db();
    const l = new CreditsLedger(d, { oracleDid: 'did:key:o', price: 2, denom: 'uixo' });
    const a = l.gate('did:key:u', 's');
    const b = l.gate('did:key:u', 's');
    expect(!a.ok && !b.ok && a.claims[0] === b.claims[0]).toBe(true);
    l.accept('did:key:u');
    expect(() => l.pay('did:key:u', [...(a.ok ? [] : a.claims), 'claim-missing'], 4)).toThrow(/no claim claim-missing/);
    expect(l.total()).toBe(0);
    expect(l.claims('did:key:u', 'outstanding')).toHaveLength(1);
    // other oracles' claims and users are separate
    const other = new CreditsLedger(d, { oracleDid: 'did:key:other', price: 2, denom: 'uixo' });
    expect(other.claims('did:key:u')).toEqual([]);
    expect(() => other.pay('did:key:u', a.ok ? [] : a.claims, 2)).toThrow(/accept this oracle's contract first/);
  });
});
