/**
 * The registry's replies as its clients read them (registry.md): the one
 * declaration of each wire shape used by the typed client
 * (src/lib/registry/client.ts), the CLI's printers and the domains plugin.
 * Domain views come from domain.ts and tallies from tally.ts (the daemon
 * builds them there); the others mirror the daemon's store records.
 */
import type { DomainView } from './domain.ts';
import type { ProposalStatus, RuleJson, SnapshotVoter, Tally } from './tally.ts';
import type { Design } from '../sampling/design.ts';

export type { DomainView, Service } from './domain.ts';

/** A page of a list route: `GET /v1/domains`, `/v1/sampling`. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A verification proposal (`POST /v1/domains/:did/verification-proposals`, `POST /v1/proposals/:id/votes`). */
export interface ProposalReply {
  id: string;
  domainId: string;
  status: ProposalStatus;
  outcome?: Exclude<ProposalStatus, 'executed'>;
  rule: RuleJson;
  revoting?: boolean;
  snapshot: SnapshotVoter[];
  tally: Tally;
  deadline: string;
  package?: { documents: { url: string; hash: string; name?: string }[] };
  description: string | null;
  proposer?: string;
  createdAt: string;
  closedAt: string | null;
}

/** `GET /v1/domains/:did/verification-proposals`: the domain and its latest proposal. */
export interface VerificationReply {
  domain: DomainView;
  proposal: ProposalReply | null;
}

/** A stored sample design (`/v1/sampling`, sampling.md "Stored designs"). */
export interface DesignReply {
  designId: string;
  projectId: string;
  version: number;
  previousDesignId: string | null;
  parameters: Design['parameters'];
  stratification: Design['stratification'];
  verification: { status: 'draft' | 'submitted' | 'approved' | 'rejected'; verifier: string | null; timestamp: string | null; reason?: string };
  flags?: string[];
  input?: Record<string, unknown>;
  change?: { period: string | null; previousAdjustedSize: number; adjustedSize: number; direction: 'up' | 'down' | 'same'; by: number };
  createdBy?: string;
  createdAt: string;
}

/** An API key as listed (`GET /admin/v1/keys`); never the secret. */
export interface KeyReply {
  id: string;
  prefix: string;
  did: string;
  roles: string[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** A new API key (`POST /admin/v1/keys`): the secret, shown once. */
export interface CreatedKeyReply {
  id: string;
  key: string;
  did: string;
  roles: string[];
  createdAt: string;
}

/** A revoked key (`POST /admin/v1/keys/:id/revoke`). */
export interface RevokedKeyReply {
  id: string;
  revokedAt: string;
}
