/**
 * Where the daemon keeps its files, and the deployment config it reads.
 *
 * Directories (first match wins):
 * - state (discovery file daemon.json, daemon.log): $ORACLEKIT_HOME/state,
 *   $XDG_STATE_HOME/oraclekit, ~/.local/state/oraclekit
 * - data (registry.db): $ORACLEKIT_DB (a file), $ORACLEKIT_HOME/data,
 *   $XDG_DATA_HOME/oraclekit, ~/.local/share/oraclekit
 * - config (daemon.json = the deployment config; settings.json = the CLI's
 *   saved registry URL and API key; oracle-key.json = the default oracle's
 *   signing mnemonic, 0600): $ORACLEKIT_DAEMON_CONFIG (the file),
 *   $ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit, ~/.config/oraclekit
 *
 * Port: --port, else $ORACLEKIT_DAEMON_PORT, else the config file's `port`,
 * else 4781. Host: 127.0.0.1 unless the config file says otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_HOST, DEFAULT_PORT, ORACLE_PREFIX, configPath } from '../lib/paths.ts';

export { ORACLE_PREFIX };
import { requireDid } from '../lib/registry/domain.ts';
import { OracleKitError } from '../lib/errors.ts';
import { DEFAULT_RULE, ruleFromJson, type SnapshotVoter, type TallyRule } from '../lib/registry/tally.ts';

export interface DeploymentConfig {
  host: string;
  port: number;
  voters: SnapshotVoter[];
  tally: TallyRule;
  revoting: boolean;
  /** Seconds a verification proposal stays open. */
  proposalDurationSeconds: number;
  /** Requests per key (or per IP without a key) per window. */
  rateLimit: { max: number; timeWindowMs: number };
  bodyLimitBytes: number;
  logLevel: string;
  /** The default oracle the daemon hosts (docs/daemon.md, "The default oracle"). */
  oracle: DaemonOracleConfig;
}

export interface DaemonOracleConfig {
  /** false: the daemon hosts no oracle. Default true. */
  enabled: boolean;
  name: string;
  description?: string;
  prompt?: string;
  /** Model id (else $LLM_MODEL of the daemon's environment). */
  model?: string;
  models?: string[];
  /** Plugin name → true (forced) | false (never); absent = auto-detect from the daemon's environment. */
  features?: Record<string, boolean>;
}

export const DEFAULT_CONFIG: DeploymentConfig = {
  host: DEFAULT_HOST,
  port: DEFAULT_PORT,
  voters: [],
  tally: DEFAULT_RULE,
  revoting: false,
  proposalDurationSeconds: 7 * 24 * 3600,
  rateLimit: { max: 1200, timeWindowMs: 60_000 },
  bodyLimitBytes: 64 * 1024,
  logLevel: 'info',
  oracle: { enabled: true, name: 'oraclekit default oracle' },
};

function bad(message: string, field: string, value: unknown, valid: string): OracleKitError {
  return new OracleKitError({ status: 400, code: 'invalid_config', message: `config ${message}`, field, value, valid });
}

/** Parses the deployment config (JSON). Unknown keys are refused, like the API's bodies. */
export function parseConfig(raw: unknown): DeploymentConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('is not a JSON object', '(root)', raw, 'a JSON object');
  const o = raw as Record<string, unknown>;
  const known = new Set(['host', 'port', 'voters', 'tally', 'revoting', 'proposalDurationSeconds', 'rateLimit', 'bodyLimitBytes', 'logLevel', 'oracle', '$schema', 'comment']);
  for (const k of Object.keys(o)) if (!known.has(k)) throw bad(`key ${k} is unknown`, k, o[k], [...known].join(', '));
  const c: DeploymentConfig = { ...DEFAULT_CONFIG, rateLimit: { ...DEFAULT_CONFIG.rateLimit } };
  if (o.host !== undefined) {
    if (typeof o.host !== 'string') throw bad('host', 'host', o.host, 'a host name or IP');
    c.host = o.host;
  }
  if (o.port !== undefined) {
    if (!Number.isInteger(o.port) || (o.port as number) < 0 || (o.port as number) > 65535) throw bad('port', 'port', o.port, 'an integer 0..65535');
    c.port = o.port as number;
  }
  if (o.voters !== undefined) {
    if (!Array.isArray(o.voters)) throw bad('voters', 'voters', o.voters, '[{did, weight}]');
    const seen = new Set<string>();
    c.voters = o.voters.map((v: unknown, i: number) => {
      const r = v as Record<string, unknown>;
      const did = requireDid(`voters[${i}].did`, r?.did);
      const weight = r.weight === undefined ? 1 : r.weight;
      if (!Number.isSafeInteger(weight) || (weight as number) < 1) throw bad(`voters[${i}].weight`, `voters[${i}].weight`, weight, 'an integer >= 1');
      if (seen.has(did)) throw bad(`voters[${i}].did repeats`, `voters[${i}].did`, did, 'each voter once');
      seen.add(did);
      return { did, weight: weight as number };
    });
  }
  if (o.tally !== undefined) c.tally = ruleFromJson(o.tally as Record<string, unknown>);
  if (o.revoting !== undefined) {
    if (typeof o.revoting !== 'boolean') throw bad('revoting', 'revoting', o.revoting, 'true or false');
    c.revoting = o.revoting;
  }
  if (o.proposalDurationSeconds !== undefined) {
    const v = o.proposalDurationSeconds;
    if (typeof v !== 'number' || !(v > 0)) throw bad('proposalDurationSeconds', 'proposalDurationSeconds', v, 'a number of seconds > 0');
    c.proposalDurationSeconds = v;
  }
  if (o.rateLimit !== undefined) {
    const r = o.rateLimit as Record<string, unknown>;
    if (r.max !== undefined) c.rateLimit.max = Number(r.max);
    if (r.timeWindowMs !== undefined) c.rateLimit.timeWindowMs = Number(r.timeWindowMs);
    if (!(c.rateLimit.max >= 1) || !(c.rateLimit.timeWindowMs >= 1)) throw bad('rateLimit', 'rateLimit', r, '{max >= 1, timeWindowMs >= 1}');
  }
  if (o.bodyLimitBytes !== undefined) {
    if (!Number.isInteger(o.bodyLimitBytes) || (o.bodyLimitBytes as number) < 1024) throw bad('bodyLimitBytes', 'bodyLimitBytes', o.bodyLimitBytes, 'an integer >= 1024');
    c.bodyLimitBytes = o.bodyLimitBytes as number;
  }
  if (o.logLevel !== undefined) c.logLevel = String(o.logLevel);
  if (o.oracle !== undefined) c.oracle = parseOracle(o.oracle);
  return c;
}

function parseOracle(raw: unknown): DaemonOracleConfig {
  const valid = '{enabled?, name?, description?, prompt?, model?, models?, features?}';
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('oracle', 'oracle', raw, valid);
  const o = raw as Record<string, unknown>;
  const known = new Set(['enabled', 'name', 'description', 'prompt', 'model', 'models', 'features']);
  for (const k of Object.keys(o)) if (!known.has(k)) throw bad(`key oracle.${k} is unknown`, `oracle.${k}`, o[k], [...known].join(', '));
  const c: DaemonOracleConfig = { ...DEFAULT_CONFIG.oracle };
  if (o.enabled !== undefined) {
    if (typeof o.enabled !== 'boolean') throw bad('oracle.enabled', 'oracle.enabled', o.enabled, 'true or false');
    c.enabled = o.enabled;
  }
  for (const k of ['name', 'description', 'prompt', 'model'] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== 'string' || o[k] === '') throw bad(`oracle.${k}`, `oracle.${k}`, o[k], 'a non-empty string');
    c[k] = o[k];
  }
  if (o.models !== undefined) {
    if (!Array.isArray(o.models) || !o.models.every((m) => typeof m === 'string' && m !== '')) throw bad('oracle.models', 'oracle.models', o.models, 'an array of model ids');
    c.models = o.models as string[];
  }
  if (o.features !== undefined) {
    const f = o.features;
    if (typeof f !== 'object' || f === null || Array.isArray(f) || !Object.values(f).every((v) => typeof v === 'boolean')) throw bad('oracle.features', 'oracle.features', f, '{"<plugin>": true | false}');
    c.features = f as Record<string, boolean>;
  }
  return c;
}

/** Reads the config file; defaults when it does not exist. */
export function loadConfig(path = configPath()): DeploymentConfig {
  if (!existsSync(path)) return { ...DEFAULT_CONFIG, oracle: { ...DEFAULT_CONFIG.oracle } };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new OracleKitError({ status: 400, code: 'invalid_config', message: `config file ${path} is not valid JSON: ${(e as Error).message}` });
  }
  return parseConfig(raw);
}
