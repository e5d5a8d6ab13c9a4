/**
 * The fast path: `sample calc`, `sample recalc` and `sample select draw` run without loading
 * @oclif/core (its import alone costs ~70 ms; the target is a cold start of
 * at most 3× `node -e 0`). It parses the same flag specs with node:util
 * parseArgs and calls the same run functions as the oclif commands. Anything
 * it does not handle exactly — help, an unknown flag, a value outside a
 * flag's options, an ambiguous value — returns false and oclif takes over,
 * so users always get oclif's behaviour and messages.
 *
 * The modules it loads take Node's built-ins with process.getBuiltinModule rather than an import: an ESM import of a
 * built-in builds its whole export facade (node:fs's and node:util's pull in more of Node's internals), a measurable
 * share of a cold start that is itself about `node -e 0`'s.
 */
import { BASE_FLAGS, checkedFlagValues, parseArgsOptions, refuseRepeatedFlag, type FlagSpecs } from './flag-spec.ts';
import { printCliError } from './errors-print.ts';
import { stdoutIo, type Io } from './io.ts';

const { parseArgs } = process.getBuiltinModule('node:util');

interface FastCommand {
  flags: () => Promise<FlagSpecs>;
  run: (flags: Record<string, unknown>, io: Io) => Promise<void>;
  /** Flags whose presence needs the full CLI (e.g. the daemon). */
  slowFlags?: string[];
}

const COMMANDS: Record<string, FastCommand> = {
  'sample calc': {
    flags: async () => (await import('./sample/flags.ts')).CALC_FLAGS,
    run: async (f, io) => (await import('./sample/calc.ts')).runSampleCalc(f as never, io),
    slowFlags: ['save', 'project', 'registry', 'api-key'],
  },
  'sample recalc': {
    flags: async () => (await import('./sample/flags.ts')).RECALC_FLAGS,
    run: async (f, io) => (await import('./sample/recalc.ts')).runSampleRecalc(f as never, io),
  },
  // a whole-command benchmark target (bench/select.ts): oclif's start-up is a tenth of a 10^6-household draw
  'sample select draw': {
    flags: async () => (await import('./sample/flags.ts')).DRAW_FLAGS,
    run: async (f, io) => (await import('./sample/select-draw.ts')).runSelectDraw(f as never, io),
  },
};

export async function tryFastPath(argv: string[]): Promise<boolean> {
  const words = COMMANDS[`${argv[0]} ${argv[1]} ${argv[2]}`] ? 3 : 2;
  const cmd = COMMANDS[argv.slice(0, words).join(' ')];
  if (!cmd) return false;
  const rest = argv.slice(words);
  if (rest.some((a) => a === '-h' || a === '--help' || a === '--version')) return false;
  const specs = { ...(await cmd.flags()), ...BASE_FLAGS };
  if (cmd.slowFlags?.some((f) => rest.some((a) => a === `--${f}` || a.startsWith(`--${f}=`)))) return false;
  const refused = refuseRepeatedFlag(rest, specs);
  if (refused !== undefined) {
    process.exitCode = refused;
    return true;
  }
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: rest, options: parseArgsOptions(specs), strict: true, allowPositionals: false }).values;
  } catch {
    return false;
  }
  // the specs' own constraints (FLAG_CONSTRAINTS): when one is not met, oclif runs and reports it
  const checked = checkedFlagValues(specs, values);
  if (!checked) return false;
  try {
    await cmd.run(checked, stdoutIo);
  } catch (e) {
    process.exitCode = printCliError(e, checked.json === true);
  }
  return true;
}
