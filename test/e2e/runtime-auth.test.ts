import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '@ucanto/core';
import { handshake, startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { say, callTool } from '../helpers/scripted-model-server.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { didFromMnemonic, generateMnemonic, generateSigner, type Signer } from '../../src/lib/keys/keys.ts';
import { encodeToken, mintDelegation, mintInvocation } from '../../src/lib/ucan/ucan.ts';

describe.each(BACKENDS)('runtime authentication on %s', (backend) => {
  const databases = backendDatabases(backend);
  /** A harness on a fresh database of this backend. */
  const start = (o: Parameters<typeof startHarness>[0] = {}) =>
    startHarness({ ...o, databaseUrl: databases.fresh('rt_auth') });

  let h: Harness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h.close();
  });

  const now = () => Math.floor(Date.now() / 1000);

  /** Each bad credential of the issue, as request headers / socket auth, with its expected code. */
  async function badCases(
    user: Signer,
    oracleDid: string,
  ): Promise<{ name: string; code: string; headers: Record<string, string>; auth: Record<string, string> }[]> {
    const other = await generateSigner();
    const inv = (o: Partial<Parameters<typeof mintInvocation>[0]> = {}) =>
      mintInvocation({ issuer: user, audience: oracleDid, ...o });
    const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-auth-type': 'ucan' });
    const liar = user.withDID(other.did() as `did:key:${string}`);
    const forged = await encodeToken(
      await invoke({
        issuer: liar,
        audience: { did: () => oracleDid as `did:key:${string}` },
        capability: { can: 'oracle/use', with: oracleDid as `did:key:${string}` },
        expiration: now() + 300,
      }).delegate(),
    );
    const cases = [
      { name: 'no header', code: 'missing_token', token: undefined as string | undefined },
      { name: 'malformed base64', code: 'malformed_token', token: '!!!not-base64!!!' },
      { name: 'base64 of garbage', code: 'malformed_token', token: Buffer.from('garbage bytes').toString('base64') },
      {
        name: 'wrong audience',
        code: 'wrong_audience',
        token: await mintInvocation({ issuer: user, audience: other.did() }),
      },
      { name: 'expired', code: 'expired', token: await inv({ expiration: now() - 5 }) },
      {
        name: 'not yet valid',
        code: 'not_yet_valid',
        token: await inv({ notBefore: now() + 600, expiration: now() + 800 }),
      },
      { name: 'TTL over 900 s', code: 'ttl_too_long', token: await inv({ ttlSeconds: 1200 }) },
      { name: 'forged signature', code: 'bad_signature', token: forged },
    ];
    const out: { name: string; code: string; headers: Record<string, string>; auth: Record<string, string> }[] =
      cases.map((c) => ({
        name: c.name,
        code: c.code,
        headers: c.token === undefined ? {} : bearer(c.token),
        auth: c.token === undefined ? ({} as Record<string, string>) : { invocation: c.token },
      }));
    // a delegation from another user next to a valid invocation
    const foreign = await mintDelegation({ issuer: other, audience: oracleDid });
    out.push({
      name: 'delegation from another user',
      code: 'delegation_issuer_mismatch',
      headers: { ...bearer(await inv()), 'x-ucan-delegation': foreign.token },
      auth: { invocation: await inv(), ucanDelegation: foreign.token },
    });
    return out;
  }

  describe('UCAN authentication', () => {
    it('refuses every bad credential with 401 and its code, over HTTP and the socket.io handshake', async () => {
      const u = await h.user();
      const sessionId = await u.newSession();
      for (const c of await badCases(u.signer, h.oracleDid)) {
        const r = await fetch(`${h.url}/sessions`, { headers: c.headers });
        const body = await r.json();
        expect(r.status, c.name).toBe(401);
        expect(body, c.name).toMatchObject({ statusCode: 401, code: c.code, message: expect.any(String) });
        const hs = await handshake(h.url, sessionId, c.auth);
        expect(hs.ok, c.name).toBe(false);
        if (!hs.ok) expect([hs.code, hs.status], c.name).toEqual([c.code, 401]);
      }
    });

    it('by default accepts the same invocation again until it expires (HTTP and socket): a bearer credential', async () => {
      const u = await h.user();
      const sessionId = await u.newSession();
      const t = await mintInvocation({ issuer: u.signer, audience: h.oracleDid });
      const hdr = { authorization: `Bearer ${t}`, 'x-auth-type': 'ucan' };
      for (let i = 0; i < 3; i++) expect((await fetch(`${h.url}/sessions`, { headers: hdr })).status).toBe(200);
      const hs = await handshake(h.url, sessionId, { invocation: t });
      expect(hs.ok).toBe(true);
      if (hs.ok) hs.socket.close();
      // still refused once expired, and for another oracle
      const dead = await mintInvocation({ issuer: u.signer, audience: h.oracleDid, expiration: now() - 1 });
      expect(
        await (
          await fetch(`${h.url}/sessions`, { headers: { authorization: `Bearer ${dead}`, 'x-auth-type': 'ucan' } })
        ).json(),
      ).toMatchObject({ statusCode: 401, code: 'expired' });
    });

    it('ORACLE_UCAN_REPLAY=strict refuses a replayed invocation (HTTP and socket)', async () => {
      const strict = await start({ env: { ORACLE_UCAN_REPLAY: 'strict' } });
      try {
        const u = await strict.user();
        const sessionId = await u.newSession();
        const t = await mintInvocation({ issuer: u.signer, audience: strict.oracleDid });
        const hdr = { authorization: `Bearer ${t}`, 'x-auth-type': 'ucan' };
        expect((await fetch(`${strict.url}/sessions`, { headers: hdr })).status).toBe(200);
        const again = await fetch(`${strict.url}/sessions`, { headers: hdr });
        expect(again.status).toBe(401);
        expect((await again.json()).code).toBe('replayed');
        const hs = await handshake(strict.url, sessionId, { invocation: t });
        expect(hs).toMatchObject({ ok: false, code: 'replayed' });
      } finally {
        await strict.close();
      }
    });

    it('ORACLE_UCAN_REPLAY=strict remembers used invocations across a restart of the runtime', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'oraclekit-replay-'));
      const mnemonic = generateMnemonic();
      const oracleDid = didFromMnemonic(mnemonic);
      // both runtimes on one database: the SQLite file, or one PostgreSQL database
      const url = databases.fresh('rt_replay');
      const opts = {
        ...(url ? { databaseUrl: url } : { dbPath: join(dir, 'oracle.db') }),
        signingMnemonic: mnemonic,
        config: { name: 'Replay', model: 'scripted-model', oracleDid },
        env: { ORACLE_UCAN_REPLAY: 'strict' },
      };
      const user = await generateSigner();
      const t = await mintInvocation({ issuer: user, audience: oracleDid });
      const hdr = { authorization: `Bearer ${t}`, 'x-auth-type': 'ucan' };
      const first = await startHarness(opts);
      try {
        expect((await fetch(`${first.url}/sessions`, { headers: hdr })).status).toBe(200);
      } finally {
        await first.close();
      }
      const second = await startHarness(opts);
      try {
        const again = await fetch(`${second.url}/sessions`, { headers: hdr });
        expect(again.status).toBe(401);
        expect((await again.json()).code).toBe('replayed');
        // a fresh invocation of the same user is fine
        const fresh = await mintInvocation({ issuer: user, audience: oracleDid });
        expect(
          (
            await fetch(`${second.url}/sessions`, {
              headers: { authorization: `Bearer ${fresh}`, 'x-auth-type': 'ucan' },
            })
          ).status,
        ).toBe(200);
      } finally {
        await second.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses a revoked proof: a deleted delegation and a revoked CID in the chain', async () => {
      const u = await h.user();
      const d = await mintDelegation({ issuer: u.signer, audience: h.oracleDid });
      const post = await u.req('POST', '/delegation', { raw: d.token });
      expect(post.status).toBe(200);
      expect(post.body).toEqual({ ok: true, expiration: d.delegation.expiration });
      expect((await u.req('GET', '/delegation')).body).toEqual({
        authorized: true,
        expiration: d.delegation.expiration,
      });
      expect((await u.req('DELETE', '/delegation')).body).toEqual({ ok: true });
      expect((await u.req('GET', '/delegation')).body).toEqual({ authorized: false });
      const r = await u.req('GET', '/sessions', undefined, { 'x-ucan-delegation': d.token });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('revoked');

      // a proof inside the invocation's chain, revoked by CID
      const issuer = await generateSigner();
      const proof = await mintDelegation({ issuer, audience: u.did });
      const t = await mintInvocation({ issuer: u.signer, audience: h.oracleDid, proofs: [proof.delegation] });
      await h.app.runtime.store.revoke(proof.delegation.cid.toString());
      const rr = await fetch(`${h.url}/sessions`, { headers: { authorization: `Bearer ${t}`, 'x-auth-type': 'ucan' } });
      expect(rr.status).toBe(401);
      expect((await rr.json()).code).toBe('revoked');
    });

    it('takes a fresh delegation minted in the same second as the revoked one it replaces', async () => {
      const u = await h.user();
      const expiration = now() + 3600;
      const revoked = await mintDelegation({ issuer: u.signer, audience: h.oracleDid, expiration });
      expect((await u.req('POST', '/delegation', { raw: revoked.token })).status).toBe(200);
      expect((await u.req('DELETE', '/delegation')).body).toEqual({ ok: true });
      const fresh = await mintDelegation({ issuer: u.signer, audience: h.oracleDid, expiration });
      expect(fresh.delegation.cid.toString()).not.toBe(revoked.delegation.cid.toString());
      const post = await u.req('POST', '/delegation', { raw: fresh.token });
      expect(post.status, JSON.stringify(post.body)).toBe(200);
      expect((await u.req('GET', '/delegation')).body).toEqual({ authorized: true, expiration });
      const r = await u.req('GET', '/sessions', undefined, { 'x-ucan-delegation': fresh.token });
      expect(r.status).toBe(200);
    });

    it('refuses another auth type; by default a delegation alone logs in (HTTP and socket)', async () => {
      const u = await h.user();
      const sessionId = await u.newSession();
      const basic = await fetch(`${h.url}/sessions`, {
        headers: { authorization: 'Basic abc', 'x-auth-type': 'basic' },
      });
      expect((await basic.json()).code).toBe('unsupported_auth_type');
      const d = await mintDelegation({ issuer: u.signer, audience: h.oracleDid, ttlSeconds: 7 * 24 * 3600 });
      const alone = await fetch(`${h.url}/sessions`, { headers: { 'x-ucan-delegation': d.token } });
      expect(alone.status).toBe(200);
      expect((await alone.json()).sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([sessionId]);
      const hs = await handshake(h.url, sessionId, { ucanDelegation: d.token });
      expect(hs.ok).toBe(true);
      if (hs.ok) hs.socket.close();
    });

    it('refuses a bad delegation alone with 401 and its code (HTTP and socket), a too-long one included', async () => {
      const u = await h.user();
      const sessionId = await u.newSession();
      const other = await generateSigner();
      const liar = u.signer.withDID(other.did() as `did:key:${string}`);
      const cases = [
        {
          name: 'forged',
          code: 'bad_signature',
          token: (await mintDelegation({ issuer: liar as unknown as Signer, audience: h.oracleDid })).token,
        },
        {
          name: 'expired',
          code: 'expired',
          token: (await mintDelegation({ issuer: u.signer, audience: h.oracleDid, expiration: now() - 5 })).token,
        },
        {
          name: 'wrong audience',
          code: 'wrong_audience',
          token: (await mintDelegation({ issuer: u.signer, audience: other.did() })).token,
        },
        {
          name: 'longer than 30 days',
          code: 'ttl_too_long',
          token: (await mintDelegation({ issuer: u.signer, audience: h.oracleDid, ttlSeconds: 31 * 24 * 3600 })).token,
        },
        { name: 'malformed', code: 'malformed_token', token: '!!!' },
      ];
      for (const c of cases) {
        const r = await fetch(`${h.url}/sessions`, { headers: { 'x-ucan-delegation': c.token } });
        expect(r.status, c.name).toBe(401);
        expect(await r.json(), c.name).toMatchObject({ statusCode: 401, code: c.code });
        const hs = await handshake(h.url, sessionId, { ucanDelegation: c.token });
        expect(hs.ok ? 'connected' : [hs.code, hs.status], c.name).toEqual([c.code, 401]);
      }
    });

    it('ORACLE_UCAN_AUTH=invocation: a delegation alone does not log in (HTTP and socket); an invocation does', async () => {
      const inv = await start({ env: { ORACLE_UCAN_AUTH: 'invocation', ORACLE_UCAN_DELEGATION_MAX_TTL_S: '3600' } });
      try {
        const u = await inv.user();
        const sessionId = await u.newSession();
        const d = await mintDelegation({ issuer: u.signer, audience: inv.oracleDid, ttlSeconds: 600 });
        const alone = await fetch(`${inv.url}/sessions`, { headers: { 'x-ucan-delegation': d.token } });
        expect(alone.status).toBe(401);
        const body = await alone.json();
        expect(body).toMatchObject({ statusCode: 401, code: 'missing_token' });
        expect(body.message).toContain('ORACLE_UCAN_AUTH=invocation');
        const hs = await handshake(inv.url, sessionId, { ucanDelegation: d.token });
        expect(hs).toMatchObject({ ok: false, code: 'missing_token', status: 401 });
        // with an invocation the same delegation is the downstream authority, whatever its lifetime
        const long = await mintDelegation({ issuer: u.signer, audience: inv.oracleDid, ttlSeconds: 400 * 24 * 3600 });
        expect((await u.req('GET', '/sessions', undefined, { 'x-ucan-delegation': long.token })).status).toBe(200);
      } finally {
        await inv.close();
      }
    });

    it("refuses a handshake for another user's session and delivers only the session's own events", async () => {
      const a = await h.user();
      const b = await h.user();
      const sa = await a.newSession();
      const sb = await b.newSession();
      const cross = await handshake(h.url, sa, {
        invocation: await mintInvocation({ issuer: b.signer, audience: h.oracleDid }),
      });
      expect(cross).toMatchObject({ ok: false, code: 'session_not_found' });
      const noSession = await handshake(h.url, '', {
        invocation: await mintInvocation({ issuer: a.signer, audience: h.oracleDid }),
      });
      expect(noSession.ok).toBe(false);

      const ha = await handshake(h.url, sa, {
        invocation: await mintInvocation({ issuer: a.signer, audience: h.oracleDid }),
      });
      const hb = await handshake(h.url, sb, {
        invocation: await mintInvocation({ issuer: b.signer, audience: h.oracleDid }),
      });
      if (!ha.ok || !hb.ok) throw new Error('handshake failed');
      const gotA: { eventName: string; payload: Record<string, unknown> }[] = [];
      const gotB: unknown[] = [];
      for (const name of ['tool_call', 'reasoning', 'message_cache_invalidation'] as const) {
        ha.socket.on(name, (e: { eventName: string; payload: Record<string, unknown> }) => gotA.push(e));
        hb.socket.on(name, (e: unknown) => gotB.push(e));
      }
      const invalidated = new Promise<void>((r) => ha.socket.on('message_cache_invalidation', () => r()));
      h.model.enqueue(callTool('list_capabilities', {}, 'sock1'), say('done'));
      const { headers } = await a.stream(sa, 'what can you do?');
      await invalidated;
      expect(gotB).toEqual([]);
      expect(gotA.map((e) => [e.eventName, e.payload.status])).toEqual([
        ['tool_call', 'isRunning'],
        ['tool_call', 'done'],
        ['message_cache_invalidation', undefined],
      ]);
      for (const e of gotA)
        expect(e.payload).toMatchObject({
          sessionId: sa,
          requestId: headers.get('x-request-id'),
          eventId: expect.any(String),
        });
      ha.socket.close();
      hb.socket.close();
    });
  });

  describe('signing key', () => {
    it('answers 401 signing_key_missing and /ready 503 until the key is loaded', async () => {
      const h2 = await start({ signingMnemonic: '' });
      try {
        const u = await h2.user();
        const r = await u.req('GET', '/sessions');
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('signing_key_missing');
        const ready = await fetch(`${h2.url}/ready`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({ ready: false, signingKeyLoaded: false, pending: ['signing-key'] });
        const hs = await handshake(h2.url, 'x', {
          invocation: await mintInvocation({ issuer: u.signer, audience: h2.oracleDid }),
        });
        expect(hs).toMatchObject({ ok: false, code: 'signing_key_missing' });
        const { generateMnemonic } = await import('../../src/lib/keys/keys.ts');
        await h2.app.runtime.loadSigningKey(generateMnemonic());
        expect((await u.req('GET', '/sessions')).status).toBe(200);
        expect((await fetch(`${h2.url}/ready`)).status).toBe(200);
        h2.model.enqueue(say('x'));
      } finally {
        await h2.close();
      }
    });
  });

  describe('client tool results over socket.io', () => {
    it('a tool_result from the session resolves the pending call; another session cannot answer it; a missing one times out', async () => {
      const a = await h.user();
      const b = await h.user();
      const sa = await a.newSession();
      const sb = await b.newSession();
      const ha = await handshake(h.url, sa, {
        invocation: await mintInvocation({ issuer: a.signer, audience: h.oracleDid }),
      });
      const hb = await handshake(h.url, sb, {
        invocation: await mintInvocation({ issuer: b.signer, audience: h.oracleDid }),
      });
      if (!ha.ok || !hb.ok) throw new Error('handshake failed');
      const sock = h.app.socket()!;
      const pending = sock.awaitResult(sa, 'tc-1', 2000);
      hb.socket.emit('tool_result', { toolCallId: 'tc-1', sessionId: sb, result: 'from b' });
      hb.socket.emit('tool_result', { toolCallId: 'tc-1', sessionId: sa, result: 'b pretending' });
      ha.socket.emit('tool_result', { toolCallId: 'tc-1', sessionId: sa, result: { ok: 42 } });
      expect(await pending).toEqual({ ok: 42 });
      await expect(sock.awaitResult(sa, 'tc-2', 50)).rejects.toThrow(/no result for tc-2 within 50 ms/);
      const failing = sock.awaitResult(sa, 'tc-3', 2000);
      ha.socket.emit('tool_result', { toolCallId: 'tc-3', sessionId: sa, result: null, error: 'user denied' });
      await expect(failing).rejects.toThrow('user denied');
      ha.socket.close();
      hb.socket.close();
    });
  });

  describe('an empty body with a JSON content type (the IXO SDK sends one)', () => {
    it('reads as {} on the routes whose body is optional; a route that needs fields names them; bad JSON stays invalid_json', async () => {
      const u = await h.user();
      const send = async (method: string, path: string, body?: string) =>
        fetch(h.url + path, { method, headers: { ...(await u.headers()), 'content-type': 'application/json' }, body });
      const created = await send('POST', '/sessions');
      expect(created.status).toBe(201);
      const { sessionId } = (await created.json()) as { sessionId: string };
      expect((await send('GET', `/sessions/${sessionId}/run`)).status).toBe(200);
      expect((await send('DELETE', '/delegation')).status).toBe(200);
      expect(await (await send('POST', `/messages/${sessionId}`)).json()).toMatchObject({
        statusCode: 400,
        code: 'invalid_body',
        field: 'message',
        message: expect.stringContaining('message'),
      });
      expect(await (await send('POST', '/sessions', '{"title":')).json()).toMatchObject({
        statusCode: 400,
        code: 'invalid_json',
      });
      const deleted = await send('DELETE', `/sessions/${sessionId}`);
      expect([deleted.status, await deleted.json()]).toEqual([200, { message: `session ${sessionId} deleted` }]);
    });
  });
});
