/** The chart of sample size against CV and dropout, as a self-contained inline SVG (no scripts, no external fonts). */
import type { ChartData } from './model.ts';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const COLOURS = ['#1b6ca8', '#2e8b57', '#d98e04', '#b03a2e', '#6c3483', '#117a65'];

function niceStep(range: number, target: number): number {
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

export function chartSvg(c: ChartData, id: string): string {
  const W = 720;
  const H = 380;
  const m = { l: 64, r: 150, t: 20, b: 50 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const [x0, x1] = c.cvRange;
  const yMaxData = Math.max(...c.series.flatMap((s) => s.points.map((p) => p.n)), ...c.marks.map((p) => p.n));
  const yStep = niceStep(yMaxData, 6);
  const y1 = Math.ceil(yMaxData / yStep) * yStep;
  const X = (v: number): number => m.l + ((v - x0) / (x1 - x0)) * pw;
  const Y = (v: number): number => m.t + ph - (v / y1) * ph;
  const f = (v: number): string => v.toFixed(1);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" id="${esc(id)}" class="chart" role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-labelledby="${esc(id)}-title">`);
  parts.push(`<title id="${esc(id)}-title">Sample size against CV and dropout rate (N = ${c.population})</title>`);
  parts.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="#fff" stroke="#999"/>`);
  const xStep = niceStep(x1 - x0, 8);
  for (let v = Math.ceil(x0 / xStep) * xStep; v <= x1 + 1e-9; v += xStep) {
    parts.push(`<line x1="${f(X(v))}" x2="${f(X(v))}" y1="${m.t}" y2="${m.t + ph}" stroke="#eee"/>`);
    parts.push(`<text x="${f(X(v))}" y="${m.t + ph + 16}" font-size="11" text-anchor="middle">${Number(v.toFixed(2))}</text>`);
  }
  for (let v = 0; v <= y1 + 1e-9; v += yStep) {
    parts.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${f(Y(v))}" y2="${f(Y(v))}" stroke="#eee"/>`);
    parts.push(`<text x="${m.l - 6}" y="${f(Y(v) + 4)}" font-size="11" text-anchor="end">${v}</text>`);
  }
  parts.push(`<text x="${m.l + pw / 2}" y="${H - 10}" font-size="12" text-anchor="middle">coefficient of variation (SD / mean)</text>`);
  parts.push(`<text x="16" y="${m.t + ph / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${m.t + ph / 2})">households to sample (95/5, dropout-adjusted)</text>`);
  c.series.forEach((s, i) => {
    const col = COLOURS[i % COLOURS.length]!;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${f(X(p.cv))},${f(Y(p.n))}`).join(' ');
    parts.push(`<path class="series" data-dropout="${s.dropoutRate}" d="${d}" fill="none" stroke="${col}" stroke-width="2"/>`);
    const ly = m.t + 14 + i * 18;
    parts.push(`<line x1="${m.l + pw + 12}" x2="${m.l + pw + 32}" y1="${ly - 4}" y2="${ly - 4}" stroke="${col}" stroke-width="2"/>`);
    parts.push(`<text x="${m.l + pw + 38}" y="${ly}" font-size="11">dropout ${Math.round(s.dropoutRate * 1000) / 10} %</text>`);
  });
  c.marks.forEach((p, i) => {
    parts.push(`<circle class="mark" cx="${f(X(p.cv))}" cy="${f(Y(p.n))}" r="5" fill="#000"><title>${esc(p.label)}: CV ${p.cv}, n ${p.n}</title></circle>`);
    parts.push(`<text x="${f(X(p.cv) + 8)}" y="${f(Y(p.n) - 8 - i * 2)}" font-size="11">${esc(p.label)} (n ${p.n})</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}
