/**
 * A one-line progress indicator on stderr for long steps, shown only on a TTY
 * (never in pipes, CI or --json runs that redirect stderr).
 */
import type { Progress } from '../lib/selection/workflow.ts';

interface ProgressLine {
  update(text: string): void;
  done(): void;
}

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function progressLine(enabled = Boolean(process.stderr.isTTY)): ProgressLine {
  if (!enabled) return { update: () => {}, done: () => {} };
  const frames = SPINNER_FRAMES;
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

/**
 * A step that takes seconds (starting the daemon) says so on stderr, so --json output on stdout is untouched: on a
 * TTY a spinner with the elapsed time, cleared when the step ends; elsewhere one plain line when it starts. `done`
 * (given the result and the seconds taken) is printed as a line on both when the step succeeds. Under --json only
 * the spinner is shown (it leaves nothing behind): a program reading stderr finds just the error body there.
 */
export async function slowStep<T>(
  text: string,
  run: () => Promise<T>,
  o: {
    done?: (result: T, seconds: string) => string;
    stream?: NodeJS.WritableStream & { isTTY?: boolean };
    /** Draw the spinner (default: the stream is a terminal). */
    tty?: boolean;
    /** --json mode (default: --json on the command line). */
    json?: boolean;
  } = {},
): Promise<T> {
  const stream = o.stream ?? process.stderr;
  const quiet = o.json ?? process.argv.includes('--json');
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  let timer: NodeJS.Timeout | undefined;
  if (o.tty ?? stream.isTTY) {
    let i = 0;
    const draw = () =>
      stream.write(`\r\u001b[2K${SPINNER_FRAMES[i++ % SPINNER_FRAMES.length]} ${text}… ${seconds()} s`);
    draw();
    timer = setInterval(draw, 100);
  } else if (!quiet) stream.write(`${text}…\n`);
  let result: T;
  try {
    result = await run();
  } finally {
    if (timer) {
      clearInterval(timer);
      stream.write('\r\u001b[2K');
    }
  }
  if (o.done && !quiet) stream.write(`${o.done(result, seconds())}\n`);
  return result;
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
