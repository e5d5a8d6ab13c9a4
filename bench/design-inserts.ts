/**
 * What a group commit of sample designs costs SQLite, by id kind and
 * durability: `node bench/design-inserts.ts`
 *
 * Inserts groups of 30 design rows (the registry's designs table and indexes,
 * a record of the size POST /v1/sampling stores) in one transaction with a
 * SAVEPOINT per row, as the group commit (Database.write, src/storage/db.ts) does, and reports µs per row spent
 * building the group and in COMMIT, after a warm-up of 500 groups:
 * - random UUIDv4 ids vs time-ordered UUIDv7 ids (src/lib/registry/uuidv7.ts);
 * - synchronous=FULL (fsync inside COMMIT, on the event loop) vs NORMAL (the
 *   shipped mode: COMMIT without fsync; the fsync runs on the thread pool).
 */
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REGISTRY_MIGRATIONS } from '../src/daemon/registry/migrations.ts';
import { sqlOf } from '../src/storage/db.ts';
import { uuidv7 } from '../src/lib/registry/uuidv7.ts';

const GROUP = 30;
const GROUPS = 3000;
const WARMUP = 500;
const record = JSON.stringify({
  projectId: 'did:example:bench',
  version: 1,
  parameters: {
    confidence: 0.95,
    precision: 0.05,
    z: 1.959963984540054,
    n0: 385,
    nFpc: 357,
    dropout: 0.15,
    final: 420,
  },
  input: { population: 5000, expectedMean: 2.5, expectedSD: 1.2, dropoutRate: 0.15 },
  pad: 'x'.repeat(600),
});

function run(ids: 'v4' | 'v7', synchronous: 'FULL' | 'NORMAL') {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-inserts-'));
  const db = new DatabaseSync(join(dir, 'r.db'));
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${synchronous}`);
  db.exec('PRAGMA foreign_keys = ON');
  for (const m of REGISTRY_MIGRATIONS) db.exec(sqlOf(m, 'sqlite'));
  const insert = db.prepare(
    'INSERT INTO designs (design_id, project_id, version, previous_id, status, record, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const savepoint = db.prepare('SAVEPOINT w');
  const release = db.prepare('RELEASE w');
  let build = 0;
  let commit = 0;
  for (let g = 0; g < GROUPS; g++) {
    const t0 = performance.now();
    db.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < GROUP; i++) {
      savepoint.run();
      insert.run(
        ids === 'v4' ? crypto.randomUUID() : uuidv7(),
        'did:example:bench',
        1,
        null,
        'draft',
        record,
        'did:example:bench',
        new Date().toISOString(),
      );
      release.run();
    }
    const t1 = performance.now();
    db.exec('COMMIT');
    const t2 = performance.now();
    if (g >= WARMUP) {
      build += t1 - t0;
      commit += t2 - t1;
    }
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const rows = (GROUPS - WARMUP) * GROUP;
  return { ids, synchronous, buildUsPerRow: (build * 1000) / rows, commitUsPerRow: (commit * 1000) / rows };
}

const rows = [run('v4', 'FULL'), run('v7', 'FULL'), run('v4', 'NORMAL'), run('v7', 'NORMAL')];
console.log(`${GROUPS - WARMUP} groups of ${GROUP} design rows (record ${record.length} bytes), µs per row`);
console.table(
  rows.map((r) => ({
    ids: r.ids,
    synchronous: r.synchronous,
    build: r.buildUsPerRow.toFixed(1),
    commit: r.commitUsPerRow.toFixed(1),
    total: (r.buildUsPerRow + r.commitUsPerRow).toFixed(1),
  })),
);
