/**
 * `oraclekit new <project-name>`: ask (or read the flags), sign in, register
 * the oracle in the network's registry, provision the Matrix bot, write the
 * project, install and initialise git. A failure or Ctrl+C removes what this
 * run created (the directory, or the files written into an existing one
 * with --force) and deactivates the domain it registered.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { cliError, type OracleKitError } from '../errors.ts';
import { askConfirm, askSelect, askText, type AskContext } from './ask.ts';
import { ensureIdentity, type AuthMethod, type LoginResult } from '../identity/login.ts';
import { connect, NETWORKS, type Connection, type Network } from '../registry/networks.ts';
import { deactivate, registerOracle, resolveClass } from './registry.ts';
import { DEFAULT_PORT, DEFAULT_URL, impliedPortNote, parseOracleUrl } from './url.ts';
import { writeProject, type OracleConfigFile } from './files.ts';
import { fileURLToPath } from 'node:url';
import type { MatrixBot } from './matrix.ts';

export interface NewInput {
  projectName: string;
  cwd: string;
  dir?: string;
  force: boolean;
  yes: boolean;
  interactive: boolean;
  auth?: AuthMethod;
  mnemonicFile?: string;
  mnemonicEnv?: string;
  generate?: boolean;
  timeout?: number;
  callbackHost?: string;
  callbackUrl?: string;
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
  matrix: { provisioned: true; userId: string; created: boolean } | { provisioned: false; reason: string; how: string };
  files: string[];
  installed: boolean;
  git: boolean;
  warnings: string[];
  timings: Record<string, number>;
}

const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]{0,213}$/i;
const DEFAULT_MODEL = 'openai/gpt-4o-mini';
const DEFAULT_LLM_BASE_URL = 'https://openrouter.ai/api/v1';

/**
 * The prices `new` accepts: 0 (free) or a positive decimal with at most 6
 * places — the credits ledger counts in millionths, so a finer price would be
 * rounded to another one (0.0000001 to 0, a free oracle that still asks to be
 * paid) — up to MAX_PRICE, where every sum of the ledger is still exact.
 */
const MAX_PRICE = 1_000_000_000;
const PRICE_VALID = `a number from 0 to ${MAX_PRICE} with at most 6 decimals (0 = free)`;
export function checkPrice(v: string): true | string {
  const t = v.trim();
  return /^\d+(\.\d{1,6})?$/.test(t) && Number(t) <= MAX_PRICE ? true : PRICE_VALID;
}

function cancelled(): OracleKitError {
  return cliError('cancelled', 'cancelled; removed what was created');
}

export async function runNew(i: NewInput, signal: AbortSignal): Promise<NewResult> {
  const env = i.env ?? process.env;
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const mark = (k: string, since: number) => (timings[k] = Math.round(performance.now() - since));
  if (!PROJECT_NAME.test(i.projectName)) {
    throw cliError('invalid_project_name', `project name ${JSON.stringify(i.projectName)} is not valid`, {
      field: 'project-name',
      value: i.projectName,
      valid: 'letters, digits, ".", "_" and "-", starting with a letter or digit',
    });
  }
  const dir = resolve(i.cwd, i.dir ?? i.projectName);
  const existed = existsSync(dir);
  if (existed && readdirSync(dir).length > 0 && !i.force) {
    throw cliError('directory_not_empty', `${dir} is not empty; choose another name or pass --force to write into it`, {
      field: 'force',
      value: dir,
    });
  }
  const ctx: AskContext = { yes: i.yes, interactive: i.interactive };

  // --- questions (each one is a flag)
  const explicitAuth = i.auth !== undefined;
  const { readIdentity } = await import('../identity/store.ts');
  const saved = readIdentity(env);
  const auth: AuthMethod =
    saved && !explicitAuth
      ? saved.wallet
        ? 'qr'
        : 'mnemonic'
      : await askSelect(ctx, 'auth', i.auth, {
          message: 'How do you sign in?',
          default: 'mnemonic',
          choices: [
            { value: 'qr', name: 'QR code — sign with your wallet' },
            { value: 'mnemonic', name: 'Offline mnemonic (BIP39)' },
          ],
        });
  const network = await askSelect<Network>(ctx, 'network', i.network, {
    message: 'Which network registers your oracle?',
    default: 'local',
    choices: NETWORKS.map((n) => ({
      value: n,
      name: n === 'local' ? 'local — the daemon’s registry (development)' : n,
    })),
  });
  const name = await askText(ctx, 'name', i.name, {
    message: 'Oracle name',
    default: i.projectName,
    validate: (v) => (v.trim() !== '' && v.length <= 128 ? true : '1–128 characters'),
  });
  const description = await askText(ctx, 'description', i.description, {
    message: 'Description',
    default: `${name}: an oracle built with oraclekit`,
    validate: (v) => (v.length <= 1024 ? true : 'at most 1024 characters'),
  });
  const priceText = await askText(ctx, 'price', i.price, {
    message: 'Price per use (0 = free)',
    default: '0',
    validate: checkPrice,
  });
  const model = await askText(ctx, 'model', i.model, {
    message: 'Model (OpenAI-compatible id)',
    default: DEFAULT_MODEL,
    validate: (v) => (v.trim() !== '' ? true : 'a model id'),
  });
  const oracleUrl = parseOracleUrl(i.url ?? DEFAULT_URL);
  const port = oracleUrl.local ? oracleUrl.port : (i.port ?? DEFAULT_PORT);
  if (i.port !== undefined && oracleUrl.local && i.port !== oracleUrl.port) {
    throw cliError(
      'port_mismatch',
      `--port ${i.port} disagrees with --url ${oracleUrl.url}; a local URL's port is the port the runtime listens on`,
      { field: 'port', value: i.port },
    );
  }
  const notes: string[] = [];
  const implied = impliedPortNote(oracleUrl);
  if (implied) notes.push(implied);
  const install = await askConfirm(ctx, 'install', i.install, {
    message: 'Install dependencies (npm install)?',
    default: true,
  });
  const git = await askConfirm(ctx, 'git', i.git, { message: 'Initialise a git repository?', default: true });
  if (signal.aborted) throw cancelled();

  // --- identity
  let t = performance.now();
  const id: LoginResult = await ensureIdentity({
    auth,
    explicit: explicitAuth,
    yes: i.yes,
    mnemonicFile: i.mnemonicFile,
    mnemonicEnv: i.mnemonicEnv,
    generate: i.generate,
    interactive: i.interactive,
    timeoutSeconds: i.timeout,
    callbackHost: i.callbackHost,
    callbackUrl: i.callbackUrl,
    env,
    signal,
  });
  mark('identity', t);
  if (id.created) i.log((await import('../identity/print.ts')).formatCreated(id));
  if (signal.aborted) throw cancelled();

  // --- registry
  t = performance.now();
  const conn: Connection = await connect({
    network,
    principal: id.principal,
    registry: i.registry,
    apiKey: i.apiKey,
    env,
  });
  if (conn.createdKey) i.log(`Created an API key for ${id.principal} on the local registry (saved in your settings)`);
  const cls = await resolveClass(conn, i.class, env);
  if (cls.created) i.log(`Registered the oracle protocol ${cls.did} (the class of your oracles) on the local registry`);
  const price = Number(priceText.trim());
  const domain = await registerOracle(conn, {
    class: cls.did,
    name,
    description,
    price,
    model,
    apiUrl: oracleUrl.url,
    wsUrl: oracleUrl.url,
    idempotencyKey: `oraclekit-new-${crypto.randomUUID()}`,
  });
  mark('register', t);
  i.log(`Registered ${name} as ${domain.id} on ${network} (${conn.url})`);

  const createdPaths: string[] = [];
  const cleanup = async () => {
    if (!existed) rmSync(dir, { recursive: true, force: true });
    else for (const p of createdPaths) rmSync(join(dir, p), { recursive: true, force: true });
    await deactivate(conn, domain.id);
  };
  try {
    if (signal.aborted) throw cancelled();
    // --- Matrix bot
    t = performance.now();
    let matrix: NewResult['matrix'];
    const homeserver = i.matrixHomeserver ?? env.MATRIX_BASE_URL;
    let bot: MatrixBot | undefined;
    if (i.matrix === false) {
      matrix = {
        provisioned: false,
        reason: 'skipped (--no-matrix)',
        how: 'set MATRIX_BASE_URL, MATRIX_ORACLE_ADMIN_USER_ID and MATRIX_ORACLE_ADMIN_ACCESS_TOKEN in .env',
      };
    } else if (!homeserver) {
      matrix = {
        provisioned: false,
        reason: 'no Matrix homeserver configured',
        how: 'pass --matrix-homeserver <url> (or set MATRIX_BASE_URL) next time, or set MATRIX_BASE_URL, MATRIX_ORACLE_ADMIN_USER_ID and MATRIX_ORACLE_ADMIN_ACCESS_TOKEN in .env',
      };
    } else {
      const { provisionBot, botLocalpart } = await import('./matrix.ts');
      bot = await provisionBot({
        baseUrl: homeserver,
        user: i.matrixUser ?? botLocalpart(i.projectName),
        password: i.matrixPassword,
        registrationToken: i.matrixRegistrationToken,
        deviceName: `oraclekit ${i.projectName}`,
      });
      matrix = { provisioned: true, userId: bot.userId, created: bot.created };
      i.log(`Matrix bot ${bot.userId} ${bot.created ? 'registered' : 'logged in'} on ${bot.baseUrl}`);
    }
    mark('matrix', t);
    if (signal.aborted) throw cancelled();

    // --- files
    t = performance.now();
    let signingMnemonic: string | undefined;
    const oracleKey = i.oracleKey ?? 'generate';
    if (oracleKey === 'generate') signingMnemonic = (await import('../../lib/keys/keys.ts')).generateMnemonic();
    else if (oracleKey === 'identity') signingMnemonic = id.identity.mnemonic;
    const config: OracleConfigFile = {
      name,
      description,
      model,
      prompt: `You are ${name}. ${description}`.trim(),
      oracleDid: domain.id,
      price,
      network,
      apiUrl: oracleUrl.url,
      wsUrl: oracleUrl.url,
      ...(conn.local ? {} : { registry: conn.url }),
    };
    const { packageVersion } = await import('../../lib/version.ts');
    if (!existed) mkdirSync(dir, { recursive: true });
    const before = new Set(existed ? readdirSync(dir) : []);
    const files = writeProject(dir, {
      packageName: basename(dir).toLowerCase(),
      oraclekitSpec: i.oraclekitSpec ?? defaultOraclekitSpec(packageVersion()),
      config,
      env: {
        port,
        host: oracleUrl.bindHost,
        llmBaseUrl: i.llmBaseUrl ?? DEFAULT_LLM_BASE_URL,
        ...(signingMnemonic ? { signingMnemonic } : {}),
        ...(bot
          ? {
              matrix: {
                baseUrl: bot.baseUrl,
                userId: bot.userId,
                accessToken: bot.accessToken,
                ...(i.matrixPassword ? {} : { password: bot.password }),
              },
            }
          : {}),
        ...(conn.local ? {} : { registryUrl: conn.url }),
      },
    });
    for (const top of new Set(files.map((f) => f.split('/')[0]!))) if (!before.has(top)) createdPaths.push(top);
    const regKey = await (await import('./registry-key.ts')).provisionRegistryKey(conn, dir, domain.id);
    i.log(
      regKey.provisioned
        ? `Provisioned a read-only registry key for ${domain.id} (ORACLEKIT_API_KEY in .env, mode 0600)`
        : regKey.reason,
    );
    mark('files', t);
    if (signal.aborted) throw cancelled();

    // --- install, git
    const warnings: string[] = [...notes];
    let installed = false;
    if (install) {
      t = performance.now();
      i.log('Installing dependencies (npm install)…');
      const { execa } = await import('execa');
      const r = await execa('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: dir,
        reject: false,
        cancelSignal: signal,
        all: true,
      });
      if (signal.aborted) throw cancelled();
      installed = r.exitCode === 0;
      if (!installed)
        warnings.push(
          `npm install failed (exit ${r.exitCode}); the project is complete — run \`npm install\` in ${dir} yourself:\n${String(
            r.all ?? '',
          )
            .split('\n')
            .slice(-10)
            .join('\n')}`,
        );
      mark('install', t);
    }
    let gitDone = false;
    if (git) {
      const { execa } = await import('execa');
      const r = await execa('git', ['init', '-q'], { cwd: dir, reject: false });
      if (r.exitCode === 0) {
        await execa('git', ['add', '-A'], { cwd: dir, reject: false });
        const c = await execa('git', ['commit', '-q', '-m', `oraclekit new ${i.projectName}`], {
          cwd: dir,
          reject: false,
        });
        gitDone = true;
        if (c.exitCode !== 0)
          warnings.push('git: initialised and staged; the first commit needs your git user.name/user.email');
      } else warnings.push(`git init failed: ${r.stderr || r.message}`);
    }
    timings.total = Math.round(performance.now() - t0);
    return {
      project: i.projectName,
      dir,
      did: domain.id,
      class: cls.did,
      classCreated: cls.created,
      network,
      registry: conn.url,
      apiUrl: oracleUrl.url,
      wsUrl: oracleUrl.url,
      port,
      identity: { did: id.principal, method: id.method, source: id.source, path: id.path, created: id.created },
      apiKeyCreated: conn.createdKey,
      matrix,
      files,
      installed,
      git: gitDone,
      warnings,
      timings,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * The scaffolded project's oraclekit dependency: `^<version>` when this CLI
 * is an installed package, but `file:<checkout>` when it runs from a source
 * checkout (it has src/ and is not under node_modules), so that `npm install`
 * in the new project works before oraclekit is published to the registry.
 */
export function defaultOraclekitSpec(
  version: string,
  root = fileURLToPath(new URL('../../../', import.meta.url)),
): string {
  const fromCheckout =
    !root.includes(`${'/'}node_modules${'/'}`) &&
    existsSync(join(root, 'src')) &&
    existsSync(join(root, 'package.json'));
  return fromCheckout ? `file:${resolve(root)}` : `^${version}`;
}
