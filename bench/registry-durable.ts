/**
 * The minimal durable route of bench/registry.ts (issue #19, item 7): the
 * reference `POST /v1/sampling` is measured against. Fastify with its JSON
 * body parser and one route that stores a design row with **the same
 * INSERT** as src/daemon/registry/designs.ts (its INSERT_DESIGN), through **the same group
 * commit and fsync policy** (src/storage's `Database.write`, the daemon's
 * migrations, `ORACLEKIT_DB_SYNCHRONOUS` as the daemon reads it: the WAL
 * fsynced off the event loop before the reply by default) — and nothing
 * else: no auth, no zod, no rate limit, no request log, no sampling engine.
 * Each request stores the design record captured from the daemon (argv[3],
 * a JSON file) under a fresh UUIDv7 and the body's projectId, and answers 201
 * with the record's JSON text, so both sides send the same bytes.
 *
 *   node bench/registry-durable.ts <db file> <record.json>   (prints its port)
 *
 * Started by bench/registry.ts in its own process, with node's default flags.
 * With BENCH_DURABLE_KEEP_SHAPES=1 (registry.ts `--durable-keep-shapes`) it
 * also keeps the samples the daemon keeps across memory-reducing collections
 * (src/daemon/heap.ts, "Hidden classes across a shrink": a tick object from
 * boot, each request's reply, here from the handler), to see how much of the
 * ratio that accounts for.
 */
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import { openDatabase } from '../dist/storage/db.js';
import { REGISTRY_MIGRATIONS } from '../dist/daemon/registry/migrations.js';
import { uuidv7 } from '../dist/lib/registry/uuidv7.js';
import { INSERT_DESIGN, insertDesignParams } from '../dist/daemon/registry/designs.js';
import type { DesignRecord } from '../dist/lib/registry/types.js';

const [dbFile, recordFile] = process.argv.slice(2);
if (!dbFile || !recordFile) throw new Error('usage: node bench/registry-durable.ts <db file> <record.json>');
const sync = process.env.ORACLEKIT_DB_SYNCHRONOUS;
const db = openDatabase({
  path: dbFile,
  migrations: { registry: REGISTRY_MIGRATIONS },
  synchronous: sync === 'FULL' || sync === 'NORMAL' ? sync : 'async',
});
const template = JSON.parse(readFileSync(recordFile, 'utf8')) as {
  version: number;
  previousDesignId: string | null;
  createdBy: string;
  verification: { status: string };
} & Record<string, unknown>;

const keep = process.env.BENCH_DURABLE_KEEP_SHAPES === '1' ? await import('../dist/daemon/heap.js') : undefined;
keep?.keepTickShape();

const app = Fastify({ logger: false });
app.post('/durable', async (req, reply) => {
  keep?.keepShapes(reply);
  const body = req.body as { projectId: string };
  const rec = { ...template, designId: uuidv7(), projectId: body.projectId, createdAt: new Date().toISOString() };
  const json = JSON.stringify(rec);
  await db.write(() => db.run(INSERT_DESIGN, insertDesignParams(rec as unknown as DesignRecord, json)));
  return reply
    .code(201)
    .header('location', `/v1/sampling/${rec.designId}`)
    .type('application/json; charset=utf-8')
    .send(json);
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(String((app.server.address() as { port: number }).port) + '\n');
process.on('SIGTERM', () => void app.close().then(() => (db.close(), process.exit(0))));
