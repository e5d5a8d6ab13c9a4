import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base.ts';
import { OracleKitError } from '../lib/errors.ts';

export default class Chat extends BaseCommand {
  static override summary = 'Chat with an oracle (also `oraclekit --chat`).';
  static override description =
    'An interactive chat in the terminal. Connects to --oracle (a URL, or a DID resolved through the registry), else the oracle of ./oracle.config.json, else the local daemon\'s default oracle (the daemon is started when needed; never under CI=true unless ORACLEKIT_AUTOSTART=1). Without a TTY it reads one message per line from stdin and streams plain text; --json streams events as JSON lines.';
  static override hidden = true;
  static override enableJsonFlag = false;
  static override flags = {
    oracle: Flags.string({ description: "The oracle's URL, or its DID (resolved through the registry's #api/#ws services)." }),
    registry: Flags.string({ description: 'The registry used to resolve an oracle DID (default $ORACLEKIT_REGISTRY).' }),
    'mnemonic-file': Flags.string({ description: 'A file holding the BIP39 mnemonic of your identity (default: your saved key, created on first use).' }),
    session: Flags.string({ description: 'Continue this session instead of starting a new one.' }),
    model: Flags.string({ description: 'The model to ask for (one of the oracle\'s /models).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Chat);
    const [{ resolveTarget }, { loadIdentity }, { OracleClient }, { OracleClientError }, { ChatController, explainError }] = await Promise.all([
      import('../cli/chat/connect.ts'),
      import('../cli/chat/identity.ts'),
      import('../client/client.ts'),
      import('../client/errors.ts'),
      import('../cli/chat/controller.ts'),
    ]);
    const target = await resolveTarget({ oracle: flags.oracle, registry: flags.registry, cwd: process.cwd(), env: process.env });
    const identity = await loadIdentity({ mnemonicFile: flags['mnemonic-file'], env: process.env });
    const client = new OracleClient({ baseUrl: target.apiUrl, wsUrl: target.wsUrl, oracleDid: target.oracleDid, signer: identity.signer, auth: { premint: true } });
    let health: { name: string; oracleDid: string; version: string };
    let models: { default: string | null; models: { id: string }[] };
    try {
      [health, models] = await Promise.all([client.health(), client.models()]);
    } catch (e) {
      if (e instanceof OracleClientError) {
        throw new OracleKitError({ status: e.status === 0 ? 503 : e.status, code: e.code, message: explainError(e, target.apiUrl) });
      }
      throw e;
    }
    if (target.oracleDid && health.oracleDid !== target.oracleDid) {
      throw new OracleKitError({ status: 409, code: 'oracle_did_mismatch', message: `the oracle at ${target.apiUrl} is ${health.oracleDid}, not ${target.oracleDid}` });
    }
    const controller = new ChatController(client, { model: flags.model });
    const notices: string[] = [];
    if (flags.session) {
      // continue a session: the same lookup and recap as /switch (an unknown id is an error, not a new session)
      const r = await controller.command(`/switch ${flags.session}`);
      if (!controller.sessionId) throw new OracleKitError({ status: 404, code: 'session_not_found', message: r.lines.join(' '), field: 'session', value: flags.session });
      notices.push(...r.lines);
    }
    if (identity.created) notices.push(`Created your identity ${identity.did} (saved in ${identity.source}, mode 0600).`);
    const local = target.via.startsWith('local daemon');
    if (target.via === 'local daemon (started)') notices.push(`Started the local daemon; its default oracle is at ${target.apiUrl}.`);
    if (!models.default) {
      notices.push(
        local
          ? "The daemon's default oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and LLM_MODEL in the environment of `oraclekit daemon restart` (or oracle.model in daemon.json)."
          : 'This oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and the model in its oracle.config.json.',
      );
    }

    if (this.jsonMode || !process.stdin.isTTY || !process.stdout.isTTY) {
      for (const n of notices) process.stderr.write(n + '\n');
      const { runPiped } = await import('../cli/chat/piped.ts');
      const code = await runPiped(controller, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, json: this.jsonMode });
      if (code !== 0) process.exitCode = code;
      return;
    }
    const { runChatTui } = await import('../ui/run-chat.tsx');
    await runChatTui(controller, [
      `Chatting with ${health.name} (${health.oracleDid}) at ${target.apiUrl} — runtime v${health.version}`,
      `You are ${identity.did}. /help for commands, Ctrl+C cancels an answer, twice quits.`,
      ...notices,
    ]);
  }
}
