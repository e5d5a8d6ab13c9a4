/**
 * The sample commands as the e2e suites run them: flags from an object (one place that spells the argv), and the
 * files of a selection folder under the names every suite uses, with the flag sets of draw and verify on them.
 */
import { join } from 'node:path';
import { runCli, type CliResult } from './cli.ts';

type FlagValue = string | number | boolean | (string | number)[] | undefined;

/** { frame: 'f.csv', json: true, stratum: ['a=0.5', 'b=0.5'] } → ['--frame', 'f.csv', '--json', '--stratum', 'a=0.5', …]. */
function flagArgs(flags: Record<string, FlagValue>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(flags)) {
    if (v === undefined || v === false) continue;
    if (v === true) out.push(`--${k}`);
    else for (const x of Array.isArray(v) ? v : [v]) out.push(`--${k}`, String(x));
  }
  return out;
}

/** `oraclekit sample <command>` with its flags, then any raw arguments. */
export function sample(
  command: string,
  flags: Record<string, FlagValue> = {},
  extra: string[] = [],
  opts: Parameters<typeof runCli>[1] = {},
): Promise<CliResult> {
  return runCli(['sample', ...command.split(' '), ...flagArgs(flags), ...extra], opts);
}

interface SelectionFiles {
  /** A path in the folder. */
  p: (name: string) => string;
  frame: string;
  design: string;
  commitment: string;
  round: string;
  /** The draw's --out-dir, and what it writes there. */
  out: string;
  proof: string;
  selection: string;
}

export function selectionFiles(dir: string): SelectionFiles {
  const p = (name: string): string => join(dir, name);
  return {
    p,
    frame: p('frame.csv'),
    design: p('design.json'),
    commitment: p('commitment.json'),
    round: p('round.json'),
    out: p('out'),
    proof: p('out/proof.json'),
    selection: p('out/selection.csv'),
  };
}

/** `sample select draw` on the folder's files; overrides replace or add flags. */
export const drawFlags = (f: SelectionFiles, overrides: Record<string, FlagValue> = {}) => ({
  commitment: f.commitment,
  frame: f.frame,
  beacon: f.round,
  'out-dir': f.out,
  ...overrides,
});

/** `sample verify` on the folder's files (the draw's proof and selection); overrides replace or add flags. */
export const verifyFlags = (f: SelectionFiles, overrides: Record<string, FlagValue> = {}) => ({
  frame: f.frame,
  commitment: f.commitment,
  proof: f.proof,
  selection: f.selection,
  ...overrides,
});
