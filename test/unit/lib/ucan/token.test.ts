/**
 * The client's hand-written tokens are byte for byte ucanto's: the same signer, fields and nonce give the same
 * base64 CAR as `invoke(…).delegate()` / `delegate(…)` then `Delegation.archive` of @ucanto/core, and the
 * runtime's decoder reads them back.
 */
import { describe, expect, it } from 'vitest';
import { delegate, invoke, Delegation } from '@ucanto/core';
import type * as API from '@ucanto/interface';
import { generateSigner } from '../../../../src/lib/keys/keys.ts';
import { mintToken } from '../../../../src/lib/ucan/token.ts';
import { decodeToken } from '../../../../src/lib/ucan/ucan.ts';

const audienceOf = (did: string): API.Principal => ({ did: () => did as API.DID });
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function ucanto(o: {
  issuer: API.Signer;
  audience: string;
  can: string;
  with: string;
  expiration: number;
  notBefore?: number;
  nonce?: string;
  invocation: boolean;
}): Promise<string> {
  const common = {
    issuer: o.issuer,
    audience: audienceOf(o.audience),
    expiration: o.expiration,
    notBefore: o.notBefore,
    nonce: o.nonce,
    proofs: [],
  };
  const capability = { can: o.can as API.Ability, with: o.with as API.URI };
  const d = o.invocation
    ? await invoke({ ...common, capability }).delegate()
    : await delegate({ ...common, capabilities: [capability] });
  const r = await Delegation.archive(d);
  if (r.error) throw r.error;
  return b64(r.ok);
}

describe('mintToken', () => {
  const audiences = [
    'did:ixo:entity:0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
  ];
  for (const audience of audiences) {
    it(`writes the bytes of ucanto's invocation and delegation (audience ${audience.slice(0, 12)}…)`, async () => {
      const issuer = await generateSigner();
      const cases = [
        { can: 'oracle/use', with: audience, expiration: 1_900_000_000, nonce: crypto.randomUUID(), invocation: true },
        { can: '*', with: issuer.did(), expiration: 1_800_003_600, nonce: crypto.randomUUID(), invocation: false },
        // the optionals: not before, a small expiry, no nonce, an empty nonce
        { can: '*', with: issuer.did(), expiration: 100, notBefore: 50, invocation: false },
        { can: 'oracle/use', with: audience, expiration: 2 ** 33, nonce: '', invocation: true },
      ];
      for (const c of cases) {
        const expected = await ucanto({ issuer, audience, ...c });
        const token = await mintToken({
          issuer,
          audience,
          capabilities: [{ can: c.can, with: c.with }],
          expiration: c.expiration,
          notBefore: c.notBefore,
          nonce: c.nonce,
        });
        expect(token).toBe(expected);
        const view = await decodeToken(token);
        expect(view.issuer.did()).toBe(issuer.did());
        expect(view.audience.did()).toBe(audience);
        expect(view.capabilities).toEqual([{ can: c.can, with: c.with }]);
      }
    });
  }
});
