/**
 * The flags of the `domain` commands, declared once as specs (src/cli/flag-spec.ts), as the other command areas do;
 * the commands build their oclif flags from them (`toOclifFlags`).
 */
import { PAGE_FLAGS, REGISTRY_FLAGS, type CommandFlagSpecs } from '../flag-spec.ts';

/** `domain show`, `status`, `deactivate`, `vote`: which registry, with which key. */
export const DOMAIN_FLAGS = { ...REGISTRY_FLAGS } as const satisfies CommandFlagSpecs;

/** `domain list`: the filters and the page. */
export const DOMAIN_LIST_FLAGS = {
  type: { type: 'string', description: 'Only this type.' },
  status: {
    type: 'string',
    description: 'Only this state (registered, pending_verification, verified, verification_rejected, deactivated).',
  },
  controller: { type: 'string', description: 'Only domains this DID controls.' },
  class: { type: 'string', description: 'Only domains of this Protocol class.' },
  q: { type: 'string', description: 'Search in name and alsoKnownAs.' },
  ...PAGE_FLAGS,
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;

/** `domain propose`: the package and what the voters are asked. */
export const DOMAIN_PROPOSE_FLAGS = {
  package: { type: 'string', description: 'JSON file with the entity package.', required: true },
  description: { type: 'string', description: 'What the voters are asked to verify.' },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;

/** `domain register`: the domain's fields. */
export const DOMAIN_REGISTER_FLAGS = {
  type: {
    type: 'string',
    description: 'Domain type.',
    required: true,
    options: ['Organisation', 'Project', 'Asset', 'Device', 'Protocol', 'Oracle', 'Request'],
  },
  class: {
    type: 'string',
    description: 'DID of a registered, active Protocol domain (required except for --type Protocol).',
  },
  name: { type: 'string', description: 'metadata.name' },
  metadata: { type: 'string', description: 'Metadata as a JSON object (name from --name is merged in).' },
  'valid-from': { type: 'string', description: 'RFC 3339 date-time with a zone.' },
  'valid-until': {
    type: 'string',
    description: 'RFC 3339 date-time with a zone, after --valid-from and in the future.',
  },
  controller: { type: 'string', description: 'Another controller DID (repeatable; yours is added).', multiple: true },
  service: {
    type: 'string',
    description: 'A service as id=type,url (repeatable), e.g. "#api=oracleService,https://host".',
    multiple: true,
  },
  'also-known-as': { type: 'string', description: 'A natural key, unique per class among live domains.' },
  'idempotency-key': {
    type: 'string',
    description: 'Idempotency-Key header: a retry with the same key and body returns the same reply.',
  },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;

/** `domain update`: the fields to change and the version expected. */
export const DOMAIN_UPDATE_FLAGS = {
  name: { type: 'string', description: 'metadata.name (other metadata kept).' },
  metadata: { type: 'string', description: 'Replace metadata with this JSON object.' },
  class: { type: 'string', description: 'New class (a Protocol domain DID).' },
  controller: { type: 'string', description: 'The new full list of controllers (repeatable).', multiple: true },
  service: {
    type: 'string',
    description: 'The new full list of services as id=type,url (repeatable).',
    multiple: true,
  },
  'valid-from': { type: 'string', description: 'RFC 3339 with a zone.' },
  'valid-until': { type: 'string', description: 'RFC 3339 with a zone.' },
  'also-known-as': { type: 'string', description: 'Natural key.' },
  'if-match': { type: 'integer', description: 'The version you expect (412 if it moved on).' },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;
