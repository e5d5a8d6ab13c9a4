/**
 * Runtime figures: `node bench/runtime.ts`
 *
 * 1. Time to first SSE byte, time to first token and per-token overhead of
 *    the runtime against the scripted model server alone, at 1 and 200
 *    concurrent streams (same model server, same script, same run).
 * 2. 500 idle socket.io connections + 100 active streams on one runtime, with
 *    the runtime process's RSS.
 *
 * The runtime (bench/runtime-server.ts) and the model server
 * (bench/model-server.ts) run in child processes of their own; the clients
 * run here. Writes bench/out/runtime.json.
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { generateSigner, type Signer } from '../src/lib/keys/keys.ts';
import { mintInvocation } from '../src/lib/ucan/ucan.ts';
import { quantile } from './stats.ts';

const SHORT = 50;
const LONG = 500;
const here = import.meta.dirname;
// the first turns run unoptimised code; a runtime is a long-running server,
// so its steady state is measured after this many sequential turns
const WARMUP_TURNS = Number(process.env.BENCH_WARMUP ?? 300);

function child(script: string, args: string[]) {
  const c = fork(join(here, script), args, {
    execArgv: [
      '--expose-gc',
      ...(process.env.BENCH_PROF && script === 'runtime-server.ts'
        ? ['--cpu-prof', '--cpu-prof-dir=/tmp/rt/prof']
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  c.setMaxListeners(1000);
  const msg = <T>(type: string): Promise<T> =>
    new Promise((r) => {
      const on = (m: { type: string }) => {
        if (m.type === type) {
          c.off('message', on);
          r(m as T);
        }
      };
      c.on('message', on);
    });
  return { child: c, msg };
}

// the model server: its own process for the whole bench
const modelProc = child('model-server.ts', []);
const { baseURL: modelBaseURL } = await modelProc.msg<{ baseURL: string }>('ready');

async function startRuntime() {
  const c = child('runtime-server.ts', [modelBaseURL]);
  const ready = await c.msg<{ url: string; oracleDid: string }>('ready');
  const rss = async (gc = true) => {
    c.child.send({ type: gc ? 'rss' : 'rss-nogc' });
    return c.msg<{ rss: number; sockets: number }>('rss');
  };
  return { ...c, ...ready, rss };
}
let current = await startRuntime();
let { url, oracleDid } = current;
const rss = (gc = true) => current.rss(gc);

interface Timing {
  firstByte: number;
  firstToken: number;
  lastToken: number;
  total: number;
  tokens: number;
}

async function readTimed(res: Response, t0: number, isToken: (chunk: string) => number): Promise<Timing> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let firstByte = 0;
  let firstToken = 0;
  let lastToken = 0;
  let tokens = 0;
  let carry = '';
  let all = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const now = performance.now();
    if (!firstByte) firstByte = now - t0;
    const text = dec.decode(value, { stream: true });
    carry += text;
    if (process.env.BENCH_DEBUG) all += text;
    const cut = carry.lastIndexOf('\n\n');
    if (cut < 0) continue;
    const n = isToken(carry.slice(0, cut));
    carry = carry.slice(cut + 2);
    if (n > 0 && !firstToken) firstToken = now - t0;
    if (n > 0) lastToken = now - t0;
    tokens += n;
  }
  if (process.env.BENCH_DEBUG && tokens === 0)
    console.error('[bench] empty stream:', res.status, all.length, all.slice(0, 300), '...', all.slice(-300));
  return { firstByte, firstToken, lastToken, total: performance.now() - t0, tokens };
}

const count = (s: string, needle: string) => s.split(needle).length - 1;

async function direct(tokens: number): Promise<Timing> {
  const t0 = performance.now();
  const res = await fetch(`${modelBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: JSON.stringify({
      model: 'scripted-model',
      stream: true,
      messages: [{ role: 'user', content: `go ${tokens}` }],
    }),
  });
  return readTimed(res, t0, (s) => count(s, '"content":"tok'));
}

interface Prepared {
  sessionId: string;
  headers: Record<string, string>;
}

async function prepare(user: Signer): Promise<Prepared> {
  const h = async () => ({
    authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
    'x-auth-type': 'ucan',
    'content-type': 'application/json',
  });
  const r = await fetch(`${url}/sessions`, { method: 'POST', headers: await h(), body: '{}' });
  const { sessionId } = (await r.json()) as { sessionId: string };
  return { sessionId, headers: await h() };
}

async function viaRuntime(p: Prepared, tokens: number): Promise<Timing> {
  const t0 = performance.now();
  const res = await fetch(`${url}/messages/${p.sessionId}`, {
    method: 'POST',
    headers: p.headers,
    body: JSON.stringify({ message: `go ${tokens}`, stream: true }),
  });
  if (res.status !== 200) throw new Error(`runtime ${res.status} ${await res.text()}`);
  return readTimed(res, t0, (s) => count(s, 'event: message\n'));
}

const median = (xs: number[]) => quantile(xs, 0.5);
const p95 = (xs: number[]) => quantile(xs, 0.95);

async function batch(concurrency: number, reps: number, tokens: number, users: Signer[]) {
  const d: Timing[] = [];
  const r: Timing[] = [];
  for (let i = 0; i < reps; i++) {
    d.push(...(await Promise.all(users.map(() => direct(tokens)))));
    const prepared = await Promise.all(users.map((u) => prepare(u)));
    r.push(...(await Promise.all(prepared.map((p) => viaRuntime(p, tokens)))));
  }
  for (const t of [...r, ...d])
    if (t.tokens !== tokens) throw new Error(`a stream carried ${t.tokens} tokens, expected ${tokens}`);
  return { d, r };
}

async function round(concurrency: number, reps: number) {
  const users = await Promise.all(Array.from({ length: concurrency }, () => generateSigner()));
  const short = await batch(concurrency, reps, SHORT, users);
  const long = await batch(concurrency, reps, LONG, users);
  // per-token cost = slope of the stream's total time between SHORT and LONG tokens
  const slope = (a: Timing[], b: Timing[]) =>
    ((median(b.map((t) => t.total)) - median(a.map((t) => t.total))) / (LONG - SHORT)) * 1000;
  const dSlope = slope(short.d, long.d);
  const rSlope = slope(short.r, long.r);
  const fb = (ts: Timing[]) => median(ts.map((t) => t.firstByte));
  const ft = (ts: Timing[]) => median(ts.map((t) => t.firstToken));
  return {
    concurrency,
    streams: short.r.length + long.r.length,
    direct: {
      firstByteMs: fb(short.d),
      firstTokenMs: ft(short.d),
      firstTokenP95Ms: p95(short.d.map((t) => t.firstToken)),
      perTokenUs: dSlope,
    },
    runtime: {
      firstByteMs: fb(short.r),
      firstTokenMs: ft(short.r),
      firstTokenP95Ms: p95(short.r.map((t) => t.firstToken)),
      perTokenUs: rSlope,
    },
    addedFirstByteMs: fb(short.r) - fb(short.d),
    addedFirstTokenMs: ft(short.r) - ft(short.d),
    addedPerTokenUs: rSlope - dSlope,
  };
}

async function socketsAndStreams(idle: number, active: number) {
  const before = await rss();
  const sockets: Socket[] = [];
  const owner = await generateSigner();
  const host = await prepare(owner);
  for (let i = 0; i < idle; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, idle - i) }, async () => {
        const invocation = await mintInvocation({ issuer: owner, audience: oracleDid });
        return new Promise<Socket>((resolve, reject) => {
          const s = connect(url, {
            path: '/socket.io/',
            transports: ['websocket'],
            query: { sessionId: host.sessionId },
            auth: { invocation },
            reconnection: false,
            forceNew: true,
          });
          s.once('connect', () => resolve(s));
          s.once('connect_error', (e) => reject(e));
          setTimeout(
            () => reject(new Error(`socket ${s.id ?? '?'} did not connect in 10 s (connected=${s.connected})`)),
            10_000,
          ).unref();
        });
      }),
    );
    sockets.push(...batch);
    if (process.env.BENCH_DEBUG) console.error(`[bench] ${sockets.length} sockets`);
  }
  const withSockets = await rss();
  const users = await Promise.all(Array.from({ length: active }, () => generateSigner()));
  const prepared = await Promise.all(users.map((u) => prepare(u)));
  let peak = withSockets.rss;
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void rss(false).then((x) => {
      peak = Math.max(peak, x.rss);
      sampling = false;
    });
  }, 50);
  const t0 = performance.now();
  const results = await Promise.all(prepared.map((p) => viaRuntime(p, SHORT)));
  const wall = performance.now() - t0;
  clearInterval(sampler);
  const after = await rss();
  for (const s of sockets) s.close();
  return {
    idleSockets: withSockets.sockets,
    activeStreams: results.length,
    completeStreams: results.filter((r) => r.tokens === SHORT).length,
    wallMs: wall,
    rssBaselineMB: before.rss / 2 ** 20,
    rssWithIdleSocketsMB: withSockets.rss / 2 ** 20,
    rssPeakMB: Math.max(peak, after.rss) / 2 ** 20,
  };
}

// warm-up (JIT, connection pools, SQLite pages)
await round(5, 1);
{
  const u = await generateSigner();
  for (let i = 0; i < WARMUP_TURNS; i++) {
    await direct(SHORT);
    await viaRuntime(await prepare(u), SHORT);
  }
}
const one = await round(1, 100);
const many = await round(200, 2);
current.child.send({ type: 'stop' });
// the load figure on a fresh runtime process
current = await startRuntime();
({ url, oracleDid } = current);
const load = await socketsAndStreams(500, 100);
current.child.send({ type: 'stop' });
modelProc.child.send({ type: 'stop' });

const out = {
  node: process.version,
  date: new Date().toISOString(),
  warmupTurns: WARMUP_TURNS,
  tokens: { short: SHORT, long: LONG },
  overhead: [one, many],
  addedCpuPerTokenUsAt200: many.addedPerTokenUs / many.concurrency,
  load,
};
mkdirSync(join(here, 'out'), { recursive: true });
writeFileSync(join(here, 'out', 'runtime.json'), JSON.stringify(out, null, 2));
const f = (n: number, d = 2) => n.toFixed(d);
console.log(
  `runtime overhead vs the scripted model server alone (medians; first byte/token at ${SHORT} tokens, per-token = slope ${SHORT}→${LONG} tokens)`,
);
console.log(
  'conc  streams | direct: 1st byte  1st tok  µs/tok | runtime: 1st byte  1st tok  µs/tok | added: 1st byte  1st tok  µs/tok',
);
for (const r of [one, many]) {
  console.log(
    `${String(r.concurrency).padStart(4)}  ${String(r.streams).padStart(7)} | ${f(r.direct.firstByteMs).padStart(16)} ${f(r.direct.firstTokenMs).padStart(8)} ${f(r.direct.perTokenUs, 1).padStart(7)} | ${f(r.runtime.firstByteMs).padStart(17)} ${f(r.runtime.firstTokenMs).padStart(8)} ${f(r.runtime.perTokenUs, 1).padStart(7)} | ${f(r.addedFirstByteMs).padStart(15)} ${f(r.addedFirstTokenMs).padStart(8)} ${f(r.addedPerTokenUs, 1).padStart(7)}`,
  );
}
console.log(
  `runtime CPU per token at ${many.concurrency} streams (added per-stream slope ÷ concurrency): ${f(many.addedPerTokenUs / many.concurrency, 1)} µs`,
);
console.log(
  `load: ${load.idleSockets} idle socket.io connections + ${load.activeStreams} active streams (${load.completeStreams} complete) in ${f(load.wallMs, 0)} ms; runtime RSS ${f(load.rssBaselineMB, 0)} MB → ${f(load.rssWithIdleSocketsMB, 0)} MB with sockets → peak ${f(load.rssPeakMB, 0)} MB`,
);
