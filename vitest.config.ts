import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * The files that measure time or drive a screen: live calls (their latency and barge-in windows), Chromium pages,
 * tmux at 80x24, cold start and spinners, time-out budgets of a second or two (tool and sub-agent time-outs, a
 * daemon's start and restart, instances of a cluster booting and reconnecting). They run one at a time after the
 * rest, with the machine to themselves, so their figures are the code's and not a neighbour's.
 */
const alone = [
  'test/e2e/calls*.test.ts',
  'test/e2e/*tmux*.test.ts',
  'test/e2e/client-browser.test.ts',
  'test/e2e/sample-report.test.ts',
  'test/e2e/cold-start.test.ts',
  'test/e2e/daemon-progress.test.ts',
  'test/e2e/setup-scripts.test.ts',
  'test/e2e/runtime-credentials.test.ts',
  'test/e2e/runtime-plugins.test.ts',
  'test/e2e/runtime-cluster*.test.ts',
  'test/e2e/daemon*.test.ts',
  'test/e2e/identity*.test.ts',
  'test/unit/runtime/plugins/calls/vad.test.ts',
];

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
    // oclif writes to process.stdout directly; keep its output visible
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    // a daemon a test starts takes any free port, never the default one: the developer's own daemon may hold it
    env: { ORACLEKIT_DAEMON_PORT: '0' },
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          // the Node 22 pass (test/node22/vitest.config.ts, run by scripts/test.sh under Node 22)
          exclude: [...configDefaults.exclude, 'test/node22/**', ...alone],
          // two files at once on any machine: most of these wait on child processes, installs and sockets, and
          // none times itself
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: alone,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
