/**
 * The fast path: `sample calc` and `sample recalc` run without loading
 * @oclif/core (its import alone costs ~70 ms; the target is a cold start of
 * at most 3× `node -e 0`). It parses the same flag specs with node:util
 * parseArgs and calls the same run functions as the oclif commands. Anything
 * it does not handle exactly — help, an unknown flag, a value outside a
 * flag's options, an ambiguous value — returns false and oclif takes over,
 * so users always get oclif's behaviour and messages.
 */
import { parseArgs } from 'node:util';
import { BASE_FLAGS, parseArgsOptions, refuseRepeatedFlag, type FlagSpecs } from './flag-spec.ts';
import { printCliError } from './errors-print.ts';
import { stdoutIo, type Io } from './io.ts';

interface FastCommand {
  flags: () => Promise<FlagSpecs>;
  run: (flags: Record<string, unknown>, io: Io) => Promise<void>;
  /** Flags whose presence needs the full CLI (e.g. the daemon). */
  slowFlags?: string[];
}

const COMMANDS: Record<string, FastCommand> = {
  'sample calc': {
    flags: async () => (await import('./sample/calc.ts')).CALC_FLAGS,
    run: async (f, io) => (await import('./sample/calc.ts')).runSampleCalc(f as never, io),
    slowFlags: ['save', 'project', 'registry', 'api-key'],
  },
  'sample recalc': {
    flags: async () => (await import('./sample/recalc.ts')).RECALC_FLAGS,
    run: async (f, io) => (await import('./sample/recalc.ts')).runSampleRecalc(f as never, io),
  },
};

export async function tryFastPath(argv: string[]): Promise<boolean> {
  const cmd = COMMANDS[`${argv[0]} ${argv[1]}`];
  if (!cmd) return false;
  const rest = argv.slice(2);
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
  for (const [name, s] of Object.entries(specs)) {
    const v = values[name];
    if (v === undefined && s.default !== undefined) values[name] = s.default;
    if (s.options && typeof v === 'string' && !s.options.includes(v)) return false;
    if (s.type === 'boolean' && values[name] === undefined) values[name] = false;
  }
  try {
    await cmd.run(values, stdoutIo);
  } catch (e) {
    process.exitCode = printCliError(e, values.json === true);
  }
  return true;
}
