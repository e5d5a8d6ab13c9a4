import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { encodeDid } from '../../cli/registry-client.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';
import { OracleKitError } from '../../cli/errors.ts';
import { printProposal, type ProposalOut } from './vote.ts';

export default class DomainPropose extends BaseCommand {
  static override summary = 'Submit a verification proposal for a domain (representative role, a controller).';
  static override description = 'The package file is JSON: {"documents": [{"url": "https://…", "hash": "sha256:<64 hex>", "name": "…"}]}. The proposal snapshots the deployment’s voters and weights and the tally rule in force.';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> domain propose did:ixo:entity:... --package package.json --description "Entity documents 2026"'];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = {
    package: Flags.string({ description: 'JSON file with the entity package.', required: true }),
    description: Flags.string({ description: 'What the voters are asked to verify.' }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainPropose);
    const { readFileSync } = await import('node:fs');
    let pkg: unknown;
    try {
      pkg = JSON.parse(readFileSync(flags.package, 'utf8'));
    } catch (e) {
      throw new OracleKitError({ status: 400, code: 'invalid_package', message: `--package ${flags.package}: ${(e as Error).message}`, field: 'package', value: flags.package, valid: 'a JSON file {documents: [{url, hash}]}' });
    }
    const body: Record<string, unknown> = { package: pkg };
    if (flags.description) body.description = flags.description;
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<ProposalOut>('POST', `/v1/domains/${encodeDid(args.did)}/verification-proposals`, body, clientOptions(flags));
    if (flags.json) this.outJson(r.body);
    else printProposal(r.body);
  }
}
