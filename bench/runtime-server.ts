/**
 * Child process of bench/runtime.ts: one oracle runtime on loopback (SQLite
 * file, synchronous=FULL, UCAN auth on every request), its model at the
 * LLM_BASE_URL the parent passes (bench/model-server.ts, another process), so
 * neither the clients nor the model server count in the runtime's CPU or RSS.
 * Talks to the parent over IPC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp } from '../src/runtime/app.ts';
import { generateMnemonic, didFromMnemonic } from '../src/lib/keys/keys.ts';

const modelBaseURL = process.argv[2];
if (!modelBaseURL) throw new Error('usage: runtime-server.ts <model base URL>');
const dir = mkdtempSync(join(tmpdir(), 'oraclekit-bench-'));
const mnemonic = generateMnemonic();
const app = createOracleApp({
  config: { name: 'Bench', model: 'scripted-model' },
  dbPath: join(dir, 'oracle.db'),
  logger: { info: () => {}, error: () => {} },
  signingMnemonic: mnemonic,
  // ORACLE_REDIS_URL in the bench's environment: the instance fans its runs out through that Redis (docs/scaling.md)
  env: {
    LLM_BASE_URL: modelBaseURL,
    LLM_PROVIDER_API_KEY: 'bench',
    ...(process.env.ORACLE_REDIS_URL ? { ORACLE_REDIS_URL: process.env.ORACLE_REDIS_URL } : {}),
  },
});
const url = await app.listen(0, '127.0.0.1');
while (!app.runtime.signingKeyLoaded) await new Promise((r) => setTimeout(r, 5));
process.send!({ type: 'ready', url, oracleDid: didFromMnemonic(mnemonic) });
process.on('message', (m: { type: string }) => {
  if (m.type === 'rss' || m.type === 'rss-nogc') {
    if (m.type === 'rss') global.gc?.();
    process.send!({ type: 'rss', rss: process.memoryUsage().rss, sockets: app.socket()?.io.engine.clientsCount ?? 0 });
  } else if (m.type === 'stop') {
    void app.close().then(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
