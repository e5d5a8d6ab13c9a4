import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { encodeDid, type DomainOut } from '../../cli/registry-client.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';
import { printProposal, type ProposalOut } from './vote.ts';

export default class DomainStatus extends BaseCommand {
  static override summary = "A domain's state, its latest verification proposal and the tally so far.";
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> domain status did:ixo:entity:0123456789abcdef0123456789abcdef', '<%= config.bin %> domain status did:ixo:entity:... --json'];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainStatus);
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<{ domain: DomainOut; proposal: ProposalOut | null }>('GET', `/v1/domains/${encodeDid(args.did)}/verification-proposals`, undefined, clientOptions(flags));
    const { domain, proposal } = r.body;
    if (flags.json) return this.outJson({ did: domain.id, state: domain.state, active: domain.active, eligible: domain.eligible, version: domain.version, proposal });
    this.out(`${domain.id}: ${domain.state} (active ${domain.active}, eligible ${domain.eligible})`);
    if (proposal) printProposal(proposal);
    else this.out('  no verification proposal yet');
  }
}
