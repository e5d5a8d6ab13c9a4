/** The calls plugin's own error codes (merged with the runtime's at boot; payment_required is the protocol's). */
import { pluginErrorFactory } from 'oraclekit/plugin';

export const CALLS_ERRORS = {
  call_not_found: { status: 404, when: "no such call among the caller's own" },
  call_ended: { status: 409, when: 'the call has ended: it cannot be joined, started or changed again' },
  call_agent_unavailable: {
    status: 502,
    when: "the oracle's agent could not join the call's room (the LiveKit server did not answer or refused it)",
  },
  calls_per_user_exceeded: {
    status: 429,
    when: 'the user has CALLS_MAX_PER_USER live calls already: end one, or retry after Retry-After seconds',
  },
  calls_busy: {
    status: 503,
    when: 'the oracle has CALLS_MAX_PER_PROCESS live calls already: retry after Retry-After seconds',
  },
  calls_public_url_missing: {
    status: 503,
    when:
      'the oracle listens on every interface and answers to any host name, so it cannot tell clients where to join: ' +
      'set CALLS_PUBLIC_URL (or ORACLE_ALLOWED_HOSTS)',
  },
  camera_off: {
    status: 409,
    when: "look_at_camera: the call's user has no camera on (none published, muted, or no frame yet)",
  },
} as const;

export const callsError = pluginErrorFactory(CALLS_ERRORS);
