/**
 * `oraclekit chat` without a TTY: one line of stdin is one turn (or a slash
 * command); the answer streams to stdout as plain text, a newline after each
 * turn; tool calls (in words: `[tool] <name> running|done|failed: …`),
 * notices and errors (`Error [code] message`, as every command prints them,
 * docs/cli.md) go to stderr so stdout stays the answers.
 * `--json`: every event as one JSON line on stdout ({event, id, data}), plus
 * {event:'command', lines} for slash commands and {event:'failure', ...} for
 * a turn that could not run.
 *
 * The exit code is the class of the first failure (docs/cli.md, "Exit
 * codes"): 0 when every turn finished; payment required 8; the oracle or its
 * model unreachable or not configured 9 (an unreachable oracle also ends the
 * chat at once); otherwise the class of the error's HTTP status, or 1.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { EXIT_CODES, exitCodeForStatus } from '../../lib/errors.ts';
import { TURN_ERROR_CODES, type TurnErrorCode } from '../../lib/protocol/messages.ts';
import type { ToolCallEvent } from '../../lib/protocol/events.ts';
import type { TurnResult } from '../../client/client.ts';
import type { ChatController } from '../../ui/chat-controller.ts';

/** A tool call's status in words (the protocol's `isRunning` is not for people). */
const TOOL_WORDS: Record<ToolCallEvent['status'], string> = { isRunning: 'running', done: 'done', error: 'failed' };

export function toolLine(e: Pick<ToolCallEvent, 'toolName' | 'status' | 'error'>): string {
  return `[tool] ${e.toolName} ${TOOL_WORDS[e.status] ?? e.status}${e.status === 'error' && e.error ? `: ${e.error}` : ''}`;
}

/**
 * The exit code of a turn that ended without finishing: the model's side (provider, time-out, stream) is "unavailable".
 */
export function turnExitCode(r: Pick<TurnResult, 'status' | 'error'>): number {
  if (r.status === 'finished') return EXIT_CODES.ok;
  const code = r.error?.code;
  if (code && code in TURN_ERROR_CODES) {
    const kind = TURN_ERROR_CODES[code as TurnErrorCode].kind;
    if (kind === 'provider' || kind === 'timeout' || kind === 'malformed_stream') return EXIT_CODES.unavailable;
  }
  if (r.error?.kind === 'payment') return EXIT_CODES.paymentRequired;
  return EXIT_CODES.unexpected;
}

/**
 * The exit code of an error thrown by a turn or a command: its HTTP status' class; an unreachable oracle (status 0) is
 * 9.
 */
export function thrownExitCode(e: unknown): number {
  const status = (e as { status?: unknown })?.status;
  if (typeof status !== 'number') return EXIT_CODES.unexpected;
  return status === 0 ? EXIT_CODES.unavailable : exitCodeForStatus(status);
}

/**
 * `Error [code] message`: the one form of a CLI error for people
 * (src/cli/errors-print.ts); the code is not repeated at the message's end
 * (the chat's explanations end in `[code]` for the TUI); a multi-line
 * message is indented.
 */
export function errorLine(code: string, message: string): string {
  const text = message.replace(` [${code}]`, '').replace(` [${code}, retryable]`, ' (retryable: send it again)');
  return `Error [${code}] ${text.split('\n').join('\n  ')}`;
}

/** Exit code of a chat ended by Ctrl+C (SIGINT), as shells report it. */
const INTERRUPTED = 130;

export async function runPiped(
  c: ChatController,
  io: {
    stdin: Readable;
    stdout: Writable;
    stderr: Writable;
    json: boolean;
    /** Where SIGINT arrives (the process): Ctrl+C cancels the turn, ends the output's line and exits 130. */
    interrupts?: Pick<NodeJS.Process, 'once' | 'off' | 'exit'>;
  },
): Promise<number> {
  let atLineStart = true;
  const out = (s: string) => {
    if (s) atLineStart = s.endsWith('\n');
    return io.stdout.write(s);
  };
  const onInterrupt = () => {
    if (!atLineStart) io.stdout.write('\n');
    const leave = () => io.interrupts!.exit(INTERRUPTED);
    setTimeout(leave, 1000).unref();
    c.cancel().then(leave, leave);
  };
  io.interrupts?.once('SIGINT', onInterrupt);
  try {
    return await chatLines(c, io, out);
  } finally {
    io.interrupts?.off('SIGINT', onInterrupt);
  }
}

async function chatLines(
  c: ChatController,
  io: { stdin: Readable; stderr: Writable; json: boolean },
  out: (s: string) => void,
): Promise<number> {
  const rl = createInterface({ input: io.stdin, crlfDelay: Infinity });
  let exit: number = EXIT_CODES.ok;
  const fail = (code: number) => {
    if (exit === EXIT_CODES.ok) exit = code;
  };
  try {
    const pending: string[] = [];
    const lines = rl[Symbol.asyncIterator]();
    for (;;) {
      // a command's follow-up message (/retry) goes before the next line read
      const next = pending.length ? { done: false, value: pending.shift()! } : await lines.next();
      if (next.done) break;
      const line = String(next.value).trim();
      if (!line) continue;
      try {
        if (c.isCommand(line)) {
          let r = await c.command(line);
          // a `/pay` line is the consent: pay what it shows (docs/client.md, "Piped and JSON modes")
          if (r.confirm) {
            r = { ...r, lines: [...r.lines, ...(await r.confirm.run()).lines] };
            // paying cures an earlier payment_required: `question`, `/pay`, `question` answered is a success (exit 0)
            if (exit === EXIT_CODES.paymentRequired) exit = EXIT_CODES.ok;
          }
          if (io.json) out(JSON.stringify({ event: 'command', command: line.split(/\s+/)[0], lines: r.lines }) + '\n');
          else if (r.lines.length) io.stderr.write(r.lines.join('\n') + '\n');
          if (r.quit) break;
          if (r.send) pending.push(r.send);
          continue;
        }
        let wrote = false;
        const r = await c.send(line, (e) => {
          if (io.json) {
            out(JSON.stringify(e) + '\n');
            return;
          }
          if (e.event === 'message') {
            out(e.data.content);
            wrote = true;
          } else if (e.event === 'tool_call') {
            io.stderr.write(toolLine(e.data) + '\n');
          }
        });
        if (!io.json) {
          if (wrote) out('\n');
          const why = c.explainRun(r);
          if (why && r.error) io.stderr.write(errorLine(r.error.code, why) + '\n');
          if (r.status === 'aborted') io.stderr.write('(cancelled)\n');
        }
        fail(turnExitCode(r));
      } catch (e) {
        const code = thrownExitCode(e);
        fail(code);
        const msg = c.explain(e);
        const errCode = (e as { code?: unknown }).code;
        const shown = typeof errCode === 'string' ? errCode : 'unexpected';
        if (io.json)
          out(
            JSON.stringify({
              event: 'failure',
              message: msg,
              code: shown,
              exitCode: code,
              claims: (e as { claims?: string[] }).claims,
            }) + '\n',
          );
        else io.stderr.write(errorLine(shown, msg) + '\n');
        if (errCode === 'oracle_unreachable') return exit;
      }
    }
    return exit;
  } finally {
    rl.close();
  }
}
