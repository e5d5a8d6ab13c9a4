/**
 * Child process of bench/calls.ts: one oracle (createOracleApp, its embedded
 * LiveKit-protocol endpoint and its call agent) on loopback, its model and
 * speech services at the URLs the parent passes, so that the CPU of this
 * process is the oracle's and its endpoint's alone (not the user's
 * participant, the browser or the scripted services). Talks to the parent over
 * IPC: 'ready' with its URL and key, then each line where the agent says where
 * the time to an answer went (voice.ts, stagesLine); on 'loop', how late its
 * event loop ran since the last 'loop' (perf_hooks' event-loop delay, less
 * its 10 ms timer).
 *
 * The oracle is the built runtime of a checkout (`tree`, default this one: its dist/ and the @oraclekit/calls it
 * installs), as a user's install runs it: the runtime's and the calls package's imports of `oraclekit/plugin` are then
 * one module (from sources, the package would load the built one beside the source runtime).
 *
 * Usage (by the parent): calls-oracle.ts <JSON of { env, mnemonic, tree? }>
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import type { createOracleApp as CreateOracleApp } from '../src/runtime/app.ts';
import { didFromMnemonic } from '../src/lib/keys/keys.ts';

const { env, mnemonic, tree } = JSON.parse(process.argv[2] ?? '{}') as {
  env: Record<string, string>;
  mnemonic: string;
  tree?: string;
};
const built = pathToFileURL(resolve(tree ?? join(import.meta.dirname, '..'), 'dist/runtime/app.js')).href;
const { createOracleApp } = (await import(built)) as { createOracleApp: typeof CreateOracleApp };
const dir = mkdtempSync(join(tmpdir(), 'bench-calls-'));
/** The agent's stage lines (a plugin logs to the runtime's pino log): each goes to the parent as it is logged. */
const log = pino(
  { level: 'info' },
  {
    write: (l: string) => {
      const msg = String((JSON.parse(l) as { msg?: unknown }).msg ?? '');
      if (msg.includes('after the end of turn'))
        process.send!({ type: 'stages', line: msg, at: performance.timeOrigin + performance.now() });
    },
  },
);
const app = createOracleApp({
  config: { name: 'Bench Oracle', model: 'scripted-model', oracleDid: didFromMnemonic(mnemonic) },
  dbPath: join(dir, 'oracle.db'),
  logger: { info: () => {}, error: () => {} },
  pino: log,
  signingMnemonic: mnemonic,
  env,
});
const url = await app.listen(0, '127.0.0.1');
process.send!({ type: 'ready', url });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
process.on('message', (m: { type: string }) => {
  if (m.type === 'loop') {
    // the histogram holds each 10 ms timer's interval: the lateness is what exceeds 10 ms
    const ms = (ns: number) => Number(Math.max(0, ns / 1e6 - 10).toFixed(1));
    process.send!({ type: 'loop', p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) });
    return loop.reset();
  }
  if (m.type === 'stop') stop();
});
// the bench that started it is gone (it ended or failed): nothing is left running behind it
process.on('disconnect', () => stop());
let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  void app.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}
