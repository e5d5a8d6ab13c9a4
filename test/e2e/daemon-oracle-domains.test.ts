/**
 * The daemon's default oracle reads the daemon's own registry.
 * Through the real CLI and daemon process: `daemon start` provisions a
 * read-only key (role reader) for its oracle, saved 0600 with the oracle's
 * signing key and never logged; a domain registered with `oraclekit domain
 * register` comes back from the oracle's `search_domains` tool (the scripted
 * model server calls it during a piped `oraclekit chat`); the key reads but
 * is refused writes (403 read_only_key); a restart reuses it, a revoked one
 * is replaced.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createKey, registerInProtocol } from '../helpers/domains.ts';
import {
  callTool,
  lastToolResult,
  say,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../helpers/scripted-model-server.ts';
import { tempHome } from '../unit/daemon/harness.ts';

const t = tempHome();
const cwd = mkdtempSync(join(tmpdir(), 'oraclekit-noproject-'));
let model: ScriptedModelServer;
let env: Record<string, string>;
let daemonEnv: Record<string, string>;
const json = (s: string) => JSON.parse(s);
const keyFile = join(t.home, 'config/oracle-key.json');
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra } });

interface KeyRow {
  id: string;
  did: string;
  roles: string[];
  label: string | null;
  revokedAt: string | null;
}
const oracleKeys = async (did: string): Promise<KeyRow[]> =>
  (json((await cli(['daemon', 'keys', 'list', '--json'])).stdout).items as KeyRow[]).filter((k) => k.did === did);

beforeAll(async () => {
  model = await startScriptedModelServer();
  env = {
    ...t.env,
    LLM_BASE_URL: '',
    LLM_PROVIDER_API_KEY: '',
    LLM_MODEL: '',
    ORACLE_DB_PATH: '',
    ORACLEKIT_REGISTRY_URL: '',
  };
  daemonEnv = {
    ...env,
    LLM_BASE_URL: model.baseURL,
    LLM_PROVIDER_API_KEY: 'sk-test-secret',
    LLM_MODEL: 'scripted-model',
  };
});
afterAll(async () => {
  await runCli(['daemon', 'stop', '--grace', '2'], { env: t.env });
  await model?.close();
  t.cleanup();
  rmSync(cwd, { recursive: true, force: true });
});

describe("the default oracle's domains plugin", () => {
  let did: string;
  let url: string;
  let readKey: string;

  it('daemon start provisions a read-only key for its oracle: saved 0600 beside the signing key, never logged', async () => {
    const start = await cli(['daemon', 'start', '--json'], daemonEnv);
    expect(start.code, start.stderr).toBe(0);
    const st = json((await cli(['daemon', 'status', '--json'])).stdout);
    did = st.oracle.did;
    url = st.url;
    expect(st.oracle.plugins.loaded).toContain('domains');
    expect(st.oracle.plugins.failed).toEqual([]);
    const saved = json(readFileSync(keyFile, 'utf8'));
    readKey = saved.registryKey;
    expect(readKey).toMatch(/^ok_/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const rows = await oracleKeys(did);
    expect(rows).toEqual([expect.objectContaining({ did, roles: ['reader'], revokedAt: null })]);
    const log = readFileSync(join(t.home, 'state/daemon.log'), 'utf8');
    expect(log).toContain(`[daemon] provisioned a read-only registry key (role reader) for the default oracle ${did}`);
    expect(log).not.toContain(readKey);
  });

  it('the key reads the registry and is refused writes (403 read_only_key)', async () => {
    const read = await fetch(`${url}/v1/domains?limit=1`, { headers: { authorization: `Bearer ${readKey}` } });
    expect(read.status).toBe(200);
    const write = await fetch(`${url}/v1/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'Project', metadata: { name: 'x' } }),
    });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ statusCode: 403, code: 'read_only_key' });
  });

  it('search_domains returns a domain registered through the CLI', async () => {
    const rep = await createKey(cli, 'did:example:rep', ['representative', 'member']);
    const domain = await registerInProtocol(cli, rep, {
      protocol: 'Clean cookstoves protocol',
      type: 'Project',
      name: 'Kisumu cookstoves',
      extra: ['--also-known-as', 'KSM-001'],
    });
    model.enqueue(callTool('search_domains', { q: 'kisumu' }, 'c_search'), (body) => {
      const r = lastToolResult(body) as { domains: { did: string; name: string }[] };
      return say(`Found ${r.domains.map((d) => `${d.name} (${d.did})`).join(', ')}.`);
    });
    const before = model.requests.length;
    const r = await runCli(['chat'], { input: 'Is the Kisumu cookstove project registered?\n', env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout,
      `${r.stderr}\n${JSON.stringify(model.requests.slice(before).map((q) => q.body.messages.at(-1)))}`,
    ).toBe(`Found Kisumu cookstoves (${domain}).\n`);
    expect(lastToolResult(model.requests[before + 1]!.body)).toEqual({
      domains: [
        expect.objectContaining({
          did: domain,
          name: 'Kisumu cookstoves',
          type: 'Project',
          state: 'registered',
          alsoKnownAs: 'KSM-001',
        }),
      ],
      nextCursor: null,
    });
  });

  it('a restart reuses the key; a revoked one is replaced by a new one', async () => {
    expect((await cli(['daemon', 'restart', '--json'], daemonEnv)).code).toBe(0);
    expect(json(readFileSync(keyFile, 'utf8')).registryKey).toBe(readKey);
    expect(await oracleKeys(did)).toHaveLength(1);
    const [row] = await oracleKeys(did);
    expect((await cli(['daemon', 'keys', 'revoke', row!.id])).code).toBe(0);
    expect((await cli(['daemon', 'restart', '--json'], daemonEnv)).code).toBe(0);
    const next = json(readFileSync(keyFile, 'utf8')).registryKey as string;
    expect(next).not.toBe(readKey);
    const rows = await oracleKeys(did);
    expect(rows.filter((k) => k.revokedAt === null)).toEqual([expect.objectContaining({ roles: ['reader'] })]);
    const st = json((await cli(['daemon', 'status', '--json'])).stdout);
    const read = await fetch(`${st.url}/v1/domains?limit=1`, { headers: { authorization: `Bearer ${next}` } });
    expect(read.status).toBe(200);
    expect(st.oracle.plugins.loaded).toContain('domains');
  });
});
