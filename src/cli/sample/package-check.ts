/**
 * `sample check`: reads a verifier's package back and re-derives it. Every input file the package names must
 * still have the sha256 it records (the selection and the frame must be there; the design, commitment, proof and
 * observations are carried in the package, and a file of theirs that is present must be what the package carries);
 * then the project is rebuilt from what the package carries — the design, the commitment with the chain's public
 * key, the proof with the beacon's round and signature (the BLS check and randomness = sha256(signature) run
 * again), the observations' rows — and every number, check and finding is compared with the package's. The first
 * statement that differs is named, with both values.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sha256Hex } from '../../lib/hash.ts';
import { parseObservationsCsv } from '../../lib/sampling/recalc.ts';
import { selectionError } from '../../lib/selection/errors.ts';
import { buildReport, type ProjectReport, type Report } from '../../lib/report/model.ts';
import type { ProjectInput } from '../../lib/report/inputs.ts';

export interface PackageCheck {
  ok: boolean;
  /** Statements compared (input files, then every value of every project). */
  checked: number;
  /** The first statement that does not hold. */
  differs?: { project: string; statement: string; package: unknown; recomputed: unknown; message: string };
}

/** Keys that say when and by what the package was made, not what it states. */
const NOT_STATEMENTS = new Set(['generatedAt', 'generator', 'inputs']);
/** Keys that name an element of an array, so a statement reads "stats[biomass]", not "stats[1]". */
const LABELS = ['check', 'projectId', 'group', 'stratum', 'name', 'label', 'role', 'household'];

const show = (v: unknown): string => {
  const t = JSON.stringify(v);
  return t === undefined ? 'nothing' : t.length > 160 ? `${t.slice(0, 157)}…` : t;
};

function label(x: unknown, i: number): string {
  if (x && typeof x === 'object')
    for (const k of LABELS) {
      const v = (x as Record<string, unknown>)[k];
      if (typeof v === 'string') return v;
    }
  return String(i);
}

/** The first difference between two JSON values, as [path, package value, recomputed value], or null. */
export function firstDifference(a: unknown, b: unknown, path = ''): [string, unknown, unknown] | null {
  if (Object.is(a, b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${label(b[i], i)}]`);
      if (d) return d;
    }
    if (a.length !== b.length)
      return a.length > b.length
        ? [`${path}[${label(a[b.length], b.length)}]`, a[b.length], undefined]
        : [`${path}[${label(b[a.length], a.length)}]`, undefined, b[a.length]];
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
    for (const k of keys) {
      if (path === '' && NOT_STATEMENTS.has(k)) continue;
      const d = firstDifference(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        path ? `${path}.${k}` : k,
      );
      if (d) return d;
    }
    return null;
  }
  return [path, a, b];
}

function invalid(path: string, why: string): never {
  throw selectionError('invalid_verifier_package', path, undefined, 'the package.json written by `sample report`', {
    message: `${path}: ${why}; valid: the package.json written by \`sample report\` (kind "oraclekit/verifier-package", version 2)`,
  });
}

/** The project as the package carries it, its files resolved against the package's folder. */
function projectInput(p: ProjectReport, base: string, path: string): ProjectInput {
  const i = p.inputs;
  if (!i || typeof i !== 'object' || i.design === undefined)
    invalid(path, `project ${p.projectId} carries no inputs (a package written before inputs were carried)`);
  const file = (role: string) => i.files.find((f) => f.role === role);
  const out: ProjectInput = { projectId: p.projectId, design: i.design, inputFiles: i.files };
  if (i.name !== null) out.name = i.name;
  if (i.commitment) out.commitment = i.commitment;
  if (i.proof) out.proof = i.proof;
  const sel = file('selection');
  if (sel) out.selectionPath = resolve(base, sel.path);
  const frame = file('frame');
  if (frame) out.framePath = resolve(base, frame.path);
  if (i.shown) out.files = i.shown;
  if (i.publishedAt) out.publishedAt = new Date(i.publishedAt);
  if (i.seedHex !== null) out.seedHex = i.seedHex;
  if (i.observations) out.observations = i.observations;
  if (i.meanJustification !== null) out.meanJustification = i.meanJustification;
  if (i.sdCalculation !== null) out.sdCalculation = i.sdCalculation;
  if (i.sources.length > 0) out.sources = i.sources;
  return out;
}

/**
 * Each input file the project names: present with the recorded sha256 (the selection and the frame must be
 * present); a carried file that is present must be what the package carries. The first that does not hold, or null.
 */
function fileStatement(p: ProjectReport, input: ProjectInput, base: string): PackageCheck['differs'] | null {
  for (const f of p.inputs.files) {
    const at = resolve(base, f.path);
    const statement = `input file ${f.role}`;
    if (!existsSync(at)) {
      if (f.role === 'selection' || f.role === 'frame')
        return {
          project: p.projectId,
          statement,
          package: f.sha256,
          recomputed: null,
          message: `${f.path} is not there (looked in the package's folder): the package's checks of it cannot be re-derived`,
        };
      continue;
    }
    const bytes = readFileSync(at);
    const sha = sha256Hex(bytes);
    if (sha !== f.sha256)
      return {
        project: p.projectId,
        statement,
        package: f.sha256,
        recomputed: sha,
        message: `${f.path} has sha256 ${sha}, the package records ${f.sha256}: the file is not the one the package was made from`,
      };
    const text = bytes.toString('utf8');
    const inFile =
      f.role === 'observations'
        ? parseObservationsCsv(text, f.path, { signed: true }).map((o) => ({
            household: o.household,
            value: o.value,
            ...(o.stratum !== undefined ? { stratum: o.stratum } : {}),
          }))
        : f.role === 'design' || f.role === 'commitment' || f.role === 'proof'
          ? (JSON.parse(text) as unknown)
          : undefined;
    const carried =
      f.role === 'observations'
        ? input.observations?.values
        : f.role === 'design'
          ? input.design
          : f.role === 'commitment'
            ? input.commitment
            : input.proof;
    const d = inFile === undefined ? null : firstDifference(JSON.parse(JSON.stringify(carried ?? null)), inFile);
    if (d)
      return {
        project: p.projectId,
        statement: `inputs.${f.role}${d[0] ? `.${d[0]}` : ''}`.replace('.[', '['),
        package: d[1],
        recomputed: d[2],
        message: `the package carries ${show(d[1])} where ${f.path}, whose sha256 the package records, has ${show(d[2])}`,
      };
  }
  return null;
}

/** Reads the package at `path`, re-derives every project and returns the first statement that does not hold. */
export async function checkVerifierPackage(path: string): Promise<PackageCheck> {
  if (!existsSync(path))
    throw selectionError('file_not_found', 'package', path, 'the package.json written by `sample report`');
  let pkg: Report;
  try {
    pkg = JSON.parse(readFileSync(path, 'utf8')) as Report;
  } catch (e) {
    invalid(path, `not JSON (${(e as Error).message})`);
  }
  if (pkg?.kind !== 'oraclekit/verifier-package' || pkg.version !== 2 || !Array.isArray(pkg.projects))
    invalid(path, `kind ${show(pkg?.kind)}, version ${show(pkg?.version)}`);
  const base = dirname(resolve(path));
  let checked = 0;
  const projects: ProjectInput[] = [];
  for (const p of pkg.projects) {
    const input = projectInput(p, base, path);
    const bad = fileStatement(p, input, base);
    checked += p.inputs.files.length;
    if (bad) return { ok: false, checked, differs: bad };
    projects.push(input);
  }
  // through JSON, as the package was written (NaN as null, undefined members left out)
  const again = JSON.parse(
    JSON.stringify(await buildReport({ title: pkg.title, generatedAt: new Date(pkg.generatedAt), projects })),
  ) as Report;
  // the rebuilt input files carry the paths as they were read; the package's are relative to it
  for (const [i, p] of again.projects.entries()) p.inputs = pkg.projects[i]!.inputs;
  const d = firstDifference(pkg, again);
  checked += 1;
  if (!d) return { ok: true, checked };
  const [where, was, is] = d;
  const m = /^projects\[([^\]]+)\]\.?(.*)$/.exec(where);
  const project = m ? m[1]! : '';
  const statement = m ? m[2]! || 'project' : where;
  return {
    ok: false,
    checked,
    differs: {
      project,
      statement,
      package: was,
      recomputed: is,
      message: `${statement}: the package states ${show(was)}, recomputed from its inputs ${show(is)}`,
    },
  };
}
