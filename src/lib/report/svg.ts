/**
 * The chart of sample size against CV as a self-contained inline SVG (no
 * scripts, no external fonts). Point labels are placed so that they never
 * overlap each other, another point or the plot's edge (placeLabels); a
 * point whose CV is below the axis range is drawn on the axis as a
 * left-pointing triangle labelled with its CV.
 */
import type { ChartData } from './chart.ts';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const COLOURS = ['#1b6ca8', '#2e8b57', '#d98e04', '#b03a2e', '#6c3483', '#117a65', '#7f8c8d', '#a04000'];

function niceStep(range: number, target: number): number {
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const FONT = 11;
/** A conservative width of text at font-size 11 in a sans-serif font (wide glyphs: 0.62 em). */
export const textWidth = (s: string): number => Math.ceil([...s].length * FONT * 0.62) + 2;
const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Places one label per point: right of the point, else left, at the point's
 * height or moved up/down in steps of the line height, inside the plot,
 * overlapping no other label and no point. Returns the boxes (top-left
 * x, y, width, height) in input order.
 */
export function placeLabels(points: { x: number; y: number; text: string }[], plot: Box): Box[] {
  const h = FONT + 3;
  const placed: Box[] = [];
  const pointBoxes = points.map((p) => ({ x: p.x - 6, y: p.y - 6, w: 12, h: 12 }));
  const order = points.map((_, i) => i).sort((a, b) => points[a]!.y - points[b]!.y || points[a]!.x - points[b]!.x);
  const out: Box[] = new Array(points.length);
  for (const i of order) {
    const p = points[i]!;
    const w = textWidth(p.text);
    let best: Box | null = null;
    for (let step = 0; step < 80 && !best; step++) {
      const dy = step === 0 ? 0 : (step % 2 === 1 ? -1 : 1) * Math.ceil(step / 2) * h;
      for (const side of [1, -1]) {
        const x = side === 1 ? p.x + 9 : p.x - 9 - w;
        const b = { x, y: p.y - h / 2 + dy, w, h };
        if (b.x < plot.x + 2 || b.x + b.w > plot.x + plot.w - 2 || b.y < plot.y + 2 || b.y + b.h > plot.y + plot.h - 2)
          continue;
        if (placed.some((q) => overlaps(q, b)) || pointBoxes.some((q) => overlaps(q, b))) continue;
        best = b;
        break;
      }
    }
    // no free place inside the plot (very many points): stack below the plot, never on top of another label
    best ??= { x: plot.x, y: plot.y + plot.h + 30 + placed.filter((q) => q.y > plot.y + plot.h).length * h, w, h };
    placed.push(best);
    out[i] = best;
  }
  return out;
}

/** A coordinate in the SVG, to one decimal. */
const f = (v: number): string => v.toFixed(1);

/**
 * The marks (a filled disc per designed CV, a ring per observed one, a triangle at the axis for one below it) and
 * their labels, placed so none overlaps, with a leader line where a label moved away from its mark.
 */
function marksSvg(c: ChartData, X: (v: number) => number, Y: (v: number) => number, plot: Box): string[] {
  const parts: string[] = [];
  const pts = c.marks.map((p) => ({
    x: X(p.cv),
    y: Y(p.n),
    text: p.clamped
      ? `${p.label}: n ${p.n}, CV ${Number(p.cv.toPrecision(3))} (below the axis)`
      : `${p.label}: n ${p.n}`,
  }));
  const boxes = placeLabels(pts, plot);
  c.marks.forEach((p, i) => {
    const col = COLOURS[p.series % COLOURS.length]!;
    const { x, y } = pts[i]!;
    const tip = `${p.label}: CV ${p.cv}, n ${p.n}`;
    if (p.clamped) {
      parts.push(
        `<path class="mark clamped ${p.kind}" d="M${f(x - 2)},${f(y)} L${f(x + 8)},${f(y - 6)} L${f(x + 8)},${f(y + 6)} Z" fill="${col}" stroke="#000"><title>${esc(tip)} (below the axis range; drawn at the axis)</title></path>`,
      );
    } else {
      // an observed CV is a hollow ring in its line's colour, a designed one a filled disc
      const fill =
        p.kind === 'observed' ? `fill="#fff" stroke="${col}" stroke-width="2.5"` : `fill="${col}" stroke="#000"`;
      parts.push(
        `<circle class="mark ${p.kind}" cx="${f(x)}" cy="${f(y)}" r="5" ${fill}><title>${esc(tip)}</title></circle>`,
      );
    }
    const b = boxes[i]!;
    const anchorX = b.x > x ? b.x : b.x + b.w;
    if (Math.abs(b.y + b.h / 2 - y) > 1)
      parts.push(
        `<line class="leader" x1="${f(x)}" y1="${f(y)}" x2="${f(anchorX)}" y2="${f(b.y + b.h / 2)}" stroke="#555" stroke-width="0.7"/>`,
      );
    parts.push(
      `<text class="mark-label" x="${f(b.x + 1)}" y="${f(b.y + b.h - 4)}" font-size="${FONT}" data-box="${f(b.x)} ${f(b.y)} ${f(b.w)} ${f(b.h)}">${esc(pts[i]!.text)}</text>`,
    );
  });
  return parts;
}

export function chartSvg(c: ChartData, id: string): string {
  const W = 760;
  const m = { l: 64, r: 190, t: 20, b: 50 };
  const legendRows = c.series.length;
  const H = Math.max(380, m.t + legendRows * 18 + 40 + m.b);
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const [x0, x1] = c.cvRange;
  const yMaxData = Math.max(...c.series.flatMap((s) => s.points.map((p) => p.n)), ...c.marks.map((p) => p.n));
  const yStep = niceStep(yMaxData, 6);
  const y1 = Math.ceil(yMaxData / yStep) * yStep;
  const X = (v: number): number => m.l + ((Math.max(x0, Math.min(x1, v)) - x0) / (x1 - x0)) * pw;
  const Y = (v: number): number => m.t + ph - (v / y1) * ph;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" id="${esc(id)}" class="chart" role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-labelledby="${esc(id)}-title">`,
  );
  parts.push(
    `<title id="${esc(id)}-title">Sample size against CV${c.series.length > 0 ? ` (${c.series.map((s) => s.label).join('; ')})` : ''}</title>`,
  );
  parts.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="#fff" stroke="#999"/>`);
  const xStep = niceStep(x1 - x0, 8);
  for (let v = Math.ceil(x0 / xStep) * xStep; v <= x1 + 1e-9; v += xStep) {
    parts.push(`<line x1="${f(X(v))}" x2="${f(X(v))}" y1="${m.t}" y2="${m.t + ph}" stroke="#eee"/>`);
    parts.push(
      `<text x="${f(X(v))}" y="${m.t + ph + 16}" font-size="11" text-anchor="middle">${Number(v.toFixed(2))}</text>`,
    );
  }
  for (let v = 0; v <= y1 + 1e-9; v += yStep) {
    parts.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${f(Y(v))}" y2="${f(Y(v))}" stroke="#eee"/>`);
    parts.push(`<text x="${m.l - 6}" y="${f(Y(v) + 4)}" font-size="11" text-anchor="end">${v}</text>`);
  }
  parts.push(
    `<text x="${m.l + pw / 2}" y="${H - 10}" font-size="12" text-anchor="middle">coefficient of variation (SD / mean)</text>`,
  );
  parts.push(
    `<text x="16" y="${m.t + ph / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${m.t + ph / 2})">households to sample (95/5, dropout-adjusted)</text>`,
  );
  c.series.forEach((s, i) => {
    const col = COLOURS[i % COLOURS.length]!;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${f(X(p.cv))},${f(Y(p.n))}`).join(' ');
    parts.push(
      `<path class="series" data-population="${s.population}" data-dropout="${s.dropoutRate}" d="${d}" fill="none" stroke="${col}" stroke-width="2"/>`,
    );
    const ly = m.t + 14 + i * 18;
    parts.push(
      `<line x1="${m.l + pw + 12}" x2="${m.l + pw + 32}" y1="${ly - 4}" y2="${ly - 4}" stroke="${col}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${m.l + pw + 38}" y="${ly}" font-size="11">${esc(s.label)}</text>`);
  });
  parts.push(...marksSvg(c, X, Y, { x: m.l, y: m.t, w: pw, h: ph }));
  parts.push('</svg>');
  return parts.join('');
}
