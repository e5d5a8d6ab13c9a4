/**
 * `oraclekit chat` (and `--chat`): resolve the oracle, load the identity,
 * then the Ink TUI on a terminal or the piped mode otherwise (docs/client.md).
 */
import { OracleKitError } from '../../lib/errors.ts';
import type { Message } from '../../lib/protocol/index.ts';
import type { ChatController } from '../../ui/chat-controller.ts';

interface ChatFlags {
  oracle?: string | undefined;
  registry?: string | undefined;
  'api-key'?: string | undefined;
  'mnemonic-file'?: string | undefined;
  session?: string | undefined;
  model?: string | undefined;
}

export async function runChat(flags: ChatFlags, jsonMode: boolean): Promise<void> {
  const { ChatController, noModelMessage } = await import('../../ui/chat-controller.ts');
  const { target, identity, client, health, models, price } = await connectOracle(flags);
  const controller = new ChatController(client, { model: flags.model, defaultModel: models.default ?? undefined });
  const piped = jsonMode || !process.stdin.isTTY || !process.stdout.isTTY;
  const notices: string[] = [];
  const resumed = flags.session ? await resume(controller, flags.session, piped, notices) : undefined;
  if (price && price.price > 0)
    notices.push(
      `This oracle costs ${price.price} ${price.denom} per ${price.unit}: a turn is answered once paid (/pay).`,
    );
  if (identity.created) notices.push(`Created your identity ${identity.did} (saved in ${identity.source}, mode 0600).`);
  const local = target.via.startsWith('local daemon');
  if (target.via === 'local daemon (started)')
    notices.push(`Started the local daemon; its default oracle is at ${target.apiUrl}.`);
  // said once here; a turn sent anyway fails with the same words
  controller.noModel = noModelMessage(local);
  if (!models.default) notices.push(controller.noModel);

  if (piped) {
    for (const n of notices) process.stderr.write(n + '\n');
    const { runPiped } = await import('./piped.ts');
    const code = await runPiped(controller, {
      interrupts: process,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      json: jsonMode,
    });
    if (code !== 0) process.exitCode = code;
    return;
  }
  const colour = await decideColour();
  const [{ runChatTui }, { openHistory }, { spentWords }] = await Promise.all([
    import('../../ui/run-chat.tsx'),
    import('./history.ts'),
    import('../../ui/ChatApp.tsx'),
  ]);
  const you = identity.principal === identity.did ? identity.did : `${identity.principal} (local key ${identity.did})`;
  await runChatTui(controller, {
    banner: [
      `Chatting with ${health.name} (${health.oracleDid}) at ${target.apiUrl} — runtime v${health.version}`,
      `You are ${you}. /help for commands, Esc or Ctrl+C cancels an answer, Ctrl+C twice quits.`,
      ...notices,
    ],
    ...(resumed ? { resumed } : {}),
    oracleName: health.name,
    color: colour,
    history: openHistory(health.oracleDid, process.env),
  });
  // one line on the way out: what the session cost, and how to come back to it
  if (controller.sessionId) {
    const again = [
      'oraclekit chat',
      ...(flags.oracle ? [`--oracle ${flags.oracle}`] : []),
      `--session ${controller.sessionId}`,
    ].join(' ');
    process.stdout.write(`${spentWords(controller)}. Resume with: ${again}\n`);
  }
}

/** Finds the oracle, loads the identity and reads the oracle's health, models and price (it must be the DID asked). */
async function connectOracle(flags: ChatFlags) {
  const [
    { resolveTarget },
    { loadIdentity },
    { OracleClient },
    { OracleClientError },
    { explainError },
    { creditsStatus },
  ] = await Promise.all([
    import('./connect.ts'),
    import('./identity.ts'),
    import('../../client/client.ts'),
    import('../../client/errors.ts'),
    import('../../ui/chat-controller.ts'),
    import('../../client/payments.ts'),
  ]);
  const target = await resolveTarget({
    oracle: flags.oracle,
    registry: flags.registry,
    apiKey: flags['api-key'],
    cwd: process.cwd(),
    env: process.env,
  });
  const identity = await loadIdentity({ mnemonicFile: flags['mnemonic-file'], env: process.env });
  const client = new OracleClient({
    baseUrl: target.apiUrl,
    wsUrl: target.wsUrl,
    oracleDid: target.oracleDid,
    signer: identity.signer,
    auth: { premint: true },
  });
  let health: { name: string; oracleDid: string; version: string };
  let models: { default: string | null; models: { id: string }[] };
  let price: { price: number; denom: string; unit: string } | undefined;
  try {
    [health, models, price] = await Promise.all([
      client.health(),
      client.models(),
      // a priced oracle says so in the banner, before the first message; one without the credits plugin: 404
      creditsStatus(client).catch(() => undefined),
    ]);
  } catch (e) {
    if (e instanceof OracleClientError) {
      throw new OracleKitError({
        status: e.status === 0 ? 503 : e.status,
        code: e.code,
        message: explainError(e, target.apiUrl),
      });
    }
    throw e;
  }
  if (target.oracleDid && health.oracleDid !== target.oracleDid) {
    throw new OracleKitError({
      status: 409,
      code: 'oracle_did_mismatch',
      message: `the oracle at ${target.apiUrl} is ${health.oracleDid}, not ${target.oracleDid}`,
    });
  }
  return { target, identity, client, health, models, price };
}

/**
 * Continues a session: the same lookup and recap as /switch (an unknown id is an error, not a new session); the
 * recap's lines go to `notices` (on a terminal only its first: the TUI shows the history itself).
 */
async function resume(
  controller: ChatController,
  session: string,
  piped: boolean,
  notices: string[],
): Promise<Message[] | undefined> {
  const r = await controller.switchTo(session);
  if (!controller.sessionId)
    throw new OracleKitError({
      status: 404,
      code: 'session_not_found',
      message: r.lines.join(' '),
      field: 'session',
      value: session,
    });
  notices.push(...(piped ? r.lines : r.lines.slice(0, 1)));
  return r.history;
}

/**
 * One colour rule for every command (output.ts: a TTY, no NO_COLOR, TERM not dumb); ink's chalk would otherwise
 * decide again from its own heuristics (no colours at all when CI is set), so it is told before ink loads. NO_COLOR
 * takes the colours only (no-color.org): chalk keeps its styles — bold, underline, dim, inverse — and the chat asks
 * for no colour; a dumb terminal gets no escape sequences at all.
 */
async function decideColour(): Promise<boolean> {
  const { useColour } = await import('../output.ts');
  const colour = useColour();
  if (process.env.TERM === 'dumb') process.env.FORCE_COLOR = '0';
  else if (
    process.env.FORCE_COLOR === undefined ||
    process.env.FORCE_COLOR === '0' ||
    process.env.FORCE_COLOR === 'false'
  )
    process.env.FORCE_COLOR = '1';
  return colour;
}
