/**
 * File helpers of the selection and report commands: JSON in and out with
 * errors naming the file, output paths that must not exist yet (a
 * commitment is published once), and the verifier's --published-at time.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { selectionError } from '../../lib/selection/errors.ts';

/** Reads a JSON file named by `what` (the flag, e.g. "--design", or where a manifest names it). */
export function readJsonFile(path: string, what: string, valid: string): unknown {
  if (!existsSync(path))
    throw selectionError('file_not_found', what, path, valid, {
      message: `${what} ${JSON.stringify(path)}: no such file; valid: ${valid}`,
    });
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw selectionError('invalid_json', what, path, valid, {
      message: `${what} ${JSON.stringify(path)}: not valid JSON (${(e as Error).message}); valid: ${valid}`,
    });
  }
}

export function writeJsonFile(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

/** Throws output_exists when any of the paths exists and --force was not given. */
export function refuseExisting(paths: string[], force: boolean, flag: string, why: string): void {
  if (force) return;
  for (const p of paths) {
    if (existsSync(p)) {
      throw selectionError('output_exists', flag, p, `a path that does not exist yet (or --force)`, {
        message: `${flag}: ${p} exists; ${why} — choose another path or pass --force`,
      });
    }
  }
}

/** --published-at: an ISO 8601 date-time with a time zone (Z or ±hh:mm). */
export function parsePublishedAt(v: string | undefined, flag = '--published-at'): Date | undefined {
  if (v === undefined) return undefined;
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v.trim());
  const d = new Date(v.trim());
  if (!ok || Number.isNaN(d.getTime())) {
    throw selectionError(
      'invalid_published_at',
      flag,
      v,
      'an ISO 8601 date-time with a time zone, e.g. 2026-09-16T14:05:00Z: when you (or a public record you trust) first had the commitment',
    );
  }
  return d;
}
