/**
 * Turning CLI flags and input files into the engine's input, shared by
 * `sample calc` and `sample recalc`. Numbers are parsed strictly (no "10%",
 * no trailing junk) and a bad one is reported with its flag and the engine's
 * error code for that field.
 */
import { cliError, OracleKitError } from '../errors.ts';
import { samplingError, type SamplingErrorCode } from '../../lib/sampling/errors.ts';
import { POPULATION_VALID } from '../../lib/sampling/design.ts';

// not an import: on the fast path (src/cli/fast-path.ts)
const { readFileSync } = process.getBuiltinModule('node:fs');

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** Whether missing inputs may be asked for (the guided mode, src/cli/sample/guided.ts): io.ts's one check. */
export { canPrompt } from '../io.ts';

/** Engine field → CLI flag, so errors name what the user typed. */
const FLAG_FOR_FIELD: Record<string, string> = {
  population: '--population',
  expectedMean: '--mean',
  expectedSD: '--sd',
  expectedProportion: '--proportion',
  dropoutRate: '--dropout',
  erCoverage: '--er-coverage',
  confidence: '--confidence',
  precision: '--precision',
};

export function parseNumberFlag(
  value: string | undefined,
  flag: string,
  code: SamplingErrorCode,
  valid: string,
): number | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  if (!NUMBER.test(t)) throw samplingError(code, flag, value, valid);
  const n = Number(t);
  if (!Number.isFinite(n))
    throw samplingError(code, flag, value, `${valid}; ${t} is beyond the largest number, 1.7976931348623157e308`);
  if (n === 0 && /[1-9]/.test(t.replace(/e.*$/i, '')))
    throw samplingError(code, flag, value, `${valid}; ${t} is below the smallest number, 5e-324, and would read as 0`);
  return n;
}

/**
 * --population: a whole number from 1 to 2^53 − 1, checked on the text as typed, so a refusal echoes what was
 * typed (12345678901234567890, not the neighbour a double reads it as) with the bound. Also returns the text
 * when it is not how the number prints (1e12, 1000.0, +5), for outputs to echo.
 */
export function parsePopulationFlag(
  value: string | undefined,
  flag = '--population',
): { value: number; typed?: string } | undefined {
  if (value === undefined) return undefined;
  const n = parseNumberFlag(value, flag, 'invalid_population', POPULATION_VALID)!;
  if (!Number.isSafeInteger(n) || n < 1) {
    const t = value.trim();
    const why = Number.isInteger(n) && n > Number.MAX_SAFE_INTEGER ? `; ${t} is above the bound` : '';
    throw samplingError('invalid_population', flag, value, `${POPULATION_VALID}${why}`, {
      message: `population (${flag}) = ${t} is invalid; valid: ${POPULATION_VALID}${why}`,
    });
  }
  const t = value.trim();
  return t === String(n) ? { value: n } : { value: n, typed: t };
}

/** `name=weight[:mean:sd]` */
export function parseStratumFlag(
  spec: string,
  index: number,
): { name: string; weight: number; mean?: number; sd?: number } {
  const f = `--stratum #${index + 1}`;
  const eq = spec.lastIndexOf('=');
  if (eq <= 0)
    throw samplingError('invalid_strata', f, spec, 'name=weight[:mean:sd], e.g. north=0.55 or lpg=0.5:2.6:0.9');
  const name = spec.slice(0, eq);
  const parts = spec.slice(eq + 1).split(':');
  if (parts.length !== 1 && parts.length !== 3)
    throw samplingError('invalid_strata', f, spec, 'name=weight or name=weight:mean:sd');
  const weight = parseNumberFlag(parts[0], `${f} weight`, 'invalid_weight', 'a number in (0, 1]')!;
  const out: { name: string; weight: number; mean?: number; sd?: number } = { name, weight };
  if (parts.length === 3) {
    out.mean = parseNumberFlag(parts[1], `${f} mean`, 'invalid_mean', 'a number > 0');
    out.sd = parseNumberFlag(parts[2], `${f} sd`, 'invalid_sd', 'a number > 0');
  }
  return out;
}

/**
 * Reads a JSON file, or standard input for '-'. typedPopulation, when given, receives a design's population as it is
 * written in the file when that is not how the number reads back (1e12, or 20 digits a double cannot hold).
 */
export function readJsonInput(path: string, what: string, typedPopulation?: { text?: string }): unknown {
  const text = readTextInput(path, what);
  try {
    if (!typedPopulation) return JSON.parse(text);
    // the reviver's third argument carries the number's source text (JSON.parse source text access)
    return JSON.parse(text, function (this: Record<string, unknown>, key, value, context?: { source?: string }) {
      const design = 'expectedMean' in this || 'expectedProportion' in this;
      if (key === 'population' && design && typeof value === 'number' && context?.source !== undefined)
        if (context.source !== String(value)) typedPopulation.text = context.source;
      return value;
    });
  } catch (e) {
    throw cliError('invalid_json', `${what} ${JSON.stringify(path)} is not valid JSON: ${(e as Error).message}`, {
      field: what,
      value: path,
      valid: 'a JSON document',
    });
  }
}

/** Reads a text file, or standard input for '-'. A missing file is file_not_found, like every command's. */
export function readTextInput(path: string, what: string): string {
  try {
    return path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw cliError(
        'file_not_found',
        `${what} ${JSON.stringify(path)}: no such file; valid: an existing file, or - for standard input`,
        {
          field: what,
          value: path,
          valid: 'an existing file, or - for standard input',
        },
      );
    throw cliError(
      'unreadable_file',
      `cannot read ${what} ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { field: what, value: path, valid: 'a readable file, or - for standard input' },
    );
  }
}

/** Re-labels an engine error with the CLI flag of its field. */
export function withFlagNames<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof OracleKitError && e.field && FLAG_FOR_FIELD[e.field]) {
      const flag = FLAG_FOR_FIELD[e.field]!;
      throw new OracleKitError({
        status: e.status,
        code: e.code,
        field: e.field,
        value: e.value,
        valid: e.valid,
        details: { ...(e.details ?? {}), flag },
        message: e.message.startsWith(e.field) ? `${e.field} (${flag})${e.message.slice(e.field.length)}` : e.message,
      });
    }
    throw e;
  }
}
