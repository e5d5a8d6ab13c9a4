/** The sign-in flags shared by `login` and `new`. */
import { Flags } from '@oclif/core';

export const identityFlags = {
  auth: Flags.string({ description: 'How to sign in: qr (a wallet signs a challenge) or mnemonic (offline BIP39).', options: ['qr', 'mnemonic'], helpGroup: 'IDENTITY' }),
  'mnemonic-file': Flags.string({ description: 'A file holding your BIP39 mnemonic.', helpGroup: 'IDENTITY' }),
  'mnemonic-env': Flags.string({ description: 'The environment variable holding your mnemonic (default ORACLEKIT_MNEMONIC).', helpGroup: 'IDENTITY' }),
  generate: Flags.boolean({ description: 'Create a new mnemonic identity (saved 0600 in your config directory, never printed).', helpGroup: 'IDENTITY' }),
  timeout: Flags.integer({ description: 'Seconds to wait for the wallet (QR sign-in).', default: 120, min: 1, helpGroup: 'IDENTITY' }),
  'callback-host': Flags.string({ description: 'Address the QR sign-in callback server binds (default 127.0.0.1).', helpGroup: 'IDENTITY' }),
  'callback-url': Flags.string({ description: 'Public base URL of the callback server, when the wallet reaches it through a tunnel or another host.', helpGroup: 'IDENTITY' }),
};
