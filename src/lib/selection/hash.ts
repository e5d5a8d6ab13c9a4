/**
 * The hashing of "cookstove-sampling/v1" (sampling.md, "Verifiable random
 * selection"): frameHash over the IDs sorted by UTF-8 bytes, the seed, and the
 * per-household ticket HMAC-SHA256(seed, stratum + U+001F + id).
 * SHA-256 and HMAC-SHA256 are node:crypto's, through src/lib/hash.ts.
 */

export const ALGORITHM = 'cookstove-sampling/v1';
export const UNIT_SEPARATOR = '\u001f';

export { TRIM_CHARS, trimId, stratumKey } from '../sampling/names.ts';
// one canonical JSON, one sha256 and one UTF-8 order for the package (src/lib/hash.ts)
export { canonicalJson, compareUtf8, sha256Hex } from '../hash.ts';
import { compareUtf8, createSha256, hmacSha256 } from '../hash.ts';

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

/**
 * A keyed ticket function for one seed: HMAC-SHA256(seed, UTF-8(stratum + U+001F + id)) (RFC 2104), through
 * node:crypto's HMAC (src/lib/hash.ts). The ticket is written into a caller's buffer, so a draw keeps one
 * 32-byte slot per household.
 */
export class Ticketer {
  private readonly key: Buffer;

  constructor(seedHex: string) {
    this.key = Buffer.from(seedHex, 'hex');
  }

  /** Writes the 32-byte ticket of (stratum, id) into out at offset. */
  into(stratum: string, id: string, out: Uint8Array, offset: number): void {
    out.set(hmacSha256(this.key, stratum + UNIT_SEPARATOR + id), offset);
  }

  /** The same with the stratum given as the UTF-8 bytes of stratum + U+001F (no string built per ID). */
  intoPrefixed(prefix: Uint8Array, id: string, out: Uint8Array, offset: number): void {
    out.set(hmacSha256(this.key, prefix, id), offset);
  }

  /** Writes the ticket of an already encoded message (UTF-8 of stratum + U+001F + id). */
  intoBytes(msg: Uint8Array, out: Uint8Array, offset: number): void {
    out.set(hmacSha256(this.key, msg), offset);
  }

  /** The ticket as lowercase hex. */
  hex(stratum: string, id: string): string {
    return hmacSha256(this.key, stratum + UNIT_SEPARATOR + id).toString('hex');
  }
}

/** ticket(id) as lowercase hex (convenience for tests and single lookups). */
export function ticket(seedHex: string, stratum: string, id: string): string {
  return new Ticketer(seedHex).hex(stratum, id);
}
