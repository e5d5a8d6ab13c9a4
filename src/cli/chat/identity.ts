/**
 * The chat user's identity: a BIP39 mnemonic → Ed25519 did:key.
 * `--mnemonic-file <path>` wins; else the saved key `identity.json` in the
 * config directory ($ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit,
 * ~/.config/oraclekit — the same directory the daemon's settings use),
 * created on first use with mode 0600 (directory 0700). The file is the one
 * `login`/`whoami`/`logout` and `new` use (src/cli/identity/store.ts).
 */
import { cliError } from '../errors.ts';
import { generateMnemonic, isValidMnemonic, signerFromMnemonic, type Signer } from '../../lib/keys/keys.ts';
import { identityPath, readIdentity, writeIdentity } from '../identity/store.ts';
import { readMnemonic } from '../identity/mnemonic.ts';

interface Identity {
  signer: Signer;
  /** The local key's did:key (it signs the chat's UCANs). */
  did: string;
  /** Who you are, as `whoami` says: the wallet's DID after a QR sign-in, else the local key's. */
  principal: string;
  /** Where the key came from. */
  source: string;
  created: boolean;
}

export async function loadIdentity(o: { mnemonicFile?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Identity> {
  if (o.mnemonicFile) {
    // the one mnemonic reader (identity/mnemonic.ts): a file is read, checked and normalised as login reads it
    const given = await readMnemonic({ file: o.mnemonicFile, interactive: false });
    const signer = await signerFromMnemonic(given!.mnemonic);
    return { signer, did: signer.did(), principal: signer.did(), source: given!.source, created: false };
  }
  const path = identityPath(o.env);
  let created = false;
  let mnemonic: string;
  let wallet: string | undefined;
  const saved = readIdentity(o.env);
  if (saved) {
    if (!isValidMnemonic(saved.mnemonic))
      throw cliError(
        'invalid_identity',
        `${path} does not hold a valid mnemonic; move it away to create a new identity`,
      );
    mnemonic = saved.mnemonic;
    wallet = saved.wallet?.did;
  } else {
    mnemonic = generateMnemonic();
    const signer = await signerFromMnemonic(mnemonic);
    writeIdentity({ did: signer.did(), mnemonic, createdAt: new Date().toISOString() }, o.env);
    created = true;
  }
  const signer = await signerFromMnemonic(mnemonic);
  return { signer, did: signer.did(), principal: wallet ?? signer.did(), source: path, created };
}
