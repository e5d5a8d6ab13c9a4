/** The chat's input history across runs (src/cli/chat/history.ts): per oracle, in the state dir, mode 0600. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_KEEP, historyPath, openHistory } from '../../../../src/cli/chat/history.ts';

const homes: string[] = [];
function env(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-hist-'));
  homes.push(home);
  return { ORACLEKIT_HOME: home };
}
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

describe('chat input history', () => {
  it('keeps what was typed for the next run, per oracle, privately', () => {
    const e = env();
    const a = openHistory('did:key:oracleA', e);
    expect(a.entries).toEqual([]);
    a.append('first');
    a.append('two\nlines');
    a.append('two\nlines');
    openHistory('did:key:oracleB', e).append('elsewhere');
    expect(openHistory('did:key:oracleA', e).entries).toEqual(['first', 'two\nlines']);
    expect(openHistory('did:key:oracleB', e).entries).toEqual(['elsewhere']);
    const p = historyPath('did:key:oracleA', e);
    expect(p.startsWith(join(e.ORACLEKIT_HOME!, 'state', 'chat-history'))).toBe(true);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(p)).mode & 0o777).toBe(0o700);
  });

  it('skips torn lines and keeps the newest entries', () => {
    const e = env();
    const p = historyPath('o', e);
    mkdirSync(dirname(p), { recursive: true });
    const many = Array.from({ length: HISTORY_KEEP * 2 + 5 }, (_, i) => JSON.stringify(`m${i}`)).join('\n');
    writeFileSync(p, `${many}\n{"torn\n`);
    const h = openHistory('o', e);
    expect(h.entries).toHaveLength(HISTORY_KEEP);
    expect(h.entries.at(-1)).toBe(`m${HISTORY_KEEP * 2 + 4}`);
    expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(HISTORY_KEEP);
  });

  it('an unwritable state dir does not stop the chat: the history is then in memory', () => {
    const e = env();
    writeFileSync(join(e.ORACLEKIT_HOME!, 'state'), 'a file where the directory should be');
    const h = openHistory('o', e);
    h.append('still works');
    expect(h.entries).toEqual(['still works']);
  });
});
