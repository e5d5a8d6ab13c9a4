/**
 * The credits ledger on both backends: an in-memory SQLite database, and a
 * fresh PostgreSQL database per test on a real server (test/helpers/postgres.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../../../../src/storage/open.ts';
import type { Storage } from '../../../../../src/storage/storage.ts';
import { RUNTIME_MIGRATIONS } from '../../../../../src/runtime/migrations.ts';
import { CreditsLedger } from '../../../../../src/runtime/plugins/credits/ledger.ts';
import { BACKENDS, backendDatabases } from '../../../../helpers/postgres.ts';

describe.each(BACKENDS)('CreditsLedger on %s', (backend) => {
  const databases = backendDatabases(backend);
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const d of opened.splice(0)) await d.close();
  });
  const db = async (location = databases.fresh('ledger') ?? ':memory:') => {
    const d = await openStorage({ location, migrations: { runtime: RUNTIME_MIGRATIONS }, max: 4 });
    opened.push(d);
    return d;
  };

  it('fractional prices sum exactly; every movement balances; earnings = price × used turns', async () => {
    const d = await db();
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
    expect(
      Number(
        (await d.get<{ s: number }>(
          "SELECT SUM(amount_micro) AS s FROM credits_ledger WHERE account = 'oracle:did:key:oracle'",
        ))!.s,
      ),
    ).toBe(300_000);
    expect(await l.summary('did:key:u')).toMatchObject({
      paid: 0.3,
      prepaidBalance: 0,
      usedTurns: 3,
      prepaidTurns: 0,
      owed: 0,
    });
    expect(await d.schemaVersion('credits')).toBe(2); // v1 the ledger, v2 the verified payment references;
    // a second ledger on the same database does not migrate again
    const again = new CreditsLedger(d, { oracleDid: 'did:key:oracle', price: 0.1, denom: 'credit' });
    await expect(again.total()).resolves.toBe(0);
  });

  it('one outstanding claim at a time; several claims paid at once; a failed payment changes nothing', async () => {
    const d = await db();
    const l = new CreditsLedger(d, { oracleDid: 'did:key:o', price: 2, denom: 'uixo' });
    const a = await l.gate('did:key:u', 's');
    const b = await l.gate('did:key:u', 's');
    expect(!a.ok && !b.ok && a.claims[0] === b.claims[0]).toBe(true);
    await l.accept('did:key:u');
    await expect(l.pay('did:key:u', [...(a.ok ? [] : a.claims), 'claim-missing'], 4)).rejects.toThrow(
      /no claim claim-missing/,
    );
    expect(await l.total()).toBe(0);
    expect(await l.claims('did:key:u', 'outstanding')).toHaveLength(1);
    // other oracles' claims and users are separate
    const other = new CreditsLedger(d, { oracleDid: 'did:key:other', price: 2, denom: 'uixo' });
    expect(await other.claims('did:key:u')).toEqual([]);
    await expect(other.pay('did:key:u', a.ok ? [] : a.claims, 2)).rejects.toThrow(
      /accept this oracle's contract first/,
    );
  });

  it('two ledgers on one database at once (two instances on PostgreSQL): one contract, a paid claim buys one turn, one outstanding claim; amounts past 2^31 micro-units', async () => {
    const url = databases.fresh('ledger_two');
    const d1 = await db(url ?? ':memory:');
    const d2 = url ? await db(url) : d1;
    const terms = { oracleDid: 'did:key:o', price: 5000, denom: 'credit' };
    const a = new CreditsLedger(d1, terms);
    const b = new CreditsLedger(d2, terms);
    const accepted = await Promise.all([
      a.accept('did:key:u'),
      b.accept('did:key:u'),
      a.accept('did:key:u'),
      b.accept('did:key:u'),
    ]);
    expect(accepted.filter((x) => x.created)).toHaveLength(1);
    expect(new Set(accepted.map((x) => x.contract.contractId)).size).toBe(1);
    const first = await a.gate('did:key:u', 's');
    expect(first.ok).toBe(false);
    if (first.ok) return;
    await b.pay('did:key:u', first.claims, 5000);
    const gates = await Promise.all([
      a.gate('did:key:u', 's'),
      b.gate('did:key:u', 's'),
      a.gate('did:key:u', 's'),
      b.gate('did:key:u', 's'),
    ]);
    expect(gates.filter((g) => g.ok)).toHaveLength(1);
    expect(await a.claims('did:key:u', 'outstanding')).toHaveLength(1);
    expect(await b.balance('oracle:did:key:o')).toBe(5000);
    expect(await a.summary('did:key:u')).toMatchObject({ paid: 5000, usedTurns: 1, owed: 5000 });
    expect(await b.total()).toBe(0);
  });
});
