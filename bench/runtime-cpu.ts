/**
 * The runtime's CPU per streamed token, read from the kernel's account of
 * the runtime process (/proc/<pid>/stat utime + stime), not from wall time:
 * `node bench/runtime-cpu.ts [--tree <checkout>] [--concurrency 200] [--reps 3] [--rounds 2]`
 *
 * bench/runtime.ts reports a per-token figure as the slope of the streams'
 * wall time between 50- and 500-token turns at 200 concurrent streams, which
 * moves with everything else the machine runs. This bench counts only the
 * runtime process's CPU seconds over the same turns: CPU(500-token batch) −
 * CPU(50-token batch), divided by the extra tokens. Both the runtime
 * (bench/runtime-server.ts) and the scripted model (bench/model-server.ts)
 * run in child processes; the clients run here.
 *
 * `--tree <dir>` runs another checkout's runtime-server and model-server
 * (built, with its own node_modules) with this bench's clients, so two
 * commits can be compared in one sitting, interleaved:
 *   for t in ../other-checkout . ../other-checkout .; do node bench/runtime-cpu.ts --tree $t; done
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSigner, type Signer } from '../src/lib/keys/keys.ts';
import { mintInvocation } from '../src/lib/ucan/ucan.ts';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: resolve(import.meta.dirname, '..') },
    concurrency: { type: 'string', default: '200' },
    reps: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
  },
});
const tree = resolve(values.tree);
const CONCURRENCY = Number(values.concurrency);
const REPS = Number(values.reps);
const ROUNDS = Number(values.rounds);
const SHORT = 50;
const LONG = 500;
// the runtime's deferred writes (finishRun, history) land after the stream ends
const SETTLE_MS = 300;

function child(script: string, args: string[]): { proc: ChildProcess; msg: <T>(type: string) => Promise<T> } {
  const proc = fork(join(tree, 'bench', script), args, {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const msg = <T>(type: string): Promise<T> =>
    new Promise((r) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        proc.off('message', on);
        r(m as T);
      };
      proc.on('message', on);
    });
  return { proc, msg };
}

const model = child('model-server.ts', []);
const { baseURL } = await model.msg<{ baseURL: string }>('ready');
const runtime = child('runtime-server.ts', [baseURL]);
const { url, oracleDid } = await runtime.msg<{ url: string; oracleDid: string }>('ready');

/** CPU microseconds the runtime process has used (user + system). */
function cpuUs(): number {
  const fields = readFileSync(`/proc/${runtime.proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * (1_000_000 / 100); // USER_HZ is 100 on Linux
}

async function prepare(user: Signer): Promise<{ sessionId: string; headers: Record<string, string> }> {
  const headers = async () => ({
    authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
    'x-auth-type': 'ucan',
    'content-type': 'application/json',
  });
  const r = await fetch(`${url}/sessions`, { method: 'POST', headers: await headers(), body: '{}' });
  const { sessionId } = (await r.json()) as { sessionId: string };
  return { sessionId, headers: await headers() };
}

async function turn(p: { sessionId: string; headers: Record<string, string> }, tokens: number): Promise<void> {
  const res = await fetch(`${url}/messages/${p.sessionId}`, {
    method: 'POST',
    headers: p.headers,
    body: JSON.stringify({ message: `go ${tokens}`, stream: true }),
  });
  const body = await res.text();
  const got = body.split('event: message\n').length - 1;
  if (res.status !== 200 || got !== tokens) throw new Error(`runtime ${res.status}: ${got} of ${tokens} tokens`);
}

const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
const users = await Promise.all(Array.from({ length: CONCURRENCY }, () => generateSigner()));

/** The runtime's CPU per turn (µs) over `REPS` batches of `CONCURRENCY` simultaneous turns. */
async function batch(tokens: number): Promise<number> {
  let used = 0;
  for (let i = 0; i < REPS; i++) {
    const prepared = await Promise.all(users.map((u) => prepare(u)));
    await settle();
    const before = cpuUs();
    await Promise.all(prepared.map((p) => turn(p, tokens)));
    await settle();
    used += cpuUs() - before;
  }
  return used / (REPS * CONCURRENCY);
}

// warm-up: JIT, pools, SQLite pages
for (let i = 0; i < 3; i++)
  await Promise.all((await Promise.all(users.map((u) => prepare(u)))).map((p) => turn(p, 100)));

console.log(`tree ${tree}, ${CONCURRENCY} concurrent streams, ${REPS} batches per figure`);
const perToken: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const short = await batch(SHORT);
  const long = await batch(LONG);
  const us = (long - short) / (LONG - SHORT);
  perToken.push(us);
  console.log(
    `round ${r + 1}: runtime CPU per turn ${(short / 1000).toFixed(2)} ms (${SHORT} tokens), ${(long / 1000).toFixed(2)} ms (${LONG} tokens) → ${us.toFixed(1)} µs per token`,
  );
}
console.log(`runtime CPU per token: ${perToken.map((x) => x.toFixed(1)).join(' / ')} µs`);
runtime.proc.send({ type: 'stop' });
model.proc.send({ type: 'stop' });
