/**
 * The guided `sample calc` and `sample recalc`: for a person at
 * a terminal who did not give every input, each missing input is asked for
 * with @inquirer's input, select and confirm prompts, saying what the value means and validating it with
 * the same code as its flag (parseNumberFlag, then the engine's own checks).
 * The answers become flags, so the command then runs exactly as if they had
 * been typed, and prints the one command line that reproduces it.
 *
 * Loaded only by `runSampleCalc` / `runSampleRecalc` when `canPrompt` holds
 * and inputs are missing: the fast path with flags never loads this module or
 * @inquirer's prompts (test/e2e/cold-start.test.ts).
 */
import confirm from '@inquirer/confirm';
import input from '@inquirer/input';
import select from '@inquirer/select';
import { OracleKitError } from '../../lib/errors.ts';
import { normaliseStratumName, validateDesignInput } from '../../lib/sampling/design.ts';
import type { SamplingErrorCode } from '../../lib/sampling/errors.ts';
import * as Q from '../../lib/sampling/rational.ts';
import { parseObservationsCsv } from '../../lib/sampling/recalc.ts';
import { shellQuote } from '../../lib/shell.ts';
import type { FlagSpecs } from '../flag-spec.ts';
import { parseNumberFlag, readJsonInput, readTextInput, withFlagNames } from './input.ts';
import type { CalcFlags, RecalcFlags } from './flags.ts';

/** A valid design input: each check replaces one field of it, so only that field can fail. */
const SKELETON = { population: 1, expectedMean: 1, expectedSD: 1, dropoutRate: 0 };

/**
 * Checks one answer as its flag would be checked: parsed strictly as a number
 * (no "15 %", no "1,5"), then validated by the engine. `true` or the error's message.
 */
function checkNumber(
  text: string,
  flag: string,
  code: SamplingErrorCode,
  valid: string,
  body: (v: number) => Record<string, unknown>,
  field: string,
): true | string {
  try {
    const v = parseNumberFlag(text, flag, code, valid)!;
    withFlagNames(() => validateDesignInput({ ...SKELETON, ...body(v) }));
    return true;
  } catch (e) {
    if (!(e instanceof OracleKitError)) throw e;
    // an error about another part of the skeleton (a lone stratum's weights not summing to 1) is not this answer's
    return e.field === field || e.field === flag ? e.message : true;
  }
}

const trimmed = (s: string) => s.trim();

async function ask(message: string, validate: (text: string) => true | string, def?: string): Promise<string> {
  return trimmed(
    await input({ message, validate: (t) => validate(t.trim()), ...(def !== undefined ? { default: def } : {}) }),
  );
}

/** Optional: an empty answer is undefined; anything else is checked. */
async function askOptional(message: string, validate: (text: string) => true | string): Promise<string | undefined> {
  const a = trimmed(await input({ message, validate: (t) => (t.trim() === '' ? true : validate(t.trim())) }));
  return a === '' ? undefined : a;
}

const population = () =>
  ask('Households in the sampling frame (N): every household the sample is drawn from, an integer >= 1', (t) =>
    checkNumber(t, '--population', 'invalid_population', 'an integer >= 1', (v) => ({ population: v }), 'population'),
  );
const mean = (what = 'Expected mean of the indicator (e.g. hours of stove use per household per day), > 0') =>
  ask(what, (t) =>
    checkNumber(t, '--mean', 'invalid_mean', 'a number > 0', (v) => ({ expectedMean: v }), 'expectedMean'),
  );
const sd = (
  what = 'Expected standard deviation of the indicator between households, > 0 (from a pilot or the last period)',
) => ask(what, (t) => checkNumber(t, '--sd', 'invalid_sd', 'a number > 0', (v) => ({ expectedSD: v }), 'expectedSD'));
const proportion = () =>
  ask('Expected proportion p (e.g. 0.7 if 70 % of households use the stove), 0 < p < 1', (t) =>
    checkNumber(
      t,
      '--proportion',
      'invalid_proportion',
      'a number with 0 < p < 1',
      (v) => ({ expectedMean: undefined, expectedSD: undefined, expectedProportion: v }),
      'expectedProportion',
    ),
  );

/** A typed dropout rate, checked as --dropout is. */
const checkDropout = (t: string) =>
  checkNumber(t, '--dropout', 'invalid_dropout', 'a fraction 0 <= d < 1', (v) => ({ dropoutRate: v }), 'dropoutRate');

const dropout = (def?: string) =>
  ask(
    'Expected dropout rate: the fraction of sampled households that will not complete the survey, 0 <= d < 1 (0.15 for 15 %)',
    checkDropout,
    def,
  );

/** Strata one by one (name, weight, optional own mean and SD) until the weights sum to 1. */
async function strata(withOwnMeanSd: boolean, overall: { mean?: string; sd?: string }): Promise<string[]> {
  const out: string[] = [];
  const taken: { name: string; weight: number }[] = [];
  let sum = Q.int(0);
  for (let i = 0; Q.cmp(Q.sub(Q.int(1), sum), Q.fromNumber(1e-6)) > 0; i++) {
    const name = await ask(`Stratum ${i + 1}: its name (e.g. lpg, biomass, north)`, (t) => {
      if (t.includes('=')) return `a stratum name without "=" (the flag is --stratum name=weight)`;
      if (taken.some((s) => normaliseStratumName(s.name) === normaliseStratumName(t)))
        return `${JSON.stringify(t)} is already a stratum; valid: stratum names unique after trim and case-fold`;
      try {
        validateDesignInput({ ...SKELETON, stratification: { enabled: true, strata: [{ name: t, weight: 1 }] } });
        return true;
      } catch (e) {
        if (e instanceof OracleKitError && e.code === 'invalid_stratum_name')
          return e.message.replace('stratification.strata[0].name', 'the name');
        throw e;
      }
    });
    const left = Q.toNumber(Q.sub(Q.int(1), sum));
    const weight = await ask(
      `Share of the households in ${name} (its weight), 0 < w <= ${left}; the weights sum to 1`,
      (t) => {
        const ok = checkNumber(
          t,
          `--stratum #${i + 1} weight`,
          'invalid_weight',
          'a number in (0, 1]',
          (v) => ({ stratification: { enabled: true, strata: [{ name: 'x', weight: v }] } }),
          'stratification.strata[0].weight',
        );
        if (ok !== true) return ok.replace('stratification.strata[0].weight', 'the weight');
        const total = Q.add(sum, Q.fromNumber(Number(t)));
        return Q.cmp(total, Q.add(Q.int(1), Q.fromNumber(1e-6))) <= 0
          ? true
          : `the weights would sum to ${Q.toNumber(total)}; valid: at most ${left} for this stratum`;
      },
      i > 0 ? String(left) : undefined,
    );
    sum = Q.add(sum, Q.fromNumber(Number(weight)));
    taken.push({ name, weight: Number(weight) });
    let spec = `${name}=${weight}`;
    if (withOwnMeanSd) {
      const m = await askOptional(
        `Mean in ${name}, if it differs (Enter: the overall mean ${overall.mean ?? ''})`,
        (t) =>
          checkNumber(
            t,
            `--stratum #${i + 1} mean`,
            'invalid_mean',
            'a number > 0',
            (v) => ({ expectedMean: v }),
            'expectedMean',
          ),
      );
      if (m !== undefined)
        spec += `:${m}:${await sd(`Standard deviation in ${name}, > 0 (a stratum's own mean needs its own SD; the overall one is ${overall.sd ?? ''})`)}`;
    }
    out.push(spec);
  }
  return out;
}

/** Asks for the inputs `sample calc` is missing; returns the flags with the answers filled in. */
export async function guideCalc(flags: CalcFlags, body: Record<string, unknown>): Promise<CalcFlags> {
  return cancellable(async () => {
    const f = { ...flags };
    process.stdout.write(
      'Some inputs are missing; answer each question (every answer is also a flag, shown at the end). Ctrl+C cancels.\n',
    );
    if (body.population === undefined) f.population = await population();
    const hasMeanSd = body.expectedMean !== undefined || body.expectedSD !== undefined;
    if (body.expectedProportion === undefined) {
      let kind: 'mean' | 'proportion' = 'mean';
      if (!hasMeanSd) {
        kind = await select({
          message: 'What does the survey estimate?',
          choices: [
            { name: 'a mean (e.g. hours of stove use per day)', value: 'mean' as const },
            { name: 'a proportion (e.g. the share of households using the stove)', value: 'proportion' as const },
          ],
        });
      }
      if (kind === 'proportion') f.proportion = await proportion();
      else {
        if (body.expectedMean === undefined) f.mean = await mean();
        if (body.expectedSD === undefined) f.sd = await sd();
      }
    }
    if (body.dropoutRate === undefined) f.dropout = await dropout();
    if (body.stratification === undefined && !f.stratum?.length) {
      const yes = await confirm({
        message: 'Stratify (e.g. by stove type or district)? Each stratum then keeps 95/5 on its own.',
        default: false,
      });
      if (yes)
        f.stratum = await strata(f.proportion === undefined && body.expectedProportion === undefined, {
          mean: f.mean ?? String(body.expectedMean ?? ''),
          sd: f.sd ?? String(body.expectedSD ?? ''),
        });
    }
    return f;
  });
}

/** The previous design as the recalc questions read it (its mean, SD and dropout are offered as the defaults). */
interface PreviousAnswers {
  parameters?: { expectedMean?: number; expectedSD?: number; dropoutRate?: number };
  stratification?: { strata?: { name: string }[] };
}

/** Asks for the inputs `sample recalc` is missing (no previous design and no population, or no observed values). */
export async function guideRecalc(flags: RecalcFlags): Promise<RecalcFlags> {
  return cancellable(async () => {
    const f = { ...flags };
    process.stdout.write(
      'Some inputs are missing; answer each question (every answer is also a flag, shown at the end). Ctrl+C cancels.\n',
    );
    if (f.previous === undefined && f.population === undefined) {
      f.previous = await askPrevious();
      if (f.previous === undefined) f.population = await population();
    }
    const previous =
      f.previous !== undefined ? (readJsonInput(f.previous, '--previous') as PreviousAnswers | undefined) : undefined;
    const observed =
      f.observations !== undefined ||
      f.input !== undefined ||
      f.mean !== undefined ||
      f.sd !== undefined ||
      (f.observed?.length ?? 0) > 0;
    if (!observed) {
      f.observations = await askOptional(
        'Raw observations of this period: a CSV file with a header household,value[,stratum] (Enter to type the observed mean and SD instead)',
        (t) => {
          try {
            parseObservationsCsv(readTextInput(t, '--observations'), t);
            return true;
          } catch (e) {
            return (e as Error).message;
          }
        },
      );
    }
    if (!observed && f.observations === undefined) Object.assign(f, await askObservedValues(previous, f.observed));
    if (f.dropout === undefined) {
      const d = previous?.parameters?.dropoutRate;
      if (d === undefined) f.dropout = await dropout();
      else {
        const a = await askOptional(`Observed dropout rate this period, 0 <= d < 1 (Enter: keep ${d})`, checkDropout);
        if (a !== undefined) f.dropout = a;
      }
    }
    return f;
  });
}

/** The previous design's file, checked as it is typed (undefined: there is none). */
function askPrevious(): Promise<string | undefined> {
  return askOptional(
    'The previous design: the file written by `sample calc --json > design.json` (Enter if there is none)',
    (t) => {
      try {
        const v = readJsonInput(t, '--previous') as { parameters?: { population?: unknown } };
        return typeof v?.parameters?.population === 'number'
          ? true
          : `${t} is not a design; valid: the JSON of \`sample calc --json\` or a registry design record`;
      } catch (e) {
        return (e as Error).message;
      }
    },
  );
}

/**
 * Without raw observations: the observed mean and SD (Enter keeps the previous design's), then each stratum's
 * when it was observed separately.
 */
async function askObservedValues(
  previous: PreviousAnswers | undefined,
  observed: RecalcFlags['observed'],
): Promise<Partial<Pick<RecalcFlags, 'mean' | 'sd' | 'observed'>>> {
  const f: { -readonly [K in 'mean' | 'sd' | 'observed']?: RecalcFlags[K] } = {};
  const keep = (v: number | undefined) => (v === undefined ? '' : ` (Enter: keep ${v})`);
  const p = previous?.parameters;
  const m = p
    ? await askOptional(`Observed mean of the indicator this period, > 0${keep(p.expectedMean)}`, (t) =>
        checkNumber(t, '--mean', 'invalid_mean', 'a number > 0', (v) => ({ expectedMean: v }), 'expectedMean'),
      )
    : await mean('Observed mean of the indicator this period, > 0');
  if (m !== undefined) f.mean = m;
  const s = p
    ? await askOptional(`Observed standard deviation this period, > 0${keep(p.expectedSD)}`, (t) =>
        checkNumber(t, '--sd', 'invalid_sd', 'a number > 0', (v) => ({ expectedSD: v }), 'expectedSD'),
      )
    : await sd('Observed standard deviation this period, > 0');
  if (s !== undefined) f.sd = s;
  for (const st of previous?.stratification?.strata ?? []) {
    const sm = await askOptional(`Observed mean in stratum ${st.name}, if observed separately (Enter: skip)`, (t) =>
      checkNumber(t, '--observed mean', 'invalid_mean', 'a number > 0', (v) => ({ expectedMean: v }), 'expectedMean'),
    );
    if (sm === undefined) continue;
    const ss = await ask(`Observed standard deviation in stratum ${st.name}, > 0`, (t) =>
      checkNumber(t, '--observed sd', 'invalid_sd', 'a number > 0', (v) => ({ expectedSD: v }), 'expectedSD'),
    );
    f.observed = [...(f.observed ?? observed ?? []), `${st.name}=${sm}:${ss}`];
  }
  return f;
}

/** Ctrl+C in a prompt: say so and exit 130 (interrupted), without a stack. */
async function cancellable<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if ((e as Error)?.name === 'ExitPromptError') {
      process.stderr.write('Cancelled; nothing was computed.\n');
      process.exit(130);
    }
    throw e;
  }
}

/** The one command line that reproduces these flags (defaults and false booleans left out). */
export function commandLine(command: string, specs: FlagSpecs, flags: Record<string, unknown>): string {
  const words = ['oraclekit', ...command.split(' ')];
  for (const [name, spec] of Object.entries(specs)) {
    const v = flags[name];
    if (v === undefined || v === false || v === spec.default) continue;
    if (v === true) words.push(`--${name}`);
    else for (const x of Array.isArray(v) ? v : [v]) words.push(`--${name}`, shellQuote(String(x)));
  }
  return words.join(' ');
}
