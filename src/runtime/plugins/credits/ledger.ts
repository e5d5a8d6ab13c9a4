/**
 * The credits ledger in the runtime's database (migration area 'credits').
 * Amounts are integers in micro-units (1 credit = 1_000_000) so every sum is
 * exact. Double entry: each movement writes rows that sum to zero.
 *   pay:     user:<did> −amount,  escrow:<did> +amount   (claims become paid)
 *   consume: escrow:<did> −price, oracle:<oracleDid> +price (a paid claim buys one turn)
 */
import { randomUUID } from 'node:crypto';
import type { Migration, Storage } from '../../../storage/storage.ts';
import { creditsError } from './errors.ts';

const MICRO = 1_000_000;
const toMicro = (n: number) => Math.round(n * MICRO);
const fromMicro = (n: number) => n / MICRO;

/** The 'credits' area's migrations, applied by storage on the runtime's connection. Append only. */
const CREDITS_MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'credits: contracts, claims, payments, double-entry ledger',
    sql: `
      CREATE TABLE credits_contracts (
        id TEXT PRIMARY KEY, user_did TEXT NOT NULL, oracle_did TEXT NOT NULL,
        price_micro INTEGER NOT NULL, denom TEXT NOT NULL, unit TEXT NOT NULL,
        created_at TEXT NOT NULL, UNIQUE (user_did, oracle_did)
      );
      CREATE TABLE credits_claims (
        id TEXT PRIMARY KEY, user_did TEXT NOT NULL, oracle_did TEXT NOT NULL, session_id TEXT NOT NULL,
        amount_micro INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('outstanding', 'paid', 'consumed')),
        payment_id TEXT, created_at TEXT NOT NULL, paid_at TEXT, consumed_at TEXT
      );
      CREATE INDEX credits_claims_user ON credits_claims (user_did, oracle_did, status, created_at);
      CREATE TABLE credits_payments (
        id TEXT PRIMARY KEY, user_did TEXT NOT NULL, oracle_did TEXT NOT NULL, contract_id TEXT NOT NULL,
        amount_micro INTEGER NOT NULL, reference TEXT, created_at TEXT NOT NULL
      );
      CREATE TABLE credits_ledger (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('payment', 'usage')),
        account TEXT NOT NULL, amount_micro INTEGER NOT NULL, claim_id TEXT, payment_id TEXT, created_at TEXT NOT NULL
      );
      CREATE INDEX credits_ledger_account ON credits_ledger (account);
    `,
  },
];

export interface Contract {
  contractId: string;
  oracleDid: string;
  userDid: string;
  price: number;
  denom: string;
  unit: 'turn';
  createdAt: string;
}

export interface Claim {
  claimId: string;
  amount: number;
  denom: string;
  sessionId: string;
  status: 'outstanding' | 'paid' | 'consumed';
  createdAt: string;
}

interface ClaimRow {
  id: string;
  session_id: string;
  amount_micro: number;
  status: Claim['status'];
  created_at: string;
}

export class CreditsLedger {
  readonly db: Storage;
  readonly oracleDid: string;
  readonly priceMicro: number;
  readonly denom: string;
  /** The credits tables' migrations, applied on the runtime's connection; every method waits for them. */
  private readonly ready: Promise<void>;

  constructor(db: Storage, o: { oracleDid: string; price: number; denom: string }) {
    this.db = db;
    this.oracleDid = o.oracleDid;
    this.priceMicro = toMicro(o.price);
    this.denom = o.denom;
    this.ready = db.migrate('credits', CREDITS_MIGRATIONS);
    this.ready.catch(() => {}); // the error reaches every caller through `await this.ready`
  }

  private claim(r: ClaimRow): Claim {
    return { claimId: r.id, amount: fromMicro(r.amount_micro), denom: this.denom, sessionId: r.session_id, status: r.status, createdAt: r.created_at };
  }

  terms() {
    return { oracleDid: this.oracleDid, price: fromMicro(this.priceMicro), denom: this.denom, unit: 'turn' as const };
  }

  async contract(userDid: string): Promise<Contract | undefined> {
    await this.ready;
    const r = await this.db.get<{ id: string; price_micro: number; denom: string; created_at: string }>('SELECT * FROM credits_contracts WHERE user_did = ? AND oracle_did = ?', [userDid, this.oracleDid]);
    return r ? { contractId: r.id, oracleDid: this.oracleDid, userDid, price: fromMicro(r.price_micro), denom: r.denom, unit: 'turn', createdAt: r.created_at } : undefined;
  }

  /** Accepts the oracle's terms (idempotent). */
  async accept(userDid: string): Promise<{ contract: Contract; created: boolean }> {
    const existing = await this.contract(userDid);
    if (existing) return { contract: existing, created: false };
    await this.db.run('INSERT INTO credits_contracts (id, user_did, oracle_did, price_micro, denom, unit, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      `contract-${randomUUID()}`, userDid, this.oracleDid, this.priceMicro, this.denom, 'turn', new Date().toISOString(),
    ]);
    return { contract: (await this.contract(userDid))!, created: true };
  }

  async claims(userDid: string, status?: Claim['status']): Promise<Claim[]> {
    await this.ready;
    const rows = status
      ? await this.db.all<ClaimRow>('SELECT * FROM credits_claims WHERE user_did = ? AND oracle_did = ? AND status = ? ORDER BY created_at, rowid', [userDid, this.oracleDid, status])
      : await this.db.all<ClaimRow>('SELECT * FROM credits_claims WHERE user_did = ? AND oracle_did = ? ORDER BY created_at, rowid', [userDid, this.oracleDid]);
    return rows.map((r) => this.claim(r));
  }

  /**
   * The pre-turn gate: a paid claim buys the turn (consumed now); otherwise
   * the caller's outstanding claim (one at a time, created for this turn when
   * none is open) must be paid first.
   */
  async gate(userDid: string, sessionId: string): Promise<{ ok: true; claimId: string } | { ok: false; claims: string[]; outstanding: Claim[] }> {
    await this.ready;
    return this.db.tx(async () => {
      const paid = await this.db.get<ClaimRow>("SELECT * FROM credits_claims WHERE user_did = ? AND oracle_did = ? AND status = 'paid' ORDER BY created_at, rowid LIMIT 1", [userDid, this.oracleDid]);
      if (paid) {
        const now = new Date().toISOString();
        const entry = `usage-${randomUUID()}`;
        await this.db.run("UPDATE credits_claims SET status = 'consumed', consumed_at = ? WHERE id = ?", [now, paid.id]);
        await this.db.run("INSERT INTO credits_ledger (entry_id, kind, account, amount_micro, claim_id, created_at) VALUES (?, 'usage', ?, ?, ?, ?)", [entry, `escrow:${userDid}`, -paid.amount_micro, paid.id, now]);
        await this.db.run("INSERT INTO credits_ledger (entry_id, kind, account, amount_micro, claim_id, created_at) VALUES (?, 'usage', ?, ?, ?, ?)", [entry, `oracle:${this.oracleDid}`, paid.amount_micro, paid.id, now]);
        return { ok: true as const, claimId: paid.id };
      }
      let open = await this.claims(userDid, 'outstanding');
      if (open.length === 0) {
        await this.db.run("INSERT INTO credits_claims (id, user_did, oracle_did, session_id, amount_micro, status, created_at) VALUES (?, ?, ?, ?, ?, 'outstanding', ?)", [
          `claim-${randomUUID()}`, userDid, this.oracleDid, sessionId, this.priceMicro, new Date().toISOString(),
        ]);
        open = await this.claims(userDid, 'outstanding');
      }
      return { ok: false as const, claims: [open[0]!.claimId], outstanding: open };
    });
  }

  /** Pays claims: the amount must equal their total exactly. */
  async pay(userDid: string, claimIds: string[], amount: number, reference?: string): Promise<{ paymentId: string; paid: Claim[]; amount: number }> {
    const contract = await this.contract(userDid);
    if (!contract) throw creditsError('contract_required', "accept this oracle's contract first: POST /credits/contract");
    return this.db.tx(async () => {
      const unique = [...new Set(claimIds)];
      const rows: ClaimRow[] = [];
      for (const id of unique) {
        const r = await this.db.get<ClaimRow>('SELECT * FROM credits_claims WHERE id = ? AND user_did = ? AND oracle_did = ?', [id, userDid, this.oracleDid]);
        if (!r) throw creditsError('claim_not_found', `no claim ${id}`, { field: 'claimIds' });
        if (r.status !== 'outstanding') throw creditsError('claim_not_outstanding', `claim ${id} is already ${r.status}`, { field: 'claimIds' });
        rows.push(r);
      }
      const total = rows.reduce((a, r) => a + r.amount_micro, 0);
      if (toMicro(amount) !== total) throw creditsError('payment_mismatch', `the claims total ${fromMicro(total)} ${this.denom}; the payment was ${amount}`, { field: 'amount', details: { expected: fromMicro(total) } });
      const now = new Date().toISOString();
      const paymentId = `payment-${randomUUID()}`;
      await this.db.run('INSERT INTO credits_payments (id, user_did, oracle_did, contract_id, amount_micro, reference, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [paymentId, userDid, this.oracleDid, contract.contractId, total, reference ?? null, now]);
      for (const r of rows) {
        await this.db.run("UPDATE credits_claims SET status = 'paid', paid_at = ?, payment_id = ? WHERE id = ?", [now, paymentId, r.id]);
        const entry = `payment-${randomUUID()}`;
        await this.db.run("INSERT INTO credits_ledger (entry_id, kind, account, amount_micro, claim_id, payment_id, created_at) VALUES (?, 'payment', ?, ?, ?, ?, ?)", [entry, `user:${userDid}`, -r.amount_micro, r.id, paymentId, now]);
        await this.db.run("INSERT INTO credits_ledger (entry_id, kind, account, amount_micro, claim_id, payment_id, created_at) VALUES (?, 'payment', ?, ?, ?, ?, ?)", [entry, `escrow:${userDid}`, r.amount_micro, r.id, paymentId, now]);
      }
      return { paymentId, paid: rows.map((r) => this.claim({ ...r, status: 'paid' })), amount: fromMicro(total) };
    });
  }

  async balance(account: string): Promise<number> {
    await this.ready;
    return fromMicro(Number((await this.db.get<{ s: number | string | null }>('SELECT SUM(amount_micro) AS s FROM credits_ledger WHERE account = ?', [account]))?.s ?? 0));
  }

  /** The caller's view: what they paid, spent, have prepaid, and owe. */
  async summary(userDid: string) {
    const outstanding = await this.claims(userDid, 'outstanding');
    const prepaid = await this.claims(userDid, 'paid');
    return {
      ...this.terms(),
      contract: (await this.contract(userDid)) ?? null,
      paid: -(await this.balance(`user:${userDid}`)),
      prepaidBalance: await this.balance(`escrow:${userDid}`),
      prepaidTurns: prepaid.length,
      usedTurns: (await this.claims(userDid, 'consumed')).length,
      outstandingClaims: outstanding,
      owed: fromMicro(outstanding.reduce((a, c) => a + toMicro(c.amount), 0)),
    };
  }

  async entries(userDid: string) {
    await this.ready;
    return (
      await this.db.all<{ entry_id: string; kind: string; account: string; amount_micro: number; claim_id: string | null; payment_id: string | null; created_at: string }>(
        'SELECT * FROM credits_ledger WHERE entry_id IN (SELECT entry_id FROM credits_ledger WHERE account IN (?, ?)) ORDER BY seq',
        [`user:${userDid}`, `escrow:${userDid}`],
      )
    ).map((r) => ({ entryId: r.entry_id, kind: r.kind, account: r.account, amount: fromMicro(r.amount_micro), claimId: r.claim_id, paymentId: r.payment_id, createdAt: r.created_at }));
  }

  /** Sum of every ledger row (always 0: double entry). */
  async total(): Promise<number> {
    await this.ready;
    return fromMicro(Number((await this.db.get<{ s: number | string | null }>('SELECT SUM(amount_micro) AS s FROM credits_ledger'))?.s ?? 0));
  }
}
