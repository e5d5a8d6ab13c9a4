import { BaseCommand, toOclifFlags } from '../cli/base.ts';
import { CHAT_FLAGS } from '../cli/chat/flags.ts';

export default class Chat extends BaseCommand {
  static override summary = 'Chat with an oracle (also `oraclekit --chat`).';
  static override description =
    "An interactive chat in the terminal. Connects to --oracle (a URL, or a DID resolved through the registry the registry commands use: --registry, $ORACLEKIT_REGISTRY or the saved one, else the local daemon; with --api-key, $ORACLEKIT_API_KEY or the saved key), else the oracle of ./oracle.config.json, else the local daemon's default oracle (the daemon is started when needed; never under CI=true unless ORACLEKIT_AUTOSTART=1). Without a TTY it reads one message per line from stdin and streams plain text; --json streams events as JSON lines.";
  static override flags = toOclifFlags(CHAT_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(Chat);
    const { runChat } = await import('../cli/chat/run.ts');
    await runChat(flags, this.jsonMode);
  }
}
