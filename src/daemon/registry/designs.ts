/**
 * Sample designs: computed and stored (POST /v1/sampling), read, listed,
 * recalculated into a new linked version, and verified (submitted, approved,
 * rejected).
 */
import { registryError, fieldError } from '../../lib/registry/errors.ts';
import { requireDid, view } from '../../lib/registry/domain.ts';
import { computeDesign, designFromValid } from '../../lib/sampling/design.ts';
import { uuidv7 } from '../../lib/registry/uuidv7.ts';
import type { DesignRecord, Page, Principal } from '../../lib/registry/types.ts';
import type { RecalcBody, SamplingBody, SamplingQuery, VerificationBody } from './inputs.ts';
import { decodeCursor, encodeCursor, nowIso, type RegistryContext, lockForUpdate } from './common.ts';
import type { Domains } from './domains.ts';
import { mayChangeDesign } from './ownership.ts';

export class Designs {
  private readonly ctx: RegistryContext;
  private readonly domains: Domains;

  constructor(ctx: RegistryContext, domains: Domains) {
    this.ctx = ctx;
    this.domains = domains;
  }

  /** The body is the schema's (samplingBody): projectId checked, the inputs validated by the sampling engine. */
  async create(p: Principal, body: SamplingBody): Promise<DesignRecord> {
    await mayChangeDesign(this.domains, p, body.projectId, 'create');
    const design = designFromValid(body.valid);
    return this.insert({
      designId: uuidv7(),
      projectId: body.projectId,
      version: 1,
      previousDesignId: null,
      parameters: design.parameters,
      stratification: design.stratification,
      verification: { status: 'draft', verifier: null, timestamp: null },
      flags: design.flags,
      input: body.input,
      createdBy: p.did,
      createdAt: nowIso(this.ctx.now()),
    });
  }

  private async insert(rec: DesignRecord): Promise<DesignRecord> {
    await this.ctx.db.run(
      'INSERT INTO designs (design_id, project_id, version, previous_id, status, record, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        rec.designId,
        rec.projectId,
        rec.version,
        rec.previousDesignId,
        rec.verification.status,
        JSON.stringify(rec),
        rec.createdBy,
        rec.createdAt,
      ],
    );
    return rec;
  }

  async get(id: string): Promise<DesignRecord> {
    const row = await this.ctx.db.get<{ record: string }>('SELECT record FROM designs WHERE design_id = ?', [id]);
    if (!row) throw registryError('design_not_found', `no design ${id}`, { field: 'designId', value: id });
    return JSON.parse(row.record) as DesignRecord;
  }

  async list(q: SamplingQuery): Promise<Page<DesignRecord>> {
    const limit = q.limit ?? 50;
    const params: (string | number)[] = [decodeCursor(q.cursor)];
    let where = 'seq > ?';
    if (q.projectId !== undefined) {
      where += ' AND project_id = ?';
      params.push(requireDid('projectId', q.projectId));
    }
    const rows = await this.ctx.db.all<{ seq: number; record: string }>(
      `SELECT seq, record FROM designs WHERE ${where} ORDER BY seq LIMIT ${limit + 1}`,
      params,
    );
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    return {
      items: items.map((r) => JSON.parse(r.record) as DesignRecord),
      nextCursor: more ? encodeCursor(items[items.length - 1]!.seq) : null,
    };
  }

  /**
   * A monitoring period's observed values → a new version linked to the old
   * one (the old one is never changed). The body's shape is the schema's
   * (recalcBody); what needs the stored design (its strata) is checked here.
   */
  async recalculate(p: Principal, id: string, b: RecalcBody): Promise<DesignRecord> {
    const db = this.ctx.db;
    return db.tx(async () => {
      await lockForUpdate(db, { table: 'designs', column: 'design_id', key: id }); // one successor per design, across daemons
      const prev = await this.get(id);
      await mayChangeDesign(this.domains, p, prev.projectId, 'recalculate');
      const successor = await db.get<{ design_id: string }>('SELECT design_id FROM designs WHERE previous_id = ?', [
        id,
      ]);
      if (successor)
        throw registryError('invalid_state', `design ${id} already has a newer version; recalculate the latest`, {
          details: { newer: successor.design_id },
        });
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
        if (!strat?.strata)
          throw fieldError('invalid_body', 'strata', b.strata, 'observed [{name, mean, sd}] of a stratified design');
        const byName = new Map(strat.strata.map((s) => [String(s.name).trim().toLowerCase(), s]));
        const strata = strat.strata.map((s) => ({ ...s }));
        b.strata.forEach((r, i) => {
          const s = byName.get(r.name.trim().toLowerCase());
          if (!s)
            throw fieldError(
              'invalid_body',
              `strata[${i}].name`,
              r.name,
              `a stratum of the design: ${[...byName.keys()].join(', ')}`,
            );
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
        change: {
          period: b.period ?? null,
          previousAdjustedSize: before,
          adjustedSize: after,
          direction: after > before ? 'up' : after < before ? 'down' : 'same',
          by: Math.abs(after - before),
        },
        createdBy: p.did,
        createdAt: nowIso(this.ctx.now()),
      };
      return this.insert(rec);
    });
  }

  /**
   * Verification: {status: submitted} by a controller of the project domain
   * or an admin, or — when the project is not a registered domain — the
   * creator (ownership.ts; draft → submitted); {status: approved|rejected, reason?} by a
   * verifier (draft or submitted → approved/rejected). Approval needs the
   * project to be an eligible domain when the registry knows it.
   */
  async verify(p: Principal, id: string, b: VerificationBody): Promise<DesignRecord> {
    const db = this.ctx.db;
    const status = b.status;
    return db.tx(async () => {
      await lockForUpdate(db, { table: 'designs', column: 'design_id', key: id });
      const rec = await this.get(id);
      const cur = rec.verification.status;
      if (cur === 'approved' || cur === 'rejected')
        throw registryError('design_immutable', `design ${id} is ${cur}; recalculate to make a new version`, {
          details: { status: cur },
        });
      if (status === 'submitted') {
        if (cur !== 'draft')
          throw registryError('invalid_state', `design ${id} is ${cur}, not draft`, { details: { status: cur } });
        await mayChangeDesign(this.domains, p, rec.projectId, 'submit', rec.createdBy);
      } else {
        if (!p.roles.includes('verifier'))
          throw registryError('forbidden_role', 'approving or rejecting a design needs the verifier role', {
            details: { need: 'verifier', have: p.roles },
          });
        if (status === 'approved') {
          const dom = await this.domains.find(rec.projectId);
          if (dom) {
            const v = view(dom, this.ctx.now());
            if (!v.eligible)
              throw registryError(
                'not_eligible',
                `project ${rec.projectId} is not an eligible domain (state ${v.state}, active ${v.active})`,
                { details: { state: v.state, active: v.active } },
              );
          }
        }
      }
      rec.verification = { status, verifier: status === 'submitted' ? null : p.did, timestamp: nowIso(this.ctx.now()) };
      if (b.reason !== undefined) rec.verification.reason = b.reason;
      await db.run('UPDATE designs SET status = ?, record = ? WHERE design_id = ?', [status, JSON.stringify(rec), id]);
      return rec;
    });
  }
}
