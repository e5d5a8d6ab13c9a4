/**
 * `daemon logs`: the last lines of the daemon's log (JSON lines from pino)
 * and, with follow, the lines appended after them (a truncated log restarts
 * from its beginning).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, watchFile } from 'node:fs';
import { logPath } from '../../lib/paths.ts';

interface LogsOptions {
  lines: number;
  follow: boolean;
  env?: NodeJS.ProcessEnv;
  write?: (chunk: string | Buffer) => void;
}

/** Prints the tail; with follow, never resolves (Ctrl-C ends it). */
export async function showLogs(o: LogsOptions): Promise<void> {
  const write = o.write ?? ((c) => process.stdout.write(c));
  const path = logPath(o.env);
  if (!existsSync(path)) {
    if (!o.follow) {
      write(`no log yet (${path})\n`);
      return;
    }
  } else {
    const lines = readFileSync(path, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const tail = o.lines === 0 ? [] : lines.slice(-o.lines);
    if (tail.length) write(tail.join('\n') + '\n');
  }
  if (!o.follow) return;
  let pos = existsSync(path) ? statSync(path).size : 0;
  await new Promise<void>(() => {
    watchFile(path, { interval: 250 }, (cur) => {
      if (cur.size < pos) pos = 0; // truncated
      if (cur.size === pos) return;
      const fd = openSync(path, 'r');
      const buf = Buffer.alloc(cur.size - pos);
      readSync(fd, buf, 0, buf.length, pos);
      closeSync(fd);
      pos = cur.size;
      write(buf);
    });
  });
}
