/**
 * The model settings a daemon starts with, kept across starts. The default
 * oracle reads its model from the daemon's environment (LLM_BASE_URL,
 * LLM_PROVIDER_API_KEY, LLM_MODEL, LLM_STALL_TIMEOUT_MS); a daemon started
 * later by another command (an auto-start from `chat` or `domain list`, the
 * replacement of a daemon of another version) would otherwise come up without
 * them. So every start records them in <state>/daemon-model.json (0600: it
 * may hold the provider's key), and the next start takes each variable from
 * its own environment when set there (an empty value clears it), else from
 * that record.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseJsonFile } from '../../lib/json-file.ts';
import { stateDir } from '../../lib/paths.ts';
import { writeSecretFile } from '../../lib/secret-file.ts';

const MODEL_VARS = ['LLM_BASE_URL', 'LLM_PROVIDER_API_KEY', 'LLM_MODEL', 'LLM_STALL_TIMEOUT_MS'] as const;

const recordSchema = z.object({
  env: z.partialRecord(z.enum(MODEL_VARS), z.string()),
  savedAt: z.string(),
});

const modelSettingsPath = (env: NodeJS.ProcessEnv = process.env) => join(stateDir(env), 'daemon-model.json');

/** The recorded settings; an unreadable record counts as none (the next start writes a good one). */
function readModelSettings(env: NodeJS.ProcessEnv = process.env): Partial<Record<(typeof MODEL_VARS)[number], string>> {
  const path = modelSettingsPath(env);
  if (!existsSync(path)) return {};
  const r = parseJsonFile(path, readFileSync(path, 'utf8'), recordSchema);
  return r.ok ? r.value.env : {};
}

/**
 * The environment a daemon starts with: `env` with each model variable it
 * does not set taken from the record; the result's model variables become
 * the new record.
 */
export function daemonStartEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const saved = readModelSettings(env);
  const out: NodeJS.ProcessEnv = { ...env };
  const kept: Partial<Record<(typeof MODEL_VARS)[number], string>> = {};
  for (const k of MODEL_VARS) {
    const v = env[k] !== undefined ? env[k] : saved[k];
    if (v === undefined || v === '') delete out[k];
    else out[k] = kept[k] = v;
  }
  writeSecretFile(
    modelSettingsPath(env),
    JSON.stringify({ env: kept, savedAt: new Date().toISOString() }, null, 2) + '\n',
  );
  return out;
}
