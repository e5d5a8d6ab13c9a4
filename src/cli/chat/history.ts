/**
 * The chat's input history across runs, per oracle: what you typed (messages
 * and slash commands), one JSON string a line, in
 * `<state dir>/chat-history/<first 16 hex of sha256(oracle DID or URL)>.jsonl`
 * (state dir: $ORACLEKIT_HOME/state, $XDG_STATE_HOME/oraclekit,
 * ~/.local/state/oraclekit), mode 0600 in a 0700 directory: messages can be
 * private. The newest 500 entries are kept. A file that cannot be read or
 * written never stops the chat: the history is then this run's only.
 */
import { sha256Hex } from '../../lib/hash.ts';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../../lib/paths.ts';

export const HISTORY_KEEP = 500;

interface ChatHistory {
  /** Oldest first. */
  entries: string[];
  append(text: string): void;
  /** Where it is kept. */
  path: string;
}

export function historyPath(oracle: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = sha256Hex(oracle).slice(0, 16);
  return join(stateDir(env), 'chat-history', `${key}.jsonl`);
}

export function openHistory(oracle: string, env: NodeJS.ProcessEnv = process.env): ChatHistory {
  const path = historyPath(oracle, env);
  const entries: string[] = [];
  let raw = '';
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    // no history yet
  }
  for (const line of raw.split('\n')) {
    if (!line) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'string' && v.trim()) entries.push(v);
    } catch {
      // a torn line (a run killed while writing) is skipped
    }
  }
  let writable = true;
  if (entries.length > HISTORY_KEEP * 2) {
    entries.splice(0, entries.length - HISTORY_KEEP);
    try {
      writeFileSync(path, entries.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
    } catch {
      writable = false;
    }
  }
  return {
    entries,
    path,
    append(text: string) {
      if (entries.at(-1) === text) return;
      entries.push(text);
      if (!writable) return;
      try {
        mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
        appendFileSync(path, JSON.stringify(text) + '\n', { mode: 0o600 });
      } catch {
        writable = false;
      }
    },
  };
}
