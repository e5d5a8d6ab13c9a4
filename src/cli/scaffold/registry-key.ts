/**
 * The scaffold's registry key: `oraclekit new` provisions a
 * read-only key (role `reader`, bound to the new oracle's DID) for the
 * project's domains plugin and writes it to the project's .env as
 * ORACLEKIT_API_KEY, next to ORACLEKIT_REGISTRY_URL (.env stays 0600;
 * .env.example gets the empty line). On the local network the CLI makes it
 * with the daemon's discovery token; on a remote registry through the admin
 * route with your API key, which works when that key has the admin role —
 * otherwise nothing is written and the reason says how to get one.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isOracleKitError } from '../../lib/errors.ts';
import type { Connection } from '../registry/networks.ts';
import { parseDotEnv, setDotEnvVar, writeDotEnv } from '../../lib/project-files.ts';

type RegistryKeyResult = { provisioned: true; id: string } | { provisioned: false; reason: string };

const VAR = 'ORACLEKIT_API_KEY';

/** Puts ORACLEKIT_API_KEY=value right after ORACLEKIT_REGISTRY_URL (or replaces it, or appends it). */
function withKey(text: string, value: string, comment: string): string {
  if (parseDotEnv(text)[VAR] !== undefined) return setDotEnvVar(text, VAR, value);
  if (/^ORACLEKIT_REGISTRY_URL=.*$/m.test(text))
    return text.replace(/^ORACLEKIT_REGISTRY_URL=.*$/m, (line) => `${line}\n# ${comment}\n${VAR}=${value}`);
  return setDotEnvVar(text, VAR, value);
}

/** Rewrites a file that exists: .env (it holds the key) through the secret-file writer, .env.example 0644. */
function rewrite(path: string, next: (text: string) => string, o: { secret: boolean }): void {
  if (!existsSync(path)) return;
  const text = next(readFileSync(path, 'utf8'));
  if (o.secret) return writeDotEnv(path, text);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o644 });
  chmodSync(tmp, 0o644);
  renameSync(tmp, path);
}

export async function provisionRegistryKey(
  conn: Connection,
  dir: string,
  oracleDid: string,
): Promise<RegistryKeyResult> {
  let made: { id: string; key: string };
  try {
    made = await conn.client.createKey({
      did: oracleDid,
      roles: ['reader'],
      label: `oraclekit new ${basename(dir)} (read-only)`,
    });
  } catch (e) {
    if (!isOracleKitError(e) || conn.local) throw e;
    return {
      provisioned: false,
      reason: `the ${conn.network} registry did not make a read-only key for ${oracleDid} (${e.code}: ${e.message}); ask its admin for one (role reader) and set ${VAR} in .env, or the domains plugin's calls are refused`,
    };
  }
  const comment = "Its read-only key (role reader, bound to this oracle's DID), provisioned by `oraclekit new`";
  rewrite(join(dir, '.env'), (t) => withKey(t, made.key, comment), { secret: true });
  rewrite(
    join(dir, '.env.example'),
    (t) => withKey(t, '', 'A read-only registry key (role reader) for the domains plugin'),
    { secret: false },
  );
  return { provisioned: true, id: made.id };
}
