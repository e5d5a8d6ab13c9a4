import { BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../cli/base.ts';

export default class Chat extends BaseCommand {
  static override summary = 'Chat with an oracle (also `oraclekit --chat`).';
  static override description =
    "An interactive chat in the terminal. Connects to --oracle (a URL, or a DID resolved through the registry the registry commands use: --registry, $ORACLEKIT_REGISTRY or the saved one, else the local daemon; with --api-key, $ORACLEKIT_API_KEY or the saved key), else the oracle of ./oracle.config.json, else the local daemon's default oracle (the daemon is started when needed; never under CI=true unless ORACLEKIT_AUTOSTART=1). Without a TTY it reads one message per line from stdin and streams plain text; --json streams events as JSON lines.";
  static override enableJsonFlag = false;
  static override flags = toOclifFlags({
    oracle: {
      type: 'string',
      description: "The oracle's URL, or its DID (resolved through the registry's #api/#ws services).",
    },
    'mnemonic-file': {
      type: 'string',
      description:
        'A file holding the BIP39 mnemonic of your identity (default: your saved key, created on first use).',
    },
    session: { type: 'string', description: 'Continue this session instead of starting a new one.' },
    model: { type: 'string', description: "The model to ask for (one of the oracle's /models)." },
    ...REGISTRY_FLAGS,
  });

  async run(): Promise<void> {
    const { flags } = await this.parse(Chat);
    const { runChat } = await import('../cli/chat/run.ts');
    await runChat(flags, this.jsonMode);
  }
}
