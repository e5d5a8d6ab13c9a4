/**
 * `new`'s files: the oracle's signing key, oracle.config.json, .env, the project from templates/oracle, oraclekit
 * vendored when it is not on the registry (oraclekit-dep.ts), and the oracle's read-only registry key in .env.
 * Returns the files written and the top-level paths this run created (what a cleanup removes).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { writeProject, type OracleConfigFile } from './files.ts';
import { oraclekitDependency, type OraclekitSource } from './oraclekit-dep.ts';
import type { Registered } from './register.ts';
import type { Answers } from './questions.ts';
import type { MatrixBot } from './matrix.ts';
import type { OracleUrl } from './url.ts';

interface WriteInput {
  dir: string;
  existed: boolean;
  answers: Answers;
  url: OracleUrl;
  port: number;
  llmBaseUrl: string;
  /** The oracle's own signing mnemonic (none: left blank). */
  signingMnemonic?: string;
  bot?: MatrixBot;
  /** Whether the bot's password was generated (then .env keeps it). */
  botPasswordGenerated: boolean;
  oraclekit: OraclekitSource;
  /** Where @oraclekit/calls comes from (oraclekit-dep.ts, callsSource). */
  calls: OraclekitSource;
}

export async function writeFiles(
  w: WriteInput,
  reg: Registered,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  created: string[],
  signal: AbortSignal,
): Promise<string[]> {
  const { conn, domain } = reg;
  const a = w.answers;
  const config: OracleConfigFile = {
    name: a.name,
    description: a.description,
    model: a.model,
    prompt: `You are ${a.name}. ${a.description}`.trim(),
    oracleDid: domain.id,
    price: a.price,
    network: conn.network,
    apiUrl: w.url.url,
    wsUrl: w.url.url,
    ...(conn.local ? {} : { registry: conn.url }),
  };
  if (!w.existed) mkdirSync(w.dir, { recursive: true });
  const before = new Set(w.existed ? readdirSync(w.dir) : []);
  const track = () => {
    for (const top of readdirSync(w.dir)) if (!before.has(top) && !created.includes(top)) created.push(top);
  };
  try {
    const dep = await oraclekitDependency(w.dir, w.oraclekit, env, signal);
    const callsDep = await oraclekitDependency(w.dir, w.calls, env, signal);
    const files = writeProject(w.dir, {
      packageName: basename(w.dir).toLowerCase(),
      oraclekitSpec: dep.spec,
      callsSpec: callsDep.spec,
      config,
      env: {
        port: w.port,
        host: w.url.bindHost,
        llmBaseUrl: w.llmBaseUrl,
        ...(w.signingMnemonic ? { signingMnemonic: w.signingMnemonic } : {}),
        ...(w.bot
          ? {
              matrix: {
                baseUrl: w.bot.baseUrl,
                userId: w.bot.userId,
                accessToken: w.bot.accessToken,
                ...(w.botPasswordGenerated ? { password: w.bot.password } : {}),
              },
            }
          : {}),
        ...(conn.local ? {} : { registryUrl: conn.url }),
      },
    });
    if (dep.vendored) {
      files.push(dep.vendored);
      log(`Packed oraclekit into the project as ${dep.vendored} (package.json: "oraclekit": "${dep.spec}")`);
    }
    if (callsDep.vendored) {
      files.push(callsDep.vendored);
      log(`Packed @oraclekit/calls into the project as ${callsDep.vendored}`);
    }
    const regKey = await (await import('./registry-key.ts')).provisionRegistryKey(conn, w.dir, domain.id);
    log(
      regKey.provisioned
        ? `Provisioned a read-only registry key for ${domain.id} (ORACLEKIT_API_KEY in .env, mode 0600)`
        : regKey.reason,
    );
    return files.sort();
  } finally {
    track();
  }
}
