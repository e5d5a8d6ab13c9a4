/**
 * Domains: register, read (by id, or listed with filters), change under
 * If-Match, deactivate.
 */
import { randomBytes } from 'node:crypto';
import { registryError, fieldError } from '../../lib/registry/errors.ts';
import {
  applyPatch,
  transition,
  validateCreate,
  view,
  requireDid,
  type Domain,
  type DomainFields,
  type DomainView,
} from '../../lib/registry/domain.ts';
import type { Page, Principal } from '../../lib/registry/types.ts';
import type { DomainCreate, DomainPatch, DomainQuery } from './inputs.ts';
import { decodeCursor, lockForUpdate, encodeCursor, nowIso, type RegistryContext } from './common.ts';

export class Domains {
  private readonly ctx: RegistryContext;
  /**
   * Settles the open proposal of a domain whose time has come (set by the
   * Registry to Proposals.get): reading a pending domain may close its vote.
   */
  settleProposal: (proposalId: string) => Promise<unknown> = () => Promise.resolve();

  constructor(ctx: RegistryContext) {
    this.ctx = ctx;
  }

  async find(id: string): Promise<Domain | undefined> {
    const r = await this.ctx.db.get<{ record: string }>('SELECT record FROM domains WHERE id = ?', [id]);
    return r ? (JSON.parse(r.record) as Domain) : undefined;
  }

  async must(id: string): Promise<Domain> {
    const d = await this.find(id);
    if (!d) throw registryError('domain_not_found', `no domain ${id}`, { field: 'did', value: id });
    return d;
  }

  mustControl(p: Principal, d: Domain): void {
    if (!d.controllers.includes(p.did))
      throw registryError('not_controller', `${p.did} is not a controller of ${d.id}`, {
        details: { controllers: d.controllers },
      });
  }

  private async checkClassLive(cls: string | null): Promise<void> {
    if (cls === null) return;
    const c = await this.find(cls);
    if (!c || c.type !== 'Protocol' || !view(c, this.ctx.now()).active) {
      throw registryError('unknown_protocol', `class ${cls} is not a registered, active Protocol domain`, {
        field: 'class',
        value: cls,
        valid: 'the DID of a registered, active Protocol domain',
        details: c ? { type: c.type, state: c.state } : { known: false },
      });
    }
  }

  /** Writes a domain row (insert or update). */
  async save(d: Domain, insert: boolean): Promise<void> {
    const name = typeof d.metadata.name === 'string' ? d.metadata.name : null;
    const params = [
      d.type,
      d.class,
      d.state,
      d.version,
      d.alsoKnownAs,
      name,
      JSON.stringify(d.controllers),
      JSON.stringify(d),
      d.updatedAt,
    ];
    try {
      if (insert) {
        await this.ctx.db.run(
          'INSERT INTO domains (type, class, state, version, also_known_as, name, controllers, record, updated_at, ' +
            'id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [...params, d.id, d.createdAt],
        );
      } else {
        await this.ctx.db.run(
          'UPDATE domains SET type = ?, class = ?, state = ?, version = ?, also_known_as = ?, name = ?, ' +
            'controllers = ?, record = ?, updated_at = ? WHERE id = ?',
          [...params, d.id],
        );
      }
    } catch (e) {
      // SQLite: "UNIQUE constraint failed: index 'domains_aka'"; PostgreSQL: 'duplicate key value violates unique
      // constraint "domains_aka"'
      if (
        /unique/i.test(String((e as Error).message)) &&
        /domains_aka|also_known_as/.test(String((e as Error).message))
      ) {
        throw registryError(
          'duplicate_also_known_as',
          `alsoKnownAs ${JSON.stringify(d.alsoKnownAs)} is already used in class ${d.class ?? '(none)'} by a ` +
            `live domain`,
          { field: 'alsoKnownAs', value: d.alsoKnownAs },
        );
      }
      throw e;
    }
  }

  async create(p: Principal, body: DomainCreate): Promise<DomainView> {
    const now = this.ctx.now();
    const f = validateCreate(body, p.did, now);
    return this.ctx.db.tx(async () => {
      await this.checkClassLive(f.class);
      const at = nowIso(now);
      const d: Domain = {
        id: 'did:ixo:entity:' + randomBytes(16).toString('hex'),
        ...f,
        state: 'registered',
        version: 1,
        createdAt: at,
        updatedAt: at,
        deactivatedAt: null,
      };
      await this.save(d, true);
      return view(d, now);
    });
  }

  async get(id: string): Promise<DomainView> {
    requireDid('did', id);
    let d = await this.must(id);
    if (d.state === 'pending_verification') {
      const open = await this.ctx.db.get<{ id: string }>(
        "SELECT id FROM proposals WHERE domain_id = ? AND status = 'open'",
        [id],
      );
      if (open) {
        await this.settleProposal(open.id);
        d = await this.must(id);
      }
    }
    return view(d, this.ctx.now());
  }

  /** The query is the schema's (domainQuery: known keys, type and status values, limit range). */
  async list(q: DomainQuery): Promise<Page<DomainView>> {
    const limit = q.limit ?? 50;
    const params: (string | number)[] = [decodeCursor(q.cursor)];
    let where = 'seq > ?';
    if (q.type !== undefined) {
      where += ' AND type = ?';
      params.push(q.type);
    }
    const st = q.status ?? q.state;
    if (st !== undefined) {
      where += ' AND state = ?';
      params.push(st);
    }
    if (q.class !== undefined) {
      where += ' AND class = ?';
      params.push(requireDid('class', q.class));
    }
    if (q.controller !== undefined) {
      where +=
        this.ctx.db.dialect === 'postgres'
          ? ' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(domains.controllers::jsonb) AS c(value) WHERE ' +
            'c.value = ?)'
          : ' AND EXISTS (SELECT 1 FROM json_each(domains.controllers) WHERE value = ?)';
      params.push(requireDid('controller', q.controller));
    }
    if (q.q !== undefined) {
      // a substring, case-folded: instr on SQLite, strpos on PostgreSQL (neither has the other; LIKE would read % and _
      // in q)
      const pos = this.ctx.db.dialect === 'postgres' ? 'strpos' : 'instr';
      where +=
        ` AND (${pos}(lower(coalesce(name, '')), lower(?)) > 0 OR ${pos}(lower(coalesce(also_known_as, ` +
        `'')), lower(?)) > 0 OR id = ?)`;
      params.push(q.q, q.q, q.q);
    }
    const rows = await this.ctx.db.all<{ seq: number; record: string }>(
      `SELECT seq, record FROM domains WHERE ${where} ORDER BY seq LIMIT ${limit + 1}`,
      params,
    );
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    const now = this.ctx.now();
    return {
      items: items.map((r) => view(JSON.parse(r.record) as Domain, now)),
      nextCursor: more ? encodeCursor(items[items.length - 1]!.seq) : null,
    };
  }

  async patch(p: Principal, id: string, ifMatch: string | undefined, body: DomainPatch): Promise<DomainView> {
    requireDid('did', id);
    const now = this.ctx.now();
    const db = this.ctx.db;
    return db.tx(async () => {
      await lockForUpdate(db, { table: 'domains', column: 'id', key: id }); // If-Match against the latest committed version
      const d = await this.must(id);
      this.mustControl(p, d);
      if (ifMatch === undefined)
        throw registryError(
          'if_match_required',
          `PATCH needs If-Match: "${d.version}" (the current version, from the ETag of GET)`,
          { field: 'If-Match', details: { version: d.version } },
        );
      const m = /^(?:W\/)?"?(\d{1,12})"?$/.exec(ifMatch.trim());
      if (!m) throw fieldError('invalid_header', 'If-Match', ifMatch, 'the ETag of the current version, e.g. "3"');
      if (Number(m[1]) !== d.version)
        throw registryError('stale_version', `If-Match ${ifMatch} is stale; the current version is ${d.version}`, {
          field: 'If-Match',
          value: ifMatch,
          details: { version: d.version },
        });
      if (d.state === 'deactivated')
        throw registryError('domain_deactivated', `domain ${id} is deactivated (terminal)`);
      const { fields, reverify, changed } = applyPatch(fieldsOf(d), body, now);
      if (changed.includes('class') || changed.includes('type')) await this.checkClassLive(fields.class);
      if (changed.length === 0) return view(d, now);
      let state = reverify ? transition(d.state, 'reverify') : d.state;
      if (reverify && d.state === 'pending_verification') {
        // what the voters are asked about changed under them: the open proposal is cancelled and the domain must be
        // proposed again
        await db.run(
          "UPDATE proposals SET status = 'cancelled', closed_at = ? WHERE domain_id = ? AND status = 'open'",
          [nowIso(now), id],
        );
        state = 'registered';
      }
      const next: Domain = { ...d, ...fields, state, version: d.version + 1, updatedAt: nowIso(now) };
      await this.save(next, false);
      return view(next, now);
    });
  }

  async deactivate(p: Principal, id: string): Promise<DomainView> {
    requireDid('did', id);
    const now = this.ctx.now();
    const db = this.ctx.db;
    return db.tx(async () => {
      await lockForUpdate(db, { table: 'domains', column: 'id', key: id });
      const d = await this.must(id);
      if (!p.roles.includes('admin')) this.mustControl(p, d);
      const state = transition(d.state, 'deactivate');
      const at = nowIso(now);
      await db.run("UPDATE proposals SET status = 'cancelled', closed_at = ? WHERE domain_id = ? AND status = 'open'", [
        at,
        id,
      ]);
      const next: Domain = { ...d, state, version: d.version + 1, updatedAt: at, deactivatedAt: at };
      await this.save(next, false);
      return view(next, now);
    });
  }
}

function fieldsOf(d: Domain): DomainFields {
  return {
    type: d.type,
    class: d.class,
    controllers: d.controllers,
    metadata: d.metadata,
    services: d.services,
    validFrom: d.validFrom,
    validUntil: d.validUntil,
    alsoKnownAs: d.alsoKnownAs,
  };
}
