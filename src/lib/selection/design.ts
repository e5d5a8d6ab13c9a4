/**
 * The design a selection draws from: the output of `sample calc --json`, a
 * registry record (the same parameters/stratification plus designId,
 * projectId, version), or a calc input (computed here with computeDesign).
 * An unstratified design is one stratum "all" with n = parameters.adjustedSize.
 *
 * designId: the record's designId when present; otherwise
 * "sha256:" + SHA-256 of the canonical JSON (sorted keys, no whitespace) of
 * {parameters, stratification}.
 */
import { computeDesign, type Design } from '../sampling/design.ts';
import { selectionError } from './errors.ts';
import { canonicalJson, sha256Hex } from './hash.ts';
import { UNSTRATIFIED } from './frame.ts';

export interface SelectionDesign {
  designId: string;
  designIdSource: 'record' | 'sha256(canonical {parameters, stratification})';
  projectId?: string;
  version?: number;
  parameters: Design['parameters'];
  stratification: Design['stratification'];
  /** The strata the frame is drawn in, with n_h. */
  strata: { name: string; designPopulation: number; sampleSize: number }[];
  stratified: boolean;
}

const hasControl = (s: string): boolean => [...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export function designIdOf(parameters: unknown, stratification: unknown): string {
  return 'sha256:' + sha256Hex(canonicalJson({ parameters, stratification }));
}

export function loadDesign(raw: unknown, source = 'design'): SelectionDesign {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw selectionError('invalid_design', source, raw, 'the JSON of `oraclekit sample calc --json`, a registry design record, or a calc input');
  }
  let o = raw as Record<string, unknown>;
  if (o.parameters === undefined) {
    // a calc input ({population, expectedMean, expectedSD, dropoutRate, ...}): compute it
    const { projectId: _p, ...input } = o;
    o = computeDesign(input) as unknown as Record<string, unknown>;
  }
  const p = o.parameters as Record<string, unknown> | undefined;
  const st = o.stratification as Record<string, unknown> | undefined;
  if (typeof p !== 'object' || p === null) throw selectionError('invalid_design', `${source}.parameters`, p, 'an object with adjustedSize and population');
  if (!isInt(p.adjustedSize) || p.adjustedSize < 1) throw selectionError('invalid_design', `${source}.parameters.adjustedSize`, p.adjustedSize, 'an integer >= 1');
  if (!isInt(p.population) || p.population < 1) throw selectionError('invalid_design', `${source}.parameters.population`, p.population, 'an integer >= 1');
  const method = st?.method ?? 'none';
  if (method !== 'none' && method !== 'proportional') throw selectionError('invalid_design', `${source}.stratification.method`, method, '"none" or "proportional"');
  const strataRaw = Array.isArray(st?.strata) ? (st.strata as Record<string, unknown>[]) : [];
  let strata: SelectionDesign['strata'];
  if (method === 'none' || strataRaw.length === 0) {
    strata = [{ name: UNSTRATIFIED, designPopulation: p.population, sampleSize: p.adjustedSize }];
  } else {
    strata = strataRaw.map((s, i) => {
      const f = `${source}.stratification.strata[${i}]`;
      if (typeof s?.name !== 'string' || s.name.trim() === '' || hasControl(s.name)) throw selectionError('invalid_design', `${f}.name`, s?.name, 'a non-empty stratum name without control characters');
      if (!isInt(s.sampleSize) || s.sampleSize < 1) throw selectionError('invalid_design', `${f}.sampleSize`, s.sampleSize, 'an integer >= 1');
      if (!isInt(s.population) || s.population < 1) throw selectionError('invalid_design', `${f}.population`, s.population, 'an integer >= 1');
      return { name: s.name.trim(), designPopulation: s.population, sampleSize: s.sampleSize };
    });
    const seen = new Set<string>();
    strata.forEach((s, i) => {
      const k = s.name.toLowerCase();
      if (seen.has(k)) throw selectionError('invalid_design', `${source}.stratification.strata[${i}].name`, s.name, 'unique stratum names (trim and case-fold)');
      seen.add(k);
    });
  }
  const parameters = p as unknown as Design['parameters'];
  const stratification = (st ?? { method: 'none', strata: [] }) as unknown as Design['stratification'];
  const fromRecord = typeof o.designId === 'string' && o.designId.trim() !== '';
  const out: SelectionDesign = {
    designId: fromRecord ? (o.designId as string) : designIdOf(parameters, stratification),
    designIdSource: fromRecord ? 'record' : 'sha256(canonical {parameters, stratification})',
    parameters,
    stratification,
    strata,
    stratified: method === 'proportional' && strataRaw.length > 0,
  };
  if (typeof o.projectId === 'string') out.projectId = o.projectId;
  if (isInt(o.version)) out.version = o.version;
  return out;
}
