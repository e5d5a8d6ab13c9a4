/**
 * A project's files, one reader each (lib/project-files.ts): oracle.config.json through its schema, naming the field
 * and the value; .env by the rules `node --env-file` applies when the project starts, so the CLI (chat's port,
 * update-oracle-api-url's PORT and HOST, new's registry key) reads what the oracle will.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseDotEnv,
  readDotEnv,
  readOracleConfig,
  setDotEnvVar,
  writeDotEnv,
  writeOracleConfig,
} from '../../../src/lib/project-files.ts';
import { isOracleKitError } from '../../../src/lib/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-project-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('oracle.config.json', () => {
  it('reads back what it writes, keeping keys the schema does not name', () => {
    const path = join(dir, 'oracle.config.json');
    writeOracleConfig(path, { name: 'Chatty', price: 0, apiUrl: 'http://localhost:3000', mine: { a: 1 } });
    expect(readOracleConfig(path)).toEqual({
      name: 'Chatty',
      price: 0,
      apiUrl: 'http://localhost:3000',
      mine: { a: 1 },
    });
  });

  it('a wrong field is invalid_oracle_config naming the file, the field and the value', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({ name: 'X', price: 'free' }));
    let e: unknown;
    try {
      readOracleConfig(path);
    } catch (x) {
      e = x;
    }
    expect(isOracleKitError(e)).toBe(true);
    expect(e).toMatchObject({ code: 'invalid_oracle_config', field: 'price', value: 'free' });
    expect((e as Error).message).toContain(path);
    writeFileSync(path, '{ not json');
    expect(() => readOracleConfig(path)).toThrow(/is not valid JSON/);
  });
});

describe('.env', () => {
  const text = [
    'export PORT="3100" # the port of the registered URL',
    "HOST='127.0.0.5'",
    'SIGNING_MNEMONIC=word1 word2 word3',
    'EMPTY=',
    '# COMMENTED=1',
    '',
  ].join('\n');

  it('reads a .env as node --env-file does', () => {
    const path = join(dir, '.env');
    writeDotEnv(path, text);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const node = JSON.parse(
      execFileSync(
        process.execPath,
        [
          `--env-file=${path}`,
          '-e',
          'const {PORT,HOST,SIGNING_MNEMONIC,EMPTY,COMMENTED}=process.env;console.log(JSON.stringify({PORT,HOST,SIGNING_MNEMONIC,EMPTY,COMMENTED}))',
        ],
        { env: {}, encoding: 'utf8' },
      ),
    ) as Record<string, string>;
    expect(readDotEnv(path)).toEqual(node);
    expect(readDotEnv(path)).toMatchObject({ PORT: '3100', HOST: '127.0.0.5' });
    expect(readDotEnv(join(dir, 'absent.env'))).toEqual({});
  });

  it('setDotEnvVar replaces one variable (an exported one too) and keeps every other line', () => {
    const next = setDotEnvVar(text, 'PORT', '3200');
    expect(parseDotEnv(next)).toMatchObject({ PORT: '3200', HOST: '127.0.0.5', SIGNING_MNEMONIC: 'word1 word2 word3' });
    expect(next.split('\n')).toHaveLength(text.split('\n').length);
    expect(setDotEnvVar('A=1', 'PORT', '3100')).toBe('A=1\nPORT=3100\n');
  });
});
