/** Which registry and key the CLI uses: flag, then environment, then settings (a remote registry; no daemon needed). */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientOptions, registryClient, resolveTarget } from '../../../../src/cli/registry/client.ts';
import { saveSettings } from '../../../../src/cli/registry/settings.ts';

const home = mkdtempSync(join(tmpdir(), 'oraclekit-target-'));
const base = {
  ...process.env,
  ORACLEKIT_HOME: home,
  ORACLEKIT_REGISTRY: '',
  ORACLEKIT_API_KEY: '',
  ORACLEKIT_AUTOSTART: '0',
};
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('resolveTarget', () => {
  it('flag over environment over settings', async () => {
    await saveSettings({ registry: 'http://saved.example:1/', apiKey: 'okk_saved' }, base);
    expect(await resolveTarget({ env: base })).toEqual({
      url: 'http://saved.example:1',
      apiKey: 'okk_saved',
      local: false,
    });
    const env = { ...base, ORACLEKIT_REGISTRY: 'http://env.example:2', ORACLEKIT_API_KEY: 'okk_env' };
    expect(await resolveTarget({ env })).toEqual({ url: 'http://env.example:2', apiKey: 'okk_env', local: false });
    expect(
      await resolveTarget({ env, ...clientOptions({ registry: 'https://flag.example/reg/', 'api-key': 'okk_flag' }) }),
    ).toEqual({ url: 'https://flag.example/reg', apiKey: 'okk_flag', local: false });
  });

  it('a registry that is not an http(s) URL is invalid_registry_url naming the value', async () => {
    await expect(resolveTarget({ env: base, registry: 'not a url' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_registry_url',
      field: 'registry',
      value: 'not a url',
      valid: 'http(s)://host[:port]',
    });
    await expect(resolveTarget({ env: base, registry: 'ftp://x.example' })).rejects.toMatchObject({
      code: 'invalid_registry_url',
    });
  });

  it('the client reports an unreachable registry as unavailable (exit 9)', async () => {
    const c = await registryClient({ env: base, registry: 'http://127.0.0.1:1' });
    await expect(c.getDomain('did:ixo:entity:' + 'c'.repeat(32))).rejects.toMatchObject({
      status: 503,
      code: 'unavailable',
    });
  });
});
