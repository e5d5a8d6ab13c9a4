import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_FLAGS } from '../../cli/registry/flags.ts';
import { formatVerification, verificationJson } from '../../cli/registry/print.ts';

export default class DomainStatus extends BaseCommand {
  static override summary = "A domain's state, its latest verification proposal and the tally so far.";
  static override examples = [
    '<%= config.bin %> domain status did:ixo:entity:0123456789abcdef0123456789abcdef',
    '<%= config.bin %> domain status did:ixo:entity:... --json',
  ];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = toOclifFlags(DOMAIN_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainStatus);
    const r = await (await registryClient(clientOptions(flags))).verification(args.did);
    if (flags.json) this.outJson(verificationJson(r));
    else this.out(formatVerification(r));
  }
}
