import { BaseCommand } from '../cli/base.ts';

export default class Logout extends BaseCommand {
  static override summary = 'Forget the saved identity (deletes identity.json; back up a mnemonic you still need first).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Logout);
    const { readIdentity, removeIdentity, identityPath, principalDid } = await import('../cli/identity/store.ts');
    let did: string | null;
    try {
      const id = readIdentity();
      did = id ? principalDid(id) : null;
    } catch {
      did = null; // an unreadable file is removed all the same
    }
    const removed = removeIdentity();
    if (flags.json) this.outJson({ loggedOut: removed, did, path: identityPath() });
    else this.out(removed ? `Signed out${did ? ` (${did})` : ''}; removed ${identityPath()}` : 'Not signed in.');
  }
}
