/** Flag specs (flag-spec.ts) as oclif flags: parsed by oclif's own parser. */
import { describe, expect, it } from 'vitest';
import { Parser } from '@oclif/core';
import { toOclifFlags } from '../../../src/cli/oclif-flags.ts';
import { REGISTRY_FLAGS } from '../../../src/cli/flag-spec.ts';

const flags = toOclifFlags({
  limit: { type: 'integer', description: 'Page size.', default: 50, min: 1, max: 200 },
  role: { type: 'string', description: 'A role.', multiple: true, options: ['voter', 'member'] },
  did: { type: 'string', description: 'The DID.', required: true },
  install: { type: 'boolean', description: 'Run npm install.', allowNo: true },
  reject: { type: 'boolean', description: 'Reject.', default: false, exclusive: ['submit'] },
  submit: { type: 'boolean', description: 'Submit.', default: false },
  password: { type: 'string', description: 'A password.', env: 'TEST_FLAG_PASSWORD' },
  format: { type: 'string', char: 'f', description: 'Output format.', options: ['table', 'csv'], default: 'table' },
  ...REGISTRY_FLAGS,
});

const parse = (argv: string[]) => Parser.parse(argv, { flags, strict: true });

describe('toOclifFlags', () => {
  it('types, defaults, repeats, --no-, env and chars', async () => {
    process.env.TEST_FLAG_PASSWORD = 's3cret';
    const r = await parse([
      '--did',
      'did:example:a',
      '--role',
      'voter',
      '--role',
      'member',
      '--no-install',
      '-f',
      'csv',
      '--registry',
      'http://r.example',
    ]);
    expect(r.flags).toMatchObject({
      did: 'did:example:a',
      role: ['voter', 'member'],
      install: false,
      limit: 50,
      reject: false,
      password: 's3cret',
      format: 'csv',
      registry: 'http://r.example',
    });
    delete process.env.TEST_FLAG_PASSWORD;
    expect((await parse(['--did', 'x', '--limit', '7'])).flags).toMatchObject({ limit: 7 });
    expect((await parse(['--did', 'x'])).flags.install).toBeUndefined();
  });

  it('refuses what the spec excludes', async () => {
    await expect(parse([])).rejects.toThrow(/Missing required flag did/);
    await expect(parse(['--did', 'x', '--limit', '0'])).rejects.toThrow(/greater than or equal to 1/);
    await expect(parse(['--did', 'x', '--limit', 'many'])).rejects.toThrow(/Expected an integer/);
    await expect(parse(['--did', 'x', '--role', 'admin'])).rejects.toThrow(
      /Expected --role=admin to be one of: voter, member/,
    );
    await expect(parse(['--did', 'x', '--reject', '--submit'])).rejects.toThrow(
      /--submit=true cannot also be provided when using --reject/,
    );
  });

  it('keeps the help group of the shared registry flags', () => {
    expect(flags.registry.helpGroup).toBe('REGISTRY');
    expect(flags['api-key'].helpGroup).toBe('REGISTRY');
  });
});
