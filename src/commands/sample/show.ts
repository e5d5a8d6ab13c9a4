import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';

export interface DesignOut {
  designId: string;
  projectId: string;
  version: number;
  previousDesignId: string | null;
  parameters: { population: number; calculatedSize: number; adjustedSize: number; dropoutRate: number; erCoverage: number; erCoverageSource: string };
  stratification: { method: string; strata: { name: string; population: number; sampleSize: number }[] };
  verification: { status: string; verifier: string | null; timestamp: string | null };
  change?: { direction: string; by: number; previousAdjustedSize: number };
  createdAt: string;
}

export function printDesign(d: DesignOut): void {
  const p = d.parameters;
  const lines = [
    `${d.designId} (version ${d.version}${d.previousDesignId ? `, after ${d.previousDesignId}` : ''})`,
    `  project       ${d.projectId}`,
    `  sizes         calculated ${p.calculatedSize}, adjusted ${p.adjustedSize} of N ${p.population} (dropout ${p.dropoutRate}; erCoverage ${p.erCoverage} from ${p.erCoverageSource})`,
    `  verification  ${d.verification.status}${d.verification.verifier ? ` by ${d.verification.verifier} at ${d.verification.timestamp}` : ''}`,
  ];
  if (d.change) lines.push(`  change        ${d.change.direction} by ${d.change.by} (was ${d.change.previousAdjustedSize})`);
  for (const s of d.stratification.strata ?? []) lines.push(`  stratum       ${s.name}: N ${s.population}, n ${s.sampleSize}`);
  process.stdout.write(lines.join('\n') + '\n');
}

export default class SampleShow extends BaseCommand {
  static override summary = 'Show a stored sample design (from the registry).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> sample show 0f6c1e2a-…', '<%= config.bin %> sample show 0f6c1e2a-… --json'];
  static override args = { designId: Args.string({ description: 'The design id.', required: true }) };
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SampleShow);
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<DesignOut>('GET', `/v1/sampling/${encodeURIComponent(args.designId)}`, undefined, clientOptions(flags));
    if (flags.json) this.outJson(r.body);
    else printDesign(r.body);
  }
}
