import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_LIST_FLAGS } from '../../cli/registry/flags.ts';
import { formatDomainPage } from '../../cli/registry/print.ts';

export default class DomainList extends BaseCommand {
  static override summary = 'List domains, filtered, one page at a time (--cursor for the next).';
  static override examples = [
    '<%= config.bin %> domain list',
    '<%= config.bin %> domain list --type Project --status verified',
    '<%= config.bin %> domain list --q stoves --limit 10 --json',
  ];
  static override flags = toOclifFlags(DOMAIN_LIST_FLAGS);

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
