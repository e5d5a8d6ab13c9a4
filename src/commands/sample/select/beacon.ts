import { BaseCommand, toOclifFlags } from '../../../cli/base.ts';
import { BEACON_FLAGS, type BeaconFlags } from '../../../cli/sample/flags.ts';
import { runSelectBeacon } from '../../../cli/sample/select-beacon.ts';

export default class SampleSelectBeacon extends BaseCommand {
  static override summary =
    'Fetch the committed drand round from a relay, verify its BLS signature and save the round JSON for `sample select draw --beacon`.';
  static override description =
    'Needs a network: GET <relay>/<chain hash>/public/<round> from drand relays (https://api.drand.sh, api2, api3, drand.cloudflare.com, ' +
    'or --relay), then the same checks as draw: the round number, randomness = sha256(signature) and the BLS signature against the pinned ' +
    "chain's public key. Without a network, fetch that URL on any connected device and carry the file (round, randomness, signature; " +
    'previous_signature on the default chain). See docs/selection.md, "The round without a network".';
  static override examples = [
    '<%= config.bin %> sample select beacon --commitment commitment.json',
    '<%= config.bin %> sample select beacon --round 34163747 --chain quicknet --out round.json',
    '<%= config.bin %> sample select beacon --commitment commitment.json --relay https://drand.cloudflare.com',
  ];
  static override flags = toOclifFlags(BEACON_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleSelectBeacon);
    await runSelectBeacon(flags as unknown as BeaconFlags, this);
  }
}
