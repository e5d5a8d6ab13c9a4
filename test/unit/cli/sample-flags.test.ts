/**
 * The sample commands' flags, declared once in src/cli/sample/flags.ts: oclif and the fast path
 * read the same specs, and the fast path's checks are the specs' own constraints, so for any
 * arguments both accept or refuse alike.
 */
import { describe, expect, it } from 'vitest';
import { Parser } from '@oclif/core';
import { parseArgs } from 'node:util';
import { checkedFlagValues, parseArgsOptions, type FlagSpecs } from '../../../src/cli/flag-spec.ts';
import { toOclifFlags } from '../../../src/cli/oclif-flags.ts';
import {
  CALC_FLAGS,
  CHAIN_NAMES,
  COMMIT_FLAGS,
  DRAW_FLAGS,
  RECALC_FLAGS,
  REPORT_FLAGS,
  VERIFY_FLAGS,
} from '../../../src/cli/sample/flags.ts';
import { PINNED_CHAINS } from '../../../src/lib/beacon/drand.ts';

/** Whether oclif's parser accepts the arguments (its own constraint checks). */
async function oclifAccepts(specs: FlagSpecs, argv: string[]): Promise<boolean> {
  try {
    await Parser.parse(argv, { flags: toOclifFlags(specs), strict: true });
    return true;
  } catch {
    return false;
  }
}

/** Whether the fast path's checks (checkedFlagValues over parseArgs) accept them. */
function fastAccepts(specs: FlagSpecs, argv: string[]): boolean {
  const { values } = parseArgs({ args: argv, options: parseArgsOptions(specs), strict: true });
  return checkedFlagValues(specs, values) !== undefined;
}

describe('sample flags', () => {
  it('the chain options are the pinned drand chains', () => {
    expect([...CHAIN_NAMES].sort()).toEqual(Object.keys(PINNED_CHAINS).sort());
  });

  it('the fast path accepts and refuses exactly what oclif does (required, exactlyOne, options, defaults)', async () => {
    const cases: [FlagSpecs, string[]][] = [
      [DRAW_FLAGS, ['--commitment', 'c.json', '--frame', 'f.csv', '--beacon', 'r.json']],
      [DRAW_FLAGS, ['--commitment', 'c.json', '--frame', 'f.csv']], // neither --beacon nor --seed-hex
      [DRAW_FLAGS, ['--commitment', 'c.json', '--frame', 'f.csv', '--beacon', 'r.json', '--seed-hex', 'ab']], // both
      [DRAW_FLAGS, ['--frame', 'f.csv', '--beacon', 'r.json']], // no --commitment
      [CALC_FLAGS, ['-N', '100', '--format', 'xml']],
      [CALC_FLAGS, ['-N', '100', '--format', 'csv', '--stratum', 'a=0.5', '--stratum', 'b=0.5']],
      [RECALC_FLAGS, ['--previous', 'd.json', '--observed', 'a=1:2']],
    ];
    for (const [specs, argv] of cases)
      expect(fastAccepts(specs, argv), argv.join(' ')).toBe(await oclifAccepts(specs, argv));
    const v = checkedFlagValues(CALC_FLAGS, { population: '5' })!;
    expect(v).toMatchObject({ population: '5', format: 'table', explain: false });
  });

  it('every sample command declares its flags as specs that oclif parses', async () => {
    for (const specs of [VERIFY_FLAGS, REPORT_FLAGS, COMMIT_FLAGS])
      expect(Object.keys(toOclifFlags(specs)).sort()).toEqual(Object.keys(specs).sort());
    expect(await oclifAccepts(REPORT_FLAGS, ['--manifest', 'm.json', '--design', 'd.json'])).toBe(false);
    const commit = await Parser.parse(['--frame', 'f.csv', '-N', '100', '--mean', '1', '--sd', '1', '--dropout', '0'], {
      flags: toOclifFlags(COMMIT_FLAGS),
      strict: true,
    });
    expect(commit.flags).toMatchObject({ population: 100, delay: 3600, out: 'commitment.json' });
    expect(await oclifAccepts(COMMIT_FLAGS as never, ['--frame', 'f.csv', '-N', '100'])).toBe(false); // dependsOn
  });
});
