/** The one settings store: settings.json in a temporary config directory, read and written for real. */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adoptGeneralKey,
  readNetwork,
  readSettings,
  saveNetwork,
  saveSettings,
} from '../../../../src/cli/registry/settings.ts';

const home = mkdtempSync(join(tmpdir(), 'oraclekit-settings-'));
const env = { ...process.env, ORACLEKIT_HOME: home };
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('settings.json', () => {
  it('the registry defaults and the networks live in one file of one shape, mode 0600', async () => {
    expect(await readSettings(env)).toEqual({ registry: undefined, apiKey: undefined });
    expect(await adoptGeneralKey('okk_first', env)).toBe(true);
    expect(await adoptGeneralKey('okk_second', env)).toBe(false); // never replaces a saved key
    await saveNetwork('local', { apiKey: 'okk_first', did: 'did:key:z6Mk1' }, env);
    await saveNetwork('devnet', { registry: 'https://devnet.example.org', apiKey: 'okk_dev' }, env);
    await saveNetwork('local', { oracleClass: 'did:ixo:entity:' + 'b'.repeat(32) }, env);
    const path = await saveSettings({ registry: 'https://registry.example.org' }, env);
    expect(path).toBe(join(home, 'config/settings.json'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      apiKey: 'okk_first',
      registry: 'https://registry.example.org',
      networks: {
        local: { apiKey: 'okk_first', did: 'did:key:z6Mk1', oracleClass: 'did:ixo:entity:' + 'b'.repeat(32) },
        devnet: { registry: 'https://devnet.example.org', apiKey: 'okk_dev' },
      },
    });
    expect(await readSettings(env)).toEqual({ registry: 'https://registry.example.org', apiKey: 'okk_first' });
    expect(await readNetwork('devnet', env)).toEqual({ registry: 'https://devnet.example.org', apiKey: 'okk_dev' });
    expect(await readNetwork('mainnet', env)).toEqual({});
  });

  it('undefined removes a field', async () => {
    await saveSettings({ registry: undefined }, env);
    await saveNetwork('local', { did: undefined }, env);
    expect(await readSettings(env)).toEqual({ registry: undefined, apiKey: 'okk_first' });
    expect(await readNetwork('local', env)).not.toHaveProperty('did');
  });

  it('a file that is not JSON, or not of its shape, is invalid_settings naming it, and is never written over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oraclekit-settings-bad-'));
    const bad = { ...process.env, ORACLEKIT_HOME: dir };
    try {
      const path = await saveSettings({ registry: 'https://registry.example.org' }, bad);
      writeFileSync(path, '{"registry": ');
      await expect(saveSettings({ apiKey: 'okk_x' }, bad)).rejects.toMatchObject({
        code: 'invalid_settings',
        message: expect.stringContaining(`${path} is not valid JSON`),
      });
      expect(readFileSync(path, 'utf8')).toBe('{"registry": ');
      writeFileSync(path, JSON.stringify({ networks: { moon: {} } }));
      await expect(readNetwork('local', bad)).rejects.toMatchObject({
        code: 'invalid_settings',
        field: 'networks.moon',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
