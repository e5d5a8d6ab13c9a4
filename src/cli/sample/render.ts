/**
 * Text, CSV and Markdown renderings of designs, explanations, comparisons,
 * sensitivity grids and recalculations, shared by `sample calc` and
 * `sample recalc`.
 */
import type { Design } from '../../lib/sampling/design.ts';
import type { Explanation } from '../../lib/sampling/explain.ts';
import type { Comparison, AllocationRow } from '../../lib/sampling/compare.ts';
import type { Sensitivity } from '../../lib/sampling/sensitivity.ts';
import type { RecalcResult } from '../../lib/sampling/recalc.ts';
import { csvTable, markdownTable, paint, textTable, type Cell } from '../output.ts';

export type Format = 'table' | 'csv' | 'markdown';

const r = (x: number, d = 4) => Number(x.toFixed(d));

/**
 * A number for a person: d decimals, but six significant digits where
 * decimals would hide it (a mean of 1e-300 is not 0), and the ends of the
 * doubles said in words (docs/sampling.md, "Extreme numbers").
 */
function num(x: number, d = 4): Cell {
  if (x === Infinity) return '> 1.8e308 (beyond the largest double)';
  const a = Math.abs(x);
  if (a !== 0 && (a < 10 ** -d || a >= 1e15)) return Number(x.toPrecision(6));
  return r(x, d);
}

/** An intermediate (CV, n0, n_fpc) that is > 0 in exact arithmetic: 0 means it underflowed. */
function positive(x: number, d = 4): Cell {
  return x === 0 ? '< 5e-324 (below the smallest double, > 0)' : num(x, d);
}

function table(format: Format, headers: string[], rows: Cell[][]): string {
  if (format === 'csv') return csvTable(headers, rows);
  if (format === 'markdown') return markdownTable(headers, rows);
  return textTable(headers, rows);
}

function title(format: Format, text: string): string {
  if (format === 'markdown') return `## ${text}\n`;
  if (format === 'csv') return `# ${text}`;
  return paint.bold(text);
}

/** populationTyped: the population as it was typed when that is not how it prints (1e12), echoed beside it. */
export function renderDesign(design: Design, format: Format, populationTyped?: string): string {
  const p = design.parameters;
  const strata = design.stratification.strata;
  const census = design.flags.includes('census');
  const summaryRows: Cell[][] = [
    ['population (N)', populationTyped ? `${p.population} (typed ${populationTyped})` : p.population],
    [
      p.expectedProportion !== undefined ? 'expected proportion' : 'expected mean',
      num(p.expectedProportion ?? p.expectedMean, 6),
    ],
    ['expected SD', num(p.expectedSD, 6)],
    ['dropout rate', p.dropoutRate],
    [
      'confidence / precision',
      p.expectedProportion === undefined
        ? '95 % / ±5 % of the mean (relative)'
        : `95 % / ±5 % of p (relative): p = ${p.expectedProportion} ± ${num(p.expectedProportion * 0.05, 6)}, i.e. ±${num(p.expectedProportion * 5, 4)} percentage points`,
    ],
  ];
  if (strata.length === 0) {
    const i = design.intermediates as { z: number; cv: number; n0: number; n_fpc: number };
    summaryRows.push(
      ['z', i.z],
      ['CV', positive(i.cv, 6)],
      ['n0 (infinite population)', positive(i.n0)],
      ['n_fpc (finite population)', positive(i.n_fpc)],
    );
  } else {
    summaryRows.push(['strata', `${strata.length} (proportional; each keeps 95/5)`]);
  }
  summaryRows.push(
    ['calculatedSize (completed interviews)', p.calculatedSize],
    ['adjustedSize (households to sample)', p.adjustedSize],
    ['erCoverage', `${p.erCoverage} (${p.erCoverageSource})`],
  );
  if (census)
    summaryRows.push([
      'flags',
      strata.length
        ? `census in ${strata
            .filter((s) => s.census)
            .map((s) => s.name)
            .join(', ')}`
        : 'census: sample every household',
    ]);
  if (format === 'csv') {
    const t = designCsv(design);
    return csvTable(t.headers, t.rows);
  }
  const out = [title(format, 'Sample-size design (95/5)'), table(format, ['quantity', 'value'], summaryRows)];
  if (strata.length) {
    out.push(
      '',
      title(format, 'Strata'),
      table(
        format,
        ['stratum', 'weight', 'N_h', 'mean', 'SD', 'CV', 'dropout', 'n_fpc', 'calculated', 'sample', 'census'],
        [
          ...strata.map((s): Cell[] => [
            s.name,
            s.weight,
            s.population,
            num(s.mean, 6),
            num(s.sd, 6),
            positive(s.cv),
            s.dropoutRate ?? p.dropoutRate,
            positive(s.n_fpc, 2),
            s.calculatedSize,
            s.sampleSize,
            s.census ? 'CENSUS' : '',
          ]),
          [
            'total',
            '',
            p.population,
            '',
            '',
            '',
            totalDropout(design).dropoutRate,
            '',
            p.calculatedSize,
            p.adjustedSize,
            '',
          ],
        ],
      ),
    );
  }
  return out.join('\n');
}

/**
 * The total row's dropout and erCoverage, agreeing with the total it stands beside: when every stratum uses the
 * design's rate, that rate; when some stratum has its own (recalc's realised rates), the rate the strata imply
 * together, 1 − calculatedSize / adjustedSize (6 significant digits), and an erCoverage derived from the dropout
 * follows it. An erCoverage given as an input stays.
 */
export function totalDropout(design: Design): { dropoutRate: number; erCoverage: number } {
  const p = design.parameters;
  const own = design.stratification.strata.some((s) => s.dropoutRate !== undefined && s.dropoutRate !== p.dropoutRate);
  if (!own || p.adjustedSize === 0) return { dropoutRate: p.dropoutRate, erCoverage: p.erCoverage };
  const d = Number((1 - p.calculatedSize / p.adjustedSize).toPrecision(6));
  return { dropoutRate: d, erCoverage: p.erCoverageSource === 'input' ? p.erCoverage : Number((1 - d).toPrecision(6)) };
}

/**
 * The design as one CSV table: a row per stratum (or one row "all") and a total, each with its dropout rate and
 * the design's erCoverage, so the file loads in one read and keeps every number a design has.
 */
function designCsv(design: Design): { headers: string[]; rows: Cell[][] } {
  const p = design.parameters;
  const strata = design.stratification.strata;
  const census = design.flags.includes('census');
  const headers = [
    'stratum',
    'weight',
    'population',
    'mean',
    'sd',
    'cv',
    'n0',
    'n_fpc',
    'calculatedSize',
    'sampleSize',
    'census',
    'dropoutRate',
    'erCoverage',
  ];
  const i = design.intermediates as { cv: number; n0: number; n_fpc: number };
  const rows: Cell[][] = strata.length
    ? strata.map((s) => [
        s.name,
        s.weight,
        s.population,
        s.mean,
        s.sd,
        s.cv,
        s.n0,
        s.n_fpc,
        s.calculatedSize,
        s.sampleSize,
        s.census,
        s.dropoutRate ?? p.dropoutRate,
        p.erCoverage,
      ])
    : [
        [
          'all',
          1,
          p.population,
          p.expectedMean,
          p.expectedSD,
          i.cv,
          i.n0,
          i.n_fpc,
          p.calculatedSize,
          p.adjustedSize,
          census,
          p.dropoutRate,
          p.erCoverage,
        ],
      ];
  if (strata.length) {
    const total = totalDropout(design);
    rows.push([
      'total',
      1,
      p.population,
      p.expectedMean,
      p.expectedSD,
      '',
      '',
      '',
      p.calculatedSize,
      p.adjustedSize,
      census,
      total.dropoutRate,
      total.erCoverage,
    ]);
  }
  return { headers, rows };
}

/**
 * recalc as one CSV table: the new design's rows (designCsv) with, per row, the previous size and the change,
 * the achieved precision of the completed observations and the realised dropout (the total row carries the
 * overall ones: the stratified estimate and the overall dropout).
 */
function recalcCsv(res: RecalcResult): string {
  const t = designCsv(res.design);
  const headers = [
    ...t.headers,
    'previousSampleSize',
    'change',
    'observed_n',
    'observed_mean',
    'observed_sd',
    'achievedPrecision',
    'met',
    'sampled',
    'completed',
    'realisedDropout',
  ];
  const change = new Map(res.change ? [res.change.total, ...res.change.strata].map((c) => [c.name, c]) : []);
  const groups = new Map((res.achieved?.groups ?? []).map((g) => [g.stratum, g]));
  const drop = new Map((res.dropout?.strata ?? []).map((x) => [x.stratum, x]));
  const o = res.achieved?.overall;
  const rows = t.rows.map((row) => {
    const name = String(row[0]);
    const c = change.get(name === 'all' ? 'total' : name);
    const g = name === 'total' ? undefined : groups.get(name);
    const x = name === 'total' ? res.dropout?.overall : drop.get(name);
    const achieved: Cell[] = g
      ? g.observed
        ? [g.n, g.mean ?? '', g.sd ?? '', g.precision ?? '', g.met]
        : [0, '', '', '', 'not observed']
      : name === 'total' && o
        ? [o.n, o.mean, o.sd, o.precision, o.met]
        : ['', '', '', '', ''];
    return [
      ...row,
      c ? c.from : '',
      c ? c.delta : '',
      ...achieved,
      x ? x.sampled : '',
      x ? x.completed : '',
      x ? x.rate : '',
    ];
  });
  return csvTable(headers, rows);
}

export function renderExplain(ex: Explanation[], format: Format): string {
  if (format === 'csv') {
    return csvTable(
      ['scope', 'step', 'formula', 'substituted', 'result', 'rounding', 'source'],
      ex.flatMap((e) =>
        e.steps.map((s): Cell[] => [e.scope, s.step, s.formula, s.substituted, s.result, s.rounding ?? '', s.source]),
      ),
    );
  }
  const out: string[] = [title(format, 'How the numbers were computed')];
  for (const e of ex) {
    out.push('', format === 'markdown' ? `### ${e.scope}` : paint.cyan(e.scope));
    for (const s of e.steps) {
      if (format === 'markdown') {
        out.push(
          `- **${s.step}**: \`${s.formula}\` = \`${s.substituted}\` = **${s.result}**${s.rounding ? ` (rounding: ${s.rounding})` : ''}  \n  _source: ${s.source}_`,
        );
      } else {
        out.push(
          `  ${paint.bold(s.step)}: ${s.formula}`,
          `      = ${s.substituted}`,
          `      = ${paint.bold(s.result)}${s.rounding ? paint.dim(`   [rounding: ${s.rounding}]`) : ''}`,
          paint.dim(`      source: ${s.source}`),
        );
      }
    }
  }
  return out.join('\n');
}

export function renderComparison(c: Comparison, format: Format): string {
  const fmtRow = (label: string, rows: AllocationRow[]) =>
    rows.map((x): Cell[] => [label, x.name, x.population, x.n, r(x.precision * 100, 2), x.meets ? 'yes' : 'NO']);
  const rows = [
    ...fmtRow('compliant (each stratum 95/5)', c.compliant),
    ...fmtRow(`proportional, n=${c.overallSize} (Cochran 5.5)`, c.proportional),
    ...fmtRow(`Neyman, n=${c.overallSize} (Cochran 5.9)`, c.neyman),
  ];
  const head = ['allocation', 'stratum', 'N_h', 'n_h (completed)', 'achieved ±% of mean', 'meets 5 %'];
  if (format === 'csv') return csvTable(head, rows);
  return [
    title(format, 'Comparison of allocations'),
    format === 'markdown' ? `> ${c.label}` : paint.yellow(c.label),
    ...c.warnings.map((w) => (format === 'markdown' ? `> warning: ${w}` : paint.yellow(`warning: ${w}`))),
    table(format, head, rows),
  ].join('\n');
}

export function renderSensitivity(s: Sensitivity, format: Format): string {
  const head = [
    s.scaled ? 'CV of every stratum' : 'CV',
    ...s.dropoutRates.map((d) => `d=${d}`),
    '90/10* (info)',
    '95/10* (info)',
  ];
  const cell = (v: number | null) => (v === null ? '> N' : v);
  const rows = s.rows.map((row): Cell[] => [
    s.scaled
      ? `×${row.cvFactor}${row.cvFactor === 1 ? ' (input)' : ''}`
      : `${row.cv}${row.cvFactor === 1 ? ' (input)' : ''}`,
    ...row.cells.map((c) => cell(c.adjustedSize)),
    cell(row.info90_10),
    cell(row.info95_10),
  ]);
  if (format === 'csv') return csvTable(head, rows);
  return [
    title(format, 'Sensitivity of adjustedSize (95/5) to CV and dropout'),
    table(format, head, rows),
    `* ${s.note}`,
  ].join('\n');
}

export function renderRecalc(res: RecalcResult, format: Format, populationTyped?: string): string {
  if (format === 'csv') return recalcCsv(res);
  const out: string[] = [renderDesign(res.design, format, populationTyped)];
  if (res.change) out.push(...changeLines(res, res.change, format));
  if (res.achieved) out.push(...achievedLines(res.achieved, format));
  if (res.dropout) out.push(...dropoutLines(res.dropout, format));
  if (format === 'table' && res.plausibility)
    out.push('', ...res.plausibility.map((n) => paint.yellow(`Plausibility: ${n.statement}.`)));
  if (format === 'table' && (res.inputs.strata.length > 0 || res.achieved || res.dropout))
    out.push('', ...inputsLines(res));
  return out.join('\n');
}

/** The size change against the previous design, total and per stratum. */
function changeLines(res: RecalcResult, change: NonNullable<RecalcResult['change']>, format: Format): string[] {
  const out: string[] = [];
  const rows: Cell[][] = [change.total, ...change.strata].map((c) => [
    c.name,
    c.from,
    c.to,
    c.delta > 0 ? `+${c.delta}` : `${c.delta}`,
    c.direction,
  ]);
  out.push(
    '',
    title(format, `Change against the previous design${res.previous?.designId ? ` ${res.previous.designId}` : ''}`),
    table(format, ['scope', 'previous', 'new', 'delta', 'direction'], rows),
  );
  if (format === 'table') {
    const t = change.total;
    out.push(
      t.direction === 'unchanged'
        ? `The sample size is unchanged at ${t.to}.`
        : `The sample size goes ${t.direction} by ${Math.abs(t.delta)}: ${t.from} → ${t.to}.`,
    );
  }
  return out;
}

/** What the overall row's SD is: not an SD of the pooled rows, so the column's "(n-1)" does not describe it. */
const OVERALL_SD =
  "The overall row's SD is the population SD the strata imply, √([Σ (N_h − 1) s_h² + Σ N_h (x̄_h − x̄_st)²] / (N − 1)), not the SD of the pooled rows.";

/** The achieved precision of the completed observations per stratum (and overall), and whether ±5 % was met. */
function achievedLines(a: NonNullable<RecalcResult['achieved']>, format: Format): string[] {
  const out: string[] = [];
  const pct = (x: number | null) => (x === null ? '' : r(x * 100, 2));
  const rows: Cell[][] = a.groups.map((g) => [
    g.stratum,
    g.n,
    g.population,
    g.mean === null ? '' : r(g.mean, 4),
    g.sd === null ? '' : r(g.sd, 4),
    g.observed ? (g.precision === null ? 'undefined (mean 0)' : pct(g.precision)) : 'not observed',
    !g.observed ? 'not checked' : g.precision === null ? (g.met ? 'yes (±0 absolute)' : 'NO') : g.met ? 'yes' : 'NO',
  ]);
  const o = a.overall;
  if (o)
    rows.push([
      'overall (stratified: Σ W_h x̄_h)',
      o.n,
      o.population,
      r(o.mean, 4),
      r(o.sd, 4),
      pct(o.precision),
      o.met ? 'yes' : 'NO',
    ]);
  out.push(
    '',
    title(format, 'Achieved precision of the completed observations'),
    table(format, ['stratum', 'n', 'N', 'mean', 'SD (n-1)', 'achieved ±% of mean', 'met 5 %'], rows),
  );
  if (format === 'table') {
    if (o) out.push(OVERALL_SD);
    for (const g of a.groups) if (g.statement) out.push(paint.yellow(`${g.stratum}: ${g.statement}.`));
    const missed = a.groups.filter((g) => g.observed && !g.met).map((g) => g.stratum);
    out.push(
      a.allMet
        ? paint.green(`Achieved precision met ±5 % in every stratum (${a.groups.map((g) => g.stratum).join(', ')}).`)
        : paint.red(
            [
              missed.length ? `Achieved precision did NOT meet ±5 % in ${missed.join(', ')}.` : '',
              a.notObserved.length
                ? `Not observed, so not checked: ${a.notObserved.join(', ')}; nothing is said about their precision.`
                : '',
            ]
              .filter(Boolean)
              .join(' '),
          ),
    );
  }
  return out;
}

/** The realised dropout per stratum, and whether it was counted (so used) or derived from the design's n_h. */
function dropoutLines(d: NonNullable<RecalcResult['dropout']>, format: Format): string[] {
  const out: string[] = [];
  const rows: Cell[][] = d.strata.map((x) => [x.stratum, x.sampled, x.completed, r(x.rate * 100, 1)]);
  for (const x of d.notCounted) rows.push([x.stratum, `${x.rows} rows of ${x.sampleSize}`, x.completed, 'not counted']);
  if (d.strata.length > 1) rows.push(['overall', d.overall.sampled, d.overall.completed, r(d.overall.rate * 100, 1)]);
  out.push(
    '',
    title(
      format,
      `Realised dropout (${d.basis === 'marked' ? 'households marked not completed in the observations' : "completed observations against the previous design's n_h"}${d.designed !== undefined ? `; designed ${r(d.designed * 100, 1)} %` : ''})`,
    ),
    table(format, ['stratum', 'sampled', 'completed', 'dropout %'], rows),
  );
  if (format === 'table' && d.basis === 'design')
    out.push(
      'Not counted, so not used for the new design: mark each sampled household that was not completed with an empty or NA value and the dropout is counted from the file.',
    );
  for (const x of d.notCounted) out.push(`${x.statement}; the new design keeps its previous rate.`);
  return out;
}

/** Where each input of the new design came from, overall and per stratum. */
function inputsLines(res: RecalcResult): string[] {
  const i = res.inputs;
  const own = new Map(res.design.stratification.strata.map((s) => [s.name, s.dropoutRate]));
  const lines = [
    `Inputs of the new design: mean ${i.mean}, SD ${i.sd}, dropout ${i.dropoutRate}` +
      (i.dropoutRate === 'realised dropout'
        ? ` (${res.design.parameters.dropoutRate}, the overall realised rate rounded up to 4 decimals${i.strata.some((s) => s.dropoutRate) ? '; a stratum with its own rate below uses that' : ''})`
        : ''),
  ];
  for (const s of i.strata)
    lines.push(
      `  ${s.stratum}: mean ${s.mean}, SD ${s.sd}${s.mean === 'previous design' ? ' (carried over)' : ''}${s.dropoutRate ? `, dropout ${own.get(s.stratum)} (${s.dropoutRate === 'realised dropout' ? 'its realised rate, rounded up to 4 decimals' : 'carried over'})` : ''}${s.note ? ` — ${s.note}` : ''}`,
    );
  return lines;
}
