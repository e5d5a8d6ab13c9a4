/**
 * Credentials under attack: a UCAN is known by the CID of its bytes (a token
 * re-wrapped under a made-up CID is malformed, so it escapes neither the
 * replay store nor revocation); in strict mode a used invocation never logs
 * in again as a delegation, and a delegation logs in alone only when it
 * delegates the user's own authority to the oracle; a socket ends when its
 * credential is revoked or expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { Delegation } from '@ucanto/core';
import { handshake, startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { generateSigner } from '../../src/lib/keys/index.ts';
import { encodeToken, mintDelegation, mintInvocation } from '../../src/lib/ucan/ucan.ts';
import { rewrap, underFakeCid } from '../helpers/ucan-rewrap.ts';

const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-auth-type': 'ucan' });
const now = () => Math.floor(Date.now() / 1000);

describe('UCAN content addresses, strict replay and login delegations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { ORACLE_UCAN_REPLAY: 'strict' } });
  });
  afterAll(async () => {
    await h.close();
  });

  const get = async (headers: Record<string, string>) => {
    const r = await fetch(`${h.url}/sessions`, { headers });
    return { status: r.status, body: (await r.json()) as { code?: string; message?: string } };
  };

  it('refuses a used invocation re-wrapped under made-up CIDs (malformed_token), over HTTP and the socket', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const t = await mintInvocation({ issuer: u.signer, audience: h.oracleDid });
    expect((await get(bearer(t))).status).toBe(200);
    expect((await get(bearer(t))).body.code).toBe('replayed');
    for (let i = 0; i < 10; i++) {
      const r = await get(bearer(await rewrap(t, `replay-${i}`)));
      expect([r.status, r.body.code], `attempt ${i}`).toEqual([401, 'malformed_token']);
      expect(r.body.message).toMatch(/not the content its CID names/);
    }
    const hs = await handshake(h.url, sessionId, { invocation: await rewrap(t, 'socket') });
    expect(hs).toMatchObject({ ok: false, code: 'malformed_token', status: 401 });
    // a fresh, honestly addressed invocation still works
    expect((await get(bearer(await mintInvocation({ issuer: u.signer, audience: h.oracleDid })))).status).toBe(200);
  });

  it('refuses a revoked delegation re-wrapped under a made-up CID: alone, on the socket, and as a proof', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const d = await mintDelegation({ issuer: u.signer, audience: h.oracleDid });
    expect((await u.req('POST', '/delegation', { raw: d.token })).status).toBe(200);
    expect((await u.req('DELETE', '/delegation')).status).toBe(200);
    expect((await get({ 'x-ucan-delegation': d.token })).body.code).toBe('revoked');
    const wrapped = await rewrap(d.token, 'revoked');
    expect(await get({ 'x-ucan-delegation': wrapped })).toMatchObject({
      status: 401,
      body: { code: 'malformed_token' },
    });
    expect(await handshake(h.url, sessionId, { ucanDelegation: wrapped })).toMatchObject({
      ok: false,
      code: 'malformed_token',
    });

    // a revoked proof, re-wrapped and linked under its made-up CID by a newly signed invocation
    const issuer = await generateSigner();
    const proof = await mintDelegation({ issuer, audience: u.did });
    await h.app.runtime.revoke(proof.delegation.cid.toString());
    const honest = await mintInvocation({ issuer: u.signer, audience: h.oracleDid, proofs: [proof.delegation] });
    expect((await get(bearer(honest))).body.code).toBe('revoked');
    const disguised = await mintInvocation({
      issuer: u.signer,
      audience: h.oracleDid,
      proofs: [await underFakeCid(proof.delegation, 'proof')],
    });
    expect(await get(bearer(disguised))).toMatchObject({ status: 401, body: { code: 'malformed_token' } });
  });

  it('a used invocation never logs in as a delegation (HTTP and socket), nor does a delegation of something else', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    for (let i = 0; i < 6; i++) {
      const t = await mintInvocation({ issuer: u.signer, audience: h.oracleDid });
      expect((await get(bearer(t))).status).toBe(200);
      const r = await get({ 'x-ucan-delegation': t });
      expect([r.status, r.body.code], `attempt ${i}`).toEqual([401, 'capability_mismatch']);
      expect(r.body.message).toMatch(/invocation, not a delegation/);
      const hs = await handshake(h.url, sessionId, { ucanDelegation: t });
      expect(hs).toMatchObject({ ok: false, code: 'capability_mismatch', status: 401 });
    }
    // a capability on another resource delegates nothing of the user's to the oracle
    const other = await generateSigner();
    const elsewhere = await mintDelegation({ issuer: u.signer, audience: h.oracleDid, can: 'store/add' });
    expect((await get({ 'x-ucan-delegation': elsewhere.token })).status).toBe(200); // store/add on the user's own DID
    const foreign = await Delegation.delegate({
      issuer: u.signer,
      audience: { did: () => h.oracleDid as `did:key:${string}` },
      capabilities: [{ can: 'store/add', with: other.did() }],
      expiration: now() + 600,
    });
    const r = await get({ 'x-ucan-delegation': await encodeToken(foreign) });
    expect([r.status, r.body.code]).toEqual([401, 'capability_mismatch']);
    expect(r.body.message).toContain(`store/add on ${other.did()}`);
    // the user's delegation of their own capabilities logs in, again and again
    const own = await mintDelegation({ issuer: u.signer, audience: h.oracleDid });
    for (let i = 0; i < 3; i++) expect((await get({ 'x-ucan-delegation': own.token })).status).toBe(200);
  });

  it('ORACLE_UCAN_AUTH=invocation: a re-wrapped used invocation is refused too', async () => {
    const strict = await startHarness({ env: { ORACLE_UCAN_REPLAY: 'strict', ORACLE_UCAN_AUTH: 'invocation' } });
    try {
      const u = await strict.user();
      const t = await mintInvocation({ issuer: u.signer, audience: strict.oracleDid });
      const ok = await fetch(`${strict.url}/sessions`, { headers: bearer(t) });
      expect(ok.status).toBe(200);
      for (let i = 0; i < 10; i++) {
        const r = await fetch(`${strict.url}/sessions`, { headers: bearer(await rewrap(t, `inv-${i}`)) });
        expect([r.status, ((await r.json()) as { code: string }).code]).toEqual([401, 'malformed_token']);
      }
    } finally {
      await strict.close();
    }
  });
});

describe('sockets end with their credential', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const disconnected = (s: Socket) => new Promise<string>((r) => s.on('disconnect', (reason) => r(reason)));

  it('DELETE /delegation disconnects the sockets the delegation authenticated, and only those', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const d = await mintDelegation({ issuer: u.signer, audience: h.oracleDid });
    expect((await u.req('POST', '/delegation', { raw: d.token })).status).toBe(200);
    const byDelegation = await handshake(h.url, sessionId, { ucanDelegation: d.token });
    const byInvocation = await handshake(h.url, sessionId, {
      invocation: await mintInvocation({ issuer: u.signer, audience: h.oracleDid }),
    });
    if (!byDelegation.ok || !byInvocation.ok) throw new Error('handshake failed');
    const ended = disconnected(byDelegation.socket);
    const events: string[] = [];
    byDelegation.socket.onAny((e: string) => events.push(e));
    expect((await u.req('DELETE', '/delegation')).status).toBe(200);
    expect(await ended).toBe('io server disconnect');
    // the session's events no longer reach it; the socket of another credential stays
    expect(byInvocation.socket.connected).toBe(true);
    const invalidated = new Promise<void>((r) => byInvocation.socket.on('message_cache_invalidation', () => r()));
    h.model.enqueue({ steps: [{ type: 'text', text: 'after revocation' }] });
    await u.stream(sessionId, 'hello');
    await invalidated;
    expect(events).toEqual([]);
    expect(byDelegation.socket.connected).toBe(false);
    byInvocation.socket.close();
  });

  it('a socket ends when its invocation expires', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const hs = await handshake(h.url, sessionId, {
      invocation: await mintInvocation({ issuer: u.signer, audience: h.oracleDid, expiration: now() + 2 }),
    });
    if (!hs.ok) throw new Error(`handshake failed: ${hs.code}`);
    const started = Date.now();
    expect(await disconnected(hs.socket)).toBe('io server disconnect');
    expect(Date.now() - started).toBeLessThan(3500);
  });
});
