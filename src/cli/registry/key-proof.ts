/**
 * `daemon keys create --prove`: the DID proof (registry.md, "DID proof at key
 * creation") made with the identity the CLI holds (src/cli/identity): its
 * local Ed25519 key signs the challenge for the key's DID and roles. Only the
 * local key's DID can be proven this way (a wallet's DID after a QR sign-in
 * is held by the wallet, not by the CLI).
 */
import { signKeyProof, type KeyProof } from '../../lib/registry/key-proof.ts';
import { signerFromMnemonic } from '../../lib/keys/keys.ts';
import { cliError } from '../errors.ts';
import { readIdentity } from '../identity/store.ts';

export async function makeKeyProof(
  did: string,
  roles: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  now = Date.now(),
): Promise<KeyProof> {
  const id = readIdentity(env);
  if (!id)
    throw cliError('not_logged_in', '--prove signs with your identity, and none is saved: run `oraclekit login` first');
  if (id.did !== did) {
    throw cliError(
      'invalid_flag',
      `--did ${did} is not the DID of your identity's key (${id.did}); --prove can only prove the key the CLI holds`,
      { field: 'did', value: did, valid: id.did },
    );
  }
  return signKeyProof(await signerFromMnemonic(id.mnemonic), did, roles, now);
}
