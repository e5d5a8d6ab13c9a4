/**
 * `oraclekit chat` without a TTY: one line of stdin is one turn (or a slash
 * command); the answer streams to stdout as plain text, a newline after each
 * turn; tool calls and notices go to stderr so stdout stays the answers.
 * `--json`: every event as one JSON line on stdout ({event, id, data}), plus
 * {event:'command', lines} for slash commands and {event:'failure', ...} for
 * a turn that could not run.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ChatController } from '../../ui/chat-controller.ts';
import { explainError, explainRunError } from '../../ui/chat-controller.ts';

export async function runPiped(c: ChatController, io: { stdin: Readable; stdout: Writable; stderr: Writable; json: boolean }): Promise<number> {
  const out = (s: string) => io.stdout.write(s);
  const rl = createInterface({ input: io.stdin, crlfDelay: Infinity });
  let failures = 0;
  for await (const raw of rl) {
    const line = raw.trim();
    if (!line) continue;
    try {
      if (c.isCommand(line)) {
        let r = await c.command(line);
        // a `/pay` line is the consent: pay what it shows (docs/client.md, "Piped and JSON modes")
        if (r.confirm) r = { ...r, lines: [...r.lines, ...(await r.confirm.run()).lines] };
        if (io.json) out(JSON.stringify({ event: 'command', command: line.split(/\s+/)[0], lines: r.lines }) + '\n');
        else if (r.lines.length) io.stderr.write(r.lines.join('\n') + '\n');
        if (r.quit) break;
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
          io.stderr.write(`[tool] ${e.data.toolName} ${e.data.status}${e.data.error ? `: ${e.data.error}` : ''}\n`);
        }
      });
      if (!io.json) {
        if (wrote) out('\n');
        const why = explainRunError(r);
        if (why) io.stderr.write(`error: ${why}\n`);
        if (r.status === 'aborted') io.stderr.write('(cancelled)\n');
      }
      if (r.status !== 'finished') failures++;
    } catch (e) {
      failures++;
      const msg = explainError(e, c.client.baseUrl);
      if (io.json) out(JSON.stringify({ event: 'failure', message: msg, code: (e as { code?: string }).code, claims: (e as { claims?: string[] }).claims }) + '\n');
      else io.stderr.write(`error: ${msg}\n`);
      if ((e as { code?: string }).code === 'oracle_unreachable') return 9;
    }
  }
  return failures > 0 ? 1 : 0;
}
