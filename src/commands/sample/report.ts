import { Flags } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import { BaseCommand } from '../../cli/base.ts';
import { paint } from '../../cli/output.ts';
import { buildReport, type ProjectInput } from '../../lib/report/model.ts';
import { renderHtml } from '../../lib/report/html.ts';
import { loadManifest, loadProject } from '../../lib/report/inputs.ts';
import { selectionError } from '../../lib/selection/errors.ts';

export default class SampleReport extends BaseCommand {
  static override summary = 'The verifier\'s package: designs, ER coverage, supporting data, selection commitment and proof, and a chart — as self-contained HTML and JSON.';
  static override description =
    'One project from flags, or several from a manifest JSON ({title?, projects: [{projectId, name?, design, commitment?, proof?, ' +
    'observations?, observationsKind?, meanJustification?, sdCalculation?, sources?}]}, paths relative to the manifest). ' +
    'Writes --out (HTML, printable, chart as inline SVG) and the same content as JSON beside it (same name, .json). See docs/selection.md.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> sample report --design design.json --commitment commitment.json --proof selection/proof.json --observations baseline.csv --mean-justification "Baseline KPT, 2025, 60 households" --source "Baseline KPT 2025|Field report, annex 3" --out package.html',
    '<%= config.bin %> sample report --manifest projects.json --out package.html',
    '<%= config.bin %> sample report --manifest projects.json --out package.html --json > package.json',
  ];
  static override flags = {
    manifest: Flags.string({ char: 'm', description: 'A manifest JSON listing several projects (exclusive with --design).', exclusive: ['design'] }),
    design: Flags.string({ char: 'd', description: 'Design JSON of one project (`sample calc --json` output or a registry record).' }),
    'project-id': Flags.string({ description: 'Project ID (default: the design record\'s projectId, else "project-1").' }),
    name: Flags.string({ description: 'Project name shown in the report.' }),
    commitment: Flags.string({ char: 'c', description: 'The selection commitment JSON.' }),
    proof: Flags.string({ char: 'p', description: 'The selection proof JSON.' }),
    observations: Flags.string({ description: 'Baseline or monitoring observations CSV: household,value[,stratum] (as for `sample recalc`).' }),
    'observations-kind': Flags.string({ description: 'What the observations are.', options: ['baseline', 'monitoring'], default: 'baseline' }),
    'mean-justification': Flags.string({ description: 'Why the expected mean is what it is (text).' }),
    'sd-calculation': Flags.string({ description: 'How the expected SD was obtained (text).' }),
    source: Flags.string({ description: 'A source, "label|citation|url" (repeatable).', multiple: true }),
    title: Flags.string({ description: 'Report title.' }),
    out: Flags.string({ char: 'o', description: 'HTML file to write; the JSON goes beside it with .json.', default: 'verifier-package.html' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleReport);
    let title = flags.title;
    let projects: ProjectInput[];
    if (flags.manifest) {
      const m = loadManifest(flags.manifest);
      projects = m.projects;
      title ??= m.title;
    } else {
      if (!flags.design) throw selectionError('invalid_manifest', '--design', undefined, '--design FILE (one project) or --manifest FILE (several)');
      const p = loadProject({
        projectId: flags['project-id'] ?? 'project-1',
        design: flags.design,
        ...(flags.name ? { name: flags.name } : {}),
        ...(flags.commitment ? { commitment: flags.commitment } : {}),
        ...(flags.proof ? { proof: flags.proof } : {}),
        ...(flags.observations ? { observations: flags.observations, observationsKind: flags['observations-kind'] as 'baseline' | 'monitoring' } : {}),
        ...(flags['mean-justification'] ? { meanJustification: flags['mean-justification'] } : {}),
        ...(flags['sd-calculation'] ? { sdCalculation: flags['sd-calculation'] } : {}),
        ...(flags.source ? { sources: flags.source } : {}),
      });
      const recordProject = (p.design as { projectId?: unknown }).projectId;
      if (!flags['project-id'] && typeof recordProject === 'string') p.projectId = recordProject;
      projects = [p];
    }
    const report = buildReport({ ...(title ? { title } : {}), generatedAt: new Date(), projects });
    const jsonPath = flags.out.replace(/\.html?$/i, '') + '.json';
    writeFileSync(flags.out, renderHtml(report));
    writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
    if (flags.json) {
      this.outJson(report);
      return;
    }
    this.out(`${paint.bold('Verifier\'s package')}: ${report.projects.length} project${report.projects.length === 1 ? '' : 's'}`);
    for (const p of report.projects) {
      const sel = p.selection ? (p.selection.proof ? `selection drawn (seed ${p.selection.proof.seed.slice(0, 12)})` : 'committed, not drawn') : 'no selection';
      this.out(`  ${p.name}: n = ${p.parameters.adjustedSize} of N = ${p.parameters.population}, ER coverage ${p.parameters.erCoverage}; ${sel}`);
    }
    this.out(`Wrote ${flags.out} and ${jsonPath}.`);
  }
}
