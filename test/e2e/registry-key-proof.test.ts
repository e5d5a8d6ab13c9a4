/**
 * Through the real daemon process and the real CLI: the
 * optional DID proof at key creation (registry.md, "DID proof at key
 * creation") — accepted with a valid signature of each did:key kind, refused
 * with a wrong signature, another DID, other roles, a stale or replayed
 * challenge, or a DID that carries no key; required when the deployment sets
 * requireDidProof; and made by `daemon keys create --prove` with the
 * identity the CLI holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p256 } from '@noble/curves/nist.js';
import { base58Encode } from '../../src/lib/did/did.ts';
import { keyProofChallenge } from '../../src/lib/registry/key-proof.ts';
import { runCli } from '../helpers/cli.ts';
import { spawnDaemon, tempHome, type Api, type Spawned } from '../unit/daemon/harness.ts';

type Kind = 'ed25519' | 'secp256k1' | 'p256';
interface Holder {
  did: string;
  sign: (msg: string) => string;
}

function holder(kind: Kind): Holder {
  const te = (s: string) => new TextEncoder().encode(s);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  if (kind === 'ed25519') {
    const sk = ed25519.utils.randomSecretKey();
    return {
      did: 'did:key:z' + base58Encode(Uint8Array.from([0xed, 0x01, ...ed25519.getPublicKey(sk)])),
      sign: (m) => b64(ed25519.sign(te(m), sk)),
    };
  }
  const curve = kind === 'secp256k1' ? secp256k1 : p256;
  const prefix = kind === 'secp256k1' ? [0xe7, 0x01] : [0x80, 0x24];
  const sk = curve.utils.randomSecretKey();
  return {
    did: 'did:key:z' + base58Encode(Uint8Array.from([...prefix, ...curve.getPublicKey(sk, true)])),
    sign: (m) => b64(curve.sign(te(m), sk)),
  };
}

const proofFor = (h: Holder, roles: string[], at = Date.now()) => {
  const challenge = keyProofChallenge(h.did, roles, at);
  return { challenge, signature: h.sign(challenge) };
};

const expectError = (
  r: { status: number; body: { code?: string; field?: string } },
  status: number,
  code: string,
  field?: string,
) => {
  expect({ status: r.status, code: r.body.code, ...(field ? { field: r.body.field } : {}) }).toEqual({
    status,
    code,
    ...(field ? { field } : {}),
  });
};

describe('optional DID proof (default deployment)', () => {
  const t = tempHome({});
  let d: Spawned;
  const create = (body: unknown) => d.call('POST', '/admin/v1/keys', { key: d.token, body });
  beforeAll(async () => {
    d = await spawnDaemon(t.env, t.home);
  });
  afterAll(async () => {
    d?.child.kill('SIGTERM');
    await new Promise((r) => d?.child.once('exit', r));
    t.cleanup();
  });

  it('a key without a proof is created as before', async () => {
    expect((await create({ did: 'did:example:plain', roles: ['member'] })).status).toBe(201);
  });

  for (const kind of ['ed25519', 'secp256k1', 'p256'] as const) {
    it(`accepts a valid ${kind} proof, and the key works`, async () => {
      const h = holder(kind);
      const r = await create({ did: h.did, roles: ['voter', 'member'], proof: proofFor(h, ['member', 'voter']) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body).toMatchObject({ did: h.did, roles: ['voter', 'member'] });
      expect((await d.call('GET', '/v1/domains', { key: r.body.key })).status).toBe(200);
    });
  }

  it('refuses a wrong signature, another DID, other roles, a stale or reused challenge, a DID without a key', async () => {
    const h = holder('ed25519');
    const mallory = holder('ed25519');
    const good = proofFor(h, ['voter']);
    // a signature by another key over the right challenge (the admin's own key, say)
    expectError(
      await create({
        did: h.did,
        roles: ['voter'],
        proof: { challenge: good.challenge, signature: mallory.sign(good.challenge) },
      }),
      400,
      'did_proof_invalid',
      'proof.signature',
    );
    // a valid proof of another DID, presented for this one
    expectError(
      await create({ did: h.did, roles: ['voter'], proof: proofFor(mallory, ['voter']) }),
      400,
      'did_proof_invalid',
      'proof.challenge',
    );
    // a valid proof for other roles
    expectError(
      await create({ did: h.did, roles: ['voter', 'admin'], proof: good }),
      400,
      'did_proof_invalid',
      'proof.challenge',
    );
    // not a challenge line; not a signature
    expectError(
      await create({ did: h.did, roles: ['voter'], proof: { challenge: 'sign me', signature: good.signature } }),
      400,
      'did_proof_invalid',
      'proof.challenge',
    );
    expectError(
      await create({ did: h.did, roles: ['voter'], proof: { challenge: good.challenge, signature: 'abc' } }),
      400,
      'did_proof_invalid',
      'proof.signature',
    );
    // stale: signed ten minutes ago; too far ahead: in five minutes
    expectError(
      await create({ did: h.did, roles: ['voter'], proof: proofFor(h, ['voter'], Date.now() - 10 * 60_000) }),
      400,
      'did_proof_stale',
      'proof.challenge',
    );
    expectError(
      await create({ did: h.did, roles: ['voter'], proof: proofFor(h, ['voter'], Date.now() + 5 * 60_000) }),
      400,
      'did_proof_stale',
      'proof.challenge',
    );
    // a DID that carries no key cannot prove
    expectError(
      await create({
        did: 'did:example:nokey',
        roles: ['voter'],
        proof: { challenge: keyProofChallenge('did:example:nokey', ['voter'], Date.now()), signature: good.signature },
      }),
      400,
      'did_proof_invalid',
      'did',
    );
    // an unknown field of the proof is refused by the schema
    expectError(await create({ did: h.did, roles: ['voter'], proof: { ...good, extra: 1 } }), 400, 'unknown_field');
    // the good proof still works once, then is used up
    expect((await create({ did: h.did, roles: ['voter'], proof: good })).status).toBe(201);
    expectError(await create({ did: h.did, roles: ['voter'], proof: good }), 400, 'did_proof_stale', 'proof.challenge');
    // none of the refused calls made a key
    const keys = (await d.call('GET', '/admin/v1/keys', { key: d.token })).body.items.filter(
      (k: { did: string }) => k.did === h.did,
    );
    expect(keys).toHaveLength(1);
  });
});

describe('required DID proof (requireDidProof: true)', () => {
  const t = tempHome({ requireDidProof: true });
  let d: Pick<Api, 'call'> & { token: string };
  const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...t.env, ...extra } });
  beforeAll(async () => {
    const start = await cli(['daemon', 'start', '--json']);
    expect(start.code, start.stderr).toBe(0);
    const discovery = JSON.parse(readFileSync(join(t.home, 'state/daemon.json'), 'utf8')) as {
      url: string;
      token: string;
    };
    d = { token: discovery.token, call: apiAt(discovery.url) };
  });
  afterAll(async () => {
    await cli(['daemon', 'stop', '--grace', '1']);
    t.cleanup();
  });

  it('refuses a key without a proof, with the challenge to sign in the message', async () => {
    const r = await d.call('POST', '/admin/v1/keys', {
      key: d.token,
      body: { did: 'did:example:someone', roles: ['voter'] },
    });
    expectError(r, 400, 'did_proof_required', 'proof');
    expect(r.body.message).toContain('oraclekit-api-key did:example:someone voter ');
    const cliNoProof = await cli([
      'daemon',
      'keys',
      'create',
      '--did',
      'did:example:someone',
      '--role',
      'voter',
      '--json',
    ]);
    expect(cliNoProof.code).toBe(3);
    expect(JSON.parse(cliNoProof.stderr).code).toBe('did_proof_required');
  });

  it('accepts a valid proof', async () => {
    const h = holder('ed25519');
    const r = await d.call('POST', '/admin/v1/keys', {
      key: d.token,
      body: { did: h.did, roles: ['voter'], proof: proofFor(h, ['voter']) },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('`daemon keys create --prove` signs with the identity the CLI holds', async () => {
    const m = join(t.home, 'mnemonic.txt');
    writeFileSync(m, 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\n');
    const login = await cli(['login', '--auth', 'mnemonic', '--mnemonic-file', m, '--json']);
    expect(login.code, login.stderr).toBe(0);
    const did = JSON.parse(login.stdout).identity?.did ?? JSON.parse(login.stdout).did;
    expect(did).toMatch(/^did:key:z6Mk/);
    const ok = await cli([
      'daemon',
      'keys',
      'create',
      '--did',
      did,
      '--role',
      'voter',
      '--role',
      'member',
      '--prove',
      '--json',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ did, roles: ['voter', 'member'] });
    // --prove cannot prove a DID the CLI does not hold
    const other = await cli([
      'daemon',
      'keys',
      'create',
      '--did',
      holder('ed25519').did,
      '--role',
      'voter',
      '--prove',
      '--json',
    ]);
    expect(other.code).toBe(3);
    expect(JSON.parse(other.stderr)).toMatchObject({ code: 'invalid_flag', field: 'did' });
  });
});

/** Calls to a daemon the CLI started (the harness's spawnDaemon starts its own). */
function apiAt(url: string): Api['call'] {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    };
    const r = await fetch(url + path, {
      method,
      headers,
      body: opts.body !== undefined ? JSON.stringify(opts.body) : null,
    });
    return { status: r.status, body: (await r.json()) as Awaited<ReturnType<Api['call']>>['body'], headers: r.headers };
  };
}
