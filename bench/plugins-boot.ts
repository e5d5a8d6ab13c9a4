/**
 * Boot time to /ready with all the bundled plugins loaded, counterparts
 * already running (MCP servers, redis-server, Slack/Matrix/Composio APIs on
 * loopback). Target: under 1.5 s. Measures createOracleApp() → listen → the
 * first 200 from /ready, over several boots in one process (the first one
 * also pays module loading, reported separately).
 * Run: node bench/plugins-boot.ts [boots]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { startPluginCounterparts } from '../test/helpers/plugin-counterparts.ts';
import { quantile } from './stats.ts';

const boots = Number(process.argv[2] ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'ok-bench-boot-'));
const counterparts = await startPluginCounterparts(dir);
const env = counterparts.env;

const t0 = performance.now();
const { createOracleApp } = await import('../src/runtime/app.ts');
const { BUNDLED_PLUGINS } = await import('../src/runtime/plugins/index.ts');
const importMs = performance.now() - t0;

const times: number[] = [];
for (let i = 0; i < boots; i++) {
  const start = performance.now();
  const app = createOracleApp({
    config: { name: 'Bench', model: 'scripted-model', price: 1 },
    dbPath: join(mkdtempSync(join(dir, 'db-')), 'o.db'),
    logger: { info: () => {}, error: () => {} },
    signingMnemonic: generateMnemonic(wordlist),
    env,
  });
  const url = await app.listen(0, '127.0.0.1');
  for (;;) {
    const r = await fetch(`${url}/ready`);
    await r.arrayBuffer();
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 2));
  }
  times.push(performance.now() - start);
  const s = app.plugins.status();
  if (s.loaded.length !== BUNDLED_PLUGINS.length)
    throw new Error(
      `expected ${BUNDLED_PLUGINS.length} loaded, got ${s.loaded.join(', ')}; failed ${JSON.stringify(s.failed)}`,
    );
  await app.close();
}
const med = quantile(times, 0.5);
const max = Math.max(...times);
console.log(
  `node ${process.version}; ${boots} boots with all ${BUNDLED_PLUGINS.length} plugins loaded (counterparts already running)`,
);
console.log(`module import of the runtime (first boot only): ${importMs.toFixed(0)} ms`);
console.log(`first boot → /ready 200: ${times[0]!.toFixed(0)} ms`);
console.log(
  `median boot → /ready 200: ${med.toFixed(0)} ms; max ${max.toFixed(0)} ms (target < 1500 ms) ${max + importMs < 1500 ? 'OK' : 'CHECK'}`,
);
await counterparts.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
