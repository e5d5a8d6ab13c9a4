/**
 * How the registry commands print the registry's replies for a person (with
 * --json they print the reply itself). Each printer returns the text;
 * commands pass it to `out`.
 */
import type {
  DesignRecord,
  DomainView,
  KeyInfo,
  Page,
  ProposalView,
  VerificationView,
} from '../../lib/registry/types.ts';
import { textTable } from '../output.ts';

export function formatDomain(d: DomainView): string {
  const lines = [
    `${d.id}`,
    `  type         ${d.type}${d.class ? `  class ${d.class}` : ''}`,
    `  state        ${d.state} (version ${d.version}; active ${d.active}, eligible ${d.eligible})`,
  ];
  if (typeof d.metadata?.name === 'string') lines.push(`  name         ${d.metadata.name}`);
  lines.push(`  controllers  ${d.controllers.join(', ')}`);
  if (d.validFrom || d.validUntil) lines.push(`  valid        ${d.validFrom ?? '-'} .. ${d.validUntil ?? '-'}`);
  if (d.alsoKnownAs) lines.push(`  alsoKnownAs  ${d.alsoKnownAs}`);
  for (const s of d.services ?? []) lines.push(`  service      ${s.id} ${s.type} ${s.serviceEndpoint}`);
  return lines.join('\n');
}

const more = (cursor: string | null) => (cursor ? `\nmore: --cursor ${cursor}` : '');

export function formatDomainPage(p: Page<DomainView>): string {
  return (
    textTable(
      ['did', 'type', 'state', 'eligible', 'name'],
      p.items.map((d) => [d.id, d.type, d.state, d.eligible ? 'yes' : 'no', String(d.metadata?.name ?? '')]),
    ) + more(p.nextCursor)
  );
}

export function formatProposal(p: ProposalView): string {
  const t = p.tally;
  return [
    `${p.id} for ${p.domainId}`,
    `  status    ${p.status} (rule ${p.rule.rule}; deadline ${p.deadline})`,
    `  tally     yes ${t.yes}, no ${t.no}, abstain ${t.abstain}, veto ${t.veto} (${t.voted}/${t.voters} voters, ` +
      `total weight ${t.totalWeight})`,
  ].join('\n');
}

/** `domain status`: the domain's state and its latest proposal. */
export function formatVerification(r: VerificationView): string {
  const d = r.domain;
  return (
    `${d.id}: ${d.state} (active ${d.active}, eligible ${d.eligible})\n` +
    (r.proposal ? formatProposal(r.proposal) : '  no verification proposal yet')
  );
}

/** `domain status --json`: the domain's verification state, without the whole domain. */
export function verificationJson(r: VerificationView) {
  const d = r.domain;
  return {
    did: d.id,
    state: d.state,
    active: d.active,
    eligible: d.eligible,
    version: d.version,
    proposal: r.proposal,
  };
}

export function formatDesign(d: DesignRecord): string {
  const p = d.parameters;
  const lines = [
    `${d.designId} (version ${d.version}${d.previousDesignId ? `, after ${d.previousDesignId}` : ''})`,
    `  project       ${d.projectId}`,
    `  sizes         calculated ${p.calculatedSize}, adjusted ${p.adjustedSize} of N ${p.population} (dropout ` +
      `${p.dropoutRate}; erCoverage ${p.erCoverage} from ${p.erCoverageSource})`,
    `  verification  ` +
      `${d.verification.status}${d.verification.verifier ? ` by ${d.verification.verifier} at ${d.verification.timestamp}` : ''}`,
  ];
  if (d.change)
    lines.push(`  change        ${d.change.direction} by ${d.change.by} (was ${d.change.previousAdjustedSize})`);
  for (const s of d.stratification.strata ?? [])
    lines.push(`  stratum       ${s.name}: N ${s.population}, n ${s.sampleSize}`);
  return lines.join('\n');
}

export function formatDesignPage(p: Page<DesignRecord>): string {
  return (
    textTable(
      ['designId', 'version', 'project', 'adjustedSize', 'status'],
      p.items.map((d) => [d.designId, d.version, d.projectId, d.parameters.adjustedSize, d.verification.status]),
    ) + more(p.nextCursor)
  );
}

export function formatKeys(items: KeyInfo[]): string {
  return textTable(
    ['id', 'did', 'roles', 'created', 'revoked', 'label'],
    items.map((k) => [k.id, k.did, k.roles.join(','), k.createdAt, k.revokedAt ?? '', k.label ?? '']),
  );
}
