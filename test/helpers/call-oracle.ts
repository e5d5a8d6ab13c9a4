/**
 * An oracle in a process of its own (createOracleApp from this checkout's build, its embedded LiveKit-protocol endpoint and
 * its call agent), for tests that kill it mid-call. Its log lines go to stdout; its URL as `listening <url>`.
 *
 * Usage: node test/helpers/call-oracle.ts <JSON of { env, mnemonic, features?, corsOrigins? }>
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// the built runtime (npm run build), as @oraclekit/calls, which resolves to its own dist/, runs against it: one copy
// of the runtime's classes on both sides
import { createOracleApp } from '../../dist/runtime/app.js';
import { didFromMnemonic } from '../../dist/lib/keys/keys.js';

const o = JSON.parse(process.argv[2] ?? '{}') as {
  env: Record<string, string>;
  mnemonic: string;
  features?: Record<string, boolean>;
  corsOrigins?: string[];
};
const dir = mkdtempSync(join(tmpdir(), 'call-oracle-'));
const say = (l: string) => void process.stdout.write(`${l}\n`);
const app = createOracleApp({
  config: { name: 'Call Oracle', model: 'scripted-model', oracleDid: didFromMnemonic(o.mnemonic) },
  dbPath: join(dir, 'oracle.db'),
  logger: { info: say, error: say },
  signingMnemonic: o.mnemonic,
  ...(o.features ? { features: o.features } : {}),
  ...(o.corsOrigins ? { corsOrigins: o.corsOrigins } : {}),
  env: { LOG_LEVEL: 'info', ...o.env },
});
const url = await app.listen(0, '127.0.0.1');
say(`listening ${url}`);
const stop = () =>
  void app.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
process.on('SIGTERM', stop);
