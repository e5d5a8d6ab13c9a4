/**
 * The registry's write path without HTTP: CPU µs per stored design, as
 * POST /v1/sampling stores it (the engine's validation, the design, the
 * record, the INSERT) through the storage's group commit (Database.write:
 * groups of 30, a SAVEPOINT each, one COMMIT and one WAL fsync per group).
 * CPU time of the process (user + system), so the figure moves less with the
 * machine's load than the HTTP bench (bench/registry.ts) does.
 *
 *   node bench/registry-write.ts [--writes 30000] [--group 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/storage/db.ts';
import { REGISTRY_MIGRATIONS } from '../src/daemon/registry/migrations.ts';
import { DEFAULT_CONFIG } from '../src/daemon/config.ts';
import { Registry } from '../src/daemon/registry/index.ts';
import { samplingBody } from '../src/daemon/http/schemas.ts';

const { values } = parseArgs({
  options: { writes: { type: 'string', default: '30000' }, group: { type: 'string', default: '30' } },
});
const N = Number(values.writes);
const GROUP = Number(values.group);
const dir = mkdtempSync(join(tmpdir(), 'oraclekit-registry-write-'));
const db = openDatabase({ path: join(dir, 'registry.db'), migrations: { registry: REGISTRY_MIGRATIONS } });
const registry = new Registry(db, DEFAULT_CONFIG);
const p = { keyId: 'key_bench', did: 'did:example:bench', roles: ['member' as const] };
const raw = {
  projectId: 'did:example:project',
  population: 5000,
  expectedMean: 2.5,
  expectedSD: 1.2,
  dropoutRate: 0.15,
};

function one() {
  const body = samplingBody.parse(raw); // what the route's validator does
  return db.write(() =>
    registry.idempotency.run(
      p,
      undefined,
      'POST /v1/sampling',
      () => raw,
      async () => {
        const d = await registry.designs.create(p, body);
        return { status: 201, body: d.record, json: d.json };
      },
    ),
  );
}

async function run(n: number): Promise<void> {
  for (let i = 0; i < n; i += GROUP) await Promise.all(Array.from({ length: GROUP }, one));
}

await run(3000); // warm-up
const fsyncs = db.fsyncCount;
const groups = db.groupCount;
const c0 = process.cpuUsage();
const t0 = performance.now();
await run(N);
const cpu = process.cpuUsage(c0);
const wall = performance.now() - t0;
console.log(
  JSON.stringify({
    writes: N,
    group: GROUP,
    cpuUsPerWrite: +((cpu.user + cpu.system) / N).toFixed(2),
    wallUsPerWrite: +((wall * 1000) / N).toFixed(2),
    groups: db.groupCount - groups,
    fsyncs: db.fsyncCount - fsyncs,
  }),
);
await db.close();
rmSync(dir, { recursive: true, force: true });
