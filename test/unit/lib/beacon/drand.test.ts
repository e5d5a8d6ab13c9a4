import { describe, expect, it } from 'vitest';
import { firstRoundAfter, KNOWN_CHAINS, parseBeaconRound, parseChainInfo, roundTime, verifyBeaconRound } from '../../../../src/lib/beacon/drand.ts';
import { fakeChain } from './fake-drand.ts';

// Real published League of Entropy rounds (as quoted in the drand-verify / python-drand-verify README).
const REAL_QUICKNET = {
  round: 657413,
  signature: 'b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b',
  randomness: 'fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587',
};
const REAL_DEFAULT = {
  round: 3311596,
  previous_signature: '8ed588f2a7716fb1349e2d9803da5db0005e98a83783c353d4a08f183236a9ad91d70ddb01266f4b7c576983db464b430e65680b9e0098552758afd6c1e6afcb77e3f62fe1b93d42d1cb63abbb2205512fe12fbf74ea9c5ac3b8f5c1e283a1d8',
  signature: 'a696b9409ababce45749c3a4ec369074453dd4a79967734e1390d969c8ad8d98897d217b9121e92c8ddebbddda8d92f900e3bd6bf9deb166863b1a19390d743f82774001487594c5c09e581db7365f02b70a2c8cc41ce32446ef08e4890c4754',
  randomness: '647c07b2abbf7ff2afb4d670214f565e5cd9f9c91bfdcecb59a21f3c78d73920',
};

describe('drand rounds', () => {
  it('verifies a real quicknet round and a real default-mainnet (chained) round', async () => {
    await expect(verifyBeaconRound(KNOWN_CHAINS.quicknet, parseBeaconRound(REAL_QUICKNET, KNOWN_CHAINS.quicknet), 657413)).resolves.toBeUndefined();
    await expect(verifyBeaconRound(KNOWN_CHAINS.default, parseBeaconRound(REAL_DEFAULT, KNOWN_CHAINS.default), 3311596)).resolves.toBeUndefined();
  });

  it('rejects the real quicknet signature presented as another round', async () => {
    await expect(verifyBeaconRound(KNOWN_CHAINS.quicknet, { ...REAL_QUICKNET, round: 657414 }, 657414)).rejects.toMatchObject({ code: 'invalid_beacon_signature' });
  });

  for (const scheme of ['bls-unchained-g1-rfc9380', 'pedersen-bls-chained'] as const) {
    it(`${scheme}: a round signed by our own key verifies; a forged one, a wrong round and bad randomness do not`, async () => {
      const chain = fakeChain({ scheme });
      const good = chain.sign(42);
      await verifyBeaconRound(chain.info, good, 42);
      const forged = fakeChain({ scheme, seed: 99 }).sign(42);
      await expect(verifyBeaconRound(chain.info, { ...forged, previous_signature: good.previous_signature }, 42)).rejects.toMatchObject({ code: 'invalid_beacon_signature', field: 'beacon.signature' });
      await expect(verifyBeaconRound(chain.info, good, 43)).rejects.toMatchObject({ code: 'beacon_round_mismatch' });
      await expect(verifyBeaconRound(chain.info, { ...good, randomness: '00'.repeat(32) }, 42)).rejects.toMatchObject({ code: 'invalid_beacon_signature', field: 'beacon.randomness' });
    });
  }

  it('round times follow genesis + (round - 1) * period', () => {
    const c = KNOWN_CHAINS.quicknet;
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
    expect(parseChainInfo({ ...KNOWN_CHAINS.quicknet })).toEqual(KNOWN_CHAINS.quicknet);
    expect(() => parseChainInfo({ ...KNOWN_CHAINS.quicknet, public_key: fakeChain().info.public_key })).toThrow(expect.objectContaining({ code: 'chain_mismatch' }));
    expect(() => parseChainInfo({ ...KNOWN_CHAINS.quicknet, schemeID: 'bls-bn254-unchained-on-g1' })).toThrow(expect.objectContaining({ code: 'invalid_chain_info', field: 'chain.schemeID' }));
    expect(() => parseBeaconRound({ round: 1, randomness: 'zz', signature: 'aa' }, KNOWN_CHAINS.quicknet)).toThrow(expect.objectContaining({ field: 'beacon.randomness' }));
    expect(() => parseBeaconRound({ round: 5, randomness: 'ab'.repeat(32), signature: 'aa' }, KNOWN_CHAINS.default)).toThrow(expect.objectContaining({ field: 'beacon.previous_signature' }));
  });
});
