import { BaseCommand } from '../cli/base.ts';

export default class Logout extends BaseCommand {
  static override summary =
    'Forget the saved identity (deletes identity.json; back up a mnemonic you still need first).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Logout);
    const { logout } = await import('../cli/identity/login.ts');
    const { formatLogout } = await import('../cli/identity/print.ts');
    const r = logout();
    if (flags.json) this.outJson(r);
    else this.out(formatLogout(r));
  }
}
