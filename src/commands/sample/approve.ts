import { Args, BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { formatDesign } from '../../cli/registry/print.ts';

export default class SampleApprove extends BaseCommand {
  static override summary =
    'Approve (or --reject) a stored design as a verifier; --submit submits a draft as its creator.';
  static override description =
    'Approval needs the project to be an eligible (verified, active) domain when the registry knows it. An approved or rejected design never changes: recalculation makes a new version.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> sample approve 0f6c1e2a-…',
    '<%= config.bin %> sample approve 0f6c1e2a-… --reject --reason "SD from a pilot of 5 households"',
    '<%= config.bin %> sample approve 0f6c1e2a-… --submit',
  ];
  static override args = { designId: Args.string({ description: 'The design id.', required: true }) };
  static override flags = toOclifFlags({
    reject: { type: 'boolean', description: 'Reject instead of approve.', default: false, exclusive: ['submit'] },
    submit: {
      type: 'boolean',
      description: 'Submit the draft for verification (creator or project controller).',
      default: false,
    },
    reason: { type: 'string', description: 'A note stored with the verification.' },
    ...REGISTRY_FLAGS,
  });

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
