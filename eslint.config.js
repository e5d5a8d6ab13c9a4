// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint-rules/layers.js';

/** The parts of src/lib that do file or process I/O; the rest of src/lib is pure (no node:fs, no child processes). */
const LIB_IO = [
  'src/lib/paths.ts',
  'src/lib/version.ts',
  'src/lib/discovery.ts',
  'src/lib/secret-file.ts',
  'src/lib/selection/workflow.ts',
  'src/lib/selection/frame.ts',
  'src/lib/selection/select.ts',
  'src/lib/selection/output.ts',
  'src/lib/selection/verify.ts',
  'src/lib/beacon/drand.ts',
  'src/lib/beacon/verify-worker.ts',
];
const HEAVY = ['fastify*', '@fastify/*', 'ink', 'react', 'undici', 'execa', 'socket.io*', '@oclif/*'];
const IO_MODULES = [
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'child_process',
  'node:child_process',
  'worker_threads',
  'node:worker_threads',
  'net',
  'node:net',
  'http',
  'node:http',
  'https',
  'node:https',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'src/client/dist/**',
      'src/calls/dist/**',
      'dist-check/**',
      'node_modules/**',
      '.tools/**',
      'templates/**/node_modules/**',
      'coverage/**',
      'bench/out/**',
      'oclif.manifest.json',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { oraclekit: layers },
    rules: { 'oraclekit/layers': 'error' },
  },
  {
    files: ['src/lib/**/*.ts'],
    ignores: LIB_IO,
    rules: {
      // src/lib is pure logic: no I/O, no frameworks, no heavy UI or network modules
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({
            name,
            message:
              'src/lib is pure: file, process and network I/O belong to src/cli, src/daemon, src/runtime or src/storage (or to a module listed in LIB_IO in eslint.config.js)',
          })),
          patterns: HEAVY,
        },
      ],
    },
  },
  {
    files: LIB_IO,
    rules: {
      'no-restricted-imports': ['error', { patterns: HEAVY }],
    },
  },
);
