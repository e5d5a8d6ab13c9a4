/**
 * The chat's state machine, shared by the Ink TUI and the piped mode: a
 * current session, a model, slash commands, and turns streamed through the
 * headless client (src/client) — the same code paths the React SDK uses.
 */
import { transcript, type TurnErrorCode } from '../lib/protocol/index.ts';
import type { OracleClient, TurnResult, ChatStream, OnTurnEvent } from '../client/client.ts';
import { OracleClientError, PaymentRequiredError } from '../client/errors.ts';
import { creditsStatus, payClaims } from '../client/payments.ts';

export interface CommandResult {
  /** Lines to show the user. */
  lines: string[];
  quit?: boolean;
  /** The view should be cleared (new or switched session). */
  reset?: boolean;
  /** The command needs a yes first (/pay): the TUI asks, the piped mode runs it (the line was the consent). */
  confirm?: { question: string; run(): Promise<CommandResult> };
}

/** The slash commands, for /help and the TUI's completion. */
export const SLASH_COMMANDS: readonly { name: string; args?: string; does: string }[] = [
  { name: '/new', does: 'start a new session' },
  { name: '/sessions', args: '[n|id]', does: 'list your sessions on this oracle; with a number or id, switch to it' },
  { name: '/switch', args: '<id>', does: 'continue another session (an id or its first characters)' },
  { name: '/model', args: '[id]', does: 'show the models, or use one for the next turns' },
  { name: '/pay', args: '[amount]', does: 'pay what this oracle asks for (price and claims shown first)' },
  { name: '/clear', does: 'clear the screen (the session goes on)' },
  { name: '/copy', does: 'copy the last answer to the clipboard' },
  { name: '/help', does: 'this help' },
  { name: '/quit', does: 'leave (also Ctrl+C twice, or Ctrl+D)' },
];

const HELP_LINES = [
  'Commands:',
  ...SLASH_COMMANDS.map((c) => `  ${(c.name + (c.args ? ' ' + c.args : '')).padEnd(18)}${c.does}`),
  'Keys: Enter sends · Alt+Enter or Ctrl+J adds a line · Up/Down recall what you typed (also from earlier runs) · Tab completes a command',
  '      Esc or Ctrl+C cancels the answer being streamed · Ctrl+L redraws · Ctrl+U clears the input',
];

export class ChatController {
  readonly client: OracleClient;
  sessionId: string | undefined;
  model: string | undefined;
  /** The oracle's default model (GET /models), for the footer. */
  defaultModel: string | undefined;
  private current: ChatStream | undefined;

  constructor(client: OracleClient, o: { sessionId?: string; model?: string; defaultModel?: string } = {}) {
    this.client = client;
    this.sessionId = o.sessionId;
    this.model = o.model;
    this.defaultModel = o.defaultModel;
  }

  get streaming(): boolean {
    return this.current !== undefined;
  }

  async ensureSession(): Promise<string> {
    if (!this.sessionId) this.sessionId = (await this.client.createSession()).sessionId;
    return this.sessionId;
  }

  /** Streams one turn. Events go to onEvent as they arrive, with the turn so far. */
  async send(text: string, onEvent: OnTurnEvent): Promise<TurnResult> {
    const sessionId = await this.ensureSession();
    const stream = this.client.send(sessionId, text, { onEvent, ...(this.model ? { model: this.model } : {}) });
    this.current = stream;
    try {
      return await stream.result;
    } finally {
      if (this.current === stream) this.current = undefined;
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

  async command(text: string): Promise<CommandResult> {
    const [cmd = '', ...rest] = text.trim().split(/\s+/);
    const arg = rest.join(' ');
    switch (cmd.toLowerCase()) {
      case '/help':
        return { lines: HELP_LINES };
      case '/quit':
      case '/exit':
        return { lines: [], quit: true };
      case '/new': {
        const s = await this.client.createSession();
        this.sessionId = s.sessionId;
        return { lines: [`New session ${s.sessionId}.`], reset: true };
      }
      case '/sessions': {
        const { sessions, total } = await this.client.listSessions({ limit: 20 });
        if (arg) {
          const n = /^\d+$/.test(arg) ? Number(arg) : 0;
          if (n >= 1 && n <= sessions.length) return this.command(`/switch ${sessions[n - 1]!.sessionId}`);
          return this.command(`/switch ${arg}`);
        }
        if (total === 0) return { lines: ['No sessions yet.'] };
        return {
          lines: [
            `${total} session${total === 1 ? '' : 's'}${total > sessions.length ? ` (showing ${sessions.length})` : ''}:`,
            ...sessions.map(
              (s, i) =>
                `${s.sessionId === this.sessionId ? '*' : ' '} ${String(i + 1).padStart(2)}. ${s.sessionId}  ${s.title || '(untitled)'}  ${s.lastUpdatedAt}`,
            ),
            '/sessions <n> (or /switch <id>) continues one.',
          ],
        };
      }
      case '/switch': {
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
        const lines = [`Switched to ${this.sessionId} (${history.length} messages).`];
        for (const t of transcript(history.slice(-10)))
          if (t.content !== '') lines.push(`${t.role === 'user' ? 'you' : 'oracle'}: ${t.content}`);
        return { lines, reset: true };
      }
      case '/model': {
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
      case '/pay':
        return this.pay(arg);
      case '/clear':
      case '/copy':
        // the TUI handles these itself (they act on the screen and the clipboard)
        return { lines: [`${cmd} works in the terminal chat only.`] };
      default:
        return { lines: [`Unknown command ${cmd}. /help lists the commands.`] };
    }
  }

  /**
   * `/pay [amount]`: shows the price and the outstanding claims and asks to
   * confirm; `/pay <amount>` confirms in one go (the amount must be the total
   * owed). Pays with the client's identity through the credits plugin's
   * contract and pay routes (src/client/payments.ts).
   */
  private async pay(arg: string): Promise<CommandResult> {
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
            ? `Nothing to pay: ${status.prepaidTurns} paid ${status.unit}${status.prepaidTurns === 1 ? '' : 's'} left.`
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
        lines: [
          `Paid ${p.amount} ${p.denom} (payment ${p.paymentId}) for ${p.paid.length} claim${p.paid.length === 1 ? '' : 's'}.`,
        ],
      };
    };
    const lines = [
      head,
      `Outstanding: ${claims.map((c) => `${c.claimId} (${c.amount} ${c.denom})`).join(', ')} — ${total} ${denom} in all.`,
    ];
    if (arg) {
      const r = await run();
      return { lines: [...lines, ...r.lines] };
    }
    return { lines, confirm: { question: `Pay ${total} ${denom} with your identity now? (y/N)`, run } };
  }
}

const NO_MODEL =
  "The oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and the model in its oracle.config.json (for the local daemon's default oracle: LLM_MODEL in the daemon's environment, then oraclekit daemon restart).";

/** A message for people, for any failure of a turn or command. */
export function explainError(e: unknown, baseUrl: string): string {
  if (e instanceof PaymentRequiredError) {
    const owed = e.outstandingClaims as { amount?: unknown; denom?: unknown }[];
    const total = owed.reduce((s, c) => s + (typeof c.amount === 'number' ? c.amount : 0), 0);
    const denom = typeof owed[0]?.denom === 'string' ? owed[0].denom : 'credit';
    return [
      `Payment required: this oracle is paid per turn${typeof owed[0]?.amount === 'number' ? ` (${owed[0].amount} ${denom})` : ''} and your message was not answered.`,
      `Outstanding claim${e.claims.length === 1 ? '' : 's'}: ${e.claims.join(', ') || '(none listed)'}${total ? ` — ${total} ${denom} in all` : ''}.`,
      'Pay the claims with /pay (it shows the price and pays with your identity), then send your message again.',
    ].join('\n');
  }
  if (e instanceof OracleClientError) {
    if (e.code === 'oracle_unreachable')
      return `Cannot reach the oracle at ${baseUrl}. Is it running? (start it with \`npm run dev\` in its project, or check --oracle)`;
    if (e.status === 401)
      return `The oracle refused your identity (${e.code}: ${e.message}), even after re-authorising.`;
    if (e.code === 'model_not_configured') return NO_MODEL;
    return `${e.message} [${e.code}]`;
  }
  return e instanceof Error ? e.message : String(e);
}

/** A message for an `error` event of a run (or undefined for none), decided on the event's code (TURN_ERROR_CODES). */
export function explainRunError(r: TurnResult): string | undefined {
  const err = r.error;
  if (!err) return undefined;
  const is = (code: TurnErrorCode) => err.code === code;
  if (is('provider_unauthorized'))
    return `The model provider refused the oracle's key (${err.error}). Check LLM_PROVIDER_API_KEY on the oracle.`;
  if (is('model_not_configured')) return NO_MODEL;
  return `${err.error} [${err.code}${err.retryable ? ', retryable' : ''}]`;
}
