/** The flags of `daemon start` and `daemon restart` (specs: see flag-spec.ts). */
import type { CommandFlagSpecs } from '../flag-spec.ts';

export const DAEMON_LISTEN_FLAGS = {
  port: {
    type: 'integer',
    description: 'Port to listen on (0 = any free port). Env ORACLEKIT_DAEMON_PORT; default 4781.',
    min: 0,
    max: 65535,
  },
  host: { type: 'string', description: 'Address to bind (default 127.0.0.1).' },
} as const satisfies CommandFlagSpecs;
