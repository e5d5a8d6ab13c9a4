/**
 * The guided `sample calc` / `sample recalc` in a real terminal:
 * the built CLI runs inside tmux (a private server) with CI unset, the
 * answers go in with send-keys, and the command line it prints at the end is
 * run again to check that it reproduces the same design. Without a TTY, with
 * --json or with CI set nothing is asked: the one-line error and exit 3.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { hasTmux, Tmux } from '../helpers/tmux.ts';
import { commandLine } from '../../src/cli/sample/guided.ts';
import { CALC_FLAGS } from '../../src/cli/sample/flags.ts';
import { NORTH_SOUTH_CALC_ARGS, SIMPLE_CALC_ARGS } from '../helpers/sampling-designs.ts';

const SOCK = `oraclekit-guided-test-${process.pid}`;
let dir: string;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ok-guided-'));
});
afterAll(() => {
  if (hasTmux) new Tmux(SOCK, 'x').kill();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The CLI in a fresh tmux session, CI unset (the suite itself may run with CI=true); the shell stays to show the exit
 * code.
 */
function session(args: string, env = 'env -u CI'): Tmux {
  const t = new Tmux(SOCK, `s${++n}`);
  t.start(`${env} ORACLEKIT_HOME='${dir}' '${process.execPath}' '${BIN}' ${args}; echo "EXIT=$?"; sleep 600`, {
    cwd: ROOT,
    width: 220,
    height: 60,
  });
  return t;
}

/** Answers a prompt once it is the active one ("? <message>"). */
async function answer(t: Tmux, prompt: string, text: string): Promise<void> {
  await t.until((s) => s.includes(`? ${prompt}`), `the prompt "${prompt}"`);
  t.line(text);
  await t.until((s) => s.includes(`✔ ${prompt}`), `the answer to "${prompt}"`);
}

/** Runs a printed `oraclekit …` line through sh, with oraclekit the built CLI. */
function runPrinted(line: string, extra = ''): string {
  return execFileSync('sh', ['-c', `oraclekit() { '${process.execPath}' '${BIN}' "$@"; }; ${line} ${extra}`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ORACLEKIT_HOME: dir },
  });
}

const trimLines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();

function printedCommand(screen: string, heading: string): string {
  const lines = screen.split('\n');
  const i = lines.findIndex((l) => l.includes(heading));
  expect(i, screen).toBeGreaterThanOrEqual(0);
  return lines[i + 1]!.trim();
}

describe.skipIf(!hasTmux)('guided sample calc and recalc under tmux', () => {
  it('walks a stratified design, validates like the flags, and prints the one command that reproduces it', async () => {
    const t = session('sample calc');
    await answer(t, 'Households in the sampling frame (N)', '8000');
    await t.until((s) => s.includes('? What does the survey estimate?'), 'the mean-or-proportion choice');
    t.keys('Enter'); // a mean (the first choice)
    await answer(t, 'Expected mean of the indicator', '3.1');
    await answer(t, 'Expected standard deviation of the indicator', '1.7');
    // a percentage is refused with the flag's own message, and the prompt stays
    await t.until((s) => s.includes('? Expected dropout rate'), 'the dropout prompt');
    t.line('15');
    await t.until(
      (s) => s.includes('dropoutRate (--dropout) = 15 is invalid') && s.includes('15 % is 0.15'),
      'the dropout error',
    );
    t.keys('BSpace', 'BSpace');
    t.line('0.1');
    await answer(t, 'Stratify', 'y');
    await answer(t, 'Stratum 1: its name', 'lpg');
    await answer(t, 'Share of the households in lpg', '0.5');
    await answer(t, 'Mean in lpg', '2.6');
    await answer(t, 'Standard deviation in lpg', '0.9');
    await answer(t, 'Stratum 2: its name', 'biomass');
    await answer(t, 'Share of the households in biomass', '0.3');
    await answer(t, 'Mean in biomass', ''); // inherits the overall mean and SD
    await answer(t, 'Stratum 3: its name', 'electric');
    await answer(t, 'Share of the households in electric', ''); // the default: the 0.2 left
    await answer(t, 'Mean in electric', '');
    const screen = await t.until((s) => s.includes('EXIT='), 'the end');
    expect(screen).toContain('EXIT=0');
    const line = printedCommand(screen, 'The same design from the command line:');
    expect(line).toBe(
      'oraclekit sample calc --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1 --stratum lpg=0.5:2.6:0.9 --stratum biomass=0.3 --stratum electric=0.2',
    );
    // the printed command prints the same design, line for line, as the guided run did
    const again = trimLines(runPrinted(line));
    expect(trimLines(screen)).toContain(again);
    expect(again).toMatch(/adjustedSize \(households to sample\)\s+1028/);
    // and its JSON is the design of the same flags typed by hand
    const typed = await runCli([
      'sample',
      'calc',
      ...SIMPLE_CALC_ARGS,
      '--stratum',
      'lpg=0.5:2.6:0.9',
      '--stratum',
      'biomass=0.3',
      '--stratum',
      'electric=0.2',
      '--json',
    ]);
    // the same design (the provenance says when each was made)
    const { provenance: _a, ...printed } = JSON.parse(runPrinted(line, '--json'));
    const { provenance: _b, ...direct } = JSON.parse(typed.stdout);
    expect(printed).toEqual(direct);
  }, 90_000);

  it('guides sample recalc from a previous design and prints its command', async () => {
    const prev = join(dir, 'prev.json');
    writeFileSync(prev, (await runCli(['sample', 'calc', ...NORTH_SOUTH_CALC_ARGS, '--json'])).stdout);
    const t = session('sample recalc');
    await answer(t, 'The previous design', prev);
    await answer(t, 'Raw observations of this period', '');
    await answer(t, 'Observed mean of the indicator this period', '1.3');
    await answer(t, 'Observed standard deviation this period', '');
    await answer(t, 'Observed mean in stratum north', '1.1');
    await answer(t, 'Observed standard deviation in stratum north', '0.4');
    await answer(t, 'Observed mean in stratum south', '');
    await answer(t, 'Observed dropout rate this period', '0.12');
    const screen = await t.until((s) => s.includes('EXIT='), 'the end');
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('The sample size goes down by 49: 545 → 496.');
    const line = printedCommand(screen, 'The same recalculation from the command line:');
    expect(line).toBe(`oraclekit sample recalc --previous ${prev} --mean 1.3 --dropout 0.12 --observed north=1.1:0.4`);
    expect(trimLines(screen)).toContain(trimLines(runPrinted(line)));
  }, 90_000);

  it('with flags on a terminal nothing is asked; with CI set or --json the one-line error and exit 3 stay', async () => {
    const full = session('sample calc -N 8000 --mean 3.1 --sd 1.7 --dropout 0.1');
    const s1 = await full.until((s) => s.includes('EXIT='), 'the end');
    expect(s1).toMatch(/adjustedSize \(households to sample\)\s+486/);
    expect(s1).not.toContain('The same design from the command line');
    expect(s1).toContain('EXIT=0');
    const ci = session('sample calc', 'CI=1');
    const s2 = await ci.until((s) => s.includes('EXIT='), 'the end');
    expect(s2).toContain('Error [missing_parameter] population');
    expect(s2).not.toContain('? ');
    expect(s2).toContain('EXIT=3');
    const json = session('sample calc --json');
    const s3 = await json.until((s) => s.includes('EXIT='), 'the end');
    expect(s3).toContain('"code":"missing_parameter"');
    expect(s3).toContain('EXIT=3');
    const recalc = session('sample recalc', 'CI=true');
    expect(await recalc.until((s) => s.includes('EXIT='), 'the end')).toContain('EXIT=3');
  }, 90_000);
});

describe('the printed command line', () => {
  it('quotes what a shell would split or expand, and the shell gives back the same flags', async () => {
    const flags = {
      population: '500',
      proportion: '0.7',
      dropout: '0',
      stratum: ['north east=0.5', "o'brien=0.5"],
      format: 'table',
      explain: true,
      json: false,
    };
    const line = commandLine('sample calc', CALC_FLAGS, flags);
    expect(line).toBe(
      `oraclekit sample calc --population 500 --proportion 0.7 --dropout 0 --stratum 'north east=0.5' --stratum 'o'\\''brien=0.5' --explain`,
    );
    const viaShell = JSON.parse(runPrinted(line, '--json'));
    expect(viaShell.stratification.strata.map((s: { name: string }) => s.name)).toEqual(['north east', "o'brien"]);
  });
});

describe('without a TTY nothing changes', () => {
  it('sample calc and recalc with inputs missing: one line, exit 3, even with CI unset', async () => {
    const env = { CI: '' };
    const calc = await runCli(['sample', 'calc'], { env });
    expect(calc.code).toBe(3);
    expect(calc.stderr.trim().split('\n')).toHaveLength(1);
    expect(calc.stdout).toBe('');
    const recalc = await runCli(['sample', 'recalc', '--mean', '1'], { env });
    expect(recalc.code).toBe(3);
    expect(recalc.stdout).toBe('');
  });
});
