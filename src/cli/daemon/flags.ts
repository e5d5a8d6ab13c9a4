/** The flags of the `daemon` commands, declared once as specs (flag-spec.ts); the commands build oclif's from them. */
import { REGISTRY_FLAGS, type CommandFlagSpecs } from '../flag-spec.ts';

/** `daemon start` and `daemon restart`. */
export const DAEMON_LISTEN_FLAGS = {
  port: {
    type: 'integer',
    description: 'Port to listen on (0 = any free port). Env ORACLEKIT_DAEMON_PORT; default 4781.',
    min: 0,
    max: 65535,
  },
  host: { type: 'string', description: 'Address to bind (default 127.0.0.1).' },
} as const satisfies CommandFlagSpecs;

/** `daemon keys create`: the key's DID, role and proof, and whether to save it. */
export const DAEMON_KEYS_CREATE_FLAGS = {
  did: { type: 'string', description: 'The principal DID the key acts as.', required: true },
  role: {
    type: 'string',
    description: 'A role (repeatable).',
    required: true,
    multiple: true,
    options: ['admin', 'representative', 'voter', 'verifier', 'member', 'reader'],
  },
  label: { type: 'string', description: 'A note to recognise the key by.' },
  prove: {
    type: 'boolean',
    description:
      "Prove the DID: sign a challenge with your identity's key (`oraclekit login`); --did must be that key's DID. Required by registries that set requireDidProof.",
    default: false,
  },
  save: {
    type: 'boolean',
    description: 'Save the key in the CLI settings (used when --api-key is not given).',
    default: false,
  },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;

/** `daemon logs`. */
export const DAEMON_LOGS_FLAGS = {
  follow: { type: 'boolean', char: 'f', description: 'Keep printing new lines (Ctrl-C to stop).', default: false },
  lines: { type: 'integer', char: 'n', description: 'How many of the last lines to show.', default: 50, min: 0 },
} as const satisfies CommandFlagSpecs;

/** `daemon stop`. */
export const DAEMON_STOP_FLAGS = {
  grace: { type: 'integer', description: 'Seconds to wait for a graceful stop before SIGKILL.', default: 10, min: 0 },
} as const satisfies CommandFlagSpecs;
