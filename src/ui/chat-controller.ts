/**
 * The chat's state machine, shared by the Ink TUI and the piped mode: a
 * current session, a model, slash commands, and turns streamed through the
 * headless client (src/client) — the same code paths the React SDK uses.
 * What happens during a turn is also told as typed events (ChatEvents).
 */
import { EventEmitter } from 'node:events';
import { transcript, type Message, type TurnErrorCode, type TurnUsage } from '../lib/protocol/index.ts';
import type { OracleClient, TurnResult, ChatStream, OnTurnEvent } from '../client/client.ts';
import { OracleClientError, PaymentRequiredError } from '../client/errors.ts';
import { creditsStatus, payClaims } from '../client/payments.ts';
import { keyHelp } from './key-bindings.ts';
import { counted } from './text-wrap.ts';

export interface CommandResult {
  /** Lines to show the user. */
  lines: string[];
  quit?: boolean;
  /** The view should be cleared (new or switched session). */
  reset?: boolean;
  /** The command needs a yes first (/pay): the TUI asks, the piped mode runs it (the line was the consent). */
  confirm?: { question: string; run(): Promise<CommandResult> };
  /** A message to send as a turn (/retry). */
  send?: string;
  /** A payment went through (the TUI then sends the refused message again). */
  paid?: boolean;
  /** Lines that start with two spaces continue, when wrapped, at this column (/help). */
  hanging?: number;
  /** The session's turns, for the TUI to show as they looked live (/switch, --session). */
  history?: Message[];
}

/**
 * What the terminal does for the commands that act on the screen or the
 * clipboard (/clear, /copy, /tool, /edit); the piped mode has none, and says
 * these work in the terminal chat only.
 */
export interface ChatScreen {
  clear(): CommandResult;
  copy(arg: string): CommandResult;
  tool(): CommandResult;
  edit(): Promise<CommandResult>;
}

interface SlashCommand {
  name: string;
  aliases?: string[];
  args?: string;
  does: string;
  run(c: ChatController, arg: string, screen: ChatScreen | undefined): CommandResult | Promise<CommandResult>;
}

const onScreen =
  (f: (s: ChatScreen, arg: string) => CommandResult | Promise<CommandResult>) =>
  (_c: ChatController, arg: string, screen: ChatScreen | undefined) =>
    screen ? f(screen, arg) : { lines: ['This command works in the terminal chat only.'] };

/** The slash commands: one table for the dispatcher, /help and the TUI's menu. */
const COMMANDS: readonly SlashCommand[] = [
  { name: '/new', does: 'start a new session', run: (c) => c.newSession() },
  {
    name: '/sessions',
    args: '[n|id]',
    does: 'list your sessions on this oracle; with a number or id, switch to it',
    run: (c, arg) => c.sessions(arg),
  },
  {
    name: '/switch',
    args: '<id>',
    does: 'continue another session (an id or its first characters)',
    run: (c, arg) => c.switchTo(arg),
  },
  {
    name: '/model',
    args: '[id]',
    does: 'show the models, or use one for the next turns',
    run: (c, a) => c.useModel(a),
  },
  {
    name: '/pay',
    args: '[amount]',
    does: 'pay what this oracle is owed, with your identity (the price and claims shown first)',
    run: (c, arg) => c.pay(arg),
  },
  { name: '/retry', does: 'send your last message again', run: (c) => c.retry() },
  {
    name: '/copy',
    args: '[n]',
    does: 'copy the last answer, or its n-th code block',
    run: onScreen((s, a) => s.copy(a)),
  },
  { name: '/tool', does: "show the last tool call's whole output", run: onScreen((s) => s.tool()) },
  { name: '/edit', does: 'write the message in $EDITOR (also Ctrl+X Ctrl+E)', run: onScreen((s) => s.edit()) },
  { name: '/clear', does: 'clear the screen (the session goes on)', run: onScreen((s) => s.clear()) },
  { name: '/help', does: 'this help', run: () => ({ lines: helpLines(), hanging: HELP_INDENT }) },
  {
    name: '/quit',
    aliases: ['/exit'],
    does: 'leave (also Ctrl+C twice, or Ctrl+D)',
    run: () => ({ lines: [], quit: true }),
  },
];

/** The slash commands, for /help and the TUI's menu. */
export const SLASH_COMMANDS: readonly { name: string; args?: string; does: string }[] = COMMANDS;

/** The column where /help's descriptions start (the TUI wraps them with a hanging indent there). */
const HELP_INDENT = 20;

function helpLines(): string[] {
  return [
    'Commands:',
    ...COMMANDS.map((c) => `  ${(c.name + (c.args ? ' ' + c.args : '')).padEnd(HELP_INDENT - 2)}${c.does}`),
    'Keys:',
    ...keyHelp().map((k) => `  ${k}`),
  ];
}

/** What a chat tells whoever listens, as it happens. */
export interface ChatEvents {
  /** A turn's first text arrived, before the screen renders it. */
  firstText: [];
}

export class ChatController extends EventEmitter<ChatEvents> {
  readonly client: OracleClient;
  sessionId: string | undefined;
  model: string | undefined;
  /** The oracle's default model (GET /models), for the footer. */
  defaultModel: string | undefined;
  /** The words for an oracle without a model (the CLI knows whether it is the daemon's). */
  noModel: string | undefined;
  /** The last message sent as a turn (/retry). */
  lastMessage: string | undefined;
  /** The session's usage so far (the `done` events' usage), for the footer and the summary on quit. */
  readonly spent = { turns: 0, inputTokens: 0, outputTokens: 0, charged: 0, denom: '' };
  private current: ChatStream | undefined;

  constructor(client: OracleClient, o: { sessionId?: string; model?: string; defaultModel?: string } = {}) {
    super();
    this.client = client;
    this.sessionId = o.sessionId;
    this.model = o.model;
    this.defaultModel = o.defaultModel;
  }

  /** A message for people for a failed turn or command (explainError with this oracle's URL). */
  explain(e: unknown): string {
    return explainError(e, this.client.baseUrl, this.noModel);
  }

  /** A message for an `error` event of a run, or undefined (explainRunError). */
  explainRun(r: TurnResult): string | undefined {
    return explainRunError(r, this.noModel);
  }

  get streaming(): boolean {
    return this.current !== undefined;
  }

  async ensureSession(): Promise<string> {
    if (!this.sessionId) this.sessionId = (await this.client.createSession()).sessionId;
    return this.sessionId;
  }

  /** Streams one turn. Events go to onEvent as they arrive, with the turn so far; its first text is `firstText`. */
  async send(text: string, onEvent: OnTurnEvent): Promise<TurnResult> {
    const sessionId = await this.ensureSession();
    this.lastMessage = text;
    let texted = false;
    const told: OnTurnEvent = (e, turn) => {
      if (!texted && e.event === 'message' && turn.text !== '') {
        texted = true;
        this.emit('firstText');
      }
      onEvent(e, turn);
    };
    const stream = this.client.send(sessionId, text, { onEvent: told, ...(this.model ? { model: this.model } : {}) });
    this.current = stream;
    try {
      const r = await stream.result;
      this.count(r);
      return r;
    } finally {
      if (this.current === stream) this.current = undefined;
    }
  }

  private resetSpent(): void {
    Object.assign(this.spent, { turns: 0, inputTokens: 0, outputTokens: 0, charged: 0, denom: '' });
  }

  /** Adds a turn's usage to the session's. */
  private count(r: { usage?: TurnUsage | undefined }): void {
    this.spent.turns++;
    const u = r.usage;
    if (!u) return;
    this.spent.inputTokens += u.inputTokens ?? 0;
    this.spent.outputTokens += u.outputTokens ?? 0;
    if (u.charged) {
      this.spent.charged += u.charged.amount;
      this.spent.denom = u.charged.denom;
    }
  }

  /** Cancels the turn being streamed (the runtime aborts the run; the stream ends with done aborted). */
  async cancel(): Promise<boolean> {
    const s = this.current;
    if (!s) return false;
    await s.abort();
    return true;
  }

  isCommand(text: string): boolean {
    return /^\/[a-z]+(\s|$)/i.test(text.trim());
  }

  /** The one dispatcher of slash commands; `screen` runs those that act on the terminal. */
  async command(text: string, screen?: ChatScreen): Promise<CommandResult> {
    const [cmd = '', ...rest] = text.trim().split(/\s+/);
    const name = cmd.toLowerCase();
    const c = COMMANDS.find((x) => x.name === name || x.aliases?.includes(name));
    if (!c) return { lines: [`Unknown command ${cmd}. /help lists the commands.`] };
    return c.run(this, rest.join(' '), screen);
  }

  /** A new session: the footer's totals start again from nothing, as they are the session's. */
  async newSession(): Promise<CommandResult> {
    const s = await this.client.createSession();
    this.sessionId = s.sessionId;
    this.resetSpent();
    return { lines: [`New session ${s.sessionId}.`], reset: true };
  }

  async sessions(arg: string): Promise<CommandResult> {
    const { sessions, total } = await this.client.listSessions({ limit: 20 });
    if (arg) {
      const n = /^\d+$/.test(arg) ? Number(arg) : 0;
      if (n >= 1 && n <= sessions.length) return this.switchTo(sessions[n - 1]!.sessionId);
      return this.switchTo(arg);
    }
    if (total === 0) return { lines: ['No sessions yet.'] };
    return {
      lines: [
        `${counted(total, 'session')}${total > sessions.length ? ` (showing ${sessions.length})` : ''}:`,
        ...sessions.map(
          (s, i) =>
            `${s.sessionId === this.sessionId ? '*' : ' '} ${String(i + 1).padStart(2)}. ${s.sessionId}  ` +
            `${s.title || '(untitled)'}  ${s.lastUpdatedAt}`,
        ),
        '/sessions <n> (or /switch <id>) continues one.',
      ],
    };
  }

  /**
   * Continues another session: `history` carries its turns for the TUI to
   * draw as they looked live; `lines` recap the last ten for the piped mode.
   */
  async switchTo(arg: string): Promise<CommandResult> {
    if (!arg) return { lines: ['Usage: /switch <session id>'] };
    const { sessions } = await this.client.listSessions({ limit: 200 });
    const matches = sessions.filter((s) => s.sessionId === arg || s.sessionId.startsWith(arg));
    if (matches.length !== 1)
      return {
        lines: [
          matches.length === 0
            ? `No session ${arg}. /sessions lists them.`
            : `${arg} is ambiguous: ${matches.map((m) => m.sessionId).join(', ')}`,
        ],
      };
    this.sessionId = matches[0]!.sessionId;
    const history = await this.client.history(this.sessionId);
    // the footer's totals are the session's: its stored turns (a human row each) with the usage they keep
    this.resetSpent();
    for (const m of history) if (m.type === 'human') this.count({ usage: m.turn?.usage });
    const lines = [`Switched to ${this.sessionId} (${history.length} messages).`];
    for (const t of transcript(history.slice(-10)))
      if (t.content !== '') lines.push(`${t.role === 'user' ? 'you' : 'oracle'}: ${t.content}`);
    return { lines, reset: true, history };
  }

  async useModel(arg: string): Promise<CommandResult> {
    const models = await this.client.models();
    if (!arg) {
      return {
        lines: [
          `Model: ${this.model ?? models.default ?? '(none configured on the oracle)'}`,
          ...(models.models.length ? [`Available: ${models.models.map((m) => m.id).join(', ')}`] : []),
        ],
      };
    }
    if (models.models.length && !models.models.some((m) => m.id === arg))
      return { lines: [`Unknown model ${arg}. Available: ${models.models.map((m) => m.id).join(', ')}`] };
    this.model = arg;
    return { lines: [`Using model ${arg} for the next turns.`] };
  }

  retry(): CommandResult {
    if (!this.lastMessage) return { lines: ['Nothing to send again yet.'] };
    return { lines: ['Sending your last message again.'], send: this.lastMessage };
  }

  /**
   * `/pay [amount]`: shows the price and the outstanding claims and asks to
   * confirm; `/pay <amount>` confirms in one go (the amount must be the total
   * owed). Pays with the client's identity through the credits plugin's
   * contract and pay routes (src/client/payments.ts).
   */
  async pay(arg: string): Promise<CommandResult> {
    let status;
    try {
      status = await creditsStatus(this.client);
    } catch (e) {
      if (e instanceof OracleClientError && e.status === 404)
        return { lines: ['This oracle does not take payments (no credits plugin): there is nothing to pay.'] };
      throw e;
    }
    const { denom, price } = status;
    const claims = status.outstandingClaims;
    const head = `This oracle costs ${price} ${denom} per ${status.unit}.`;
    if (!claims.length)
      return {
        lines: [
          head,
          status.prepaidTurns > 0
            ? `Nothing to pay: ${counted(status.prepaidTurns, `paid ${status.unit}`)} left.`
            : 'Nothing to pay now: a claim is created when the oracle refuses a message; /pay then.',
        ],
      };
    const total = status.owed;
    if (arg) {
      const amount = Number(arg);
      if (!Number.isFinite(amount) || amount !== total)
        return {
          lines: [
            `/pay ${arg}: the amount must be what is owed, ${total} ${denom} (or /pay alone to see it and confirm).`,
          ],
        };
    }
    const run = async (): Promise<CommandResult> => {
      const p = await payClaims(this.client, { claimIds: claims.map((c) => c.claimId), expectAmount: total });
      return {
        lines: [`Paid ${p.amount} ${p.denom} (payment ${p.paymentId}) for ${counted(p.paid.length, 'claim')}.`],
        paid: true,
      };
    };
    const lines = [
      head,
      `Outstanding: ${claims.map((c) => `${c.claimId} (${c.amount} ${c.denom})`).join(', ')} — ${total} ` +
        `${denom} in all.`,
    ];
    if (arg) {
      const r = await run();
      return { ...r, lines: [...lines, ...r.lines] };
    }
    return {
      lines,
      confirm: { question: `Pay ${total} ${denom} with your identity now? (y pays, n or Enter does not)`, run },
    };
  }
}

/** What to do about an oracle without a model: the daemon's default oracle or a project's. */
export function noModelMessage(local?: boolean): string {
  if (local === true)
    return (
      "The daemon's default oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and " +
      'LLM_MODEL in the environment of `oraclekit daemon restart` (or oracle.model in daemon.json).'
    );
  if (local === false)
    return (
      'This oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and the model in its ' +
      'oracle.config.json.'
    );
  return (
    'The oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and the model in its ' +
    "oracle.config.json (for the local daemon's default oracle: LLM_MODEL in the daemon's environment, then " +
    'oraclekit daemon restart).'
  );
}

/**
 * A refused payment in words: the price, the claims, and what /pay does next — the terminal chat sends the refused
 * message again once paid (`sendsAgain`), the piped mode leaves that to the next line.
 */
export function paymentWords(e: PaymentRequiredError, sendsAgain = false): string {
  const owed = e.outstandingClaims as { amount?: unknown; denom?: unknown }[];
  const total = owed.reduce((s, c) => s + (typeof c.amount === 'number' ? c.amount : 0), 0);
  const denom = typeof owed[0]?.denom === 'string' ? owed[0].denom : 'credit';
  return [
    `Payment required: this oracle is paid per ` +
      `turn${typeof owed[0]?.amount === 'number' ? ` (${owed[0].amount} ${denom})` : ''} and your message was ` +
      `not answered.`,
    `Outstanding claim${e.claims.length === 1 ? '' : 's'}: ` +
      `${e.claims.join(', ') || '(none listed)'}${total ? ` — ${total} ${denom} in all` : ''}.`,
    sendsAgain
      ? 'Pay the claims with /pay: it shows the price, asks, pays with your identity and sends your message again.'
      : 'Pay the claims with /pay (a /pay line pays at once, with your identity), then send your message again.',
  ].join('\n');
}

/** A message for people, for any failure of a turn or command. */
export function explainError(e: unknown, baseUrl: string, noModel?: string): string {
  if (e instanceof PaymentRequiredError) return paymentWords(e);
  if (e instanceof OracleClientError) {
    if (e.code === 'oracle_unreachable')
      return (
        `Cannot reach the oracle at ${baseUrl}. Is it running? (start it with \`npm run dev\` in its project, ` +
        `or check --oracle)`
      );
    if (e.status === 401)
      return `The oracle refused your identity (${e.code}: ${e.message}), even after re-authorising.`;
    if (e.code === 'model_not_configured') return noModel ?? noModelMessage();
    if (e.code === 'rate_limited') return rateLimitWords(e);
  }
  if (oracleWentAway(e))
    return (
      `The oracle went away in the middle of the answer: its connection at ${baseUrl} closed before the answer ` +
      `ended. Is it still running? /retry sends your message again once it is back.`
    );
  if (e instanceof OracleClientError) return `${e.message} [${e.code}]`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * The oracle stopped answering a turn it had started: the client gave up rejoining the stream (stream_dropped),
 * or the connection broke under it (undici's "terminated", a reset socket).
 */
export function oracleWentAway(e: unknown): boolean {
  if (OracleClientError.isInstance(e)) return e.code === 'stream_dropped';
  const err = e as { name?: string; message?: string; cause?: { code?: string } } | undefined;
  return (
    err?.name === 'TypeError' &&
    (/^terminated$|other side closed|socket/i.test(err.message ?? '') ||
      /ECONNRESET|UND_ERR_SOCKET/.test(err.cause?.code ?? ''))
  );
}

/** A 429 of the oracle's own turn limit: how long to wait, in seconds (the limit's setting is the operator's). */
function rateLimitWords(e: OracleClientError): string {
  const d = e.body.details as { retryAfterSeconds?: unknown; limitPerMinute?: unknown } | undefined;
  const wait = typeof d?.retryAfterSeconds === 'number' ? d.retryAfterSeconds : undefined;
  const per = typeof d?.limitPerMinute === 'number' ? ` (it takes ${counted(d.limitPerMinute, 'turn')} a minute)` : '';
  return (
    `You have sent this oracle as many messages as it takes for now${per}: ` +
    `${wait !== undefined ? `wait ${counted(wait, 'second')}` : 'wait a minute'}, then send it again (/retry).`
  );
}

/** A message for an `error` event of a run (or undefined for none), decided on the event's code (TURN_ERROR_CODES). */
export function explainRunError(r: TurnResult, noModel?: string): string | undefined {
  const err = r.error;
  if (!err) return undefined;
  const is = (code: TurnErrorCode) => err.code === code;
  if (is('provider_unauthorized'))
    return `The model provider refused the oracle's key (${err.error}). Check LLM_PROVIDER_API_KEY on the oracle.`;
  if (is('model_not_configured')) return noModel ?? noModelMessage();
  // the provider accepted the request (HTTP 200) and its stream then failed or broke off
  const midAnswer = /^the model provider failed (?:with HTTP 200|mid-answer): (.*)$/s.exec(err.error);
  if (is('provider_error') && midAnswer) return `The model provider stopped mid-answer (it said: ${midAnswer[1]}).`;
  return `${err.error} [${err.code}${err.retryable ? ', retryable' : ''}]`;
}
