/**
 * Child process of bench/runtime.ts: the scripted model server and one oracle
 * runtime on loopback, so the parent's clients do not count in the runtime's
 * RSS. Talks to the parent over IPC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp } from '../src/daemon/runtime/app.ts';
import { generateMnemonic, didFromMnemonic } from '../src/lib/keys/index.ts';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';

const tokens = 50;
const dir = mkdtempSync(join(tmpdir(), 'oraclekit-bench-'));
const model = await startScriptedModelServer();
// the user message "go <n>" asks for n tokens (4-character deltas)
model.fallback = (body) => {
  const last = body.messages.at(-1)?.content;
  const n = Number(/go (\d+)/.exec(typeof last === 'string' ? last : '')?.[1] ?? tokens);
  return { steps: [{ type: 'text', text: 'tok '.repeat(n), chunkSize: 4 }] };
};
const mnemonic = generateMnemonic();
const app = createOracleApp({
  config: { name: 'Bench', model: 'scripted-model' },
  dbPath: join(dir, 'oracle.db'),
  logger: { info: () => {}, error: () => {} },
  signingMnemonic: mnemonic,
  env: { LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'bench' },
});
const url = await app.listen(0, '127.0.0.1');
while (!app.runtime.signingKeyLoaded) await new Promise((r) => setTimeout(r, 5));
// keep the model's request log from growing during the bench
setInterval(() => (model.requests.length = 0), 1000).unref();
process.send!({ type: 'ready', url, modelBaseURL: model.baseURL, oracleDid: didFromMnemonic(mnemonic) });
process.on('message', (m: { type: string }) => {
  if (m.type === 'rss' || m.type === 'rss-nogc') {
    if (m.type === 'rss') global.gc?.();
    process.send!({ type: 'rss', rss: process.memoryUsage().rss, sockets: app.socket()?.io.engine.clientsCount ?? 0 });
  } else if (m.type === 'stop') {
    void app.close().then(async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
