/**
 * An oracle's registry credentials through `oraclekit new` and the domains
 * plugin, against a real daemon process (started by the CLI in a
 * temporary ORACLEKIT_HOME):
 * - `new --yes` provisions a read-only key (role reader) for the new oracle
 *   and writes it to the project's .env (0600) as ORACLEKIT_API_KEY; a
 *   runtime booted with that .env reads the registry through the domains
 *   plugin (the scripted model calls search_domains and gets the project's
 *   own oracle domain back); `new --yes` also says where its generated
 *   mnemonic is.
 * - a key the registry refuses makes the plugin `failed` with the reason, in
 *   /ready and in the boot lines, and the key is in neither.
 * - without a key, the registry's hint `Bearer <API key>` reaches the model
 *   intact (it used to become `Bearer *** key>`).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { tempHome } from '../unit/daemon/harness.ts';

const t = tempHome();
const work = mkdtempSync(join(tmpdir(), 'ok-domains-cred-'));
const env = { ...t.env, ORACLEKIT_MNEMONIC: '', MATRIX_BASE_URL: '' };
const cli = (args: string[]) => runCli(args, { env, cwd: work, timeoutMs: 30_000 });
const json = (s: string) => JSON.parse(s);
let registryUrl: string;
const harnesses: Harness[] = [];

/** Until the background starts (the domains plugin's check of its key) have settled; the test's time-out bounds it. */
async function settled(x: Harness): Promise<Harness> {
  harnesses.push(x);
  while (x.app.plugins.status().pending.length > 0) await new Promise((r) => setTimeout(r, 5));
  return x;
}
const toolErrors = (events: AnyEvent[]) =>
  new Map(
    events.flatMap((e) =>
      e.event === 'tool_call' && e.data.status === 'error' ? [[e.data.eventId, e.data.error]] : [],
    ),
  );

/** The project's .env as variables (KEY=value lines). */
function dotenv(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of readFileSync(path, 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)) out[m[1]!] = m[2]!;
  return out;
}

beforeAll(async () => {
  const start = await cli(['daemon', 'start', '--json']);
  expect(start.code, start.stderr).toBe(0);
  registryUrl = json(start.stdout).url;
});
afterAll(async () => {
  for (const h of harnesses) await h.close();
  await cli(['daemon', 'stop', '--grace', '1']);
  t.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('oraclekit new provisions the domains plugin a read-only key', () => {
  let project: { dir: string; did: string };

  it('new --yes: ORACLEKIT_API_KEY in .env (0600) is a reader key of the oracle; the generated mnemonic is said to be in identity.json', async () => {
    const r = await cli(['new', 'stoves', '--yes', '--no-install', '--no-git', '--json']);
    expect(r.code, r.stderr).toBe(0);
    project = json(r.stdout);
    const idFile = join(t.home, 'config/identity.json');
    const identity = json(readFileSync(idFile, 'utf8'));
    expect(r.stderr).toContain(
      `A new mnemonic was generated for ${identity.did}; it is not shown here (no terminal). It is saved in ${idFile} (mode 0600)`,
    );
    expect(r.stderr).not.toContain(identity.mnemonic);
    expect(r.stderr).toContain(
      `Provisioned a read-only registry key for ${project.did} (ORACLEKIT_API_KEY in .env, mode 0600)`,
    );
    const vars = dotenv(join(project.dir, '.env'));
    expect(vars.ORACLEKIT_API_KEY).toMatch(/^ok_[0-9a-f]{12}_[\w-]{32}$/);
    expect(statSync(join(project.dir, '.env')).mode & 0o777).toBe(0o600);
    expect(dotenv(join(project.dir, '.env.example')).ORACLEKIT_API_KEY).toBe('');
    expect(r.stdout + r.stderr).not.toContain(vars.ORACLEKIT_API_KEY);
    const keys = json((await cli(['daemon', 'keys', 'list', '--json'])).stdout).items as {
      did: string;
      roles: string[];
      prefix: string;
    }[];
    expect(keys.filter((k) => k.did === project.did)).toEqual([
      expect.objectContaining({ roles: ['reader'], prefix: vars.ORACLEKIT_API_KEY!.slice(0, 16) }),
    ]);
    // read-only: the registry refuses it a write
    const w = await fetch(`${registryUrl}/v1/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${vars.ORACLEKIT_API_KEY}`, 'content-type': 'application/json' },
      body: '{"type":"Protocol"}',
    });
    expect(w.status).toBe(403);
    expect(await w.json()).toMatchObject({ code: 'read_only_key' });
  });

  it("a runtime with the project's .env reads the registry: search_domains finds the oracle itself", async () => {
    const vars = dotenv(join(project.dir, '.env'));
    // the project's environment as it is but the model (the test's scripted one); the local daemon found through its
    // discovery file
    const { LLM_BASE_URL: _url, LLM_PROVIDER_API_KEY: _key, ...own } = vars;
    const h = await settled(await startHarness({ env: { ...own, ORACLEKIT_HOME: t.home } }));
    expect(h.lines).toContain('[plugin] domains pending → loaded');
    expect(h.lines.join('\n')).not.toContain(vars.ORACLEKIT_API_KEY);
    const u = await h.user();
    const s = await u.newSession();
    const before = h.model.requests.length;
    h.model.enqueue(callTool('search_domains', { type: 'Oracle', q: 'stoves' }, 'c_self'), say('found'));
    const { events } = await u.stream(s, 'Am I registered?');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(toolErrors(events).size).toBe(0);
    expect(lastToolResult(h.model.requests[before + 1]!.body)).toMatchObject({
      domains: [{ did: project.did, name: 'stoves', type: 'Oracle', state: 'registered' }],
    });
  });
});

describe('credentials the registry refuses', () => {
  it('a refused key: the plugin is failed with the reason in /ready and the boot lines; the key is in neither', async () => {
    const bogus = 'ok_000000000000_bogusbogusbogusbogusbogusbogusbo';
    const h = await settled(
      await startHarness({ env: { ORACLEKIT_REGISTRY_URL: registryUrl, ORACLEKIT_API_KEY: bogus } }),
    );
    const reason = `the registry (${registryUrl}) refused ORACLEKIT_API_KEY (HTTP 401, unauthenticated: the API key is unknown or revoked); every domains tool would fail. Set ORACLEKIT_API_KEY to a key of that registry (read-only: \`oraclekit daemon keys create --did <oracle DID> --role reader\`)`;
    expect(h.app.plugins.status()).toMatchObject({ failed: [{ plugin: 'domains', reason }] });
    expect(h.app.plugins.status().loaded).not.toContain('domains');
    const ready = await fetch(`${h.url}/ready`);
    const body = (await ready.json()) as {
      plugins: { failed: { plugin: string; reason: string }[]; loaded: string[] };
    };
    expect(body.plugins.failed).toEqual([{ plugin: 'domains', reason }]);
    expect(body.plugins.loaded).not.toContain('domains');
    expect(h.lines).toContain(`[plugin] domains pending → failed (${reason})`);
    expect(JSON.stringify(body) + h.lines.join('\n')).not.toContain(bogus);
    // its tools are not offered to the model
    const u = await h.user();
    const s = await u.newSession();
    const before = h.model.requests.length;
    h.model.enqueue(say('no registry tools'));
    await u.stream(s, 'hi');
    expect((h.model.requests[before]!.body.tools ?? []).map((x) => x.function.name)).not.toContain('search_domains');
  });

  it("without a key the registry's hint reaches the model intact: `Bearer <API key>`", async () => {
    const h = await settled(await startHarness({ env: { ORACLEKIT_REGISTRY_URL: registryUrl } }));
    expect(h.lines).toContain('[boot] loaded: domains');
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(callTool('search_domains', { q: 'x' }, 'c_nokey'), say('no key'));
    const { events } = await u.stream(s, 'search');
    expect(toolErrors(events).get('c_nokey')).toBe(
      "the registry refused the oracle's credentials (HTTP 401, unauthenticated: send Authorization: Bearer <API key> (create one with `oraclekit daemon keys create`)). Set ORACLEKIT_API_KEY to a registry API key (read-only: `oraclekit daemon keys create --did <oracle DID> --role reader`)",
    );
  });
});
