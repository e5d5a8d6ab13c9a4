import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_FLAGS } from '../../cli/registry/flags.ts';
import { formatDomain } from '../../cli/registry/print.ts';

export default class DomainDeactivate extends BaseCommand {
  static override summary = 'Deactivate a domain (terminal; its open proposal is cancelled).';
  static override examples = ['<%= config.bin %> domain deactivate did:ixo:entity:0123456789abcdef0123456789abcdef'];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = toOclifFlags(DOMAIN_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainDeactivate);
    const d = await (await registryClient(clientOptions(flags))).deactivateDomain(args.did);
    if (flags.json) this.outJson(d);
    else this.out(formatDomain(d));
  }
}
