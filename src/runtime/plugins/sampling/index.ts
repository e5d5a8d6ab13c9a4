/**
 * sampling (runtime.md): tools calculate_sample_size and
 * recalculate_sample_size over the shared sampling library (src/lib/sampling,
 * the same code as `sample calc` / `sample recalc` and POST /v1/sampling).
 * No environment; always enabled, on-demand visibility.
 *
 * The zod schemas only check types: ranges and rules are the library's, so
 * the model gets the library's precise error (code, field, value, what is
 * valid) as a tool error rather than a generic validation failure. The last
 * design computed in a session is kept in the session state, so a
 * recalculation can refer to it without repeating the inputs.
 */
import { z } from 'zod';
import { definePlugin, defineTool } from '../../plugin.ts';
import { computeDesign, type Design } from '../../../lib/sampling/design.ts';
import { recalculate, type PreviousDesign, type RecalcInput } from '../../../lib/sampling/recalc.ts';
import { isOracleKitError } from '../../../lib/errors.ts';

const SAMPLING_STATE_KEY = 'samplingLastDesign';

const StratumSchema = z.object({
  name: z.string().describe('stratum name, unique'),
  weight: z.number().describe('share of the population, 0 < w <= 1; all weights sum to 1'),
  mean: z.number().optional().describe("the stratum's expected mean (default: the overall expectedMean)"),
  sd: z.number().optional().describe("the stratum's expected SD (default: the overall expectedSD)"),
});

const CalculateInputSchema = z.object({
  population: z.number().describe('households in the sampling frame (integer >= 1)'),
  expectedMean: z
    .number()
    .optional()
    .describe('expected mean of the monitored quantity (> 0), e.g. hours of daily stove use'),
  expectedSD: z.number().optional().describe('expected standard deviation (> 0)'),
  expectedProportion: z.number().optional().describe('instead of mean and SD: an expected proportion 0 < p < 1'),
  dropoutRate: z.number().describe('expected dropout as a FRACTION 0 <= d < 1 (15 % is 0.15)'),
  erCoverage: z.number().optional().describe('optional coverage fraction 0..1 (default 1 - dropoutRate)'),
  stratification: z
    .object({ enabled: z.boolean(), strata: z.array(StratumSchema) })
    .optional()
    .describe('proportional stratification: each stratum keeps 95/5 on its own'),
});

const RecalculateInputSchema = z.object({
  previous: z
    .unknown()
    .optional()
    .describe(
      "the previous design (a calculate_sample_size result's design, or a registry design record); default: the last design computed in this session",
    ),
  population: z.number().optional().describe('needed only when there is no previous design'),
  mean: z.number().optional().describe('observed mean after the monitoring period'),
  sd: z.number().optional().describe('observed SD'),
  dropoutRate: z.number().optional().describe('observed dropout, a fraction 0 <= d < 1'),
  erCoverage: z.number().optional(),
  strata: z
    .array(z.object({ name: z.string(), mean: z.number().optional(), sd: z.number().optional() }))
    .optional()
    .describe('observed mean/SD per stratum of the previous design'),
  observations: z
    .array(z.object({ household: z.string(), value: z.number(), stratum: z.string().optional() }))
    .optional()
    .describe(
      'raw observations, one value per household (optionally its stratum): the mean, SD and achieved precision are computed from them',
    ),
});

/** A library error as a clear message for the model (code, field, what is valid). */
function toolErrorFromLibrary(e: unknown): Error {
  if (isOracleKitError(e)) {
    const valid = e.valid ? ` Valid: ${e.valid}.` : '';
    return new Error(
      `${e.code} (HTTP ${e.status})${e.field ? ` on ${e.field}` : ''}: ${e.message}.${e.message.includes('valid:') ? '' : valid}`,
    );
  }
  return new Error(`sampling failed: ${(e as Error)?.message ?? String(e)}`);
}

function summarise(d: Design) {
  const p = d.parameters;
  const strata = d.stratification.strata.map((s) => ({
    name: s.name,
    population: s.population,
    mean: s.mean,
    sd: s.sd,
    calculatedSize: s.calculatedSize,
    sampleSize: s.sampleSize,
    census: s.census,
  }));
  const text =
    `Survey ${p.adjustedSize} households (${p.calculatedSize} completed interviews needed, plus ${p.adjustedSize - p.calculatedSize} for ${p.dropoutRate * 100} % dropout) ` +
    `out of ${p.population}, at 95 % confidence and ±5 % relative precision` +
    (strata.length ? `; per stratum: ${strata.map((s) => `${s.name} ${s.sampleSize}`).join(', ')}` : '') +
    (d.flags.includes('census') ? ' — a census (every household)' : '') +
    '.';
  return {
    calculatedSize: p.calculatedSize,
    adjustedSize: p.adjustedSize,
    census: d.flags.includes('census'),
    strata,
    summary: text,
  };
}

function asPrevious(v: unknown): PreviousDesign | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object')
    throw new Error(
      'invalid_previous: previous must be the design object returned by calculate_sample_size (its "design" field) or a registry design record',
    );
  const o = v as Record<string, unknown>;
  // accept a whole tool result {design: …} as well as the design itself
  const d = (o.design && typeof o.design === 'object' ? o.design : o) as PreviousDesign;
  return d;
}

export const samplingPlugin = definePlugin({
  name: 'sampling',
  version: '1.0.0',
  manifest: {
    title: 'Sample-size design',
    summary:
      'Sample sizes for household monitoring surveys (95 % confidence, ±5 % relative precision, CDM method), and recalculation after a monitoring period.',
    whenToUse: [
      'the user asks how many households to survey or sample (clean cookstoves, usage hours, fuel use, adoption)',
      'the user gives observed results of a monitoring period and asks whether the sample size must change or whether 95/5 precision was achieved',
    ],
    whenNotToUse: [
      'general statistics questions that are not about a survey sample size',
      "choosing which households to sample (the CLI's `sample select` does that)",
    ],
    visibility: 'on-demand',
    stability: 'stable',
    category: 'analysis',
    defaultState: 'on',
    dependsOn: [],
  },
  stateKeys: [SAMPLING_STATE_KEY],
  tools: () => ({
    calculate_sample_size: defineTool({
      description:
        'Compute the sample size of a household survey per the CDM sampling guidelines at 95 % confidence and ±5 % RELATIVE precision (mandatory): ' +
        'give population, dropoutRate as a fraction, and either expectedMean with expectedSD or expectedProportion; optionally proportional strata (weights sum to 1). ' +
        'Returns adjustedSize (households to survey, after dropout), calculatedSize (completed interviews needed), per-stratum sizes, a census flag and the full design. ' +
        'Errors name the wrong field and what would be valid; ask the user rather than guessing missing numbers.',
      inputSchema: CalculateInputSchema,
      execute: (input, turn) => {
        let design: Design;
        try {
          design = computeDesign(JSON.parse(JSON.stringify(input)));
        } catch (e) {
          throw toolErrorFromLibrary(e);
        }
        turn.state[SAMPLING_STATE_KEY] = design;
        return { ok: true, ...summarise(design), design };
      },
    }),
    recalculate_sample_size: defineTool({
      description:
        'Recalculate a design after a monitoring period with the observed mean, SD and dropout (overall or per stratum), or from raw per-household observations (then the achieved relative precision is reported and whether it meets 5 %). ' +
        'The size may go down as well as up; the result says which and by how much. Without `previous`, the last design computed in this conversation is used.',
      inputSchema: RecalculateInputSchema,
      execute: (input, turn) => {
        const previous = asPrevious(input.previous) ?? (turn.state[SAMPLING_STATE_KEY] as PreviousDesign | undefined);
        if (!previous && input.population === undefined) {
          throw new Error(
            'missing_parameter: there is no previous design in this conversation; pass `previous` (a design) or `population` with the observed mean, sd and dropoutRate',
          );
        }
        const r: RecalcInput = {};
        if (previous) r.previous = previous;
        for (const k of ['population', 'mean', 'sd', 'dropoutRate', 'erCoverage', 'strata'] as const)
          if (input[k] !== undefined) (r as Record<string, unknown>)[k] = input[k];
        if (input.observations)
          r.observations = input.observations.map((o, i) => ({
            line: i + 1,
            household: o.household,
            value: o.value,
            ...(o.stratum !== undefined ? { stratum: o.stratum } : {}),
          }));
        let res;
        try {
          res = recalculate(r);
        } catch (e) {
          throw toolErrorFromLibrary(e);
        }
        turn.state[SAMPLING_STATE_KEY] = res.design;
        const t = res.change?.total;
        const changeSummary = t
          ? t.direction === 'unchanged'
            ? `The sample size is unchanged (${t.to}).`
            : `The sample size goes ${t.direction} by ${Math.abs(t.delta)} (from ${t.from} to ${t.to}).`
          : undefined;
        return {
          ok: true,
          ...summarise(res.design),
          ...(res.change ? { change: res.change, changeSummary } : {}),
          ...(res.achieved ? { achieved: res.achieved } : {}),
          design: res.design,
        };
      },
    }),
  }),
});
