import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_PROPOSE_FLAGS } from '../../cli/registry/flags.ts';
import { readPackageFile } from '../../cli/registry/input.ts';
import { formatProposal } from '../../cli/registry/print.ts';

export default class DomainPropose extends BaseCommand {
  static override summary = 'Submit a verification proposal for a domain (representative role, a controller).';
  static override description =
    'The package file is JSON: {"documents": [{"url": "https://…", "hash": "sha256:<64 hex>", "name": "…"}]}. The proposal snapshots the deployment’s voters and weights and the tally rule in force.';
  static override examples = [
    '<%= config.bin %> domain propose did:ixo:entity:... --package package.json --description "Entity documents 2026"',
  ];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = toOclifFlags(DOMAIN_PROPOSE_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainPropose);
    const body = {
      package: readPackageFile(flags.package),
      ...(flags.description ? { description: flags.description } : {}),
    };
    const p = await (await registryClient(clientOptions(flags))).propose(args.did, body);
    if (flags.json) this.outJson(p);
    else this.out(formatProposal(p));
  }
}
