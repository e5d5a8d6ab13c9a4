/**
 * The registry: one module per resource — API keys (keys.ts), sample designs
 * (designs.ts), domains (domains.ts), verification proposals and votes
 * (proposals.ts) — plus Idempotency-Key replay (idempotency.ts), over one
 * storage (src/storage). The input schemas (inputs.ts), which the routes
 * validate requests with, are the validation of shapes; the modules take
 * their inferred types and check only the rules that need the database or
 * words of their own (DID syntax, URLs, state machines).
 *
 * Every write goes through the storage's group commit (`db.write`): its
 * reply is sent only after the WAL holding it was fsynced, so a reply is only
 * sent for a write that is on disk, and a kill -9 leaves either the whole
 * record or nothing.
 */
import type { Storage } from '../../storage/storage.ts';
import type { DeploymentConfig } from '../config.ts';
import type { RegistryContext } from './common.ts';
import { Designs } from './designs.ts';
import { Domains } from './domains.ts';
import { Idempotency } from './idempotency.ts';
import { Keys } from './keys.ts';
import { Proposals } from './proposals.ts';

export class Registry implements RegistryContext {
  readonly db: Storage;
  readonly config: DeploymentConfig;
  readonly keys: Keys;
  readonly idempotency: Idempotency;
  readonly domains: Domains;
  readonly designs: Designs;
  readonly proposals: Proposals;
  /** The clock; tests of deadlines replace it. */
  now: () => number = () => Date.now();

  constructor(db: Storage, config: DeploymentConfig) {
    this.db = db;
    this.config = config;
    this.keys = new Keys(this);
    this.idempotency = new Idempotency(this);
    this.domains = new Domains(this);
    this.designs = new Designs(this, this.domains);
    this.proposals = new Proposals(this, this.domains);
    this.domains.settleProposal = (id) => this.proposals.get(id);
  }
}
