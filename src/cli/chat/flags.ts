/** The flags of `chat`, declared once as specs (src/cli/flag-spec.ts); the command builds its oclif flags from them. */
import { REGISTRY_FLAGS, type CommandFlagSpecs } from '../flag-spec.ts';

/** `chat`: which oracle, through which registry, and how to show it. */
export const CHAT_FLAGS = {
  oracle: {
    type: 'string',
    description: "The oracle's URL, or its DID (resolved through the registry's #api/#ws services).",
  },
  'mnemonic-file': {
    type: 'string',
    description: 'A file holding the BIP39 mnemonic of your identity (default: your saved key, created on first use).',
  },
  session: { type: 'string', description: 'Continue this session instead of starting a new one.' },
  model: { type: 'string', description: "The model to ask for (one of the oracle's /models)." },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;
