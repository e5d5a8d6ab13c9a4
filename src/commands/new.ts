import { Args, BaseCommand, toOclifFlags } from '../cli/base.ts';
import { cliError } from '../cli/errors.ts';
import { writeErrorBody } from '../cli/errors-print.ts';
import { NEW_FLAGS } from '../cli/scaffold/flags.ts';

export default class New extends BaseCommand {
  static override summary =
    'Create an oracle project: sign in, register the oracle in a registry, scaffold a runnable, tested project.';
  static override description = `Every question is also a flag; --yes takes the defaults; without a terminal a missing answer is an error naming its flag.

Registers the oracle as a domain of type Oracle (class: the "oraclekit:oracle-protocol:v1" Protocol domain, registered on the local registry on first use, or --class) with its #api and #ws services at --url (default http://localhost:3000; PORT in .env is that URL's port), writes the DID into oracle.config.json, provisions a Matrix bot when a homeserver is configured (--matrix-homeserver or MATRIX_BASE_URL), then writes the project from templates/, installs its dependencies and initialises git. A failure or Ctrl+C removes what was created and deactivates the domain. See docs/scaffolder.md.`;
  static override examples = [
    '<%= config.bin %> new my-oracle',
    '<%= config.bin %> new demo --yes --no-install --no-git',
    '<%= config.bin %> new weather-bot --yes --auth mnemonic --mnemonic-file ~/secrets/words --description "Weather for farmers" --price 0.5',
    '<%= config.bin %> new prod-oracle --network testnet --registry https://registry.testnet.example.org --api-key $KEY --class did:ixo:entity:0123456789abcdef0123456789abcdef --url https://oracle.example.org --port 8080',
    '<%= config.bin %> new chat-oracle --yes --matrix-homeserver https://matrix.example.org --json',
  ];
  static override args = {
    'project-name': Args.string({
      description: 'The project (and directory) name; asked on a terminal when missing (my-oracle with --yes).',
    }),
  };
  static override flags = toOclifFlags(NEW_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(New);
    const [{ runNew, newInput }, { canPrompt }, { cancelOnSigint, isCancel }] = await Promise.all([
      import('../cli/scaffold/new.ts'),
      import('../cli/io.ts'),
      import('../cli/scaffold/cancel.ts'),
    ]);
    const log = (l: string) => process.stderr.write(l + '\n');
    const cancel = cancelOnSigint(log);
    try {
      const input = newInput(args['project-name'], flags, {
        cwd: process.cwd(),
        interactive: canPrompt(flags.json),
        log,
      });
      const r = await runNew(input, cancel.signal);
      if (flags.json) return this.outJson(r);
      const { formatNew, newNotes } = await import('../cli/scaffold/print.ts');
      for (const note of newNotes(r)) log(note);
      this.out(formatNew(r));
    } catch (e) {
      if (!isCancel(e)) throw e;
      if (flags.json) writeErrorBody(cliError('cancelled', 'cancelled; nothing left behind').toBody(), true);
      else log('Cancelled; nothing left behind.');
      process.exitCode = 130;
    } finally {
      cancel.dispose();
    }
  }
}
