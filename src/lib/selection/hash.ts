/**
 * The hashing of "cookstove-sampling/v1" (sampling.md, "Verifiable random
 * selection"): frameHash over the IDs sorted by UTF-8 bytes, the seed, and the
 * per-household ticket HMAC-SHA256(seed, stratum + U+001F + id).
 *
 * Tickets are the hot path (one HMAC per household): HMAC is computed with
 * @noble/hashes' SHA-256 from precomputed inner/outer pad states (RFC 2104),
 * which costs two compressions per short ID instead of a fresh HMAC object;
 * unit tests pin it to node:crypto's createHmac.
 */
import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';

export const ALGORITHM = 'cookstove-sampling/v1';
export const UNIT_SEPARATOR = '\u001f';

/**
 * What "trimmed" removes from both ends of a household ID, a frame's stratum
 * value and a header name: exactly these 25 characters — ECMAScript's
 * WhiteSpace and LineTerminator (U+0009–U+000D, U+0020, U+00A0, U+1680,
 * U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), listed so
 * that every implementation strips the same set. Python's str.strip() differs
 * (it also strips U+001C–U+001F and U+0085 and keeps U+FEFF): use
 * s.strip(TRIM_CHARS). Nothing else is normalised (no Unicode normalisation).
 */
export const TRIM_CHARS = '\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
const TRIM_SET = new Set([...TRIM_CHARS].map((c) => c.charCodeAt(0)));

/** Removes TRIM_CHARS from both ends (no other normalisation). */
export function trimId(s: string): string {
  const n = s.length;
  if (n === 0) return s;
  const a = s.charCodeAt(0);
  const z = s.charCodeAt(n - 1);
  if (a > 0x20 && a < 0x7f && z > 0x20 && z < 0x7f) return s;
  let i = 0;
  let j = n;
  while (i < j && TRIM_SET.has(s.charCodeAt(i))) i++;
  while (j > i && TRIM_SET.has(s.charCodeAt(j - 1))) j--;
  return i === 0 && j === n ? s : s.slice(i, j);
}

/**
 * How a frame's stratum value is matched to the design's stratum names:
 * trimmed (TRIM_CHARS), then ASCII letters A–Z compared case-insensitively;
 * every other character must be identical (no Unicode case folding or
 * normalisation: "straße" ≠ "STRASSE", "É" ≠ "é"). In Python:
 * s.strip(TRIM_CHARS).encode("utf-8").lower() — bytes.lower() touches ASCII only.
 */
export function stratumKey(s: string): string {
  return trimId(s).replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

const encoder = new TextEncoder();

/** Is there any UTF-16 unit where code-unit order and UTF-8 byte order can disagree? */
const NEEDS_CODEPOINT_ORDER = /[\ud800-\uffff]/;

/** Compares two strings by their UTF-8 bytes (= Unicode code point order). */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * Sorts strings by UTF-8 bytes, in place. JavaScript's default order is by
 * UTF-16 code unit, which agrees with UTF-8 byte order unless a string holds a
 * surrogate pair or a character in U+E000..U+FFFF; only then the slower
 * code-point comparator is used.
 */
export function sortUtf8(ids: string[]): string[] {
  let special = false;
  for (const s of ids) if (NEEDS_CODEPOINT_ORDER.test(s)) { special = true; break; }
  return special ? ids.sort(compareUtf8) : ids.sort();
}

/** SHA-256 of the given IDs (already sorted), each followed by "\n", as hex. */
export function hashSortedIds(sorted: readonly string[]): string {
  const h = createHash('sha256');
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
  return createHash('sha256')
    .update(ALGORITHM, 'utf8')
    .update(Buffer.from(frameHashHex, 'hex'))
    .update(Buffer.from(randomnessHex, 'hex'))
    .digest('hex');
}

/** A keyed ticket function for one seed: HMAC-SHA256(seed, UTF-8(stratum + U+001F + id)). */
export class Ticketer {
  private readonly inner: ReturnType<typeof sha256.create>;
  private readonly outer: ReturnType<typeof sha256.create>;
  private readonly ih = sha256.create();
  private readonly oh = sha256.create();
  private readonly mid = new Uint8Array(32);
  private msg = new Uint8Array(1024);

  constructor(seedHex: string) {
    let key = Uint8Array.from(Buffer.from(seedHex, 'hex'));
    if (key.length > 64) key = sha256(key);
    const ipad = new Uint8Array(64).fill(0x36);
    const opad = new Uint8Array(64).fill(0x5c);
    for (let i = 0; i < key.length; i++) {
      ipad[i]! ^= key[i]!;
      opad[i]! ^= key[i]!;
    }
    this.inner = sha256.create().update(ipad);
    this.outer = sha256.create().update(opad);
  }

  /** Writes the 32-byte ticket of (stratum, id) into out at offset. */
  into(stratum: string, id: string, out: Uint8Array, offset: number): void {
    const text = stratum + UNIT_SEPARATOR + id;
    if (text.length * 3 > this.msg.length) this.msg = new Uint8Array(text.length * 3);
    const { written } = encoder.encodeInto(text, this.msg);
    this.inner._cloneInto(this.ih);
    this.ih.update(this.msg.subarray(0, written));
    this.ih.digestInto(this.mid);
    this.outer._cloneInto(this.oh);
    this.oh.update(this.mid);
    this.oh.digestInto(out.subarray(offset, offset + 32));
  }

  /** Writes the ticket of an already encoded message (UTF-8 of stratum + U+001F + id). */
  intoBytes(msg: Uint8Array, out: Uint8Array, offset: number): void {
    this.inner._cloneInto(this.ih);
    this.ih.update(msg);
    this.ih.digestInto(this.mid);
    this.outer._cloneInto(this.oh);
    this.oh.update(this.mid);
    this.oh.digestInto(out.subarray(offset, offset + 32));
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

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The canonical JSON hashed for designId and commitmentDigest: no
 * whitespace; object keys sorted by code point (= UTF-8 byte order; Python's
 * sort_keys=True), members whose value is undefined left out; strings as
 * JSON.stringify writes them (non-ASCII as UTF-8, only `"`, `\` and U+0000–
 * U+001F escaped: \b \t \n \f \r, else \u00xx lowercase); numbers as
 * ECMAScript Number::toString (shortest round-trip digits; integers without
 * ".0"; exponent form only below 1e-6 or from 1e21, as "1e-7", "1e+21"); a
 * non-finite number as null. docs/selection.md gives the Python equivalent.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort(compareUtf8);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}
