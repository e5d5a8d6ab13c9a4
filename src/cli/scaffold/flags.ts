/**
 * The flags of `new`, declared once as specs (src/cli/flag-spec.ts); the command builds its oclif flags from them
 * (`toOclifFlags`) and `runNew` takes its input typed from them. Every question `new` asks is one of these flags.
 */
import { REGISTRY_FLAGS, type CommandFlagSpecs, type ParsedFlags } from '../flag-spec.ts';
import { IDENTITY_FLAGS } from '../identity/flags.ts';
import { NETWORKS } from '../registry/settings.ts';

export const NEW_FLAGS = {
  yes: {
    type: 'boolean',
    char: 'y',
    description: 'Take the default for every question not given as a flag.',
    default: false,
  },
  force: { type: 'boolean', description: 'Write into a non-empty directory.', default: false },
  dir: { type: 'string', description: 'Directory to create (default ./<project-name>).' },
  ...IDENTITY_FLAGS,
  network: {
    type: 'string',
    description: 'Where to register the oracle: local (the daemon’s registry, default), devnet, testnet, mainnet.',
    options: NETWORKS,
    helpGroup: 'REGISTRY',
  },
  registry: {
    ...REGISTRY_FLAGS.registry,
    description: 'The registry URL of --network (saved in settings for next time).',
  },
  'api-key': {
    ...REGISTRY_FLAGS['api-key'],
    description: 'API key for a remote registry (saved for next time); on local one is created for you.',
  },
  class: {
    type: 'string',
    description: 'DID of the Protocol domain the oracle follows (default: oraclekit:oracle-protocol:v1).',
    helpGroup: 'REGISTRY',
  },
  name: { type: 'string', description: 'Oracle name (default: the project name).', helpGroup: 'PROFILE' },
  description: { type: 'string', description: 'Oracle description.', helpGroup: 'PROFILE' },
  price: {
    type: 'string',
    description:
      'Price per use: 0 (free, default) to 1000000000, at most 6 decimals (what the credits ledger keeps exactly).',
    helpGroup: 'PROFILE',
  },
  model: {
    type: 'string',
    description: 'Model id for the OpenAI-compatible endpoint (default openai/gpt-4o-mini).',
    helpGroup: 'PROFILE',
  },
  url: {
    type: 'string',
    description:
      'The URL clients reach the oracle at (#api and #ws); default http://localhost:3000. Not 0.0.0.0; a local URL without a port means port 80.',
    helpGroup: 'PROFILE',
  },
  port: {
    type: 'integer',
    description: 'PORT for a non-local --url behind a proxy (default 3000); a local URL’s port is used as is.',
    min: 1,
    max: 65535,
    helpGroup: 'PROFILE',
  },
  'oracle-key': {
    type: 'string',
    description:
      "The oracle's signing key in .env: generate (a new mnemonic, default), identity (your mnemonic — written in plain text, 0600), none.",
    options: ['generate', 'identity', 'none'],
    helpGroup: 'PROFILE',
  },
  'llm-base-url': {
    type: 'string',
    description: 'LLM_BASE_URL in .env (default https://openrouter.ai/api/v1).',
    helpGroup: 'PROFILE',
  },
  install: { type: 'boolean', description: 'Run npm install (default yes).', allowNo: true },
  git: { type: 'boolean', description: 'Initialise git (default yes).', allowNo: true },
  'oraclekit-version': {
    type: 'string',
    description: 'npm spec of the oraclekit dependency (default ^<this version>; e.g. file:../oraclekit-0.1.0.tgz).',
  },
  matrix: {
    type: 'boolean',
    description: 'Provision the Matrix bot when a homeserver is configured (default yes).',
    allowNo: true,
    helpGroup: 'MATRIX',
  },
  'matrix-homeserver': {
    type: 'string',
    description: 'Matrix homeserver URL (default $MATRIX_BASE_URL).',
    helpGroup: 'MATRIX',
  },
  'matrix-user': {
    type: 'string',
    description: 'The bot’s localpart (default oracle-<project-name>).',
    helpGroup: 'MATRIX',
  },
  'matrix-password': {
    type: 'string',
    description:
      'The bot’s password (default: generated; needed to log in to an existing account). Env MATRIX_BOT_PASSWORD.',
    env: 'MATRIX_BOT_PASSWORD',
    helpGroup: 'MATRIX',
  },
  'matrix-registration-token': {
    type: 'string',
    description: 'A registration token when the homeserver requires one.',
    helpGroup: 'MATRIX',
  },
} as const satisfies CommandFlagSpecs;

/** The parsed flags; a boolean flag not given may be undefined (--install, --git, --matrix: "ask", or the default). */
export type NewFlags = {
  [K in keyof ParsedFlags<typeof NEW_FLAGS>]: ParsedFlags<typeof NEW_FLAGS>[K] extends boolean
    ? boolean | undefined
    : ParsedFlags<typeof NEW_FLAGS>[K];
};

/** `update-oracle-api-url`. */
export const UPDATE_URL_FLAGS = {
  did: { type: 'string', description: "The oracle's DID (default: oracleDid of oracle.config.json)." },
  project: { type: 'string', description: 'The project folder (default: the current directory).', default: '.' },
  check: {
    type: 'boolean',
    description: 'Check GET <url>/health first (default yes).',
    allowNo: true,
    default: true,
  },
  network: {
    type: 'string',
    description: 'The network (default: the project’s, else local).',
    options: NETWORKS,
    helpGroup: 'REGISTRY',
  },
  registry: { ...REGISTRY_FLAGS.registry, description: 'The registry URL (default: the network’s saved one).' },
  'api-key': {
    ...REGISTRY_FLAGS['api-key'],
    description: 'API key of a controller of the oracle (default: the saved one).',
  },
} as const satisfies CommandFlagSpecs;
