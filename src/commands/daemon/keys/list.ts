import { BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../../../cli/base.ts';
import { clientOptions, registryClient } from '../../../cli/registry/client.ts';
import { formatKeys } from '../../../cli/registry/print.ts';

export default class KeysList extends BaseCommand {
  static override summary = 'List API keys (ids, DIDs, roles; never the secrets).';
  static override examples = ['<%= config.bin %> daemon keys list', '<%= config.bin %> daemon keys list --json'];
  static override flags = toOclifFlags({ ...REGISTRY_FLAGS });

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysList);
    const r = await (await registryClient(clientOptions(flags))).listKeys();
    if (flags.json) this.outJson(r);
    else this.out(formatKeys(r.items));
  }
}
