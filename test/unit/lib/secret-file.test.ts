import { describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepSecretFileMode, writeSecretFile } from '../../../src/lib/secret-file.ts';

describe('writeSecretFile', () => {
  it('writes 0600 in a 0700 directory it creates, replacing a readable file whole, leaving no temporary file', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ok-secret-')), 'config');
    const path = join(dir, 'identity.json');
    writeSecretFile(path, '{"mnemonic":"one"}\n');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, 'old', { mode: 0o644 });
    writeSecretFile(path, '{"mnemonic":"two"}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"mnemonic":"two"}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['identity.json']);
  });

  it('exclusive: an existing file is left as it is (EEXIST), a missing one is created whole', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ok-secret-'));
    const path = join(dir, 'oracle-key.json');
    writeSecretFile(path, 'first', { exclusive: true });
    expect(() => writeSecretFile(path, 'second', { exclusive: true })).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(readFileSync(path, 'utf8')).toBe('first');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['oracle-key.json']);
  });
});

describe('keepSecretFileMode', () => {
  it('puts a key file others can read back to 0600 and leaves its text; a 0600 or 0400 file stays as it is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ok-secret-'));
    const path = join(dir, 'identity.json');
    writeFileSync(path, 'key');
    chmodSync(path, 0o644);
    keepSecretFileMode(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('key');
    chmodSync(path, 0o400);
    keepSecretFileMode(path);
    expect(statSync(path).mode & 0o777).toBe(0o400);
  });
});
