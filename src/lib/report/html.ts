/**
 * The verifier's package as one self-contained HTML file: inline CSS (with a
 * print stylesheet), tables, and the chart as inline SVG. No external
 * resources. A three-line inline script records the rendered size of each
 * chart in data attributes (used by the headless-browser test; harmless when
 * printing or with scripts disabled).
 */
import type { ProjectReport, Report } from './model.ts';
import { chartSvg } from './svg.ts';

const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function num(v: number | undefined, digits = 4): string {
  if (v === undefined || Number.isNaN(v)) return '';
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(digits + 2)));
}

function table(cls: string, headers: string[], rows: (string | number | undefined)[][]): string {
  return `<table class="${cls}"><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td${typeof c === 'number' ? ' class="n"' : ''}>${esc(typeof c === 'number' ? num(c) : c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function para(label: string, text: string | null): string {
  if (!text) return `<p class="missing"><strong>${esc(label)}:</strong> not supplied.</p>`;
  return `<p><strong>${esc(label)}:</strong> ${esc(text).replaceAll('\n', '<br>')}</p>`;
}

function project(p: ProjectReport, i: number): string {
  const P = p.parameters;
  const out: string[] = [];
  out.push(`<section class="project" id="project-${i + 1}"><h2>${esc(p.name)} <small>${esc(p.projectId)}</small></h2>`);
  out.push('<h3>Design</h3>');
  out.push(table('parameters', ['parameter', 'value'], [
    ['designId', `${p.designId} (${p.designIdSource})`],
    ['confidence / precision', `${P.confidence} / ±${P.precision * 100} % of the mean (${P.precisionType})`],
    ['population N', P.population],
    ['expected mean', P.expectedMean],
    ['expected SD', P.expectedSD],
    ['CV', P.expectedSD / P.expectedMean],
    ['dropout rate', P.dropoutRate],
    ['calculated size', P.calculatedSize],
    ['adjusted size (to sample)', P.adjustedSize],
    ['ER coverage', `${P.erCoverage} (${P.erCoverageSource})`],
    ['stratification', p.stratification.method],
  ]));
  out.push(table('strata', ['stratum', 'N_h', 'mean', 'SD', 'CV', 'n_h', 'census'], p.strata.map((s) => [s.name, s.population, s.mean, s.sd, s.cv, s.sampleSize, s.census ? 'yes' : 'no'])));
  out.push('<h3>Supporting data</h3>');
  out.push(para('Mean justification', p.supporting.meanJustification));
  out.push(para('SD calculation', p.supporting.sdCalculation));
  const o = p.supporting.observations;
  if (o) {
    out.push(`<p>${esc(o.kind)} observations${o.file ? ` from <code>${esc(o.file)}</code>` : ''}: mean and SD (n − 1 divisor); r = z·s / (x̄·√n)·√(1 − n/N).</p>`);
    out.push(table('observations', ['group', 'n', 'mean', 'SD', 'CV', 'N', 'achieved precision r', 'r ≤ 0.05'], o.stats.map((s) => [s.group, s.n, s.mean, s.sd, s.cv, s.population, s.achievedPrecision, s.meets95_5 === undefined ? '' : s.meets95_5 ? 'yes' : 'no'])));
  } else {
    out.push('<p class="missing">No observations supplied.</p>');
  }
  if (p.supporting.sources.length > 0) {
    out.push(`<ol class="sources">${p.supporting.sources.map((s) => `<li><strong>${esc(s.label)}</strong>${s.citation ? ` — ${esc(s.citation)}` : ''}${s.url ? ` <span class="url">${esc(s.url)}</span>` : ''}</li>`).join('')}</ol>`);
  } else {
    out.push('<p class="missing">No sources supplied.</p>');
  }
  out.push('<h3>Sample size against CV and dropout</h3>');
  out.push(`<figure>${chartSvg(p.chart, `chart-${i + 1}`)}<figcaption>${esc(p.chart.caption)}</figcaption></figure>`);
  out.push('<h3>Selection (cookstove-sampling/v1)</h3>');
  const s = p.selection;
  if (!s) {
    out.push('<p class="missing">No selection commitment supplied.</p>');
  } else {
    out.push(table('commitment', ['commitment', 'value'], [
      ['algorithm', s.algorithm],
      ['committed at', s.committedAt],
      ['commitment digest (sha256, canonical JSON)', s.commitmentDigest],
      ['frame', `${s.frame.file}: ${s.frame.households} households`],
      ['frameHash', s.frame.frameHash],
      ['frame file sha256', s.frame.fileSha256],
      ['beacon', `drand chain ${s.beacon.chainHash} (${s.beacon.scheme}), round ${s.beacon.round} at ${s.beacon.roundTime}`],
    ]));
    out.push(table('commit-strata', ['stratum', 'households in frame', 'n_h'], s.strata.map((x) => [x.name, x.households, x.sampleSize])));
    if (s.proof) {
      out.push(table('proof', ['proof', 'value'], [
        ['drawn at', s.proof.drawnAt],
        ['randomness', s.proof.randomness],
        ['seed', s.proof.seed],
        ['refers to this commitment', s.proof.matchesCommitment ? 'yes' : 'NO'],
      ]));
      out.push(`<details open><summary>Sample (${s.proof.sample.length} households)</summary>`);
      out.push(table('sample', ['stratum', 'rank', 'household_id', 'ticket'], s.proof.sample.map((x) => [x.stratum, x.rank, x.household_id, x.ticket])));
      out.push('</details>');
      out.push('<p>To check: <code>oraclekit sample verify --frame FRAME.csv --commitment commitment.json --proof proof.json --selection selection.csv</code>.</p>');
    } else {
      out.push('<p class="missing">No proof yet: the draw has not been made.</p>');
    }
  }
  out.push('</section>');
  return out.join('\n');
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1000px;color:#111;line-height:1.4;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{border-bottom:2px solid #1b6ca8;padding-bottom:.2rem;margin-top:2.5rem}h2 small{color:#666;font-weight:normal;font-size:.8rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f4f8}td.n{text-align:right;font-variant-numeric:tabular-nums}td{overflow-wrap:anywhere}
.missing{color:#a04000}figure{margin:1rem 0}figcaption{font-size:.8rem;color:#444}code{font-size:.85em}
.meta{color:#555;font-size:.85rem}svg.chart{max-width:100%;height:auto}
@media print{body{margin:0;max-width:none}section.project{break-before:page}section.project:first-of-type{break-before:auto}details>summary{display:none}details{display:block}a{color:inherit}}
`;

export function renderHtml(r: Report): string {
  const toc = r.projects.map((p, i) => `<li><a href="#project-${i + 1}">${esc(p.name)}</a> — n = ${p.parameters.adjustedSize} of N = ${p.parameters.population}, ER coverage ${p.parameters.erCoverage}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(r.title)}</title><style>${CSS}</style></head>
<body>
<header><h1>${esc(r.title)}</h1>
<p class="meta">Generated ${esc(r.generatedAt)} by oraclekit. Sizes per sampling.md (95/5, relative precision, CDM finite-population correction, exact dropout adjustment); selection per ${esc(r.spec.selection)}. ${r.projects.length} project${r.projects.length === 1 ? '' : 's'}.</p>
<ol class="toc">${toc}</ol></header>
${r.projects.map(project).join('\n')}
<script>for(const s of document.querySelectorAll('svg.chart')){const b=s.getBoundingClientRect();s.dataset.renderedWidth=String(Math.round(b.width));s.dataset.renderedHeight=String(Math.round(b.height));s.dataset.paths=String(s.querySelectorAll('path.series').length);}</script>
</body></html>
`;
}
