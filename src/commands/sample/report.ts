import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { REPORT_FLAGS, type ReportFlags } from '../../cli/sample/flags.ts';
import { runReport } from '../../cli/sample/report.ts';

export default class SampleReport extends BaseCommand {
  static override summary =
    "The verifier's package: every check re-run, the method, designs, ER coverage, supporting data against the design, the selection and a chart — as self-contained HTML and JSON.";
  static override description =
    'One project from flags, or several from a manifest JSON ({title?, projects: [{projectId, name?, design, commitment?, proof?, selection?, frame?, ' +
    'publishedAt?, seedHex?, observations?, observationsKind?, meanJustification?, sdCalculation?, sources?}]}, paths relative to the manifest). ' +
    'Re-runs every check that needs no frame (design recomputed, commitment digest, beacon signature and round time, trust in the randomness, seed, ' +
    'every listed ticket; with selection.csv the order, the order digests and the frameHash; with the frame the full verification). A failed check is ' +
    'shown in red at the top of the package and makes the command exit 10 (or 11 for untrusted randomness) unless --allow-failed. ' +
    'Writes --out (HTML, printable, chart as inline SVG, no scripts) and the same content as JSON beside it (same name, .json). See docs/selection.md.';
  static override examples = [
    '<%= config.bin %> sample report --design design.json --commitment commitment.json --proof selection/proof.json --selection selection/selection.csv --published-at 2026-09-16T14:05:00Z --observations baseline.csv --mean-justification "Baseline KPT, 2025, 60 households" --source "Baseline KPT 2025|Field report, annex 3" --out package.html',
    '<%= config.bin %> sample report --manifest projects.json --out package.html',
    '<%= config.bin %> sample report --manifest projects.json --out package.html --json > package.json',
  ];
  static override flags = toOclifFlags(REPORT_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleReport);
    const code = await runReport(flags as unknown as ReportFlags, this);
    if (code !== 0) {
      process.exitCode = code;
      this.exit(code);
    }
  }
}
