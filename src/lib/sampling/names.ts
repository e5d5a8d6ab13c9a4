/**
 * Names as the sampling and selection areas compare them: what "trimmed" means, and the one rule
 * by which a stratum value read from a file (a frame's stratum column, an observations CSV, a
 * stratum named on the command line) matches a design's stratum name.
 */

/**
 * What "trimmed" removes from both ends of a household ID, a frame's stratum
 * value and a header name: exactly these 25 characters — ECMAScript's
 * WhiteSpace and LineTerminator (U+0009–U+000D, U+0020, U+00A0, U+1680,
 * U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), listed so
 * that every implementation strips the same set. Python's str.strip() differs
 * (it also strips U+001C–U+001F and U+0085 and keeps U+FEFF): use
 * s.strip(TRIM_CHARS). Nothing else is normalised (no Unicode normalisation).
 */
export const TRIM_CHARS =
  '\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
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
