import { Args, BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { formatDesign } from '../../cli/registry/print.ts';

export default class SampleShow extends BaseCommand {
  static override summary = 'Show a stored sample design (from the registry).';
  static override examples = [
    '<%= config.bin %> sample show 0f6c1e2a-…',
    '<%= config.bin %> sample show 0f6c1e2a-… --json',
  ];
  static override args = { designId: Args.string({ description: 'The design id.', required: true }) };
  static override flags = toOclifFlags({ ...REGISTRY_FLAGS });

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SampleShow);
    const d = await (await registryClient(clientOptions(flags))).getDesign(args.designId);
    if (flags.json) this.outJson(d);
    else this.out(formatDesign(d));
  }
}
