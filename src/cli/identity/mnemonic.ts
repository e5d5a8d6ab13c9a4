/**
 * Where a mnemonic comes from, in order: `--mnemonic-file <path>`, the
 * environment variable ORACLEKIT_MNEMONIC (or the one `--mnemonic-env`
 * names), else a hidden prompt on a TTY. Always validated as BIP39 English;
 * never echoed, never logged.
 */
import { readFileSync } from 'node:fs';
import { cliError, type OracleKitError } from '../errors.ts';
import { isValidMnemonic } from '../../lib/keys/keys.ts';
import { envValue, TOOL_ENV_NAMES } from '../../lib/env.ts';

interface MnemonicSource {
  file?: string;
  envName?: string;
  env?: NodeJS.ProcessEnv;
  /** Prompt when nothing else gives one (needs a TTY). */
  interactive: boolean;
}

const normaliseMnemonic = (m: string) => m.trim().toLowerCase().split(/\s+/).join(' ');

function invalid(where: string, field: string): OracleKitError {
  return cliError('invalid_mnemonic', `${where} does not hold a valid BIP39 English mnemonic`, {
    field,
    valid: '12, 15, 18, 21 or 24 BIP39 English words with a valid checksum',
  });
}

/** Whether the environment variable a mnemonic is read from (default ORACLEKIT_MNEMONIC) holds something. */
export const mnemonicInEnv = (env: NodeJS.ProcessEnv, name?: string): boolean =>
  envValue(env, name ?? TOOL_ENV_NAMES.mnemonic) !== undefined;

/** The mnemonic and where it came from; undefined when no source gave one and prompting is off. */
export async function readMnemonic(src: MnemonicSource): Promise<{ mnemonic: string; source: string } | undefined> {
  const env = src.env ?? process.env;
  if (src.file) {
    let text: string;
    try {
      text = readFileSync(src.file, 'utf8');
    } catch {
      throw cliError('mnemonic_file_unreadable', `cannot read the mnemonic file ${src.file}`, {
        field: 'mnemonic-file',
        value: src.file,
      });
    }
    if (!isValidMnemonic(text)) throw invalid(src.file, 'mnemonic-file');
    return { mnemonic: normaliseMnemonic(text), source: src.file };
  }
  const name = src.envName ?? TOOL_ENV_NAMES.mnemonic;
  const fromEnv = envValue(env, name);
  if (fromEnv !== undefined) {
    if (!isValidMnemonic(fromEnv)) throw invalid(`$${name}`, 'mnemonic-env');
    return { mnemonic: normaliseMnemonic(fromEnv), source: `$${name}` };
  }
  if (!src.interactive) return undefined;
  const { default: password } = await import('@inquirer/password');
  const answer = await password({
    message: 'Your BIP39 mnemonic (hidden)',
    validate: (v: string) => (isValidMnemonic(v) ? true : 'not a valid BIP39 English mnemonic (12–24 words, checksum)'),
  });
  return { mnemonic: normaliseMnemonic(answer), source: 'prompt' };
}
