import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { runCheck } from '../../cli/sample/check.ts';

export default class SampleCheck extends BaseCommand {
  static override summary =
    "Re-derive a verifier's package (package.json of `sample report`): exit 0 when every statement holds, 10 naming the first that does not.";
  static override description =
    'Checks that every input file the package names still has the sha256 it records (the selection and the frame must be beside the ' +
    'package, at the paths it gives), then rebuilds every project from what the package carries — the design, the commitment with ' +
    "the chain's public key, the proof with the beacon round and its signature (BLS and randomness = sha256(signature) again), the " +
    'observations — and compares every number, check and finding. See docs/selection.md ("Checking a package").';
  static override examples = [
    '<%= config.bin %> sample check package.json',
    '<%= config.bin %> sample check package.json --json',
  ];
  static override args = {
    package: Args.string({ description: 'The package.json written by `sample report`.', required: true }),
  };
  static override flags = toOclifFlags({});

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SampleCheck);
    const code = await runCheck(args.package, flags as unknown as { json: boolean }, this);
    if (code !== 0) {
      process.exitCode = code;
      this.exit(code);
    }
  }
}
