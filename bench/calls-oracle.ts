/**
 * Child process of bench/calls.ts: one oracle (createOracleApp, its embedded
 * LiveKit-protocol endpoint and its call agent) on loopback, its model and
 * speech services at the URLs the parent passes, so that the CPU of this
 * process is the oracle's and its endpoint's alone (not the user's
 * participant, the browser or the scripted services). Talks to the parent over
 * IPC: 'ready' with its URL and key, then each line where the agent says where
 * the time to an answer went (voice.ts, stagesLine).
 *
 * Usage (by the parent): calls-oracle.ts <JSON of { env, mnemonic }>
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp } from '../src/runtime/app.ts';
import { didFromMnemonic } from '../src/lib/keys/keys.ts';

const { env, mnemonic } = JSON.parse(process.argv[2] ?? '{}') as { env: Record<string, string>; mnemonic: string };
const dir = mkdtempSync(join(tmpdir(), 'bench-calls-'));
const app = createOracleApp({
  config: { name: 'Bench Oracle', model: 'scripted-model', oracleDid: didFromMnemonic(mnemonic) },
  dbPath: join(dir, 'oracle.db'),
  logger: {
    info: (l) =>
      void (
        l.includes('after the end of turn') &&
        process.send!({ type: 'stages', line: l, at: performance.timeOrigin + performance.now() })
      ),
    error: () => {},
  },
  signingMnemonic: mnemonic,
  env: { ...env, LOG_LEVEL: 'silent' },
});
const url = await app.listen(0, '127.0.0.1');
process.send!({ type: 'ready', url });
process.on('message', (m: { type: string }) => {
  if (m.type !== 'stop') return;
  void app.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
