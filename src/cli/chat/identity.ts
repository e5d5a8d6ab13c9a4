/**
 * The chat user's identity: a BIP39 mnemonic → Ed25519 did:key.
 * `--mnemonic-file <path>` wins; else the saved key `identity.json` in the
 * config directory ($ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit,
 * ~/.config/oraclekit — the same directory the daemon's settings use),
 * created on first use with mode 0600 (directory 0700). The file is the one
 * `login`/`whoami`/`logout` and `new` use (src/cli/identity/store.ts).
 */
import { readFileSync } from 'node:fs';
import { cliError } from '../errors.ts';
import { generateMnemonic, isValidMnemonic, signerFromMnemonic, type Signer } from '../../lib/keys/keys.ts';
import { identityPath, readIdentity, writeIdentity } from '../identity/store.ts';

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
    let text: string;
    try {
      text = readFileSync(o.mnemonicFile, 'utf8');
    } catch {
      throw cliError('mnemonic_file_unreadable', `cannot read the mnemonic file ${o.mnemonicFile}`, {
        field: 'mnemonic-file',
        value: o.mnemonicFile,
      });
    }
    if (!isValidMnemonic(text))
      throw cliError('invalid_mnemonic', `${o.mnemonicFile} does not hold a valid BIP39 English mnemonic`, {
        field: 'mnemonic-file',
        valid: '12 or 24 BIP39 words',
      });
    const signer = await signerFromMnemonic(text);
    return { signer, did: signer.did(), principal: signer.did(), source: o.mnemonicFile, created: false };
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
