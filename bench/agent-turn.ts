/**
 * The agent turn's own cost, in process: `node bench/agent-turn.ts`
 *
 * runTurn with a real Run and twelve plugins with prompt and model hooks
 * against the AI SDK's in-memory model (no network, no model server), so the
 * figure is the runtime's work alone: from runTurn to the first `message`
 * event, and the whole turn of 50 text deltas. Medians over the last two
 * thirds of the turns (the first ones run unoptimised code), and the CPU time
 * (user + system) per turn over the same turns, which the load of a shared
 * machine does not inflate.
 */
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { runTurn, type AgentDeps } from '../src/runtime/agent/index.ts';
import { Run } from '../src/runtime/run.ts';
import type { OraclePlugin, PluginContext } from '../src/runtime/plugin.ts';
import { quantile } from './stats.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 3000);
const TOKENS = 50;
const chunks = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  ...Array.from({ length: TOKENS }, () => ({ type: 'text-delta', id: 't', delta: 'tok ' })),
  { type: 'text-end', id: 't' },
  {
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 1 }, outputTokens: { total: TOKENS } },
  },
];
const model = new MockLanguageModelV4({
  doStream: async () => ({ stream: convertArrayToReadableStream(chunks) }),
} as never);
const active = Array.from({ length: 12 }, (_, i) => ({
  plugin: {
    name: `p${i}`,
    version: '0.0.0',
    manifest: { visibility: 'always' },
    systemPrompt: () => `plugin ${i}`,
    middleware: { beforeModel: () => undefined, afterModel: () => undefined },
  } as unknown as OraclePlugin<unknown>,
  ctx: { env: {} } as unknown as PluginContext<unknown>,
}));
const deps: AgentDeps = {
  model: () => model as never,
  plugins: () => active,
  metaTools: {},
  pluginTools: () => new Map(),
  basePrompt: () => 'You are a bench oracle.',
  history: async () => [],
  loadState: async () => ({}),
  saveState: () => {},
  persist: async () => {},
  maxSteps: 4,
  redact: (t) => t,
  now: Date.now,
  stallTimeoutMs: 60_000,
  toolTimeoutMs: 30_000,
  limits: { maxOutputTokens: 4096, maxMs: 600_000, maxOutputChars: 200_000, maxEventBytes: 8 * 1024 * 1024 },
};

const first: number[] = [];
const whole: number[] = [];
let cpu = { user: 0, system: 0 };
for (let i = 0; i < TURNS; i++) {
  if (i === Math.floor(TURNS / 3)) cpu = process.cpuUsage();
  const run = new Run({ sessionId: 's', userDid: 'did:key:bench' });
  const t0 = performance.now();
  let t1 = 0;
  run.subscribe(0, (e) => {
    if (e.event === 'message' && !t1) t1 = performance.now();
  });
  await runTurn(deps, run, { message: 'hi' });
  first.push(t1 - t0);
  whole.push(performance.now() - t0);
}
const used = process.cpuUsage(cpu);
const cpuPerTurn = (used.user + used.system) / 1000 / (TURNS - Math.floor(TURNS / 3));
/** The median after the first third of the turns (warm-up). */
const median = (a: number[]) => quantile(a.slice(Math.floor(TURNS / 3)), 0.5);
console.log(
  `agent turn in process (${TURNS} turns, 12 plugins, ${TOKENS} tokens): runTurn → first message event median ${median(first).toFixed(3)} ms; whole turn median ${median(whole).toFixed(3)} ms; CPU ${cpuPerTurn.toFixed(3)} ms per turn`,
);
