import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';
import { textTable } from '../../cli/output.ts';
import type { DesignOut } from './show.ts';

export default class SampleList extends BaseCommand {
  static override summary = 'List stored sample designs (paged), optionally of one project.';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> sample list', '<%= config.bin %> sample list --project did:ixo:entity:... --json'];
  static override flags = {
    project: Flags.string({ description: 'Only designs of this project DID.' }),
    limit: Flags.integer({ description: 'Page size (1..200).', default: 50 }),
    cursor: Flags.string({ description: 'nextCursor of the previous page.' }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleList);
    const q = new URLSearchParams({ limit: String(flags.limit) });
    if (flags.project) q.set('projectId', flags.project);
    if (flags.cursor) q.set('cursor', flags.cursor);
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<{ items: DesignOut[]; nextCursor: string | null }>('GET', `/v1/sampling?${q}`, undefined, clientOptions(flags));
    if (flags.json) return this.outJson(r.body);
    this.out(textTable(['designId', 'version', 'project', 'adjustedSize', 'status'], r.body.items.map((d) => [d.designId, d.version, d.projectId, d.parameters.adjustedSize, d.verification.status])));
    if (r.body.nextCursor) this.out(`more: --cursor ${r.body.nextCursor}`);
  }
}
