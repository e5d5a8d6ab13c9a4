/**
 * The registry's reply types (docs/registry.md): what /v1 and /admin/v1 send,
 * shared by the daemon that builds them and the clients that read them, so a
 * client never imports the daemon (the CLI's typed client, src/lib/registry/client.ts,
 * its printers and the domains plugin read these same types). The zod reply schemas of the routes
 * (src/daemon/http/schemas.ts) document the same shapes for /docs/json.
 */
import type { Design } from '../sampling/design.ts';
import type { ProposalStatus, RuleJson, SnapshotVoter, Tally } from './tally.ts';

import type { DomainView } from './domain.ts';

export type { DomainView, PublicDomainView, Service } from './domain.ts';

/** `reader` is read-only: such a key can only read (any write is 403 read_only_key), and it takes no other role. */
export const ROLES = ['admin', 'representative', 'voter', 'verifier', 'member', 'reader'] as const;
export type Role = (typeof ROLES)[number];

/** Who a request acts as: the API key's id, DID and roles. */
export interface Principal {
  keyId: string;
  did: string;
  roles: Role[];
}

/** A page of a list; pass nextCursor as ?cursor= for the next one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type DesignStatus = 'draft' | 'submitted' | 'approved' | 'rejected';

export interface DesignRecord {
  designId: string;
  projectId: string;
  version: number;
  previousDesignId: string | null;
  parameters: Design['parameters'];
  stratification: Design['stratification'];
  verification: { status: DesignStatus; verifier: string | null; timestamp: string | null; reason?: string };
  flags: string[];
  input: Record<string, unknown>;
  change?: {
    period: string | null;
    previousAdjustedSize: number;
    adjustedSize: number;
    direction: 'up' | 'down' | 'same';
    by: number;
  };
  createdBy: string;
  createdAt: string;
}

/** The entity package of a verification proposal. */
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
  tally: Tally;
  deadline: string;
  package: VerificationPackage;
  description: string | null;
  proposer: string;
  createdAt: string;
  closedAt: string | null;
}

/** POST /admin/v1/keys: the secret is shown this once. */
export interface KeyCreated {
  id: string;
  key: string;
  did: string;
  roles: Role[];
  createdAt: string;
}

/** An item of GET /admin/v1/keys (no secret). */
export interface KeyInfo {
  id: string;
  prefix: string;
  did: string;
  roles: Role[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface KeyRevoked {
  id: string;
  revokedAt: string;
}

/** `GET /v1/domains/:did/verification-proposals`: the domain and its latest proposal. */
export interface VerificationView {
  domain: DomainView;
  proposal: ProposalView | null;
}
