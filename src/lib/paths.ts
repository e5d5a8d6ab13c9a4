/**
 * oraclekit's directories, one resolver for the CLI and the daemon:
 * $ORACLEKIT_HOME/{state,data,config} when set (tests isolate with it), else
 * the XDG base directories, else their defaults under the home directory.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { toolEnv } from './env.ts';

type Env = NodeJS.ProcessEnv;

export function stateDir(env: Env = process.env): string {
  const home = toolEnv(env).home;
  if (home) return join(home, 'state');
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'oraclekit');
  return join(homedir(), '.local/state/oraclekit');
}

function dataDir(env: Env = process.env): string {
  const home = toolEnv(env).home;
  if (home) return join(home, 'data');
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'oraclekit');
  return join(homedir(), '.local/share/oraclekit');
}

export function configDir(env: Env = process.env): string {
  const home = toolEnv(env).home;
  if (home) return join(home, 'config');
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'oraclekit');
  return join(homedir(), '.config/oraclekit');
}

export const DEFAULT_PORT = 4781;
export const DEFAULT_HOST = '127.0.0.1';

export const discoveryPath = (env = process.env) => join(stateDir(env), 'daemon.json');
export const logPath = (env = process.env) => join(stateDir(env), 'daemon.log');
export const dbPath = (env = process.env) => toolEnv(env).db ?? join(dataDir(env), 'registry.db');
export const configPath = (env = process.env) => toolEnv(env).daemonConfig ?? join(configDir(env), 'daemon.json');
/** The default oracle's signing key (BIP39 mnemonic), created 0600 on the daemon's first start. */
export const oracleKeyPath = (env = process.env) => join(configDir(env), 'oracle-key.json');
/** Where the default oracle is served inside the daemon (socket.io stays at the daemon's /socket.io/). */
export const ORACLE_PREFIX = '/oracle';
