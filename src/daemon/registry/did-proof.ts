/**
 * The optional DID proof at key creation (registry.md, "DID proof at key
 * creation"; the message and the signature: src/lib/registry/key-proof.ts).
 * An API key carries no proof of its DID: an admin can mint a voter key and
 * vote in that voter's name. A deployment that wants more sets
 * `requireDidProof: true` in daemon.json; then POST /admin/v1/keys needs
 * `proof: {challenge, signature}` signed by the DID's key. Without the switch
 * a proof is optional, and checked when given.
 *
 * A challenge is fresh from 5 minutes before to 1 minute after the daemon's
 * clock, and each is accepted once in this process (a replay within the
 * window is refused as stale; after it, the time refuses it).
 */
import { fieldError, registryError } from '../../lib/registry/errors.ts';
import {
  canProve,
  decodeSignature,
  keyProofChallenge,
  parseKeyProofChallenge,
  verifyKeyProof,
  type KeyProof,
} from '../../lib/registry/key-proof.ts';

/** How old a challenge may be, and how far ahead of the daemon's clock. */
export const PROOF_MAX_AGE_MS = 5 * 60_000;
export const PROOF_MAX_SKEW_MS = 60_000;

export class DidProofs {
  /** Challenges accepted in the window, → their expiry. */
  private readonly used = new Map<string, number>();

  /**
   * Throws unless `proof` is the DID's signature over a fresh challenge for these roles; `required`: no proof is an
   * error.
   */
  check(did: string, roles: readonly string[], proof: KeyProof | undefined, required: boolean, now: number): void {
    if (!proof) {
      if (required)
        throw registryError(
          'did_proof_required',
          `this registry requires a DID proof to create a key: sign "${keyProofChallenge(did, roles, now)}" with ` +
            `the key of ${did} and send proof: {challenge, signature}`,
          { field: 'proof', valid: 'proof: {challenge, signature} (registry.md, "DID proof at key creation")' },
        );
      return;
    }
    if (!canProve(did))
      throw fieldError(
        'did_proof_invalid',
        'did',
        did,
        'a did:key (ed25519, secp256k1 or P-256) to prove a key; other DIDs carry no key',
        { message: `${did} cannot make a DID proof: only a did:key carries its public key` },
      );
    const c = parseKeyProofChallenge(proof.challenge);
    if (!c)
      throw fieldError(
        'did_proof_invalid',
        'proof.challenge',
        proof.challenge,
        '"oraclekit-api-key <did> <roles, sorted, comma-separated> <time as toISOString: 2026-01-01T00:00:00.000Z>"',
      );
    const want = keyProofChallenge(did, roles, c.issuedAt);
    if (c.did !== did)
      throw fieldError('did_proof_invalid', 'proof.challenge', proof.challenge, `a challenge for ${did}`, {
        message: `the challenge names ${c.did}, not the key's DID ${did}`,
      });
    if (proof.challenge !== want)
      throw fieldError('did_proof_invalid', 'proof.challenge', proof.challenge, want, {
        message: `the challenge names roles ${c.roles}, not the key's roles; expected "${want}"`,
      });
    const age = now - c.issuedAt;
    if (age > PROOF_MAX_AGE_MS || age < -PROOF_MAX_SKEW_MS) {
      throw fieldError(
        'did_proof_stale',
        'proof.challenge',
        proof.challenge,
        `issued within ${PROOF_MAX_AGE_MS / 60_000} minutes before the registry's clock ` +
          `(${new Date(now).toISOString()})`,
        {
          message:
            `the challenge was issued at ${new Date(c.issuedAt).toISOString()}, ${Math.round(age / 1000)} s ` +
            `from the registry's clock; sign a new one`,
        },
      );
    }
    const sig = decodeSignature(proof.signature);
    if (!sig)
      throw fieldError('did_proof_invalid', 'proof.signature', proof.signature, '64 bytes, base64url or base64');
    if (!verifyKeyProof(did, proof.challenge, sig))
      throw fieldError(
        'did_proof_invalid',
        'proof.signature',
        proof.signature,
        `a signature by the key of ${did} over the challenge`,
        { message: `the signature does not verify against ${did}` },
      );
    for (const [k, exp] of this.used) if (exp <= now) this.used.delete(k);
    if (this.used.has(proof.challenge))
      throw fieldError('did_proof_stale', 'proof.challenge', proof.challenge, 'a challenge not used before', {
        message: 'this challenge was already used to create a key; sign a new one',
      });
    this.used.set(proof.challenge, c.issuedAt + PROOF_MAX_AGE_MS + 1);
  }
}
