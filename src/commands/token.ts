import { BaseCommand, toOclifFlags } from '../cli/base.ts';
import { TOKEN_FLAGS } from '../cli/identity/flags.ts';

export default class Token extends BaseCommand {
  static override summary = "Print a UCAN invocation for calling an oracle's API by hand (curl).";
  static override description =
    "Signs an invocation of oracle/use on the oracle with your saved identity (the key the chat signs with) and prints it, for `Authorization: Bearer <token>` with `X-Auth-Type: ucan`. The oracle is --oracle (a URL, or a DID resolved through the registry), else the one of ./oracle.config.json, else the local daemon's default oracle. It is a bearer credential until it expires (--ttl, at most 900 s): anyone holding it acts as you on that oracle. --json adds the oracle's DID and URL, the issuer and the expiry.";
  static override examples = [
    '<%= config.bin %> token --oracle http://localhost:3000',
    'curl -H "Authorization: Bearer $(<%= config.bin %> token --oracle $ORACLE)" -H "X-Auth-Type: ucan" $ORACLE/sessions',
    '<%= config.bin %> token --oracle did:ixo:entity:abc --ttl 120 --json',
  ];
  static override flags = toOclifFlags(TOKEN_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(Token);
    const { mintToken } = await import('../cli/identity/token.ts');
    const r = await mintToken({
      oracle: flags.oracle,
      registry: flags.registry,
      apiKey: flags['api-key'],
      mnemonicFile: flags['mnemonic-file'],
      ttlSeconds: flags.ttl,
      cwd: process.cwd(),
      env: process.env,
    });
    if (flags.json) this.outJson(r);
    else this.out(r.token);
  }
}
