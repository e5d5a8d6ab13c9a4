import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { encodeDid, printDomain, type DomainOut } from '../../cli/registry-client.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';

export default class DomainShow extends BaseCommand {
  static override summary = 'Show a domain (with derived active/eligible).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> domain show did:ixo:entity:0123456789abcdef0123456789abcdef', '<%= config.bin %> domain show did:ixo:entity:... --json'];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainShow);
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<DomainOut>('GET', `/v1/domains/${encodeDid(args.did)}`, undefined, clientOptions(flags));
    if (flags.json) this.outJson(r.body);
    else printDomain(this, r.body);
  }
}
