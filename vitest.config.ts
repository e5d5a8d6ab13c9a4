import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // the Node 22 pass (test/node22/vitest.config.ts, run by scripts/test.sh under Node 22)
    exclude: [...configDefaults.exclude, 'test/node22/**'],
    // oclif writes to process.stdout directly; keep its output visible
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
  },
});
