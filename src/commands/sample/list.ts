import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { formatDesignPage } from '../../cli/registry/print.ts';
import { LIST_FLAGS } from '../../cli/sample/flags.ts';

export default class SampleList extends BaseCommand {
  static override summary = 'List stored sample designs (paged), optionally of one project.';
  static override examples = [
    '<%= config.bin %> sample list',
    '<%= config.bin %> sample list --project did:ixo:entity:... --json',
  ];
  static override flags = toOclifFlags(LIST_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleList);
    const page = await (
      await registryClient(clientOptions(flags))
    ).listDesigns({ projectId: flags.project, limit: flags.limit, cursor: flags.cursor });
    if (flags.json) this.outJson(page);
    else this.out(formatDesignPage(page));
  }
}
