/**
 * The checks of a project's design in the verifier's package: the design is consistent with itself (every size
 * follows from its own parameters), and the commitment is for this design (its designId, provenance, strata and n_h).
 */
import { canonicalJson } from '../hash.ts';
import type { Check } from '../selection/checks.ts';
import { designDiscrepancies, type SelectionDesign } from '../selection/design.ts';
import type { Commitment } from '../selection/records.ts';

/** The design's integrity check: every size follows from its own parameters, or one failure per size that does not. */
export function designChecks(d: SelectionDesign): Check[] {
  const bad = designDiscrepancies(d.parameters, d.stratification);
  if (bad.length > 0)
    return bad.map((b) => ({ check: 'design', kind: 'integrity', status: 'fail', message: `design: ${b.message}` }));
  return [
    {
      check: 'design',
      kind: 'integrity',
      status: 'pass',
      message: "every size follows from the design's own parameters (the chain of `sample calc`, recomputed)",
    },
  ];
}

/** A provenance block in words: the generator and its version, the method, when. */
function provenanceText(p: Record<string, unknown>): string {
  const g = p.generator as { name?: unknown; version?: unknown } | undefined;
  const parts = [
    g && typeof g === 'object' ? `${String(g.name ?? '')} ${String(g.version ?? '')}`.trim() : '',
    typeof p.method === 'string' ? p.method : '',
    typeof p.generatedAt === 'string' ? `generated ${p.generatedAt}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : canonicalJson(p);
}

/** The commitment is for this design: its designId, and its strata and n_h as the design's. */
export function commitmentDesignChecks(c: Commitment, d: SelectionDesign): Check[] {
  const same = c.designId === d.designId;
  const out: Check[] = [
    {
      check: 'commitment.designId',
      kind: 'integrity',
      status: same ? 'pass' : 'fail',
      message: same
        ? `the commitment is for this design (${d.designId})`
        : `the commitment is for design ${c.designId}; this project's design is ${d.designId}`,
    },
  ];
  const committedProvenance = c.design.provenance;
  if (committedProvenance !== undefined) {
    const given = d.provenance === undefined ? null : canonicalJson(d.provenance);
    const ok = given === canonicalJson(committedProvenance);
    out.push({
      check: 'commitment.design.provenance',
      kind: 'integrity',
      status: ok ? 'pass' : 'fail',
      message: ok
        ? `the design's provenance is the committed one (${provenanceText(committedProvenance)})`
        : `the commitment records the design's provenance ${canonicalJson(committedProvenance)}; this project's design has ${given ?? 'none'}`,
    });
  }
  const sizes = d.strata.map((s) => s.sampleSize);
  const committed = c.strata.map((s) => s.sampleSize);
  if (
    JSON.stringify(sizes) !== JSON.stringify(committed) ||
    JSON.stringify(d.strata.map((s) => s.name)) !== JSON.stringify(c.strata.map((s) => s.name))
  ) {
    out.push({
      check: 'commitment.strata',
      kind: 'integrity',
      status: 'fail',
      message: `the commitment's strata and n_h (${c.strata.map((s) => `${s.name} ${s.sampleSize}`).join(', ')}) are not the design's (${d.strata.map((s) => `${s.name} ${s.sampleSize}`).join(', ')})`,
    });
  }
  return out;
}
