import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { formatDesign } from '../../cli/registry/print.ts';
import { APPROVE_FLAGS } from '../../cli/sample/flags.ts';

export default class SampleApprove extends BaseCommand {
  static override summary =
    'Approve (or --reject) a stored design as a verifier; --submit submits a draft as its creator.';
  static override description =
    'Approval needs the project to be an eligible (verified, active) domain when the registry knows it. An approved or rejected design never changes: recalculation makes a new version.';
  static override examples = [
    '<%= config.bin %> sample approve 0f6c1e2a-…',
    '<%= config.bin %> sample approve 0f6c1e2a-… --reject --reason "SD from a pilot of 5 households"',
    '<%= config.bin %> sample approve 0f6c1e2a-… --submit',
  ];
  static override args = { designId: Args.string({ description: 'The design id.', required: true }) };
  static override flags = toOclifFlags(APPROVE_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SampleApprove);
    const status = flags.submit ? 'submitted' : flags.reject ? 'rejected' : 'approved';
    const d = await (
      await registryClient(clientOptions(flags))
    ).setDesignVerification(args.designId, { status, ...(flags.reason ? { reason: flags.reason } : {}) });
    if (flags.json) this.outJson(d);
    else this.out(formatDesign(d));
  }
}
