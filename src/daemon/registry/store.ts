/**
 * The registry's operations over the database: API keys, sample designs,
 * domains, verification proposals and votes. Every write is part of one
 * SQLite transaction (BEGIN IMMEDIATE … COMMIT), and its reply is sent only
 * after the WAL holding it was fsynced (Database.durable), so a reply is only
 * sent for a write that is on disk, and a kill -9 leaves either the whole
 * record or nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../storage/db.ts';
import type { DeploymentConfig } from '../config.ts';
import { OracleKitError } from '../../lib/errors.ts';
import { registryError, fieldError } from '../../lib/registry/errors.ts';
import {
  applyPatch,
  transition,
  validateCreate,
  view,
  parseRfc3339,
  requireDid,
  checkHttpUrl,
  DOMAIN_STATES,
  DOMAIN_TYPES,
  type Domain,
  type DomainFields,
  type DomainView,
} from '../../lib/registry/domain.ts';
import {
  computeStatus,
  ruleFromJson,
  ruleToJson,
  VOTE_OPTIONS,
  type ProposalStatus,
  type RuleJson,
  type SnapshotVoter,
  type VoteOption,
} from '../../lib/registry/tally.ts';
import { computeDesign, type Design } from '../../lib/sampling/design.ts';
import { uuidv7 } from '../../lib/registry/uuidv7.ts';

export const ROLES = ['admin', 'representative', 'voter', 'verifier', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface Principal {
  keyId: string;
  did: string;
  roles: Role[];
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const nowIso = (t = Date.now()) => new Date(t).toISOString();

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}
function decodeCursor(c: unknown): number {
  if (c === undefined || c === '') return 0;
  const t = typeof c === 'string' ? Buffer.from(c, 'base64url').toString() : '';
  const m = /^s(\d{1,15})$/.exec(t);
  if (!m) throw fieldError('invalid_query', 'cursor', c, 'a nextCursor from a previous page');
  return Number(m[1]);
}
function pageLimit(v: unknown): number {
  if (v === undefined) return 50;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw fieldError('invalid_query', 'limit', v, 'an integer 1..200');
  return n;
}

export interface DesignRecord {
  designId: string;
  projectId: string;
  version: number;
  previousDesignId: string | null;
  parameters: Design['parameters'];
  stratification: Design['stratification'];
  verification: { status: 'draft' | 'submitted' | 'approved' | 'rejected'; verifier: string | null; timestamp: string | null; reason?: string };
  flags: string[];
  input: Record<string, unknown>;
  change?: { period: string | null; previousAdjustedSize: number; adjustedSize: number; direction: 'up' | 'down' | 'same'; by: number };
  createdBy: string;
  createdAt: string;
}

/** The entity package of a verification proposal (checkPackage). */
export interface VerificationPackage {
  documents: { url: string; hash: string; name?: string }[];
}

export interface ProposalView {
  id: string;
  domainId: string;
  status: ProposalStatus;
  /** status, with executed shown as passed (the outcome of the vote). */
  outcome: Exclude<ProposalStatus, 'executed'>;
  rule: RuleJson;
  revoting: boolean;
  snapshot: SnapshotVoter[];
  tally: ReturnType<typeof computeStatus>['tally'];
  deadline: string;
  package: VerificationPackage;
  description: string | null;
  proposer: string;
  createdAt: string;
  closedAt: string | null;
}

interface ProposalRow {
  id: string;
  domain_id: string;
  status: ProposalStatus;
  snapshot: string;
  rule: string;
  revoting: number;
  deadline: string;
  deadline_ms: number;
  package: string;
  description: string | null;
  proposer: string;
  created_at: string;
  closed_at: string | null;
}

export class Registry {
  readonly db: Database;
  readonly config: DeploymentConfig;
  /** The clock; tests of deadlines replace it. */
  now: () => number = () => Date.now();

  constructor(db: Database, config: DeploymentConfig) {
    this.db = db;
    this.config = config;
  }

  // ---------------------------------------------------------- group commit

  private queue: { fn: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  private flushScheduled = false;

  /**
   * Runs a write in the next group commit: the writes queued while the event
   * loop was busy run in ONE transaction, each inside its own SAVEPOINT (a
   * failing write is rolled back alone and gets its error), then one COMMIT,
   * then one fsync of the WAL for the whole group, off the event loop
   * (Database.durable). A caller's promise settles only after that fsync, so
   * nothing is acknowledged before it is durable; a kill -9 before the COMMIT
   * loses the group, none of which was acknowledged.
   */
  write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private waitedTicks = 0;
  private lastQueued = 0;

  private flush(): void {
    // commit delay: while more writes keep arriving (bodies still being parsed), let them join — at most 3 turns of the event loop
    if (this.queue.length > this.lastQueued && this.waitedTicks < 3) {
      this.lastQueued = this.queue.length;
      this.waitedTicks++;
      setImmediate(() => this.flush());
      return;
    }
    this.waitedTicks = 0;
    this.lastQueued = 0;
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const raw = this.db.raw;
    try {
      raw.exec('BEGIN IMMEDIATE');
    } catch (e) {
      for (const b of batch) b.reject(e);
      return;
    }
    for (const b of batch) {
      this.db.run('SAVEPOINT w');
      try {
        const value = b.fn();
        this.db.run('RELEASE w');
        outcomes.push({ ok: true, value });
      } catch (e) {
        this.domainCache.clear();
        this.db.run('ROLLBACK TO w');
        this.db.run('RELEASE w');
        outcomes.push({ ok: false, value: e });
      }
    }
    try {
      raw.exec('COMMIT');
      this.db.noteCommit();
    } catch (e) {
      this.domainCache.clear();
      if (raw.isTransaction) raw.exec('ROLLBACK');
      for (const b of batch) b.reject(e);
      return;
    }
    // a failed write changed nothing: its error goes out now; the others are acknowledged once durable
    const done: typeof batch = [];
    batch.forEach((b, i) => (outcomes[i]!.ok ? done.push(b) : b.reject(outcomes[i]!.value)));
    if (done.length === 0) return;
    this.db.durable().then(
      () => batch.forEach((b, i) => outcomes[i]!.ok && b.resolve(outcomes[i]!.value)),
      (e: unknown) => done.forEach((b) => b.reject(e)),
    );
  }

  // ---------------------------------------------------------------- API keys

  createKey(did: string, roles: string[], label?: string): { id: string; key: string; did: string; roles: Role[]; createdAt: string } {
    requireDid('did', did);
    if (!Array.isArray(roles) || roles.length === 0) throw fieldError('invalid_role', 'roles', roles, ROLES.join(', '));
    for (const r of roles) if (!(ROLES as readonly string[]).includes(r)) throw fieldError('invalid_role', 'roles', r, ROLES.join(', '));
    const id = 'key_' + randomBytes(6).toString('hex');
    const key = `ok_${id.slice(4)}_${randomBytes(24).toString('base64url')}`;
    const createdAt = nowIso(this.now());
    const uniq = [...new Set(roles)] as Role[];
    this.db.run('INSERT INTO api_keys (id, hash, prefix, did, roles, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      id,
      sha256(key),
      key.slice(0, 16),
      did,
      JSON.stringify(uniq),
      label ?? null,
      createdAt,
    ]);
    return { id, key, did, roles: uniq, createdAt };
  }

  listKeys(): { id: string; prefix: string; did: string; roles: Role[]; label: string | null; createdAt: string; revokedAt: string | null }[] {
    return this.db
      .all<{ id: string; prefix: string; did: string; roles: string; label: string | null; created_at: string; revoked_at: string | null }>(
        'SELECT id, prefix, did, roles, label, created_at, revoked_at FROM api_keys ORDER BY created_at, id',
      )
      .map((r) => ({ id: r.id, prefix: r.prefix, did: r.did, roles: JSON.parse(r.roles), label: r.label, createdAt: r.created_at, revokedAt: r.revoked_at }));
  }

  revokeKey(id: string): { id: string; revokedAt: string } {
    const row = this.db.get<{ revoked_at: string | null }>('SELECT revoked_at FROM api_keys WHERE id = ?', [id]);
    if (!row) throw registryError('key_not_found', `no API key ${id}`, { field: 'id', value: id });
    const at = row.revoked_at ?? nowIso(this.now());
    this.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [at, id]);
    this.principals.clear();
    return { id, revokedAt: at };
  }

  /** Valid keys seen (by hash); cleared on every revocation. Keys are only managed through this process. */
  private principals = new Map<string, Principal>();

  /** The principal of a presented key, or undefined (unknown or revoked). */
  authenticate(key: string): Principal | undefined {
    return this.authenticateHash(sha256(key));
  }

  /** As authenticate, given the key's SHA-256 (hex). */
  authenticateHash(h: string): Principal | undefined {
    const hit = this.principals.get(h);
    if (hit) return hit;
    const p = this.lookupKey(h);
    if (p) {
      if (this.principals.size >= 10_000) this.principals.clear();
      this.principals.set(h, p);
    }
    return p;
  }

  private lookupKey(hash: string): Principal | undefined {
    const row = this.db.get<{ id: string; did: string; roles: string; revoked_at: string | null }>(
      'SELECT id, did, roles, revoked_at FROM api_keys WHERE hash = ?',
      [hash],
    );
    if (!row || row.revoked_at !== null) return undefined;
    return { keyId: row.id, did: row.did, roles: JSON.parse(row.roles) };
  }

  // ----------------------------------------------------------- idempotency

  /**
   * Runs a create under an Idempotency-Key: the same key and body replays the
   * stored reply; another body → 409. The reply is stored in the same
   * transaction as the write.
   */
  idempotent<T>(p: Principal, key: string | undefined, route: string, body: unknown, fn: () => { status: number; body: T; location?: string }): { status: number; body: T; location?: string; replayed: boolean } {
    if (key === undefined) return { ...fn(), replayed: false };
    if (key.length < 1 || key.length > 255 || /[^\x21-\x7e]/.test(key)) throw fieldError('invalid_header', 'Idempotency-Key', key, '1 to 255 visible ASCII characters');
    const hash = sha256(route + '\n' + stableJson(body));
    return this.db.transaction(() => {
      const prev = this.db.get<{ body_hash: string; status_code: number; response: string; location: string | null }>(
        'SELECT body_hash, status_code, response, location FROM idempotency WHERE principal = ? AND key = ?',
        [p.did, key],
      );
      if (prev) {
        if (prev.body_hash !== hash) throw registryError('idempotency_conflict', `Idempotency-Key ${key} was used with a different body`, { field: 'Idempotency-Key', value: key });
        const out: { status: number; body: T; location?: string; replayed: boolean } = { status: prev.status_code, body: JSON.parse(prev.response) as T, replayed: true };
        if (prev.location) out.location = prev.location;
        return out;
      }
      const r = fn();
      this.db.run('INSERT INTO idempotency (principal, key, route, body_hash, status_code, response, location, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        p.did,
        key,
        route,
        hash,
        r.status,
        JSON.stringify(r.body),
        r.location ?? null,
        nowIso(this.now()),
      ]);
      return { ...r, replayed: false };
    });
  }

  // ------------------------------------------------------- sample designs

  createDesign(p: Principal, raw: unknown): DesignRecord {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fieldError('invalid_body', 'body', raw, 'a JSON object (sampling.md inputs plus projectId)');
    const body = raw as Record<string, unknown>;
    const projectId = requireDid('projectId', body.projectId);
    const { projectId: _p, ...input } = body;
    const design = computeDesign(input);
    const rec: DesignRecord = {
      designId: uuidv7(),
      projectId,
      version: 1,
      previousDesignId: null,
      parameters: design.parameters,
      stratification: design.stratification,
      verification: { status: 'draft', verifier: null, timestamp: null },
      flags: design.flags,
      input,
      createdBy: p.did,
      createdAt: nowIso(this.now()),
    };
    this.insertDesign(rec);
    return rec;
  }

  /** The JSON text each record was stored as, so its reply does not stringify the same record again. */
  private readonly storedJson = new WeakMap<object, string>();

  /** The JSON text a record was stored as in this process, if it was. */
  jsonOf(rec: unknown): string | undefined {
    return typeof rec === 'object' && rec !== null ? this.storedJson.get(rec) : undefined;
  }

  private insertDesign(rec: DesignRecord): void {
    const json = JSON.stringify(rec);
    this.storedJson.set(rec, json);
    this.db.run('INSERT INTO designs (design_id, project_id, version, previous_id, status, record, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      rec.designId,
      rec.projectId,
      rec.version,
      rec.previousDesignId,
      rec.verification.status,
      json,
      rec.createdBy,
      rec.createdAt,
    ]);
  }

  getDesign(id: string): DesignRecord {
    const row = this.db.get<{ record: string }>('SELECT record FROM designs WHERE design_id = ?', [id]);
    if (!row) throw registryError('design_not_found', `no design ${id}`, { field: 'designId', value: id });
    return JSON.parse(row.record) as DesignRecord;
  }

  listDesigns(q: Record<string, unknown>): Page<DesignRecord> {
    for (const k of Object.keys(q)) if (!['projectId', 'limit', 'cursor'].includes(k)) throw fieldError('unknown_field', k, q[k], 'projectId, limit, cursor');
    const limit = pageLimit(q.limit);
    const after = decodeCursor(q.cursor);
    const params: (string | number)[] = [after];
    let where = 'seq > ?';
    if (q.projectId !== undefined) {
      where += ' AND project_id = ?';
      params.push(requireDid('projectId', q.projectId));
    }
    const rows = this.db.all<{ seq: number; record: string }>(`SELECT seq, record FROM designs WHERE ${where} ORDER BY seq LIMIT ${limit + 1}`, params);
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    return { items: items.map((r) => JSON.parse(r.record)), nextCursor: more ? encodeCursor(items[items.length - 1]!.seq) : null };
  }

  /**
   * A monitoring period's observed values → a new version linked to the old
   * one (the old one is never changed). Body: {period?, observedMean,
   * observedSD | observedProportion, dropoutRate?, population?, erCoverage?,
   * strata?: [{name, mean, sd}]}.
   */
  recalculate(p: Principal, id: string, raw: unknown): DesignRecord {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fieldError('invalid_body', 'body', raw, 'a JSON object');
    const b = raw as Record<string, unknown>;
    const allowed = ['period', 'observedMean', 'observedSD', 'observedProportion', 'dropoutRate', 'population', 'erCoverage', 'strata'];
    for (const k of Object.keys(b)) if (!allowed.includes(k)) throw fieldError('unknown_field', k, b[k], allowed.join(', '));
    if (b.period !== undefined && (typeof b.period !== 'string' || b.period.length > 64)) throw fieldError('invalid_body', 'period', b.period, 'a label of at most 64 characters, e.g. 2026-Q1');
    return this.db.transaction(() => {
      const prev = this.getDesign(id);
      const successor = this.db.get('SELECT design_id FROM designs WHERE previous_id = ?', [id]);
      if (successor) throw registryError('invalid_state', `design ${id} already has a newer version; recalculate the latest`, { details: { newer: successor.design_id } });
      const input: Record<string, unknown> = { ...prev.input };
      if (b.observedProportion !== undefined) {
        delete input.expectedMean;
        delete input.expectedSD;
        input.expectedProportion = b.observedProportion;
      } else if (b.observedMean !== undefined || b.observedSD !== undefined) {
        delete input.expectedProportion;
        input.expectedMean = b.observedMean ?? prev.input.expectedMean;
        input.expectedSD = b.observedSD ?? prev.input.expectedSD;
      }
      for (const k of ['dropoutRate', 'population', 'erCoverage'] as const) if (b[k] !== undefined) input[k] = b[k];
      if (b.strata !== undefined) {
        const strat = input.stratification as { strata?: Record<string, unknown>[] } | undefined;
        if (!Array.isArray(b.strata) || !strat?.strata) throw fieldError('invalid_body', 'strata', b.strata, 'observed [{name, mean, sd}] of a stratified design');
        const byName = new Map(strat.strata.map((s) => [String(s.name).trim().toLowerCase(), s]));
        const strata = strat.strata.map((s) => ({ ...s }));
        b.strata.forEach((o: unknown, i: number) => {
          const r = o as Record<string, unknown>;
          const s = byName.get(String(r?.name).trim().toLowerCase());
          if (!s) throw fieldError('invalid_body', `strata[${i}].name`, r?.name, `a stratum of the design: ${[...byName.keys()].join(', ')}`);
          const t = strata.find((x) => x.name === s.name)!;
          if (r.mean !== undefined) t.mean = r.mean;
          if (r.sd !== undefined) t.sd = r.sd;
        });
        input.stratification = { ...strat, strata };
      }
      const design = computeDesign(input);
      const before = prev.parameters.adjustedSize;
      const after = design.parameters.adjustedSize;
      const rec: DesignRecord = {
        designId: uuidv7(),
        projectId: prev.projectId,
        version: prev.version + 1,
        previousDesignId: prev.designId,
        parameters: design.parameters,
        stratification: design.stratification,
        verification: { status: 'draft', verifier: null, timestamp: null },
        flags: design.flags,
        input,
        change: { period: (b.period as string | undefined) ?? null, previousAdjustedSize: before, adjustedSize: after, direction: after > before ? 'up' : after < before ? 'down' : 'same', by: Math.abs(after - before) },
        createdBy: p.did,
        createdAt: nowIso(this.now()),
      };
      this.insertDesign(rec);
      return rec;
    });
  }

  /**
   * Verification: {status: submitted} by the creator or a controller of the
   * project (draft → submitted); {status: approved|rejected, reason?} by a
   * verifier (draft or submitted → approved/rejected). Approval needs the
   * project to be an eligible domain when the registry knows it.
   */
  verifyDesign(p: Principal, id: string, raw: unknown): DesignRecord {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fieldError('invalid_body', 'body', raw, '{status, reason?}');
    const b = raw as Record<string, unknown>;
    for (const k of Object.keys(b)) if (k !== 'status' && k !== 'reason') throw fieldError('unknown_field', k, b[k], 'status, reason');
    const status = b.status;
    if (status !== 'submitted' && status !== 'approved' && status !== 'rejected') throw fieldError('invalid_verification', 'status', status, 'submitted, approved or rejected');
    if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > 2000)) throw fieldError('invalid_body', 'reason', b.reason, 'a string of at most 2000 characters');
    return this.db.transaction(() => {
      const rec = this.getDesign(id);
      const cur = rec.verification.status;
      if (cur === 'approved' || cur === 'rejected') throw registryError('design_immutable', `design ${id} is ${cur}; recalculate to make a new version`, { details: { status: cur } });
      if (status === 'submitted') {
        if (cur !== 'draft') throw registryError('invalid_state', `design ${id} is ${cur}, not draft`, { details: { status: cur } });
        const dom = this.findDomain(rec.projectId);
        const allowed = rec.createdBy === p.did || p.roles.includes('admin') || (dom?.controllers.includes(p.did) ?? false);
        if (!allowed) throw registryError('not_controller', `only the design's creator or a controller of ${rec.projectId} may submit it`);
      } else {
        if (!p.roles.includes('verifier')) throw registryError('forbidden_role', 'approving or rejecting a design needs the verifier role', { details: { need: 'verifier', have: p.roles } });
        if (status === 'approved') {
          const dom = this.findDomain(rec.projectId);
          if (dom) {
            const v = view(dom, this.now());
            if (!v.eligible) throw registryError('not_eligible', `project ${rec.projectId} is not an eligible domain (state ${v.state}, active ${v.active})`, { details: { state: v.state, active: v.active } });
          }
        }
      }
      rec.verification = { status, verifier: status === 'submitted' ? null : p.did, timestamp: nowIso(this.now()) };
      if (b.reason !== undefined) rec.verification.reason = b.reason as string;
      this.db.run('UPDATE designs SET status = ?, record = ? WHERE design_id = ?', [status, JSON.stringify(rec), id]);
      return rec;
    });
  }

  // --------------------------------------------------------------- domains

  private rowToDomain(r: { record: string }): Domain {
    return JSON.parse(r.record) as Domain;
  }

  /**
   * Committed domain records by id (frozen). Filled only outside transactions,
   * so it never holds an uncommitted write; every write of a domain row
   * invalidates its entry (saveDomain), and a rolled-back group clears it all.
   */
  private domainCache = new Map<string, Domain>();

  findDomain(id: string): Domain | undefined {
    const hit = this.domainCache.get(id);
    if (hit) return hit;
    const r = this.db.get<{ record: string }>('SELECT record FROM domains WHERE id = ?', [id]);
    if (!r) return undefined;
    const d = this.rowToDomain(r);
    if (!this.db.raw.isTransaction) {
      if (this.domainCache.size >= 10_000) this.domainCache.clear();
      this.domainCache.set(id, deepFreeze(d));
    }
    return d;
  }

  private mustDomain(id: string): Domain {
    const d = this.findDomain(id);
    if (!d) throw registryError('domain_not_found', `no domain ${id}`, { field: 'did', value: id });
    return d;
  }

  private checkClassLive(cls: string | null): void {
    if (cls === null) return;
    const c = this.findDomain(cls);
    if (!c || c.type !== 'Protocol' || !view(c, this.now()).active) {
      throw registryError('unknown_protocol', `class ${cls} is not a registered, active Protocol domain`, {
        field: 'class',
        value: cls,
        valid: 'the DID of a registered, active Protocol domain',
        details: c ? { type: c.type, state: c.state } : { known: false },
      });
    }
  }

  private saveDomain(d: Domain, insert: boolean): void {
    this.domainCache.delete(d.id);
    const name = typeof d.metadata.name === 'string' ? d.metadata.name : null;
    const params = [d.type, d.class, d.state, d.version, d.alsoKnownAs, name, JSON.stringify(d.controllers), JSON.stringify(d), d.updatedAt];
    try {
      if (insert) {
        this.db.run('INSERT INTO domains (type, class, state, version, also_known_as, name, controllers, record, updated_at, id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          ...params,
          d.id,
          d.createdAt,
        ]);
      } else {
        this.db.run('UPDATE domains SET type = ?, class = ?, state = ?, version = ?, also_known_as = ?, name = ?, controllers = ?, record = ?, updated_at = ? WHERE id = ?', [...params, d.id]);
      }
    } catch (e) {
      if (/UNIQUE/.test(String((e as Error).message)) && /domains_aka|also_known_as/.test(String((e as Error).message))) {
        throw registryError('duplicate_also_known_as', `alsoKnownAs ${JSON.stringify(d.alsoKnownAs)} is already used in class ${d.class ?? '(none)'} by a live domain`, {
          field: 'alsoKnownAs',
          value: d.alsoKnownAs,
        });
      }
      throw e;
    }
  }

  createDomain(p: Principal, raw: unknown): DomainView {
    const now = this.now();
    const f = validateCreate(raw, p.did, now);
    return this.db.transaction(() => {
      this.checkClassLive(f.class);
      const at = nowIso(now);
      const d: Domain = { id: 'did:ixo:entity:' + randomBytes(16).toString('hex'), ...f, state: 'registered', version: 1, createdAt: at, updatedAt: at, deactivatedAt: null };
      this.saveDomain(d, true);
      return view(d, now);
    });
  }

  getDomain(id: string): DomainView {
    requireDid('did', id);
    let d = this.mustDomain(id);
    if (d.state === 'pending_verification') {
      const open = this.db.get<{ id: string }>("SELECT id FROM proposals WHERE domain_id = ? AND status = 'open'", [id]);
      if (open) {
        this.getProposal(open.id); // settles it when its time has come
        d = this.mustDomain(id);
      }
    }
    return view(d, this.now());
  }

  /**
   * Serialized views of committed, cached domain records (keyed by the frozen
   * record, so a rewritten domain gets a new entry), each valid until the
   * next validFrom/validUntil boundary: `active` is derived from the clock.
   */
  private viewCache = new WeakMap<Domain, { json: string; until: number }>();

  /** GET /v1/domains/:did as JSON text: the common read, from the caches when it can be. */
  getDomainJson(id: string): { json: string; version: number } {
    const hit = this.domainCache.get(id); // only valid, committed ids are cached
    if (hit && hit.state !== 'pending_verification') {
      const now = this.now();
      const c = this.viewCache.get(hit);
      if (c && now < c.until) return { json: c.json, version: hit.version };
      const json = JSON.stringify(view(hit, now));
      let until = Infinity;
      for (const t of [hit.validFrom, hit.validUntil]) {
        const at = t === null ? undefined : parseRfc3339(t);
        if (at !== undefined && at > now && at < until) until = at;
      }
      this.viewCache.set(hit, { json, until });
      return { json, version: hit.version };
    }
    const d = this.getDomain(id);
    return { json: JSON.stringify(d), version: d.version };
  }

  listDomains(q: Record<string, unknown>): Page<DomainView> {
    const known = ['type', 'status', 'state', 'controller', 'class', 'q', 'limit', 'cursor'];
    for (const k of Object.keys(q)) if (!known.includes(k)) throw fieldError('unknown_field', k, q[k], known.join(', '));
    const limit = pageLimit(q.limit);
    const params: (string | number)[] = [decodeCursor(q.cursor)];
    let where = 'seq > ?';
    if (q.type !== undefined) {
      if (!(DOMAIN_TYPES as readonly unknown[]).includes(q.type)) throw fieldError('invalid_query', 'type', q.type, DOMAIN_TYPES.join(', '));
      where += ' AND type = ?';
      params.push(q.type as string);
    }
    const st = q.status ?? q.state;
    if (st !== undefined) {
      if (!(DOMAIN_STATES as readonly unknown[]).includes(st)) throw fieldError('invalid_query', 'status', st, DOMAIN_STATES.join(', '));
      where += ' AND state = ?';
      params.push(st as string);
    }
    if (q.class !== undefined) {
      where += ' AND class = ?';
      params.push(requireDid('class', q.class));
    }
    if (q.controller !== undefined) {
      where += ' AND EXISTS (SELECT 1 FROM json_each(domains.controllers) WHERE value = ?)';
      params.push(requireDid('controller', q.controller));
    }
    if (q.q !== undefined) {
      if (typeof q.q !== 'string' || q.q.length > 256) throw fieldError('invalid_query', 'q', q.q, 'a search text of at most 256 characters');
      where += " AND (instr(lower(coalesce(name, '')), lower(?)) > 0 OR instr(lower(coalesce(also_known_as, '')), lower(?)) > 0 OR id = ?)";
      params.push(q.q, q.q, q.q);
    }
    const rows = this.db.all<{ seq: number; record: string }>(`SELECT seq, record FROM domains WHERE ${where} ORDER BY seq LIMIT ${limit + 1}`, params);
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    const now = this.now();
    return { items: items.map((r) => view(this.rowToDomain(r), now)), nextCursor: more ? encodeCursor(items[items.length - 1]!.seq) : null };
  }

  private mustControl(p: Principal, d: Domain): void {
    if (!d.controllers.includes(p.did)) throw registryError('not_controller', `${p.did} is not a controller of ${d.id}`, { details: { controllers: d.controllers } });
  }

  patchDomain(p: Principal, id: string, ifMatch: string | undefined, raw: unknown): DomainView {
    requireDid('did', id);
    const now = this.now();
    return this.db.transaction(() => {
      const d = this.mustDomain(id);
      this.mustControl(p, d);
      if (ifMatch === undefined) throw registryError('if_match_required', `PATCH needs If-Match: "${d.version}" (the current version, from the ETag of GET)`, { field: 'If-Match', details: { version: d.version } });
      const m = /^(?:W\/)?"?(\d{1,12})"?$/.exec(ifMatch.trim());
      if (!m) throw fieldError('invalid_header', 'If-Match', ifMatch, 'the ETag of the current version, e.g. "3"');
      if (Number(m[1]) !== d.version) throw registryError('stale_version', `If-Match ${ifMatch} is stale; the current version is ${d.version}`, { field: 'If-Match', value: ifMatch, details: { version: d.version } });
      if (d.state === 'deactivated') throw registryError('domain_deactivated', `domain ${id} is deactivated (terminal)`);
      const { fields, reverify, changed } = applyPatch(fieldsOf(d), raw, now);
      if (changed.includes('class') || changed.includes('type')) this.checkClassLive(fields.class);
      if (changed.length === 0) return view(d, now);
      let state = reverify ? transition(d.state, 'reverify') : d.state;
      if (reverify && d.state === 'pending_verification') {
        // what the voters are asked about changed under them: the open proposal is cancelled and the domain must be proposed again
        this.db.run("UPDATE proposals SET status = 'cancelled', closed_at = ? WHERE domain_id = ? AND status = 'open'", [nowIso(now), id]);
        state = 'registered';
      }
      const next: Domain = { ...d, ...fields, state, version: d.version + 1, updatedAt: nowIso(now) };
      this.saveDomain(next, false);
      return view(next, now);
    });
  }

  deactivateDomain(p: Principal, id: string): DomainView {
    requireDid('did', id);
    const now = this.now();
    return this.db.transaction(() => {
      const d = this.mustDomain(id);
      if (!p.roles.includes('admin')) this.mustControl(p, d);
      const state = transition(d.state, 'deactivate');
      const at = nowIso(now);
      this.db.run("UPDATE proposals SET status = 'cancelled', closed_at = ? WHERE domain_id = ? AND status = 'open'", [at, id]);
      const next: Domain = { ...d, state, version: d.version + 1, updatedAt: at, deactivatedAt: at };
      this.saveDomain(next, false);
      return view(next, now);
    });
  }

  // ---------------------------------------------- proposals and votes

  propose(p: Principal, domainId: string, raw: unknown): ProposalView {
    requireDid('did', domainId);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fieldError('invalid_body', 'body', raw, '{package: {documents: [{url, hash}]}, description?}');
    const b = raw as Record<string, unknown>;
    for (const k of Object.keys(b)) if (k !== 'package' && k !== 'description') throw fieldError('unknown_field', k, b[k], 'package, description');
    const pkg = checkPackage(b.package);
    if (b.description !== undefined && (typeof b.description !== 'string' || b.description.length > 4000)) throw fieldError('invalid_body', 'description', b.description, 'a string of at most 4000 characters');
    const now = this.now();
    return this.db.transaction(() => {
      const d = this.getDomain(domainId); // settles an expired open proposal first
      this.mustControl(p, d);
      if (this.db.get("SELECT id FROM proposals WHERE domain_id = ? AND status = 'open'", [domainId])) {
        throw registryError('proposal_open', `domain ${domainId} already has an open verification proposal`);
      }
      const state = transition(d.state, 'propose');
      if (this.config.voters.length === 0) throw registryError('no_voters', 'the deployment config lists no voters; a proposal could never pass');
      const id = 'prp_' + randomBytes(10).toString('hex');
      const deadlineMs = now + Math.round(this.config.proposalDurationSeconds * 1000);
      this.db.run(
        'INSERT INTO proposals (id, domain_id, status, snapshot, rule, revoting, deadline, deadline_ms, package, description, proposer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [id, domainId, 'open', JSON.stringify(this.config.voters), JSON.stringify(ruleToJson(this.config.tally)), this.config.revoting ? 1 : 0, nowIso(deadlineMs), deadlineMs, JSON.stringify(pkg), (b.description as string | undefined) ?? null, p.did, nowIso(now)],
      );
      const raw2 = this.mustDomain(domainId);
      this.saveDomain({ ...raw2, state, version: raw2.version + 1, updatedAt: nowIso(now) }, false);
      return this.getProposal(id);
    });
  }

  private proposalRow(id: string): ProposalRow {
    const r = this.db.get<ProposalRow>('SELECT * FROM proposals WHERE id = ?', [id]);
    if (!r) throw registryError('proposal_not_found', `no proposal ${id}`, { field: 'id', value: id });
    return r;
  }

  private votesOf(id: string): Map<string, VoteOption> {
    return new Map(this.db.all<{ voter: string; option: VoteOption }>('SELECT voter, option FROM votes WHERE proposal_id = ?', [id]).map((v) => [v.voter, v.option]));
  }

  /** Reads a proposal; an open one is settled (and executed atomically) when its outcome is decided. */
  getProposal(id: string): ProposalView {
    if (typeof id !== 'string' || !/^prp_[0-9a-f]{20}$/.test(id)) throw registryError('proposal_not_found', `no proposal ${String(id)}`, { field: 'id', value: id });
    return this.db.transaction(() => {
      const r = this.proposalRow(id);
      const snapshot = JSON.parse(r.snapshot) as SnapshotVoter[];
      const votes = this.votesOf(id);
      const now = this.now();
      const { status, tally } = computeStatus(ruleFromJson(JSON.parse(r.rule)), snapshot, votes, r.deadline_ms, now, r.revoting === 1);
      let cur = r.status;
      let closedAt = r.closed_at;
      if (cur === 'open' && status !== 'open') {
        closedAt = nowIso(now);
        const d = this.mustDomain(r.domain_id);
        if (status === 'passed') {
          // passed → executed in the same transaction as the domain's verification
          cur = 'executed';
          this.saveDomain({ ...d, state: transition(d.state, 'proposal_passed'), version: d.version + 1, updatedAt: closedAt }, false);
        } else {
          cur = status;
          this.saveDomain({ ...d, state: transition(d.state, 'proposal_failed'), version: d.version + 1, updatedAt: closedAt }, false);
        }
        this.db.run('UPDATE proposals SET status = ?, closed_at = ? WHERE id = ? AND status = ?', [cur, closedAt, id, 'open']);
      }
      return {
        id,
        domainId: r.domain_id,
        status: cur,
        outcome: cur === 'executed' ? ('passed' as const) : cur,
        rule: JSON.parse(r.rule),
        revoting: r.revoting === 1,
        snapshot,
        tally,
        deadline: r.deadline,
        package: JSON.parse(r.package),
        description: r.description,
        proposer: r.proposer,
        createdAt: r.created_at,
        closedAt,
      };
    });
  }

  /** The open proposal of a domain, if any (after settling). */
  openProposalOf(domainId: string): ProposalView | null {
    const r = this.db.get<{ id: string }>("SELECT id FROM proposals WHERE domain_id = ? ORDER BY seq DESC LIMIT 1", [domainId]);
    return r ? this.getProposal(r.id) : null;
  }

  vote(p: Principal, id: string, raw: unknown): ProposalView {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fieldError('invalid_body', 'body', raw, '{option: yes|no|abstain|veto}');
    const b = raw as Record<string, unknown>;
    for (const k of Object.keys(b)) if (k !== 'option') throw fieldError('unknown_field', k, b[k], 'option');
    if (!(VOTE_OPTIONS as readonly unknown[]).includes(b.option)) throw fieldError('invalid_option', 'option', b.option, VOTE_OPTIONS.join(', '));
    const option = b.option as VoteOption;
    return this.db.transaction(() => {
      const before = this.getProposal(id); // settles a proposal past its deadline
      if (before.status !== 'open') throw registryError('proposal_closed', `proposal ${id} is ${before.status}`, { details: { status: before.status, deadline: before.deadline } });
      const voter = before.snapshot.find((v) => v.did === p.did);
      if (!voter) throw registryError('not_in_snapshot', `${p.did} is not a voter of proposal ${id}`, { details: { voters: before.snapshot.length } });
      const prev = this.db.get<{ option: string }>('SELECT option FROM votes WHERE proposal_id = ? AND voter = ?', [id, p.did]);
      if (prev && !before.revoting) throw registryError('already_voted', `${p.did} already voted ${prev.option} on ${id}; revoting is off`, { details: { option: prev.option } });
      this.db.run('INSERT INTO votes (proposal_id, voter, option, weight, cast_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (proposal_id, voter) DO UPDATE SET option = excluded.option, cast_at = excluded.cast_at', [
        id,
        p.did,
        option,
        voter.weight,
        nowIso(this.now()),
      ]);
      return this.getProposal(id);
    });
  }
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

function fieldsOf(d: Domain): DomainFields {
  return { type: d.type, class: d.class, controllers: d.controllers, metadata: d.metadata, services: d.services, validFrom: d.validFrom, validUntil: d.validUntil, alsoKnownAs: d.alsoKnownAs };
}

/** A verification package: {documents: [{url, hash, name?}]} (1..64 documents; hash "sha256:<64 hex>" or a CID-like string). */
function checkPackage(v: unknown): VerificationPackage {
  const valid = '{documents: [{url (http/https), hash (e.g. sha256:<64 hex>), name?}]} with 1 to 64 documents';
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fieldError(v === undefined ? 'missing_field' : 'invalid_package', 'package', v, valid);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'documents') throw fieldError('unknown_field', `package.${k}`, o[k], 'documents');
  if (!Array.isArray(o.documents) || o.documents.length < 1 || o.documents.length > 64) throw fieldError('invalid_package', 'package.documents', o.documents, valid);
  return {
    documents: o.documents.map((doc: unknown, i: number) => {
      const f = `package.documents[${i}]`;
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw fieldError('invalid_package', f, doc, '{url, hash, name?}');
      const r = doc as Record<string, unknown>;
      for (const k of Object.keys(r)) if (!['url', 'hash', 'name'].includes(k)) throw fieldError('unknown_field', `${f}.${k}`, r[k], 'url, hash, name');
      let url: string;
      try {
        url = checkHttpUrl(`${f}.url`, r.url);
      } catch (e) {
        throw new OracleKitError({ status: 400, code: 'invalid_package', message: (e as Error).message, field: `${f}.url`, value: r.url });
      }
      if (typeof r.hash !== 'string' || !/^(sha256:[0-9a-f]{64}|[A-Za-z0-9]{16,128})$/.test(r.hash)) throw fieldError('invalid_package', `${f}.hash`, r.hash, 'sha256:<64 lowercase hex> or a CID');
      if (r.name !== undefined && (typeof r.name !== 'string' || r.name.length > 256)) throw fieldError('invalid_package', `${f}.name`, r.name, 'a string of at most 256 characters');
      const out: { url: string; hash: string; name?: string } = { url, hash: r.hash };
      if (r.name !== undefined) out.name = r.name as string;
      return out;
    }),
  };
}

/** JSON with sorted keys (for body hashes). */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(stableJson).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + stableJson((v as Record<string, unknown>)[k])).join(',') + '}';
  }
  return JSON.stringify(v) ?? 'null';
}
