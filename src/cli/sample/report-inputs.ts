/**
 * Reading the report's inputs: the observations CSV (household,value[,stratum],
 * as for `sample recalc`) and the manifest of projects (paths relative to
 * the manifest). Errors name the file and line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { z } from 'zod';
import { parseObservationsCsv } from '../../lib/sampling/recalc.ts';
import { selectionError } from '../../lib/selection/errors.ts';
import { readJsonFile } from './files.ts';
import { parseCommitment, parseProof } from '../../lib/selection/records.ts';
import { parseSeedHex } from '../../lib/selection/workflow.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { parseSource, type InputFile, type ProjectInput, type Source } from '../../lib/report/inputs.ts';
import type { Observation } from '../../lib/report/observations.ts';
import { parsePublishedAt } from './files.ts';

/** The observations CSV, read by the sampling area's parser (the same format as `sample recalc`). */
function readObservations(path: string, signed: boolean): Observation[] {
  if (!existsSync(path))
    throw selectionError('file_not_found', 'observations', path, 'a CSV household,value[,stratum]');
  return parseObservationsCsv(readFileSync(path, 'utf8'), basename(path), { signed }).map((o) =>
    o.stratum !== undefined
      ? { household: o.household, value: o.value, stratum: o.stratum }
      : { household: o.household, value: o.value },
  );
}

const SourceSchema = z.union([
  z.string().min(1),
  z.object({ label: z.string().min(1), citation: z.string().optional(), url: z.string().optional() }),
]);

const ManifestSchema = z.object({
  title: z.string().optional(),
  projects: z
    .array(
      z.object({
        projectId: z.string().min(1),
        name: z.string().optional(),
        design: z.string().min(1),
        commitment: z.string().optional(),
        proof: z.string().optional(),
        selection: z.string().optional(),
        frame: z.string().optional(),
        publishedAt: z.string().optional(),
        seedHex: z.string().optional(),
        observations: z.string().optional(),
        observationsKind: z.enum(['baseline', 'monitoring']).optional(),
        signed: z.boolean().optional(),
        includeUndrawn: z.boolean().optional(),
        meanJustification: z.string().optional(),
        sdCalculation: z.string().optional(),
        sources: z.array(SourceSchema).optional(),
      }),
    )
    .min(1),
});

interface ProjectFiles {
  projectId: string;
  name?: string;
  design: string;
  commitment?: string;
  proof?: string;
  selection?: string;
  frame?: string;
  publishedAt?: string;
  seedHex?: string;
  observations?: string;
  observationsKind?: 'baseline' | 'monitoring';
  signed?: boolean;
  /** Monitoring observations of undrawn frame households count too (recorded in the package). */
  includeUndrawn?: boolean;
  meanJustification?: string;
  sdCalculation?: string;
  sources?: (string | Source)[];
  /** The manifest the paths came from. */
  manifest?: string;
  /** The paths as the manifest writes them (before they were resolved against its folder). */
  shown?: Partial<Record<'design' | 'commitment' | 'proof' | 'selection' | 'frame' | 'observations', string>>;
}

/** How an error names a project's file: its flag, or the manifest entry that names it. */
const named = (f: ProjectFiles, role: 'design' | 'commitment' | 'proof'): string =>
  f.manifest ? `${f.manifest}: project ${JSON.stringify(f.projectId)} ${role}` : `--${role}`;

/** Loads one project's files into a ProjectInput. */
export function loadProject(f: ProjectFiles): ProjectInput {
  const p: ProjectInput = {
    projectId: f.projectId,
    design: readJsonFile(f.design, named(f, 'design'), 'the JSON of `sample calc --json` or a registry record'),
  };
  if (f.name) p.name = f.name;
  if (f.commitment)
    p.commitment = parseCommitment(
      readJsonFile(f.commitment, named(f, 'commitment'), 'a commitment of `sample select commit`'),
      f.commitment,
    );
  if (f.proof)
    p.proof = parseProof(readJsonFile(f.proof, named(f, 'proof'), 'a proof of `sample select draw`'), f.proof);
  if (f.selection) {
    if (!existsSync(f.selection))
      throw selectionError(
        'file_not_found',
        'selection',
        f.selection,
        'the selection.csv written by `sample select draw`',
      );
    p.selectionPath = f.selection;
  }
  if (f.frame) {
    if (!existsSync(f.frame))
      throw selectionError('file_not_found', 'frame', f.frame, 'the household frame CSV the commitment was made on');
    p.framePath = f.frame;
  }
  const publishedAt = parsePublishedAt(f.publishedAt, `${f.projectId}: publishedAt`);
  if (publishedAt) p.publishedAt = publishedAt;
  if (f.seedHex !== undefined) p.seedHex = parseSeedHex(f.seedHex);
  // the sha256 of every input file, as read, for `sample check`
  p.inputFiles = [];
  for (const role of ['design', 'commitment', 'proof', 'selection', 'frame', 'observations'] as const) {
    const path = f[role];
    if (path && existsSync(path))
      p.inputFiles.push({ role, path, sha256: sha256Hex(readFileSync(path)) } satisfies InputFile);
  }
  // the commands of the package name the paths as they were given (a manifest's as it writes them)
  const shown = f.shown ?? f;
  p.files = { design: shown.design };
  for (const k of ['commitment', 'proof', 'selection', 'frame', 'observations'] as const)
    if (shown[k]) p.files[k] = shown[k];
  if (f.manifest) p.files.manifest = f.manifest;
  if (f.observations)
    p.observations = {
      kind: f.observationsKind ?? 'baseline',
      file: basename(f.observations),
      values: readObservations(f.observations, f.signed === true),
      ...(f.includeUndrawn ? { includeUndrawn: true } : {}),
    };
  if (f.meanJustification) p.meanJustification = f.meanJustification;
  if (f.sdCalculation) p.sdCalculation = f.sdCalculation;
  if (f.sources) p.sources = f.sources.map((s) => (typeof s === 'string' ? parseSource(s) : s));
  return p;
}

export function loadManifest(path: string): { title?: string; projects: ProjectInput[] } {
  const raw = readJsonFile(
    path,
    '--manifest',
    'a report manifest {title?, projects: [{projectId, design, commitment?, proof?, observations?, ...}]}',
  );
  const r = ManifestSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw selectionError(
      'invalid_manifest',
      `${path}:${i.path.join('.')}`,
      undefined,
      '{title?, projects: [{projectId, design, commitment?, proof?, selection?, frame?, publishedAt?, seedHex?, observations?, observationsKind?, includeUndrawn?, meanJustification?, sdCalculation?, sources?}]}',
      {
        message: `${path}: ${i.path.join('.') || '(root)'}: ${i.message}; valid: {title?, projects: [{projectId, design, commitment?, proof?, observations?, ...}]} with paths relative to the manifest`,
      },
    );
  }
  const base = dirname(path);
  const rel = (x: string | undefined): string | undefined => (x === undefined ? undefined : resolve(base, x));
  const projects = r.data.projects.map((p) => {
    const shown: ProjectFiles['shown'] = { design: p.design };
    const files: ProjectFiles = { ...p, design: rel(p.design)!, manifest: path, shown };
    for (const k of ['commitment', 'proof', 'observations', 'selection', 'frame'] as const) {
      const v = rel(p[k]);
      if (v !== undefined) {
        files[k] = v;
        shown[k] = p[k]!;
      } else delete files[k];
    }
    return loadProject(files);
  });
  return r.data.title !== undefined ? { title: r.data.title, projects } : { projects };
}
