/**
 * oraclekit's directories, one resolver for the CLI and the daemon:
 * $ORACLEKIT_HOME/{state,data,config} when set (tests isolate with it), else
 * the XDG base directories, else their defaults under the home directory.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = NodeJS.ProcessEnv;

export function stateDir(env: Env = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'state');
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'oraclekit');
  return join(homedir(), '.local/state/oraclekit');
}

export function dataDir(env: Env = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'data');
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'oraclekit');
  return join(homedir(), '.local/share/oraclekit');
}

export function configDir(env: Env = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'config');
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'oraclekit');
  return join(homedir(), '.config/oraclekit');
}
