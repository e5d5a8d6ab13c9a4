/**
 * The chat's state machine, shared by the Ink TUI and the piped mode: a
 * current session, a model, slash commands, and turns streamed through the
 * headless client (src/client) — the same code paths the React SDK uses.
 */
import { transcript, type TurnErrorCode } from '../lib/protocol/index.ts';
import type { OracleClient, TurnResult, ChatStream, OnTurnEvent } from '../client/client.ts';
import { OracleClientError, PaymentRequiredError } from '../client/errors.ts';

export interface CommandResult {
  /** Lines to show the user. */
  lines: string[];
  quit?: boolean;
  /** The view should be cleared (new or switched session). */
  reset?: boolean;
}

const HELP_LINES = [
  'Commands:',
  '  /new              start a new session',
  '  /sessions         list your sessions on this oracle',
  '  /switch <id>      continue another session (an id or its first characters)',
  '  /model [id]       show the models, or use one for the next turns',
  '  /help             this help',
  '  /quit             leave (also Ctrl+C twice, or Ctrl+D)',
  'Keys: Enter sends · Up/Down recall what you typed · Ctrl+C cancels the answer being streamed.',
];

export class ChatController {
  readonly client: OracleClient;
  sessionId: string | undefined;
  model: string | undefined;
  private current: ChatStream | undefined;

  constructor(client: OracleClient, o: { sessionId?: string; model?: string } = {}) {
    this.client = client;
    this.sessionId = o.sessionId;
    this.model = o.model;
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
        if (total === 0) return { lines: ['No sessions yet.'] };
        return {
          lines: [
            `${total} session${total === 1 ? '' : 's'}${total > sessions.length ? ` (showing ${sessions.length})` : ''}:`,
            ...sessions.map((s) => `${s.sessionId === this.sessionId ? '*' : ' '} ${s.sessionId}  ${s.title || '(untitled)'}  ${s.lastUpdatedAt}`),
          ],
        };
      }
      case '/switch': {
        if (!arg) return { lines: ['Usage: /switch <session id>'] };
        const { sessions } = await this.client.listSessions({ limit: 200 });
        const matches = sessions.filter((s) => s.sessionId === arg || s.sessionId.startsWith(arg));
        if (matches.length !== 1) return { lines: [matches.length === 0 ? `No session ${arg}. /sessions lists them.` : `${arg} is ambiguous: ${matches.map((m) => m.sessionId).join(', ')}`] };
        this.sessionId = matches[0]!.sessionId;
        const history = await this.client.history(this.sessionId);
        const lines = [`Switched to ${this.sessionId} (${history.length} messages).`];
        for (const t of transcript(history.slice(-10))) if (t.content !== '') lines.push(`${t.role === 'user' ? 'you' : 'oracle'}: ${t.content}`);
        return { lines, reset: true };
      }
      case '/model': {
        const models = await this.client.models();
        if (!arg) {
          return { lines: [`Model: ${this.model ?? models.default ?? '(none configured on the oracle)'}`, ...(models.models.length ? [`Available: ${models.models.map((m) => m.id).join(', ')}`] : [])] };
        }
        if (models.models.length && !models.models.some((m) => m.id === arg)) return { lines: [`Unknown model ${arg}. Available: ${models.models.map((m) => m.id).join(', ')}`] };
        this.model = arg;
        return { lines: [`Using model ${arg} for the next turns.`] };
      }
      default:
        return { lines: [`Unknown command ${cmd}. /help lists the commands.`] };
    }
  }
}

const NO_MODEL = "The oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and the model in its oracle.config.json (for the local daemon's default oracle: LLM_MODEL in the daemon's environment, then oraclekit daemon restart).";

/** A message for people, for any failure of a turn or command. */
export function explainError(e: unknown, baseUrl: string): string {
  if (e instanceof PaymentRequiredError) {
    return [
      `Payment required: this oracle is paid per use. Outstanding claim${e.claims.length === 1 ? '' : 's'}: ${e.claims.join(', ') || '(none listed)'}.`,
      'Pay the claims with your wallet (the oracle\'s credits plugin), then send again.',
    ].join('\n');
  }
  if (e instanceof OracleClientError) {
    if (e.code === 'oracle_unreachable') return `Cannot reach the oracle at ${baseUrl}. Is it running? (start it with \`npm run dev\` in its project, or check --oracle)`;
    if (e.status === 401) return `The oracle refused your identity (${e.code}: ${e.message}), even after re-authorising.`;
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
  if (is('provider_unauthorized')) return `The model provider refused the oracle's key (${err.error}). Check LLM_PROVIDER_API_KEY on the oracle.`;
  if (is('model_not_configured')) return NO_MODEL;
  return `${err.error} [${err.code}${err.retryable ? ', retryable' : ''}]`;
}
