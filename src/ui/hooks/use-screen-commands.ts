/**
 * The slash commands that act on the terminal rather than the oracle, as the
 * ChatScreen the controller's dispatcher runs: /clear, /copy [n] (OSC 52, or
 * the `copy` the host passes), /tool (the last call whole) and /edit (the
 * input in $VISUAL / $EDITOR, the terminal handed over while it runs). It
 * also keeps what they act on: the last answer and the last tool call.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApp } from 'ink';
import { useCallback, useMemo, useRef } from 'react';
import type { ToolCallState } from '../../lib/protocol/index.ts';
import { shellQuote } from '../../lib/shell.ts';
import type { TurnResult } from '../../client/client.ts';
import type { ChatScreen, CommandResult } from '../chat-controller.ts';
import { expandPastes, lineOf } from '../input-line.ts';
import { codeBlocks } from '../markdown.tsx';
import { counted } from '../text-wrap.ts';
import { oneLine } from '../transcript.tsx';
import type { LineEditor } from './use-line-editor.ts';
import type { Transcript } from './use-transcript.ts';

function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/**
 * Opens $VISUAL or $EDITOR (else vi) on a file holding `text` (0600, removed after); the file's text after it exits.
 */
function editInEditor(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-message-'));
  const file = join(dir, 'message.md');
  try {
    writeFileSync(file, text, { mode: 0o600 });
    const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
    // through a shell: an editor setting often carries its own arguments (`code --wait`)
    const r = spawnSync(`${editor} ${shellQuote(file)}`, { shell: true, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${editor} exited with ${r.status ?? r.signal}`);
    return readFileSync(file, 'utf8').replace(/\n$/, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function pretty(v: unknown): string {
  try {
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

interface ScreenCommands {
  screen: ChatScreen;
  /** Remembers a turn's answer and last tool call (for /copy and /tool). */
  onAnswer(r: TurnResult): void;
  openEditor(): Promise<CommandResult>;
}

export function useScreenCommands(o: {
  transcript: Pick<Transcript, 'reset' | 'write'>;
  editor: LineEditor;
  copy?: ((text: string) => void) | undefined;
}): ScreenCommands {
  const { transcript, editor, copy } = o;
  const { suspendTerminal } = useApp();
  const lastAnswer = useRef<string | undefined>(undefined);
  const lastTool = useRef<ToolCallState | undefined>(undefined);
  const onAnswer = useCallback((r: TurnResult) => {
    if (r.text) lastAnswer.current = r.text;
    if (r.toolCalls.length) lastTool.current = r.toolCalls.at(-1);
  }, []);

  const openEditor = useCallback(async (): Promise<CommandResult> => {
    let text: string | undefined;
    let failed: string | undefined;
    await suspendTerminal(() => {
      try {
        text = editInEditor(expandPastes(editor.current()));
      } catch (e) {
        failed = (e as Error).message;
      }
    });
    if (failed) return { lines: [`The editor failed: ${failed}. Your message is unchanged.`] };
    if (text !== undefined) editor.set(lineOf(text));
    return { lines: [] };
  }, [editor, suspendTerminal]);

  const screen = useMemo<ChatScreen>(
    () => ({
      clear: () => {
        transcript.reset();
        return { lines: [] };
      },
      copy: (arg) => {
        const answer = lastAnswer.current;
        if (!answer) return { lines: ['No answer to copy yet.'] };
        let text = answer;
        let what = `the last answer (${counted(answer.length, 'character')})`;
        if (arg) {
          const blocks = codeBlocks(answer);
          const n = Number(arg);
          if (!Number.isInteger(n) || n < 1 || n > blocks.length)
            return {
              lines: [
                `/copy ${arg}: the last answer has ${counted(blocks.length, 'code block')}; /copy 1 copies the first.`,
              ],
            };
          text = blocks[n - 1]!;
          what = `code block ${n} of the last answer (${counted(text.split('\n').length, 'line')})`;
        }
        if (copy) copy(text);
        else transcript.write(osc52(text));
        return { lines: [`Copied ${what} to the clipboard.`] };
      },
      tool: () => {
        const t = lastTool.current;
        if (!t) return { lines: ['No tool call yet.'] };
        return {
          lines: [
            `${t.toolName} ${oneLine(t.args ?? {})} (${t.status === 'error' ? 'failed' : t.status})`,
            t.status === 'error' ? (t.error ?? 'failed') : pretty(t.output),
          ],
        };
      },
      edit: openEditor,
    }),
    [copy, openEditor, transcript],
  );
  return { screen, onAnswer, openEditor };
}
