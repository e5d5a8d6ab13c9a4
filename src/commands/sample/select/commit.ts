import { Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { BaseCommand } from '../../../cli/base.ts';
import { paint, textTable } from '../../../cli/output.ts';
import { progressLine, progressText } from '../../../cli/progress.ts';
import { knownChain, parseChainInfo, KNOWN_CHAINS } from '../../../lib/beacon/drand.ts';
import { loadDesign } from '../../../lib/selection/design.ts';
import { selectionError } from '../../../lib/selection/errors.ts';
import { readJsonFile, writeJsonFile } from '../../../lib/selection/io.ts';
import { commitSelection } from '../../../lib/selection/workflow.ts';

export default class SampleSelectCommit extends BaseCommand {
  static override summary = 'Commit to a selection before any randomness exists: design, frameHash, n per stratum and a future drand round.';
  static override description =
    'Reads the design (the JSON of `sample calc --json`, a registry record, or a calc input) and the household frame CSV ' +
    '(household_id[,stratum][,adopter] plus any other columns), checks the frame against the design, and writes the ' +
    'commitment of algorithm cookstove-sampling/v1. Publish the commitment before the chosen round is produced. ' +
    'See docs/selection.md.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> sample calc -N 1200 --mean 2.4 --sd 1.1 --dropout 0.1 --json > design.json',
    '<%= config.bin %> sample select commit --design design.json --frame households.csv --out commitment.json',
    '<%= config.bin %> sample select commit --design design.json --frame households.csv --chain default --delay 86400 --out commitment.json',
    '<%= config.bin %> sample select commit --design record.json --frame households.csv --chain ./chain-info.json --round 12345678 --json',
    '<%= config.bin %> sample select commit -N 1200 --mean 2.4 --sd 1.1 --dropout 0.1 --frame households.csv --out commitment.json',
  ];
  static override flags = {
    design: Flags.string({ char: 'd', description: 'Design JSON: `sample calc --json` output, a registry record, or a calc input.', exactlyOne: ['design', 'population'] }),
    population: Flags.integer({ char: 'N', description: 'Instead of --design: an unstratified design computed here (with --mean, --sd, --dropout).', exactlyOne: ['design', 'population'], dependsOn: ['mean', 'sd', 'dropout'] }),
    mean: Flags.string({ description: 'Expected mean (with -N).', dependsOn: ['population'] }),
    sd: Flags.string({ description: 'Expected SD (with -N).', dependsOn: ['population'] }),
    dropout: Flags.string({ description: 'Expected dropout rate, a fraction 0 <= d < 1 (with -N).', dependsOn: ['population'] }),
    'er-coverage': Flags.string({ description: 'ER coverage, a fraction (with -N; default 1 - dropout).', dependsOn: ['population'] }),
    frame: Flags.string({ char: 'f', description: 'Household frame CSV with a household_id column (stratum and adopter optional; other columns kept).', required: true }),
    chain: Flags.string({ description: 'drand chain: "quicknet", "default", or a chain info JSON file (drand /info).', default: 'quicknet' }),
    round: Flags.integer({ description: 'The beacon round to use; must be produced after now. Default: the first round after now + --delay.' }),
    delay: Flags.integer({ description: 'Seconds between the commitment and the beacon round (time to publish the commitment).', default: 3600, min: 0 }),
    out: Flags.string({ char: 'o', description: 'Where to write the commitment JSON.', default: 'commitment.json' }),
    force: Flags.boolean({ description: 'Overwrite an existing --out file.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleSelectCommit);
    const design = flags.design !== undefined
      ? loadDesign(readJsonFile(flags.design, 'design', 'the JSON of `oraclekit sample calc --json` or a registry record'), flags.design)
      : loadDesign({
          population: flags.population,
          expectedMean: Number(flags.mean),
          expectedSD: Number(flags.sd),
          dropoutRate: Number(flags.dropout),
          ...(flags['er-coverage'] !== undefined ? { erCoverage: Number(flags['er-coverage']) } : {}),
        }, 'flags');
    const chain = knownChain(flags.chain) ?? parseChainInfo(readJsonFile(flags.chain, 'chain', `"${Object.keys(KNOWN_CHAINS).join('" or "')}" or a drand chain info JSON file`), flags.chain);
    if (flags.round !== undefined && flags.round < 1) throw selectionError('invalid_round', '--round', flags.round, 'an integer >= 1');
    if (existsSync(flags.out) && !flags.force) {
      throw selectionError('invalid_commitment', '--out', flags.out, 'a path that does not exist yet (or --force)', {
        message: `--out ${flags.out} exists; a commitment is published once — choose another path or pass --force`,
      });
    }
    const progress = progressLine(!flags.json && Boolean(process.stderr.isTTY));
    const { commitment, notes } = await commitSelection({
      design,
      framePath: flags.frame,
      chain,
      ...(flags.round !== undefined ? { round: flags.round } : {}),
      delaySeconds: flags.delay,
      now: new Date(),
      onProgress: (p) => progress.update(progressText(p)),
    });
    progress.done();
    writeJsonFile(flags.out, commitment);
    if (flags.json) {
      this.outJson({ file: flags.out, commitment, notes });
      return;
    }
    const c = commitment;
    this.out(`${paint.bold('Commitment')} ${flags.out} (${c.algorithm})`);
    this.out(`  designId   ${c.designId}`);
    this.out(`  frame      ${c.frame.file}: ${c.frame.households} households, frameHash ${c.frame.frameHash}`);
    this.out(`  beacon     drand ${chain.metadata?.beaconID ?? ''} round ${c.beacon.round} at ${c.beacon.roundTime} (chain ${chain.hash.slice(0, 16)}…)`);
    this.out(textTable(['stratum', 'households', 'n'], c.strata.map((s) => [s.name, s.households, s.sampleSize])));
    for (const n of notes) this.out(paint.yellow(`note: ${n}`));
    this.out(`Publish ${flags.out} before ${c.beacon.roundTime}; then run \`oraclekit sample select draw --commitment ${flags.out} --frame ${flags.frame} --beacon round-${c.beacon.round}.json\`.`);
  }
}
