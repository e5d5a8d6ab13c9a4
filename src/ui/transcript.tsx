/**
 * What the chat shows of a conversation: the items of the transcript (your
 * messages, answers with their tool calls, notes, errors) and the pieces they
 * are drawn with. A resumed session is turned into the same items
 * (`historyItems`), so it looks as it did live.
 */
import { Box, Text } from 'ink';
import { useEffect, useState, type ReactNode } from 'react';
import { parseMessageId, type Message, type ToolCallState, type TurnUsage } from '../lib/protocol/index.ts';
import { Markdown } from './markdown.tsx';
import { useTint } from './theme.ts';
import { counted, fitPrefix, graphemes, inputRows, textWidth, wrapText } from './text-wrap.ts';
import { cursorRowCol, type Line } from './input-line.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type Item =
  | { id: number; kind: 'user'; text: string }
  | {
      id: number;
      kind: 'assistant';
      text: string;
      tools: readonly ToolCallState[];
      status: string;
      usage?: TurnUsage | undefined;
    }
  | { id: number; kind: 'note'; text: string; hanging?: number | undefined }
  | { id: number; kind: 'error'; text: string };

export type NewItem = DistributiveOmit<Item, 'id'>;

/**
 * A stored history as transcript items: each human message, then the turn's
 * tool calls and answer as one assistant item with the status and usage its
 * human row keeps (a history stored without them: finished, no usage), its
 * error row as an error. An assistant item with nothing to show is left out,
 * as it draws nothing live either.
 */
export function historyItems(messages: readonly Message[]): NewItem[] {
  const out: NewItem[] = [];
  let turn: Extract<NewItem, { kind: 'assistant' }> | undefined;
  let turnId = '';
  const assistant = (requestId: string) => {
    if (!turn || turnId !== requestId) {
      turn = { kind: 'assistant', text: '', tools: [], status: 'finished' };
      turnId = requestId;
      out.push(turn);
    }
    return turn;
  };
  for (const m of messages) {
    const id = parseMessageId(m.id);
    if (m.type === 'human') {
      if (typeof m.content === 'string') out.push({ kind: 'user', text: m.content });
      turn = undefined;
      if (m.turn && id.part === 'human') {
        const t = assistant(id.requestId);
        t.status = m.turn.status;
        if (m.turn.usage) t.usage = m.turn.usage;
      }
      continue;
    }
    if (m.isReasoning || id.part === 'reasoning') continue;
    if (id.part === 'tool_call' && typeof m.content === 'object' && m.content) {
      const c = m.content as {
        name?: string;
        props?: { id?: string; args?: unknown; status?: string; output?: unknown; payload?: { error?: unknown } };
      };
      const status = c.props?.status === 'error' ? 'error' : c.props?.status === 'isRunning' ? 'isRunning' : 'done';
      const t = assistant(id.requestId);
      t.tools = [
        ...t.tools,
        {
          eventId: c.props?.id ?? id.toolCallId ?? '',
          toolName: c.name ?? 'tool',
          args: c.props?.args,
          status,
          // a failed call's reason is in its last frame (the payload), as the live event carried it
          ...(status === 'error'
            ? { error: String(c.props?.payload?.error ?? c.props?.output ?? 'failed') }
            : { output: c.props?.output }),
        },
      ];
      continue;
    }
    if (id.part === 'error' && typeof m.content === 'object' && m.content) {
      const output = (m.content as { props?: { output?: unknown } }).props?.output;
      out.push({ kind: 'error', text: String(output ?? 'the turn failed') });
      continue;
    }
    if (id.part === 'answer' && typeof m.content === 'string') {
      const t = assistant(id.requestId);
      t.text = m.content;
    }
  }
  return out.filter((x) => x.kind !== 'assistant' || x.text || x.tools.length || x.status === 'aborted' || x.usage);
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function useTicker(ms: number): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!ms) return;
    const t = setInterval(() => setN((x) => x + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
  return n;
}

export function Spinner({ ms, since, label }: { ms: number; since?: number; label?: string }): ReactNode {
  const tint = useTint();
  const n = useTicker(ms);
  const elapsed = ms && since !== undefined ? ` ${((Date.now() - since) / 1000).toFixed(1)}s` : '';
  return (
    <Text wrap="truncate-end">
      <Text color={tint('cyan')}>{FRAMES[n % FRAMES.length]}</Text>
      {label !== undefined ? (
        <Text dimColor>
          {' '}
          {label}
          {elapsed}
        </Text>
      ) : null}
    </Text>
  );
}

/** A value as one line of text (JSON for objects). */
export function oneLine(v: unknown): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return (s ?? '').replace(/\s*\n\s*/g, ' ');
}

/** Cut to `cols` columns, with an ellipsis when something was cut. */
export function cut(s: string, cols: number): string {
  if (textWidth(s) <= cols) return s;
  return fitPrefix(s, Math.max(1, cols - 1)) + '…';
}

/**
 * A tool call: the icon in a column of its own, then the name, the args and
 * the output cut to the row's width (/tool shows the last one whole); an
 * error is shown whole, wrapped.
 */
export function ToolLine({ t, spinnerMs, width }: { t: ToolCallState; spinnerMs: number; width: number }): ReactNode {
  const tint = useTint();
  const icon =
    t.status === 'isRunning' ? (
      <Spinner ms={spinnerMs} />
    ) : t.status === 'done' ? (
      <Text color={tint('green')}>✓</Text>
    ) : (
      <Text color={tint('red')}>✗</Text>
    );
  const room = Math.max(10, width - 2);
  const name = t.toolName;
  const args = ' ' + oneLine(t.args ?? {});
  let argsShown: string;
  let outShown = '';
  if (t.status === 'done') {
    const out = ' → ' + oneLine(t.output);
    const left = room - textWidth(name);
    // the args get at most half of what is left when there is an output to show
    argsShown = cut(args, Math.max(4, Math.min(textWidth(args), Math.floor(left / 2))));
    outShown = cut(out, Math.max(4, left - textWidth(argsShown)));
  } else argsShown = t.status === 'error' ? cut(args, 60) : cut(args, Math.max(4, room - textWidth(name)));
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        {icon}
      </Box>
      <Box flexGrow={1} flexShrink={1}>
        <Text wrap={t.status === 'error' ? 'wrap' : 'truncate-end'}>
          <Text color={tint('blue')}>{name}</Text>
          <Text dimColor>{argsShown}</Text>
          {outShown ? <Text dimColor>{outShown}</Text> : null}
          {t.status === 'error' ? <Text color={tint('red')}> {t.error ?? 'failed'}</Text> : null}
        </Text>
      </Box>
    </Box>
  );
}

/**
 * The input (or a sent message): `›` in a column of its own, the lines
 * wrapped to the width at word boundaries, the cursor drawn inverse. At most
 * `maxRows` rows are shown: the ones around the cursor, with how many more
 * lines are above and below.
 */
export function Prompt({
  line,
  busy,
  cursor,
  width,
  maxRows = Infinity,
}: {
  line: Line;
  busy?: boolean;
  cursor?: boolean;
  width: number;
  maxRows?: number;
}): ReactNode {
  const tint = useTint();
  const room = Math.max(4, width - 2);
  const { lines, row, col } = cursorRowCol(line);
  type Row = { text: string; cursorAt?: number };
  const rows: Row[] = [];
  let cursorRow = 0;
  lines.forEach((l, i) => {
    const wrapped = inputRows(l, room);
    let offset = 0;
    wrapped.forEach((w, k) => {
      const n = graphemes(w).length;
      const here = cursor && i === row && col >= offset && (col < offset + n || k === wrapped.length - 1);
      if (here) cursorRow = rows.length;
      rows.push(here ? { text: w, cursorAt: col - offset } : { text: w });
      offset += n;
    });
  });
  // a longer input shows the rows around the cursor, and a row each to say how many are hidden above and below
  const fits = rows.length <= maxRows;
  const n = fits ? rows.length : Math.max(1, maxRows - 2);
  const start = fits ? 0 : Math.max(0, Math.min(rows.length - n, cursorRow - Math.floor(n / 2)));
  const shown = rows.slice(start, start + n);
  const above = start;
  const below = rows.length - start - shown.length;
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        <Text color={tint(busy ? 'gray' : 'green')} bold>
          ›
        </Text>
      </Box>
      <Box flexGrow={1} flexShrink={1} flexDirection="column">
        {above ? <Text dimColor>↑ {counted(above, 'more line')} above</Text> : null}
        {shown.map((r, i) => {
          if (r.cursorAt === undefined)
            return (
              <Text key={i} wrap="truncate-end">
                {r.text === '' ? ' ' : r.text}
              </Text>
            );
          const chars = graphemes(r.text);
          const at = chars[r.cursorAt] ?? ' ';
          return (
            <Text key={i} wrap="truncate-end">
              {chars.slice(0, r.cursorAt).join('')}
              <Text inverse>{at}</Text>
              {chars.slice(r.cursorAt + 1).join('')}
            </Text>
          );
        })}
        {below ? <Text dimColor>↓ {counted(below, 'more line')} below</Text> : null}
      </Box>
    </Box>
  );
}

/** A note's lines; with `hanging`, a line that starts with two spaces wraps under its column `hanging` (/help). */
function Note({ text, hanging, width }: { text: string; hanging?: number | undefined; width: number }): ReactNode {
  if (!hanging) return <Text dimColor>{wrapText(text, width).join('\n')}</Text>;
  return (
    <Box flexDirection="column">
      {text.split('\n').map((l, i) => {
        if (!l.startsWith('  ') || l.length <= hanging)
          return (
            <Text key={i} dimColor>
              {wrapText(l, width).join('\n')}
            </Text>
          );
        const body = wrapText(l.slice(hanging), Math.max(10, width - hanging));
        return (
          <Text key={i} dimColor>
            {body.map((b, k) => (k === 0 ? l.slice(0, hanging) : ' '.repeat(hanging)) + b).join('\n')}
          </Text>
        );
      })}
    </Box>
  );
}

/** The usage of a turn in a few words: tokens in and out, and what it cost. */
export function usageWords(u: TurnUsage | undefined): string {
  if (!u) return '';
  const parts: string[] = [];
  if (u.inputTokens !== undefined || u.outputTokens !== undefined)
    parts.push(`${u.inputTokens ?? 0} in · ${u.outputTokens ?? 0} out tokens`);
  if (u.charged) parts.push(`${u.charged.amount} ${u.charged.denom}`);
  return parts.join(' · ');
}

export function ItemView({ item, width }: { item: Item; width: number }): ReactNode {
  const tint = useTint();
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Prompt line={{ text: item.text, cursor: 0 }} width={width} />
        </Box>
      );
    case 'assistant':
      return (
        <Box flexDirection="column">
          {item.tools.map((t) => (
            <ToolLine key={t.eventId} t={t} spinnerMs={0} width={width} />
          ))}
          {item.text ? <Markdown text={item.text} width={width} /> : null}
          {item.status === 'aborted' ? <Text dimColor>(cancelled)</Text> : null}
          {item.usage ? (
            <Text dimColor wrap="truncate-end">
              {usageWords(item.usage)}
            </Text>
          ) : null}
        </Box>
      );
    case 'note':
      return (
        <Box marginTop={1}>
          <Note text={item.text} hanging={item.hanging} width={width} />
        </Box>
      );
    case 'error':
      return <Text color={tint('red')}>{wrapText(item.text, width).join('\n')}</Text>;
  }
}
