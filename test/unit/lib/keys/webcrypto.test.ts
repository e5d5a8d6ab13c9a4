/**
 * The client's WebCrypto signer is the CLI's ucanto signer of the same mnemonic: the same did:key (default path, a
 * passphrase, another path, 12 and 24 words), the same Ed25519 signatures, and the same refusals.
 */
import { describe, expect, it } from 'vitest';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { generateMnemonic as cliMnemonic, signerFromMnemonic as cliSigner } from '../../../../src/lib/keys/keys.ts';
import { generateMnemonic, generateSigner, signerFromMnemonic } from '../../../../src/lib/keys/webcrypto.ts';

describe('WebCrypto signers', () => {
  it('derive the did:key and the signatures of the CLI signer of the same mnemonic', async () => {
    const cases = [
      { mnemonic: cliMnemonic(), opts: {} },
      { mnemonic: cliMnemonic(128), opts: { passphrase: 'pass phrase' } },
      { mnemonic: `  ${cliMnemonic().toUpperCase().replaceAll(' ', '   ')} `, opts: { path: "m/44'/118'/0'/0'/7'" } },
      { mnemonic: await generateMnemonic(128), opts: {} },
    ];
    for (const { mnemonic, opts } of cases) {
      const [web, cli] = await Promise.all([signerFromMnemonic(mnemonic, opts), cliSigner(mnemonic, opts)]);
      expect(web.did()).toBe(cli.did());
      const payload = new TextEncoder().encode(`payload of ${mnemonic}`);
      expect((await web.sign(payload)).raw).toEqual((await cli.sign(payload)).raw);
    }
  });

  it('generate valid BIP39 English mnemonics of 24 and 12 words', async () => {
    for (const [strength, words] of [
      [256, 24],
      [128, 12],
    ] as const) {
      const m = await generateMnemonic(strength);
      expect(m.split(' ')).toHaveLength(words);
      expect(validateMnemonic(m, wordlist)).toBe(true);
    }
    expect(await generateMnemonic()).not.toBe(await generateMnemonic());
  });

  it('refuse what the CLI refuses: a wrong checksum, an unknown word, a bad path', async () => {
    // the BIP39 vector 'abandon ×11 about' is valid; twelve 'abandon' fail its checksum
    const words = [...Array(11).fill('abandon'), 'about'];
    const badChecksum = Array(12).fill('abandon').join(' ');
    for (const m of [badChecksum, `${words.slice(0, -1).join(' ')} notaword`, words.slice(1).join(' ')]) {
      await expect(cliSigner(m)).rejects.toMatchObject({ code: 'invalid_mnemonic', field: 'mnemonic' });
      await expect(signerFromMnemonic(m)).rejects.toMatchObject({ code: 'invalid_mnemonic', field: 'mnemonic' });
    }
    await expect(signerFromMnemonic(words.join(' '), { path: "m/44'/118/0'" })).rejects.toMatchObject({
      code: 'invalid_key_path',
    });
  });

  it('a random signer signs what its did:key verifies', async () => {
    const s = await generateSigner();
    expect(s.did()).toMatch(/^did:key:z6Mk/);
    const raw = (await s.sign(new Uint8Array([1, 2, 3]))).raw;
    expect(raw).toHaveLength(64);
  });
});
