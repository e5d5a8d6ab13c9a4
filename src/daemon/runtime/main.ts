/**
 * Process entry of a standalone oracle (`node dist/daemon/runtime/main.js`,
 * what a scaffolded project's `npm start` runs): reads oracle.config.json
 * from the working directory (or ORACLE_CONFIG), listens on PORT, and exits
 * non-zero with the `[boot-error] …` line when boot fails.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createOracleApp } from './app.ts';
import { BootError } from './boot.ts';

async function main(): Promise<void> {
  const path = resolve(process.env.ORACLE_CONFIG ?? 'oracle.config.json');
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    console.error(`[boot-error] cannot read ${path}: ${(e as Error).message}. Create oracle.config.json or set 'ORACLE_CONFIG'`);
    process.exit(1);
  }
  try {
    const app = createOracleApp({ config: config as never });
    const url = await app.listen();
    console.log(`listening on ${url}`);
    const stop = () => void app.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (e) {
    console.error(e instanceof BootError ? e.line : `[boot-error] ${(e as Error).message}`);
    process.exit(1);
  }
}

void main();
