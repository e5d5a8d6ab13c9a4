/**
 * `oraclekit new <project-name>`: each step is a module of its own — the name (project-name.ts), the questions
 * (questions.ts), the sign-in (sign-in.ts), the registration (register.ts), the Matrix bot (matrix-bot.ts), the files
 * (write.ts), then npm install and git (install.ts). A failure or Ctrl+C after the registration removes what this run
 * created (the directory, or the files written into an existing one with --force) and deactivates the domain.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliError, type OracleKitError } from '../errors.ts';
import type { AskContext } from './ask.ts';
import type { AuthMethod } from '../identity/login.ts';
import type { Network } from '../registry/networks.ts';
import { deactivate } from './registry.ts';
import { DEFAULT_PORT, DEFAULT_URL, impliedPortNote, isLocalHost, parseOracleUrl } from './url.ts';
import { projectName } from './project-name.ts';
import { askQuestions } from './questions.ts';
import { signIn, type SignInInput } from './sign-in.ts';
import { register } from './register.ts';
import { matrixBot, type MatrixOutcome } from './matrix-bot.ts';
import { writeFiles } from './write.ts';
import { callsSource, defaultOraclekitSource, givenOraclekitSource } from './oraclekit-dep.ts';
import type { NewFlags } from './flags.ts';

/** The sign-in options are sign-in.ts's own; `auth` is asked for on a terminal when missing. */
interface NewInput extends Omit<SignInInput, 'auth' | 'explicit'> {
  /** The project (and directory) name; asked on a terminal when missing. */
  projectName?: string;
  cwd: string;
  dir?: string;
  force: boolean;
  yes: boolean;
  interactive: boolean;
  auth?: AuthMethod;
  network?: Network;
  registry?: string;
  apiKey?: string;
  class?: string;
  name?: string;
  description?: string;
  price?: string;
  model?: string;
  prompt?: string;
  url?: string;
  port?: number;
  oracleKey?: 'generate' | 'identity' | 'none';
  install?: boolean;
  git?: boolean;
  oraclekitSpec?: string;
  matrix?: boolean;
  matrixHomeserver?: string;
  matrixUser?: string;
  matrixPassword?: string;
  matrixRegistrationToken?: string;
  llmBaseUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

export interface NewResult {
  project: string;
  dir: string;
  did: string;
  class: string;
  classCreated: boolean;
  network: Network;
  registry: string;
  apiUrl: string;
  wsUrl: string;
  port: number;
  identity: { did: string; method: AuthMethod; source: string; path: string; created: boolean };
  apiKeyCreated: boolean;
  /** The model endpoint in .env (LLM_BASE_URL) and whether it is on this machine (then no key is needed). */
  llm: { baseUrl: string; local: boolean };
  matrix: MatrixOutcome;
  files: string[];
  installed: boolean;
  git: boolean;
  warnings: string[];
  timings: Record<string, number>;
}

/** The input of a run from the command line: the argument, the flags, where it runs and whether it may ask. */
export function newInput(
  projectName: string | undefined,
  f: NewFlags,
  o: { cwd: string; interactive: boolean; log: (line: string) => void },
): NewInput {
  return {
    projectName,
    ...o,
    dir: f.dir,
    force: f.force ?? false,
    yes: f.yes ?? false,
    auth: f.auth as AuthMethod | undefined,
    mnemonicFile: f['mnemonic-file'],
    mnemonicEnv: f['mnemonic-env'],
    generate: f.generate,
    timeout: f.timeout,
    callbackHost: f['callback-host'],
    callbackUrl: f['callback-url'],
    network: f.network as Network | undefined,
    registry: f.registry,
    apiKey: f['api-key'],
    class: f.class,
    name: f.name,
    description: f.description,
    price: f.price,
    model: f.model,
    url: f.url,
    port: f.port,
    oracleKey: f['oracle-key'] as NewInput['oracleKey'],
    llmBaseUrl: f['llm-base-url'],
    install: f.install,
    git: f.git,
    oraclekitSpec: f['oraclekit-version'],
    matrix: f.matrix,
    matrixHomeserver: f['matrix-homeserver'],
    matrixUser: f['matrix-user'],
    matrixPassword: f['matrix-password'],
    matrixRegistrationToken: f['matrix-registration-token'],
  };
}

const DEFAULT_LLM_BASE_URL = 'https://openrouter.ai/api/v1';

function cancelled(): OracleKitError {
  return cliError('cancelled', 'cancelled; removed what was created');
}

/** The directory: ./<project-name> or --dir; a non-empty one only with --force. */
function targetDir(i: NewInput, name: string): { dir: string; existed: boolean } {
  const dir = resolve(i.cwd, i.dir ?? name);
  const existed = existsSync(dir);
  if (existed && readdirSync(dir).length > 0 && !i.force)
    throw cliError('directory_not_empty', `${dir} is not empty; choose another name or pass --force to write into it`, {
      field: 'force',
      value: dir,
    });
  return { dir, existed };
}

/** The registered URL and the port the runtime listens on: a local URL's own port; --port only behind a proxy. */
function urlAndPort(i: NewInput) {
  const url = parseOracleUrl(i.url ?? DEFAULT_URL);
  if (i.port !== undefined && url.local && i.port !== url.port)
    throw cliError(
      'port_mismatch',
      `--port ${i.port} disagrees with --url ${url.url}; a local URL's port is the port the runtime listens on`,
      { field: 'port', value: i.port },
    );
  return { url, port: url.local ? url.port : (i.port ?? DEFAULT_PORT), note: impliedPortNote(url) };
}

/** Times each step by name (the timings of `new --json`). */
function stepTimings() {
  const timings: Record<string, number> = {};
  const timed = async <T>(k: string, step: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await step();
    } finally {
      timings[k] = Math.round(performance.now() - t);
    }
  };
  return { timings, timed };
}

/** What a run shares with its steps once the project is registered: where, what, for whom, and how to stop. */
interface Registered {
  name: string;
  dir: string;
  existed: boolean;
  url: ReturnType<typeof urlAndPort>['url'];
  port: number;
  note: string | undefined;
  answers: Awaited<ReturnType<typeof askQuestions>>;
  id: Awaited<ReturnType<typeof signIn>>;
  reg: Awaited<ReturnType<typeof register>>;
  timed: ReturnType<typeof stepTimings>['timed'];
  check: () => void;
  /** Paths written so far (removed again if a later step fails in a directory that existed). */
  created: string[];
}

export async function runNew(i: NewInput, signal: AbortSignal): Promise<NewResult> {
  const env = i.env ?? process.env;
  const t0 = performance.now();
  const { timings, timed } = stepTimings();
  const check = () => {
    if (signal.aborted) throw cancelled();
  };
  const ctx: AskContext = { yes: i.yes, interactive: i.interactive };
  const name = await projectName(ctx, i.projectName);
  const { dir, existed } = targetDir(i, name);
  const { url, port, note } = urlAndPort(i); // a bad --url or --port is said before any question
  const { readIdentity } = await import('../identity/store.ts');
  const saved = readIdentity(env);
  const answers = await askQuestions(ctx, {
    ...i,
    projectName: name,
    savedAuth: saved && (saved.wallet ? 'qr' : 'mnemonic'),
  });
  check();

  const id = await timed('identity', () =>
    signIn(ctx, { ...i, auth: answers.auth, explicit: i.auth !== undefined }, env, i.log, signal),
  );
  check();
  const reg = await timed('register', () =>
    register({ ...i, network: answers.network, principal: id.principal, url: url.url }, answers, env, i.log),
  );
  const created: string[] = [];
  try {
    check();
    const r: Registered = { name, dir, existed, url, port, note, answers, id, reg, timed, check, created };
    const result = await createProject(i, env, r, signal);
    timings.total = Math.round(performance.now() - t0);
    return { ...result, timings };
  } catch (e) {
    if (!existed) rmSync(dir, { recursive: true, force: true });
    else for (const p of created) rmSync(join(dir, p), { recursive: true, force: true });
    await deactivate(reg.conn, reg.domain.id);
    throw e;
  }
}

/** The project's files once it is registered: the Matrix bot, the files, npm install and git init. */
async function createProject(
  i: NewInput,
  env: NodeJS.ProcessEnv,
  r: Registered,
  signal: AbortSignal,
): Promise<Omit<NewResult, 'timings'>> {
  const { name, dir, url, port, answers, id, reg, timed, check } = r;
  const { matrix, bot } = await timed('matrix', () =>
    matrixBot(
      {
        projectName: name,
        matrix: i.matrix,
        homeserver: i.matrixHomeserver ?? env.MATRIX_BASE_URL,
        user: i.matrixUser,
        password: i.matrixPassword,
        registrationToken: i.matrixRegistrationToken,
      },
      i.log,
    ),
  );
  check();
  const oracleKey = i.oracleKey ?? 'generate';
  const signingMnemonic =
    oracleKey === 'generate'
      ? (await import('../../lib/keys/keys.ts')).generateMnemonic()
      : oracleKey === 'identity'
        ? id.identity.mnemonic
        : undefined;
  const { packageVersion } = await import('../../lib/version.ts');
  const llmBaseUrl = i.llmBaseUrl ?? DEFAULT_LLM_BASE_URL;
  const oraclekit = i.oraclekitSpec
    ? givenOraclekitSource(i.oraclekitSpec, i.cwd)
    : defaultOraclekitSource(packageVersion());
  const files = await timed('files', () =>
    writeFiles(
      {
        dir,
        existed: r.existed,
        answers,
        url,
        port,
        llmBaseUrl,
        signingMnemonic,
        bot,
        botPasswordGenerated: !i.matrixPassword,
        oraclekit,
        calls: callsSource(oraclekit, packageVersion()),
      },
      reg,
      env,
      i.log,
      r.created,
      signal,
    ),
  );
  check();
  const { installed, git, warnings } = await installAndInit(i, r, signal);
  return {
    project: name,
    dir,
    did: reg.domain.id,
    class: reg.cls.did,
    classCreated: reg.cls.created,
    network: answers.network,
    registry: reg.conn.url,
    apiUrl: url.url,
    wsUrl: url.url,
    port,
    identity: { did: id.principal, method: id.method, source: id.source, path: id.path, created: id.created },
    apiKeyCreated: reg.conn.createdKey,
    llm: { baseUrl: llmBaseUrl, local: URL.canParse(llmBaseUrl) && isLocalHost(new URL(llmBaseUrl).hostname) },
    matrix,
    files,
    installed,
    git,
    warnings,
  };
}

/** npm install and git init when asked for; what either could not do is a warning, not a failure. */
async function installAndInit(
  i: NewInput,
  r: Registered,
  signal: AbortSignal,
): Promise<{ installed: boolean; git: boolean; warnings: string[] }> {
  const warnings: string[] = r.note ? [r.note] : [];
  let installed = false;
  if (r.answers.install) {
    i.log('Installing dependencies (npm install)…');
    const x = await r.timed('install', async () => (await import('./install.ts')).npmInstall(r.dir, signal));
    r.check();
    installed = x.installed;
    if (x.warning) warnings.push(x.warning);
  }
  let git = false;
  if (r.answers.git) {
    const x = await (await import('./install.ts')).gitInit(r.dir, `oraclekit new ${r.name}`);
    git = x.git;
    if (x.warning) warnings.push(x.warning);
  }
  return { installed, git, warnings };
}
