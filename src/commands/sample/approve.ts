import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';
import { printDesign, type DesignOut } from './show.ts';

export default class SampleApprove extends BaseCommand {
  static override summary = 'Approve (or --reject) a stored design as a verifier; --submit submits a draft as its creator.';
  static override description = 'Approval needs the project to be an eligible (verified, active) domain when the registry knows it. An approved or rejected design never changes: recalculation makes a new version.';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> sample approve 0f6c1e2a-…', '<%= config.bin %> sample approve 0f6c1e2a-… --reject --reason "SD from a pilot of 5 households"', '<%= config.bin %> sample approve 0f6c1e2a-… --submit'];
  static override args = { designId: Args.string({ description: 'The design id.', required: true }) };
  static override flags = {
    reject: Flags.boolean({ description: 'Reject instead of approve.', default: false, exclusive: ['submit'] }),
    submit: Flags.boolean({ description: 'Submit the draft for verification (creator or project controller).', default: false }),
    reason: Flags.string({ description: 'A note stored with the verification.' }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SampleApprove);
    const body: Record<string, unknown> = { status: flags.submit ? 'submitted' : flags.reject ? 'rejected' : 'approved' };
    if (flags.reason) body.reason = flags.reason;
    const { call } = await import('../../cli/registry-client.ts');
    const r = await call<DesignOut>('POST', `/v1/sampling/${encodeURIComponent(args.designId)}/verification`, body, clientOptions(flags));
    if (flags.json) this.outJson(r.body);
    else printDesign(r.body);
  }
}
