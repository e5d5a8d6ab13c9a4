/**
 * The DID proof at key creation (src/daemon/registry/did-proof.ts and
 * src/lib/registry/key-proof.ts) on a fixed clock: the challenge line, the
 * freshness window at its edges, one use per challenge, and the codes and
 * fields of each refusal. The e2e test (test/e2e/registry-key-proof.test.ts)
 * runs the same through the daemon and the CLI.
 */
import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58Encode } from '../../../../src/lib/did/did.ts';
import { canProve, keyProofChallenge, parseKeyProofChallenge } from '../../../../src/lib/registry/key-proof.ts';
import { DidProofs, PROOF_MAX_AGE_MS, PROOF_MAX_SKEW_MS } from '../../../../src/daemon/registry/did-proof.ts';
import type { OracleKitError } from '../../../../src/lib/errors.ts';

const NOW = Date.parse('2026-11-23T22:00:00.000Z');
const sk = ed25519.utils.randomSecretKey();
const DID = 'did:key:z' + base58Encode(Uint8Array.from([0xed, 0x01, ...ed25519.getPublicKey(sk)]));
const sign = (c: string) => Buffer.from(ed25519.sign(new TextEncoder().encode(c), sk)).toString('base64url');
const proof = (roles: string[], at: number) => {
  const challenge = keyProofChallenge(DID, roles, at);
  return { challenge, signature: sign(challenge) };
};

function refusal(f: () => void): { code: string; field: string | undefined; status: number } {
  try {
    f();
  } catch (e) {
    const err = e as OracleKitError;
    return { code: err.code, field: err.toBody().field, status: err.status };
  }
  throw new Error('expected a refusal');
}

describe('the challenge line', () => {
  it('names the DID, the roles sorted and unique, and the time', () => {
    expect(keyProofChallenge(DID, ['voter', 'member', 'voter'], NOW)).toBe(
      `oraclekit-api-key ${DID} member,voter 2026-11-23T22:00:00.000Z`,
    );
    expect(parseKeyProofChallenge(keyProofChallenge(DID, ['voter'], NOW))).toEqual({
      did: DID,
      roles: 'voter',
      issuedAt: NOW,
    });
    expect(parseKeyProofChallenge(`oraclekit-api-key ${DID} voter yesterday`)).toBeUndefined();
    expect(parseKeyProofChallenge(`oraclekit-api-key ${DID} voter 2026-02-30T00:00:00.000Z`)).toBeUndefined();
    expect(parseKeyProofChallenge(`oraclekit-api-key ${DID} voter 2026-11-23T22:00:00Z`)).toBeUndefined();
  });
  it('only a did:key of a known curve can prove', () => {
    expect(canProve(DID)).toBe(true);
    expect(canProve('did:example:alice')).toBe(false);
    expect(canProve('did:ixo:entity:' + 'a'.repeat(32))).toBe(false);
  });
});

describe('DidProofs.check', () => {
  it('no proof: fine unless required (400 did_proof_required on proof)', () => {
    new DidProofs().check(DID, ['voter'], undefined, false, NOW);
    expect(refusal(() => new DidProofs().check(DID, ['voter'], undefined, true, NOW))).toEqual({
      code: 'did_proof_required',
      field: 'proof',
      status: 400,
    });
  });

  it('accepts at the edges of the window and refuses just outside them', () => {
    const p = new DidProofs();
    p.check(DID, ['voter'], proof(['voter'], NOW - PROOF_MAX_AGE_MS), true, NOW);
    p.check(DID, ['voter'], proof(['voter'], NOW + PROOF_MAX_SKEW_MS), true, NOW);
    expect(refusal(() => p.check(DID, ['voter'], proof(['voter'], NOW - PROOF_MAX_AGE_MS - 1), true, NOW))).toEqual({
      code: 'did_proof_stale',
      field: 'proof.challenge',
      status: 400,
    });
    expect(refusal(() => p.check(DID, ['voter'], proof(['voter'], NOW + PROOF_MAX_SKEW_MS + 1), true, NOW))).toEqual({
      code: 'did_proof_stale',
      field: 'proof.challenge',
      status: 400,
    });
  });

  it('each challenge once; a used one is forgotten only after it would be stale anyway', () => {
    const p = new DidProofs();
    const good = proof(['member'], NOW);
    p.check(DID, ['member'], good, false, NOW);
    expect(refusal(() => p.check(DID, ['member'], good, false, NOW + 1000)).code).toBe('did_proof_stale');
    expect(refusal(() => p.check(DID, ['member'], good, false, NOW + PROOF_MAX_AGE_MS + 1)).code).toBe(
      'did_proof_stale',
    );
  });

  it('refuses other roles, another DID, a bad signature, a DID without a key', () => {
    const p = new DidProofs();
    const good = proof(['voter'], NOW);
    expect(refusal(() => p.check(DID, ['voter', 'admin'], good, false, NOW))).toEqual({
      code: 'did_proof_invalid',
      field: 'proof.challenge',
      status: 400,
    });
    const other = keyProofChallenge('did:example:bob', ['voter'], NOW);
    expect(refusal(() => p.check(DID, ['voter'], { challenge: other, signature: sign(other) }, false, NOW))).toEqual({
      code: 'did_proof_invalid',
      field: 'proof.challenge',
      status: 400,
    });
    const flipped = Buffer.from(good.signature, 'base64url');
    flipped[0]! ^= 1;
    expect(
      refusal(() => p.check(DID, ['voter'], { ...good, signature: flipped.toString('base64url') }, false, NOW)),
    ).toEqual({ code: 'did_proof_invalid', field: 'proof.signature', status: 400 });
    expect(refusal(() => p.check(DID, ['voter'], { ...good, signature: 'not base64!' }, false, NOW))).toEqual({
      code: 'did_proof_invalid',
      field: 'proof.signature',
      status: 400,
    });
    expect(refusal(() => p.check('did:example:alice', ['voter'], good, false, NOW))).toEqual({
      code: 'did_proof_invalid',
      field: 'did',
      status: 400,
    });
    // after all the refusals, the good proof is still unused
    p.check(DID, ['voter'], good, true, NOW);
  });
});
