// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint-rules/layers.js';
import issueNumbers from './eslint-rules/issue-numbers.js';

/** The parts of src/lib that do file or process I/O; the rest of src/lib is pure (no node:fs, no child processes). */
const LIB_IO = [
  'src/lib/paths.ts',
  'src/lib/version.ts',
  'src/lib/discovery.ts',
  'src/lib/secret-file.ts',
  'src/lib/project-files.ts',
  'src/lib/selection/workflow.ts',
  'src/lib/selection/frame.ts',
  'src/lib/selection/select.ts',
  'src/lib/selection/output.ts',
  'src/lib/selection/selection-file.ts',
  'src/lib/beacon/drand.ts',
  'src/lib/beacon/verify-worker.ts',
];
/** Copies of the blank-variable rule (`v.trim() === '' ? undefined : v`): src/lib/env.ts is its one home. */
const BLANK_MESSAGE =
  'the blank-variable rule lives in src/lib/env.ts: parse an environment with parseEnv (a blank variable is already unset), or ask isBlank';
const BLANK_RULES = [
  "ConditionalExpression[consequent.type='Identifier'][consequent.name='undefined'] > BinaryExpression[right.value=''] > CallExpression[callee.property.name='trim']",
  "ConditionalExpression[consequent.type='Identifier'][consequent.name='undefined'] > LogicalExpression > BinaryExpression[right.value=''] > CallExpression[callee.property.name='trim']",
].map((selector) => ({ selector, message: BLANK_MESSAGE }));
/** A plugin reading the system clock: the runtime's clock is its context's now(). */
const CLOCK_RULES = [
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: "a plugin reads the runtime's clock: ctx.now() (tests move it), never Date.now()",
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: "a plugin reads the runtime's clock: new Date(ctx.now()), never new Date()",
  },
];
/** SHA-256 named outside src/lib/hash.ts (sha256Hex, createSha256). */
const SHA256_RULES = [
  {
    selector: "CallExpression[callee.name='createHash'][arguments.0.value='sha256']",
    message: 'SHA-256 lives in src/lib/hash.ts: sha256Hex, or createSha256 for what is hashed as it streams',
  },
];
/** A configuration file read by hand (JSON.parse of a file's text) instead of through its schema. */
const CONFIG_READ_RULES = [
  {
    selector:
      "CallExpression[callee.object.name='JSON'][callee.property.name='parse'] > CallExpression[callee.name='readFileSync']",
    message:
      'a configuration file is read through its zod schema: src/lib/json-file.ts (parseJsonFile), or src/lib/project-files.ts for oracle.config.json and .env',
  },
];
/**
 * A file given mode 0600 by hand (a write, an open or a chmod with 0o600): a file that holds a key is written by
 * src/lib/secret-file.ts (writeSecretFile, keepSecretFileMode).
 */
const SECRET_FILE_RULES = [
  {
    selector: 'Literal[value=384]',
    message:
      'a file that holds a key is written through src/lib/secret-file.ts (writeSecretFile; keepSecretFileMode puts a read key file back to 0600); a private file that holds no key is listed in SECRET_FILE_EXCEPTIONS in eslint.config.js and in the secret-files row of docs/architecture.md',
  },
];
/**
 * The private files (0600) that hold no key, each named in the secret-files row of docs/architecture.md: the
 * secret-file writer itself, the chat's input history, the message handed to $EDITOR, the
 * database files, the daemon's log and its lock file.
 */
const SECRET_FILE_EXCEPTIONS = [
  'src/lib/secret-file.ts',
  'src/cli/chat/history.ts',
  'src/ui/hooks/use-screen-commands.ts',
  'src/storage/files.ts',
  'src/cli/daemon/control.ts',
  'src/lib/discovery.ts',
];
const ONE_HOME_RULES = [...BLANK_RULES, ...SHA256_RULES, ...CONFIG_READ_RULES, ...SECRET_FILE_RULES];
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
    plugins: { oraclekit: { rules: { ...layers.rules, ...issueNumbers.rules } } },
    rules: { 'oraclekit/layers': 'error', 'oraclekit/no-issue-numbers': 'error' },
  },
  {
    // the one-home checks of docs/architecture.md: the env rule lives in src/lib/env.ts (parseEnv), SHA-256 in
    // src/lib/hash.ts, configuration files are read through their schema, a file is made 0600 only by the
    // secret-file writer; a plugin's clock is its context's now() (the bundled plugins and the calls package alike).
    // What sample commands read (a package's report, a survey's files) is data, not configuration.
    files: ['src/**/*.ts', 'src/**/*.tsx', 'templates/oracle/src/**/*.ts'],
    ignores: ['src/lib/env.ts', 'src/runtime/plugins/**', 'src/calls/**'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_HOME_RULES] },
  },
  {
    // private files that hold no key keep their own 0600 (the list above); every other one-home check holds there
    files: SECRET_FILE_EXCEPTIONS,
    rules: { 'no-restricted-syntax': ['error', ...BLANK_RULES, ...SHA256_RULES, ...CONFIG_READ_RULES] },
  },
  {
    files: ['src/lib/hash.ts', 'src/lib/version.ts', 'src/cli/sample/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...BLANK_RULES, ...SECRET_FILE_RULES] },
  },
  {
    files: ['src/runtime/plugins/**/*.ts', 'src/calls/**/*.ts'],
    ignores: ['src/calls/dist/**'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_HOME_RULES, ...CLOCK_RULES] },
  },
  {
    // the scaffold's example plugin is what plugin authors copy: the context's clock only
    files: ['templates/oracle/src/plugins/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_HOME_RULES, ...CLOCK_RULES] },
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
