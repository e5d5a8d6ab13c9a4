/**
 * The verifier's package as one self-contained HTML file: inline CSS (with a
 * print stylesheet), tables, the chart as inline SVG. No scripts, no
 * external resources. Failed checks come first, in red; then per project
 * the checks, the findings, the method (formulas with the numbers, the
 * algorithm, the commands, a Python recipe), the design, the supporting
 * data, the chart and the selection.
 */
import type { ProjectReport, Report } from './model.ts';
import { chartSvg } from './svg.ts';

const esc = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Tickets in the HTML: a 12-hex-digit prefix (the full value is in the package's JSON and in selection.csv). */
export const TICKET_PREFIX = 12;

function num(v: number | undefined, digits = 4): string {
  if (v === undefined || Number.isNaN(v)) return '';
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(digits + 2)));
}

type Cell = string | number | undefined | { html: string; cls?: string };

/**
 * The printed page: numbers ("page 3 of 7") and, at the foot of each page, the project it belongs to — each
 * project is a named page of its own (it starts on a new sheet); the summary at the front names them all.
 */
function pageRules(r: Report): string {
  const foot = (text: string) =>
    `@bottom-left{content:${cssString(text)};font-size:7pt}@bottom-right{content:"page " counter(page) " of " counter(pages);font-size:7pt}`;
  return [
    `@page{margin:14mm 12mm;${foot(`${r.projects.map((p) => p.projectId).join(', ')} — ${r.title}`)}}`,
    ...r.projects.map((p, i) => `@page project-${i + 1}{${foot(`${p.projectId} — ${r.title}`)}}`),
  ].join('');
}

/**
 * A CSS string literal (for `content:`): quotes and backslashes escaped, line ends as spaces, and < > as CSS escapes
 * (so the text prints as typed and can never close the style element).
 */
function cssString(s: string): string {
  return `"${s
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/[\n\r]/g, ' ')
    .replace(/[<>]/g, (c) => (c === '<' ? '\\3c ' : '\\3e '))}"`;
}

function table(cls: string, headers: string[], rows: Cell[][]): string {
  const td = (c: Cell): string => {
    if (typeof c === 'object' && c !== null) return `<td${c.cls ? ` class="${c.cls}"` : ''}>${c.html}</td>`;
    return `<td${typeof c === 'number' ? ' class="n"' : ''}>${esc(typeof c === 'number' ? num(c) : c)}</td>`;
  };
  return `<table class="${cls}"><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map(td).join('')}</tr>`).join('')}</tbody></table>`;
}

const ticket = (t: string): Cell => ({
  html: `<code title="${esc(t)}">${esc(t.slice(0, TICKET_PREFIX))}…</code>`,
  cls: 'ticket',
});

function para(label: string, text: string | null): string {
  if (!text) return `<p class="missing"><strong>${esc(label)}:</strong> not supplied.</p>`;
  return `<p><strong>${esc(label)}:</strong> ${esc(text).replaceAll('\n', '<br>')}</p>`;
}

const STATUS = { pass: '✔ passed', fail: '✘ FAILED', skip: '– not checked' } as const;

const VERDICT_TEXT: Record<ProjectReport['verdict'], string> = {
  verified: 'every check passed',
  mismatch: 'FAILED: something does not recompute',
  untrusted: 'FAILED: the randomness cannot be trusted',
  'design only': 'design checked; no selection supplied',
  'committed, not drawn': 'committed; not drawn yet',
};

function verdictClass(v: ProjectReport['verdict']): string {
  return v === 'mismatch' || v === 'untrusted' ? 'bad' : v === 'verified' ? 'good' : 'neutral';
}

function method(p: ProjectReport): string {
  const out: string[] = ['<h3>Method: how to check this package without oraclekit</h3>'];
  const m = p.method;
  if (m.sizes) {
    out.push("<h4>Sample size: the formulas with this design's numbers</h4>");
    out.push(
      '<p class="note">Recomputed from the design\'s own parameters (as <code>oraclekit sample calc --explain</code>). Sources: CDM "Guidelines for sampling and surveys" (EB 69 Annex 5), Levy &amp; Lemeshow eq. 3.15; oraclekit docs/sampling.md.</p>',
    );
    const head =
      '<thead><tr><th>step</th><th>formula</th><th>with the numbers</th><th>result</th><th>rounding</th></tr></thead>';
    const body = m.sizes
      .map(
        (e) =>
          `<tr class="scope"><th colspan="5">${esc(e.scope)}</th></tr>` +
          e.steps
            .map(
              (s) =>
                `<tr><td>${esc(s.step)}</td><td><code>${esc(s.formula)}</code></td><td><code>${esc(s.substituted)}</code></td><td class="r">${esc(s.result)}</td><td>${esc(s.rounding ?? '')}</td></tr>`,
            )
            .join(''),
      )
      .join('');
    out.push(`<table class="explain">${head}<tbody>${body}</tbody></table>`);
  }
  out.push('<h4>Household selection: cookstove-sampling/v1 in full</h4>');
  out.push(`<ol class="algorithm">${m.selection.map((s) => `<li>${esc(s)}</li>`).join('')}</ol>`);
  out.push('<h4>Definitions</h4>');
  out.push(`<ul class="definitions">${m.definitions.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`);
  out.push('<h4>Commands</h4>');
  out.push(`<pre class="commands">${esc(m.commands.join('\n'))}</pre>`);
  if (m.python) {
    out.push('<h4>Independent recipe (Python 3, standard library only)</h4>');
    out.push(`<pre class="python">${esc(m.python)}</pre>`);
  }
  return out.join('\n');
}

function project(p: ProjectReport, i: number): string {
  const P = p.parameters;
  const out: string[] = [];
  out.push(
    `<section class="project" id="project-${i + 1}" style="page:project-${i + 1}"><h2>${esc(p.name)} <small>${esc(p.projectId)}</small></h2>`,
  );
  out.push(
    `<p class="verdict ${verdictClass(p.verdict)}"><strong>${esc(VERDICT_TEXT[p.verdict])}</strong> — n = ${P.adjustedSize} households to sample of N = ${P.population}; ER coverage ${esc(p.erCoverage.percent)} (${esc(p.erCoverage.source)}).</p>`,
  );
  out.push('<h3>Checks run for this package</h3>');
  out.push(
    table(
      'checks',
      ['status', 'check', 'kind', 'what'],
      p.checks.map((c) => [
        { html: esc(STATUS[c.status]), cls: `status ${c.status}` },
        c.check,
        c.kind,
        { html: esc(c.message), cls: 'wrap' },
      ]),
    ),
  );
  if (p.findings.length > 0) {
    out.push('<h3>Findings: the design against its supporting data</h3>');
    out.push(
      `<ul class="findings">${p.findings.map((f) => `<li class="${f.severity}">${esc(f.message)}</li>`).join('')}</ul>`,
    );
  }
  out.push(method(p));
  out.push(...designHtml(p));
  out.push(...supportingHtml(p));
  out.push('<h3>Sample size against CV</h3>');
  out.push(`<figure>${chartSvg(p.chart, `chart-${i + 1}`)}<figcaption>${esc(p.chart.caption)}</figcaption></figure>`);
  out.push('<h3>Selection (cookstove-sampling/v1)</h3>');
  out.push(...selectionHtml(p.selection));
  out.push(
    `<section class="conclusion"><h3>Verifier's conclusion — ${esc(p.projectId)}</h3><p>Conclusion (accepted / accepted with conditions / not accepted) and reasons:</p><div class="blank"></div><div class="blank"></div><div class="blank"></div><p>Verifier, organisation: <span class="line"></span> Date: <span class="line short"></span> Signature: <span class="line"></span></p></section>`,
  );
  out.push('</section>');
  return out.join('\n');
}

/** The design's parameters and its strata table. */
function designHtml(p: ProjectReport): string[] {
  const P = p.parameters;
  return [
    '<h3>Design</h3>',
    table(
      'parameters',
      ['parameter', 'value'],
      [
        ['designId', `${p.designId} (${p.designIdSource})`],
        ['confidence / precision', `${P.confidence} / ±${P.precision * 100} % of the mean (${P.precisionType})`],
        ['population N', P.population],
        [
          P.expectedProportion !== undefined ? 'expected proportion' : 'expected mean',
          P.expectedProportion ?? P.expectedMean,
        ],
        ['expected SD', P.expectedSD],
        ['CV', P.expectedSD / P.expectedMean],
        ['dropout rate', P.dropoutRate],
        ['calculated size (completed interviews)', P.calculatedSize],
        ['adjusted size (households to sample)', P.adjustedSize],
        ['ER coverage', `${p.erCoverage.percent} — ${p.erCoverage.source}`],
        ['stratification', p.stratification.method],
      ],
    ),
    table(
      'strata',
      ['stratum', 'N_h', 'mean', 'SD', 'CV', 'dropout', 'completed (calculated)', 'n_h (to sample)', 'census'],
      p.strata.map((s) => [
        s.name,
        s.population,
        s.mean,
        s.sd,
        s.cv,
        s.dropoutRate ?? P.dropoutRate,
        s.calculatedSize,
        s.sampleSize,
        s.census ? 'yes' : 'no',
      ]),
    ),
  ];
}

/** The supporting data: mean justification, SD calculation, the observations against the design, and sources. */
function supportingHtml(p: ProjectReport): string[] {
  const out: string[] = ['<h3>Supporting data</h3>'];
  out.push(para('Mean justification', p.supporting.meanJustification));
  out.push(para('SD calculation', p.supporting.sdCalculation));
  const o = p.supporting.observations;
  if (o) {
    out.push(...observationsHtml(p, o));
  } else {
    out.push('<p class="missing">No observations supplied: the design\'s CVs could not be compared with data.</p>');
  }
  if (p.supporting.sources.length > 0) {
    out.push(
      `<ol class="sources">${p.supporting.sources.map((s) => `<li><strong>${esc(s.label)}</strong>${s.citation ? ` — ${esc(s.citation)}` : ''}${s.url ? ` <span class="url">${esc(s.url)}</span>` : ''}</li>`).join('')}</ol>`,
    );
  } else {
    out.push('<p class="missing">No sources supplied.</p>');
  }
  return out;
}

/** The observations' statistics, the realised dropout and the design's assumptions against them. */
function observationsHtml(p: ProjectReport, o: NonNullable<ProjectReport['supporting']['observations']>): string[] {
  const out: string[] = [];
  out.push(
    `<p>${esc(o.kind)} observations${o.file ? ` from <code>${esc(o.file)}</code>` : ''}: mean and SD (n − 1 divisor) per stratum; r = z·s / (x̄·√n)·√(1 − n/N_h), with N_h ${o.populations === 'frame' ? "the frame's households per stratum (as committed)" : "the design's population"}. ${o.overall ? 'Overall: the stratified estimator x̄_st = Σ W_h x̄_h (W_h = N_h/N) with V(x̄_st) = Σ W_h² (1 − n_h/N_h) s_h²/n_h and r = z·√V / x̄_st; its SD is the population SD the strata imply, √([Σ (N_h − 1) s_h² + Σ N_h (x̄_h − x̄_st)²] / (N − 1)), not the SD of the pooled rows.' : ''}</p>`,
  );
  if (o.draw) {
    const m = o.draw;
    out.push(
      `<p>Matched to the draw by household ID: ${m.rows} rows, ${m.used} used (${esc(m.rule)}); not in the frame ${m.notInFrame.length}, in the frame but not drawn ${m.notDrawn.length}, replacements out of rank order ${m.outOfOrder.length}, another stratum than the frame's ${m.otherStratum.length}.</p>`,
    );
    out.push(
      table(
        'draw',
        ['stratum', 'n_h', 'sampled with a row', 'sampled without a row', 'replacements used in order'],
        m.strata.map((x) => [x.stratum, x.sampleSize, x.sampleRows, x.sampleWithoutRow, x.replacementsUsed]),
      ),
    );
  }
  out.push(
    table(
      'observations',
      ['group', 'estimator', 'n', 'mean', 'SD', 'CV', 'N', 'achieved precision r', 'r ≤ 0.05'],
      o.stats.map((s) => [
        s.group,
        s.estimator,
        s.n,
        s.mean,
        s.sd,
        s.cv,
        s.population,
        s.achievedPrecision,
        s.meets95_5 === undefined ? '' : s.meets95_5 ? 'yes' : 'no',
      ]),
    ),
  );
  if (o.dropout) {
    const dd = o.dropout;
    out.push(
      `<p>Realised dropout, per stratum: 1 − completed / ${dd.basis === 'selection' ? 'sampled (the drawn sample and the replacements used in rank order; a drawn household without a row is not completed)' : dd.basis === 'marked' ? 'sampled (the observations mark households sampled but not completed with an empty or NA value)' : "the design's n_h (the observations mark no household as not completed)"}; designed ${(dd.designed * 100).toFixed(1)} %.${dd.notCounted.map((x) => ` ${esc(x.statement)}.`).join('')}</p>`,
    );
    out.push(
      table(
        'dropout',
        ['stratum', 'sampled', 'completed', 'realised dropout', 'designed'],
        [...dd.strata, ...(dd.strata.length > 0 ? [{ stratum: 'overall', ...dd.overall }] : [])].map((x) => [
          x.stratum,
          x.sampled,
          x.completed,
          `${(x.rate * 100).toFixed(1)} %`,
          `${((p.strata.find((s) => s.name === x.stratum)?.dropoutRate ?? dd.designed) * 100).toFixed(1)} %`,
        ]),
      ),
    );
  }
  if (o.comparison.length > 0) {
    out.push(
      "<p>The design's assumptions against these data, per stratum: r at the planned size = z·CV_observed / √n·√(1 − n/N_h) with n the planned completed interviews; the size the data imply is the chain of <code>sample calc</code> with the observed mean and SD.</p>",
    );
    out.push(
      table(
        'comparison',
        [
          'stratum',
          'N_h',
          'CV assumed',
          'CV observed',
          'planned completed',
          'r at planned size',
          'meets ±5 %',
          'implied completed',
          'implied n_h',
          'planned n_h',
          'design',
        ],
        o.comparison.map((k) => [
          k.stratum,
          k.population,
          k.cvAssumed,
          k.cvObserved,
          k.plannedCompleted,
          k.precisionAtPlanned,
          k.meetsAtPlanned ? 'yes' : 'NO',
          k.impliedCompleted,
          k.impliedSample ?? `> N_h`,
          k.plannedSample,
          { html: k.tooSmall ? '<strong>too small</strong>' : 'large enough', cls: k.tooSmall ? 'warn' : '' },
        ]),
      ),
    );
  }
  return out;
}

/** The commitment, its strata and the proof, or what is missing. */
function selectionHtml(s: ProjectReport['selection']): string[] {
  if (!s) return ['<p class="missing">No selection commitment supplied.</p>'];
  const out: string[] = [];
  out.push(
    table(
      'commitment',
      ['commitment', 'value'],
      [
        ['algorithm', s.algorithm],
        ["committed at (the committer's clock)", s.committedAt],
        ['commitment digest (sha256, canonical JSON)', s.commitmentDigest],
        ['frame', `${s.frame.file}: ${s.frame.households} households`],
        ['frameHash', s.frame.frameHash],
        ['frame file sha256', s.frame.fileSha256],
        [
          'beacon',
          `drand chain ${s.beacon.chainHash} (${s.beacon.scheme}${s.beacon.pinned ? ', a pinned public chain' : ', NOT a pinned public chain'}), round ${s.beacon.round} at ${s.beacon.roundTime}`,
        ],
      ],
    ),
  );
  out.push(
    table(
      'commit-strata',
      ['stratum', 'households in frame', 'n_h'],
      s.strata.map((x) => [x.name, x.households, x.sampleSize]),
    ),
  );
  if (s.proof) {
    out.push(...proofHtml(s.proof));
  } else {
    out.push('<p class="missing">No proof yet: the draw has not been made.</p>');
  }
  return out;
}

/** Households in rank order with their tickets (the sample, the replacements), set in columns. */
function rankedHtml(cls: string, rows: { stratum: string; rank: number; household_id: string; ticket: string }[]) {
  const cells = rows.map((x): Cell[] => [x.stratum, x.rank, x.household_id, ticket(x.ticket)]);
  return `<div class="cols">${table(cls, ['stratum', 'rank', 'household_id', 'ticket'], cells)}</div>`;
}

/** The proof, the sample in rank order and the replacement order (when selection.csv was supplied). */
function proofHtml(pf: NonNullable<NonNullable<ProjectReport['selection']>['proof']>): string[] {
  const out: string[] = [];
  out.push(
    table(
      'proof',
      ['proof', 'value'],
      [
        ['drawn at', pf.drawnAt],
        ['randomness', pf.randomness],
        ['seed', pf.seed],
        ['refers to this commitment', pf.matchesCommitment ? 'yes' : 'NO'],
        ['selection.csv', `${pf.selectionFile.file}: ${pf.selectionFile.rows} rows, sha256 ${pf.selectionFile.sha256}`],
      ],
    ),
  );
  out.push(
    `<p class="note">Tickets are shown as their first ${TICKET_PREFIX} hex digits; the full values are in the package's JSON and in selection.csv.</p>`,
  );
  out.push(`<h4>Sample (${pf.sample.length} households, in rank order per stratum)</h4>`);
  out.push(rankedHtml('sample', pf.sample));
  if (pf.replacements) {
    const n = pf.replacements.length;
    out.push(
      `<h4>Replacement order (${n} households: per stratum the first n_h replacements, used strictly in this order; the whole list is in selection.csv)</h4>`,
    );
    out.push(rankedHtml('replacements', pf.replacements));
  } else {
    out.push(
      '<p class="missing">Replacement order not included: selection.csv was not supplied (<code>--selection</code>).</p>',
    );
  }
  return out;
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#111;line-height:1.4;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{border-bottom:2px solid #1b6ca8;padding-bottom:.2rem;margin-top:2.5rem}h2 small{color:#666;font-weight:normal;font-size:.8rem}
h4{margin:1rem 0 .3rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f4f8}td.n{text-align:right;font-variant-numeric:tabular-nums}td{overflow-wrap:anywhere}
td.status.pass{color:#1e7b34}td.status.fail{color:#b00020;font-weight:bold}td.status.skip{color:#8a6d00}td.warn{color:#b00020}
.missing{color:#a04000}figure{margin:1rem 0}figcaption{font-size:.8rem;color:#444}code{font-size:.85em}.note{font-size:.85rem;color:#444}
.meta{color:#555;font-size:.85rem}svg.chart{max-width:100%;height:auto}
pre{background:#f6f8fa;border:1px solid #ddd;padding:.6rem;font-size:.78rem;white-space:pre-wrap;overflow-wrap:anywhere}
.failures{border:2px solid #b00020;background:#fdecee;color:#7a0014;padding:.6rem 1rem;margin:1rem 0}.failures h2{border:none;color:#b00020;margin:.2rem 0}
.allgood{border:2px solid #1e7b34;background:#eaf6ec;padding:.6rem 1rem;margin:1rem 0}
.findings-top{border:2px solid #b36b00;background:#fff6e5;color:#6b3d00;padding:.6rem 1rem;margin:1rem 0}.findings-top h2{border:none;color:#8a4b00;margin:.2rem 0;font-size:1.2rem}
table.explain td:first-child{white-space:nowrap}
div.cols td{white-space:nowrap}
@media screen{div.cols table{font-size:.8rem}}
@media screen and (min-width:1000px){div.cols{column-count:3;column-gap:1.5em}div.cols table{margin:0}}
p.verdict{padding:.4rem .6rem;border-left:4px solid #999}p.verdict.bad{border-color:#b00020;background:#fdecee}p.verdict.good{border-color:#1e7b34;background:#eaf6ec}
ul.findings li.warning{color:#8a3b00}ul.findings li.warning::marker{content:"⚠ "}
table.explain td:nth-child(2){min-width:11rem}table.explain td:nth-child(3){min-width:16rem}table.explain td.r{text-align:right;font-variant-numeric:tabular-nums;overflow-wrap:normal}td.n,td.r{overflow-wrap:normal;word-break:keep-all}
section.conclusion{border:1px solid #999;padding:.4rem .8rem;margin-top:1rem;break-inside:avoid}section.conclusion div.blank{border-bottom:1px solid #999;height:1.6rem}span.line{display:inline-block;border-bottom:1px solid #999;width:14rem}span.line.short{width:7rem}table.explain tr.scope th{background:#e4ebf2;text-align:left}
td.n,table.checks td:nth-child(-n+3){white-space:nowrap}
@media print{
 body{margin:0;max-width:none;font-size:9pt;line-height:1.25}
 h2{margin-top:0}section.project{break-before:page}section.project:first-of-type{break-before:auto}
 div.cols{column-count:3;column-gap:1.5em}div.cols table{margin:0}
 table{font-size:7.5pt;margin:.3rem 0}th,td{padding:.05rem .25rem}
 table.sample,table.replacements{font-size:7pt}
 pre{font-size:6.8pt;padding:.3rem}
 tr,li,figure{break-inside:avoid}a{color:inherit}
 .failures,.allgood,.findings-top,p.verdict{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
`;

export function renderHtml(r: Report): string {
  const summary = r.projects
    .map(
      (p, i) =>
        `<li><a href="#project-${i + 1}">${esc(p.name)}</a> — <span class="${verdictClass(p.verdict)}">${esc(VERDICT_TEXT[p.verdict])}</span>; n = ${p.parameters.adjustedSize} of N = ${p.parameters.population}, ER coverage ${esc(p.erCoverage.percent)}</li>`,
    )
    .join('');
  const failures =
    r.failures.length > 0
      ? `<section class="failures"><h2>${r.failures.length} failed check${r.failures.length === 1 ? '' : 's'}</h2><ul>${r.failures.map((f) => `<li><strong>${esc(f.projectId)} [${esc(f.check)}]</strong> ${f.kind === 'trust' ? '(randomness not trusted) ' : ''}${esc(f.message)}</li>`).join('')}</ul></section>`
      : '';
  const warnings = r.projects.flatMap((p) => p.findings.filter((f) => f.severity === 'warning').map((f) => ({ p, f })));
  const allgood =
    r.failures.length > 0
      ? ''
      : warnings.length > 0
        ? `<section class="findings-top"><strong>No check failed, but ${warnings.length} finding${warnings.length === 1 ? '' : 's'} below ${warnings.length === 1 ? 'needs' : 'need'} the verifier's decision.</strong></section>`
        : '<section class="allgood"><strong>No check failed and nothing was found.</strong> Each project lists what was checked and what was not.</section>';
  const findings =
    warnings.length > 0
      ? `<section class="findings-top"><h2>${warnings.length} finding${warnings.length === 1 ? '' : 's'} on the designs</h2><ul>${warnings.map(({ p, f }) => `<li><strong>${esc(p.projectId)}</strong> ${esc(f.message)}</li>`).join('')}</ul></section>`
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(r.title)}</title><style>${CSS}</style>
<style>${pageRules(r)}</style></head>
<body>
<header><h1>${esc(r.title)}</h1>
<p class="meta">Generated ${esc(r.generatedAt)} by oraclekit ${esc(r.generator.version)}. Sizes by method ${esc(r.spec.samplingMethod)} (95/5, precision relative to the mean, CDM finite-population correction, exact dropout adjustment; oraclekit's docs/sampling.md); selection by ${esc(r.spec.selection)} (docs/selection.md). ${r.projects.length} project${r.projects.length === 1 ? '' : 's'}. The same content, with full tickets, is in the JSON beside this file.</p>
${failures}
${allgood}
${findings}
<ol class="toc">${summary}</ol></header>
${r.projects.map(project).join('\n')}
</body></html>
`;
}
