/**
 * A string as one POSIX shell word: as it is when every character is safe unquoted, else in single quotes (an inner
 * quote closes the quoting, is escaped, and reopens it). For the command lines we print for a person to copy, and
 * for a path passed through `sh -c`.
 */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}
