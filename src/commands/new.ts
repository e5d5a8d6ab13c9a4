import { Args, BaseCommand, toOclifFlags } from '../cli/base.ts';
import { cliError } from '../cli/errors.ts';
import { writeErrorBody } from '../cli/errors-print.ts';
import { NEW_FLAGS } from '../cli/scaffold/flags.ts';
import type { Network } from '../cli/registry/settings.ts';

export default class New extends BaseCommand {
  static override summary =
    'Create an oracle project: sign in, register the oracle in a registry, scaffold a runnable, tested project.';
  static override description = `Every question is also a flag; --yes takes the defaults; without a terminal a missing answer is an error naming its flag.

Registers the oracle as a domain of type Oracle (class: the "oraclekit:oracle-protocol:v1" Protocol domain, registered on the local registry on first use, or --class) with its #api and #ws services at --url (default http://localhost:3000; PORT in .env is that URL's port), writes the DID into oracle.config.json, provisions a Matrix bot when a homeserver is configured (--matrix-homeserver or MATRIX_BASE_URL), then writes the project from templates/, installs its dependencies and initialises git. A failure or Ctrl+C removes what was created and deactivates the domain. See docs/scaffolder.md.`;
  static override enableJsonFlag = false;
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
    const [{ runNew }, { isInteractive }] = await Promise.all([
      import('../cli/scaffold/new.ts'),
      import('../cli/scaffold/ask.ts'),
    ]);
    const ac = new AbortController();
    // A second Ctrl+C quits at once. conf's atomic writer (when-exit) re-raises
    // the first SIGINT to this process, so a second one counts only after a moment.
    let armedAt = 0;
    const onSigint = () => {
      if (ac.signal.aborted) {
        if (Date.now() >= armedAt) process.exit(130);
        return;
      }
      armedAt = Date.now() + 300;
      process.stderr.write('\nCancelling: removing what was created… (Ctrl+C again to quit at once)\n');
      ac.abort();
    };
    process.on('SIGINT', onSigint);
    const log = (l: string) => process.stderr.write(l + '\n');
    try {
      const r = await runNew(
        {
          projectName: args['project-name'],
          cwd: process.cwd(),
          dir: flags.dir,
          force: flags.force,
          yes: flags.yes,
          interactive: isInteractive() && !flags.json,
          auth: flags.auth as 'qr' | 'mnemonic' | undefined,
          mnemonicFile: flags['mnemonic-file'],
          mnemonicEnv: flags['mnemonic-env'],
          generate: flags.generate,
          timeout: flags.timeout,
          callbackHost: flags['callback-host'],
          callbackUrl: flags['callback-url'],
          network: flags.network as Network | undefined,
          registry: flags.registry,
          apiKey: flags['api-key'],
          class: flags.class,
          name: flags.name,
          description: flags.description,
          price: flags.price,
          model: flags.model,
          url: flags.url,
          port: flags.port,
          oracleKey: flags['oracle-key'] as 'generate' | undefined,
          llmBaseUrl: flags['llm-base-url'],
          install: flags.install,
          git: flags.git,
          oraclekitSpec: flags['oraclekit-version'],
          matrix: flags.matrix,
          matrixHomeserver: flags['matrix-homeserver'],
          matrixUser: flags['matrix-user'],
          matrixPassword: flags['matrix-password'],
          matrixRegistrationToken: flags['matrix-registration-token'],
          log,
        },
        ac.signal,
      );
      if (flags.json) return this.outJson(r);
      const { formatNew, newNotes } = await import('../cli/scaffold/print.ts');
      for (const note of newNotes(r)) log(note);
      this.out(formatNew(r));
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === 'ExitPromptError' || name === 'AbortPromptError' || (e as { code?: string }).code === 'cancelled') {
        if (flags.json) writeErrorBody(cliError('cancelled', 'cancelled; nothing left behind').toBody(), true);
        else log('Cancelled; nothing left behind.');
        process.exitCode = 130;
        return;
      }
      throw e;
    } finally {
      process.off('SIGINT', onSigint);
    }
  }
}
