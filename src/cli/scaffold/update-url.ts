/**
 * `oraclekit update-oracle-api-url <url>`: points the oracle's #api and #ws
 * services at a new URL — after checking the URL answers /health (and is
 * this oracle, when /health names a DID) unless --no-check — then updates
 * oracle.config.json and, for a local URL, PORT in .env.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliError, type OracleKitError } from '../errors.ts';
import { requestJson } from '../../lib/registry/client.ts';
import { connect, type Network } from '../registry/networks.ts';
import { updateServices } from './registry.ts';
import { impliedPortNote, parseOracleUrl } from './url.ts';
import {
  parseDotEnv,
  readOracleConfig,
  setDotEnvVar,
  writeDotEnv,
  writeOracleConfig,
  type OracleConfigFile,
} from '../../lib/project-files.ts';

interface UpdateUrlInput {
  url: string;
  did?: string;
  project: string;
  check: boolean;
  network?: Network;
  registry?: string;
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
}

export interface UpdateUrlResult {
  did: string;
  network: Network;
  registry: string;
  previous: { apiUrl: string | null; wsUrl: string | null };
  apiUrl: string;
  wsUrl: string;
  checked: boolean;
  health: Record<string, unknown> | null;
  config: string | null;
  port: { from: string | null; to: number } | null;
  /** The project's files rewritten to name the new URL or port (oracle.config.json, .env, README.md, package.json). */
  updated: string[];
  warnings: string[];
  version: number;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A file of the project with every mention of the old URL replaced by the new
 * one (a longer URL that merely starts with it — another port, a subdomain —
 * is left alone), and, for a local URL, the default of a `${PORT:-n}` (the
 * chat script of projects made before it read .env).
 */
export function inStep(text: string, from: (string | undefined)[], to: string, port: number | undefined): string {
  let out = text;
  for (const old of new Set(from.filter((u): u is string => !!u && u !== to)))
    out = out.replace(new RegExp(`${escapeRe(old)}(?![\\w.:-])`, 'g'), () => to);
  if (port !== undefined) out = out.replace(/\$\{PORT:-\d+\}/g, `\${PORT:-${port}}`);
  return out;
}

/** oracle.config.json of the project folder, when there is one (lib/project-files.ts reads it). */
function readConfig(configPath: string): OracleConfigFile | undefined {
  return existsSync(configPath) ? readOracleConfig(configPath) : undefined;
}

type OracleUrl = ReturnType<typeof parseOracleUrl>;

/** The new URL answers /health with 200 and, when /health names a DID, it is this oracle's; its body. */
async function checkHealth(target: OracleUrl, did: string): Promise<Record<string, unknown>> {
  const r = await requestJson<Record<string, unknown>>({
    method: 'GET',
    url: `${target.url}/health`,
    what: 'the oracle',
    timeoutMs: 10_000,
  }).catch((e: OracleKitError) => {
    throw cliError(
      'health_check_failed',
      `${target.url}/health does not answer (${e.message}); start the oracle there first, or pass --no-check`,
      { field: 'url', value: target.url },
    );
  });
  if (r.status !== 200)
    throw cliError(
      'health_check_failed',
      `${target.url}/health answered HTTP ${r.status}; pass --no-check to update anyway`,
      {
        field: 'url',
        value: target.url,
      },
    );
  const health = r.body ?? {};
  if (typeof health.oracleDid === 'string' && health.oracleDid !== '' && health.oracleDid !== did) {
    throw cliError(
      'oracle_did_mismatch',
      `${target.url} serves ${health.oracleDid}, not ${did}; pass --no-check to update anyway`,
      { field: 'url', value: target.url },
    );
  }
  return health;
}

/**
 * The project's own files follow the new URL: oracle.config.json, PORT and HOST in .env for a local URL, and every
 * other file that names the old URL or the port (the README, package.json's scripts).
 */
function updateProjectFiles(
  dir: string,
  configPath: string,
  config: OracleConfigFile,
  target: OracleUrl,
  was: string[],
): { port: UpdateUrlResult['port']; updated: string[] } {
  let port: UpdateUrlResult['port'] = null;
  const updated: string[] = [];
  config.apiUrl = target.url;
  config.wsUrl = target.url;
  writeOracleConfig(configPath, config);
  updated.push('oracle.config.json');
  const envPath = join(dir, '.env');
  if (target.local && existsSync(envPath)) {
    let text = readFileSync(envPath, 'utf8');
    const before = text;
    const from = parseDotEnv(text).PORT ?? null;
    if (from !== String(target.port)) text = setDotEnvVar(text, 'PORT', String(target.port));
    // HOST follows a URL that names another loopback address (127.0.0.5, ::1); every interface (0.0.0.0, ::) stays as
    // set
    const host = parseDotEnv(text).HOST?.trim() || '127.0.0.1';
    if (host !== '0.0.0.0' && host !== '::' && host !== target.bindHost)
      text = setDotEnvVar(text, 'HOST', target.bindHost);
    if (text !== before) {
      writeDotEnv(envPath, text);
      updated.push('.env');
    }
    port = { from, to: target.port };
  }
  for (const f of ['README.md', 'package.json']) {
    const path = join(dir, f);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    const next = inStep(text, was, target.url, target.local ? target.port : undefined);
    if (next !== text) {
      writeFileSync(path, next);
      updated.push(f);
    }
  }
  return { port, updated };
}

export async function updateOracleUrl(i: UpdateUrlInput): Promise<UpdateUrlResult> {
  const env = i.env ?? process.env;
  const target = parseOracleUrl(i.url, 'url');
  const dir = resolve(i.project);
  const configPath = join(dir, 'oracle.config.json');
  const config = readConfig(configPath);
  const did = i.did ?? (typeof config?.oracleDid === 'string' ? config.oracleDid : undefined);
  if (!did)
    throw cliError(
      'missing_did',
      `no oracle DID: run in the project folder (oracle.config.json with oracleDid), pass --project <dir> or --did <did>`,
      { field: 'did' },
    );
  const ownProject = config !== undefined && (i.did === undefined || config.oracleDid === i.did);
  const network = (i.network ??
    (ownProject && typeof config?.network === 'string' ? config.network : 'local')) as Network;
  const registry = i.registry ?? (ownProject && typeof config?.registry === 'string' ? config.registry : undefined);
  const health = i.check ? await checkHealth(target, did) : null;

  const { readIdentity, principalDid } = await import('../identity/store.ts');
  const id = readIdentity(env);
  if (!id && !i.apiKey && network === 'local')
    throw cliError(
      'not_logged_in',
      'not signed in: run `oraclekit login` (a controller of the oracle) or pass --api-key',
      { field: 'api-key' },
    );
  const conn = await connect({
    network,
    principal: id ? principalDid(id) : 'did:key:unknown',
    registry,
    apiKey: i.apiKey,
    env,
  });
  const { before, after } = await updateServices(conn, did, target.url, target.url);
  const prev = (frag: string) =>
    before.services.find((s) => s.id === frag || s.id.endsWith(frag))?.serviceEndpoint ?? null;

  const files =
    ownProject && config
      ? updateProjectFiles(
          dir,
          configPath,
          config,
          target,
          [config.apiUrl, config.wsUrl, prev('#api'), prev('#ws')].filter((u): u is string => typeof u === 'string'),
        )
      : undefined;
  const implied = impliedPortNote(target);
  return {
    did,
    network,
    registry: conn.url,
    previous: { apiUrl: prev('#api'), wsUrl: prev('#ws') },
    apiUrl: target.url,
    wsUrl: target.url,
    checked: i.check,
    health,
    config: files ? configPath : null,
    port: files?.port ?? null,
    updated: files?.updated ?? [],
    warnings: implied ? [implied] : [],
    version: after.version,
  };
}
