/**
 * Provisioning the oracle's Matrix bot through the client-server API
 * (spec v1.x, /_matrix/client/v3):
 * 1. POST /register {username, password} → 401 with the user-interactive
 *    auth flows and a session; complete the m.login.dummy stage (or
 *    m.login.registration_token with --matrix-registration-token);
 * 2. M_USER_IN_USE → log in instead: POST /login m.login.password;
 * 3. GET /account/whoami checks the token.
 * The bot's user ID and access token (and password, when generated) go to
 * the project's .env (MATRIX_BASE_URL, MATRIX_ORACLE_ADMIN_USER_ID,
 * MATRIX_ORACLE_ADMIN_ACCESS_TOKEN, MATRIX_ORACLE_ADMIN_PASSWORD).
 */
import { randomBytes } from 'node:crypto';
import { cliError, type CliErrorCode, type OracleKitError } from '../errors.ts';
import { requestJson } from '../../lib/registry/client.ts';

export interface MatrixBot {
  baseUrl: string;
  userId: string;
  accessToken: string;
  password: string;
  created: boolean;
}

interface MatrixErr {
  errcode?: string;
  error?: string;
  session?: string;
  flows?: { stages: string[] }[];
}

/** Matrix errcodes → the CLI's codes (src/cli/errors.ts); any other is matrix_error with details.errcode. */
const MATRIX_CODES: Record<string, CliErrorCode> = {
  M_FORBIDDEN: 'matrix_forbidden',
  M_USER_IN_USE: 'matrix_user_in_use',
  M_UNKNOWN_TOKEN: 'matrix_unauthorized',
  M_MISSING_TOKEN: 'matrix_unauthorized',
  M_INVALID_USERNAME: 'matrix_invalid_username',
  M_EXCLUSIVE: 'matrix_invalid_username',
  M_LIMIT_EXCEEDED: 'matrix_limit_exceeded',
};

function matrixError(status: number, body: MatrixErr | undefined, step: string): OracleKitError {
  const errcode = body?.errcode ?? 'M_UNKNOWN';
  return cliError(
    MATRIX_CODES[errcode] ?? 'matrix_error',
    `Matrix ${step}: ${body?.error ?? `HTTP ${status}`} (${errcode})`,
    { field: 'matrix-homeserver', details: { errcode, httpStatus: status } },
  );
}

export function botLocalpart(projectName: string): string {
  const s = projectName
    .toLowerCase()
    .replace(/[^a-z0-9._=-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `oracle-${s || 'bot'}`;
}

export async function provisionBot(o: {
  baseUrl: string;
  user: string;
  password?: string;
  registrationToken?: string;
  deviceName?: string;
}): Promise<MatrixBot> {
  const base = o.baseUrl.replace(/\/+$/, '');
  const api = `${base}/_matrix/client/v3`;
  const what = `the Matrix homeserver`;
  const password = o.password ?? randomBytes(18).toString('base64url');
  const device = o.deviceName ?? 'oraclekit';
  const reg = { username: o.user, password, initial_device_display_name: device, inhibit_login: false };
  let r = await requestJson<MatrixErr & { user_id?: string; access_token?: string }>({
    method: 'POST',
    url: `${api}/register`,
    timeoutMs: 15_000,
    body: reg,
    what,
  });
  if (r.status === 401 && r.body?.session) {
    const flows = r.body.flows ?? [];
    const can = (stage: string) => flows.some((f) => f.stages.length === 1 && f.stages[0] === stage);
    let auth: Record<string, unknown> | undefined;
    if (o.registrationToken && can('m.login.registration_token'))
      auth = { type: 'm.login.registration_token', token: o.registrationToken, session: r.body.session };
    else if (can('m.login.dummy')) auth = { type: 'm.login.dummy', session: r.body.session };
    if (!auth) {
      const stages = flows.map((f) => f.stages.join('+')).join(', ');
      throw cliError(
        'matrix_registration_flow',
        `the homeserver's registration needs ${stages || 'an unsupported flow'}; pass --matrix-registration-token, or create the bot account yourself and pass --matrix-user and --matrix-password`,
        { field: 'matrix-registration-token' },
      );
    }
    r = await requestJson({ method: 'POST', url: `${api}/register`, timeoutMs: 15_000, body: { ...reg, auth }, what });
  }
  let created = true;
  let userId: string | undefined;
  let token: string | undefined;
  if (r.status === 200 && r.body?.access_token) {
    userId = r.body.user_id;
    token = r.body.access_token;
  } else if (r.status === 400 && r.body?.errcode === 'M_USER_IN_USE') {
    if (!o.password)
      throw cliError(
        'matrix_user_in_use',
        `the Matrix user ${o.user} exists; pass its --matrix-password to log in as it, or choose another --matrix-user`,
        { field: 'matrix-password' },
      );
    const l = await requestJson<MatrixErr & { user_id?: string; access_token?: string }>({
      method: 'POST',
      url: `${api}/login`,
      timeoutMs: 15_000,
      body: {
        type: 'm.login.password',
        identifier: { type: 'm.id.user', user: o.user },
        password: o.password,
        initial_device_display_name: device,
      },
      what,
    });
    if (l.status !== 200 || !l.body?.access_token) throw matrixError(l.status, l.body, 'login');
    userId = l.body.user_id;
    token = l.body.access_token;
    created = false;
  } else {
    throw matrixError(r.status, r.body, 'registration');
  }
  const w = await requestJson<{ user_id?: string } & MatrixErr>({
    method: 'GET',
    url: `${api}/account/whoami`,
    timeoutMs: 15_000,
    bearer: token,
    what,
  });
  if (w.status !== 200) throw matrixError(w.status, w.body, 'whoami');
  return { baseUrl: base, userId: w.body.user_id ?? userId!, accessToken: token!, password, created };
}
