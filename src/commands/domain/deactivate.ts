import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { encodeDid, printDomain, type DomainOut } from '../../cli/registry-client.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';

export default class DomainDeactivate extends BaseCommand {
  static override summary = 'Deactivate a domain (terminal; its open proposal is cancelled).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> domain deactivate did:ixo:entity:0123456789abcdef0123456789abcdef'];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainDeactivate);
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<DomainOut>('POST', `/v1/domains/${encodeDid(args.did)}/deactivate`, undefined, clientOptions(flags));
    if (flags.json) this.outJson(r.body);
    else printDomain(this, r.body);
  }
}
