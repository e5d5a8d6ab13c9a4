/** The sign-in flags shared by `login` and `new` (specs: see flag-spec.ts). */
import { REGISTRY_FLAGS, type CommandFlagSpecs } from '../flag-spec.ts';

export const IDENTITY_FLAGS = {
  auth: {
    type: 'string',
    description: 'How to sign in: qr (a wallet signs a challenge) or mnemonic (offline BIP39).',
    options: ['qr', 'mnemonic'],
    helpGroup: 'IDENTITY',
  },
  'mnemonic-file': { type: 'string', description: 'A file holding your BIP39 mnemonic.', helpGroup: 'IDENTITY' },
  'mnemonic-env': {
    type: 'string',
    description: 'The environment variable holding your mnemonic (default ORACLEKIT_MNEMONIC).',
    helpGroup: 'IDENTITY',
  },
  generate: {
    type: 'boolean',
    description:
      'Create a new mnemonic identity (saved 0600 in your config directory; shown once on a terminal, else the command says where it is).',
    helpGroup: 'IDENTITY',
  },
  timeout: {
    type: 'integer',
    description: 'Seconds to wait for the wallet (QR sign-in).',
    default: 120,
    min: 1,
    helpGroup: 'IDENTITY',
  },
  'callback-host': {
    type: 'string',
    description: 'Address the QR sign-in callback server binds (default 127.0.0.1).',
    helpGroup: 'IDENTITY',
  },
  'callback-url': {
    type: 'string',
    description: 'Public base URL of the callback server, when the wallet reaches it through a tunnel or another host.',
    helpGroup: 'IDENTITY',
  },
} as const satisfies CommandFlagSpecs;

/** `login` only (`new`'s --force is about the target directory). */
export const LOGIN_FLAGS = {
  force: {
    type: 'boolean',
    description:
      'Replace a saved identity of another DID without asking (the old identity.json is kept as identity.json.<timestamp>.bak, 0600).',
    helpGroup: 'IDENTITY',
  },
} as const satisfies CommandFlagSpecs;

/** `logout`. */
export const LOGOUT_FLAGS = {
  force: {
    type: 'boolean',
    description:
      'Sign out without asking (needed without a terminal). The identity file is kept as identity.json.<timestamp>.bak (0600) all the same.',
  },
} as const satisfies CommandFlagSpecs;

/** `token`. */
export const TOKEN_FLAGS = {
  oracle: {
    type: 'string',
    description: "The oracle's URL, or its DID (resolved through the registry's #api service).",
  },
  ttl: {
    type: 'integer',
    description: 'Seconds the token is valid (the oracle refuses more than 900).',
    default: 600,
    min: 1,
    max: 900,
  },
  'mnemonic-file': {
    type: 'string',
    description: 'A file holding the BIP39 mnemonic to sign with (default: your saved identity).',
  },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;
