/**
 * The Node 22 pass: the paths users take, on the oldest Node they may run (Node 22.22.2, src/lib/node-support.ts),
 * from the packed tarballs as a user installs them. scripts/test.sh runs it after the whole suite on Node 24:
 *   ORACLEKIT_NODE_LINE=22 source scripts/node-env.sh && npx vitest run --config test/node22/vitest.config.ts
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: join(import.meta.dirname, '../..'),
  test: {
    // the client in Chromium runs as the main pass has it: its page built by Vite and its oracle, now on Node 22
    include: ['test/node22/**/*.test.ts', 'test/e2e/client-browser.test.ts'],
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    hookTimeout: 360_000,
    // one file at a time: each installs and runs whole programs, and the pass's time is theirs added up
    fileParallelism: false,
    globalSetup: ['test/global-setup.ts', 'test/node22/global-setup.ts'],
    pool: 'forks',
  },
});
