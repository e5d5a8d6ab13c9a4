import { BaseCommand, toOclifFlags } from '../cli/base.ts';
import { IDENTITY_FLAGS, LOGIN_FLAGS } from '../cli/identity/flags.ts';
import { mnemonicInEnv } from '../cli/identity/mnemonic.ts';

export default class Login extends BaseCommand {
  static override summary = 'Sign in: a QR code your wallet signs, or an offline BIP39 mnemonic.';
  static override description =
    'On a terminal it first says who you are signed in as (the DID, and the domains its key controls when a registry can tell). The identity is saved in identity.json in your config directory ($ORACLEKIT_HOME/config, else ~/.config/oraclekit), mode 0600 — the same file `oraclekit chat` uses. A mnemonic comes from --mnemonic-file, $ORACLEKIT_MNEMONIC (or --mnemonic-env) or a hidden prompt, and is never echoed; on a terminal you may also have one generated. A generated mnemonic is shown once on a terminal (write it down), else the command says where it is saved. Replacing a saved identity with another one asks first on a terminal and needs --force otherwise; the old file is kept as identity.json.<timestamp>.bak (0600). QR sign-in shows a QR code of the request URL (sized for an 80x24 terminal; where it cannot fit, the URL and a short code the wallet shows instead) and warns when the callback is on loopback, which a phone cannot reach; the wallet POSTs its Ed25519 signature of the challenge to a short-lived callback server run by this command, and its DID becomes the identity the registry knows.';
  static override examples = [
    '<%= config.bin %> login --auth mnemonic --mnemonic-file ~/secrets/oracle.words',
    'ORACLEKIT_MNEMONIC="word1 … word24" <%= config.bin %> login --auth mnemonic --json',
    '<%= config.bin %> login --auth mnemonic --generate',
    '<%= config.bin %> login --auth mnemonic --generate --force',
    '<%= config.bin %> login --auth qr --timeout 300',
  ];
  static override flags = toOclifFlags({ ...IDENTITY_FLAGS, ...LOGIN_FLAGS });

  async run(): Promise<void> {
    const { flags } = await this.parse(Login);
    const { canPrompt } = await import('../cli/io.ts');
    const { chooseAuth, login } = await import('../cli/identity/login.ts');
    const interactive = canPrompt();
    if (interactive) {
      // first, who you are: what a new sign-in would replace
      const { signedInLines } = await import('../cli/identity/signed-in.ts');
      process.stderr.write((await signedInLines()).join('\n') + '\n');
    }
    const implied =
      flags['mnemonic-file'] || flags.generate || mnemonicInEnv(process.env, flags['mnemonic-env'])
        ? 'mnemonic'
        : undefined;
    const auth = await chooseAuth((flags.auth ?? implied) as 'qr' | 'mnemonic' | undefined, interactive);
    const r = await login({
      auth,
      mnemonicFile: flags['mnemonic-file'],
      mnemonicEnv: flags['mnemonic-env'],
      generate: flags.generate,
      force: flags.force,
      interactive,
      timeoutSeconds: flags.timeout,
      callbackHost: flags['callback-host'],
      callbackUrl: flags['callback-url'],
    });
    const { formatLogin, generatedNotice, loginReply } = await import('../cli/identity/print.ts');
    const notice = generatedNotice(r, Boolean(process.stderr.isTTY));
    if (notice) process.stderr.write(notice + '\n');
    if (flags.json) this.outJson(loginReply(r));
    else this.out(formatLogin(r));
  }
}
