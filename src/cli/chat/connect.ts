/**
 * Which oracle `oraclekit chat` talks to (docs/client.md, "Connection order"):
 * 1. `--oracle <url|host:port|DID>`: a URL is used as is, host:port as
 *    http://host:port; a DID is resolved through the
 *    registry's domain record (`#api`, `#ws` services) — the same registry
 *    and key as every registry command (--registry, $ORACLEKIT_REGISTRY, the
 *    saved registry, else the local daemon; --api-key, $ORACLEKIT_API_KEY,
 *    the saved apiKey);
 * 2. else ./oracle.config.json: http://localhost:<PORT from ./.env or $PORT, default 3000>,
 *    with the config's oracleDid;
 * 3. else the local daemon's default oracle: the `oracle` entry {url, wsUrl,
 *    did} of the daemon's discovery file (API under the daemon's /oracle,
 *    socket.io at the daemon's /socket.io/). The daemon is started on first
 *    use like the registry client does (never when CI=true unless
 *    ORACLEKIT_AUTOSTART=1); when it cannot be, a clear error (exit 9) says
 *    how to start it or what to pass instead.
 */
import { existsSync } from 'node:fs';
import { readDotEnv, readOracleConfig } from '../../lib/project-files.ts';
import { join } from 'node:path';
import { cliError, OracleKitError } from '../errors.ts';
import { isDid, resolveOracleDid } from '../../client/resolve.ts';
import { OracleClientError, OracleUnreachableError } from '../../client/errors.ts';

interface Target {
  apiUrl: string;
  wsUrl: string;
  oracleDid?: string;
  /** How it was found, for the banner. */
  via: string;
}

export async function resolveTarget(o: {
  oracle?: string;
  registry?: string;
  apiKey?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<Target> {
  if (o.oracle) {
    if (/^https?:\/\//i.test(o.oracle)) return { apiUrl: o.oracle, wsUrl: o.oracle, via: '--oracle' };
    if (isDid(o.oracle)) return resolveThroughRegistry(o.oracle, o);
    // host:port without a scheme (localhost:3000) is a local oracle: http
    if (/^(\[[0-9a-f:]+\]|[a-z0-9][a-z0-9.-]*):\d{1,5}(\/.*)?$/i.test(o.oracle)) {
      const url = `http://${o.oracle}`;
      return { apiUrl: url, wsUrl: url, via: '--oracle' };
    }
    throw cliError('invalid_oracle', `--oracle must be an http(s) URL, host:port or a DID`, {
      field: 'oracle',
      value: o.oracle,
      valid: 'http(s)://host[:port], host:port (as http) or did:…',
    });
  }
  const cfgPath = join(o.cwd, 'oracle.config.json');
  if (existsSync(cfgPath)) {
    const cfg = readOracleConfig(cfgPath);
    const port = readDotEnv(join(o.cwd, '.env')).PORT ?? o.env.PORT ?? '3000';
    const url = `http://localhost:${port}`;
    return { apiUrl: url, wsUrl: url, oracleDid: cfg.oracleDid || undefined, via: 'oracle.config.json' };
  }
  return daemonOracle(o.env);
}

/**
 * An oracle DID through the registry every registry command uses
 * (src/cli/registry/client.ts): --registry, $ORACLEKIT_REGISTRY, the saved
 * registry, else the local daemon; the key from --api-key,
 * $ORACLEKIT_API_KEY or the saved apiKey. The registry's errors keep their
 * codes; one that cannot be reached is `registry_unreachable` (exit 9).
 */
async function resolveThroughRegistry(
  did: string,
  o: { registry?: string; apiKey?: string; env: NodeJS.ProcessEnv },
): Promise<Target> {
  const { registryClient } = await import('../registry/client.ts');
  const registry = await registryClient({
    ...(o.registry ? { registry: o.registry } : {}),
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    env: o.env,
  });
  const where = `${registry.what} at ${registry.baseUrl}`;
  try {
    const r = await resolveOracleDid(did, { registry });
    return { apiUrl: r.apiUrl, wsUrl: r.wsUrl, oracleDid: did, via: where };
  } catch (e) {
    if (OracleUnreachableError.isInstance(e)) {
      throw cliError('registry_unreachable', `cannot resolve ${did}: ${e.message}`, { field: 'oracle', value: did });
    }
    if (e instanceof OracleKitError || e instanceof OracleClientError) {
      const k = e instanceof OracleKitError ? e : undefined;
      throw new OracleKitError({
        status: e.status,
        code: e.code,
        message: `cannot resolve ${did} through ${where}: ${e.message}`,
        field: k?.field ?? 'oracle',
        value: k?.value ?? did,
        ...(k?.valid ? { valid: k.valid } : {}),
        ...(k?.details ? { details: k.details } : {}),
      });
    }
    throw e;
  }
}

const ALTERNATIVES = 'or pass --oracle <url or DID>, or run in a project folder with oracle.config.json';

async function daemonOracle(env: NodeJS.ProcessEnv): Promise<Target> {
  const { ensureDaemon } = await import('../registry/client.ts');
  let daemon: { url: string; started: boolean };
  try {
    daemon = await ensureDaemon({ env, sayStarted: false }); // the chat's notice says it, with the oracle's URL
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw cliError(
      'no_oracle',
      `no oracle to chat with: the local daemon's default oracle is not available (${why}); ${ALTERNATIVES}`,
      { field: 'oracle' },
    );
  }
  const { readDiscovery } = await import('../../lib/discovery.ts');
  const d = readDiscovery(env);
  if (!d?.oracle) {
    throw new OracleKitError({
      status: 503,
      code: 'no_oracle',
      message: `no oracle to chat with: the local daemon at ${daemon.url} hosts no default oracle (disabled in daemon.json, or it failed to boot: see \`oraclekit daemon logs\`); ${ALTERNATIVES}`,
      field: 'oracle',
    });
  }
  return {
    apiUrl: d.oracle.url,
    wsUrl: d.oracle.wsUrl,
    oracleDid: d.oracle.did,
    via: daemon.started ? 'local daemon (started)' : 'local daemon',
  };
}
