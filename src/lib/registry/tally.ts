/**
 * Verification proposals: the tally rules of registry.md, in exact integer
 * arithmetic (BigInt weights; fractions as numerator/denominator from their
 * decimal text — never a float comparison), and the status computed on every
 * vote and read (no background job).
 *
 * A proposal closes early only when no further vote can change the outcome:
 * every way the voters who have not voted yet could vote (or not vote) leads
 * to the same outcome. With revoting on, votes already cast may change too,
 * so a proposal then closes only at its deadline.
 */
import { registryError } from './errors.ts';

export const VOTE_OPTIONS = ['yes', 'no', 'abstain', 'veto'] as const;
export type VoteOption = (typeof VOTE_OPTIONS)[number];
export const PROPOSAL_STATUSES = ['open', 'passed', 'executed', 'rejected', 'vetoed', 'expired', 'cancelled'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** An exact fraction n/d (d > 0). */
export interface Frac {
  n: bigint;
  d: bigint;
}

/** Parses a decimal ("0.334", "33.4%", 0.5) into an exact fraction in [0, 1]. */
export function parseFraction(v: unknown, field: string): Frac {
  let s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  let scale = 1n;
  if (s.endsWith('%')) {
    s = s.slice(0, -1).trim();
    scale = 100n;
  }
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m)
    throw registryError('invalid_body', `${field} = ${JSON.stringify(v)} is not a decimal fraction`, {
      field,
      value: v,
      valid: 'a decimal such as 0.334 or "33.4%"',
    });
  const frac = m[2] ?? '';
  const f = { n: BigInt(m[1]! + frac), d: 10n ** BigInt(frac.length) * scale };
  if (f.n > f.d)
    throw registryError('invalid_body', `${field} = ${JSON.stringify(v)} is above 1`, {
      field,
      value: v,
      valid: 'a fraction between 0 and 1',
    });
  return f;
}

function fracText(f: Frac): string {
  return `${f.n}/${f.d}`;
}

/** a/b > f  (b > 0), exactly. */
const gt = (a: bigint, b: bigint, f: Frac) => a * f.d > f.n * b;
/** a >= f * b, exactly. */
const geMul = (a: bigint, f: Frac, b: bigint) => a * f.d >= f.n * b;

export type TallyRule =
  | { rule: 'threshold_quorum'; quorum: Frac; threshold: Frac; vetoThreshold: Frac }
  | { rule: 'absolute_count'; k: number }
  | { rule: 'absolute_percentage'; p: Frac };

const DEFAULT_QUORUM: Frac = { n: 334n, d: 1000n };
const DEFAULT_THRESHOLD: Frac = { n: 1n, d: 2n };
const DEFAULT_VETO: Frac = { n: 334n, d: 1000n };
export const DEFAULT_RULE: TallyRule = {
  rule: 'threshold_quorum',
  quorum: DEFAULT_QUORUM,
  threshold: DEFAULT_THRESHOLD,
  vetoThreshold: DEFAULT_VETO,
};

/** A fraction on the wire: exact "n/d" and its decimal (for display). */
interface FracJson {
  fraction: string;
  decimal: number;
}

/** A rule on the wire (ruleToJson). */
export type RuleJson =
  | { rule: 'threshold_quorum'; quorum: FracJson; threshold: FracJson; vetoThreshold: FracJson }
  | { rule: 'absolute_count'; k: number }
  | { rule: 'absolute_percentage'; p: FracJson };

/** The rule as stored in a proposal and sent on the wire (fractions as "n/d" and decimal text). */
export function ruleToJson(r: TallyRule): RuleJson {
  const fj = (f: Frac): FracJson => ({ fraction: fracText(f), decimal: Number(f.n) / Number(f.d) });
  if (r.rule === 'threshold_quorum')
    return { rule: r.rule, quorum: fj(r.quorum), threshold: fj(r.threshold), vetoThreshold: fj(r.vetoThreshold) };
  if (r.rule === 'absolute_count') return { rule: r.rule, k: r.k };
  return { rule: r.rule, p: fj(r.p) };
}

export function ruleFromJson(j: Record<string, unknown>): TallyRule {
  const fr = (x: unknown, field: string): Frac => {
    const t = (x as { fraction?: string } | undefined)?.fraction;
    if (typeof t === 'string') {
      const [n, d] = t.split('/');
      return { n: BigInt(n!), d: BigInt(d!) };
    }
    return parseFraction(x, field);
  };
  if (j.rule === 'absolute_count') {
    const k = Number(j.k);
    if (!Number.isInteger(k) || k < 1)
      throw registryError('invalid_body', `tally.k = ${String(j.k)} is not an integer >= 1`, {
        field: 'tally.k',
        value: j.k,
        valid: 'an integer >= 1',
      });
    return { rule: 'absolute_count', k };
  }
  if (j.rule === 'absolute_percentage') return { rule: 'absolute_percentage', p: fr(j.p, 'tally.p') };
  if (j.rule === undefined || j.rule === 'threshold_quorum') {
    return {
      rule: 'threshold_quorum',
      quorum: j.quorum === undefined ? DEFAULT_QUORUM : fr(j.quorum, 'tally.quorum'),
      threshold: j.threshold === undefined ? DEFAULT_THRESHOLD : fr(j.threshold, 'tally.threshold'),
      vetoThreshold: j.vetoThreshold === undefined ? DEFAULT_VETO : fr(j.vetoThreshold, 'tally.vetoThreshold'),
    };
  }
  throw registryError('invalid_body', `tally.rule = ${JSON.stringify(j.rule)} is unknown`, {
    field: 'tally.rule',
    value: j.rule,
    valid: 'threshold_quorum, absolute_count or absolute_percentage',
  });
}

export interface SnapshotVoter {
  did: string;
  weight: number;
}

export interface Tally {
  yes: string;
  no: string;
  abstain: string;
  veto: string;
  /** voters who voted / in the snapshot */
  voters: number;
  voted: number;
  totalWeight: string;
  votedWeight: string;
  /** Yes votes counted (absolute_count). */
  yesCount: number;
}

type Outcome = 'passed' | 'rejected' | 'vetoed' | 'expired';

interface Sums {
  y: bigint;
  n: bigint;
  a: bigint;
  v: bigint;
  total: bigint;
  remaining: bigint;
  yesCount: number;
  remainingVoters: number;
}

function sums(snapshot: SnapshotVoter[], votes: Map<string, VoteOption>): Sums {
  const s: Sums = { y: 0n, n: 0n, a: 0n, v: 0n, total: 0n, remaining: 0n, yesCount: 0, remainingVoters: 0 };
  for (const voter of snapshot) {
    const w = BigInt(voter.weight);
    s.total += w;
    const o = votes.get(voter.did);
    if (o === undefined) {
      s.remaining += w;
      s.remainingVoters++;
    } else if (o === 'yes') {
      s.y += w;
      s.yesCount++;
    } else if (o === 'no') s.n += w;
    else if (o === 'abstain') s.a += w;
    else s.v += w;
  }
  return s;
}

function tallyOf(snapshot: SnapshotVoter[], votes: Map<string, VoteOption>): Tally {
  const s = sums(snapshot, votes);
  return {
    yes: String(s.y),
    no: String(s.n),
    abstain: String(s.a),
    veto: String(s.v),
    voters: snapshot.length,
    voted: votes.size,
    totalWeight: String(s.total),
    votedWeight: String(s.y + s.n + s.a + s.v),
    yesCount: s.yesCount,
  };
}

/** The outcome if voting ended now with these votes (no remaining voters). */
export function finalOutcome(rule: TallyRule, s: Omit<Sums, 'remaining' | 'remainingVoters'>): Outcome {
  const voted = s.y + s.n + s.a + s.v;
  if (rule.rule === 'threshold_quorum') {
    if (voted === 0n || !geMul(voted, rule.quorum, s.total)) return 'expired';
    if (gt(s.v, voted, rule.vetoThreshold)) return 'vetoed';
    const decisive = s.y + s.n + s.v;
    if (decisive === 0n) return 'rejected'; // all abstain fails
    return gt(s.y, decisive, rule.threshold) ? 'passed' : 'rejected'; // a tie is not > threshold
  }
  if (rule.rule === 'absolute_count') return s.yesCount >= rule.k ? 'passed' : 'rejected';
  const base = s.total - s.a;
  if (base <= 0n || s.y === 0n) return 'rejected'; // all abstain fails
  return geMul(s.y, rule.p, base) ? 'passed' : 'rejected';
}

/**
 * The outcome when it can no longer change whatever the remaining voters do,
 * else undefined. Bounds are taken over every split of the remaining weight
 * among yes/no/abstain/veto/not voting (a superset of what the voters can do),
 * so an early close is never wrong.
 */
export function decidedOutcome(rule: TallyRule, s: Sums): Outcome | undefined {
  const R = s.remaining;
  if (R === 0n) return finalOutcome(rule, s);
  const voted = s.y + s.n + s.a + s.v;
  if (rule.rule === 'threshold_quorum') {
    if (!geMul(voted, rule.quorum, s.total)) {
      // quorum not yet met: undecided unless it can never be met
      return geMul(voted + R, rule.quorum, s.total) ? undefined : 'expired';
    }
    // veto ratio ranges over [v/(voted+R), (v+R)/(voted+R)]
    const vetoCertain = gt(s.v, voted + R, rule.vetoThreshold);
    const vetoPossible = gt(s.v + R, voted + R, rule.vetoThreshold);
    if (vetoCertain) return 'vetoed';
    if (vetoPossible) return undefined;
    // yes ratio over yes+no+veto ranges over [y/(d+R), (y+R)/(d+R)] (and y/d without more votes)
    const d = s.y + s.n + s.v;
    const passCertain = d > 0n && gt(s.y, d + R, rule.threshold);
    const passPossible = gt(s.y + R, d + R, rule.threshold);
    if (passCertain) return 'passed';
    if (!passPossible) return 'rejected';
    return undefined;
  }
  if (rule.rule === 'absolute_count') {
    if (s.yesCount >= rule.k) return 'passed';
    if (s.yesCount + s.remainingVoters < rule.k) return 'rejected';
    return undefined;
  }
  // absolute_percentage: pass at end iff y' >= p (total - a'); worst case for pass: nobody else votes (a' = a)
  const base = s.total - s.a;
  if (s.y > 0n && geMul(s.y, rule.p, base)) return 'passed';
  if (!geMul(s.y + R, rule.p, base)) return 'rejected';
  return undefined;
}

/**
 * The status of an open proposal now: open, or the outcome (passed, rejected,
 * vetoed, expired). At or after the deadline the votes cast decide.
 */
export function computeStatus(
  rule: TallyRule,
  snapshot: SnapshotVoter[],
  votes: Map<string, VoteOption>,
  deadline: number,
  now: number,
  revoting: boolean,
): { status: 'open' | Outcome; tally: Tally } {
  const tally = tallyOf(snapshot, votes);
  const s = sums(snapshot, votes);
  if (now >= deadline) return { status: finalOutcome(rule, s), tally };
  if (revoting) return { status: 'open', tally };
  return { status: decidedOutcome(rule, s) ?? 'open', tally };
}
