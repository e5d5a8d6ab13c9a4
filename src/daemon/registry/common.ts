/**
 * What the registry's resource modules share: the storage and config they
 * work over, the clock, hashing, cursors and JSON helpers.
 */
import type { Storage } from '../../storage/storage.ts';
import type { DeploymentConfig } from '../config.ts';
import { fieldError } from '../../lib/registry/errors.ts';

export interface RegistryContext {
  readonly db: Storage;
  readonly config: DeploymentConfig;
  /** The clock; tests of deadlines replace it (Registry.now). */
  now(): number;
}

/**
 * Serializes read-modify-writes of one row (or one name) across daemons
 * sharing a PostgreSQL database: the caller's transaction waits for any other
 * holder's COMMIT, then (READ COMMITTED: a snapshot per statement) its next
 * reads see that commit. `key` present: the row `table.id = key` is locked
 * FOR UPDATE; `name`: a transaction-scoped advisory lock on the name (a row
 * that may not exist yet, e.g. an Idempotency-Key). On SQLite nothing to do:
 * the file has one writer and a write holds the connection. The one place
 * the registry asks the dialect for locking (docs/storage.md, "Several
 * daemons on one database").
 */
export async function lockForUpdate(
  db: Storage,
  what: { table: 'domains' | 'proposals' | 'designs'; column: string; key: string } | { name: string },
): Promise<void> {
  if (db.dialect !== 'postgres') return;
  if ('name' in what) await db.get('SELECT pg_advisory_xact_lock(7302418, hashtext(?)) AS locked', [what.name]);
  else await db.get(`SELECT 1 AS locked FROM ${what.table} WHERE ${what.column} = ? FOR UPDATE`, [what.key]);
}

export const nowIso = (t: number) => new Date(t).toISOString();

export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

/** A nextCursor of a previous page → the seq to continue after (0 for the first page). */
export function decodeCursor(c: string | undefined): number {
  if (c === undefined || c === '') return 0;
  const m = /^s(\d{1,15})$/.exec(Buffer.from(c, 'base64url').toString());
  if (!m) throw fieldError('invalid_query', 'cursor', c, 'a nextCursor from a previous page');
  return Number(m[1]);
}
