import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseJsonFile } from '../../../src/lib/json-file.ts';

const Schema = z.looseObject({
  did: z.string(),
  mnemonic: z.string(),
  wallet: z.object({ did: z.string() }).optional(),
});

describe('parseJsonFile', () => {
  it('returns the value, extra keys kept', () => {
    expect(parseJsonFile('/c/identity.json', '{"did":"d","mnemonic":"m","x":1}', Schema)).toEqual({
      ok: true,
      value: { did: 'd', mnemonic: 'm', x: 1 },
    });
  });

  it('names the file, the field and the value; a secret field is never shown', () => {
    expect(parseJsonFile('/c/identity.json', 'nope', Schema)).toEqual({
      ok: false,
      problem: { message: '/c/identity.json is not valid JSON' },
    });
    const wallet = parseJsonFile('/c/identity.json', '{"did":"d","mnemonic":"m","wallet":{"did":7}}', Schema);
    expect(wallet).toMatchObject({ ok: false, problem: { field: 'wallet.did', value: 7 } });
    expect(!wallet.ok && wallet.problem.message).toMatch(/^\/c\/identity\.json: wallet\.did = 7 is invalid: /);
    const secret = parseJsonFile('/c/identity.json', '{"did":"d","mnemonic":12345}', Schema);
    expect(!secret.ok && secret.problem.message).toMatch(/^\/c\/identity\.json: mnemonic = \(hidden\) is invalid: /);
    expect(JSON.stringify(secret)).not.toContain('12345');
  });
});
