import { BaseCommand } from '../cli/base.ts';
import { cliError } from '../cli/errors.ts';

export default class Whoami extends BaseCommand {
  static override summary = 'Show the identity the CLI uses (your DID), and where it is saved.';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Whoami);
    const { readIdentity, identityPath, principalDid } = await import('../cli/identity/store.ts');
    const id = readIdentity();
    if (!id) throw cliError('not_logged_in', 'not signed in: run `oraclekit login`');
    const out = { did: principalDid(id), keyDid: id.did, method: id.wallet ? 'qr' : 'mnemonic', wallet: id.wallet ?? null, createdAt: id.createdAt, path: identityPath() };
    if (flags.json) this.outJson(out);
    else {
      this.out(out.did);
      if (id.wallet) this.out(`  wallet sign-in ${id.wallet.signedInAt}; local key ${id.did}`);
      this.out(`  saved in ${out.path}`);
    }
  }
}
