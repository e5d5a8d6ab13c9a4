import { Args, BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../../../cli/base.ts';
import { clientOptions, registryClient } from '../../../cli/registry/client.ts';

export default class KeysRevoke extends BaseCommand {
  static override summary = 'Revoke an API key (it answers 401 from then on).';
  static override examples = ['<%= config.bin %> daemon keys revoke key_1a2b3c4d5e6f'];
  static override args = { id: Args.string({ description: 'The key id (from `daemon keys list`).', required: true }) };
  static override flags = toOclifFlags({ ...REGISTRY_FLAGS });

  async run(): Promise<void> {
    const { args, flags } = await this.parse(KeysRevoke);
    const r = await (await registryClient(clientOptions(flags))).revokeKey(args.id);
    if (flags.json) this.outJson(r);
    else this.out(`revoked ${r.id} at ${r.revokedAt}`);
  }
}
