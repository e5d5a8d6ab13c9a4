/**
 * The calls resource against a real runtime on loopback: creating a call
 * mints a LiveKit join token for the configured server (checked with
 * livekit-server-sdk's own verifier), the call belongs to its user, moves
 * pending → active → ended, and a priced oracle gates it like a turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenVerifier } from 'livekit-server-sdk';
import {
  OracleClient,
  OracleClientError,
  PaymentRequiredError,
  createCall,
  endCall,
  getCall,
  listCalls,
  syncCall,
  updateCall,
  generateSigner,
} from '../../src/client/index.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { createOracle } from '../../src/runtime/oracle.ts';
import { BootError } from '../../src/runtime/boot.ts';

const LIVEKIT = {
  LIVEKIT_URL: 'http://127.0.0.1:7880/',
  LIVEKIT_API_KEY: 'APIcalls',
  LIVEKIT_API_SECRET: 'x'.repeat(40),
};

describe.each(BACKENDS)('calls on %s', (backend) => {
  const databases = backendDatabases(backend);
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: LIVEKIT, databaseUrl: databases.fresh('rt_calls') });
  });
  afterAll(async () => {
    await h?.close();
  });
  const client = async () => OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });

  it('creates a call with a per-call key and a LiveKit token for the configured server, then starts and ends it', async () => {
    expect(h.lines).toContain('[boot] loaded: calls');
    const c = await client();
    const did = (await c.auth()).userDid!;
    const { sessionId } = await c.createSession();
    const created = await createCall(c, { sessionId, callType: 'video', agentVoice: 'alloy', language: 'en' });
    expect(created.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
    expect(created.call).toMatchObject({
      callId: created.callId,
      sessionId,
      userDid: did,
      oracleDid: h.oracleDid,
      callType: 'video',
      callStatus: 'pending',
      roomName: created.callId,
      agentVoice: 'alloy',
      language: 'en',
      callStartedAt: null,
      callEndedAt: null,
    });
    // the server's URL as a LiveKit client takes it, and a token that server accepts for this room and user only
    expect(created.connection.url).toBe('ws://127.0.0.1:7880');
    const claims = await new TokenVerifier(LIVEKIT.LIVEKIT_API_KEY, LIVEKIT.LIVEKIT_API_SECRET).verify(
      created.connection.token,
    );
    expect(claims.sub).toBe(did);
    expect(claims.video).toMatchObject({ roomJoin: true, room: created.callId, canPublish: true, canSubscribe: true });
    expect(claims.video?.agent).toBeUndefined();
    expect(claims.attributes).toEqual({ 'oraclekit.role': 'user' });
    expect(Date.parse(created.connection.expiresAt) - Date.now()).toBeGreaterThan(500_000);
    await expect(
      new TokenVerifier(LIVEKIT.LIVEKIT_API_KEY, 'y'.repeat(40)).verify(created.connection.token),
    ).rejects.toThrow();

    // a second call gets another key; the list has both, newest first, and never a key
    const second = await createCall(c, { sessionId });
    expect(second.encryptionKey).not.toBe(created.encryptionKey);
    expect(second.call.callType).toBe('audio');
    const list = await listCalls(c, { sessionId });
    expect(list.total).toBe(2);
    expect(list.calls.map((x) => x.callId).sort()).toEqual([created.callId, second.callId].sort());
    expect(JSON.stringify(list)).not.toContain(created.encryptionKey);
    expect((await listCalls(c, { sessionId: 'session-none' })).total).toBe(0);
    expect((await listCalls(c, { limit: 1 })).calls).toHaveLength(1);

    // sync brings the oracle's agent into the room: nothing listens at this LiveKit URL, so it says so (502)
    const t0 = Date.now();
    const unreachable = await syncCall(c, created.callId).catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(OracleClientError);
    expect(unreachable).toMatchObject({ status: 502, code: 'call_agent_unavailable' });
    expect((unreachable as Error).message).toMatch(
      /^the oracle's agent could not join the call's room at ws:\/\/127\.0\.0\.1:7880: .*refused/,
    );
    expect(Date.now() - t0).toBeLessThan(10_000);
    // starting records the time the client gives
    const startedAt = '2026-01-02T03:04:05.000Z';
    const active = await updateCall(c, created.callId, { callStatus: 'active', callStartedAt: startedAt });
    expect(active).toMatchObject({ callStatus: 'active', callStartedAt: startedAt, callEndedAt: null });

    // ending is final
    const ended = await endCall(c, created.callId);
    expect(ended.callStatus).toBe('ended');
    expect(ended.callStartedAt).toBe(startedAt);
    expect(Date.parse(ended.callEndedAt!)).toBeGreaterThan(Date.parse(startedAt));
    expect((await getCall(c, created.callId)).callStatus).toBe('ended');
    for (const again of [
      () => syncCall(c, created.callId),
      () => updateCall(c, created.callId, { callStatus: 'active' }),
    ]) {
      const e = await again().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OracleClientError);
      expect(e).toMatchObject({ status: 409, code: 'call_ended' });
    }
    // a pending call may end without starting
    expect(await endCall(c, second.callId)).toMatchObject({ callStatus: 'ended', callStartedAt: null });
  });

  it("refuses a call without authentication (401), hides another user's calls (404) and names a bad field (400)", async () => {
    const owner = await client();
    const { sessionId } = await owner.createSession();
    const { callId } = await createCall(owner, { sessionId });

    for (const [method, path, body] of [
      ['POST', '/calls', { sessionId }],
      ['GET', '/calls', undefined],
      ['POST', `/calls/${callId}/sync`, {}],
      ['PATCH', `/calls/${callId}/update`, { callStatus: 'ended' }],
    ] as const) {
      const res = await fetch(h.url + path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('missing_token');
    }

    const other = await h.user();
    for (const [method, path, body] of [
      ['GET', `/calls/${callId}`, undefined],
      ['POST', `/calls/${callId}/sync`, {}],
      ['PATCH', `/calls/${callId}/update`, { callStatus: 'ended' }],
    ] as const) {
      const r = await other.req(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toMatchObject({ code: 'call_not_found', message: `no call ${callId}` });
    }
    expect((await other.req('GET', '/calls')).body).toEqual({ calls: [], total: 0 });
    // nor may a call be made in another user's session
    const inTheirs = await other.req('POST', '/calls', { sessionId });
    expect(inTheirs.status).toBe(404);
    expect(inTheirs.body).toMatchObject({ code: 'session_not_found', field: 'sessionId' });
    // the owner's call is untouched
    expect((await getCall(owner, callId)).callStatus).toBe('pending');

    const bad = await other.req('POST', '/calls', { sessionId, callType: 'fax' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_body');
    expect(JSON.stringify(bad.body)).toContain('callType');
    const badLang = await other.req('POST', '/calls', { sessionId, language: 'english please' });
    expect(badLang.status).toBe(400);
    expect(JSON.stringify(badLang.body)).toContain('language');
    const badStatus = await owner
      .request('PATCH', `/calls/${callId}/update`, { callStatus: 'paused' })
      .catch((e: unknown) => e);
    expect(badStatus).toMatchObject({ status: 400, code: 'invalid_body' });
  });
});

describe('calls on a priced oracle', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: LIVEKIT, config: { name: 'Priced Oracle', model: 'scripted-model', price: 2 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses an unpaid call with the payment-required error and its claims, and admits it once paid', async () => {
    const c = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const { sessionId } = await c.createSession();
    const refused = await createCall(c, { sessionId }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaymentRequiredError);
    const claims = (refused as PaymentRequiredError).claims;
    expect(claims).toHaveLength(1);
    expect((refused as PaymentRequiredError).message).toMatch(/2 credit per turn/);
    expect((await listCalls(c)).total).toBe(0);

    await c.request('POST', '/credits/contract', {});
    await c.request('POST', '/credits/pay', { claimIds: claims, amount: 2 });
    const created = await createCall(c, { sessionId });
    expect(created.call.callStatus).toBe('pending');
    // the paid claim bought this call; the next one needs another
    const again = await createCall(c, { sessionId }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(PaymentRequiredError);
  });
});

describe('calls configuration', () => {
  it("joins the embedded endpoint when no LiveKit server is set: the oracle's own origin and signal path", async () => {
    const h = await startHarness();
    try {
      const u = await h.user();
      const sessionId = await u.newSession();
      const r = await u.req('POST', '/calls', { sessionId });
      expect(r.status).toBe(201);
      expect(r.body.connection.url).toBe(h.url.replace(/^http:/, 'ws:'));
      // the token is the embedded endpoint's own: the endpoint says why a join would be refused, as LiveKit's server
      // does
      const ok = await fetch(`${h.url}/rtc/validate?access_token=${r.body.connection.token}`);
      expect([ok.status, await ok.text()]).toEqual([200, 'success']);
      const none = await fetch(`${h.url}/rtc/validate`);
      expect([none.status, await none.text()]).toEqual([401, 'no access_token']);
      const forged = await fetch(`${h.url}/rtc/validate?access_token=${r.body.connection.token.slice(0, -4)}AAAA`);
      expect(forged.status).toBe(401);
      expect(await forged.text()).toMatch(/^invalid token/);
    } finally {
      await h.close();
    }
  });

  it('tells a page of an allowed origin that an oracle without calls does not offer them, with CORS headers on the 404', async () => {
    const origin = 'http://app.example.org';
    const h = await startHarness({ features: { calls: false }, corsOrigins: [origin] });
    try {
      const c = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
      const { sessionId } = await c.createSession();
      const e = await createCall(c, { sessionId }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OracleClientError);
      expect(e).toMatchObject({ status: 404, code: 'calls_unavailable' });
      expect((e as Error).message).toMatch(/^this oracle does not offer calls/);
      // the page's fetch reads that 404 only if it carries CORS headers for its origin; another origin gets none
      const res = await fetch(`${h.url}/calls`, { method: 'POST', headers: { origin } });
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      const other = await fetch(`${h.url}/calls`, { method: 'POST', headers: { origin: 'http://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await h.close();
    }
  });

  it('refuses to boot with a LiveKit server URL but no API key, naming the missing variable', () => {
    let err: unknown;
    try {
      createOracle({
        config: { name: 'x' },
        dbPath: ':memory:',
        logger: { info: () => {}, error: () => {} },
        env: { LIVEKIT_URL: 'wss://livekit.example.org', LIVEKIT_API_SECRET: 's' },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).line).toMatch(
      /^\[boot-error\] Plugin 'calls' env validation failed for 'LIVEKIT_API_KEY': a LiveKit server needs LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET together/,
    );
  });

  it('refuses a LiveKit URL of another scheme', () => {
    expect(() =>
      createOracle({
        config: { name: 'x' },
        dbPath: ':memory:',
        logger: { info: () => {}, error: () => {} },
        env: { LIVEKIT_URL: 'ftp://livekit.example.org', LIVEKIT_API_KEY: 'k', LIVEKIT_API_SECRET: 's' },
      }),
    ).toThrow(/'LIVEKIT_URL'.*ws:\/\/, wss:\/\/, http:\/\/ or https:\/\//);
  });
});
