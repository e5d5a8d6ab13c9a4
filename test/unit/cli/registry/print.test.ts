/** The registry commands' printers: what a person sees for each reply. */
import { describe, expect, it } from 'vitest';
import {
  formatDesign,
  formatDesignPage,
  formatDomain,
  formatDomainPage,
  formatKeys,
  formatProposal,
  formatVerification,
  verificationJson,
} from '../../../../src/cli/registry/print.ts';
import type { DesignRecord, DomainView, ProposalView } from '../../../../src/lib/registry/types.ts';

process.env.NO_COLOR = '1';
const did = 'did:ixo:entity:' + 'a'.repeat(32);
const domain: DomainView = {
  id: did,
  type: 'Project',
  class: 'did:ixo:entity:' + 'b'.repeat(32),
  state: 'verified',
  version: 2,
  active: true,
  eligible: true,
  controllers: ['did:example:rep', 'did:example:partner'],
  metadata: { name: 'Kisumu' },
  services: [{ id: '#web', type: 'website', serviceEndpoint: 'https://kisumu.example.org' }],
  validFrom: null,
  validUntil: '2099-01-01T00:00:00Z',
  alsoKnownAs: 'KE-1',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  deactivatedAt: null,
};
const tally = {
  yes: '1',
  no: '0',
  abstain: '0',
  veto: '0',
  voters: 1,
  voted: 1,
  totalWeight: '1',
  votedWeight: '1',
  yesCount: 1,
};
const proposal: ProposalView = {
  id: 'prp_1',
  domainId: did,
  status: 'executed',
  outcome: 'passed',
  revoting: false,
  rule: { rule: 'absolute_count', k: 1 },
  snapshot: [{ did: 'did:example:v1', weight: 1 }],
  tally,
  deadline: '2026-02-01T00:00:00Z',
  description: null,
  package: { documents: [] },
  proposer: 'did:example:rep',
  createdAt: '2026-01-01T00:00:00Z',
  closedAt: '2026-01-01T01:00:00Z',
};
const design = {
  designId: 'd1',
  projectId: did,
  version: 2,
  previousDesignId: 'd0',
  parameters: {
    population: 1200,
    calculatedSize: 100,
    adjustedSize: 118,
    dropoutRate: 0.15,
    erCoverage: 0.85,
    erCoverageSource: '1 - dropoutRate',
  },
  stratification: { method: 'proportional', strata: [{ name: 'north', population: 600, sampleSize: 59 }] },
  verification: { status: 'approved', verifier: 'did:example:verifier', timestamp: '2026-01-03T00:00:00Z' },
  change: { period: null, previousAdjustedSize: 120, adjustedSize: 118, direction: 'down', by: 2 },
  createdAt: '2026-01-03T00:00:00Z',
} as unknown as DesignRecord;

describe('printers', () => {
  it('a domain', () => {
    expect(formatDomain(domain)).toBe(
      [
        did,
        `  type         Project  class did:ixo:entity:${'b'.repeat(32)}`,
        '  state        verified (version 2; active true, eligible true)',
        '  name         Kisumu',
        '  controllers  did:example:rep, did:example:partner',
        '  valid        - .. 2099-01-01T00:00:00Z',
        '  alsoKnownAs  KE-1',
        '  service      #web website https://kisumu.example.org',
      ].join('\n'),
    );
  });

  it('a page of domains names the next cursor', () => {
    const t = formatDomainPage({ items: [domain], nextCursor: 'czE' });
    expect(t.split('\n')[2]).toBe(`${did}  Project  verified  yes       Kisumu`);
    expect(t.endsWith('\nmore: --cursor czE')).toBe(true);
    expect(formatDomainPage({ items: [], nextCursor: null })).not.toContain('more');
  });

  it('a proposal, and the verification state with or without one', () => {
    expect(formatProposal(proposal)).toBe(
      `prp_1 for ${did}\n  status    executed (rule absolute_count; deadline 2026-02-01T00:00:00Z)\n  tally     yes 1, no 0, abstain 0, veto 0 (1/1 voters, total weight 1)`,
    );
    expect(formatVerification({ domain, proposal: null })).toBe(
      `${did}: verified (active true, eligible true)\n  no verification proposal yet`,
    );
    expect(verificationJson({ domain, proposal })).toEqual({
      did,
      state: 'verified',
      active: true,
      eligible: true,
      version: 2,
      proposal,
    });
  });

  it('a design and a page of designs', () => {
    expect(formatDesign(design)).toBe(
      [
        'd1 (version 2, after d0)',
        `  project       ${did}`,
        '  sizes         calculated 100, adjusted 118 of N 1200 (dropout 0.15; erCoverage 0.85 from 1 - dropoutRate)',
        '  verification  approved by did:example:verifier at 2026-01-03T00:00:00Z',
        '  change        down by 2 (was 120)',
        '  stratum       north: N 600, n 59',
      ].join('\n'),
    );
    expect(formatDesignPage({ items: [design], nextCursor: null }).split('\n')[2]).toBe(
      `d1${' '.repeat(14)}2  ${did}           118  approved`,
    );
  });

  it('keys, never the secret', () => {
    const t = formatKeys([
      {
        id: 'key_1',
        prefix: 'okk_ab',
        did: 'did:example:rep',
        roles: ['representative', 'member'],
        label: null,
        createdAt: '2026-01-01T00:00:00Z',
        revokedAt: null,
      },
    ]);
    expect(t.split('\n')[0]).toMatch(/^id +did +roles +created +revoked +label$/);
    expect(t).toContain('key_1  did:example:rep  representative,member  2026-01-01T00:00:00Z');
  });
});
