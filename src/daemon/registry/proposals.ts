/**
 * Verification proposals and votes: a domain's controller (a representative)
 * proposes it for verification with a package of documents; the voters of the
 * deployment config, snapshotted with their weights, vote; the proposal
 * settles (and the domain's state moves, in the same transaction) when its
 * outcome is decided or its deadline passes, on the next read or vote.
 */
import { randomBytes } from 'node:crypto';
import { OracleKitError } from '../../lib/errors.ts';
import { registryError, fieldError } from '../../lib/registry/errors.ts';
import { checkHttpUrl, requireDid, transition } from '../../lib/registry/domain.ts';
import {
  computeStatus,
  ruleFromJson,
  ruleToJson,
  type ProposalStatus,
  type SnapshotVoter,
  type VoteOption,
} from '../../lib/registry/tally.ts';
import type { Principal, ProposalView, VerificationPackage } from '../../lib/registry/types.ts';
import type { ProposalBody, VoteBody } from './inputs.ts';
import { nowIso, type RegistryContext, lockForUpdate } from './common.ts';
import type { Domains } from './domains.ts';

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

export class Proposals {
  private readonly ctx: RegistryContext;
  private readonly domains: Domains;

  constructor(ctx: RegistryContext, domains: Domains) {
    this.ctx = ctx;
    this.domains = domains;
  }

  /** The body's shape is the schema's (proposalBody); URLs and hashes are checked here. */
  async propose(p: Principal, domainId: string, b: ProposalBody): Promise<ProposalView> {
    requireDid('did', domainId);
    const pkg = checkPackage(b.package);
    const now = this.ctx.now();
    const { db, config } = this.ctx;
    return db.tx(async () => {
      await lockForUpdate(db, { table: 'domains', column: 'id', key: domainId });
      const d = await this.domains.get(domainId); // settles an expired open proposal first
      this.domains.mustControl(p, d);
      if (await db.get("SELECT id FROM proposals WHERE domain_id = ? AND status = 'open'", [domainId])) {
        throw registryError('proposal_open', `domain ${domainId} already has an open verification proposal`);
      }
      const state = transition(d.state, 'propose');
      if (config.voters.length === 0)
        throw registryError('no_voters', 'the deployment config lists no voters; a proposal could never pass');
      const id = 'prp_' + randomBytes(10).toString('hex');
      const deadlineMs = now + Math.round(config.proposalDurationSeconds * 1000);
      await db.run(
        'INSERT INTO proposals (id, domain_id, status, snapshot, rule, revoting, deadline, deadline_ms, package, ' +
          'description, proposer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          id,
          domainId,
          'open',
          JSON.stringify(config.voters),
          JSON.stringify(ruleToJson(config.tally)),
          config.revoting ? 1 : 0,
          nowIso(deadlineMs),
          deadlineMs,
          JSON.stringify(pkg),
          b.description ?? null,
          p.did,
          nowIso(now),
        ],
      );
      const raw = await this.domains.must(domainId);
      await this.domains.save({ ...raw, state, version: raw.version + 1, updatedAt: nowIso(now) }, false);
      return this.get(id);
    });
  }

  private async row(id: string): Promise<ProposalRow> {
    const r = await this.ctx.db.get<ProposalRow>('SELECT * FROM proposals WHERE id = ?', [id]);
    if (!r) throw registryError('proposal_not_found', `no proposal ${id}`, { field: 'id', value: id });
    return r;
  }

  private async votesOf(id: string): Promise<Map<string, VoteOption>> {
    return new Map(
      (
        await this.ctx.db.all<{ voter: string; option: VoteOption }>(
          'SELECT voter, option FROM votes WHERE proposal_id = ?',
          [id],
        )
      ).map((v) => [v.voter, v.option]),
    );
  }

  /** Reads a proposal; an open one is settled (and executed atomically) when its outcome is decided. */
  async get(id: string): Promise<ProposalView> {
    if (!/^prp_[0-9a-f]{20}$/.test(id))
      throw registryError('proposal_not_found', `no proposal ${id}`, { field: 'id', value: id });
    const db = this.ctx.db;
    return db.tx(async () => {
      // settling and voting on one proposal happen one daemon at a time: the tally is read after the last vote
      // committed
      await lockForUpdate(db, { table: 'proposals', column: 'id', key: id });
      const r = await this.row(id);
      const snapshot = JSON.parse(r.snapshot) as SnapshotVoter[];
      const votes = await this.votesOf(id);
      const now = this.ctx.now();
      const { status, tally } = computeStatus(
        ruleFromJson(JSON.parse(r.rule)),
        snapshot,
        votes,
        r.deadline_ms,
        now,
        r.revoting === 1,
      );
      let cur = r.status;
      let closedAt = r.closed_at;
      if (cur === 'open' && status !== 'open') {
        closedAt = nowIso(now);
        const d = await this.domains.must(r.domain_id);
        if (status === 'passed') {
          // passed → executed in the same transaction as the domain's verification
          cur = 'executed';
          await this.domains.save(
            { ...d, state: transition(d.state, 'proposal_passed'), version: d.version + 1, updatedAt: closedAt },
            false,
          );
        } else {
          cur = status;
          await this.domains.save(
            { ...d, state: transition(d.state, 'proposal_failed'), version: d.version + 1, updatedAt: closedAt },
            false,
          );
        }
        await db.run('UPDATE proposals SET status = ?, closed_at = ? WHERE id = ? AND status = ?', [
          cur,
          closedAt,
          id,
          'open',
        ]);
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
        package: JSON.parse(r.package) as VerificationPackage,
        description: r.description,
        proposer: r.proposer,
        createdAt: r.created_at,
        closedAt,
      };
    });
  }

  /** The latest proposal of a domain, if any (after settling). */
  async latestOf(domainId: string): Promise<ProposalView | null> {
    const r = await this.ctx.db.get<{ id: string }>(
      'SELECT id FROM proposals WHERE domain_id = ? ORDER BY seq DESC LIMIT 1',
      [domainId],
    );
    return r ? this.get(r.id) : null;
  }

  /** The option is the schema's (voteBody). */
  async vote(p: Principal, id: string, b: VoteBody): Promise<ProposalView> {
    const db = this.ctx.db;
    return db.tx(async () => {
      const before = await this.get(id); // settles a proposal past its deadline
      if (before.status !== 'open')
        throw registryError('proposal_closed', `proposal ${id} is ${before.status}`, {
          details: { status: before.status, deadline: before.deadline },
        });
      const voter = before.snapshot.find((v) => v.did === p.did);
      if (!voter)
        throw registryError('not_in_snapshot', `${p.did} is not a voter of proposal ${id}`, {
          details: { voters: before.snapshot.length },
        });
      const prev = await db.get<{ option: string }>('SELECT option FROM votes WHERE proposal_id = ? AND voter = ?', [
        id,
        p.did,
      ]);
      if (prev && !before.revoting)
        throw registryError('already_voted', `${p.did} already voted ${prev.option} on ${id}; revoting is off`, {
          details: { option: prev.option },
        });
      await db.run(
        'INSERT INTO votes (proposal_id, voter, option, weight, cast_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT ' +
          '(proposal_id, voter) DO UPDATE SET option = excluded.option, cast_at = excluded.cast_at',
        [id, p.did, b.option, voter.weight, nowIso(this.ctx.now())],
      );
      return this.get(id);
    });
  }
}

/** The rules of a package the schema cannot phrase: http(s) URLs without credentials, hash syntax. */
function checkPackage(pkg: ProposalBody['package']): VerificationPackage {
  return {
    documents: pkg.documents.map((doc, i) => {
      const f = `package.documents[${i}]`;
      let url: string;
      try {
        url = checkHttpUrl(`${f}.url`, doc.url);
      } catch (e) {
        throw new OracleKitError({
          status: 400,
          code: 'invalid_package',
          message: (e as Error).message,
          field: `${f}.url`,
          value: doc.url,
        });
      }
      if (!/^(sha256:[0-9a-f]{64}|[A-Za-z0-9]{16,128})$/.test(doc.hash))
        throw fieldError('invalid_package', `${f}.hash`, doc.hash, 'sha256:<64 lowercase hex> or a CID');
      const out: { url: string; hash: string; name?: string } = { url, hash: doc.hash };
      if (doc.name !== undefined) out.name = doc.name;
      return out;
    }),
  };
}
