import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import { startInProcess, PKG, type InProcess } from '../unit/daemon/harness.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { domainsPlugin } from '../../src/runtime/plugins/index.ts';
import { bootWith } from '../unit/runtime/plugins/_helpers/boot.ts';
import { writeDiscovery } from '../../src/lib/discovery.ts';

const ALICE = 'did:example:alice';
const V1 = 'did:example:voter1';
let reg: InProcess;
let h: Harness;
let oracleKey: string;
let protocol: string;
let kisumu: string;
let busia: string;
let proposalId: string;
/** Until the background starts (the domains plugin's check of its key) have settled; the test's time-out bounds it. */
async function settled(x: Harness): Promise<Harness> {
  while (x.app.plugins.status().pending.length > 0) await new Promise((r) => setTimeout(r, 5));
  return x;
}
const toolEvents = (events: AnyEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => (e.event === 'tool_call' ? e.data : undefined)!);

beforeAll(async () => {
  reg = await startInProcess({ voters: [{ did: V1, weight: 1 }], proposalDurationSeconds: 3600 });
  const alice = await reg.key(ALICE, 'admin', 'representative', 'member');
  const v1 = await reg.key(V1, 'voter');
  const create = async (body: Record<string, unknown>) => {
    const r = await reg.call('POST', '/v1/domains', { key: alice, body });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    return r.body.id as string;
  };
  protocol = await create({ type: 'Protocol', metadata: { name: 'Clean cookstoves protocol' } });
  kisumu = await create({
    type: 'Project',
    class: protocol,
    metadata: { name: 'Kisumu cookstoves' },
    alsoKnownAs: 'KSM-001',
  });
  busia = await create({ type: 'Project', class: protocol, metadata: { name: 'Busia stoves' } });
  const p = await reg.call('POST', `/v1/domains/${kisumu}/verification-proposals`, {
    key: alice,
    body: { package: PKG, description: 'Kisumu entity package' },
  });
  if (p.status !== 201) throw new Error(JSON.stringify(p.body));
  proposalId = p.body.id;
  const v = await reg.call('POST', `/v1/proposals/${proposalId}/votes`, { key: v1, body: { option: 'yes' } });
  if (v.status !== 200) throw new Error(JSON.stringify(v.body));
  const b = await reg.call('POST', `/v1/domains/${busia}/verification-proposals`, {
    key: alice,
    body: { package: PKG },
  });
  if (b.status !== 201) throw new Error(JSON.stringify(b.body));
  oracleKey = await reg.key('did:example:oracle', 'member');
  h = await settled(
    await startHarness({
      env: { ORACLEKIT_REGISTRY_URL: reg.url, ORACLEKIT_API_KEY: oracleKey, ORACLEKIT_REGISTRY_TIMEOUT_MS: '2000' },
    }),
  );
});
afterAll(async () => {
  await h?.close();
  await reg?.close();
});

describe('domains plugin against the real registry app', () => {
  it('always loaded (no variable needed; a key set is checked at boot); tools offered from turn 1; the key is never logged', async () => {
    expect(h.lines).toContain('[plugin] domains pending → loaded');
    expect(h.app.plugins.status().loaded).toContain('domains');
    expect((await (await fetch(`${h.url}/ready`)).json()).plugins.loaded).toContain('domains');
    expect(h.lines.join('\n')).not.toContain(oracleKey);
  });

  it("search → verification state → read: the registry's answers reach the model", async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(
      callTool('search_domains', { q: 'kisumu' }, 'c_search'),
      callTool('get_domain_verification', { did: kisumu }, 'c_ver'),
      callTool('get_domain', { did: kisumu }, 'c_get'),
      callTool('search_domains', { type: 'Project', state: 'pending_verification' }, 'c_pending'),
      (body) =>
        say(
          `Kisumu is ${(lastToolResult(body) as { domains: unknown[] }).domains.length === 1 ? 'verified; Busia is pending' : '?'}.`,
        ),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(s, 'Is the Kisumu cookstove project verified?');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect((h.model.requests[before]!.body.tools ?? []).map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['search_domains', 'get_domain', 'get_domain_verification']),
    );
    expect(lastToolResult(h.model.requests[before + 1]!.body)).toEqual({
      domains: [
        {
          did: kisumu,
          name: 'Kisumu cookstoves',
          type: 'Project',
          class: protocol,
          state: 'verified',
          active: true,
          eligible: true,
          alsoKnownAs: 'KSM-001',
        },
      ],
      nextCursor: null,
    });
    const truth = (await reg.call('GET', `/v1/domains/${kisumu}/verification-proposals`, { key: oracleKey })).body;
    expect(lastToolResult(h.model.requests[before + 2]!.body)).toEqual({
      did: kisumu,
      name: 'Kisumu cookstoves',
      state: 'verified',
      stateMeaning: 'verified by the voters',
      active: true,
      eligible: true,
      proposal: {
        id: proposalId,
        status: 'executed',
        tally: truth.proposal.tally,
        rule: truth.proposal.rule,
        deadline: truth.proposal.deadline,
        createdAt: truth.proposal.createdAt,
        closedAt: truth.proposal.closedAt,
        voters: 1,
        description: 'Kisumu entity package',
      },
    });
    const got = lastToolResult(h.model.requests[before + 3]!.body) as Record<string, unknown>;
    const direct = (await reg.call('GET', `/v1/domains/${kisumu}`, { key: oracleKey })).body;
    expect(got).toEqual({ ...direct, did: kisumu, stateMeaning: 'verified by the voters' });
    expect(lastToolResult(h.model.requests[before + 4]!.body)).toMatchObject({
      domains: [{ did: busia, state: 'pending_verification', eligible: false }],
    });
    const text = events.map((e) => (e.event === 'message' ? e.data.content : '')).join('');
    expect(text).toBe('Kisumu is verified; Busia is pending.');
  });

  it('clear tool errors: unknown DID, invalid DID, invalid DID as a filter', async () => {
    const u = await h.user();
    const s = await u.newSession();
    const unknown = 'did:ixo:entity:' + '0'.repeat(32);
    h.model.enqueue(
      callTool('get_domain', { did: unknown }, 'c_404'),
      callTool('get_domain_verification', { did: 'not-a-did' }, 'c_bad'),
      callTool('search_domains', { class: 'did:ixo:entity:XYZ' }, 'c_badclass'),
      say('Not found.'),
    );
    const { events } = await u.stream(s, 'look up');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const errs = new Map(
      toolEvents(events)
        .filter((c) => c.status === 'error')
        .map((c) => [c.eventId, c.error]),
    );
    expect(errs.get('c_404')).toBe(`no domain ${unknown} in the registry. Use search_domains to find it by name.`);
    expect(errs.get('c_bad')).toMatch(/^did "not-a-did" is not a valid DID: .*did:ixo:entity:<32 lowercase hex>/);
    expect(errs.get('c_badclass')).toMatch(/^class "did:ixo:entity:XYZ" is not a valid DID/);
  });

  it('a key revoked after boot, a registry that is down, and no registry at all are clear tool errors (no key in them)', async () => {
    // a key refused at boot fails the plugin (plugin-domains-credentials.test.ts); one revoked later is refused per
    // call
    const revoked = await reg.key('did:example:revoked', 'reader');
    const bad = await settled(
      await startHarness({ env: { ORACLEKIT_REGISTRY_URL: reg.url, ORACLEKIT_API_KEY: revoked } }),
    );
    expect(bad.app.plugins.status().loaded).toContain('domains');
    const rv = await reg.call('POST', `/admin/v1/keys/key_${revoked.split('_')[1]}/revoke`, {
      key: await reg.key(ALICE, 'admin'),
    });
    expect(rv.status).toBe(200);
    const home = mkdtempSync(join(tmpdir(), 'oraclekit-nodaemon-'));
    try {
      const u = await bad.user();
      const s = await u.newSession();
      bad.model.enqueue(callTool('search_domains', { q: 'x' }, 'c_401'), say('no'));
      const r = await u.stream(s, 'search');
      const e401 = toolEvents(r.events).find((c) => c.eventId === 'c_401' && c.status === 'error')!.error!;
      expect(e401).toMatch(/^the registry refused the oracle's credentials \(HTTP 401, unauthenticated: /);
      expect(e401).not.toContain(revoked);

      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      const down = await settled(
        await startHarness({
          env: { ORACLEKIT_REGISTRY_URL: `http://127.0.0.1:${port}`, ORACLEKIT_API_KEY: oracleKey },
        }),
      );
      expect(down.app.plugins.status().loaded).toContain('domains'); // no verdict on a key the registry never saw
      try {
        const u2 = await down.user();
        const s2 = await u2.newSession();
        down.model.enqueue(callTool('search_domains', {}, 'c_down'), say('down'));
        const r2 = await u2.stream(s2, 'search');
        expect(toolEvents(r2.events).find((c) => c.eventId === 'c_down' && c.status === 'error')!.error).toBe(
          `cannot reach the registry at http://127.0.0.1:${port}: ECONNREFUSED`,
        );
      } finally {
        await down.close();
      }

      // the runtime's environment names a home with no discovery file: no local daemon
      const none = await settled(await startHarness({ env: { ORACLEKIT_API_KEY: oracleKey, ORACLEKIT_HOME: home } }));
      try {
        const u3 = await none.user();
        const s3 = await u3.newSession();
        none.model.enqueue(callTool('search_domains', {}, 'c_none'), say('none'));
        const r3 = await u3.stream(s3, 'search');
        expect(toolEvents(r3.events).find((c) => c.eventId === 'c_none' && c.status === 'error')!.error).toBe(
          'no registry: ORACLEKIT_REGISTRY_URL is not set and the local oraclekit daemon is not running (start it with `oraclekit daemon start`, or set ORACLEKIT_REGISTRY_URL)',
        );
      } finally {
        await none.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
      await bad.close();
    }
  });
});

describe('the local daemon, found through the runtime environment', () => {
  it("without ORACLEKIT_REGISTRY_URL, reads the discovery file under the ORACLEKIT_HOME of the runtime's env (not process.env)", async () => {
    const home = mkdtempSync(join(tmpdir(), 'oraclekit-daemonhome-'));
    const u = new URL(reg.url);
    writeDiscovery(
      {
        pid: process.pid,
        host: u.hostname,
        port: Number(u.port),
        url: reg.url,
        version: 'test',
        token: 't',
        started: new Date().toISOString(),
      },
      { ORACLEKIT_HOME: home },
    );
    const local = await settled(await startHarness({ env: { ORACLEKIT_API_KEY: oracleKey, ORACLEKIT_HOME: home } }));
    try {
      expect(process.env.ORACLEKIT_HOME).not.toBe(home);
      const c = await local.user();
      const s = await c.newSession();
      local.model.enqueue(callTool('get_domain', { did: kisumu }, 'c_local'), say('found'));
      const r = await c.stream(s, 'read');
      expect(toolEvents(r.events).find((e) => e.eventId === 'c_local' && e.status === 'done')?.output).toMatchObject({
        did: kisumu,
      });
    } finally {
      await local.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('domains boot', () => {
  it('loaded with nothing set; an invalid URL or time-out is a boot error', async () => {
    const ok = await bootWith([domainsPlugin], {});
    expect(ok.lines).toContain('[boot] loaded: domains');
    const bad = await bootWith([domainsPlugin], { ORACLEKIT_REGISTRY_URL: 'file:///tmp/registry' });
    expect(bad.error).toBe(
      `[boot-error] Plugin 'domains' env validation failed for 'ORACLEKIT_REGISTRY_URL' = "file:///tmp/registry": must be an http(s) URL, not file:. Set 'ORACLEKIT_REGISTRY_URL' or disable it: features: { domains: false }`,
    );
    const t = await bootWith([domainsPlugin], { ORACLEKIT_REGISTRY_TIMEOUT_MS: '5' });
    expect(t.error).toMatch(
      /^\[boot-error\] Plugin 'domains' env validation failed for 'ORACLEKIT_REGISTRY_TIMEOUT_MS' = "5": /,
    );
  });
});
