import { describe, expect, it } from 'vitest';
import {
  firstRoundAfter,
  PINNED_CHAINS,
  parseBeaconRound,
  parseChainInfo,
  pinnedChainName,
  roundTime,
  untrustedChainReason,
  verifyBeaconRound,
} from '../../../../src/lib/beacon/drand.ts';
import { DEFAULT_ROUNDS, QUICKNET_ROUNDS } from '../../../helpers/real-rounds.ts';
import { fakeChain } from './fake-drand.ts';

// Real published League of Entropy rounds (as quoted in the drand-verify / python-drand-verify README).
const REAL_QUICKNET = {
  round: 657413,
  signature: 'b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b',
  randomness: 'fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587',
};
const REAL_DEFAULT = {
  round: 3311596,
  previous_signature:
    '8ed588f2a7716fb1349e2d9803da5db0005e98a83783c353d4a08f183236a9ad91d70ddb01266f4b7c576983db464b430e65680b9e0098552758afd6c1e6afcb77e3f62fe1b93d42d1cb63abbb2205512fe12fbf74ea9c5ac3b8f5c1e283a1d8',
  signature:
    'a696b9409ababce45749c3a4ec369074453dd4a79967734e1390d969c8ad8d98897d217b9121e92c8ddebbddda8d92f900e3bd6bf9deb166863b1a19390d743f82774001487594c5c09e581db7365f02b70a2c8cc41ce32446ef08e4890c4754',
  randomness: '647c07b2abbf7ff2afb4d670214f565e5cd9f9c91bfdcecb59a21f3c78d73920',
};

describe('pinned public chains', () => {
  it('every real round in test/fixtures/drand-rounds.json verifies against the pinned quicknet / default key', async () => {
    expect(QUICKNET_ROUNDS.length + DEFAULT_ROUNDS.length).toBeGreaterThanOrEqual(6);
    for (const r of QUICKNET_ROUNDS)
      await expect(
        verifyBeaconRound(PINNED_CHAINS.quicknet, parseBeaconRound(r, PINNED_CHAINS.quicknet), r.round),
        `quicknet ${r.round}`,
      ).resolves.toBeUndefined();
    for (const r of DEFAULT_ROUNDS)
      await expect(
        verifyBeaconRound(PINNED_CHAINS.default, parseBeaconRound(r, PINNED_CHAINS.default), r.round),
        `default ${r.round}`,
      ).resolves.toBeUndefined();
    // and not against the other chain's key
    const q = QUICKNET_ROUNDS[0]!;
    await expect(
      verifyBeaconRound({ ...PINNED_CHAINS.quicknet, public_key: fakeChain().info.public_key }, q, q.round),
    ).rejects.toMatchObject({ code: 'invalid_beacon_signature' });
  });

  it("the pinned chain info is drand's published /info (hash, key, genesis, period, scheme)", () => {
    expect(PINNED_CHAINS.quicknet).toMatchObject({
      hash: '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971',
      genesis_time: 1692803367,
      period: 3,
      schemeID: 'bls-unchained-g1-rfc9380',
    });
    expect(PINNED_CHAINS.default).toMatchObject({
      hash: '8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce',
      genesis_time: 1595431050,
      period: 30,
      schemeID: 'pedersen-bls-chained',
    });
    expect(PINNED_CHAINS.quicknet.public_key).toMatch(
      /^83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c/,
    );
    expect(PINNED_CHAINS.default.public_key).toBe(
      '868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a9402801af31',
    );
  });

  it('a chain is trusted only if it is a pinned chain in every parameter; a key of our own is not', () => {
    expect(pinnedChainName(structuredClone(PINNED_CHAINS.quicknet) as never)).toBe('quicknet');
    expect(untrustedChainReason(structuredClone(PINNED_CHAINS.default) as never)).toBeUndefined();
    const own = fakeChain();
    expect(pinnedChainName(own.info)).toBeUndefined();
    expect(untrustedChainReason(own.info)).toMatch(
      /is not one of the pinned public drand chains \(quicknet 52db9ba70e0c…, default 8990e7a9aaed…\): whoever holds that chain's key can sign any round/,
    );
    expect(untrustedChainReason({ ...PINNED_CHAINS.quicknet, public_key: own.info.public_key })).toMatch(
      /claims the hash of drand's quicknet chain but its public key/,
    );
    expect(untrustedChainReason({ ...PINNED_CHAINS.quicknet, genesis_time: 1 })).toBeDefined();
  });
});

describe('drand rounds', () => {
  it('verifies a real quicknet round and a real default-mainnet (chained) round', async () => {
    await expect(
      verifyBeaconRound(PINNED_CHAINS.quicknet, parseBeaconRound(REAL_QUICKNET, PINNED_CHAINS.quicknet), 657413),
    ).resolves.toBeUndefined();
    await expect(
      verifyBeaconRound(PINNED_CHAINS.default, parseBeaconRound(REAL_DEFAULT, PINNED_CHAINS.default), 3311596),
    ).resolves.toBeUndefined();
  });

  it('rejects the real quicknet signature presented as another round', async () => {
    await expect(
      verifyBeaconRound(PINNED_CHAINS.quicknet, { ...REAL_QUICKNET, round: 657414 }, 657414),
    ).rejects.toMatchObject({ code: 'invalid_beacon_signature' });
  });

  for (const scheme of ['bls-unchained-g1-rfc9380', 'pedersen-bls-chained'] as const) {
    it(`${scheme}: a round signed by our own key verifies; a forged one, a wrong round and bad randomness do not`, async () => {
      const chain = fakeChain({ scheme });
      const good = chain.sign(42);
      await verifyBeaconRound(chain.info, good, 42);
      const forged = fakeChain({ scheme, seed: 99 }).sign(42);
      await expect(
        verifyBeaconRound(chain.info, { ...forged, previous_signature: good.previous_signature }, 42),
      ).rejects.toMatchObject({ code: 'invalid_beacon_signature', field: 'beacon.signature' });
      await expect(verifyBeaconRound(chain.info, good, 43)).rejects.toMatchObject({ code: 'beacon_round_mismatch' });
      await expect(verifyBeaconRound(chain.info, { ...good, randomness: '00'.repeat(32) }, 42)).rejects.toMatchObject({
        code: 'invalid_beacon_signature',
        field: 'beacon.randomness',
      });
    });
  }

  it('round times follow genesis + (round - 1) * period', () => {
    const c = PINNED_CHAINS.quicknet;
    expect(roundTime(c, 1)).toBe(c.genesis_time);
    expect(roundTime(c, 11)).toBe(c.genesis_time + 30);
    expect(firstRoundAfter(c, c.genesis_time)).toBe(2);
    expect(firstRoundAfter(c, c.genesis_time + 1)).toBe(2);
    expect(firstRoundAfter(c, c.genesis_time + 3)).toBe(3);
    expect(firstRoundAfter(c, c.genesis_time - 100)).toBe(1);
    for (let t = c.genesis_time; t < c.genesis_time + 20; t++) {
      const r = firstRoundAfter(c, t);
      expect(roundTime(c, r)).toBeGreaterThan(t);
      expect(roundTime(c, r - 1)).toBeLessThanOrEqual(t);
    }
  });

  it('chain info: validated, and a known chain hash with another key is refused', () => {
    expect(parseChainInfo({ ...PINNED_CHAINS.quicknet })).toEqual(PINNED_CHAINS.quicknet);
    expect(() => parseChainInfo({ ...PINNED_CHAINS.quicknet, public_key: fakeChain().info.public_key })).toThrow(
      expect.objectContaining({ code: 'chain_mismatch' }),
    );
    expect(() => parseChainInfo({ ...PINNED_CHAINS.quicknet, schemeID: 'bls-bn254-unchained-on-g1' })).toThrow(
      expect.objectContaining({ code: 'invalid_chain_info', field: 'chain.schemeID' }),
    );
    expect(() => parseBeaconRound({ round: 1, randomness: 'zz', signature: 'aa' }, PINNED_CHAINS.quicknet)).toThrow(
      expect.objectContaining({ field: 'beacon.randomness' }),
    );
    expect(() =>
      parseBeaconRound({ round: 5, randomness: 'ab'.repeat(32), signature: 'aa' }, PINNED_CHAINS.default),
    ).toThrow(expect.objectContaining({ field: 'beacon.previous_signature' }));
  });
});
