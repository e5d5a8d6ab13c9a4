/**
 * The per-user turn limit (ORACLE_USER_TURNS_PER_MINUTE) as a user meets it over loopback: with ORACLE_REDIS_URL the
 * instances of one oracle count a user's turns together on one real Redis (a user does not get N times the limit
 * behind N instances), other users count apart, and the 429 carries rate_limited, Retry-After and
 * details.retryAfterSeconds. An unpaid turn of a priced oracle (402) does not spend a count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp, type OracleApp } from '../../src/runtime/app.ts';
import { generateMnemonic, generateSigner, signerFromMnemonic, type Signer } from '../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../src/lib/ucan/ucan.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';
import { startScriptedModelServer, say, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';

const silent = { info: () => {}, error: () => {} };

/** A user's request to an instance, with a fresh invocation. */
async function call(url: string, oracleDid: string, user: Signer, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
      'x-auth-type': 'ucan',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe('the turn limit of two instances on one Redis', () => {
  let redis: RedisServer;
  let model: ScriptedModelServer;
  let dir: string;
  let oracleDid: string;
  const apps: OracleApp[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    model = await startScriptedModelServer();
    dir = mkdtempSync(join(tmpdir(), 'oraclekit-turn-limit-'));
    const mnemonic = generateMnemonic();
    oracleDid = (await signerFromMnemonic(mnemonic)).did();
    for (const name of ['a', 'b']) {
      const app = createOracleApp({
        config: { name: 'Limited Oracle', model: 'scripted-model', oracleDid },
        dbPath: join(dir, `${name}.db`),
        logger: silent,
        signingMnemonic: mnemonic,
        env: {
          LLM_BASE_URL: model.baseURL,
          LLM_PROVIDER_API_KEY: 'sk-test',
          ORACLE_REDIS_URL: redis.url,
          ORACLE_USER_TURNS_PER_MINUTE: '3',
          LOG_LEVEL: 'silent',
        },
      });
      urls.push(await app.listen(0, '127.0.0.1'));
      apps.push(app);
    }
    for (let i = 0; i < 400 && !apps.every((a) => a.runtime.signingKeyLoaded); i++)
      await new Promise((r) => setTimeout(r, 5));
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await model.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts a user's turns on both instances together; the fourth in a minute is 429 wherever it lands", async () => {
    const user = await generateSigner();
    const [A, B] = urls as [string, string];
    const sessionOf = async (url: string) =>
      (await call(url, oracleDid, user, 'POST', '/sessions', {})).body.sessionId as string;
    const sessions = { [A]: await sessionOf(A), [B]: await sessionOf(B) };
    for (const url of [A, B, A]) {
      model.enqueue(say('ok'));
      const r = await call(url, oracleDid, user, 'POST', `/messages/${sessions[url]}`, { message: 'hi' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (const url of [B, A]) {
      const r = await call(url, oracleDid, user, 'POST', `/messages/${sessions[url]}`, { message: 'one more' });
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({
        statusCode: 429,
        code: 'rate_limited',
        details: { retryAfterSeconds: expect.any(Number), limitPerMinute: 3 },
      });
      expect(r.body.message).toContain('ORACLE_USER_TURNS_PER_MINUTE');
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBe(r.body.details.retryAfterSeconds);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // another user has a window of their own
    const other = await generateSigner();
    const s = (await call(B, oracleDid, other, 'POST', '/sessions', {})).body.sessionId as string;
    model.enqueue(say('yours'));
    expect((await call(B, oracleDid, other, 'POST', `/messages/${s}`, { message: 'hi' })).status).toBe(200);
  });
});

describe('the turn limit of a priced oracle', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: { name: 'Priced', model: 'scripted-model', price: 1 },
      env: { ORACLE_USER_TURNS_PER_MINUTE: '1' },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('an unpaid turn (402) spends no count: after paying, the turn of the minute still runs', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    let claimId = '';
    for (let i = 0; i < 3; i++) {
      const r = await u.req('POST', `/messages/${sessionId}`, { message: 'hello' });
      expect(r.status, JSON.stringify(r.body)).toBe(402);
      claimId = r.body.claims[0];
    }
    expect((await u.req('POST', '/credits/contract', {})).status).toBe(201);
    expect((await u.req('POST', '/credits/pay', { claimIds: [claimId], amount: 1 })).status).toBe(200);
    h.model.enqueue(say('paid'));
    const paid = await u.req('POST', `/messages/${sessionId}`, { message: 'hello' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.message.content).toBe('paid');
    const next = await u.req('POST', `/messages/${sessionId}`, { message: 'again' });
    expect(next.status).toBe(429);
    expect(next.body.code).toBe('rate_limited');
  });
});
