/**
 * A scaffolded oracle project's own files, one schema and one reader/writer each, for the scaffolder (`new`),
 * `chat` (which oracle a project folder means), `update-oracle-api-url` and the template (through oraclekit's
 * `readOracleConfig`):
 *
 * - `oracle.config.json`: `OracleConfigFileSchema` (the profile the runtime takes as `config`, plus where the
 *   oracle is registered: network, apiUrl, wsUrl, registry); keys it does not name are kept, for a project's own.
 *   `readOracleConfig` names the file, the field, the value and what is valid; `writeOracleConfig` writes it whole.
 * - `.env`: read with Node's own parser (`util.parseEnv`, the rules of `node --env-file`, which the project's
 *   `npm start` uses), so the CLI sees the values the oracle will; `setDotEnvVar` edits one line of its text keeping
 *   every other; the file is written 0600 through secret-file.ts (it holds the signing mnemonic and API keys).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { OracleKitError } from './errors.ts';
import { parseJsonFile } from './json-file.ts';
import { writeSecretFile } from './secret-file.ts';

export const OracleConfigFileSchema = z.looseObject({
  name: z.string().min(1, { error: 'a non-empty name' }),
  description: z.string().optional(),
  prompt: z.string().optional(),
  model: z.string().optional(),
  models: z.array(z.string()).optional(),
  oracleDid: z.string().optional(),
  price: z.number().nonnegative().optional(),
  network: z.string().optional(),
  apiUrl: z.string().optional(),
  wsUrl: z.string().optional(),
  registry: z.string().optional(),
});
export type OracleConfigFile = z.infer<typeof OracleConfigFileSchema>;

/** oracle.config.json at `path` through its schema; a file that is not JSON or not valid: invalid_oracle_config. */
export function readOracleConfig(path: string | URL): OracleConfigFile {
  const shown = typeof path === 'string' ? path : decodeURIComponent(path.pathname);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new OracleKitError({
      status: 400,
      code: 'invalid_oracle_config',
      message: `cannot read ${shown} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      field: 'oracle.config.json',
      value: shown,
    });
  }
  const r = parseJsonFile(shown, text, OracleConfigFileSchema);
  if (r.ok) return r.value;
  throw new OracleKitError({
    status: 400,
    code: 'invalid_oracle_config',
    message: `${r.problem.message}; fix it, or run \`oraclekit new\` for a fresh project`,
    field: r.problem.field ?? 'oracle.config.json',
    ...(r.problem.value !== undefined ? { value: r.problem.value } : {}),
    ...(r.problem.valid ? { valid: r.problem.valid } : {}),
  });
}

/** Writes oracle.config.json whole (it holds no secret: mode as the umask says). */
export function writeOracleConfig(path: string, config: OracleConfigFile): void {
  writeFileSync(path, JSON.stringify(config, null, 2) + '\n');
}

/** The variables of a .env file as `node --env-file` reads them; {} when there is no such file. */
export function readDotEnv(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return parseDotEnv(readFileSync(path, 'utf8'));
}

/** The variables of a .env text, by Node's own rules (quotes, `export`, comments, multi-line values). */
export function parseDotEnv(text: string): Record<string, string> {
  return parseEnv(text) as Record<string, string>;
}

/** Sets (or adds) one variable in a .env text, keeping every other line. */
export function setDotEnvVar(text: string, name: string, value: string): string {
  const re = new RegExp(`^(?:export\\s+)?${name}\\s*=.*$`, 'm');
  if (re.test(text)) return text.replace(re, () => `${name}=${value}`);
  return text + (text.endsWith('\n') || text === '' ? '' : '\n') + `${name}=${value}\n`;
}

/** Writes a project's .env (0600, atomically: it holds secrets). */
export function writeDotEnv(path: string, text: string): void {
  writeSecretFile(path, text);
}
