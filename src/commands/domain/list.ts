import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';
import { textTable } from '../../cli/output.ts';
import type { DomainOut } from '../../cli/registry-client.ts';

export default class DomainList extends BaseCommand {
  static override summary = 'List domains, filtered, one page at a time (--cursor for the next).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> domain list', '<%= config.bin %> domain list --type Project --status verified', '<%= config.bin %> domain list --q stoves --limit 10 --json'];
  static override flags = {
    type: Flags.string({ description: 'Only this type.' }),
    status: Flags.string({ description: 'Only this state (registered, pending_verification, verified, verification_rejected, deactivated).' }),
    controller: Flags.string({ description: 'Only domains this DID controls.' }),
    class: Flags.string({ description: 'Only domains of this Protocol class.' }),
    q: Flags.string({ description: 'Search in name and alsoKnownAs.' }),
    limit: Flags.integer({ description: 'Page size (1..200).', default: 50 }),
    cursor: Flags.string({ description: 'nextCursor of the previous page.' }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DomainList);
    const q = new URLSearchParams();
    for (const k of ['type', 'status', 'controller', 'class', 'q', 'cursor'] as const) if (flags[k]) q.set(k, flags[k]!);
    q.set('limit', String(flags.limit));
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<{ items: DomainOut[]; nextCursor: string | null }>('GET', `/v1/domains?${q}`, undefined, clientOptions(flags));
    if (flags.json) return this.outJson(r.body);
    this.out(textTable(['did', 'type', 'state', 'eligible', 'name'], r.body.items.map((d) => [d.id, d.type, d.state, d.eligible ? 'yes' : 'no', String(d.metadata?.name ?? '')])));
    if (r.body.nextCursor) this.out(`more: --cursor ${r.body.nextCursor}`);
  }
}
