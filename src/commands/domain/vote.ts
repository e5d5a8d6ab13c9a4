import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_FLAGS } from '../../cli/registry/flags.ts';
import { formatProposal } from '../../cli/registry/print.ts';

export default class DomainVote extends BaseCommand {
  static override summary = 'Vote on a verification proposal (voter role, in the proposal’s snapshot).';
  static override examples = [
    '<%= config.bin %> domain vote prp_0123456789abcdef0123 yes',
    '<%= config.bin %> domain vote prp_0123456789abcdef0123 veto --json',
  ];
  static override args = {
    proposal: Args.string({ description: 'The proposal id.', required: true }),
    option: Args.string({
      description: 'yes, no, abstain or veto.',
      required: true,
      options: ['yes', 'no', 'abstain', 'veto'],
    }),
  };
  static override flags = toOclifFlags(DOMAIN_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainVote);
    const p = await (await registryClient(clientOptions(flags))).vote(args.proposal, args.option);
    if (flags.json) this.outJson(p);
    else this.out(formatProposal(p));
  }
}
