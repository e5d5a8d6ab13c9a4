/**
 * The hashing of "cookstove-sampling/v1" (sampling.md, "Verifiable random
 * selection"): frameHash over the IDs sorted by UTF-8 bytes, the seed, and the
 * per-household ticket HMAC-SHA256(seed, stratum + U+001F + id).
 *
 * Tickets are the hot path (one HMAC per household): Ticketer computes
 * HMAC-SHA256 from precomputed inner/outer pad states (RFC 2104) with a
 * SHA-256 compression written for it — two compressions per short ID, no
 * allocation; unit tests pin it to node:crypto's createHmac.
 */

export const ALGORITHM = 'cookstove-sampling/v1';
export const UNIT_SEPARATOR = '\u001f';

export { TRIM_CHARS, trimId, stratumKey } from '../sampling/names.ts';
// one canonical JSON, one sha256 and one UTF-8 order for the package (src/lib/hash.ts)
export { canonicalJson, compareUtf8, sha256Hex } from '../hash.ts';
import { compareUtf8, createSha256 } from '../hash.ts';

const encoder = new TextEncoder();

/** Is there any UTF-16 unit where code-unit order and UTF-8 byte order can disagree? */
const NEEDS_CODEPOINT_ORDER = /[\ud800-\uffff]/;

/**
 * Sorts strings by UTF-8 bytes, in place. JavaScript's default order is by
 * UTF-16 code unit, which agrees with UTF-8 byte order unless a string holds a
 * surrogate pair or a character in U+E000..U+FFFF; only then the slower
 * code-point comparator is used.
 */
export function sortUtf8(ids: string[]): string[] {
  return needsCodePointOrder(ids) ? ids.sort(compareUtf8) : ids.sort();
}

/** Does any string hold a character where UTF-16 code-unit order and UTF-8 byte order can disagree? */
export function needsCodePointOrder(ids: readonly string[]): boolean {
  for (const s of ids) if (NEEDS_CODEPOINT_ORDER.test(s)) return true;
  return false;
}

/** SHA-256 of the given IDs (already sorted), each followed by "\n", as hex. */
export function hashSortedIds(sorted: readonly string[]): string {
  const h = createSha256();
  const BATCH = 8192;
  for (let i = 0; i < sorted.length; i += BATCH) {
    h.update(sorted.slice(i, i + BATCH).join('\n') + '\n', 'utf8');
  }
  return h.digest('hex');
}

/** frameHash = SHA-256 of the IDs sorted by UTF-8 bytes, each followed by "\n" (does not modify ids). */
export function frameHash(ids: readonly string[]): string {
  return hashSortedIds(sortUtf8([...ids]));
}

/** seed = SHA-256("cookstove-sampling/v1" || frameHash (32 bytes) || randomness (bytes)), as hex. */
export function computeSeed(frameHashHex: string, randomnessHex: string): string {
  return createSha256()
    .update(ALGORITHM, 'utf8')
    .update(Buffer.from(frameHashHex, 'hex'))
    .update(Buffer.from(randomnessHex, 'hex'))
    .digest('hex');
}

const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const H0 = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** One SHA-256 compression (FIPS 180-4, 6.2.2) of the 16 words in w[0..15] into state s. */
function compress(s: Int32Array, w: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!;
    const y = w[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = s[0]!,
    b = s[1]!,
    c = s[2]!,
    d = s[3]!,
    e = s[4]!,
    f = s[5]!,
    g = s[6]!,
    h = s[7]!;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  s[0] = (s[0]! + a) | 0;
  s[1] = (s[1]! + b) | 0;
  s[2] = (s[2]! + c) | 0;
  s[3] = (s[3]! + d) | 0;
  s[4] = (s[4]! + e) | 0;
  s[5] = (s[5]! + f) | 0;
  s[6] = (s[6]! + g) | 0;
  s[7] = (s[7]! + h) | 0;
}

/**
 * A keyed ticket function for one seed: HMAC-SHA256(seed, UTF-8(stratum +
 * U+001F + id)) (RFC 2104). The hot path of a draw (one HMAC per
 * household), so written for it: the states after the key's inner and outer
 * pad blocks are computed once; a ticket is then the compressions of the
 * message's own block(s) — one for the usual message under 56 bytes — and
 * of the outer block, with no allocation. Tested against node:crypto's
 * createHmac for any text (test/unit/lib/selection/hash.test.ts).
 */
export class Ticketer {
  private readonly iv = new Int32Array(8);
  private readonly ov = new Int32Array(8);
  private readonly st = new Int32Array(8);
  private readonly w = new Int32Array(64);
  private pad = Buffer.alloc(1024);

  constructor(seedHex: string) {
    let key = Uint8Array.from(Buffer.from(seedHex, 'hex'));
    if (key.length > 64) key = createSha256().update(key).digest();
    const block = (fill: number): void => {
      for (let j = 0; j < 16; j++) {
        let v = 0;
        for (let b = 0; b < 4; b++) v = (v << 8) | ((key[4 * j + b] ?? 0) ^ fill);
        this.w[j] = v;
      }
    };
    this.iv.set(H0);
    block(0x36);
    compress(this.iv, this.w);
    this.ov.set(H0);
    block(0x5c);
    compress(this.ov, this.w);
  }

  /** Writes the 32-byte ticket of (stratum, id) into out at offset. */
  into(stratum: string, id: string, out: Uint8Array, offset: number): void {
    const text = stratum + UNIT_SEPARATOR + id;
    if (text.length * 3 + 72 > this.pad.length) this.pad = Buffer.alloc(text.length * 3 + 72);
    const { written } = encoder.encodeInto(text, this.pad);
    this.padded(written, out, offset);
  }

  /** The same with the stratum given as the UTF-8 bytes of stratum + U+001F (no string built per ID). */
  intoPrefixed(prefix: Uint8Array, id: string, out: Uint8Array, offset: number): void {
    if (prefix.length + id.length * 3 + 72 > this.pad.length)
      this.pad = Buffer.alloc(prefix.length + id.length * 3 + 72);
    const p = this.pad;
    for (let i = 0; i < prefix.length; i++) p[i] = prefix[i]!;
    this.padded(prefix.length + p.write(id, prefix.length, 'utf8'), out, offset);
  }

  /** Writes the ticket of an already encoded message (UTF-8 of stratum + U+001F + id). */
  intoBytes(msg: Uint8Array, out: Uint8Array, offset: number): void {
    if (msg.length + 72 > this.pad.length) this.pad = Buffer.alloc(msg.length + 72);
    this.pad.set(msg);
    this.padded(msg.length, out, offset);
  }

  /**
   * The message is in pad[0..n): pad it (0x80, zeros, the bit length of ipad block + message), hash, then the outer
   * hash.
   */
  private padded(n: number, out: Uint8Array, offset: number): void {
    const p = this.pad;
    const w = this.w;
    const s = this.st;
    const blocks = (n + 9 + 63) >>> 6;
    const end = blocks * 64;
    p[n] = 0x80;
    for (let i = n + 1; i < end - 4; i++) p[i] = 0;
    const bits = (64 + n) * 8; // < 2^32 for any message this pad can hold
    p[end - 4] = bits >>> 24;
    p[end - 3] = (bits >>> 16) & 0xff;
    p[end - 2] = (bits >>> 8) & 0xff;
    p[end - 1] = bits & 0xff;
    s.set(this.iv);
    for (let o = 0; o < end; o += 64) {
      for (let j = 0; j < 16; j++) {
        const q = o + 4 * j;
        w[j] = (p[q]! << 24) | (p[q + 1]! << 16) | (p[q + 2]! << 8) | p[q + 3]!;
      }
      compress(s, w);
    }
    // outer: opad state, then the inner digest (32 bytes), 0x80, zeros, bit length 768
    for (let j = 0; j < 8; j++) w[j] = s[j]!;
    w[8] = 0x80000000 | 0;
    for (let j = 9; j < 15; j++) w[j] = 0;
    w[15] = 768;
    s.set(this.ov);
    compress(s, w);
    for (let j = 0; j < 8; j++) {
      const v = s[j]!;
      const q = offset + 4 * j;
      out[q] = v >>> 24;
      out[q + 1] = (v >>> 16) & 0xff;
      out[q + 2] = (v >>> 8) & 0xff;
      out[q + 3] = v & 0xff;
    }
  }

  /** The ticket as lowercase hex. */
  hex(stratum: string, id: string): string {
    const out = new Uint8Array(32);
    this.into(stratum, id, out, 0);
    return Buffer.from(out).toString('hex');
  }
}

/** ticket(id) as lowercase hex (convenience for tests and single lookups). */
export function ticket(seedHex: string, stratum: string, id: string): string {
  return new Ticketer(seedHex).hex(stratum, id);
}
