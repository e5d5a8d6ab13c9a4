import { BaseCommand, toOclifFlags } from '../cli/base.ts';
import { LOGOUT_FLAGS } from '../cli/identity/flags.ts';

export default class Logout extends BaseCommand {
  static override summary = 'Sign out: remove the saved identity, keeping its file as a backup.';
  static override description =
    'The identity file holds the only copy of the key that controls your registered domains and API keys. On a terminal, logout says which DID it is and asks (default no); without a terminal it needs --force. Either way the file is kept as identity.json.<timestamp>.bak (0600) before it is removed.';
  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --force --json'];
  static override flags = toOclifFlags(LOGOUT_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(Logout);
    const { canPrompt } = await import('../cli/io.ts');
    const { logout } = await import('../cli/identity/login.ts');
    const { formatLogout } = await import('../cli/identity/print.ts');
    const r = await logout({ force: flags.force, interactive: canPrompt() });
    if (flags.json) this.outJson(r);
    else this.out(formatLogout(r));
  }
}
