import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';

export interface ProposalOut {
  id: string;
  domainId: string;
  status: string;
  rule: { rule: string };
  deadline: string;
  tally: { yes: string; no: string; abstain: string; veto: string; voted: number; voters: number; totalWeight: string };
}

export function printProposal(p: ProposalOut): void {
  const t = p.tally;
  process.stdout.write(
    `${p.id} for ${p.domainId}\n  status    ${p.status} (rule ${p.rule.rule}; deadline ${p.deadline})\n  tally     yes ${t.yes}, no ${t.no}, abstain ${t.abstain}, veto ${t.veto} (${t.voted}/${t.voters} voters, total weight ${t.totalWeight})\n`,
  );
}

export default class DomainVote extends BaseCommand {
  static override summary = 'Vote on a verification proposal (voter role, in the proposal’s snapshot).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> domain vote prp_0123456789abcdef0123 yes', '<%= config.bin %> domain vote prp_0123456789abcdef0123 veto --json'];
  static override args = {
    proposal: Args.string({ description: 'The proposal id.', required: true }),
    option: Args.string({ description: 'yes, no, abstain or veto.', required: true, options: ['yes', 'no', 'abstain', 'veto'] }),
  };
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainVote);
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<ProposalOut>('POST', `/v1/proposals/${encodeURIComponent(args.proposal)}/votes`, { option: args.option }, clientOptions(flags));
    if (flags.json) this.outJson(r.body);
    else printProposal(r.body);
  }
}
