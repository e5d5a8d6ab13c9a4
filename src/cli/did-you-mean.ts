/**
 * "Did you mean …?" for a mistyped command or flag: the nearest names by the
 * optimal-string-alignment distance (edits plus swaps of two neighbours, so
 * `sampel` is one edit from `sample` and `--dropuot` one from `--dropout`).
 * Only close names are offered: at most a third of the longer word's
 * letters may differ (at least one).
 */

/** Insertions, deletions, substitutions and transpositions of adjacent letters between a and b. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}

/** The candidates nearest to `word` (ties kept, in the candidates' order), or none when none is close. */
export function suggest(word: string, candidates: readonly string[]): string[] {
  let best = Infinity;
  let out: string[] = [];
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d > Math.max(1, Math.floor(Math.max(word.length, c.length) / 3))) continue;
    if (d < best) {
      best = d;
      out = [c];
    } else if (d === best && !out.includes(c)) out.push(c);
  }
  return out;
}

/**
 * The command (or topic) a mistyped command id most likely meant. `id` and
 * `ids` use oclif's `:` between words; each candidate is compared with as
 * many words of `id` as it has, and at the same distance the candidate with
 * more words (a whole command rather than its topic) wins.
 */
export function suggestCommand(id: string, ids: readonly string[]): string | undefined {
  const words = id.split(':');
  let best: { id: string; d: number; n: number } | undefined;
  for (const c of ids) {
    const n = c.split(':').length;
    if (n > words.length) continue;
    const typed = words.slice(0, n).join(':');
    const d = editDistance(typed.toLowerCase(), c.toLowerCase());
    if (d > Math.max(1, Math.floor(Math.max(typed.length, c.length) / 3))) continue;
    if (!best || n > best.n || (n === best.n && d < best.d)) best = { id: c, d, n };
  }
  return best?.id;
}
