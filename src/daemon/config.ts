/**
 * Where the daemon keeps its files, and the deployment config it reads.
 *
 * Directories (first match wins):
 * - state (discovery file daemon.json, daemon.log): $ORACLEKIT_HOME/state,
 *   $XDG_STATE_HOME/oraclekit, ~/.local/state/oraclekit
 * - data (registry.db): $ORACLEKIT_DB (a file), $ORACLEKIT_HOME/data,
 *   $XDG_DATA_HOME/oraclekit, ~/.local/share/oraclekit
 * - config (daemon.json = the deployment config; settings.json = the CLI's
 *   saved registry URL and API key): $ORACLEKIT_DAEMON_CONFIG (the file),
 *   $ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit, ~/.config/oraclekit
 *
 * Port: --port, else $ORACLEKIT_DAEMON_PORT, else the config file's `port`,
 * else 4781. Host: 127.0.0.1 unless the config file says otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { requireDid } from '../lib/registry/domain.ts';
import { OracleKitError } from '../lib/errors.ts';
import { DEFAULT_RULE, ruleFromJson, type SnapshotVoter, type TallyRule } from '../lib/registry/tally.ts';

export const DEFAULT_PORT = 4781;
export const DEFAULT_HOST = '127.0.0.1';

export function stateDir(env = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'state');
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'oraclekit');
  return join(homedir(), '.local/state/oraclekit');
}

export function dataDir(env = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'data');
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'oraclekit');
  return join(homedir(), '.local/share/oraclekit');
}

export function configDir(env = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'config');
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'oraclekit');
  return join(homedir(), '.config/oraclekit');
}

export const discoveryPath = (env = process.env) => join(stateDir(env), 'daemon.json');
export const logPath = (env = process.env) => join(stateDir(env), 'daemon.log');
export const dbPath = (env = process.env) => env.ORACLEKIT_DB || join(dataDir(env), 'registry.db');
export const configPath = (env = process.env) => env.ORACLEKIT_DAEMON_CONFIG || join(configDir(env), 'daemon.json');

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
};

function bad(message: string, field: string, value: unknown, valid: string): OracleKitError {
  return new OracleKitError({ status: 400, code: 'invalid_config', message: `config ${message}`, field, value, valid });
}

/** Parses the deployment config (JSON). Unknown keys are refused, like the API's bodies. */
export function parseConfig(raw: unknown): DeploymentConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('is not a JSON object', '(root)', raw, 'a JSON object');
  const o = raw as Record<string, unknown>;
  const known = new Set(['host', 'port', 'voters', 'tally', 'revoting', 'proposalDurationSeconds', 'rateLimit', 'bodyLimitBytes', 'logLevel', '$schema', 'comment']);
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
  return c;
}

/** Reads the config file; defaults when it does not exist. */
export function loadConfig(path = configPath()): DeploymentConfig {
  if (!existsSync(path)) return { ...DEFAULT_CONFIG };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new OracleKitError({ status: 400, code: 'invalid_config', message: `config file ${path} is not valid JSON: ${(e as Error).message}` });
  }
  return parseConfig(raw);
}

/** The package version (dist/daemon/config.js and src/daemon/config.ts are both two levels below package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
