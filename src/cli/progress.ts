/**
 * A one-line progress indicator on stderr for long steps, shown only on a TTY
 * (never in pipes, CI or --json runs that redirect stderr).
 */
import type { Progress } from '../lib/selection/workflow.ts';

export interface ProgressLine {
  update(text: string): void;
  done(): void;
}

export function progressLine(enabled = Boolean(process.stderr.isTTY)): ProgressLine {
  if (!enabled) return { update: () => {}, done: () => {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  let last = 0;
  let shown = false;
  return {
    update(text: string) {
      const now = Date.now();
      if (now - last < 80) return;
      last = now;
      shown = true;
      process.stderr.write(`\r\u001b[2K${frames[i++ % frames.length]} ${text}`);
    },
    done() {
      if (shown) process.stderr.write('\r\u001b[2K');
    },
  };
}

const count = (p: Progress): string =>
  `${(p.done ?? 0).toLocaleString('en')}${p.total !== undefined ? ` / ${p.total.toLocaleString('en')}` : ''}`;

/** The text of a selection step's progress, with the total when known. */
export function progressText(p: Progress): string {
  if (p.phase === 'read')
    return `reading frame ${((p.done ?? 0) / 1e6).toFixed(1)}${p.total !== undefined ? ` / ${(p.total / 1e6).toFixed(1)}` : ''} MB`;
  if (p.phase === 'tickets') return `tickets ${count(p)}`;
  if (p.phase === 'write') return `writing selection.csv ${count(p)}`;
  if (p.phase === 'beacon') return 'verifying the beacon round';
  return 'hashing the frame';
}
