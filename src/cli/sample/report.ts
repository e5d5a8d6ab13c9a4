/**
 * `oraclekit sample report`: flags and the run function. Writes the package
 * (HTML and the same content as JSON) and returns the exit code: 0 when no
 * check failed (or --allow-failed), 10 when something does not recompute,
 * 11 when everything recomputes but some randomness cannot be trusted.
 */
import { writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { EXIT_CODES } from '../../lib/errors.ts';
import { renderHtml } from '../../lib/report/html.ts';
import { buildReport, type Report } from '../../lib/report/model.ts';
import type { ProjectInput } from '../../lib/report/inputs.ts';
import { selectionError } from '../../lib/selection/errors.ts';
import type { Io } from '../io.ts';
import { paint } from '../output.ts';
import type { ReportFlags } from './flags.ts';
import { loadManifest, loadProject } from './report-inputs.ts';

/** One project from the flags; its ID is --project-id, else the design record's projectId, else project-1. */
function projectFromFlags(flags: ReportFlags): ProjectInput {
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
          signed: flags.signed,
          includeUndrawn: flags['include-undrawn'],
        }
      : {}),
    ...(flags['mean-justification'] ? { meanJustification: flags['mean-justification'] } : {}),
    ...(flags['sd-calculation'] ? { sdCalculation: flags['sd-calculation'] } : {}),
    ...(flags.source ? { sources: flags.source } : {}),
  });
  const recordProject = (p.design as { projectId?: unknown }).projectId;
  if (!flags['project-id'] && typeof recordProject === 'string') p.projectId = recordProject;
  return p;
}

/** One line per project (sizes, ER coverage, selection, verdict) and its warnings. */
function printSummary(report: Report, io: Io): void {
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
}

export async function runReport(flags: ReportFlags, io: Io): Promise<number> {
  let title = flags.title;
  let projects: ProjectInput[];
  if (flags.manifest) {
    const m = loadManifest(flags.manifest);
    projects = m.projects;
    title ??= m.title;
  } else {
    projects = [projectFromFlags(flags)];
  }
  const report = await buildReport({ ...(title ? { title } : {}), generatedAt: new Date(), projects });
  const jsonPath = flags.out.replace(/\.html?$/i, '') + '.json';
  // input files are named relative to the package, where `sample check` looks for them
  for (const p of report.projects)
    for (const f of p.inputs.files) f.path = relative(dirname(resolve(jsonPath)), resolve(f.path)) || f.path;
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
    printSummary(report, io);
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
