/**
 * `new`'s Matrix step: the bot account provisioned on the homeserver (--matrix-homeserver, else $MATRIX_BASE_URL)
 * unless --no-matrix; without a homeserver, what was skipped and how to add it later.
 */
import type { MatrixBot } from './matrix.ts';

export type MatrixOutcome =
  { provisioned: true; userId: string; created: boolean } | { provisioned: false; reason: string; how: string };

const SET_IN_ENV = 'set MATRIX_BASE_URL, MATRIX_ORACLE_ADMIN_USER_ID and MATRIX_ORACLE_ADMIN_ACCESS_TOKEN in .env';

export async function matrixBot(
  o: {
    projectName: string;
    matrix?: boolean;
    homeserver?: string;
    user?: string;
    password?: string;
    registrationToken?: string;
  },
  log: (line: string) => void,
): Promise<{ matrix: MatrixOutcome; bot?: MatrixBot }> {
  if (o.matrix === false) return { matrix: { provisioned: false, reason: 'skipped (--no-matrix)', how: SET_IN_ENV } };
  if (!o.homeserver)
    return {
      matrix: {
        provisioned: false,
        reason: 'no Matrix homeserver configured',
        how: `pass --matrix-homeserver <url> (or set MATRIX_BASE_URL) next time, or ${SET_IN_ENV}`,
      },
    };
  const { provisionBot, botLocalpart } = await import('./matrix.ts');
  const bot = await provisionBot({
    baseUrl: o.homeserver,
    user: o.user ?? botLocalpart(o.projectName),
    password: o.password,
    registrationToken: o.registrationToken,
    deviceName: `oraclekit ${o.projectName}`,
  });
  log(`Matrix bot ${bot.userId} ${bot.created ? 'registered' : 'logged in'} on ${bot.baseUrl}`);
  return { matrix: { provisioned: true, userId: bot.userId, created: bot.created }, bot };
}
