/**
 * The named checks of a verification (docs/selection.md, "Checks"), their two kinds — integrity (does everything
 * recompute? a failure is a MISMATCH, exit 10) and trust (could the randomness have been chosen by whoever drew?
 * a failure is UNTRUSTED, exit 11) — and the verdict and result they give.
 */
export type CheckKind = 'integrity' | 'trust';
type CheckStatus = 'pass' | 'fail' | 'skip';

export interface Check {
  check: string;
  kind: CheckKind;
  status: CheckStatus;
  message: string;
}

export type Verdict = 'verified' | 'mismatch' | 'untrusted';

export interface VerifyResult {
  /** Every check passed: the selection recomputes and its randomness can be trusted. */
  ok: boolean;
  verdict: Verdict;
  checks: Check[];
  /** Names of the checks that passed, in order. */
  passed: string[];
  /** The first integrity failure. */
  mismatch?: { check: string; message: string };
  /** Every trust failure. */
  untrusted: { check: string; message: string }[];
  summary: string;
  notes: string[];
  /**
   * What a verifier must read before "verified": facts about the design that the checks do not fail on,
   * such as a frame larger than the design's population (the committed sizes give less than ±5 %).
   */
  findings: string[];
}

/** The first 12 hex digits of a hash, as messages show it. */
export const short = (h: string): string => h.slice(0, 12);

/** The checks as they are run, in order. */
export class Checks {
  readonly list: Check[] = [];
  pass(check: string, kind: CheckKind, message: string): void {
    this.list.push({ check, kind, status: 'pass', message });
  }
  fail(check: string, kind: CheckKind, message: string): void {
    this.list.push({ check, kind, status: 'fail', message });
  }
  skip(check: string, kind: CheckKind, message: string): void {
    this.list.push({ check, kind, status: 'skip', message });
  }
  get integrityFailed(): boolean {
    return this.list.some((c) => c.kind === 'integrity' && c.status === 'fail');
  }
}

/** verified, mismatch (an integrity failure) or untrusted (a trust failure only). */
export function verdictOf(checks: Check[]): Verdict {
  if (checks.some((c) => c.kind === 'integrity' && c.status === 'fail')) return 'mismatch';
  if (checks.some((c) => c.kind === 'trust' && c.status === 'fail')) return 'untrusted';
  return 'verified';
}

/** The result of a run: the verdict, the first mismatch, every trust failure and the summary line. */
export function verifyResult(k: Checks, summaryOk: string, notes: string[], findings: string[]): VerifyResult {
  const verdict = verdictOf(k.list);
  const fail = k.list.find((c) => c.kind === 'integrity' && c.status === 'fail');
  const untrusted = k.list
    .filter((c) => c.kind === 'trust' && c.status === 'fail')
    .map(({ check, message }) => ({ check, message }));
  const out: VerifyResult = {
    ok: verdict === 'verified',
    verdict,
    checks: k.list,
    passed: k.list.filter((c) => c.status === 'pass').map((c) => c.check),
    untrusted,
    summary:
      verdict === 'mismatch'
        ? `MISMATCH ${fail!.check}: ${fail!.message}`
        : verdict === 'untrusted'
          ? `recomputes (${summaryOk}) but UNTRUSTED: ${untrusted.map((u) => u.check).join(', ')}`
          : summaryOk,
    notes,
    findings,
  };
  if (fail) out.mismatch = { check: fail.check, message: fail.message };
  return out;
}
