import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p256 } from '@noble/curves/nist.js';
import { base58Decode, base58Encode, checkDid, didKeyFromEd25519, DID_SYNTAX } from '../../../../src/lib/did/did.ts';

const didKey = (prefix: number[], key: Uint8Array) => 'did:key:z' + base58Encode(Uint8Array.from([...prefix, ...key]));

describe('DID syntax', () => {
  it.each([
    'did:example:123',
    'did:web:example.com',
    'did:web:example.com:user:alice',
    'did:example:a%20b',
    'did:ixo:entity:0123456789abcdef0123456789abcdef',
    'did:ixo:abc', // other ixo ids are not entities
    'did:example:' + 'a'.repeat(244), // exactly 256
  ])('accepts %s', (d) => expect(checkDid(d)).toEqual({ ok: true }));

  it.each([
    ['did:example:abc:', 'syntax'],
    ['did:example:abc/path', 'syntax'],
    ['did:example:abc%2', 'syntax'],
    ['did:example:abc%g0', 'syntax'],
    ['did:Example:abc', 'syntax'],
    ['DID:example:abc', 'syntax'],
    ['did:example:', 'syntax'],
    ['did:example', 'syntax'],
    ['did:ex-ample:abc', 'syntax'],
    ['did:example:abc\n', 'syntax'],
    ['did:example:ab c', 'syntax'],
    ['did:example:' + 'a'.repeat(245), 'too_long'],
    ['did:ixo:entity:0123456789abcdef0123456789abcdef00', 'ixo_entity'],
    ['did:ixo:entity:0123456789abcdef0123456789abcdeF', 'ixo_entity'],
    ['did:ixo:entity:0123', 'ixo_entity'],
    ['did:ixo:entity:0123456789abcdef0123456789abcdef:x', 'ixo_entity'],
  ])('refuses %j (%s)', (d, problem) => expect(checkDid(d).problem).toBe(problem));

  it('refuses non-strings', () => {
    for (const v of [undefined, null, 1, {}, ['did:example:a']]) expect(checkDid(v).ok).toBe(false);
  });

  it('the anchored regex never matches a string with a character outside the grammar', () => {
    fc.assert(
      fc.property(fc.string(), (tail) => {
        const d = 'did:example:' + tail;
        const allowed = /^(?:[A-Za-z0-9._:-]|%[0-9A-Fa-f]{2})*$/.test(tail) && tail !== '' && !tail.endsWith(':');
        expect(DID_SYNTAX.test(d)).toBe(allowed);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('did:key', () => {
  it('accepts real ed25519, secp256k1 and p256 keys', () => {
    const ed = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
    expect(checkDid(didKeyFromEd25519(ed))).toEqual({ ok: true });
    expect(checkDid(didKey([0xe7, 0x01], secp256k1.getPublicKey(secp256k1.utils.randomSecretKey())))).toEqual({
      ok: true,
    });
    expect(checkDid(didKey([0x80, 0x24], p256.getPublicKey(p256.utils.randomSecretKey())))).toEqual({ ok: true });
    // the did:key spec's own test vector
    expect(checkDid('did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp')).toEqual({ ok: true });
  });
  it('refuses bad multibase, unknown codecs, wrong lengths, invalid points', () => {
    const ed = ed25519.getPublicKey(ed25519.utils.randomSecretKey());
    expect(checkDid('did:key:' + 'm' + 'abc').problem).toBe('key_multibase');
    expect(checkDid('did:key:z0OIl').problem).toBe('key_multibase');
    expect(checkDid(didKey([0x12, 0x20], ed)).problem).toBe('key_multicodec'); // sha2-256, not a key
    expect(checkDid(didKey([0xed, 0x01], ed.subarray(1))).problem).toBe('key_length');
    expect(checkDid(didKey([0xed, 0x01], Uint8Array.from([...ed, 0]))).problem).toBe('key_length');
    expect(checkDid(didKey([0xed, 0x01], new Uint8Array(32).fill(0xff))).problem).toBe('key_point');
    const bad = new Uint8Array(33).fill(0xff);
    bad[0] = 0x02;
    expect(checkDid(didKey([0xe7, 0x01], bad)).problem).toBe('key_point');
    expect(checkDid(didKey([0x80, 0x24], bad)).problem).toBe('key_point');
  });
  it('base58 round-trips, leading zeros included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(base58Decode(base58Encode(b))).toEqual(b);
      }),
    );
  });
});
