/**
 * How many voice calls at once one core holds (docs/live-agent.md). The oracle (createOracleApp with its embedded
 * LiveKit-protocol endpoint and its call agent, calls-oracle.ts) runs in a child process pinned to one core
 * (`taskset -c 1`); this process, pinned to the other, is K users calling it at once, each a LiveKit participant
 * through @livekit/rtc-node with its call's E2EE key, saying an espeak-ng sentence at random moments. Speech services
 * and model are scripted on loopback and answer at once. For K = 1, 2, 4, … it reports the time from the end of a
 * user's speech to the first sound of the answer that user gets (median and p95 over every utterance), the share of
 * its core the oracle used (and of that, its JavaScript event loop's), and the users' own CPU (when that nears a
 * core, the limit found is the bench's). A level is held when every utterance is answered and its p95 is at most
 * 100 ms over one call's (the load adds at most a tenth of a second to an answer); the ladder stops after the first
 * level not held. Before the ladder one call says the sentence once, so that the fresh process's first answer (which
 * compiles the turn's code) is reported apart rather than counted in the first level.
 *
 * With --split the endpoint runs in a process of its own (calls-endpoint.ts, the oracle reaching it through
 * LIVEKIT_URL, as it would a LiveKit server), nothing is pinned, and each process's CPU per second of call is
 * reported apart: the agent's and the endpoint's.
 *
 * Usage: node bench/calls-load.ts [--calls=1,2,4,6,8,12,16] [--utterances=5] [--split]
 */
import './rtc-quiet.ts';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedModelServer } from '../src/runtime/testing/model-server.ts';
import { say } from '../src/runtime/testing/script.ts';
import { generateMnemonic, signerFromMnemonic } from '../src/lib/keys/keys.ts';
import { startSpeechServer } from '../test/helpers/speech-server.ts';
import { espeak } from '../test/helpers/spoken.ts';
import { callingUser, END_OF_TURN_MS, oracleEnv, within } from './call-user.ts';
import { cpuUsOf } from './proc.ts';
import { quantile } from './stats.ts';

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const LADDER = (flag('calls') ?? '1,2,4,6,8,12,16').split(',').map(Number);
const UTTERANCES = Number(flag('utterances') ?? 5);
const SPLIT = args.includes('--split');
const PIN = !SPLIT && cpus().length >= 2;
const TARGET_MS = END_OF_TURN_MS + 150;
const RATE = 48_000;
const LIVEKIT_KEY = 'APIbench';
const LIVEKIT_SECRET = 's'.repeat(48);
const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The user's sentence at 48 kHz, and where its last loud 10 ms chunk ends (samples): the end of speech. */
const SPOKEN = espeak('What time is it in Nairobi?', RATE);
const SENTENCE = { samples: SPOKEN.samples, end: Math.round((SPOKEN.soundMs.end / 1000) * RATE) };

/** Starts a bench child (IPC 'ready' with its URL), pinned to a core when asked. */
async function child(file: string, arg: unknown, core?: number): Promise<{ proc: ChildProcess; url: string }> {
  const proc = fork(join(here, file), [JSON.stringify(arg)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    ...(core !== undefined ? { execPath: 'taskset', execArgv: ['-c', String(core), process.execPath] } : {}),
  });
  const url = await new Promise<string>((ok, fail) => {
    proc.on('message', (m: { type: string; url?: string }) => m.type === 'ready' && ok(m.url!));
    proc.once('exit', (code) => fail(new Error(`${file} exited (${code}) before it listened`)));
  });
  return { proc, url };
}

const model = await startScriptedModelServer();
model.fallback = say('Okay.');
const speech = await startSpeechServer();
speech.speech.ms = 300;
const endpoint = SPLIT
  ? await child('calls-endpoint.ts', { apiKey: LIVEKIT_KEY, apiSecret: LIVEKIT_SECRET })
  : undefined;
const mnemonic = generateMnemonic();
const oracleDid = (await signerFromMnemonic(mnemonic)).did();
const oracle = await child(
  'calls-oracle.ts',
  {
    mnemonic,
    env: {
      ...oracleEnv(model, speech),
      // the oracle's bound on live calls (8 by default) above the ladder's top, with room for the calls of the level
      // before while they end
      CALLS_MAX_PER_PROCESS: String(2 * Math.max(...LADDER)),
      ...(endpoint
        ? {
            LIVEKIT_URL: endpoint.url.replace(/^ws:/, 'http:'),
            LIVEKIT_API_KEY: LIVEKIT_KEY,
            LIVEKIT_API_SECRET: LIVEKIT_SECRET,
          }
        : {}),
    },
  },
  PIN ? 1 : undefined,
);
// this process (the users) on the other core, its threads included
if (PIN) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });

/** K calls at once, each user saying the sentence UTTERANCES times at random moments. */
async function level(k: number, utterances = UTTERANCES) {
  const users = await Promise.all(Array.from({ length: k }, () => callingUser(oracle.url, oracleDid, SENTENCE)));
  await sleep(1500); // subscriptions settle
  const latencies: number[] = [];
  let unanswered = 0;
  const pid = oracle.proc.pid!;
  const cpu = { oracle: cpuUsOf(pid), loop: cpuUsOf(pid, pid), endpoint: endpoint ? cpuUsOf(endpoint.proc.pid!) : 0 };
  const users0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    users.map(async (u) => {
      for (let i = 0; i < utterances; i++) {
        await sleep(200 + Math.random() * 1500);
        const end = await u.speak();
        const first = await within(END_OF_TURN_MS + 3000, () => u.firstLoudAfter(end));
        if (first === undefined) unanswered++;
        else latencies.push(first - end);
        await sleep(600); // the answer (300 ms) heard out
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const oracleCpu = (cpuUsOf(pid) - cpu.oracle) / 1e6;
  const loopCpu = (cpuUsOf(pid, pid) - cpu.loop) / 1e6;
  const endpointCpu = endpoint ? (cpuUsOf(endpoint.proc.pid!) - cpu.endpoint) / 1e6 : undefined;
  const u = process.cpuUsage(users0);
  await Promise.all(users.map((x) => x.close()));
  const q = (p: number) => Math.round(quantile(latencies, p));
  const r = (x: number) => Number(x.toFixed(3));
  return {
    calls: k,
    utterances: k * utterances,
    unanswered,
    medianMs: latencies.length ? q(0.5) : null,
    p95Ms: latencies.length ? q(0.95) : null,
    /** The share of one core the oracle used (its endpoint included unless --split). */
    oracleCore: r(oracleCpu / seconds),
    oracleCpuSecondsPerCallSecond: r(oracleCpu / seconds / k),
    /** The share of one core the oracle's main thread (its JavaScript event loop) used; the rest is native threads. */
    oracleEventLoopCore: r(loopCpu / seconds),
    ...(endpointCpu !== undefined
      ? { endpointCore: r(endpointCpu / seconds), endpointCpuSecondsPerCallSecond: r(endpointCpu / seconds / k) }
      : {}),
    /** This process's CPU (the users' participants), in cores. */
    usersCores: r((u.user + u.system) / 1e6 / seconds),
    loadAverage: Number(loadavg()[0]!.toFixed(1)),
  };
}

// a fresh process's first answer compiles the turn's code: one call says it first, reported apart
const warmUp = await level(1, 1);
console.error(JSON.stringify({ warmUp }));
/** The most a level's p95 may exceed one call's (ms). */
const SLACK_MS = 100;
const levels: Awaited<ReturnType<typeof level>>[] = [];
/** Every utterance answered, and the p95 at most SLACK_MS over the first level's. */
const held = (l: (typeof levels)[number]) =>
  l.unanswered === 0 && l.p95Ms !== null && l.p95Ms <= (levels[0]!.p95Ms ?? 0) + SLACK_MS;
for (const k of LADDER) {
  const l = await level(k);
  levels.push(l);
  console.error(JSON.stringify(l));
  if (!held(l)) break;
}
const heldCalls = levels.filter(held).map((l) => l.calls);
console.log(
  JSON.stringify(
    {
      oracle: SPLIT ? 'agent and endpoint in two processes (LIVEKIT_URL)' : 'embedded endpoint, one process',
      pinnedToOneCore: PIN,
      targetMs: TARGET_MS,
      /** One call, one utterance, before the ladder: the fresh process's first answer. */
      firstAnswerMs: warmUp.medianMs,
      levels,
      /** The most calls at once with every utterance answered and p95 at most SLACK_MS over one call's. */
      callsHeld: heldCalls.length ? Math.max(...heldCalls) : 0,
    },
    null,
    2,
  ),
);
oracle.proc.send({ type: 'stop' });
endpoint?.proc.send({ type: 'stop' });
await Promise.all([oracle.proc, endpoint?.proc].map((p) => p && new Promise((ok) => p.once('exit', ok))));
await model.close();
await speech.close();
process.exit(0);
