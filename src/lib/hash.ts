/**
 * The package's one SHA-256 and one canonical JSON: the selection's designId
 * and commitment digest, its frame, order and file digests, the registry's
 * idempotency body hash, the chat history's file names.
 */
import { createHash, type Hash } from 'node:crypto';

/** SHA-256 of a string (as UTF-8) or bytes, as hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createSha256().update(data).digest('hex');
}

/** An incremental SHA-256 (`update` as the data comes, then `digest`): for what is hashed while it streams. */
export function createSha256(): Hash {
  return createHash('sha256');
}

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
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort(compareUtf8);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}
