import { Args } from '@oclif/core';
import { BaseCommand } from '../../../cli/base.ts';
import { clientOptions, registryFlags } from '../../../cli/registry-flags.ts';

export default class KeysRevoke extends BaseCommand {
  static override summary = 'Revoke an API key (it answers 401 from then on).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> daemon keys revoke key_1a2b3c4d5e6f'];
  static override args = { id: Args.string({ description: 'The key id (from `daemon keys list`).', required: true }) };
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(KeysRevoke);
    const { call } = await import('../../../cli/registry-client.ts');
    const r = await call<{ id: string; revokedAt: string }>('POST', `/admin/v1/keys/${encodeURIComponent(args.id)}/revoke`, undefined, { ...clientOptions(flags), admin: true });
    if (flags.json) this.outJson(r.body);
    else this.out(`revoked ${r.body.id} at ${r.body.revokedAt}`);
  }
}
