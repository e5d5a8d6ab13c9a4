/**
 * `oraclekit sample report`: flags and the run function. Writes the package
 * (HTML and the same content as JSON) and returns the exit code: 0 when no
 * check failed (or --allow-failed), 10 when something does not recompute,
 * 11 when everything recomputes but some randomness cannot be trusted.
 */
import { Flags } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import { EXIT_CODES } from '../../lib/errors.ts';
import { renderHtml } from '../../lib/report/html.ts';
import { buildReport, type ProjectInput } from '../../lib/report/model.ts';
import { selectionError } from '../../lib/selection/errors.ts';
import type { Io } from '../io.ts';
import { paint } from '../output.ts';
import { loadManifest, loadProject } from './report-inputs.ts';

export const REPORT_FLAGS = {
  manifest: Flags.string({
    char: 'm',
    description: 'A manifest JSON listing several projects (exclusive with --design).',
    exclusive: ['design'],
  }),
  design: Flags.string({
    char: 'd',
    description: 'Design JSON of one project (`sample calc --json` output or a registry record).',
  }),
  'project-id': Flags.string({
    description: 'Project ID (default: the design record\'s projectId, else "project-1").',
  }),
  name: Flags.string({ description: 'Project name shown in the report.' }),
  commitment: Flags.string({ char: 'c', description: 'The selection commitment JSON.' }),
  proof: Flags.string({ char: 'p', description: 'The selection proof JSON.' }),
  selection: Flags.string({
    char: 's',
    description:
      'selection.csv: its order, tickets and frameHash are re-checked, and the replacement order is included.',
  }),
  frame: Flags.string({
    char: 'f',
    description: 'The household frame CSV: the full verification of `sample verify` is run too.',
  }),
  'published-at': Flags.string({
    description:
      'When the commitment was published (ISO 8601 with a time zone): the randomness is trusted only if the round came after it.',
  }),
  'seed-hex': Flags.string({
    description: 'If the verifier performed the selection itself: its randomness (the proof must use exactly it).',
  }),
  observations: Flags.string({
    description: 'Baseline or monitoring observations CSV: household,value[,stratum] (as for `sample recalc`).',
  }),
  'observations-kind': Flags.string({
    description: 'What the observations are.',
    options: ['baseline', 'monitoring'],
    default: 'baseline',
  }),
  'mean-justification': Flags.string({ description: 'Why the expected mean is what it is (text).' }),
  'sd-calculation': Flags.string({ description: 'How the expected SD was obtained (text).' }),
  source: Flags.string({ description: 'A source, "label|citation|url" (repeatable).', multiple: true }),
  title: Flags.string({ description: 'Report title.' }),
  out: Flags.string({
    char: 'o',
    description: 'HTML file to write; the JSON goes beside it with .json.',
    default: 'verifier-package.html',
  }),
  'allow-failed': Flags.boolean({
    description: 'Exit 0 even when checks failed (they are still shown, in red, at the top of the package).',
    default: false,
  }),
};

export interface ReportFlags {
  manifest?: string;
  design?: string;
  'project-id'?: string;
  name?: string;
  commitment?: string;
  proof?: string;
  selection?: string;
  frame?: string;
  'published-at'?: string;
  'seed-hex'?: string;
  observations?: string;
  'observations-kind': string;
  'mean-justification'?: string;
  'sd-calculation'?: string;
  source?: string[];
  title?: string;
  out: string;
  'allow-failed': boolean;
  json: boolean;
}

export async function runReport(flags: ReportFlags, io: Io): Promise<number> {
  let title = flags.title;
  let projects: ProjectInput[];
  if (flags.manifest) {
    const m = loadManifest(flags.manifest);
    projects = m.projects;
    title ??= m.title;
  } else {
    if (!flags.design)
      throw selectionError(
        'invalid_manifest',
        '--design',
        undefined,
        '--design FILE (one project) or --manifest FILE (several)',
      );
    const p = loadProject({
      projectId: flags['project-id'] ?? 'project-1',
      design: flags.design,
      ...(flags.name ? { name: flags.name } : {}),
      ...(flags.commitment ? { commitment: flags.commitment } : {}),
      ...(flags.proof ? { proof: flags.proof } : {}),
      ...(flags.selection ? { selection: flags.selection } : {}),
      ...(flags.frame ? { frame: flags.frame } : {}),
      ...(flags['published-at'] ? { publishedAt: flags['published-at'] } : {}),
      ...(flags['seed-hex'] ? { seedHex: flags['seed-hex'] } : {}),
      ...(flags.observations
        ? {
            observations: flags.observations,
            observationsKind: flags['observations-kind'] as 'baseline' | 'monitoring',
          }
        : {}),
      ...(flags['mean-justification'] ? { meanJustification: flags['mean-justification'] } : {}),
      ...(flags['sd-calculation'] ? { sdCalculation: flags['sd-calculation'] } : {}),
      ...(flags.source ? { sources: flags.source } : {}),
    });
    const recordProject = (p.design as { projectId?: unknown }).projectId;
    if (!flags['project-id'] && typeof recordProject === 'string') p.projectId = recordProject;
    projects = [p];
  }
  const report = await buildReport({ ...(title ? { title } : {}), generatedAt: new Date(), projects });
  const jsonPath = flags.out.replace(/\.html?$/i, '') + '.json';
  writeFileSync(flags.out, renderHtml(report));
  writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
  const integrity = report.failures.some((f) => f.kind === 'integrity');
  const code =
    report.failures.length === 0 || flags['allow-failed']
      ? 0
      : integrity
        ? EXIT_CODES.verificationFailed
        : EXIT_CODES.untrusted;
  if (flags.json) {
    io.outJson(report);
  } else {
    io.out(
      `${paint.bold("Verifier's package")}: ${report.projects.length} project${report.projects.length === 1 ? '' : 's'}`,
    );
    for (const p of report.projects) {
      const sel = p.selection
        ? p.selection.proof
          ? `selection drawn (seed ${p.selection.proof.seed.slice(0, 12)})`
          : 'committed, not drawn'
        : 'no selection';
      io.out(
        `  ${p.name}: n = ${p.parameters.adjustedSize} of N = ${p.parameters.population}, ER coverage ${p.erCoverage.percent}; ${sel}; ${p.verdict}`,
      );
      for (const f of p.findings.filter((x) => x.severity === 'warning'))
        io.out(paint.yellow(`    warning: ${f.message}`));
    }
    io.out(`Wrote ${flags.out} and ${jsonPath}.`);
  }
  if (report.failures.length > 0) {
    const lines = report.failures.map(
      (f) => `${paint.red(f.kind === 'trust' ? 'UNTRUSTED' : 'FAILED')} ${f.projectId} [${f.check}] ${f.message}`,
    );
    lines.push(
      flags['allow-failed']
        ? `${report.failures.length} check(s) failed; shown in red at the top of the package (--allow-failed: exit 0).`
        : `${report.failures.length} check(s) failed; shown in red at the top of the package. Exit ${code}${'; --allow-failed to exit 0'}.`,
    );
    process.stderr.write(lines.join('\n') + '\n');
  }
  return code;
}
