import { BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { formatDomainPage } from '../../cli/registry/print.ts';

export default class DomainList extends BaseCommand {
  static override summary = 'List domains, filtered, one page at a time (--cursor for the next).';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> domain list',
    '<%= config.bin %> domain list --type Project --status verified',
    '<%= config.bin %> domain list --q stoves --limit 10 --json',
  ];
  static override flags = toOclifFlags({
    type: { type: 'string', description: 'Only this type.' },
    status: {
      type: 'string',
      description: 'Only this state (registered, pending_verification, verified, verification_rejected, deactivated).',
    },
    controller: { type: 'string', description: 'Only domains this DID controls.' },
    class: { type: 'string', description: 'Only domains of this Protocol class.' },
    q: { type: 'string', description: 'Search in name and alsoKnownAs.' },
    limit: { type: 'integer', description: 'Page size (1..200).', default: 50 },
    cursor: { type: 'string', description: 'nextCursor of the previous page.' },
    ...REGISTRY_FLAGS,
  });

  async run(): Promise<void> {
    const { flags } = await this.parse(DomainList);
    const { type, status, controller, q, limit, cursor } = flags;
    const page = await (
      await registryClient(clientOptions(flags))
    ).listDomains({ type, status, controller, class: flags.class, q, limit, cursor });
    if (flags.json) this.outJson(page);
    else this.out(formatDomainPage(page));
  }
}
