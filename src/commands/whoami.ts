import { BaseCommand } from '../cli/base.ts';

export default class Whoami extends BaseCommand {
  static override summary = 'Show the identity the CLI uses (your DID), and where it is saved.';
  static override examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Whoami);
    const { whoami } = await import('../cli/identity/login.ts');
    const { formatWhoami } = await import('../cli/identity/print.ts');
    const w = whoami();
    if (flags.json) this.outJson(w);
    else this.out(formatWhoami(w));
  }
}
