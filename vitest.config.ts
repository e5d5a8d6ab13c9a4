import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // the workspace package @oraclekit/calls and the runtime's plugin entry it imports run from their sources, so the
  // runtime and the package share one instance of each module (as their built files do once installed)
  resolve: {
    alias: [
      { find: /^oraclekit\/plugin$/, replacement: src('plugin.ts') },
      { find: /^@oraclekit\/calls$/, replacement: src('calls/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // oclif writes to process.stdout directly; keep its output visible
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
  },
});
